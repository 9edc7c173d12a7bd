//! Tests of the evals view: the words every renderer shares.

use serde_json::json;

use super::answer::{picked_lines, picked_names, short_json};
use super::*;
use crate::report::fixtures;
use crate::report::model::{
    AnswerKind, CaseStatus, HistoryPoint, HistoryTrend, PickedCall, RunReport, TrialResult,
};

fn view_of(report: &RunReport) -> EvalsView<'_> {
    match EvalsView::of(&report.phases.evals) {
        Some(view) => view,
        None => panic!("fixture without eval results"),
    }
}

#[test]
fn json_is_spaced_and_cut() {
    assert_eq!(
        short_json(&json!({"a": 2, "b": [1, "x"]}), 60),
        r#"{"a": 2, "b": [1, "x"]}"#
    );
    assert_eq!(
        short_json(&json!({"t": "\u{1b}[31m"}), 60),
        r#"{"t": "\u001b[31m"}"#
    );
    let long = short_json(&json!({"text": "x".repeat(1_000_000)}), 20);
    assert_eq!(long.chars().count(), 20);
    assert!(long.ends_with('…'));
}

fn trial(kind: AnswerKind, tools: &[&str]) -> TrialResult {
    TrialResult {
        notes: Vec::new(),
        passed: false,
        kind,
        calls: tools
            .iter()
            .map(|t| PickedCall {
                tool: t.to_string(),
                args: json!({}),
                malformed_args: None,
            })
            .collect(),
        text: None,
        failures: Vec::new(),
        cached: false,
        provider_error: None,
        latency_ms: 0.0,
    }
}

#[test]
fn picks_are_named_by_kind() {
    assert_eq!(
        picked_names(&trial(AnswerKind::ToolCall, &["a", "b"])),
        "a, b"
    );
    assert_eq!(picked_names(&trial(AnswerKind::TextOnly, &[])), "(no tool)");
    assert_eq!(picked_names(&trial(AnswerKind::Refusal, &[])), "(refused)");
    assert_eq!(
        picked_lines(&trial(AnswerKind::Truncated, &["a"]), 60),
        ["a {}", "(cut off)"]
    );
    let mut bad = trial(AnswerKind::ToolCall, &["a"]);
    bad.calls[0].malformed_args = Some("{\"x\": ".into());
    assert_eq!(
        picked_lines(&bad, 60),
        [r#"a (malformed arguments: "{\"x\": ")"#]
    );
}

#[test]
fn the_headline_is_the_recorded_verdict() {
    let report = fixtures::evals_failing();
    let view = view_of(&report);
    assert_eq!(
        Some(view.headline.as_str()),
        report.phases.evals.reason.as_deref()
    );
    assert_eq!(view.summary, "30% accuracy (3/10)");
}

/// The engine marks every case not run when the provider failed; the view shows exactly that,
/// and tells a case that was answered but not counted from one never asked.
#[test]
fn an_unusable_provider_leaves_every_case_not_run_and_none_missed() {
    let report = fixtures::evals_abort();
    let view = view_of(&report);
    let m = &view.models[0];
    assert_eq!(m.outcome, ModelOutcome::Unusable);
    assert!(m.rows.iter().all(|r| r.status == CaseStatus::NotRun));
    let messages: Vec<&str> = m.rows.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "not counted: the provider could not be used for every case",
            "not run: the provider could not be used",
            "not run: the provider could not be used",
        ]
    );
    assert!(
        m.failed_gates.is_empty(),
        "the provider's error says it all"
    );
    assert_eq!(m.critical_misses, None);
    assert_eq!(
        (&m.accuracy, &m.trials_line, &m.counts_line),
        (&None, &None, &None)
    );
    assert_eq!(
        m.not_scored.as_deref(),
        Some("No case was scored: 3 cases not run")
    );
}

/// No renderer calls a case the model was never asked "missed".
#[test]
fn no_report_says_a_case_never_asked_was_missed() {
    let report = fixtures::evals_abort();
    let outputs = [
        crate::report::console::render(&report, &Default::default()),
        crate::report::junit::render(&report),
        crate::report::markdown::render(&report),
        crate::report::html::render(&report),
        crate::report::annotations::render(&report),
        crate::report::json::render(&report),
    ];
    for out in outputs {
        let lower = out.to_lowercase();
        assert!(!lower.contains("missed"), "{out}");
        assert!(!lower.contains("critical misses:"), "{out}");
        assert!(!lower.contains("critical misses ("), "{out}");
        assert!(!lower.contains("1 miss"), "{out}");
    }
}

#[test]
fn uncached_cases_are_not_run_with_the_offline_reason() {
    let report = fixtures::evals_models();
    let view = view_of(&report);
    let haiku = &view.models[1];
    assert_eq!(haiku.uncached.as_deref(), Some("chit"));
    let chit = haiku.rows_with(CaseStatus::NotRun).next();
    assert_eq!(
        chit.map(|r| r.message.as_str()),
        Some("not run: no cached answer and --offline")
    );
    assert_eq!(chit.and_then(|r| r.trials_note.clone()), None);
    assert_eq!(
        view.summary,
        "claude-sonnet-4-5 100% (3/3), claude-haiku-4-5 33.3% (1/3)"
    );
}

#[test]
fn rows_and_misses_keep_the_scored_order() {
    let report = fixtures::evals_failing();
    let view = view_of(&report);
    let m = &view.models[0];
    let misses: Vec<&str> = m.misses().iter().map(|r| r.name).collect();
    assert_eq!(
        misses,
        [
            "ord-refund",
            "wx-past",
            "refund-and-weather",
            "amb-cancel",
            "delete-account",
            "report-q3"
        ]
    );
    let refund = m.misses()[0];
    assert_eq!(refund.message, "expected start_refund, got get_order");
    assert_eq!(
        refund.details_with_why,
        [
            "expected start_refund, got get_order",
            "why: complaint, not a lookup",
            "critical: must be right on every trial, fails the run",
            "0/3 trials"
        ]
    );
    assert!(!refund.details.iter().any(|d| d.starts_with("why: ")));
    assert_eq!(m.confusion_more, None);
    assert_eq!(m.confusion_lines[1], "start_refund → get_order ×3");
}

#[test]
fn history_rates_use_the_one_rounding_rule() {
    let point = |rate: f64| HistoryPoint {
        time: "t".into(),
        commit: None,
        model: "m".into(),
        miss_rate: rate,
    };
    let trend = HistoryTrend {
        path: "h.jsonl".into(),
        points: vec![point(0.0), point(2.0 / 7.0), point(3.0 / 7.0)],
        rising: true,
        skipped_lines: 1,
    };
    let view = HistoryView::new(&trend, true);
    assert_eq!(
        view.lines[0].text(" "),
        "Miss rate over the last 3 runs: 0% 28.6% 42.9% (rising)"
    );
    assert!(
        view.warnings[0].starts_with(
            "the miss rate is rising: 0% → 42.9% over the last 3 runs while the gates still pass"
        ),
        "{:?}",
        view.warnings
    );
    assert_eq!(
        view.warnings[1],
        "1 line of h.jsonl could not be read and was skipped"
    );
}
