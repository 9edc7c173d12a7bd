//! Tool-selection evals end to end: the command provider (a scripted picker) and fake model
//! APIs on loopback, through the `toolproof` binary.

use super::*;

/// The scripted picker (`fake_picker`, in `tests/support`): its directives are in its header.
pub(super) fn picker() -> String {
    crate::fake("fake_picker")
}

/// A config whose server is the fake MCP server and whose evals use the scripted picker.
pub(super) fn command_config(dir: &Dir, evals_extra: &str, cases: &str) -> PathBuf {
    let server = yaml_list(&[&fake()]);
    let command = yaml_list(&[&picker()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: command\n  command: {command}\n{evals_extra}  cases:\n{cases}"
        ),
    )
}

pub(super) fn eval_in(dir: &Dir, extra: &[&str], env: &[(&str, &str)]) -> (Out, Value) {
    let mut args = vec![
        "eval",
        "-c",
        "toolproof.yaml",
        "--json",
        "r.json",
        "--junit",
        "j.xml",
        "--summary",
        "s.md",
    ];
    args.extend_from_slice(extra);
    let out = toolproof_in(&dir.0, &args, env);
    let report =
        serde_json::from_str(&std::fs::read_to_string(dir.path("r.json")).unwrap_or_default())
            .unwrap_or(Value::Null);
    (out, report)
}

pub(super) fn model0(report: &Value) -> &Value {
    &report["phases"]["evals"]["results"]["models"][0]
}

const MIXED: &str = r#"    - name: adds
      prompt: 'add 2 and 3 [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
      expect_args: {a: 2, b: 3}
    - name: echoes loudly
      prompt: 'say hi [[call add {"a": 1, "b": 1}]]'
      expect_tool: echo
      why: echo, not arithmetic
    - name: thanks
      prompt: thanks [[none]]
      expect_tool: null
    - name: wrong args
      prompt: 'add 2 and 2 [[call add {"a": 2, "b": 5}]]'
      expect_tool: add
      expect_args: {a: 2, b: 2}
"#;

#[test]
fn the_command_provider_is_scored_gated_and_reported() {
    let dir = Dir::new("eval-cmd");
    command_config(&dir, "  min_accuracy: 0.5\n", MIXED);
    let (out, report) = eval_in(&dir, &["--junit-file-attrs"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let m = model0(&report);
    assert_eq!(m["total"], 4);
    assert_eq!(m["correct"], 2);
    assert_eq!(m["accuracy"], 0.5);
    assert_eq!(m["passed"], true);
    let cases = m["cases"].as_array().expect("cases");
    assert_eq!(cases[1]["status"], "miss");
    assert_eq!(cases[1]["why"], "echo, not arithmetic");
    assert_eq!(
        cases[1]["trials"][0]["failures"][0],
        "expected echo, got add"
    );
    assert_eq!(
        cases[3]["trials"][0]["failures"][0],
        "argument `b` is 5, expected 2"
    );
    assert_eq!(m["confusion"][0]["expected"], "echo");
    assert_eq!(m["confusion"][0]["picked"], "add");
    // The miss and its reason reach the console, and the JUnit points at the case's line.
    assert!(out.stdout.contains("echo, not arithmetic"), "{out:?}");
    let junit = dir.read("j.xml");
    assert!(junit.contains("line=\"12\""), "{junit}");
    // Raising the bar fails the run with the gate's reason.
    let (out, report) = eval_in(&dir, &["--min-accuracy", "0.9"], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(model0(&report)["passed"], false);
}

#[test]
fn a_critical_row_fails_the_run_whatever_the_accuracy() {
    let dir = Dir::new("eval-critical");
    let cases = r#"    - prompt: 'a [[call add {"a": 1, "b": 1}]]'
      expect_tool: add
    - prompt: 'b [[call add {"a": 1, "b": 1}]]'
      expect_tool: add
    - prompt: 'c [[call add {"a": 1, "b": 1}]]'
      expect_tool: add
    - name: refund goes to the refund tool
      prompt: 'refund [[call echo {"text": "x"}]]'
      expect_tool: add
      critical: true
      why: the wrong tool spends money
"#;
    command_config(&dir, "  min_accuracy: 0.7\n", cases);
    let (out, report) = eval_in(&dir, &[], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let m = model0(&report);
    assert_eq!(m["accuracy"], 0.75);
    assert_eq!(m["critical_misses"][0], "refund goes to the refund tool");
    let gate = m["gates"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["name"] == "critical"))
        .expect("critical gate");
    assert_eq!(gate["passed"], false);
}

#[test]
fn trials_flag_ambiguous_rows_and_the_wilson_gate_holds() {
    let dir = Dir::new("eval-trials");
    let state = dir.path("state");
    std::fs::create_dir_all(&state).expect("state dir");
    let cases = r#"    - name: steady
      prompt: 'x [[call add {"a": 1, "b": 1}]]'
      expect_tool: add
    - name: wobbly
      prompt: 'y [[flip echo {"text": "hi"}]]'
      expect_tool: echo
"#;
    command_config(
        &dir,
        "  trials: 4\n  min_accuracy: 0.5\n  min_wilson_lower: 0.9\n",
        cases,
    );
    let state_s = state.display().to_string();
    let (out, report) = eval_in(&dir, &[], &[("PICKER_STATE", &state_s)]);
    assert_eq!(out.code, 1, "{out:?}");
    let m = model0(&report);
    assert_eq!(m["trials"], 4);
    assert_eq!(m["cases"][0]["pass_rate"], 1.0);
    assert_eq!(m["cases"][1]["pass_rate"], 0.5);
    assert_eq!(m["cases"][1]["ambiguous"], true);
    assert_eq!(m["trial_accuracy"], 0.75);
    let wilson = m["gates"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["name"] == "min_wilson_lower"))
        .expect("wilson gate");
    assert_eq!(wilson["passed"], false, "{m:#}");
}

#[test]
fn several_models_are_gated_each() {
    let dir = Dir::new("eval-models");
    let cases = r#"    - prompt: 'p [[call:good add {"a": 1, "b": 2}]] [[call:bad echo {"text": "x"}]]'
      expect_tool: add
"#;
    command_config(&dir, "  models: [good, bad]\n", cases);
    let (out, report) = eval_in(&dir, &[], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let models = report["phases"]["evals"]["results"]["models"]
        .as_array()
        .expect("models");
    assert_eq!(models.len(), 2);
    assert_eq!(models[0]["model"], "good");
    assert_eq!(models[0]["passed"], true);
    assert_eq!(models[1]["model"], "bad");
    assert_eq!(models[1]["passed"], false);
}

#[test]
fn cases_and_system_prompt_from_their_own_files() {
    let dir = Dir::new("eval-files");
    let log = dir.path("picker.jsonl").display().to_string();
    dir.write("system.md", "You route requests to tools.\n");
    dir.write(
        "cases.yaml",
        "# the labelled set\n- name: from the file\n  prompt: 'q [[call echo {\"text\": \"a\"}]]'\n  expect_tool: add\n",
    );
    let server = yaml_list(&[&fake()]);
    let command = yaml_list(&[&picker()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: command\n  command: {command}\n  system_file: system.md\n  cases_file: cases.yaml\n"
        ),
    );
    let (out, report) = eval_in(
        &dir,
        &[],
        &[("PICKER_LOG", &log), ("TOOLPROOF_JUNIT_FILE_ATTRS", "1")],
    );
    assert_eq!(out.code, 1, "{out:?}");
    let case = &model0(&report)["cases"][0];
    assert_eq!(case["line"], 2);
    assert!(
        case["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("cases.yaml"))
    );
    // The JUnit points at the case in its own file (TOOLPROOF_JUNIT_FILE_ATTRS).
    assert!(
        dir.read("j.xml").contains("file=\"cases.yaml\" line=\"2\""),
        "{}",
        dir.read("j.xml")
    );
    let sent: Value = serde_json::from_str(dir.read("picker.jsonl").lines().next().unwrap_or(""))
        .expect("picker request");
    assert_eq!(sent["system"], "You route requests to tools.\n");
    assert!(
        sent["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "echo"))
    );
}

#[test]
fn a_failing_picker_is_a_provider_error_and_the_run_goes_on() {
    let dir = Dir::new("eval-picker-fails");
    let cases = r#"    - name: crashes
      prompt: boom [[exit 3]]
      expect_tool: echo
    - name: garbage
      prompt: junk [[garbage]]
      expect_tool: echo
    - name: fine
      prompt: 'ok [[call echo {"text": "a"}]]'
      expect_tool: echo
"#;
    command_config(&dir, "  min_accuracy: 0.3\n", cases);
    let (out, report) = eval_in(&dir, &[], &[]);
    let m = model0(&report);
    assert_eq!(m["provider_errors"], 2, "{out:?}");
    assert_eq!(m["cases"][0]["status"], "provider_error");
    assert_eq!(m["cases"][2]["status"], "correct");
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn a_picker_that_cannot_start_stops_the_phase_with_no_false_pass() {
    let dir = Dir::new("eval-picker-missing");
    let server = yaml_list(&[&fake()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: command\n  command: [./no-such-picker]\n  min_accuracy: 0\n  cases:\n    - prompt: thanks\n      expect_tool: null\n"
        ),
    );
    let (out, report) = eval_in(&dir, &[], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let m = model0(&report);
    assert!(
        m["error"]
            .as_str()
            .is_some_and(|e| e.contains("no-such-picker")),
        "{m:#}"
    );
    assert_eq!(m["correct"], 0);
    assert_eq!(m["cases"][0]["status"], "not_run");
    assert!(out.stdout.contains("no-such-picker"), "{out:?}");
    let junit = dir.read("j.xml");
    assert!(
        junit.contains("<error") && junit.contains("no-such-picker"),
        "{junit}"
    );
}

#[test]
fn history_is_appended_and_a_rising_miss_rate_is_flagged() {
    let dir = Dir::new("eval-history");
    let history = dir.path("history.jsonl").display().to_string();
    let case = |ok: bool, i: usize| {
        let call = if ok {
            r#"add {"a": 1, "b": 1}"#
        } else {
            r#"echo {"text": "x"}"#
        };
        format!("    - prompt: 'q{i} [[call {call}]]'\n      expect_tool: add\n")
    };
    let mut last = Value::Null;
    for misses in 0..4 {
        let cases: String = (0..10).map(|i| case(i >= misses, i)).collect();
        command_config(&dir, "  min_accuracy: 0.5\n", &cases);
        let (out, report) = eval_in(&dir, &["--history", &history], &[]);
        assert_eq!(out.code, 0, "{out:?}");
        last = report;
    }
    let lines = dir.read("history.jsonl");
    assert_eq!(lines.lines().count(), 4);
    let first: Value = serde_json::from_str(lines.lines().next().unwrap_or("")).expect("line");
    assert_eq!(first["provider"], "command");
    assert_eq!(first["cases"], 10);
    assert!(
        first["tool_list_hash"]
            .as_str()
            .is_some_and(|h| h.len() == 64)
    );
    let trend = &last["phases"]["evals"]["results"]["history"];
    assert_eq!(trend["rising"], true, "{trend:#}");
    assert_eq!(trend["points"].as_array().map(Vec::len), Some(4));
}

#[test]
fn eval_usage_errors() {
    let dir = Dir::new("eval-usage");
    let server = yaml_list(&[&fake()]);
    dir.write("toolproof.yaml", &format!("server:\n  command: {server}\n"));
    let out = toolproof_in(&dir.0, &["eval", "-c", "toolproof.yaml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("no eval cases"), "{out:?}");
    let out = toolproof_in(&dir.0, &["eval", "--provider", "bogus"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    let out = toolproof_in(&dir.0, &["eval", "--min-accuracy", "1.5"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
}

#[test]
fn an_unknown_provider_from_the_environment_is_reported_not_hidden() {
    let dir = Dir::new("eval-env-provider");
    command_config(&dir, "", MIXED);
    let (out, report) = eval_in(&dir, &[], &[("TOOLPROOF_EVAL_PROVIDER", "bogus")]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(report["phases"]["evals"]["status"], "error");
    assert!(
        out.stdout.contains("unknown eval provider `bogus`"),
        "{out:?}"
    );
}

// ---------------------------------------------------------------- fake model APIs on loopback

pub(super) fn fake_llm_bin() -> String {
    crate::fake("fake_llm")
}

/// A fake Anthropic + OpenAI API.
pub(super) type Llm = Listening;

pub(super) fn llm(args: &[&str]) -> Llm {
    listening(&fake_llm_bin(), args)
}

pub(super) fn requests(dir: &Dir, log: &str) -> Vec<Value> {
    std::fs::read_to_string(dir.path(log))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

pub(super) const KEY: &str = "sk-test-key-0123456789";

pub(super) fn api_config(
    dir: &Dir,
    provider: &str,
    server_args: &[&str],
    extra: &str,
    cases: &str,
) {
    let mut server = vec![fake()];
    server.extend(server_args.iter().map(|s| s.to_string()));
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {}\nevals:\n  provider: {provider}\n  model: fake-model-1\n{extra}  cases:\n{cases}",
            yaml_list(&server)
        ),
    );
}

pub(super) fn api_env<'a>(llm: &'a Llm, openai_base: &'a str) -> Vec<(&'static str, &'a str)> {
    vec![
        ("ANTHROPIC_API_KEY", KEY),
        ("ANTHROPIC_BASE_URL", llm.url.as_str()),
        ("OPENAI_API_KEY", KEY),
        ("OPENAI_BASE_URL", openai_base),
    ]
}

#[test]
fn anthropic_requests_are_exact_and_names_map_back() {
    let dir = Dir::new("eval-anthropic");
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
    - name: malformed
      prompt: 'bad [[malformed add {oops]]'
      expect_tool: add
"#;
    api_config(
        &dir,
        "anthropic",
        &["--fault", "bad-name"],
        "  system: You pick tools.\n  min_accuracy: 0\n  params: {temperature: 0}\n",
        cases,
    );
    let openai = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    let sent = requests(&dir, "llm.jsonl");
    assert_eq!(sent.len(), 5, "one request per case: {sent:#?}");
    let first = &sent[0];
    assert_eq!(first["path"], "/v1/messages");
    assert_eq!(first["headers"]["x-api-key"], KEY);
    assert_eq!(first["headers"]["anthropic-version"], "2023-06-01");
    let body = &first["body"];
    assert_eq!(body["model"], "fake-model-1");
    assert_eq!(body["max_tokens"], 16000);
    // The system prompt as a block marked for the prompt cache (`evals.prompt_cache`).
    assert_eq!(
        body["system"],
        serde_json::json!([{"type": "text", "text": "You pick tools.", "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(body["temperature"], 0);
    assert_eq!(body["tool_choice"], serde_json::json!({"type": "auto"}));
    let names: Vec<&str> = body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"bad_name_with_slash"), "{names:?}");
    assert!(names.iter().all(|n| {
        n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }));
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
    assert_eq!(cases[4]["trials"][0]["calls"][0]["malformed_args"], "{oops");
    assert_eq!(cases[4]["status"], "miss");
    for text in [
        out.stdout.as_str(),
        &dir.read("r.json"),
        &dir.read("j.xml"),
        &dir.read("s.md"),
    ] {
        assert!(!text.contains(KEY), "the API key leaked");
    }
}

#[test]
fn openai_requests_are_exact() {
    let dir = Dir::new("eval-openai");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let cases = r#"    - prompt: 'add [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
      expect_args: {a: 2, b: 3}
"#;
    api_config(
        &dir,
        "openai",
        &[],
        "  system: You pick tools.\n  params: {seed: 1}\n",
        cases,
    );
    let openai = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    let sent = requests(&dir, "llm.jsonl");
    assert_eq!(sent[0]["path"], "/v1/chat/completions");
    assert_eq!(sent[0]["headers"]["authorization"], format!("Bearer {KEY}"));
    let body = &sent[0]["body"];
    assert_eq!(
        body["messages"][0],
        serde_json::json!({"role": "system", "content": "You pick tools."})
    );
    assert_eq!(body["messages"][1]["role"], "user");
    assert_eq!(body["tool_choice"], "auto");
    assert_eq!(body["seed"], 1);
    assert_eq!(body["tools"][0]["type"], "function");
    assert!(body["tools"][0]["function"]["parameters"].is_object());
    assert_eq!(model0(&report)["correct"], 1);
}

#[test]
fn rate_limits_and_server_errors_are_retried_and_retry_after_is_honoured() {
    let dir = Dir::new("eval-retry");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = r#"    - name: rate limited once
      prompt: 'a [[status 429 times=1 retry-after=1]] [[call echo {"text": "x"}]]'
      expect_tool: echo
    - name: overloaded once
      prompt: 'b [[status 529 times=1 retry-after-ms=50]] [[call echo {"text": "x"}]]'
      expect_tool: echo
    - name: server error once
      prompt: 'c [[status 500 times=1 retry-after-ms=50]] [[call echo {"text": "x"}]]'
      expect_tool: echo
    - name: always failing
      prompt: 'd [[status 500 retry-after-ms=10]]'
      expect_tool: echo
"#;
    api_config(
        &dir,
        "anthropic",
        &[],
        "  min_accuracy: 0.7\n  max_retries: 2\n",
        cases,
    );
    let openai = format!("{}/v1", server.url);
    let started = Instant::now();
    let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    let elapsed = started.elapsed();
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        elapsed >= Duration::from_secs(1),
        "retry-after: 1 was not waited for ({elapsed:?})"
    );
    let m = model0(&report);
    let status: Vec<&str> = m["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["status"].as_str())
        .collect();
    assert_eq!(status, ["correct", "correct", "correct", "provider_error"]);
    assert_eq!(m["provider_errors"], 1);
    let failing = &m["cases"][3]["trials"][0]["provider_error"];
    assert!(
        failing.as_str().is_some_and(|e| e.contains("500")),
        "{failing}"
    );
    // 2 + 2 + 2 attempts for the three that recover, 3 for the one that never does.
    assert_eq!(requests(&dir, "llm.jsonl").len(), 9);
}

#[test]
fn a_rejected_request_stops_the_phase_with_the_providers_message() {
    for (directive, needle) in [
        ("[[status 400 msg=bad params]]", "bad params"),
        ("[[status 401]]", "401"),
        ("[[status 404]]", "404"),
    ] {
        let dir = Dir::new("eval-reject");
        let cases = format!(
            "    - prompt: 'first {directive}'\n      expect_tool: null\n    - prompt: second\n      expect_tool: null\n"
        );
        api_config(&dir, "anthropic", &[], "  min_accuracy: 0\n", &cases);
        let server = llm(&[]);
        let openai = format!("{}/v1", server.url);
        let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
        assert_eq!(out.code, 1, "{directive}: {out:?}");
        let m = model0(&report);
        assert!(
            m["error"].as_str().is_some_and(|e| e.contains(needle)),
            "{directive}: {m:#}"
        );
        assert_eq!(m["correct"], 0, "{directive}: no case may pass");
        assert!(out.stdout.contains(needle), "{directive}: {out:?}");
        assert!(dir.read("j.xml").contains(needle) && dir.read("s.md").contains(needle));
    }
}

#[test]
fn a_missing_key_stops_the_phase_unless_every_case_is_cached() {
    let dir = Dir::new("eval-nokey");
    let cases = "    - prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
    api_config(&dir, "anthropic", &[], "", cases);
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml"],
        &[("ANTHROPIC_API_KEY", "")],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("ANTHROPIC_API_KEY"), "{out:?}");
}

#[test]
fn a_slow_answer_times_out_as_a_provider_error() {
    let dir = Dir::new("eval-slow");
    let server = llm(&[]);
    let cases = "    - prompt: 'slow [[sleep 5000]] [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
    api_config(
        &dir,
        "anthropic",
        &[],
        "  request_timeout_s: 0.5\n  max_retries: 0\n  min_accuracy: 0\n",
        cases,
    );
    let openai = format!("{}/v1", server.url);
    let started = Instant::now();
    let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the timeout did not hold: {out:?}"
    );
    assert_eq!(
        model0(&report)["cases"][0]["status"],
        "provider_error",
        "{out:?}"
    );
}

#[test]
fn the_cache_replays_with_no_request_and_no_key_and_offline_names_the_misses() {
    let dir = Dir::new("eval-cache");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = "    - name: one\n      prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n    - name: two\n      prompt: 'y [[call add {\"a\": 1, \"b\": 1}]]'\n      expect_tool: echo\n";
    api_config(&dir, "anthropic", &[], "  min_accuracy: 0.5\n", cases);
    let openai = format!("{}/v1", server.url);
    let (first, _) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2);
    let files = std::fs::read_dir(dir.path(".toolproof-cache/evals"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(files, 2);
    // Again, with no key and --offline: the same verdicts, no request.
    let (again, report) = eval_in(&dir, &["--offline"], &[("ANTHROPIC_API_KEY", "")]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2);
    let m = model0(&report);
    assert_eq!(m["correct"], 1);
    assert_eq!(m["cases"][0]["trials"][0]["cached"], true);
    assert_eq!(report["phases"]["evals"]["results"]["cache"]["hits"], 2);
    // A new case has no answer: offline names it and fails with a hint.
    let more = format!(
        "{cases}    - name: brand new\n      prompt: never asked\n      expect_tool: null\n"
    );
    api_config(&dir, "anthropic", &[], "  min_accuracy: 0.5\n", &more);
    let (offline, report) = eval_in(&dir, &["--offline"], &[("ANTHROPIC_API_KEY", "")]);
    assert_eq!(offline.code, 1, "{offline:?}");
    assert_eq!(model0(&report)["uncached"][0], "brand new");
    assert!(offline.stdout.contains("brand new"), "{offline:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2);
    // status says what is missing; prune finds the file of a case that is gone.
    let status = toolproof_in(&dir.0, &["cache", "status", "-c", "toolproof.yaml"], &[]);
    assert_eq!(status.code, 1, "{status:?}");
    assert!(
        status.stdout.contains("missing") && status.stdout.contains("2 of 3"),
        "{status:?}"
    );
    let fewer = "    - name: one\n      prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
    api_config(&dir, "anthropic", &[], "", fewer);
    let dry = toolproof_in(&dir.0, &["cache", "prune", "-c", "toolproof.yaml"], &[]);
    assert!(dry.stdout.contains("would remove"), "{dry:?}");
    assert_eq!(
        std::fs::read_dir(dir.path(".toolproof-cache/evals"))
            .map(|d| d.count())
            .unwrap_or(0),
        2
    );
    let apply = toolproof_in(
        &dir.0,
        &["cache", "prune", "-c", "toolproof.yaml", "--apply"],
        &[],
    );
    assert_eq!(apply.code, 0, "{apply:?}");
    assert_eq!(
        std::fs::read_dir(dir.path(".toolproof-cache/evals"))
            .map(|d| d.count())
            .unwrap_or(0),
        1
    );
}

/// After the tool list changes, `--offline` finds no answer: it says the cache holds answers
/// recorded for another tool list and which tools changed, and reports no accuracy (it asked
/// nothing) rather than 0%.
#[test]
fn offline_after_a_tool_list_change_names_the_tools_and_reports_no_accuracy() {
    let dir = Dir::new("eval-cache-tools");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = "    - name: one\n      prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n    - name: two\n      prompt: 'y [[text no tool needed]]'\n      expect_tool: null\n";
    api_config(&dir, "anthropic", &[], "", cases);
    let openai = format!("{}/v1", server.url);
    let (first, _) = eval_in(&dir, &["--history", "h.jsonl"], &api_env(&server, &openai));
    assert_eq!(first.code, 0, "{first:?}");
    // The server now offers one more tool (`undocumented`): every key changes.
    api_config(&dir, "anthropic", &["--fault", "no-description"], "", cases);
    std::fs::remove_file(dir.path("s.md")).expect("the first run's summary");
    let (offline, report) = eval_in(
        &dir,
        &["--offline", "--history", "h.jsonl"],
        &[("ANTHROPIC_API_KEY", "")],
    );
    assert_eq!(offline.code, 1, "{offline:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2, "no request offline");
    // Nothing was measured: the history gets no miss rate of 100% for the model.
    let history = dir.read("h.jsonl");
    let rates: Vec<&str> = history
        .lines()
        .filter(|l| l.contains("\"model\":\"fake-model-1\""))
        .collect();
    assert_eq!(rates.len(), 1, "{history}");
    assert!(!offline.stdout.contains("→ 100%"), "{}", offline.stdout);
    let reason = "2 cases have no cached answer and --offline forbids asking: one, two; the cache holds answers to 2 of these prompts recorded for another tool list (added since: undocumented)";
    let m = model0(&report);
    let offline_gate = m["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "offline")
        .expect("an offline gate");
    assert_eq!(offline_gate["detail"], reason, "{offline_gate}");
    let min = m["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "min_accuracy")
        .expect("a min_accuracy gate");
    assert_eq!(
        min["detail"], "accuracy not measured: no case was asked (minimum 100%)",
        "{min}"
    );
    let phase_reason = report["phases"]["evals"]["reason"].as_str().unwrap();
    assert_eq!(phase_reason, reason);
    for (what, text) in [
        ("console", offline.stdout.clone()),
        ("summary", dir.read("s.md")),
        ("junit", dir.read("j.xml")),
    ] {
        assert!(!text.contains(" 0% accuracy"), "{what}:\n{text}");
        assert!(!text.contains("Accuracy 0%"), "{what}:\n{text}");
        assert!(
            text.contains("added since: undocumented"),
            "{what}:\n{text}"
        );
    }
    assert!(
        offline
            .stdout
            .contains("Accuracy not measured: no case was asked (2 cases not run)"),
        "{}",
        offline.stdout
    );
}

#[test]
fn no_cache_asks_again_and_a_corrupt_file_is_a_miss() {
    let dir = Dir::new("eval-nocache");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = "    - prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
    api_config(&dir, "anthropic", &[], "", cases);
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    eval_in(&dir, &[], &env);
    eval_in(&dir, &["--no-cache"], &env);
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2);
    let entry = std::fs::read_dir(dir.path(".toolproof-cache/evals"))
        .ok()
        .and_then(|mut d| d.next())
        .and_then(Result::ok)
        .map(|e| e.path())
        .expect("cache file");
    std::fs::write(&entry, "{ not json").expect("corrupt it");
    let (out, report) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["phases"]["evals"]["results"]["cache"]["corrupt"], 1);
    assert_eq!(requests(&dir, "llm.jsonl").len(), 3);
    assert!(
        std::fs::read_to_string(&entry)
            .unwrap_or_default()
            .contains("\"tool\": \"echo\"")
    );
}

#[test]
fn answers_come_back_in_case_order_whatever_order_they_finish() {
    let dir = Dir::new("eval-order");
    let server = llm(&[]);
    let cases: String = (0..12)
        .map(|i| {
            let sleep = (12 - i) * 15;
            format!("    - name: case {i:02}\n      prompt: 'n{i} [[sleep {sleep}]] [[call echo {{\"text\": \"{i}\"}}]]'\n      expect_tool: echo\n")
        })
        .collect();
    api_config(&dir, "anthropic", &[], "  concurrency: 6\n", &cases);
    let openai = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    let names: Vec<String> = model0(&report)["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["name"].as_str().map(str::to_owned))
        .collect();
    let want: Vec<String> = (0..12).map(|i| format!("case {i:02}")).collect();
    assert_eq!(names, want);
}

/// The cache mcp-toolproof 0.3.1 itself wrote replays here: no request, no key, same verdicts.
#[test]
fn a_cache_written_by_mcp_toolproof_replays_with_identical_verdicts() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference-cache");
    for name in ["anthropic", "openai", "tricky", "exotic"] {
        let dir = Dir::new(&format!("replay-{name}"));
        copy_tree(&fixtures.join(name), &dir.0);
        let fake_path = fake();
        let (out, report) = eval_in(
            &dir,
            &["--offline"],
            &[
                ("FAKE_MCP", fake_path.as_str()),
                ("PYTHON", "python3"),
                ("ANTHROPIC_API_KEY", ""),
                ("OPENAI_API_KEY", ""),
                ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
                ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
            ],
        );
        let reference: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path("reference-report.json")).expect("reference report"),
        )
        .expect("reference JSON");
        let m = model0(&report);
        assert_eq!(m["uncached"], serde_json::json!([]), "{name}: {out:?}");
        assert_eq!(
            report["phases"]["evals"]["results"]["cache"]["asked"], 0,
            "{name}"
        );
        let ours: Vec<(String, bool)> = m["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .map(|c| {
                (
                    c["prompt"].as_str().unwrap_or("").to_owned(),
                    c["status"] == "correct",
                )
            })
            .collect();
        let theirs: Vec<(String, bool)> = reference["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .map(|c| {
                (
                    c["prompt"].as_str().unwrap_or("").to_owned(),
                    c["passed"] == true,
                )
            })
            .collect();
        assert_eq!(ours, theirs, "{name}: verdicts differ");
        if name == "exotic" {
            // `\N{DIGIT ONE}` needs Unicode's name table: the arguments are judged without the
            // schema, and the case says so rather than passing quietly.
            let case = m["cases"]
                .as_array()
                .and_then(|cases| cases.iter().find(|c| c["name"] == "named character"))
                .expect("named character case");
            let note = case["trials"][0]["notes"][0].as_str().unwrap_or("");
            assert!(
                note.starts_with("arguments not checked against the input schema of ones: "),
                "{case:#}"
            );
            assert!(
                out.stdout
                    .contains("note: arguments not checked against the input"),
                "{}",
                out.stdout
            );
        }
        assert_eq!(m["passed"], reference["passed"], "{name}");
        assert_eq!(
            report["phases"]["evals"]["results"]["left_out_tools"], reference["skipped_tools"],
            "{name}"
        );
        // The set lint's errors (one prompt labelled twice, keys the schema forbids) fail
        // the run where the reference only counts the misses: a deliberate difference.
        let lint_fails = report["phases"]["lint"]["status"] == "failed";
        if name == "anthropic" {
            assert!(lint_fails, "{name}: {out:?}");
        }
        assert_eq!(
            out.code,
            if reference["passed"] == true && !lint_fails {
                0
            } else {
                1
            },
            "{name}: {out:?}"
        );
    }
}

pub(super) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy fixture");
        }
    }
}

#[test]
fn a_rate_limit_slows_every_worker_not_just_the_one_that_got_it() {
    let dir = Dir::new("eval-pacer");
    let server = llm(&[]);
    let mut cases = String::from(
        "    - prompt: 'limited [[status 429 times=1 retry-after=2]] [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n",
    );
    for i in 0..4 {
        cases.push_str(&format!(
            "    - prompt: 'slow {i} [[sleep 300]] [[call echo {{\"text\": \"a\"}}]]'\n      expect_tool: echo\n"
        ));
    }
    api_config(&dir, "anthropic", &[], "  concurrency: 2\n", &cases);
    let openai = format!("{}/v1", server.url);
    let started = Instant::now();
    let (out, _) = eval_in(&dir, &[], &api_env(&server, &openai));
    let elapsed = started.elapsed();
    assert_eq!(out.code, 0, "{out:?}");
    // Alone, the second worker would finish its four 300 ms answers by 1.2 s, and the run by
    // the 2 s retry-after. Held back with everyone, its later requests wait out the 2 s too.
    assert!(
        elapsed >= Duration::from_millis(2400),
        "{elapsed:?}: the other worker was not held back"
    );
}

#[test]
fn cache_false_writes_nothing() {
    let dir = Dir::new("eval-cache-off");
    let server = llm(&[]);
    let cases = "    - prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n";
    api_config(&dir, "anthropic", &[], "  cache: false\n", cases);
    let openai = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!dir.path(".toolproof-cache").exists());
    assert_eq!(
        report["phases"]["evals"]["results"]["cache"]["write"],
        false
    );
}
