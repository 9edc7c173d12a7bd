//! The verdicts against a base run, and the base's sources.

use super::*;

use crate::outcome::{CaseStatus, EvalCaseResult, TrialResult};

fn model(name: &str, rows: &[(&str, u32, u32)]) -> ModelEval {
    let cases: Vec<EvalCaseResult> = rows
        .iter()
        .map(|(case, correct, trials)| EvalCaseResult {
            name: (*case).into(),
            prompt: (*case).into(),
            why: None,
            critical: false,
            line: None,
            file: None,
            expect_tool: None,
            expect_args: serde_json::Value::Null,
            context: Vec::new(),
            status: if correct == trials {
                CaseStatus::Correct
            } else {
                CaseStatus::Miss
            },
            pass_rate: f64::from(*correct) / f64::from(*trials),
            ambiguous: false,
            trials: (0..*trials)
                .map(|i| TrialResult {
                    passed: i < *correct,
                    kind: crate::outcome::AnswerKind::NoTool,
                    calls: Vec::new(),
                    text: None,
                    failures: Vec::new(),
                    cached: false,
                    provider_error: None,
                    latency_ms: 0.0,
                    notes: Vec::new(),
                })
                .collect(),
        })
        .collect();
    ModelEval {
        model: name.into(),
        total: cases.len(),
        trials: rows.iter().map(|r| r.2).max().unwrap_or(0),
        cases,
        ..ModelEval::default()
    }
}

fn print() -> Fingerprint {
    Fingerprint {
        provider: "openai".into(),
        endpoint: "default".into(),
        temperature: Some(0.0),
        tools: "aaaa".into(),
        trials: "5".into(),
        ..Fingerprint::default()
    }
}

fn settings() -> CompareSettings {
    CompareSettings {
        to: None,
        alpha: 0.05,
        min_effect: 0.02,
        on_regression: ComparePolicy::Fail,
        on_inconclusive: ComparePolicy::Warn,
    }
}

fn base_of(m: &ModelEval, fp: Fingerprint) -> Base {
    Ok(vec![BaseModel {
        provider: "openai".into(),
        model: m.model.clone(),
        fingerprint: Some(fp),
        rows: rows(m),
        base: BaseRef {
            git_ref: "main".into(),
            ..BaseRef::default()
        },
        tool_digests: BTreeMap::new(),
    }])
}

/// 40 rows right on all 5 trials, and 10 at 3 of 5.
fn steady(broken: usize) -> Vec<(String, u32, u32)> {
    (0..50)
        .map(|i| {
            let correct = if i < broken {
                1
            } else if i >= 40 {
                3
            } else {
                5
            };
            (format!("row-{i}"), correct, 5)
        })
        .collect()
}

fn eval_of(name: &str, rows: &[(String, u32, u32)]) -> ModelEval {
    let borrowed: Vec<(&str, u32, u32)> =
        rows.iter().map(|(n, c, t)| (n.as_str(), *c, *t)).collect();
    model(name, &borrowed)
}

#[test]
fn broken_rows_regress_and_fail_the_model_while_the_same_rows_do_not() {
    let then = eval_of("m", &steady(0));
    let base = base_of(&then, print());
    let mut now_print = print();
    now_print.tools = "bbbb".into();
    let c = judge(
        &eval_of("m", &steady(8)),
        "openai",
        &now_print,
        &base,
        &settings(),
    );
    assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
    assert_eq!(c.flipped_worse().count(), 8);
    assert!(c.p_value.is_some_and(|p| p < 0.001), "{c:?}");
    assert!(c.headline().starts_with("regressed: "), "{}", c.headline());
    let same = judge(&then, "openai", &now_print, &base, &settings());
    assert!(
        matches!(same.verdict, Verdict::NoChange | Verdict::Inconclusive),
        "{same:?}"
    );
    // Through `apply`: the comparison gate fails the model, or only warns.
    let mut results = EvalsResults {
        provider: "openai".into(),
        models: vec![eval_of("m", &steady(8))],
        fingerprint: Some(now_print),
        ..EvalsResults::default()
    };
    results.models[0].passed = true;
    let mut warn = results.clone();
    apply(&mut results, &base, &settings());
    let gate = results.models[0].gates.last().cloned();
    assert!(gate.is_some_and(|g| g.kind == GateKind::Comparison && !g.passed));
    assert!(!results.models[0].passed);
    let lenient = CompareSettings {
        on_regression: ComparePolicy::Warn,
        ..settings()
    };
    apply(&mut warn, &base, &lenient);
    assert!(warn.models[0].passed);
}

#[test]
fn runs_that_measured_something_else_are_not_compared() {
    let then = eval_of("m", &steady(0));
    let base = base_of(&then, print());
    let mut hot = print();
    hot.temperature = Some(0.7);
    hot.trials = "3".into();
    let c = judge(&then, "openai", &hot, &base, &settings());
    assert_eq!(c.verdict, Verdict::NotComparable);
    let reason = c.reason.unwrap_or_default();
    assert!(reason.contains("temperature 0.0 → 0.7"), "{reason}");
    assert!(reason.contains("trials 5 → 3"), "{reason}");
    let other = judge(
        &eval_of("n", &steady(0)),
        "openai",
        &print(),
        &base,
        &settings(),
    );
    assert_eq!(other.verdict, Verdict::NotComparable);
    assert!(other.reason.is_some_and(|r| r.contains("model m → n")));
}

#[test]
fn added_and_removed_rows_are_listed_not_tested() {
    let then = model("m", &[("a", 1, 1), ("b", 1, 1)]);
    let now = model("m", &[("b", 1, 1), ("c", 0, 1)]);
    let c = judge(
        &now,
        "openai",
        &print(),
        &base_of(&then, print()),
        &settings(),
    );
    assert_eq!(c.added, vec!["c"]);
    assert_eq!(c.removed, vec!["a"]);
    assert_eq!(c.rows.len(), 1);
}

#[test]
fn a_branch_without_lines_or_with_old_lines_is_no_base() {
    let old = Entry {
        time: "t".into(),
        git_ref: Some("main".into()),
        provider: "openai".into(),
        model: "m".into(),
        cases: 2,
        ..Entry::default()
    };
    let dir = Path::new(".");
    let got = base(
        &Source::Branch("main".into()),
        std::slice::from_ref(&old),
        dir,
    );
    assert!(got.is_err_and(|e| e.contains("predate per-row outcomes")));
    let got = base(&Source::Branch("release".into()), &[old], dir);
    assert!(got.is_err_and(|e| e.contains("no eval run of `release`")));
    let unsought = source(&settings(), None, true);
    assert_eq!(unsought, None, "no base asked for: no comparison at all");
    let file = CompareSettings {
        to: Some("base.json".into()),
        ..settings()
    };
    assert_eq!(
        source(&file, Some("main"), true),
        Some(Source::Report("base.json".into()))
    );
}

#[test]
fn credentials_and_queries_leave_the_endpoint() {
    assert_eq!(
        without_credentials("https://user:pw@api.example.com/v1/?key=s"),
        "https://api.example.com/v1"
    );
    assert_eq!(
        without_credentials("http://127.0.0.1:9"),
        "http://127.0.0.1:9"
    );
}

#[test]
fn a_report_without_eval_results_is_no_base() {
    let dir = std::env::temp_dir().join(format!("toolproof-verdict-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("nope.json"), "{}");
    let got = base(&Source::Report("nope.json".into()), &[], &dir);
    assert!(got.is_err_and(|e| e.contains("no eval results")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_history_line_s_tool_digests_name_the_tools_changed_since() {
    let digests = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    let line = |kept: Option<BTreeMap<String, String>>| Entry {
        time: "t".into(),
        git_ref: Some("main".into()),
        provider: "openai".into(),
        model: "m".into(),
        cases: 1,
        rows: Some([("a".to_owned(), [1, 1])].into()),
        tool_digests: kept,
        ..Entry::default()
    };
    let now = digests(&[("echo", "1"), ("add", "2"), ("new", "3")]);
    let kept = line(Some(digests(&[("echo", "1"), ("add", "9"), ("gone", "4")])));
    let got = base(&Source::Branch("main".into()), &[kept], Path::new("."));
    let models = got.unwrap_or_default();
    assert_eq!(models.len(), 1);
    let mut changed: Vec<String> = models[0].changed_tools(&now).into_iter().collect();
    changed.sort();
    assert_eq!(changed, ["add", "new"]);
    // A line written before digests were kept knows of no change.
    let old = base(
        &Source::Branch("main".into()),
        &[line(None)],
        Path::new("."),
    );
    assert!(old.unwrap_or_default()[0].changed_tools(&now).is_empty());
}

#[test]
fn an_inconclusive_set_is_told_how_many_rows_or_trials_would_do_and_their_cost() {
    let then = eval_of("m", &steady(0));
    let base = base_of(&then, print());
    let mut now = eval_of("m", &steady(0));
    now.cost = Some(crate::outcome::cost::ModelCost {
        requests: 15,
        cost_usd: Some(0.03),
        ..Default::default()
    });
    let c = judge(&now, "openai", &print(), &base, &settings());
    assert_eq!(c.verdict, Verdict::Inconclusive, "{c:?}");
    let reason = c.reason.unwrap_or_default();
    assert!(
        reason.contains("not the 2% of evals.compare.min_effect; to detect a drop of 2%: "),
        "{reason}"
    );
    // Priced at this run's cost of a request ($0.002).
    assert!(reason.contains(" requests, about $"), "{reason}");
}
