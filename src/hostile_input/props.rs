//! Property tests over the parsers that read untrusted bytes, through the same entry points
//! as the fuzz targets: none panics on arbitrary input, and each format that can be written
//! reads back what was written. A few hundred cases each, so `cargo test` stays quick.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;
use crate::evals::asking::cache::pyjson::{self, Style};
use crate::evals::{Call, Stop};

const CASES: u32 = 256;

/// Any JSON value: finite numbers of every kind, any Unicode text, nested a few levels.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn json_object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec(("[a-z_]{1,8}", json_value()), 0..4)
        .prop_map(|kv| kv.into_iter().collect())
}

/// A tool name as models send them.
fn tool_name() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_-]{0,20}"
}

fn stop() -> impl Strategy<Value = Stop> {
    prop_oneof![
        Just(Stop::ToolUse),
        Just(Stop::EndTurn),
        Just(Stop::MaxTokens),
        Just(Stop::Refusal),
        any::<String>().prop_map(Stop::Other),
    ]
}

fn choice() -> impl Strategy<Value = Choice> {
    let call = (
        any::<String>(),
        json_object(),
        prop::option::of(any::<String>()),
    )
        .prop_map(|(tool, args, malformed)| Call {
            tool,
            args: Value::Object(args),
            malformed,
        });
    (prop::collection::vec(call, 0..4), any::<String>(), stop())
        .prop_map(|(calls, text, stop)| Choice { calls, text, stop })
}

/// Valid configs to mutate: the loader must accept each as it is.
const CONFIGS: [&str; 3] = [
    "server:\n  command: [\"./server\", \"--stdio\"]\n  env: {TOKEN: \"${TOKEN}\"}\ntests:\n  - name: echo\n    tool: echo\n    args: {text: hi}\n    expect: {contains: hi, jsonpath: {$.a: {equals: 1}}}\n",
    "server:\n  url: http://127.0.0.1:9/mcp\n  headers: {Authorization: \"Bearer ${KEY}\"}\nchecks: {strict: true}\nevals:\n  provider: anthropic\n  model: m\n  trials: 3\n  cases:\n    - {prompt: add two numbers, expect_tool: add, expect_args: {a: 1}}\n    - {prompt: hello, expect_tool: null}\n",
    "server:\n  command: [python3, s.py]\ntimeout_ms: 2000\nretries: 1\nfuzz: {}\nbench: {}\n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn the_config_loader_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        config(&bytes);
    }

    #[test]
    fn the_config_loader_never_panics_on_edited_configs(
        which in 0..CONFIGS.len(),
        at in any::<prop::sample::Index>(),
        cut in 0usize..12,
        insert in prop_oneof![
            "[\\[\\]{}:,\"'&*!|>#%@` \\-\\n\\t]{0,6}",
            any::<String>(),
            Just("\n  - ".to_string()),
            Just(": [".to_string()),
        ],
    ) {
        let text = CONFIGS[which];
        let mut start = at.index(text.len() + 1);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (start + cut).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let edited = format!("{}{insert}{}", &text[..start], &text[end..]);
        config(edited.as_bytes());
    }

    #[test]
    fn the_stdio_reader_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        jsonrpc_lines(&bytes);
    }

    #[test]
    fn the_stdio_reader_gives_back_every_message_and_noise_line(
        lines in prop::collection::vec(
            prop_oneof![
                prop::collection::vec(json_object(), 0..3)
                    .prop_map(|objs| Value::Array(objs.into_iter().map(Value::Object).collect()))
                    .prop_map(Ok),
                json_object().prop_map(|o| Ok(Value::Object(o))),
                "# [^\\n\\r]{0,30}".prop_map(Err),
            ],
            0..8,
        ),
        crlf in any::<bool>(),
    ) {
        let end = if crlf { "\r\n" } else { "\n" };
        let stdout: String = lines
            .iter()
            .map(|l| match l {
                Ok(v) => format!("{v}{end}"),
                Err(noise) => format!("{noise}{end}"),
            })
            .collect();
        let read = jsonrpc_lines(stdout.as_bytes());
        let messages: Vec<Value> = lines.iter().filter_map(|l| l.clone().ok()).collect();
        let noise: Vec<String> = lines
            .iter()
            .filter_map(|l| l.clone().err())
            .filter(|n| !n.trim().is_empty())
            .map(|n| n.trim_end_matches('\r').to_owned())
            .collect();
        prop_assert_eq!(read.messages, messages);
        prop_assert_eq!(read.noise, noise);
    }

    #[test]
    fn the_sse_reader_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        sse(&bytes);
    }

    #[test]
    fn the_sse_reader_gives_back_every_event(
        events in prop::collection::vec("[^\\r]{1,40}", 0..6),
        noise in prop::collection::vec(
            prop::sample::select(vec![": keep-alive\n", "event: message\n", "id: 7\n", "retry: 10\n"]),
            6,
        ),
        crlf in any::<bool>(),
    ) {
        let mut body = String::new();
        for (event, noise) in events.iter().zip(&noise) {
            body.push_str(noise);
            for line in event.split('\n') {
                body.push_str(&format!("data: {line}\n"));
            }
            body.push('\n');
        }
        if crlf {
            body = body.replace('\n', "\r\n");
        }
        prop_assert_eq!(sse(body.as_bytes()), events);
    }

    #[test]
    fn provider_readers_never_panic_on_json(v in json_value()) {
        let bytes = v.to_string().into_bytes();
        anthropic_answer(&bytes);
        openai_answer(&bytes);
        command_answer(&bytes);
        let wrapped = json!({"content": [v.clone()], "choices": [{"message": v}]}).to_string();
        anthropic_answer(wrapped.as_bytes());
        openai_answer(wrapped.as_bytes());
        command_answer(wrapped.as_bytes());
    }

    #[test]
    fn provider_readers_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        anthropic_answer(&bytes);
        openai_answer(&bytes);
        command_answer(&bytes);
    }

    #[test]
    fn answers_read_back_as_each_api_sends_them(
        calls in prop::collection::vec((tool_name(), json_object()), 0..4),
        text in any::<String>(),
    ) {
        let mut blocks = vec![json!({"type": "text", "text": text})];
        blocks.extend(calls.iter().enumerate().map(|(i, (name, args))| {
            json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": name, "input": args})
        }));
        let anthropic = json!({"type": "message", "content": blocks}).to_string();
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|(name, args)| json!({"type": "function", "function": {"name": name, "arguments": Value::Object(args.clone()).to_string()}}))
            .collect();
        let openai = json!({"choices": [{"message": {"content": text, "tool_calls": tool_calls}}]}).to_string();
        let items: Vec<Value> = calls.iter().map(|(n, a)| json!({"tool": n, "args": a})).collect();
        let command = json!({"calls": items, "text": text}).to_string();
        for answer in [
            anthropic_answer(anthropic.as_bytes()),
            openai_answer(openai.as_bytes()),
            command_answer(command.as_bytes()),
        ] {
            let answer = answer.ok_or_else(|| TestCaseError::fail("not read"))?;
            prop_assert_eq!(&answer.text, &text);
            let got: Vec<(String, Value)> = answer
                .calls
                .into_iter()
                .map(|c| (c.name, c.args.unwrap_or(Value::Null)))
                .collect();
            let want: Vec<(String, Value)> =
                calls.iter().map(|(n, a)| (n.clone(), Value::Object(a.clone()))).collect();
            prop_assert_eq!(got, want);
            let stop = if calls.is_empty() { Stop::EndTurn } else { Stop::ToolUse };
            prop_assert_eq!(answer.stop, stop);
        }
    }

    #[test]
    fn cache_entries_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        cache_entry(&bytes);
    }

    #[test]
    fn cache_entries_of_any_shape_read_back_as_written(
        fields in prop::collection::vec(
            (prop::sample::select(vec!["tool", "args", "text", "calls", "stop", "model"]), json_value()),
            0..6,
        ),
        tool in prop::option::of(tool_name()),
    ) {
        let mut entry: Map<String, Value> = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        entry.entry("tool").or_insert_with(|| tool.map_or(Value::Null, Value::String));
        cache_entry(Value::Object(entry).to_string().as_bytes());
    }

    #[test]
    fn every_answer_round_trips_through_a_cache_file(choice in choice()) {
        let written = cache::entry_text(&choice, "openai", "m", "p");
        prop_assert_eq!(cache::parse_entry(&written), Ok(choice.clone()));
        prop_assert_eq!(cache_entry(written.as_bytes()), Some(choice));
    }

    #[test]
    fn python_style_json_reads_back_as_the_same_value(v in json_value()) {
        for style in [Style::KEY, Style::FILE] {
            let text = pyjson::dumps(&v, style);
            let back: Value = serde_json::from_str(&text)
                .map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
            prop_assert_eq!(&back, &v, "{}", text);
        }
    }
}

/// The first fuzz finding (`fuzz/sse`, after 222 runs): an event the body ended in without
/// its blank line was handed out even when its data was empty, while the same event with its
/// blank line was skipped, so the client reported "an SSE event that is not JSON". Now an
/// empty event is skipped either way, and a non-empty unterminated one still counts.
#[test]
fn fuzz_finding_sse_an_unterminated_empty_event_at_the_end() {
    let crash = b"ieven messevaged: 0\ndata\nid: e:\n\x08";
    assert_eq!(sse(crash), Vec::<String>::new());
    assert_eq!(sse(b"data\nid: e:\n\n"), Vec::<String>::new());
    assert_eq!(sse(b"data: a\n\ndata"), vec!["a".to_owned()]);
    assert_eq!(
        sse(b"data: a\n\ndata: b"),
        vec!["a".to_owned(), "b".to_owned()]
    );
}

/// The second fuzz finding (`fuzz/jsonrpc_lines`, in its first runs): a line holding only a
/// vertical tab (whitespace to `str::trim`, not to `u8::is_ascii_whitespace`) was filed as
/// noise that reads as blank. Now a line of Unicode whitespace is skipped like an empty one.
#[test]
fn fuzz_finding_a_line_of_vertical_tab_is_blank_not_noise() {
    assert_eq!(jsonrpc_lines(b"\x0b"), StdoutRead::default());
    let read = jsonrpc_lines("\x0b\n\u{a0}\u{2028}\r\n{\"id\":1}\n# log\n".as_bytes());
    assert_eq!(read.messages, vec![json!({"id": 1})]);
    assert_eq!(read.noise, vec!["# log".to_owned()]);
    let crash = b"{\"\n\n\x00\x00\x19FT-2\n\x02\n\x0b\n&\n\xff\xff\x04\ne},\"re\n";
    let read = jsonrpc_lines(crash);
    assert_eq!(read.unreadable.len(), 1);
    assert_eq!(read.noise.len(), 5);
}

#[test]
fn the_seed_configs_load() {
    for text in CONFIGS {
        assert!(config(text.as_bytes()), "{text}");
    }
}

/// The seed set of each cargo-fuzz target (`fuzz/seeds/TARGET.json`, file name to text, written
/// into the untracked corpus by `scripts/fuzz.sh`): every target of `fuzz/Cargo.toml` has seeds
/// and every seed set a target, and each seed goes through its target's entry point without a
/// finding. The seed configs load (but the one named for the error it makes), so the fuzzer
/// starts from configs that get past the parser; each cache entry and model answer reads.
#[test]
fn every_fuzz_target_has_seeds_that_its_entry_point_reads() {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml")).unwrap();
    let mut targets: Vec<String> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|bin| {
            let line = bin.lines().find(|l| l.trim_start().starts_with("name"))?;
            Some(line.split('"').nth(1)?.to_owned())
        })
        .collect();
    targets.sort();
    let mut sets: Vec<String> = std::fs::read_dir(fuzz.join("seeds"))
        .expect("fuzz/seeds/ holds a seed set per fuzz target")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    sets.sort();
    let want: Vec<String> = targets.iter().map(|t| format!("{t}.json")).collect();
    assert_eq!(
        sets, want,
        "fuzz/seeds/ has one TARGET.json per fuzz target"
    );
    for target in &targets {
        let text =
            std::fs::read_to_string(fuzz.join("seeds").join(format!("{target}.json"))).unwrap();
        let set: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
        for (name, seed) in &set {
            let bytes = seed.as_str().unwrap_or_else(|| panic!("{name}")).as_bytes();
            match target.as_str() {
                "config" => {
                    // One seed is a config the loader must refuse, and says so in its name.
                    let invalid = name.contains("unknown-key");
                    assert_eq!(config(bytes), !invalid, "{name}");
                }
                "jsonrpc_lines" => drop(jsonrpc_lines(bytes)),
                "sse" => drop(sse(bytes)),
                "provider_answer" => {
                    let read = [
                        anthropic_answer(bytes).is_some(),
                        openai_answer(bytes).is_some(),
                        command_answer(bytes).is_some(),
                    ];
                    assert!(read.contains(&true), "no reader reads {name}");
                }
                "cache_entry" => {
                    assert!(cache_entry(bytes).is_some(), "{name} is not a cache entry")
                }
                other => panic!("fuzz target {other} has no entry point in this test"),
            }
        }
        assert!(!set.is_empty(), "fuzz/seeds/{target}.json is empty");
    }
}
