//! The OpenAI Responses API (`evals.openai_api: responses`) and the OpenAI-compatible presets
//! (`provider: groq`, `ollama`…) end to end, through the `toolproof` binary against the fake
//! model API's `/v1/responses` and `/v1/chat/completions`.

use super::evals::{KEY, api_config, eval_in, llm, model0, requests};
use super::*;

const RESPONSES: &str = "  openai_api: responses\n";

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(u64::MAX)
}

fn statuses(report: &Value) -> Vec<String> {
    model0(report)["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["status"].as_str().map(str::to_owned))
        .collect()
}

fn openai_env(base: &str) -> Vec<(&'static str, &str)> {
    vec![("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", base)]
}

#[test]
fn responses_requests_are_exact_and_every_kind_of_answer_is_read() {
    let dir = Dir::new("responses-exact");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let cases = r#"    - name: calls
      prompt: 'add [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
      expect_args: {a: 2, b: 3}
    - name: text
      prompt: 'thanks [[text you are welcome]]'
      expect_tool: null
    - name: cut off
      prompt: 'long [[max_tokens]] [[malformed echo {"te]]'
      expect_tool: echo
    - name: refuses
      prompt: 'no [[refuse]]'
      expect_tool: echo
"#;
    let extra = format!(
        "{RESPONSES}  system: You pick tools.\n  min_accuracy: 0\n  params: {{reasoning: {{effort: low}}}}\n"
    );
    api_config(&dir, "openai", &[], &extra, cases);
    let base = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &openai_env(&base));
    assert_eq!(out.code, 0, "{out:?}");
    let sent = requests(&dir, "llm.jsonl");
    assert_eq!(sent.len(), 4, "{sent:#?}");
    for r in &sent {
        assert_eq!(r["path"], "/v1/responses");
        assert_eq!(r["headers"]["authorization"], format!("Bearer {KEY}"));
        let body = &r["body"];
        assert_eq!(body["instructions"], "You pick tools.");
        assert_eq!(body["input"][0]["role"], "user");
        assert_eq!(body["tool_choice"], "auto");
        assert_eq!(body["reasoning"], serde_json::json!({"effort": "low"}));
        assert_eq!(body["tools"][0]["type"], "function");
        assert!(body["tools"][0]["name"].is_string(), "flat tools: {body}");
        assert!(body["tools"][0]["parameters"].is_object());
        assert!(body.get("messages").is_none() && body.get("max_output_tokens").is_none());
    }
    assert_eq!(
        statuses(&report),
        ["correct", "correct", "miss", "miss"],
        "{report:#}"
    );
    let m = model0(&report);
    let kinds: Vec<&Value> = (0..4)
        .map(|i| &m["cases"][i]["trials"][0]["kind"])
        .collect();
    assert_eq!(
        kinds,
        ["tool_call", "text_only", "truncated", "refusal"],
        "{m:#}"
    );
    assert_eq!(
        m["cases"][0]["trials"][0]["calls"][0]["args"],
        serde_json::json!({"a": 2, "b": 3})
    );
    assert_eq!(m["cases"][1]["trials"][0]["text"], "you are welcome");
    assert_eq!(m["cases"][2]["trials"][0]["calls"][0]["tool"], "echo");
}

#[test]
fn responses_usage_counts_cached_tokens_and_is_priced() {
    let dir = Dir::new("responses-cost");
    let server = llm(&[]);
    let cases = r#"    - name: adds
      prompt: 'add 2 and 3 [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
    - name: chats
      prompt: thanks [[text you are welcome]]
      expect_tool: null
"#;
    let extra = format!(
        "{RESPONSES}  system: You pick tools.\n  concurrency: 1\n  prices:\n    fake-model-1: {{input: 2.0, output: 8.0, cache_read: 0.5}}\n"
    );
    api_config(&dir, "openai", &[], &extra, cases);
    let base = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &openai_env(&base));
    assert_eq!(out.code, 0, "{out:?}");
    let cost = &model0(&report)["cost"];
    assert_eq!(
        (n(&cost["requests"]), n(&cost["reported"])),
        (2, 2),
        "{cost:#}"
    );
    let t = &cost["tokens"];
    let (input, output, read) = (n(&t["input"]), n(&t["output"]), n(&t["cache_read"]));
    // The second request read the tools and instructions from the prompt cache.
    assert!(input > 0 && output > 0 && read > 0, "{t}");
    assert_eq!(n(&t["cache_write"]), 0, "{t}");
    let expected = (input as f64 * 2.0 + output as f64 * 8.0 + read as f64 * 0.5) / 1e6;
    let estimated = cost["cost_usd"].as_f64().unwrap_or(-1.0);
    assert!(
        (estimated - expected).abs() < 1e-12,
        "{estimated} vs {expected}"
    );
    assert!(
        out.stdout.contains("Tokens and cost: 2 requests"),
        "{}",
        out.stdout
    );
}

#[test]
fn responses_rate_limits_are_retried_after_the_wait_and_a_bad_key_stops_the_phase() {
    let dir = Dir::new("responses-retry");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = r#"    - prompt: 'a [[status 429 times=1 retry-after=1]] [[call echo {"text": "x"}]]'
      expect_tool: echo
"#;
    api_config(&dir, "openai", &[], RESPONSES, cases);
    let base = format!("{}/v1", server.url);
    let started = Instant::now();
    let (out, report) = eval_in(&dir, &[], &openai_env(&base));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "retry-after was not waited for"
    );
    assert_eq!(statuses(&report), ["correct"]);
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2);

    let dir = Dir::new("responses-bad-key");
    let server = llm(&["--require-key", KEY]);
    let cases = "    - prompt: x\n      expect_tool: null\n";
    api_config(&dir, "openai", &[], RESPONSES, cases);
    let base = format!("{}/v1", server.url);
    let (out, report) = eval_in(
        &dir,
        &[],
        &[
            ("OPENAI_API_KEY", "sk-wrong-key-000"),
            ("OPENAI_BASE_URL", &base),
        ],
    );
    assert_eq!(out.code, 1, "{out:?}");
    let error = model0(&report)["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(error.contains("401"), "{report:#}");
    assert!(!out.stdout.contains("sk-wrong-key-000"), "{out:?}");
}

#[test]
fn responses_answers_are_cached_apart_from_chat_and_replay_offline() {
    let dir = Dir::new("responses-cache");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = "    - prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
    let base = format!("{}/v1", server.url);
    api_config(&dir, "openai", &[], "", cases);
    let (chat, _) = eval_in(&dir, &[], &openai_env(&base));
    assert_eq!(chat.code, 0, "{chat:?}");
    api_config(&dir, "openai", &[], RESPONSES, cases);
    // Chat's answer is not the Responses API's: offline finds none.
    let (offline, _) = eval_in(&dir, &["--offline"], &[("OPENAI_API_KEY", "")]);
    assert_eq!(offline.code, 1, "{offline:?}");
    let (live, _) = eval_in(&dir, &[], &openai_env(&base));
    assert_eq!(live.code, 0, "{live:?}");
    let paths: Vec<String> = requests(&dir, "llm.jsonl")
        .iter()
        .filter_map(|r| r["path"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(paths, ["/v1/chat/completions", "/v1/responses"]);
    let (again, report) = eval_in(&dir, &["--offline"], &[("OPENAI_API_KEY", "")]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(model0(&report)["cases"][0]["trials"][0]["cached"], true);
    assert_eq!(
        requests(&dir, "llm.jsonl").len(),
        2,
        "nothing asked offline"
    );
}

#[test]
fn responses_context_turns_are_sent_as_items_and_answered_from() {
    let dir = Dir::new("responses-context");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases_file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/context/order-cases.yaml")
        .display()
        .to_string();
    let extra = format!(
        "{RESPONSES}  system: You help with orders.\n  concurrency: 1\n  cases_file: {}\n",
        serde_json::to_string(&cases_file).unwrap_or_default()
    );
    api_config(
        &dir,
        "openai",
        &["--fault", "order-tools"],
        &extra,
        "    []\n",
    );
    let base = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &openai_env(&base));
    assert_eq!(out.code, 0, "{out:?}");
    let m = model0(&report);
    assert_eq!(m["correct"], 2, "{m:#}");
    assert_eq!(
        m["cases"][0]["trials"][0]["calls"][0]["args"],
        serde_json::json!({"order_id": "55219"})
    );
    let mut bodies: Vec<Value> = requests(&dir, "llm.jsonl")
        .into_iter()
        .map(|r| r["body"].clone())
        .collect();
    bodies.sort_by_key(|b| std::cmp::Reverse(b["input"].as_array().map_or(0, Vec::len)));
    let input = bodies[0]["input"].as_array().expect("input");
    let call = input
        .iter()
        .find(|i| i["type"] == "function_call")
        .expect("a function_call item");
    let output = input
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .expect("a function_call_output item");
    assert_eq!(call["call_id"], output["call_id"]);
    assert_eq!(bodies[1]["input"].as_array().map(Vec::len), Some(1));
}

#[test]
fn responses_tool_choice_names_the_function_in_the_responses_shape() {
    let dir = Dir::new("responses-tool-choice");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases =
        "    - prompt: 'say hi [[call echo {\"text\": \"hi\"}]]'\n      expect_tool: echo\n";
    let extra = format!("{RESPONSES}  tool_choice: {{tool: echo}}\n");
    api_config(&dir, "openai", &[], &extra, cases);
    let base = format!("{}/v1", server.url);
    let (out, _) = eval_in(&dir, &[], &openai_env(&base));
    assert_eq!(out.code, 0, "{out:?}");
    let sent = requests(&dir, "llm.jsonl");
    assert_eq!(
        sent[0]["body"]["tool_choice"],
        serde_json::json!({"type": "function", "name": "echo"})
    );
}

/// The server under test gets none of the providers' keys, even with `inherit_env: true`.
#[test]
fn the_presets_keys_are_withheld_from_the_server() {
    let dir = Dir::new("preset-withheld");
    let server = llm(&[]);
    let fake = fake();
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: [sh, -c, 'env > server.env; exec \"$0\"', '{fake}']\n  inherit_env: true\n\
             evals:\n  provider: groq\n  model: fake-model-1\n  openai_api: responses\n  cases:\n    - {{prompt: say hi, expect_tool: null}}\n"
        ),
    );
    let base = format!("{}/v1", server.url);
    let secrets = [
        ("GROQ_API_KEY", "gsk-withheld-0001"),
        ("XAI_API_KEY", "xai-withheld-0002"),
        ("OPENROUTER_API_KEY", "sk-or-withheld-0003"),
        ("LLAMA_API_KEY", "llama-withheld-0004"),
    ];
    let mut env = vec![("GROQ_BASE_URL", base.as_str()), ("TOOLPROOF_KEPT", "kept")];
    env.extend(secrets);
    let (out, report) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let seen = dir.read("server.env");
    assert!(seen.contains("TOOLPROOF_KEPT=kept"), "{seen}");
    for (key, value) in secrets {
        assert!(!seen.contains(value), "{key} reached the server: {seen}");
        assert!(!report.to_string().contains(value), "{key} in the report");
    }
}

// ------------------------------------------------------------------------------- presets

#[test]
fn a_preset_uses_its_base_url_variable_and_key_and_answers_under_its_own_name() {
    let dir = Dir::new("preset-groq");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", "gsk-test-key-0123"]);
    let cases = "    - prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
    api_config(&dir, "openai", &[], "", cases);
    let base = format!("{}/v1", server.url);
    let env = [
        ("GROQ_API_KEY", "gsk-test-key-0123"),
        ("GROQ_BASE_URL", base.as_str()),
        // OpenAI's own settings are not a preset's.
        ("OPENAI_API_KEY", KEY),
        ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
    ];
    let (out, report) = eval_in(&dir, &["--provider", "groq"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let sent = requests(&dir, "llm.jsonl");
    assert_eq!(sent[0]["path"], "/v1/chat/completions");
    assert_eq!(
        sent[0]["headers"]["authorization"],
        "Bearer gsk-test-key-0123"
    );
    assert_eq!(
        report["phases"]["evals"]["results"]["provider"], "groq",
        "{report:#}"
    );
    // Its answers do not replay as OpenAI's.
    let (offline, _) = eval_in(&dir, &["--offline"], &[("OPENAI_API_KEY", "")]);
    assert_eq!(offline.code, 1, "{offline:?}");
    let (again, _) = eval_in(&dir, &["--offline", "--provider", "groq"], &[]);
    assert_eq!(again.code, 0, "{again:?}");
    // With the Responses API.
    let (out, _) = eval_in(&dir, &["--provider", "groq", "--no-cache"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    api_config(&dir, "groq", &[], RESPONSES, cases);
    let (out, _) = eval_in(&dir, &["--no-cache"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let last = requests(&dir, "llm.jsonl");
    assert_eq!(last[last.len() - 1]["path"], "/v1/responses");
}

#[test]
fn a_hosted_preset_without_its_key_stops_the_phase_and_a_local_one_needs_none() {
    let dir = Dir::new("preset-nokey");
    let cases = "    - prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
    api_config(&dir, "mistral", &[], "", cases);
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml"],
        &[("MISTRAL_API_KEY", ""), ("OPENAI_API_KEY", KEY)],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("MISTRAL_API_KEY"), "{out:?}");

    let dir = Dir::new("preset-local");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    api_config(&dir, "ollama", &[], "", cases);
    let base = format!("{}/v1", server.url);
    let (out, _) = eval_in(&dir, &[], &[("OLLAMA_BASE_URL", &base)]);
    assert_eq!(out.code, 0, "{out:?}");
    let sent = requests(&dir, "llm.jsonl");
    assert!(
        sent[0]["headers"].get("authorization").is_none(),
        "{sent:#?}"
    );
}

#[test]
fn every_preset_is_accepted_by_the_cli_and_an_unknown_one_gets_the_list_and_a_suggestion() {
    for name in [
        "ollama",
        "vllm",
        "llamacpp",
        "openrouter",
        "together",
        "groq",
        "deepseek",
        "mistral",
        "xai",
    ] {
        let dir = Dir::new("preset-cli");
        let cases = "    - prompt: x\n      expect_tool: null\n";
        api_config(&dir, "openai", &[], "", cases);
        let out = toolproof_in(
            &dir.0,
            &[
                "eval",
                "-c",
                "toolproof.yaml",
                "--provider",
                name,
                "--offline",
            ],
            &[],
        );
        // Offline with no answer cached: the phase fails (1), the flag is not refused (2).
        assert_eq!(out.code, 1, "{name}: {out:?}");
    }
    let dir = Dir::new("preset-unknown");
    let cases = "    - prompt: x\n      expect_tool: null\n";
    api_config(&dir, "openai", &[], "", cases);
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml", "--provider", "grok"],
        &[],
    );
    assert_eq!(out.code, 2, "{out:?}");
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("groq") && said.contains("openrouter"),
        "{said}"
    );
    api_config(&dir, "qroq", &[], "", cases);
    let out = toolproof_in(&dir.0, &["eval", "-c", "toolproof.yaml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("did you mean `groq`"), "{said}");
}

#[test]
fn batch_is_refused_for_a_preset_without_a_batch_api() {
    let dir = Dir::new("preset-batch");
    let cases = "    - prompt: x\n      expect_tool: null\n";
    api_config(&dir, "deepseek", &[], "  batch: always\n", cases);
    // A closed port: nothing may be asked, and nothing leaves the machine if it were.
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml"],
        &[
            ("DEEPSEEK_API_KEY", KEY),
            ("DEEPSEEK_BASE_URL", "http://127.0.0.1:9/v1"),
        ],
    );
    assert_eq!(out.code, 2, "{out:?}");
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("deepseek") && said.contains("batch"),
        "{said}"
    );
}

/// The lines of the batch uploads in the fake's log.
fn batch_lines(log: &[Value]) -> Vec<Value> {
    log.iter()
        .filter(|r| {
            r["method"] == "POST" && r["path"].as_str().is_some_and(|p| p.ends_with("/files"))
        })
        .flat_map(|r| {
            r["body"]
                .as_str()
                .unwrap_or("")
                .lines()
                .filter(|l| l.starts_with("{\"custom_id\""))
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn a_responses_batch_sends_its_lines_to_v1_responses_and_caches_like_live_answers() {
    let dir = Dir::new("responses-batch");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = r#"    - name: echoes
      prompt: 'say hi [[call echo {"text": "hi"}]]'
      expect_tool: echo
    - name: chats
      prompt: 'thanks [[text you are welcome]]'
      expect_tool: null
"#;
    let extra = format!("{RESPONSES}  batch: always\n");
    api_config(&dir, "openai", &[], &extra, cases);
    let base = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &["--batch-poll-s", "0.001"], &openai_env(&base));
    assert_eq!(out.code, 0, "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    assert!(
        !log.iter().any(|r| r["path"] == "/v1/responses"),
        "no live request"
    );
    let lines = batch_lines(&log);
    assert_eq!(lines.len(), 2, "{log:#?}");
    for line in &lines {
        assert_eq!(line["url"], "/v1/responses");
        assert!(line["body"]["input"].is_array(), "{line}");
    }
    let create = log
        .iter()
        .find(|r| r["path"] == "/v1/batches" && r["method"] == "POST")
        .expect("a batch");
    assert_eq!(create["body"]["endpoint"], "/v1/responses");
    let m = model0(&report);
    assert_eq!(m["batched"], 2, "{m:#}");
    assert_eq!(statuses(&report), ["correct", "correct"]);
    // Replayed offline from the cache the batch filled.
    let (again, report) = eval_in(&dir, &["--offline"], &[("OPENAI_API_KEY", "")]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(model0(&report)["cases"][1]["trials"][0]["cached"], true);
}

#[test]
fn groq_batches_through_its_openai_style_batch_api() {
    let dir = Dir::new("preset-groq-batch");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases =
        "    - prompt: 'say hi [[call echo {\"text\": \"hi\"}]]'\n      expect_tool: echo\n";
    api_config(&dir, "groq", &[], "  batch: always\n", cases);
    let base = format!("{}/v1", server.url);
    let (out, report) = eval_in(
        &dir,
        &["--batch-poll-s", "0.001"],
        &[("GROQ_API_KEY", KEY), ("GROQ_BASE_URL", &base)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    let lines = batch_lines(&log);
    assert_eq!(lines.len(), 1, "{log:#?}");
    assert_eq!(lines[0]["url"], "/v1/chat/completions");
    assert_eq!(model0(&report)["batched"], 1);
    assert_eq!(statuses(&report), ["correct"]);
}
