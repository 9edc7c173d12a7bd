//! The comparison with the base run, through the binary: a model of known per-row rates (the
//! command provider running `fake_picker rates`) answers a base run, then a head that broke rows that
//! were always right, an unchanged head, another model; the base comes from the history file
//! (the pull request's base branch, `--compare-to REF`) or from a JSON report.

use super::*;

fn rates() -> String {
    crate::fake("fake_picker")
}

/// 16 rows: 10 always right (the first 6 drop to 0.2 when broken), 3 right at 0.5, 3 always
/// wrong; 2 trials a row.
fn config(dir: &Dir, model: &str) {
    let mut cases = String::new();
    let mut row = |name: String, rate: f64, broken: Option<f64>| {
        let broken = broken.map_or(String::new(), |b| format!(" [[broken {b}]]"));
        cases.push_str(&format!(
            "    - name: {name}\n      prompt: 'ask {name} [[rate {rate} echo]]{broken}'\n      expect_tool: echo\n      why: row {name} of the set\n"
        ));
    };
    for i in 0..10 {
        row(format!("steady-{i}"), 1.0, (i < 6).then_some(0.2));
    }
    for i in 0..3 {
        row(format!("coin-{i}"), 0.5, None);
    }
    for i in 0..3 {
        row(format!("never-{i}"), 0.0, None);
    }
    let server = yaml_list(&[&fake()]);
    let command = yaml_list(&[&rates(), "rates"]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: command\n  command: {command}\n  model: {model}\n  trials: 2\n  concurrency: 8\n  min_accuracy: 0.2\n  cases:\n{cases}"
        ),
    );
}

/// `eval` with reports; `env` on top of a fresh answer state and the seed.
fn eval(dir: &Dir, seed: &str, extra: &[&str], env: &[(&str, &str)]) -> (Out, Value) {
    let state = dir.path(&format!("state-{seed}"));
    std::fs::create_dir_all(&state).expect("state dir");
    let state = state.display().to_string();
    let mut all: Vec<(&str, &str)> = vec![("RATES_STATE", &state), ("RATES_SEED", seed)];
    all.extend_from_slice(env);
    let mut args = vec!["--pr-comment-file", "pr.md"];
    args.extend_from_slice(extra);
    super::evals::eval_in(dir, &args, &all)
}

fn comparison(report: &Value) -> &Value {
    &report["phases"]["evals"]["results"]["models"][0]["comparison"]
}

/// The base run on `main`, recorded in `h.jsonl`.
fn base_on_main(dir: &Dir) {
    let (out, report) = eval(
        dir,
        "base",
        &["--history", "h.jsonl"],
        &[("GITHUB_REF_NAME", "main"), ("GITHUB_SHA", "aaaa1111")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        comparison(&report).is_null(),
        "no base was asked for: {report:#}"
    );
}

#[test]
fn a_head_that_broke_rows_regresses_against_the_pull_requests_base_branch() {
    let dir = Dir::new("compare-regressed");
    config(&dir, "m");
    base_on_main(&dir);
    let line: Value = serde_json::from_str(
        std::fs::read_to_string(dir.path("h.jsonl"))
            .unwrap_or_default()
            .lines()
            .next()
            .unwrap_or(""),
    )
    .unwrap_or(Value::Null);
    assert_eq!(
        line["rows"]["steady-0"],
        serde_json::json!([2, 2]),
        "{line}"
    );
    assert_eq!(line["fingerprint"]["trials"], "2", "{line}");
    let (out, report) = eval(
        &dir,
        "head",
        &["--history", "h.jsonl"],
        &[
            ("RATES_BROKEN", "1"),
            ("GITHUB_BASE_REF", "main"),
            ("GITHUB_HEAD_REF", "feature"),
            ("GITHUB_SHA", "bbbb2222"),
        ],
    );
    assert_eq!(out.code, 1, "{out:?}");
    let c = comparison(&report);
    assert_eq!(c["verdict"], "regressed", "{c:#}");
    assert_eq!(c["base"]["ref"], "main");
    assert_eq!(c["base"]["commit"], "aaaa1111");
    assert!(c["p_value"].as_f64().is_some_and(|p| p < 0.05), "{c:#}");
    let after = c["accuracy_after"].as_f64().unwrap_or(1.0);
    let before = c["accuracy_before"].as_f64().unwrap_or(0.0);
    assert!(before - after >= 0.02, "{c:#}");
    let flipped: Vec<&str> = c["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["before"][0] == r["before"][1] && r["after"][0] != r["after"][1])
        .filter_map(|r| r["case"].as_str())
        .collect();
    // Every broken row that missed now is named; the rows left alone never flip.
    let cases = report["phases"]["evals"]["results"]["models"][0]["cases"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for case in &cases[..6] {
        let name = case["name"].as_str().unwrap_or("");
        assert_eq!(
            case["pass_rate"] != 1.0,
            flipped.contains(&name),
            "{name}: {c:#}"
        );
    }
    assert!(flipped.len() >= 3, "{flipped:?}");
    assert!(
        !flipped
            .iter()
            .any(|f| ["steady-6", "steady-7", "steady-8", "steady-9"].contains(f)),
        "{flipped:?}"
    );
    // Every report says it, naming the flipped rows with their `why`.
    let pr = std::fs::read_to_string(dir.path("pr.md")).unwrap_or_default();
    let first = "Selection regressed on m: ";
    assert!(pr.contains(first), "{pr}");
    for f in &flipped {
        assert!(pr.contains(f), "{f} missing from {pr}");
    }
    assert!(
        pr.contains("row steady-0 of the set") || !flipped.contains(&"steady-0"),
        "{pr}"
    );
    let summary = std::fs::read_to_string(dir.path("s.md")).unwrap_or_default();
    assert!(summary.contains(first), "{summary}");
    let junit = std::fs::read_to_string(dir.path("j.xml")).unwrap_or_default();
    assert!(junit.contains("regressed: "), "{junit}");
    assert!(out.stdout.contains("regressed"), "{out:?}");
}

#[test]
fn an_unchanged_head_is_never_a_regression_and_warn_keeps_the_exit_code() {
    let dir = Dir::new("compare-same");
    config(&dir, "m");
    base_on_main(&dir);
    let (out, report) = eval(
        &dir,
        "same-rates",
        &["--history", "h.jsonl", "--compare-to", "main"],
        &[("GITHUB_REF_NAME", "feature")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let verdict = comparison(&report)["verdict"].as_str().unwrap_or("");
    assert!(
        verdict == "no_change" || verdict == "inconclusive",
        "{verdict}: {:#}",
        comparison(&report)
    );
    // A broken head under `on_regression: warn` still says so, and passes.
    let (out, report) = eval(
        &dir,
        "warned",
        &[
            "--history",
            "h.jsonl",
            "--compare-to",
            "main",
            "--on-regression",
            "warn",
        ],
        &[("GITHUB_REF_NAME", "feature"), ("RATES_BROKEN", "1")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(comparison(&report)["verdict"], "regressed");
}

#[test]
fn another_model_is_not_comparable_and_says_what_differs() {
    let dir = Dir::new("compare-model");
    config(&dir, "m");
    base_on_main(&dir);
    config(&dir, "other");
    let (out, report) = eval(
        &dir,
        "head",
        &["--history", "h.jsonl"],
        &[
            ("TOOLPROOF_COMPARE_TO", "main"),
            ("GITHUB_REF_NAME", "feature"),
        ],
    );
    let c = comparison(&report);
    assert_eq!(c["verdict"], "not_comparable", "{c:#}");
    assert!(
        c["reason"]
            .as_str()
            .is_some_and(|r| r.contains("model m → other")),
        "{c:#}"
    );
    assert_eq!(out.code, 0, "not comparable gates as today: {out:?}");
}

#[test]
fn a_base_runs_json_report_is_a_base_and_no_base_is_said_once() {
    let dir = Dir::new("compare-file");
    config(&dir, "m");
    let (out, report) = eval(&dir, "base", &["--compare-to", "main"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(comparison(&report)["verdict"], "no_base", "{report:#}");
    let said = out.stdout.to_lowercase().matches("no base run").count();
    assert_eq!(said, 1, "{out:?}");
    std::fs::rename(dir.path("r.json"), dir.path("base.json")).expect("keep the base report");
    let (out, report) = eval(
        &dir,
        "head",
        &["--compare-to", "base.json"],
        &[("RATES_BROKEN", "1")],
    );
    assert_eq!(out.code, 1, "{out:?}");
    let c = comparison(&report);
    assert_eq!(c["verdict"], "regressed", "{c:#}");
    assert_eq!(c["base"]["ref"], "base.json");
    assert_eq!(c["rows"].as_array().map(Vec::len), Some(16));
}
