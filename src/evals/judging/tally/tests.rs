//! Tests of scoring: statuses, counts, gates and their wording, confusion pairs, verdicts.

use serde_json::json;

use super::trials::kind_of;
use super::verdict::model_verdict;
use super::*;
use crate::evals::{Call, Choice, Stop};
use crate::outcome::{CaseStatus, GateKind, PhaseStatus};

fn pick(tool: &str) -> Choice {
    Choice {
        calls: vec![Call {
            tool: tool.into(),
            args: json!({}),
            malformed: None,
        }],
        text: String::new(),
        stop: Stop::ToolUse,
    }
}

/// A trial that picked `tool`, right when it is `expected`.
fn trial(expected: &str, tool: &str) -> TrialResult {
    let failures = if tool == expected {
        Vec::new()
    } else {
        vec![format!("expected {expected}, got {tool}")]
    };
    let judged = crate::evals::judging::grade::Judged {
        failures,
        notes: Vec::new(),
    };
    answered(&pick(tool), judged, false, 10.0)
}

fn case(name: &str, expected: &str, trials: Vec<TrialResult>) -> LabelledCase {
    LabelledCase {
        name: name.into(),
        prompt: format!("prompt of {name}"),
        why: None,
        critical: false,
        line: None,
        file: None,
        expect_tool: Some(expected.into()),
        expect_args: json!({}),
        trials,
    }
}

fn critical(mut c: LabelledCase) -> LabelledCase {
    c.critical = true;
    c
}

fn rules(min_accuracy: f64) -> Rules {
    Rules {
        min_accuracy,
        min_wilson_lower: None,
        offline: false,
        trials: 1,
    }
}

fn gate(m: &ModelEval, kind: GateKind) -> &crate::outcome::Gate {
    match m.gates.iter().find(|g| g.kind == kind) {
        Some(g) => g,
        None => panic!("no {kind:?} gate in {:?}", m.gates),
    }
}

#[test]
fn statuses_follow_the_trials() {
    let m = score_model(
        "m",
        &rules(0.0),
        None,
        vec![
            case("right", "a", vec![trial("a", "a"), trial("a", "a")]),
            case("wrong once", "a", vec![trial("a", "a"), trial("a", "b")]),
            case(
                "broken",
                "a",
                vec![trial("a", "a"), provider_failed("503".into(), 1.0)],
            ),
            case("skipped", "a", vec![trial("a", "a"), not_asked()]),
        ],
    );
    let statuses: Vec<CaseStatus> = m.cases.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [
            CaseStatus::Correct,
            CaseStatus::Miss,
            CaseStatus::ProviderError,
            CaseStatus::NotRun
        ]
    );
    assert!(m.cases[1].ambiguous && !m.cases[0].ambiguous);
    assert_eq!(m.cases[1].pass_rate, 0.5);
    assert_eq!(
        (m.correct, m.total, m.provider_errors, m.trials),
        (1, 4, 1, 2)
    );
    assert_eq!(m.trial_accuracy, 5.0 / 8.0);
    assert!((m.wilson_lower - crate::evals::judging::stats::wilson_lower(5, 8)).abs() < 1e-12);
}

#[test]
fn confusion_pairs_count_wrong_picks_most_frequent_first() {
    let m = score_model(
        "m",
        &rules(0.0),
        None,
        vec![
            case("x", "a", vec![trial("a", "b")]),
            case("y", "a", vec![trial("a", "c"), trial("a", "c")]),
            case(
                "z",
                "a",
                vec![trial("a", "c"), provider_failed("503".into(), 1.0)],
            ),
        ],
    );
    let pairs: Vec<(String, String, usize, Vec<String>)> = m
        .confusion
        .iter()
        .map(|p| {
            (
                p.expected.clone(),
                p.picked.clone(),
                p.count,
                p.cases.clone(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("a".into(), "c".into(), 3, vec!["y".into(), "z".into()]),
            ("a".into(), "b".into(), 1, vec!["x".into()]),
        ]
    );
}

/// 26 of 29 is 89.7%: it fails a minimum of 90% and must never read as 90%.
#[test]
fn an_accuracy_just_below_the_minimum_reads_below_it() {
    let cases: Vec<LabelledCase> = (0..29)
        .map(|i| {
            let tool = if i < 26 { "a" } else { "b" };
            case(&format!("c{i}"), "a", vec![trial("a", tool)])
        })
        .collect();
    let m = score_model("m", &rules(0.9), None, cases);
    assert!(!m.passed);
    assert_eq!(
        gate(&m, GateKind::MinAccuracy).detail,
        "accuracy 89.7% (26/29) is below the minimum 90%"
    );
    assert_eq!(model_verdict(&m), "89.7% accuracy (26/29), minimum 90%");
}

#[test]
fn gates_are_checked_in_order_and_serialize_by_name() {
    let mut r = rules(0.5);
    r.min_wilson_lower = Some(0.99);
    let m = score_model(
        "m",
        &r,
        None,
        vec![critical(case("must", "a", vec![trial("a", "a")]))],
    );
    let kinds: Vec<GateKind> = m.gates.iter().map(|g| g.kind).collect();
    assert_eq!(
        kinds,
        [
            GateKind::MinAccuracy,
            GateKind::Critical,
            GateKind::MinWilsonLower
        ]
    );
    assert_eq!(
        gate(&m, GateKind::Critical).detail,
        "every critical case is right on every trial"
    );
    assert_eq!(
        gate(&m, GateKind::MinWilsonLower).detail,
        "Wilson 95% lower bound 20.7% (1/1 trials) is below the minimum 99%"
    );
    let json = serde_json::to_value(&m.gates).unwrap_or_default();
    assert_eq!(json[2]["name"], "min_wilson_lower");
    assert_eq!(json[0]["name"], "min_accuracy");
    assert_eq!(
        model_verdict(&m),
        "100% accuracy (1/1), minimum 50%; Wilson 95% lower bound 20.7% (1/1 trials) is below the minimum 99%"
    );
}

/// A missing key: nothing was asked, so nothing was missed, and the verdict says why once.
#[test]
fn an_unusable_provider_is_said_once_and_misses_nothing() {
    let error = "ANTHROPIC_API_KEY is not set\nhint: export it";
    let m = score_model(
        "m",
        &rules(0.9),
        Some(error.into()),
        vec![
            critical(case("refund", "a", vec![not_asked()])),
            case("lookup", "a", vec![trial("a", "a")]),
        ],
    );
    assert!(!m.passed);
    assert!(m.cases.iter().all(|c| c.status == CaseStatus::NotRun));
    assert!(m.critical_misses.is_empty(), "{:?}", m.critical_misses);
    assert_eq!(
        gate(&m, GateKind::Critical).detail,
        "1 critical case not run: refund"
    );
    assert!(
        m.gates.iter().all(|g| !g.detail.contains("missed")),
        "{:?}",
        m.gates
    );
    assert_eq!((m.correct, m.trial_accuracy, m.wilson_lower), (0, 0.0, 0.0));
    let phase = phase(
        crate::outcome::EvalsResults {
            models: vec![m],
            ..Default::default()
        },
        1.0,
    );
    assert_eq!(phase.status, PhaseStatus::Error);
    assert_eq!(
        phase.reason.as_deref(),
        Some("the provider could not be used: ANTHROPIC_API_KEY is not set")
    );
}

#[test]
fn offline_cases_without_an_answer_are_uncached_not_missed() {
    let mut r = rules(0.5);
    r.offline = true;
    let m = score_model(
        "m",
        &r,
        None,
        vec![
            case("cached", "a", vec![trial("a", "a")]),
            critical(case("new", "a", vec![not_asked()])),
        ],
    );
    assert_eq!(m.uncached, ["new"]);
    assert!(m.critical_misses.is_empty());
    assert_eq!(
        gate(&m, GateKind::Offline).detail,
        "1 case has no cached answer and --offline forbids asking: new"
    );
    assert_eq!(
        model_verdict(&m),
        "50% accuracy (1/2), minimum 50%; 1 case has no cached answer and --offline forbids asking: new; 1 critical case not run: new"
    );
}

#[test]
fn a_model_asked_nothing_has_no_accuracy_not_zero() {
    let mut r = rules(0.5);
    r.offline = true;
    let m = score_model(
        "m",
        &r,
        None,
        vec![
            case("one", "a", vec![not_asked()]),
            case("two", "b", vec![not_asked()]),
        ],
    );
    assert!(!m.passed);
    assert!(m.asked_nothing());
    assert_eq!(
        gate(&m, GateKind::MinAccuracy).detail,
        "accuracy not measured: no case was asked (minimum 50%)"
    );
    assert_eq!(
        model_verdict(&m),
        "2 cases have no cached answer and --offline forbids asking: one, two"
    );
}

#[test]
fn no_cases_fail_without_an_accuracy() {
    let m = score_model("m", &rules(0.9), None, Vec::new());
    assert!(!m.passed);
    assert_eq!(m.trials, 1);
    assert_eq!(model_verdict(&m), "there are no eval cases");
    assert_eq!(
        gate(&m, GateKind::MinAccuracy).detail,
        "accuracy not measured: there are no cases (minimum 90%)"
    );
}

/// A trial that got no answer: the API said 429 until the retries ran out.
fn busy() -> TrialResult {
    provider_failed(
        "anthropic returned 429 rate_limit_error: slow down (after 3 retries)".into(),
        5.0,
    )
}

#[test]
fn a_model_that_answered_no_case_fails_whatever_the_minimum() {
    let plain = score_model(
        "m",
        &rules(0.0),
        None,
        vec![case("x", "a", vec![busy(), busy()])],
    );
    assert!(!plain.passed, "{:?}", plain.gates);
    let m = score_model(
        "m",
        &rules(0.0),
        None,
        vec![
            case("x", "a", vec![busy(), busy()]),
            critical(case("y", "a", vec![busy()])),
        ],
    );
    assert!(!m.passed, "{:?}", m.gates);
    let said = "no case got an answer from the provider: 3 of 3 trials failed, the first with: \
                anthropic returned 429 rate_limit_error: slow down (after 3 retries)";
    assert_eq!(
        model_verdict(&m),
        format!("{said}; 1 critical case got no usable answer from the provider: y")
    );
    let phase = phase(
        crate::outcome::EvalsResults {
            models: vec![m],
            ..Default::default()
        },
        1.0,
    );
    assert_eq!(phase.status, PhaseStatus::Error);
}

#[test]
fn one_answered_case_is_enough_to_score_the_rest_as_provider_errors() {
    let m = score_model(
        "m",
        &rules(0.0),
        None,
        vec![
            case("x", "a", vec![busy()]),
            case("y", "a", vec![trial("a", "b")]),
        ],
    );
    assert!(m.passed, "{:?}", m.gates);
    assert_eq!(model_verdict(&m), "0% accuracy (0/2), minimum 0%");
}

#[test]
fn several_models_name_each_verdict() {
    let good = score_model(
        "m1",
        &rules(0.5),
        None,
        vec![case("x", "a", vec![trial("a", "a")])],
    );
    let bad = score_model(
        "m2",
        &rules(0.5),
        None,
        vec![case("x", "a", vec![trial("a", "b")])],
    );
    let both = |models| {
        phase(
            crate::outcome::EvalsResults {
                models,
                ..Default::default()
            },
            1.0,
        )
    };
    let failed = both(vec![good.clone(), bad]);
    assert_eq!(failed.status, PhaseStatus::Failed);
    assert_eq!(
        failed.reason.as_deref(),
        Some(
            "1 of 2 models failed: m1: 100% accuracy (1/1), minimum 50% · m2: 0% accuracy (0/1), minimum 50%"
        )
    );
    let mut also_good = good.clone();
    also_good.model = "m2".into();
    let passed = both(vec![good, also_good]);
    assert_eq!(passed.status, PhaseStatus::Passed);
    assert_eq!(
        passed.reason.as_deref(),
        Some(
            "all 2 models passed: m1: 100% accuracy (1/1), minimum 50% · m2: 100% accuracy (1/1), minimum 50%"
        )
    );
}

#[test]
fn a_trial_records_what_kind_of_answer_came_back() {
    let refused = Choice {
        calls: Vec::new(),
        text: "no".into(),
        stop: Stop::Refusal,
    };
    assert_eq!(kind_of(&refused), crate::outcome::AnswerKind::Refusal);
    let said = answered(
        &Choice {
            stop: Stop::EndTurn,
            ..refused
        },
        crate::evals::judging::grade::Judged::default(),
        true,
        0.0,
    );
    assert_eq!(said.kind, crate::outcome::AnswerKind::TextOnly);
    assert!(said.passed && said.cached);
    assert_eq!(said.text.as_deref(), Some("no"));
    let failed = provider_failed("529".into(), 3.0);
    assert_eq!(failed.failures, ["provider error: 529"]);
    assert!(!not_asked().passed);
}

#[test]
fn a_cut_off_answer_is_truncated_whatever_it_holds_and_no_confusion_without_a_call() {
    let cut = |calls: Choice| Choice {
        stop: Stop::MaxTokens,
        ..calls
    };
    let with_call = cut(pick("b"));
    assert_eq!(kind_of(&with_call), crate::outcome::AnswerKind::Truncated);
    let text = cut(Choice {
        calls: Vec::new(),
        text: "{\"name\": \"a\", \"argu".into(),
        stop: Stop::EndTurn,
    });
    assert_eq!(kind_of(&text), crate::outcome::AnswerKind::Truncated);
    let judged = |why: &str| crate::evals::judging::grade::Judged {
        failures: vec![why.into()],
        notes: Vec::new(),
    };
    let m = score_model(
        "m",
        &rules(0.0),
        None,
        vec![
            case(
                "x",
                "a",
                vec![answered(&text, judged("cut off"), false, 1.0)],
            ),
            case(
                "y",
                "a",
                vec![answered(
                    &with_call,
                    judged("expected a, got b"),
                    false,
                    1.0,
                )],
            ),
        ],
    );
    assert_eq!(m.cases[0].status, CaseStatus::Miss);
    let pairs: Vec<(&str, &str)> = m
        .confusion
        .iter()
        .map(|p| (p.expected.as_str(), p.picked.as_str()))
        .collect();
    assert_eq!(pairs, [("a", "b")], "the cut-off text picked nothing known");
}

/// A trial answered with text and no call, right when no tool was expected.
fn silent(expected: Option<&str>) -> TrialResult {
    let said = Choice {
        calls: Vec::new(),
        text: "no call".into(),
        stop: Stop::EndTurn,
    };
    let failures = match expected {
        Some(e) => vec![format!("expected {e}, but the model called no tool")],
        None => Vec::new(),
    };
    let judged = crate::evals::judging::grade::Judged {
        failures,
        notes: Vec::new(),
    };
    answered(&said, judged, false, 1.0)
}

fn no_tool_case(name: &str, trials: Vec<TrialResult>) -> LabelledCase {
    LabelledCase {
        expect_tool: None,
        ..case(name, "-", trials)
    }
}

#[test]
fn recall_precision_abstention_and_over_trigger_are_counted_per_trial() {
    let m = score_model(
        "m",
        &rules(0.0),
        None,
        vec![
            // a: meant 4 times, picked a twice, b once, nothing once.
            case(
                "a1",
                "a",
                vec![trial("a", "a"), trial("a", "b"), silent(Some("a"))],
            ),
            case("a2", "a", vec![trial("a", "a")]),
            // b: meant twice, picked both times.
            case("b1", "b", vec![trial("b", "b"), trial("b", "b")]),
            // No tool: meant 3 times, a call once (to a).
            no_tool_case(
                "none",
                vec![silent(None), trial("(no tool)", "a"), silent(None)],
            ),
            // Not asked and provider errors are not scored.
            case("skipped", "c", vec![not_asked()]),
            case("broken", "c", vec![provider_failed("529".into(), 1.0)]),
        ],
    );
    type Counts = Option<(usize, usize)>;
    let by_tool: Vec<(&str, Counts, Counts)> = m
        .per_tool
        .iter()
        .map(|t| {
            (
                t.tool.as_str(),
                t.recall.map(|s| (s.count, s.of)),
                t.precision.map(|s| (s.count, s.of)),
            )
        })
        .collect();
    assert_eq!(
        by_tool,
        [
            // a: 2 of 4 meant picked it; picked 3 times (2 right, 1 by the no-tool row).
            ("a", Some((2, 4)), Some((2, 3))),
            // b: 2 of 2; picked 3 times (once by a row meant for a).
            ("b", Some((2, 2)), Some((2, 3))),
        ]
    );
    let a = m.per_tool[0].recall.unwrap();
    assert_eq!(a.rate, 0.5);
    assert_eq!((a.low, a.high), crate::evals::judging::stats::wilson(2, 4));
    let abstention = m.abstention.unwrap();
    assert_eq!((abstention.count, abstention.of), (1, 6));
    let over = m.over_trigger.unwrap();
    assert_eq!((over.count, over.of), (1, 3));
    assert!((over.rate - 1.0 / 3.0).abs() < 1e-12);
    assert!(over.low < over.rate && over.rate < over.high);
}

#[test]
fn an_unusable_provider_counts_no_picks() {
    let m = score_model(
        "m",
        &rules(0.0),
        Some("401".into()),
        vec![case("a1", "a", vec![trial("a", "a")])],
    );
    assert!(m.per_tool.is_empty());
    assert_eq!(m.abstention, None);
    assert_eq!(m.over_trigger, None);
}

#[test]
fn tools_that_never_reached_the_model_fail_the_model_and_make_the_phase_an_error() {
    let mut m = score_model(
        "m",
        &rules(0.0),
        None,
        vec![case("a1", "a", vec![trial("a", "a")])],
    );
    assert!(m.passed);
    tools_unseen(
        &mut m,
        Some(crate::outcome::ToolsUnseen {
            answers: 13,
            reported: 13,
            min_prompt_tokens: 37,
            max_prompt_tokens: 37,
            tool_list_tokens: 400,
        }),
    );
    assert!(!m.passed);
    let g = gate(&m, GateKind::ToolsShown);
    assert!(!g.passed);
    assert_eq!(
        g.detail,
        "the server reported 37 prompt tokens for requests whose tool list alone is about 400: it did not show the tools to the model (a chat template without tool support?); the accuracy is not counted"
    );
    assert_eq!(model_verdict(&m), g.detail);
    let results = crate::outcome::EvalsResults {
        models: vec![m],
        ..Default::default()
    };
    let phase = phase(results, 1.0);
    assert_eq!(phase.status, PhaseStatus::Error);
}

/// Under `trials: auto` each row has its own number of trials: a row is correct (pass^k) when
/// every one of its own trials was right, ambiguous when they disagree, and the trial accuracy
/// and the Wilson bound count every trial once, whichever row it belongs to.
#[test]
fn rows_with_different_numbers_of_trials_are_scored_each_on_its_own() {
    let right = |n| (0..n).map(|_| trial("a", "a")).collect::<Vec<_>>();
    let mut split = right(3);
    split.extend([trial("a", "b"), trial("a", "b")]);
    let m = score_model(
        "m",
        &rules(0.0),
        None,
        vec![
            case("one right", "a", right(1)),
            case("four right", "a", right(4)),
            case("split", "a", split),
            case("one wrong", "a", vec![trial("a", "b")]),
            case("ten wrong", "a", (0..10).map(|_| trial("a", "b")).collect()),
        ],
    );
    let statuses: Vec<CaseStatus> = m.cases.iter().map(|c| c.status).collect();
    use CaseStatus::{Correct, Miss};
    assert_eq!(statuses, [Correct, Correct, Miss, Miss, Miss]);
    let ambiguous: Vec<bool> = m.cases.iter().map(|c| c.ambiguous).collect();
    assert_eq!(ambiguous, [false, false, true, false, false]);
    let rates: Vec<f64> = m.cases.iter().map(|c| c.pass_rate).collect();
    assert_eq!(rates, [1.0, 1.0, 0.6, 0.0, 0.0]);
    // The most trials any row had; the accuracy is pass^k over rows.
    assert_eq!(m.trials, 10);
    assert_eq!((m.correct, m.total), (2, 5));
    // 8 right of 21 trials, and the Wilson bound of exactly that.
    assert!((m.trial_accuracy - 8.0 / 21.0).abs() < 1e-12);
    assert_eq!(m.wilson_lower, stats::wilson_lower(8, 21));
    // Confusion pairs count wrong trials: 2 + 1 + 10.
    assert_eq!(m.confusion.iter().map(|c| c.count).sum::<usize>(), 13);
}
