//! The set lint through the binary: `toolproof lint` (no model, no key) and the lint phase of
//! `run` and `eval`, against the fake MCP server, with every report format and exit code.

use super::evals::{api_config, api_env, command_config, eval_in, llm, picker};
use super::*;

/// Every tool of the fake server has a genuine case, with filler, an ambiguous case, and a
/// `why` on every case: no rule has anything to say.
const CLEAN: &str = r#"    - name: say it back
      prompt: 'Repeat after me: hello [[call echo {"text": "hello"}]]'
      expect_tool: echo
      expect_args: {text: hello}
      why: repeating, in the user's words
    - name: sum
      prompt: 'What is 2 plus 3? [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
      expect_args: {a: 2, b: 3}
      why: arithmetic
    - name: error on purpose
      prompt: 'Give me an error result please [[call fail]]'
      expect_tool: fail
      why: the error path
    - name: wait a bit
      prompt: 'Pause for 50 milliseconds [[call slow {"ms": 50}]]'
      expect_tool: slow
      expect_args: {ms: 50}
      why: waiting
    - name: stop the server
      prompt: 'Kill the process now [[call crash]]'
      expect_tool: crash
      why: the destructive one
    - name: thanks
      prompt: thanks, that's all [[text no tool needed]]
      expect_tool: null
      why: filler
    - name: vague
      prompt: do the thing again [[text no tool needed]]
      expect_tool: null
      why: "ambiguous: which thing?"
"#;

/// A config whose cases `lint` checks against the fake server (started with `server_args`);
/// the provider is an API with no key anywhere: `lint` asks no model.
fn lint_config(dir: &Dir, server_args: &[&str], extra: &str, cases: &str) {
    api_config(dir, "anthropic", server_args, extra, cases);
}

/// `toolproof lint -c toolproof.yaml` with every report, no key in the environment.
fn lint_in(dir: &Dir, extra: &[&str], env: &[(&str, &str)]) -> (Out, Value) {
    let mut args = vec![
        "lint",
        "-c",
        "toolproof.yaml",
        "--json",
        "r.json",
        "--junit",
        "j.xml",
        "--junit-file-attrs",
        "--summary",
        "s.md",
        "--html",
        "r.html",
    ];
    args.extend_from_slice(extra);
    let mut all_env = vec![("ANTHROPIC_API_KEY", ""), ("OPENAI_API_KEY", "")];
    all_env.extend_from_slice(env);
    let out = toolproof_in(&dir.0, &args, &all_env);
    let report =
        serde_json::from_str(&std::fs::read_to_string(dir.path("r.json")).unwrap_or_default())
            .unwrap_or(Value::Null);
    (out, report)
}

fn lint_ids(report: &Value) -> Vec<String> {
    report["phases"]["lint"]["results"]["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .filter_map(|x| x["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn finding<'r>(report: &'r Value, id: &str) -> &'r Value {
    report["phases"]["lint"]["results"]["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|x| x["id"] == id))
        .unwrap_or_else(|| panic!("no {id} finding: {report:#}"))
}

#[test]
fn lint_of_a_clean_set_passes_with_no_finding_and_no_key() {
    let dir = Dir::new("lint-clean");
    lint_config(&dir, &[], "", CLEAN);
    let (out, report) = lint_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["command"], "lint");
    let lint = &report["phases"]["lint"];
    assert_eq!(lint["status"], "passed", "{lint:#}");
    assert_eq!(lint["results"]["findings"], serde_json::json!([]));
    assert_eq!(lint["results"]["cases"], 7);
    // Nothing else runs, and no model was asked.
    for phase in ["checks", "tests", "evals", "bench", "fuzz", "protocol"] {
        assert_eq!(report["phases"][phase]["status"], "skipped", "{phase}");
    }
    let coverage = &lint["results"]["coverage"];
    assert_eq!(coverage["tools"].as_array().map(Vec::len), Some(5));
    assert_eq!(coverage["ambiguous"], serde_json::json!(["vague"]));
    assert!(out.stdout.contains("Set lint: PASS"), "{out:?}");
    // The coverage table is in the summary and the HTML report.
    let md = dir.read("s.md");
    assert!(
        md.contains("Eval set coverage: 5 of 5 tools have cases"),
        "{md}"
    );
    assert!(
        md.contains("| ✅ | (no tool) | 2 | thanks, vague (ambiguous) |"),
        "{md}"
    );
    let html = dir.read("r.html");
    assert!(html.contains("<h3 id=\"coverage\">Coverage</h3>"), "{html}");
}

/// One defect of each kind the rules look for, each planted where its line is known.
const DEFECTS: &str = r#"    - name: typo
      prompt: 'say hi'
      expect_tool: ehco
      why: a misspelt tool
    - name: wrong key
      prompt: 'repeat hello'
      expect_tool: echo
      expect_args: {txt: hello}
      why: a misspelt argument
    - name: negative wait
      prompt: 'wait a little'
      expect_tool: slow
      expect_args: {ms: -5}
      why: a value the schema rejects
    - name: thanks
      prompt: 'thanks'
      expect_tool: null
      expect_args: {text: x}
    - name: weather
      prompt: 'Is it windy in Oslo?'
      expect_tool: get_weather
      why: only one side of a similar pair
"#;

#[test]
fn lint_reports_planted_defects_with_their_lines_in_every_format_and_fails() {
    let dir = Dir::new("lint-defects");
    lint_config(&dir, &["--fault", "similar-tools"], "", DEFECTS);
    let (out, report) = lint_in(&dir, &[], &[("GITHUB_ACTIONS", "true")]);
    assert_eq!(out.code, 1, "{out:?}");
    let ids = lint_ids(&report);
    for id in [
        "unknown-tool",
        "unknown-arg",
        "invalid-arg",
        "args-on-no-tool",
        "uncovered-tool",
        "no-contrast",
        "no-ambiguous-cases",
        "missing-why",
    ] {
        assert!(ids.iter().any(|i| i == id), "{id} missing in {ids:?}");
    }
    // The config: server at 1-2, `evals:` at 3, provider and model, `cases:` at 6, the first
    // case at line 7.
    let typo = finding(&report, "unknown-tool");
    assert_eq!(typo["line"], 7);
    assert_eq!(typo["severity"], "error");
    assert_eq!(typo["fails"], true);
    assert_eq!(typo["hint"], "did you mean `echo`?");
    assert!(
        typo["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("case \"typo\" (toolproof.yaml:7): expect_tool `ehco`")),
        "{typo:#}"
    );
    assert_eq!(finding(&report, "unknown-arg")["line"], 11);
    assert_eq!(finding(&report, "unknown-arg")["severity"], "error");
    assert_eq!(finding(&report, "invalid-arg")["line"], 16);
    let pair = finding(&report, "no-contrast");
    assert_eq!(pair["tool"], "get_weather + fetch_weather");
    assert_eq!(pair["severity"], "warning");
    assert_eq!(report["phases"]["lint"]["status"], "failed");
    // Annotations point at the case's line.
    assert!(
        out.stdout.contains(
            "::error file=toolproof.yaml,line=7,title=toolproof lint unknown-tool::case \"typo\""
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("::warning file=toolproof.yaml,line=3,title=toolproof lint no-contrast::"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("lint missing-why"),
        "infos are not annotated"
    );
    // JUnit: the failing finding is a failure with the case's place.
    let junit = dir.read("j.xml");
    assert!(
        junit.contains(
            "<testcase classname=\"toolproof.lint.unknown-tool\" name=\"unknown-tool: typo\""
        ) && junit.contains("file=\"toolproof.yaml\" line=\"7\""),
        "{junit}"
    );
    assert!(
        junit.contains("<failure message=\"case &quot;typo&quot;"),
        "{junit}"
    );
    // Markdown and HTML list the findings and the coverage.
    let md = dir.read("s.md");
    assert!(
        md.contains("| ❌ | unknown-tool | toolproof.yaml:7 |"),
        "{md}"
    );
    assert!(md.contains("Contrastive pairs: 0 of 1 contrasted"), "{md}");
    let html = dir.read("r.html");
    assert!(
        html.contains("<section id=\"lint\" data-status=\"failed\">"),
        "{html}"
    );
    assert!(html.contains("data-status=\"uncovered\""), "{html}");
}

#[test]
fn warnings_fail_only_under_strict_from_the_flag_the_variable_or_the_yaml() {
    let dir = Dir::new("lint-strict");
    // A warning (`uncovered-tool`: nothing expects `crash`) and nothing worse.
    let cases: String = CLEAN
        .split("    - name: ")
        .filter(|c| !c.is_empty() && !c.starts_with("stop the server"))
        .map(|c| format!("    - name: {c}"))
        .collect();
    lint_config(&dir, &[], "", &cases);
    let (out, report) = lint_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(lint_ids(&report), ["uncovered-tool"]);
    let (out, _) = lint_in(&dir, &["--strict"], &[]);
    assert_eq!(out.code, 1, "--strict: {out:?}");
    let (out, report) = lint_in(&dir, &[], &[("TOOLPROOF_LINT_STRICT", "1")]);
    assert_eq!(out.code, 1, "the variable: {out:?}");
    assert_eq!(report["phases"]["lint"]["results"]["strict"], true);
    lint_config(&dir, &[], "  lint: {strict: true}\n", &cases);
    let (out, _) = lint_in(&dir, &[], &[]);
    assert_eq!(out.code, 1, "the YAML: {out:?}");
    let (out, _) = lint_in(&dir, &["--no-strict"], &[("TOOLPROOF_LINT_STRICT", "1")]);
    assert_eq!(out.code, 0, "--no-strict beats both: {out:?}");
    // A disabled rule says nothing.
    lint_config(
        &dir,
        &[],
        "  lint: {strict: true, disable: [uncovered-tool]}\n",
        &cases,
    );
    let (out, report) = lint_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(lint_ids(&report), Vec::<String>::new());
    assert_eq!(
        report["phases"]["lint"]["results"]["disabled"],
        serde_json::json!(["uncovered-tool"])
    );
}

#[test]
fn bad_lint_config_and_a_set_without_cases_are_usage_errors() {
    let dir = Dir::new("lint-usage");
    lint_config(&dir, &[], "  lint: {disable: [uncovered-tools]}\n", CLEAN);
    let (out, _) = lint_in(&dir, &[], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("toolproof.yaml:6:")
            && out.stderr.contains(
                "unknown lint rule `uncovered-tools` in evals.lint.disable, did you mean `uncovered-tool`?"
            ),
        "{out:?}"
    );
    dir.write(
        "toolproof.yaml",
        &format!("server:\n  command: {}\n", yaml_list(&[&fake()])),
    );
    let (out, _) = lint_in(&dir, &[], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("error: no eval cases"), "{out:?}");
}

#[test]
fn run_lints_the_cases_after_the_evals_and_fails_on_a_lint_error() {
    let dir = Dir::new("lint-run");
    // The picker answers the typo'd case with the typo: the evals pass, the lint does not.
    let cases = format!(
        "{CLEAN}    - name: typo\n      prompt: 'echo this [[call ehco]]'\n      expect_tool: ehco\n      why: a misspelt tool\n"
    );
    command_config(&dir, "", &cases);
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["run", "--json", "r.json", "--junit", "j.xml"];
        args.extend_from_slice(extra);
        let out = toolproof_in(&dir.0, &args, env);
        (out, dir.json("r.json"))
    };
    let (out, report) = run(&[], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(report["phases"]["evals"]["status"], "passed", "{out:?}");
    assert_eq!(report["phases"]["lint"]["status"], "failed");
    assert_eq!(lint_ids(&report), ["unknown-tool"]);
    assert!(
        out.stdout
            .contains("Set lint: FAIL - 1 error, 0 warnings, 0 infos in 8 cases"),
        "{out:?}"
    );
    assert!(dir.read("j.xml").contains("toolproof.lint.unknown-tool"));
    // Turned off: the reference's verdict.
    for (extra, env) in [
        (&["--skip-lint"][..], &[][..]),
        (&[][..], &[("TOOLPROOF_SKIP_LINT", "1")][..]),
    ] {
        let (out, report) = run(extra, env);
        assert_eq!(out.code, 0, "{extra:?} {env:?}: {out:?}");
        assert_eq!(report["phases"]["lint"]["status"], "skipped");
    }
    command_config(&dir, "  lint: {enabled: false}\n", &cases);
    let (out, report) = run(&[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        report["phases"]["lint"]["reason"],
        "turned off with evals.lint.enabled: false"
    );
    let (out, _) = run(&["--no-skip-lint"], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    // `--skip-evals` leaves the lint on: it asks no model.
    command_config(&dir, "", &cases);
    let (out, report) = run(&["--skip-evals"], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(report["phases"]["evals"]["status"], "skipped");
    assert_eq!(report["phases"]["lint"]["status"], "failed");
}

#[test]
fn eval_lints_its_cases_too() {
    let dir = Dir::new("lint-eval");
    command_config(&dir, "", CLEAN);
    let (out, report) = eval_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["phases"]["lint"]["status"], "passed");
    assert_eq!(report["phases"]["checks"]["status"], "skipped");
    assert!(
        dir.read("s.md")
            .contains("| Set lint | ✅ 0 errors, 0 warnings, 0 infos in 7 cases |")
    );
}

#[test]
fn a_critical_case_that_flipped_in_this_run_is_flagged() {
    let dir = Dir::new("lint-flip");
    let state = dir.path("state");
    std::fs::create_dir_all(&state).expect("state dir");
    let cases = format!(
        "{CLEAN}    - name: refund\n      prompt: 'money back [[flip echo {{\"text\": \"x\"}}]]'\n      expect_tool: echo\n      critical: true\n      trials: 2\n      why: spends money\n"
    );
    // One request at a time, so the picker's odd/even count is the trial order.
    command_config(&dir, "  concurrency: 1\n  min_accuracy: 0\n", &cases);
    let state_s = state.display().to_string();
    let (out, report) = eval_in(&dir, &[], &[("PICKER_STATE", &state_s)]);
    assert_eq!(out.code, 1, "the critical gate fails: {out:?}");
    let flip = finding(&report, "flipped-critical");
    let line = dir
        .read("toolproof.yaml")
        .lines()
        .position(|l| l.contains("- name: refund"))
        .map(|i| i + 1);
    assert_eq!(flip["line"].as_u64(), line.map(|l| l as u64));
    assert!(
        flip["message"]
            .as_str()
            .is_some_and(|m| m.contains("was right on 1 of 2 trials")),
        "{flip:#}"
    );
}

#[test]
fn lint_reads_flips_from_the_answer_cache_and_says_when_it_cannot() {
    let dir = Dir::new("lint-cache-flip");
    let server = llm(&[]);
    let cases = format!(
        "{CLEAN}    - name: refund\n      prompt: 'money back [[call echo {{\"text\": \"x\"}}]]'\n      expect_tool: echo\n      critical: true\n      trials: 3\n      why: spends money\n"
    );
    lint_config(&dir, &[], "", &cases);
    let openai = format!("{}/v1", server.url);
    let (out, _) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    // Steady in the cache: nothing to say, and nothing left unchecked.
    let (out, report) = lint_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        report["phases"]["lint"]["results"]["not_checked"],
        serde_json::json!([])
    );
    // Plant a flip: the second trial's answer becomes `add`.
    let audit = toolproof_in(
        &dir.0,
        &["cache", "status", "-c", "toolproof.yaml"],
        &[("ANTHROPIC_API_KEY", "")],
    );
    assert_eq!(audit.code, 0, "{audit:?}");
    let prefix = audit
        .stdout
        .lines()
        .find(|l| l.ends_with("refund (trial 2)"))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or_else(|| panic!("no key for trial 2: {}", audit.stdout))
        .to_owned();
    let entry = std::fs::read_dir(dir.path(".toolproof-cache/evals"))
        .expect("cache folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .expect("the trial's cache file");
    let text = std::fs::read_to_string(&entry).expect("cache entry");
    std::fs::write(
        &entry,
        text.replace("\"tool\": \"echo\"", "\"tool\": \"add\""),
    )
    .expect("plant");
    let (out, report) = lint_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "a flip is a warning: {out:?}");
    let flip = finding(&report, "flipped-critical");
    assert!(
        flip["message"]
            .as_str()
            .is_some_and(|m| m.contains("right on 2 of 3 trials of fake-model-1")),
        "{flip:#}"
    );
    // Without every trial's answer the case is not checked, and the report says so.
    std::fs::remove_file(&entry).expect("remove");
    let (_, report) = lint_in(&dir, &[], &[]);
    assert!(!lint_ids(&report).contains(&"flipped-critical".to_owned()));
    let not_checked = &report["phases"]["lint"]["results"]["not_checked"][0];
    assert_eq!(not_checked["id"], "flipped-critical");
    assert!(
        not_checked["reason"]
            .as_str()
            .is_some_and(|r| r.contains("lacks trials of the critical case refund")),
        "{not_checked:#}"
    );
}

#[test]
fn the_history_names_renamed_tools_and_confused_pairs_and_old_lines_still_read() {
    let dir = Dir::new("lint-history");
    let cases = format!(
        "{CLEAN}    - name: old name\n      prompt: 'say it [[call echo {{\"text\": \"x\"}}]]'\n      expect_tool: repeat\n      why: written before the rename\n"
    );
    command_config(&dir, "", &cases);
    // A line of an older toolproof (no tool list) and the last run, which listed `repeat` and
    // saw the model take `add` for `fail`.
    let old = r#"{"time":"2026-11-01T10:00:00Z","provider":"command","model":"","cases":1,"correct":1,"miss_rate":0.0}"#;
    let last = r#"{"time":"2026-11-30T10:00:00Z","provider":"command","model":"","cases":8,"correct":7,"miss_rate":0.125,"tools":["repeat","add","fail","slow","crash"],"confusion":[{"expected":"fail","picked":"add","count":1}]}"#;
    dir.write("history.jsonl", &format!("{old}\n{last}\n"));
    let (out, report) = lint_in(&dir, &["--history", "history.jsonl"], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let renamed = finding(&report, "unknown-tool");
    assert!(
        renamed["hint"].as_str().is_some_and(|h| h.contains(
            "was a tool in the last recorded run (2026-11-30T10:00:00Z): was it renamed or split?"
        )),
        "{renamed:#}"
    );
    let pairs = &report["phases"]["lint"]["results"]["coverage"]["pairs"];
    assert_eq!(
        pairs[0]["why"], "confused in the last run (2026-11-30T10:00:00Z)",
        "{pairs:#}"
    );
    assert_eq!(pairs[0]["contrasted"], true);
    // `lint` reads the history and writes nothing to it.
    assert_eq!(dir.read("history.jsonl").lines().count(), 2);
    // `run --history` records the tool list and the confusion pairs for the next lint.
    let (out, _) = eval_in(&dir, &["--history", "history.jsonl"], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let text = dir.read("history.jsonl");
    let line: Value =
        serde_json::from_str(text.lines().last().unwrap_or_default()).expect("a line");
    assert_eq!(
        line["tools"],
        serde_json::json!(["echo", "add", "fail", "slow", "crash"])
    );
    assert_eq!(
        line["confusion"],
        serde_json::json!([{"expected": "repeat", "picked": "echo", "count": 1}]),
        "{line:#}"
    );
}

#[test]
fn lint_through_the_http_transport_too() {
    let dir = Dir::new("lint-http");
    let server = http_fake(&[]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  url: {}\nevals:\n  provider: command\n  command: [{}]\n  cases:\n{CLEAN}",
            server.url,
            picker()
        ),
    );
    let (out, report) = lint_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["server"]["transport"], "http");
    assert_eq!(report["phases"]["lint"]["status"], "passed");
}
