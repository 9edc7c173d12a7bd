//! Tool-selection evals end to end: the command provider (a scripted picker) and fake model
//! APIs on loopback, through the `toolproof` binary.

use super::*;

fn picker() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/picker.py")
        .display()
        .to_string()
}

/// A config whose server is the fake MCP server and whose evals use the scripted picker.
fn command_config(dir: &Dir, evals_extra: &str, cases: &str) -> PathBuf {
    let server = yaml_list(&[&fake()]);
    let command = yaml_list(&["python3", &picker()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: command\n  command: {command}\n{evals_extra}  cases:\n{cases}"
        ),
    )
}

fn eval_in(dir: &Dir, extra: &[&str], env: &[(&str, &str)]) -> (Out, Value) {
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

fn model0(report: &Value) -> &Value {
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
    let (out, report) = eval_in(&dir, &[], &[]);
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
    let command = yaml_list(&["python3", &picker()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: command\n  command: {command}\n  system_file: system.md\n  cases_file: cases.yaml\n"
        ),
    );
    let (out, report) = eval_in(&dir, &[], &[("PICKER_LOG", &log)]);
    assert_eq!(out.code, 1, "{out:?}");
    let case = &model0(&report)["cases"][0];
    assert_eq!(case["line"], 2);
    assert!(
        case["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("cases.yaml"))
    );
    assert!(dir.read("j.xml").contains("cases.yaml"));
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
