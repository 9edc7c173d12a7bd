//! The `google` provider (the Gemini API's `generateContent`) end to end, through the
//! `toolproof` binary against fake_llm's Gemini endpoint: the request it sends, calls, text,
//! refusals and cut-offs read back, usage with cached tokens and the cost line, a 429's
//! `RetryInfo` honoured, a bad or missing key, the key withheld from the server under test, the
//! answer cache replayed offline, context turns and the tool choice.

use super::evals::{KEY, eval_in, llm, model0, requests};
use super::*;
use serde_json::json;

/// A config whose evals use the google provider with `fake-model-1`.
pub(super) fn google_config(dir: &Dir, server: &[&str], extra: &str, cases: &str) {
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {}\nevals:\n  provider: google\n  model: fake-model-1\n{extra}  cases:\n{cases}",
            yaml_list(server)
        ),
    );
}

/// The Gemini key and base URL pointing at the fake.
pub(super) fn google_env(url: &str) -> Vec<(&'static str, &str)> {
    vec![
        ("GEMINI_API_KEY", KEY),
        ("GOOGLE_API_KEY", ""),
        ("GOOGLE_GEMINI_BASE_URL", url),
    ]
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(u64::MAX)
}

#[test]
fn google_requests_are_generate_content_and_every_answer_kind_is_read() {
    let dir = Dir::new("google-wire");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let cases = r#"    - name: sanitised name
      prompt: 'do it [[call bad_name_with_slash {"value": "v"}]]'
      expect_tool: bad name/with slash
    - name: several calls
      prompt: 'both [[call echo {"text": "a"}]] [[call add {"a": 1, "b": 2}]]'
      expect_tool: echo
    - name: text only
      prompt: hello [[text just chatting]]
      expect_tool: null
    - name: refusal
      prompt: no [[refuse]]
      expect_tool: echo
    - name: cut off
      prompt: 'long [[max_tokens]] [[call echo {"text": "a"}]]'
      expect_tool: echo
    - name: malformed
      prompt: 'bad [[malformed add {oops]]'
      expect_tool: add
"#;
    let fake = fake();
    google_config(
        &dir,
        &[&fake, "--fault", "bad-name"],
        "  system: You pick tools.\n  min_accuracy: 0\n  params: {generationConfig: {temperature: 0}}\n",
        cases,
    );
    let (out, report) = eval_in(&dir, &[], &google_env(&server.url));
    assert_eq!(out.code, 0, "{out:?}");
    let sent = requests(&dir, "llm.jsonl");
    assert_eq!(sent.len(), 6, "one request per case: {sent:#?}");
    let first = &sent[0];
    assert_eq!(first["path"], "/v1beta/models/fake-model-1:generateContent");
    assert_eq!(first["headers"]["x-goog-api-key"], KEY);
    assert!(first["headers"].get("authorization").is_none());
    let body = &first["body"];
    assert_eq!(
        body["systemInstruction"],
        json!({"parts": [{"text": "You pick tools."}]})
    );
    assert_eq!(
        body["generationConfig"],
        json!({"maxOutputTokens": 16000, "temperature": 0})
    );
    assert_eq!(
        body["toolConfig"],
        json!({"functionCallingConfig": {"mode": "AUTO"}})
    );
    assert_eq!(body["contents"][0]["role"], "user");
    let declarations = body["tools"][0]["functionDeclarations"]
        .as_array()
        .expect("functionDeclarations");
    assert!(
        declarations
            .iter()
            .all(|d| d["parametersJsonSchema"].is_object())
    );
    assert!(
        declarations
            .iter()
            .any(|d| d["name"] == "bad_name_with_slash")
    );
    let m = model0(&report);
    let cases = m["cases"].as_array().expect("cases");
    assert_eq!(cases[0]["status"], "correct", "{:#}", cases[0]);
    assert_eq!(
        cases[0]["trials"][0]["calls"][0]["tool"],
        "bad name/with slash"
    );
    assert_eq!(
        cases[1]["trials"][0]["calls"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(cases[2]["trials"][0]["kind"], "text_only");
    assert_eq!(cases[2]["status"], "correct");
    assert_eq!(cases[3]["trials"][0]["kind"], "refusal");
    assert_eq!(cases[4]["trials"][0]["kind"], "truncated", "{:#}", cases[4]);
    assert_eq!(cases[5]["status"], "miss", "{:#}", cases[5]);
    for text in [
        out.stdout.as_str(),
        out.stderr.as_str(),
        &dir.read("r.json"),
        &dir.read("j.xml"),
        &dir.read("s.md"),
    ] {
        assert!(!text.contains(KEY), "the API key leaked");
    }
}

#[test]
fn google_usage_counts_cached_tokens_and_is_priced() {
    let dir = Dir::new("google-cost");
    let server = llm(&[]);
    let cases = r#"    - prompt: 'add [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
    - prompt: 'echo [[call echo {"text": "hi"}]]'
      expect_tool: echo
    - prompt: thanks [[text you are welcome]]
      expect_tool: null
"#;
    let fake = fake();
    google_config(
        &dir,
        &[&fake],
        "  system: You pick tools.\n  concurrency: 1\n  prices:\n    fake-model-1: {input: 0.3, output: 2.5, cache_read: 0.03}\n",
        cases,
    );
    let (out, report) = eval_in(&dir, &[], &google_env(&server.url));
    assert_eq!(out.code, 0, "{out:?}");
    let cost = &model0(&report)["cost"];
    assert_eq!(
        (n(&cost["requests"]), n(&cost["reported"])),
        (3, 3),
        "{cost:#}"
    );
    let t = &cost["tokens"];
    let (input, output, write, read) = (
        n(&t["input"]),
        n(&t["output"]),
        n(&t["cache_write"]),
        n(&t["cache_read"]),
    );
    // The first request carried the tools and system instruction uncached; the two others
    // read them from the implicit cache, counted apart from the base-rate input.
    assert!(input > 0 && output > 0 && read > 0, "{t}");
    assert_eq!(write, 0, "{t}");
    let expected = (input as f64 * 0.3 + output as f64 * 2.5 + read as f64 * 0.03) / 1e6;
    let estimated = cost["cost_usd"].as_f64().unwrap_or(-1.0);
    assert!(
        (estimated - expected).abs() < 1e-12,
        "{estimated} vs {expected}"
    );
    assert!(
        out.stdout.contains("Tokens and cost: 3 requests · "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("cached ("), "{}", out.stdout);
}

#[test]
fn google_a_429_waits_for_its_retry_info_and_is_retried() {
    let dir = Dir::new("google-retry");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = r#"    - prompt: 'a [[status 429 times=1 retry-after=3]] [[call echo {"text": "x"}]]'
      expect_tool: echo
"#;
    let fake = fake();
    // The wait is in the body only (no Retry-After header); the backoff alone would wait at
    // most 0.5 s.
    google_config(&dir, &[&fake], "  max_retries: 1\n", cases);
    let started = Instant::now();
    let (out, report) = eval_in(&dir, &[], &google_env(&server.url));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "retryDelay 1s was not waited for"
    );
    assert_eq!(model0(&report)["correct"], 1);
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2);
}

#[test]
fn google_a_bad_key_is_fatal_names_the_variable_and_is_never_printed() {
    let dir = Dir::new("google-badkey");
    let server = llm(&["--require-key", KEY]);
    let cases = "    - prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n    - prompt: y\n      expect_tool: null\n";
    let fake = fake();
    google_config(&dir, &[&fake], "", cases);
    let wrong = "AIzaWrongKey-0123456789";
    let env = [
        ("GEMINI_API_KEY", wrong),
        ("GOOGLE_API_KEY", ""),
        ("GOOGLE_GEMINI_BASE_URL", server.url.as_str()),
    ];
    let (out, report) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 1, "{out:?}");
    let error = model0(&report)["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        error.contains("API_KEY_INVALID") || error.contains("API key not valid"),
        "{error}"
    );
    assert!(out.stdout.contains("GEMINI_API_KEY"), "{out:?}");
    for text in [
        out.stdout.as_str(),
        out.stderr.as_str(),
        &dir.read("r.json"),
    ] {
        assert!(!text.contains(wrong), "the key leaked");
    }
    // No key at all: fatal before any request, naming the variable.
    let (out, _) = eval_in(&dir, &[], &[("GEMINI_API_KEY", ""), ("GOOGLE_API_KEY", "")]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains("GEMINI_API_KEY is not set")
            || out
                .stdout
                .contains("GEMINI_API_KEY (or GOOGLE_API_KEY) is not set"),
        "{out:?}"
    );
}

#[test]
fn google_keys_are_withheld_from_the_server_and_the_cache_replays_offline() {
    let dir = Dir::new("google-cache");
    let server = llm(&[]);
    let fake = fake();
    let cases = "    - prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: [sh, -c, 'env > server.env; exec \"$0\"', '{fake}']\n  inherit_env: true\nevals:\n  provider: google\n  model: fake-model-1\n  cases:\n{cases}"
        ),
    );
    let env = [
        ("GEMINI_API_KEY", KEY),
        ("GOOGLE_API_KEY", "AIzaGoogleKey-withheld-0001"),
        ("GOOGLE_GEMINI_BASE_URL", server.url.as_str()),
    ];
    let (out, report) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(model0(&report)["correct"], 1);
    let seen = dir.read("server.env");
    assert!(
        seen.contains("GOOGLE_GEMINI_BASE_URL="),
        "inherit_env passes the rest: {seen}"
    );
    assert!(
        !seen.contains("GEMINI_API_KEY=") && !seen.contains("GOOGLE_API_KEY="),
        "{seen}"
    );
    drop(server);
    // No key, no API: the committed answer replays.
    let (again, report) = eval_in(
        &dir,
        &["--offline"],
        &[("GEMINI_API_KEY", ""), ("GOOGLE_API_KEY", "")],
    );
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(model0(&report)["correct"], 1);
}

#[test]
fn google_context_turns_are_sent_as_function_call_parts_and_answered_from() {
    let dir = Dir::new("google-context");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = r#"    - prompt: 'Cancel it [[from-context cancel_order order_id]]'
      expect_tool: cancel_order
      expect_args: {order_id: "55219"}
      context:
        - user: Where is my order 55219?
        - call: get_order
          args: {order_id: "55219"}
          result: '{"status": "processing"}'
        - assistant: Order 55219 is still processing.
"#;
    let fake = fake();
    google_config(&dir, &[&fake, "--fault", "order-tools"], "", cases);
    let (out, report) = eval_in(&dir, &[], &google_env(&server.url));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(model0(&report)["correct"], 1, "{report:#}");
    let body = &requests(&dir, "llm.jsonl")[0]["body"];
    assert_eq!(
        body["contents"],
        json!([
            {"role": "user", "parts": [{"text": "Where is my order 55219?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_order", "args": {"order_id": "55219"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_order", "response": {"result": "{\"status\": \"processing\"}"}}}]},
            {"role": "model", "parts": [{"text": "Order 55219 is still processing."}]},
            {"role": "user", "parts": [{"text": "Cancel it [[from-context cancel_order order_id]]"}]}
        ])
    );
}

#[test]
fn google_tool_choice_is_the_function_calling_mode() {
    for (choice, want) in [
        ("any", json!({"mode": "ANY"})),
        ("none", json!({"mode": "NONE"})),
        (
            "tool:echo",
            json!({"mode": "ANY", "allowedFunctionNames": ["echo"]}),
        ),
    ] {
        let dir = Dir::new("google-choice");
        let log = dir.path("llm.jsonl").display().to_string();
        let server = llm(&["--log", &log]);
        let cases = "    - prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
        let fake = fake();
        google_config(&dir, &[&fake], "  min_accuracy: 0\n", cases);
        let (out, _) = eval_in(&dir, &["--tool-choice", choice], &google_env(&server.url));
        assert!(out.code <= 1, "{choice}: {out:?}");
        let sent = requests(&dir, "llm.jsonl");
        assert_eq!(
            sent[0]["body"]["toolConfig"]["functionCallingConfig"], want,
            "{choice}"
        );
        assert!(sent[0]["body"].get("tool_choice").is_none(), "{choice}");
    }
}
