//! Tests of the evals view: the words every renderer shares.

use super::fixtures;
use crate::outcome::CacheUse;
use crate::outcome::{CaseStatus, RunReport};
use crate::report::evals_view::*;

fn view_of(report: &RunReport) -> EvalsView<'_> {
    match EvalsView::of(&report.phases.evals) {
        Some(view) => view,
        None => panic!("fixture without eval results"),
    }
}

#[test]
fn the_headline_is_the_recorded_verdict() {
    let report = fixtures::evals_failing();
    let view = view_of(&report);
    assert_eq!(
        Some(view.headline.as_str()),
        report.phases.evals.reason.as_deref()
    );
    assert_eq!(view.summary, "25% accuracy (3/12)");
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
            "report-q3",
            "bye"
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
            "0/3 trials: picked get_order ×3"
        ]
    );
    assert!(!refund.details.iter().any(|d| d.starts_with("why: ")));
    assert_eq!(m.confusion_more, None);
    assert_eq!(m.confusion_lines[1], "start_refund → get_order ×3");
}

#[test]
fn trials_lines_show_every_pick_unless_right_and_alike() {
    let report = fixtures::evals_failing();
    let view = view_of(&report);
    let m = &view.models[0];
    let row = |name: &str| match m.rows.iter().find(|r| r.name == name) {
        Some(r) => r,
        None => panic!("no row {name}"),
    };
    assert!(
        row("wx-past").details.contains(
            &"2/3 trials, ambiguous: picked get_weather_history ×2, get_weather ×1".into()
        )
    );
    assert!(
        row("refund-and-weather")
            .details
            .contains(&"0/3 trials: picked start_refund ×3 (2 calls)".into())
    );
    // The annotations' short note keeps the counts only.
    assert_eq!(
        row("wx-past").trials_note.as_deref(),
        Some("2/3 trials, ambiguous")
    );
    for r in m.rows.iter().filter(|r| r.status == CaseStatus::Correct) {
        assert!(!r.details.iter().any(|d| d.contains("picked")), "{r:?}");
    }
}

#[test]
fn a_provider_error_several_cases_share_is_said_once_with_the_count() {
    let report = fixtures::evals_failing();
    let view = view_of(&report);
    let m = &view.models[0];
    let error = "529 overloaded: still failing after 4 attempts (last retry-after 2s)";
    assert_eq!(
        m.shared_errors,
        [format!("Provider error on 2 cases: {error}")]
    );
    let rows: Vec<_> = m.rows_with(CaseStatus::ProviderError).collect();
    assert_eq!(rows.len(), 2);
    for r in rows {
        // The one-line message (a JUnit testcase's own) keeps it; the details refer to it.
        assert_eq!(r.message, format!("provider error: {error}"));
        assert_eq!(
            r.details[0],
            "provider error shared by 2 cases (said once: \"Provider error on 2 cases\")"
        );
        assert!(!r.details.iter().any(|d| d.contains(error)), "{r:?}");
    }
    // Errors that differ are said on their own rows.
    let mut report = fixtures::evals_failing();
    let Some(ev) = report.phases.evals.results.as_mut() else {
        panic!("fixture without evals");
    };
    let late = ev.models[0].cases.iter_mut().find(|c| c.name == "ord-late");
    if let Some(t) = late.and_then(|c| c.trials.first_mut()) {
        t.provider_error = Some("500 internal_server_error with an empty message".into());
    }
    let view = view_of(&report);
    assert!(view.models[0].shared_errors.is_empty());
}

#[test]
fn the_cache_line_adds_up_with_failed_trials_and_retries() {
    let mut c = CacheUse {
        read: true,
        write: true,
        ..CacheUse::default()
    };
    c.asked = 3;
    c.requests = 3;
    assert_eq!(
        asked_counts(&c),
        "3 asked",
        "one request per answer says nothing more"
    );
    // Every trial failed after its retries: 12 trials, 60 requests.
    c.asked = 0;
    c.failed = 12;
    c.requests = 60;
    c.retries = 48;
    assert_eq!(
        asked_counts(&c),
        "12 asked (0 answered, 12 failed), 60 requests (48 retries)"
    );
    c.asked = 1;
    c.failed = 0;
    c.requests = 2;
    c.retries = 1;
    assert_eq!(asked_counts(&c), "1 asked, 2 requests (1 retry)");
    let report = fixtures::evals_failing();
    assert_eq!(
        view_of(&report).cache,
        "Cache: 3 cached, 29 asked (27 answered, 2 failed), 41 requests (12 retries), 1 unreadable cache file asked again, 1 answer not saved"
    );
}
