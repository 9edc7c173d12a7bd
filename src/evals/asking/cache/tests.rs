//! Tests of the cache: keys and files against what mcp-toolproof 0.3.1 itself wrote
//! (`tests/fixtures/reference-cache`), the Python-compatible dumper, and the file store.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::*;
use crate::evals::ApiTool;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference-cache")
}

/// `keys.json`, with the numbers of each tool list that a `Value` cannot hold as Python does
/// kept as Python's text, as the MCP client keeps them from the wire.
fn key_cases() -> Vec<KeyCase> {
    let text = std::fs::read_to_string(fixture_dir().join("keys.json")).expect("keys.json");
    let value: Value = serde_json::from_str(&text).expect("keys.json is JSON");
    let mut cases: Vec<KeyCase> = serde_json::from_value(value.clone()).expect("key cases");
    for (pointer, python) in crate::mcp::exact::differing(&value, &text) {
        let parts: Vec<&str> = pointer.splitn(6, '/').collect();
        if let ["", case, "tools", tool, "input_schema", within] = parts.as_slice() {
            let (case, tool): (usize, usize) = (case.parse().unwrap(), tool.parse().unwrap());
            cases[case].tools[tool]
                .exact_numbers
                .push((format!("/{within}"), python));
        }
    }
    cases
}

fn read_fixture<T: serde::de::DeserializeOwned>(name: &str) -> T {
    let path = fixture_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A scratch folder, empty, removed again when the guard drops.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!(
        "toolproof-cache-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

#[derive(Deserialize)]
struct DumpCase {
    input: String,
    key: String,
    file: String,
}

#[test]
fn dumper_matches_python_on_the_recorded_corpus() {
    let corpus: Vec<DumpCase> = read_fixture("dumps.json");
    assert!(corpus.len() > 400, "corpus has {} values", corpus.len());
    let mut wrong = Vec::new();
    for case in &corpus {
        let value: Value = serde_json::from_str(&case.input).unwrap();
        let key = pyjson::dumps(&value, Style::KEY);
        let file = pyjson::dumps(&value, Style::FILE);
        if key != case.key || file != case.file {
            wrong.push(format!(
                "input {}\n  python {}\n  ours   {}",
                case.input, case.key, key
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[derive(Deserialize)]
struct KeyCase {
    config: String,
    provider: String,
    model: String,
    system: Option<String>,
    prompt: String,
    tools: Vec<ApiTool>,
    params: Map<String, Value>,
    key: String,
    file: String,
    choice: Choice,
}

impl KeyCase {
    fn cache(&self) -> Cache {
        let folder = Path::new(&self.config).parent().unwrap();
        Cache::new(&fixture_dir().join(folder).join(".toolproof-cache"))
    }

    fn key(&self, trial: u32) -> String {
        key(
            &self.provider,
            &self.model,
            self.system.as_deref(),
            &self.prompt,
            &self.tools,
            &self.params,
            trial,
        )
    }
}

#[test]
fn keys_equal_the_file_names_the_reference_wrote() {
    let cases = key_cases();
    assert!(cases.len() >= 20);
    for case in &cases {
        assert_eq!(
            case.key(1),
            case.key,
            "key of {:?} in {}",
            case.prompt,
            case.config
        );
        let path = case.cache().path(&case.key);
        assert!(path.is_file(), "{} is missing", path.display());
        assert_eq!(path, fixture_dir().join(&case.file));
    }
}

#[test]
fn every_reference_file_reads_into_the_expected_choice() {
    let cases = key_cases();
    for case in &cases {
        assert_eq!(
            case.cache().read(&case.key),
            Lookup::Hit(case.choice.clone()),
            "{}",
            case.file
        );
    }
}

#[test]
fn every_reference_file_belongs_to_a_case() {
    let cases = key_cases();
    let configs: BTreeSet<&str> = cases.iter().map(|c| c.config.as_str()).collect();
    assert_eq!(configs.len(), 4);
    for config in configs {
        let mine: Vec<&KeyCase> = cases.iter().filter(|c| c.config == config).collect();
        let wanted: BTreeSet<String> = mine.iter().map(|c| c.key.clone()).collect();
        let present: BTreeSet<String> = mine[0].cache().keys().unwrap().into_iter().collect();
        assert_eq!(present, wanted, "{config}");
    }
}

#[test]
fn later_trials_get_their_own_keys_and_trial_one_is_the_reference_key() {
    let cases = key_cases();
    let case = &cases[0];
    assert_eq!(case.key(0), case.key);
    assert_eq!(case.key(1), case.key);
    let two = case.key(2);
    let three = case.key(3);
    assert_ne!(two, case.key);
    assert_ne!(two, three);
    // The trial sits in the material like any other key, sorted between "tools" and "v".
    let mut material = reference_material(case);
    material.insert("trial".into(), json!(2));
    assert_eq!(
        two,
        sha_hex(&pyjson::dumps(&Value::Object(material), Style::KEY))
    );
}

fn reference_material(case: &KeyCase) -> Map<String, Value> {
    let Value::Object(map) = json!({
        "v": 1,
        "provider": case.provider,
        "model": case.model,
        "system": case.system,
        "prompt": case.prompt,
        "tools": case.tools,
        "params": case.params,
    }) else {
        unreachable!()
    };
    map
}

fn sha_hex(text: &str) -> String {
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

#[test]
fn keyer_hashes_the_same_text_as_dumping_the_whole_material() {
    let cases = key_cases();
    // Dumping a `Value` cannot write the exact numbers; those cases are checked by
    // `keys_equal_the_file_names_the_reference_wrote`.
    for case in cases
        .iter()
        .filter(|c| c.tools.iter().all(|t| t.exact_numbers.is_empty()))
    {
        let whole = sha_hex(&pyjson::dumps(
            &Value::Object(reference_material(case)),
            Style::KEY,
        ));
        assert_eq!(case.key(1), whole, "{}", case.prompt);
    }
}

#[test]
fn any_change_to_the_material_changes_the_key() {
    let tools = vec![ApiTool {
        exact_numbers: Vec::new(),
        name: "echo".into(),
        description: "Echo.".into(),
        input_schema: json!({"type": "object"}),
    }];
    let params = Map::new();
    let base = key("anthropic", "m", None, "p", &tools, &params, 1);
    let mut other_tools = tools.clone();
    other_tools[0].description = "Echo!".into();
    let mut other_params = Map::new();
    other_params.insert("seed".into(), json!(1));
    for changed in [
        key("openai", "m", None, "p", &tools, &params, 1),
        key("anthropic", "m2", None, "p", &tools, &params, 1),
        key("anthropic", "m", Some(""), "p", &tools, &params, 1),
        key("anthropic", "m", None, "p ", &tools, &params, 1),
        key("anthropic", "m", None, "p", &other_tools, &params, 1),
        key("anthropic", "m", None, "p", &[], &params, 1),
        key("anthropic", "m", None, "p", &tools, &other_params, 1),
    ] {
        assert_ne!(changed, base);
    }
    assert_eq!(key("anthropic", "m", None, "p", &tools, &params, 1), base);
    assert_eq!(base.len(), 64);
}

fn call(tool: &str, args: Value) -> Call {
    Call {
        tool: tool.into(),
        args,
        malformed: None,
    }
}

const KEY_A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const KEY_B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const KEY_C: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

#[test]
fn written_answers_read_back_unchanged() {
    let dir = scratch("round-trip");
    let cache = Cache::new(&dir);
    let choices = [
        Choice {
            calls: vec![
                call("get_weather", json!({"city": "Zürich", "days": 1e-5})),
                call("bad name/with slash", json!({"z": [1, 2.5], "a": {}})),
            ],
            text: "Two calls ☀️\n\"quoted\"".into(),
            stop: Stop::ToolUse,
        },
        Choice {
            calls: vec![Call {
                tool: "echo".into(),
                args: json!({}),
                malformed: Some("{\"text\": \"oops\"".into()),
            }],
            text: String::new(),
            stop: Stop::ToolUse,
        },
        Choice {
            calls: vec![],
            text: REFUSAL_TEXT.into(),
            stop: Stop::Refusal,
        },
        Choice {
            calls: vec![],
            text: "just text".into(),
            stop: Stop::EndTurn,
        },
        Choice {
            calls: vec![call("echo", json!({"text": "cut"}))],
            text: String::new(),
            stop: Stop::MaxTokens,
        },
        Choice {
            calls: vec![],
            text: String::new(),
            stop: Stop::Other("pause_turn".into()),
        },
    ];
    for choice in &choices {
        cache
            .write(KEY_A, choice, "anthropic", "fake-model-1", "prompt é")
            .unwrap();
        assert_eq!(cache.read(KEY_A), Lookup::Hit(choice.clone()));
    }
}

#[test]
fn our_files_start_with_the_reference_layout_byte_for_byte() {
    // The reference's own file for this answer, then ours for the same answer: the
    // reference's fields must be identical, ours only appended.
    let cases = key_cases();
    let dir = scratch("layout");
    let cache = Cache::new(&dir);
    let mut checked = 0;
    for case in &cases {
        let reference = std::fs::read_to_string(fixture_dir().join(&case.file)).unwrap();
        if reference.contains("_unparsed") {
            continue; // a malformed answer is stored as {} plus "malformed" now
        }
        cache
            .write(
                KEY_B,
                &case.choice,
                &case.provider,
                &case.model,
                &case.prompt,
            )
            .unwrap();
        let ours = std::fs::read_to_string(cache.path(KEY_B)).unwrap();
        let head = reference.strip_suffix("\n}\n").unwrap();
        assert!(
            ours.starts_with(head) && ours[head.len()..].starts_with(",\n  \"calls\": "),
            "reference:\n{reference}\nours:\n{ours}"
        );
        assert!(ours.ends_with("\n}\n"));
        checked += 1;
    }
    assert!(checked >= 20);
}

#[test]
fn a_file_in_the_reference_format_reads_like_the_reference_reads_it() {
    let dir = scratch("reference-format");
    let cache = Cache::new(&dir);
    std::fs::create_dir_all(cache.dir()).unwrap();
    let cases = [
        (
            r#"{"tool": "echo", "args": null, "text": "hi"}"#,
            Choice {
                calls: vec![call("echo", json!({}))],
                text: "hi".into(),
                stop: Stop::ToolUse,
            },
        ),
        (
            r#"{"tool": "echo"}"#,
            Choice {
                calls: vec![call("echo", json!({}))],
                text: String::new(),
                stop: Stop::ToolUse,
            },
        ),
        (
            r#"{"tool": null, "args": {}, "text": "no"}"#,
            Choice {
                calls: vec![],
                text: "no".into(),
                stop: Stop::EndTurn,
            },
        ),
        (
            r#"{"tool": "echo", "args": {"_unparsed": "{bad", "x": 1}}"#,
            Choice {
                calls: vec![call("echo", json!({"_unparsed": "{bad", "x": 1}))],
                text: String::new(),
                stop: Stop::ToolUse,
            },
        ),
    ];
    for (text, want) in cases {
        std::fs::write(cache.path(KEY_C), text).unwrap();
        assert_eq!(cache.read(KEY_C), Lookup::Hit(want), "{text}");
    }
}

#[test]
fn unusable_files_are_corrupt_and_name_the_file() {
    let dir = scratch("corrupt");
    let cache = Cache::new(&dir);
    std::fs::create_dir_all(cache.dir()).unwrap();
    let cases = [
        ("", "not valid JSON"),
        ("{\"tool\": \"echo\", \"args\": {", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ("{\"args\": {}, \"text\": \"\"}", "no \"tool\" field"),
        ("{\"tool\": 3}", "\"tool\" is a number"),
        ("{\"tool\": \"echo\", \"args\": [1]}", "\"args\" is a list"),
        ("{\"tool\": null, \"text\": 5}", "\"text\" is a number"),
        ("{\"tool\": null, \"calls\": [{\"args\": {}}]}", "\"calls\""),
        ("{\"tool\": null, \"calls\": [], \"stop\": 7}", "\"stop\""),
    ];
    for (text, why) in cases {
        std::fs::write(cache.path(KEY_A), text).unwrap();
        match cache.read(KEY_A) {
            Lookup::Corrupt(corrupt) => {
                assert!(
                    matches!(&corrupt, CorruptEntry::Invalid { path, .. } if *path == cache.path(KEY_A)),
                    "{corrupt:?}"
                );
                let reason = corrupt.to_string();
                assert!(reason.contains(why), "{text:?}: {reason}");
                assert!(reason.contains(&format!("{KEY_A}.json")), "{reason}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
    // A path that can't be read as a file is corrupt too, not a miss.
    std::fs::create_dir_all(cache.path(KEY_B)).unwrap();
    match cache.read(KEY_B) {
        Lookup::Corrupt(CorruptEntry::Unreadable { path, .. }) => {
            assert_eq!(path, cache.path(KEY_B));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(cache.read(KEY_C), Lookup::Miss);
}

#[test]
fn a_cache_entry_larger_than_the_limit_is_corrupt_not_loaded() {
    let dir = scratch("huge-entry");
    let cache = Cache::new(&dir);
    let key = "a".repeat(64);
    let _ = std::fs::create_dir_all(dir.join("evals"));
    // Sparse: 100 GiB that take no disk.
    let made = std::fs::File::create(cache.path(&key)).and_then(|f| f.set_len(100 << 30));
    assert!(made.is_ok(), "{made:?}");
    match cache.read(&key) {
        Lookup::Corrupt(e) => assert_eq!(
            e.to_string(),
            format!(
                "cannot read cache file {}: it is larger than the 4 MiB limit for a cache entry",
                cache.path(&key).display()
            )
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_folder_is_a_miss_and_has_no_keys() {
    let dir = scratch("missing");
    let cache = Cache::new(&dir.join("nope"));
    assert_eq!(cache.read(KEY_A), Lookup::Miss);
    assert_eq!(cache.keys().unwrap(), Vec::<String>::new());
    assert_eq!(
        cache.prune(&HashSet::new(), true).unwrap(),
        Pruned::default()
    );
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(TEMP_SUFFIX))
        .collect()
}

#[test]
fn concurrent_writers_never_expose_a_partial_file() {
    let dir = scratch("concurrent");
    let cache = Cache::new(&dir);
    let answers: Vec<Choice> = (0..4)
        .map(|i| Choice {
            calls: vec![call("echo", json!({"text": "x".repeat(20_000 * (i + 1))}))],
            text: format!("writer {i}"),
            stop: Stop::ToolUse,
        })
        .collect();
    cache.write(KEY_A, &answers[0], "p", "m", "q").unwrap();
    let done = AtomicBool::new(false);
    let reads = std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut reads = 0u32;
            while !done.load(Ordering::Acquire) || reads < 10 {
                match cache.read(KEY_A) {
                    Lookup::Hit(choice) => assert!(answers.contains(&choice)),
                    other => panic!("read during writes: {other:?}"),
                }
                reads += 1;
            }
            reads
        });
        let writers: Vec<_> = answers
            .iter()
            .map(|answer| {
                let cache = &cache;
                s.spawn(move || {
                    for _ in 0..25 {
                        cache.write(KEY_A, answer, "p", "m", "q").unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        done.store(true, Ordering::Release);
        reader.join().unwrap()
    });
    assert!(reads >= 10);
    assert!(temp_files(cache.dir()).is_empty());
    assert_eq!(cache.keys().unwrap(), vec![KEY_A.to_string()]);
}

#[test]
fn a_failed_write_leaves_no_temp_file_and_says_where() {
    let dir = scratch("failed-write");
    let cache = Cache::new(&dir);
    // A non-empty folder where the entry should go: the rename can't replace it.
    std::fs::create_dir_all(cache.path(KEY_A).join("inside")).unwrap();
    let choice = Choice {
        calls: vec![],
        text: String::new(),
        stop: Stop::EndTurn,
    };
    let err = cache.write(KEY_A, &choice, "p", "m", "q").unwrap_err();
    assert!(err.to_string().contains(&format!("{KEY_A}.json")), "{err}");
    assert!(temp_files(cache.dir()).is_empty());
    // Only real keys name files: nothing can be written outside the folder.
    let err = cache
        .write("../escape", &choice, "p", "m", "q")
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
}

#[test]
fn keys_list_entries_only_and_prune_lists_before_it_removes() {
    let dir = scratch("prune");
    let cache = Cache::new(&dir);
    let choice = Choice {
        calls: vec![call("echo", json!({"text": "a"}))],
        text: String::new(),
        stop: Stop::ToolUse,
    };
    for key in [KEY_A, KEY_B, KEY_C] {
        cache.write(key, &choice, "p", "m", "q").unwrap();
    }
    let leftover = format!(".{KEY_B}.999.0{TEMP_SUFFIX}");
    for other in ["README.md", "notes.json", "ABCDEF.json", leftover.as_str()] {
        std::fs::write(cache.dir().join(other), "x").unwrap();
    }
    let mut sorted = vec![KEY_C.to_string(), KEY_A.to_string(), KEY_B.to_string()];
    sorted.sort();
    assert_eq!(cache.keys().unwrap(), sorted);

    let keep: HashSet<String> = [KEY_A.to_string()].into();
    let mut stale = vec![
        cache.path(KEY_B),
        cache.path(KEY_C),
        cache.dir().join(&leftover),
    ];
    stale.sort();
    assert_eq!(cache.prune(&keep, false).unwrap().stale, stale);
    assert_eq!(cache.keys().unwrap().len(), 3, "a dry run removes nothing");
    assert!(cache.dir().join(&leftover).exists());

    let pruned = cache.prune(&keep, true).unwrap();
    assert_eq!((pruned.stale, pruned.failed), (stale, Vec::new()));
    assert_eq!(cache.keys().unwrap(), vec![KEY_A.to_string()]);
    assert!(!cache.dir().join(&leftover).exists());
    for other in ["README.md", "notes.json", "ABCDEF.json"] {
        assert!(cache.dir().join(other).exists(), "{other} was removed");
    }
    assert_eq!(cache.prune(&keep, true).unwrap(), Pruned::default());
}

#[test]
fn prune_skips_what_it_cannot_remove_and_removes_the_rest() {
    let dir = scratch("prune-folder");
    let cache = Cache::new(&dir);
    let choice = Choice {
        calls: Vec::new(),
        text: "t".into(),
        stop: Stop::EndTurn,
    };
    cache.write(KEY_A, &choice, "p", "m", "q").unwrap();
    cache.write(KEY_C, &choice, "p", "m", "q").unwrap();
    // A folder named like an entry, sorted between the two files.
    std::fs::create_dir_all(cache.path(KEY_B).join("inside")).unwrap();
    let pruned = cache.prune(&HashSet::new(), true).unwrap();
    assert_eq!(pruned.stale.len(), 3);
    let failed: Vec<&PathBuf> = pruned.failed.iter().map(|(p, _)| p).collect();
    assert_eq!(failed, [&cache.path(KEY_B)]);
    assert!(!cache.path(KEY_A).exists() && !cache.path(KEY_C).exists());
}

#[test]
fn stop_reasons_are_stored_as_serde_writes_them() {
    for stop in [
        Stop::ToolUse,
        Stop::EndTurn,
        Stop::MaxTokens,
        Stop::Refusal,
        Stop::Other("x".into()),
    ] {
        assert_eq!(stop_value(&stop), serde_json::to_value(&stop).unwrap());
    }
}

#[test]
fn the_fixture_yaml_loads_into_the_material_the_reference_hashed() {
    // The YAML side of compatibility: toolproof's config loader must give the system prompt,
    // params and prompts the values Python's yaml.safe_load gave, or every key differs.
    let cases = key_cases();
    let dir = scratch("yaml");
    for folder in ["anthropic", "openai", "tricky", "exotic"] {
        let yaml = std::fs::read_to_string(fixture_dir().join(folder).join("toolproof.yaml"))
            .unwrap()
            .replace("${FAKE_MCP}", "fake_mcp")
            .replace("${PYTHON}", "python3");
        let path = dir.join(format!("{folder}.yaml"));
        std::fs::write(&path, yaml).unwrap();
        let loaded = crate::config::load(&path).unwrap();
        let evals = loaded.config.evals.unwrap();
        let mine: Vec<&KeyCase> = cases
            .iter()
            .filter(|c| c.config == format!("{folder}/toolproof.yaml"))
            .collect();
        assert_eq!(evals.cases.len(), mine.len(), "{folder}");
        for (case, want) in evals.cases.iter().zip(mine) {
            assert_eq!(evals.system, want.system, "{folder}");
            assert_eq!(evals.params, want.params, "{folder}");
            assert_eq!(case.prompt, want.prompt, "{folder}");
            let got = key(
                &want.provider,
                evals.model.as_deref().unwrap_or_default(),
                evals.system.as_deref(),
                &case.prompt,
                &want.tools,
                &evals.params,
                1,
            );
            assert_eq!(got, want.key, "{folder}: {:?}", case.prompt);
        }
    }
}

/// The registered provider called `name`.
fn kind(name: &str) -> &'static dyn crate::provider::Kind {
    crate::provider::find(name).unwrap_or_else(|| panic!("{name}"))
}

/// `evals.tool_choice` hashes as a `params.tool_choice` of its wire value does in the
/// reference, and leaves the reference's key alone when unset. The expected keys come from
/// mcp-toolproof 0.3.1's own `toolproof.evals.cache_key` (run on the same material).
#[test]
fn a_tool_choice_keys_as_the_reference_keys_params_tool_choice_and_unset_changes_nothing() {
    use crate::config::{EvalConfig, ToolChoice};
    use crate::evals::asking::engine::request_params;
    let tools = [ApiTool {
        name: "echo".into(),
        description: "Echo.".into(),
        input_schema: json!({"type": "object"}),
        exact_numbers: Vec::new(),
    }];
    let cfg = EvalConfig::default();
    let key_of = |provider: &str, choice: Option<&ToolChoice>| {
        let params = request_params(&cfg, kind(provider), choice, "max_completion_tokens");
        key(provider, "m", None, "hi", &tools, &params, 1)
    };
    let reference_unset = "9d2f6ccd0073654b00d84b7cbda9ef6e8dc5e9c8ccbc507d18fbc332ecda733e";
    assert_eq!(key_of("anthropic", None), reference_unset);
    let any = key_of("anthropic", Some(&ToolChoice::Any));
    assert_eq!(
        any, "dec52f585364399bf1aa96c6a5469d13aaf0bc73b274eb99a94a596ddcaec69b",
        "the reference's key for params: {{tool_choice: {{type: any}}}}"
    );
    assert_ne!(any, reference_unset);
    assert_eq!(
        key_of("openai", Some(&ToolChoice::Tool("echo".into()))),
        "ae94b0c4d26d180d65af2e6ec2408e81d3c4ddae33be8fbe46d1bfdc4bb78395"
    );
    // An explicit `auto` sends the request the reference sends when nothing is set, so it keeps
    // the reference's key; every other choice is a key of its own.
    assert_eq!(
        key_of("anthropic", Some(&ToolChoice::Auto)),
        reference_unset
    );
    assert_eq!(
        key_of("openai", Some(&ToolChoice::Auto)),
        key_of("openai", None)
    );
    let keys: Vec<String> = [
        ToolChoice::Any,
        ToolChoice::None,
        ToolChoice::Tool("echo".into()),
    ]
    .iter()
    .map(|c| key_of("anthropic", Some(c)))
    .collect();
    for (i, k) in keys.iter().enumerate() {
        assert_ne!(k, reference_unset);
        assert!(!keys[i + 1..].contains(k), "{keys:?}");
    }
    // The command provider is sent no params (and is never cached).
    assert!(request_params(&cfg, kind("command"), Some(&ToolChoice::Any), "max_tokens").is_empty());
}

/// `evals.max_tokens` keys as the reference keys the same body field in `params`: under
/// `max_tokens` for a compatible server (and Anthropic), under `max_completion_tokens` for
/// OpenAI's own API; an explicit `params` key wins and keys as written. The expected keys come
/// from mcp-toolproof 0.3.1's own `toolproof.evals.cache_key` (run on the same material).
#[test]
fn max_tokens_keys_as_the_reference_keys_the_field_that_is_sent() {
    use crate::config::EvalConfig;
    use crate::evals::asking::engine::request_params;
    let tools = [ApiTool {
        name: "echo".into(),
        description: "Echo.".into(),
        input_schema: json!({"type": "object"}),
        exact_numbers: Vec::new(),
    }];
    let cfg = EvalConfig {
        max_tokens: Some(64),
        ..EvalConfig::default()
    };
    let key_of = |cfg: &EvalConfig, provider: &str, field: &str| {
        let params = request_params(cfg, kind(provider), None, field);
        key(provider, "m", None, "hi", &tools, &params, 1)
    };
    assert_eq!(
        key_of(&cfg, "openai", "max_tokens"),
        "28a5587c255e5b6be9ce9b257846945d5ec94b4223b9738efcb650d5979b20ac",
        "the reference's key for params: {{max_tokens: 64}}"
    );
    assert_eq!(
        key_of(&cfg, "openai", "max_completion_tokens"),
        "cbd275147431f3627cde84ab8781158f1fcc54df69679f2a82088695e8124e44",
        "the reference's key for params: {{max_completion_tokens: 64}}"
    );
    assert_eq!(
        key_of(&cfg, "anthropic", "max_completion_tokens"),
        "bca3022f9f27229475a1d711816366d5d8baa528f47745e3b0aef669a8be00fe",
        "Anthropic always gets max_tokens"
    );
    // A `params.max_tokens` of its own is sent (and keyed) as written.
    let explicit = EvalConfig {
        params: json!({"max_tokens": 32})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        ..cfg.clone()
    };
    assert_eq!(
        key_of(&explicit, "openai", "max_tokens"),
        "93633b45f4c3d1038f2bc60b6c5200e827068f0cf2062c46c02bb96e048aed81",
        "the reference's key for params: {{max_tokens: 32}}"
    );
    // Unset, nothing is added: the reference's key whatever the field.
    let unset = EvalConfig::default();
    assert_eq!(
        key_of(&unset, "openai", "max_tokens"),
        "107cb7efee20fd8f0582523a4f9b7b10ae2e8a134a88068e419fd9831c458828"
    );
    assert_eq!(
        key_of(&unset, "openai", "max_completion_tokens"),
        key_of(&unset, "openai", "max_tokens")
    );
}

/// Integers beyond 64 bits in `params` key with every digit, as Python ints do in the
/// reference: the key below is mcp-toolproof 0.3.1's own `toolproof.evals.cache_key` on the
/// same YAML read by PyYAML (`yaml.safe_load`), with the same tool list.
#[test]
fn integers_beyond_64_bits_in_params_key_as_the_reference_keys_them() {
    use crate::evals::asking::engine::request_params;
    let dir = scratch("bigint-params");
    let path = dir.join("toolproof.yaml");
    std::fs::write(
        &path,
        concat!(
            "server:\n  command: [python, server.py]\n",
            "evals:\n  params:\n    seed: 123456789012345678901234567890\n",
            "    extra_body:\n      big: 0x1_0000_0000_0000_0000_0000_0000_0000_0001\n",
            "      neg: -340282366920938463463374607431768211457\n",
            "      sexa: 1:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0\n",
            "      list: [18446744073709551616, -9223372036854775809, 7]\n",
        ),
    )
    .expect("write the config");
    let loaded = crate::config::load(&path).expect("the config loads");
    let cfg = loaded.config.evals.expect("evals");
    let params = request_params(&cfg, kind("openai"), None, "max_completion_tokens");
    assert_eq!(
        pyjson::dumps(&Value::Object(params.clone()), Style::KEY),
        concat!(
            r#"{"extra_body": {"big": 340282366920938463463374607431768211457, "#,
            r#""list": [18446744073709551616, -9223372036854775809, 7], "#,
            r#""neg": -340282366920938463463374607431768211457, "#,
            r#""sexa": 4738381338321616896000000000000000000000000}, "#,
            r#""seed": 123456789012345678901234567890}"#,
        )
    );
    let tools = [ApiTool {
        name: "echo".into(),
        description: "Echo.".into(),
        input_schema: json!({"type": "object"}),
        exact_numbers: Vec::new(),
    }];
    assert_eq!(
        key("openai", "m", None, "hi", &tools, &params, 1),
        "791eb4208ea9721f764446099086f61de79819953056e67fe31a17e8d75d4fb7"
    );
}

#[test]
fn usage_is_kept_beside_the_answer_and_read_back() {
    use crate::provider::usage::{Recorded, Usage};
    let choice = Choice {
        calls: vec![Call {
            tool: "add".into(),
            args: json!({"a": 1}),
            malformed: None,
        }],
        text: String::new(),
        stop: Stop::ToolUse,
    };
    let recorded = Recorded {
        usage: Usage {
            input: 12,
            output: 40,
            cache_write: 0,
            cache_read: 1650,
        },
        cost_usd: Some(0.001_131),
    };
    let text = entry_text_recorded(&choice, Some(&recorded), None, ("anthropic", "m", "p"));
    // The reference's fields come first and are unchanged: the usage is one more member.
    let plain = entry_text(&choice, "anthropic", "m", "p");
    let v: Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(
        v["usage"],
        json!({"input_tokens": 12, "output_tokens": 40, "cache_write_tokens": 0,
            "cache_read_tokens": 1650, "cost_usd": 0.001131})
    );
    assert!(text.starts_with(plain.trim_end().trim_end_matches('}').trim_end()));
    assert_eq!(
        parse_entry_recorded(&text),
        Ok((choice.clone(), Some(recorded)))
    );
    // An entry without usage (the reference's, or older) reads with none; a bad one is
    // left out and the answer still replays.
    assert_eq!(parse_entry_recorded(&plain), Ok((choice.clone(), None)));
    let bad = text.replace("\"input_tokens\": 12", "\"input_tokens\": \"12\"");
    assert_eq!(parse_entry_recorded(&bad), Ok((choice, None)));
}

/// An integer beyond 64 bits in a model's arguments is written into the cache file with every
/// digit, as the reference's `json.dumps` writes the Python int, reads back the same, and is
/// judged as its nearest float, as the reference compares numbers.
#[test]
fn integers_beyond_64_bits_in_an_answer_reach_the_cache_file_exactly() {
    let exact = "1180591620717411303425";
    // The command provider's answer, and an OpenAI answer's arguments string.
    let command = crate::provider::command::parse(&format!(
        r#"{{"tool": "add", "args": {{"a": {exact}, "b": [-18446744073709551617, 2]}}}}"#
    ))
    .expect("the answer reads");
    let body = format!(
        r#"{{"choices": [{{"message": {{"role": "assistant", "content": null, "tool_calls": [{{"id": "c1", "type": "function", "function": {{"name": "add", "arguments": "{{\"a\": {exact}, \"b\": [-18446744073709551617, 2]}}"}}}}]}}, "finish_reason": "tool_calls"}}]}}"#
    );
    let openai =
        crate::provider::openai::read(&crate::pycompat::bigint::from_str(&body).expect("JSON"))
            .expect("the answer reads");
    for answer in [command, openai] {
        let args = answer.calls[0].args.clone().expect("arguments");
        let choice = Choice {
            calls: vec![call("add", args)],
            text: String::new(),
            stop: Stop::ToolUse,
        };
        let text = entry_text(&choice, "openai", "m", "add them");
        assert!(
            text.contains(&format!("\"a\": {exact},"))
                && text.contains("      -18446744073709551617,\n"),
            "{text}"
        );
        let back = parse_entry(&text).expect("the file reads back");
        assert_eq!(back, choice);
        assert_eq!(entry_text(&back, "openai", "m", "add them"), text);
        let judged = crate::pycompat::bigint::approx_value(&back.calls[0].args);
        assert_eq!(
            judged,
            json!({"a": 1.1805916207174113e21, "b": [-1.8446744073709552e19, 2]})
        );
    }
}

fn tool(name: &str, description: &str) -> ApiTool {
    ApiTool {
        name: name.into(),
        description: description.into(),
        input_schema: json!({"type": "object"}),
        exact_numbers: Vec::new(),
    }
}

fn digests(tools: &[ApiTool]) -> Vec<(String, String)> {
    tools
        .iter()
        .map(|t| (t.name.clone(), tool_digest(t)))
        .collect()
}

#[test]
fn a_miss_names_the_tools_changed_added_and_removed_since_the_answer_was_recorded() {
    let dir = scratch("why-missed");
    let then = [tool("get_weather", "Weather."), tool("old", "Gone now.")];
    let now = [
        tool("get_weather", "Weather for a city."),
        tool("find_city", "Cities."),
    ];
    let answer = Choice {
        calls: vec![],
        text: "hi".into(),
        stop: Stop::EndTurn,
    };
    let recording = Cache::new(&dir).recording_tools(digests(&then));
    recording
        .write_recorded(KEY_A, &answer, None, ("anthropic", "m", "hello"))
        .unwrap();
    let text = std::fs::read_to_string(recording.path(KEY_A)).unwrap();
    let written: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        written["tool_digests"],
        json!({"get_weather": tool_digest(&then[0]), "old": tool_digest(&then[1])})
    );
    // The answer still reads back as before.
    assert_eq!(recording.read(KEY_A), Lookup::Hit(answer.clone()));

    let cache = Cache::new(&dir);
    let prompts: HashSet<&str> = ["hello", "never asked"].into_iter().collect();
    let found = cache
        .why_missed("anthropic", "m", &prompts, &digests(&now))
        .expect("an answer recorded for another list");
    assert_eq!(
        found,
        RecordedElsewhere {
            prompts: 1,
            changed: vec!["get_weather".into()],
            added: vec!["find_city".into()],
            removed: vec!["old".into()],
            unlisted: 0,
        }
    );
    // Another model, provider or prompt has nothing to say.
    assert_eq!(
        cache.why_missed("anthropic", "other", &prompts, &digests(&now)),
        None
    );
    assert_eq!(
        cache.why_missed("openai", "m", &prompts, &digests(&now)),
        None
    );
    let other: HashSet<&str> = ["never asked"].into_iter().collect();
    assert_eq!(
        cache.why_missed("anthropic", "m", &other, &digests(&now)),
        None
    );

    // A file the reference wrote does not say which tools it was recorded for.
    Cache::new(&dir)
        .write(KEY_B, &answer, "anthropic", "m", "never asked")
        .unwrap();
    let found = cache
        .why_missed("anthropic", "m", &prompts, &digests(&now))
        .unwrap();
    assert_eq!((found.prompts, found.unlisted), (2, 1));
    // The same tools: something else changed (system prompt, params).
    let same = cache
        .why_missed(
            "anthropic",
            "m",
            &["hello"].into_iter().collect(),
            &digests(&then),
        )
        .unwrap();
    assert_eq!(
        (
            same.prompts,
            same.changed.len(),
            same.added.len(),
            same.removed.len()
        ),
        (1, 0, 0, 0)
    );
}

#[test]
fn a_tool_digest_follows_the_definition_the_key_hashes() {
    let a = tool("t", "one");
    assert_eq!(tool_digest(&a), tool_digest(&tool("t", "one")));
    assert_ne!(tool_digest(&a), tool_digest(&tool("t", "two")));
    assert_ne!(tool_digest(&a), tool_digest(&tool("u", "one")));
    assert_eq!(tool_digest(&a).len(), 16);
}

#[test]
fn the_responses_api_and_each_preset_key_apart_from_openai_chat() {
    use crate::config::{EvalConfig, OpenAiApi};
    use crate::provider::{KINDS, find};
    let tools = [ApiTool {
        name: "echo".into(),
        description: "Echo.".into(),
        input_schema: json!({"type": "object"}),
        exact_numbers: Vec::new(),
    }];
    let params = Map::new();
    let key_of = |name: &str| key(name, "m", None, "hi", &tools, &params, 1);
    let chat = EvalConfig::default();
    let responses = EvalConfig {
        openai_api: OpenAiApi::Responses,
        ..EvalConfig::default()
    };
    let kind = |n: &str| find(n).unwrap_or_else(|| panic!("{n}"));
    // `openai` with Chat Completions: the reference's key material, whatever else exists.
    assert_eq!(kind("openai").cache_name(&chat), "openai");
    assert_eq!(kind("openai").cache_name(&responses), "openai/responses");
    assert_eq!(kind("anthropic").cache_name(&responses), "anthropic");
    assert_eq!(kind("command").cache_name(&responses), "command");
    assert_eq!(kind("groq").cache_name(&responses), "groq/responses");
    let mut names = Vec::new();
    for k in KINDS {
        for cfg in [&chat, &responses] {
            names.push(k.cache_name(cfg));
        }
    }
    names.sort();
    names.dedup();
    let mut keys: Vec<String> = names.iter().map(|n| key_of(n)).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(
        keys.len(),
        names.len(),
        "two providers share a key: {names:?}"
    );
    let openai_style = KINDS.iter().filter(|k| k.speaks_openai()).count();
    assert_eq!(names.len(), KINDS.len() + openai_style, "{names:?}");
}

#[test]
fn max_tokens_goes_as_max_output_tokens_to_the_responses_api() {
    use crate::config::{EvalConfig, OpenAiApi};
    use crate::evals::asking::engine::request_params;
    use crate::provider::find;
    let cfg = EvalConfig {
        max_tokens: Some(64),
        openai_api: OpenAiApi::Responses,
        ..EvalConfig::default()
    };
    for name in ["openai", "groq"] {
        let kind = find(name).expect("kind");
        let params = request_params(&cfg, kind, None, "max_completion_tokens");
        assert_eq!(params.get("max_output_tokens"), Some(&json!(64)), "{name}");
        assert_eq!(params.len(), 1, "{params:?}");
    }
    // Anthropic is not an OpenAI API: `openai_api` does not apply to it.
    let kind = find("anthropic").expect("kind");
    let params = request_params(&cfg, kind, None, "max_completion_tokens");
    assert_eq!(params.get("max_tokens"), Some(&json!(64)));
}

#[test]
fn members_read_directly_are_those_a_whole_value_gives() {
    let big = "123456789012345678901234567890";
    let mut texts: Vec<String> = vec![
        r#"{"provider":"anthropic","model":"m","prompt":"p","tool":"a","args":{"x":1},"text":"","calls":[{"tool":"a","args":{"x":1}}],"stop":"tool_use","usage":{"input_tokens":3,"output_tokens":1},"tool_digests":{"a":"0011"}}"#.into(),
        r#"{"tool":null,"args":null,"text":null}"#.into(),
        r#"{"tool":"a","args":{"_unparsed":"{oops"}}"#.into(),
        r#"{"tool":"a","args":{"_unparsed":5}}"#.into(),
        format!(r#"{{"tool":"a","args":{{"n":{big}}},"calls":[{{"tool":"a","args":{{"n":-{big}}}}}]}}"#),
        r#"{"t\u006fol":"a","stop":{"other":"pause"},"calls":[]}"#.into(),
        r#"{"tool":"a","extra":[1,{"deep":[null]}]}"#.into(),
    ];
    // Every entry the reference wrote into the fixtures.
    for set in fs::read_dir(fixture_dir()).expect("fixtures") {
        let evals = set.expect("set").path().join(".toolproof-cache/evals");
        for entry in fs::read_dir(&evals).into_iter().flatten() {
            texts.push(fs::read_to_string(entry.expect("entry").path()).expect("fixture"));
        }
    }
    assert!(texts.len() > 30, "{} texts", texts.len());
    for text in &texts {
        let direct = crate::pycompat::bigint::from_str_as::<Members>(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let whole = Members::through_value(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_eq!(direct, whole, "{text}");
    }
    // What the direct read refuses goes the long way, which words the error or keeps the last
    // of a member given twice, as a `Value` does.
    for text in [r#"[1, 2]"#, r#"{"tool":"a","tool":"b"}"#, "{", r#""tool""#] {
        assert!(
            crate::pycompat::bigint::from_str_as::<Members>(text).is_err(),
            "{text}"
        );
    }
    let (choice, _) = parse_entry_recorded(r#"{"tool":"a","tool":null}"#).expect("entry");
    assert!(choice.calls.is_empty(), "{choice:?}");
    assert!(matches!(
        parse_entry_recorded("[1, 2]"),
        Err(EntryError::NotAnObject)
    ));
}
