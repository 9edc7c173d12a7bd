//! Tests of the pull-request comment: snapshot, marker, what changed, escaping, the budget.

use super::fixtures;
use crate::outcome::{Finding, HistoryRecord, Severity};
use crate::report::markdown::pr_comment::*;

const MARKER: &str = "<!-- toolproof:pr-comment config=toolproof.yaml -->";

const RUN: PrContext<'static> = PrContext {
    run_url: Some("https://github.com/o/r/actions/runs/42"),
};

#[test]
fn snapshot() {
    fixtures::snapshot_settings().bind(|| {
        insta::assert_snapshot!("pr_comment", render(&fixtures::pull_request(), &RUN));
    });
}

#[test]
fn the_marker_comes_first_and_names_the_config_safely() {
    let mut report = fixtures::pull_request();
    let body = render(&report, &RUN);
    assert!(body.starts_with(&format!("{MARKER}\n## ❌")));
    report.config_file = Some("./toolproof.yaml".into());
    assert_eq!(marker(&report), MARKER);
    report.config_file = Some("ci/my config-->x.yaml".into());
    assert_eq!(
        marker(&report),
        "<!-- toolproof:pr-comment config=ci/my%20config--%3Ex.yaml -->"
    );
}

#[test]
fn what_changed_comes_before_the_phase_table() {
    let body = render(&fixtures::pull_request(), &RUN);
    let changed = body.find("### What changed against main");
    let table = body.find("| Phase | Result |");
    assert!(changed.is_some() && changed < table, "{body}");
    assert!(body.contains("(main: 96%, −"), "{body}");
    assert!(body.contains("❌ newly missed (2): wx-past, delete-account"));
    assert!(body.contains("❌ New static-check findings (1): description on search"));
    assert!(body.contains("✅ Tests that pass again (1): add large numbers"));
    assert!(body.contains("<details open><summary>Newly missed (2 cases)</summary>"));
    assert!(body.contains("at 0123456789ab (2026-11-30T09:00:00Z)"));
}

#[test]
fn without_a_comparison_the_comment_says_why() {
    let mut report = fixtures::pull_request();
    report.history = None;
    assert!(render(&report, &RUN).contains("keep a history file across runs"));
    report.history = Some(HistoryRecord::default());
    assert!(render(&report, &RUN).contains("no base branch is known"));
    let mut none_yet = fixtures::pull_request();
    if let Some(base) = none_yet.history.as_mut().and_then(|h| h.base.as_mut()) {
        base.run = None;
    }
    let body = render(&none_yet, &RUN);
    assert!(body.contains("No run of main is recorded"), "{body}");
    assert!(!body.contains("Newly missed"));
}

#[test]
fn an_unchanged_run_says_so() {
    let mut report = fixtures::pull_request();
    if let Some(base) = report.history.as_mut().and_then(|h| h.base.as_mut()) {
        base.models[0].base_accuracy = Some(base.models[0].accuracy);
        base.models[0].newly_missed.clear();
        base.models[0].newly_passing.clear();
        base.checks = None;
        base.tests = None;
    }
    let body = render(&report, &RUN);
    assert!(body.contains("no change)"), "{body}");
    assert!(body.contains("Nothing changed against main"), "{body}");
    // A paragraph of its own, not a continuation of the model's bullet.
    assert!(body.contains(")\n\nNothing changed against main"), "{body}");
}

#[test]
fn hostile_text_is_escaped_everywhere() {
    let body = render(&fixtures::hostile_pull_request(), &RUN);
    assert!(!body.contains("<script>"));
    assert!(!body.contains("<img"));
    assert!(!body.contains("@everyone"));
    assert!(!body.contains("sk-live-123456"));
    assert!(!body.contains('\x1b'));
    assert!(!body.contains("](https://evil.example)") || body.contains("\\](https://evil"));
    // Only the marker opens an HTML comment.
    assert_eq!(body.matches("<!--").count(), 1, "{body}");
    for line in body.lines().filter(|l| l.starts_with("| ")) {
        let cells = line.replace("\\|", "").matches('|').count();
        assert!(matches!(cells, 3 | 5 | 6 | 7), "{line}");
    }
}

#[test]
fn a_huge_report_fits_the_comment_with_a_link_to_the_run() {
    let mut report = fixtures::pull_request();
    let finding = |i: usize| Finding {
        tool: format!("tool_{i}"),
        check: "description".into(),
        severity: Severity::Error,
        message: "x".repeat(400),
        hint: None,
        fails: true,
        tool_index: None,
    };
    report.phases.checks.results.findings = (0..5000).map(finding).collect();
    if let Some(base) = report.history.as_mut().and_then(|h| h.base.as_mut()) {
        base.models[0].newly_missed = (0..5000).map(|i| format!("case {i}")).collect();
    }
    let body = render(&report, &RUN);
    assert!(body.len() <= COMMENT_BUDGET, "{}", body.len());
    assert!(body.chars().count() < 65_536);
    assert!(body.contains("… and 4980 more"));
    assert!(body.contains("more (see the JSON/JUnit report)"));
    assert!(body.contains(
        "_Some lists were cut to fit a comment; everything is in [the run summary](https://github.com/o/r/actions/runs/42)._"
    ));
    assert!(body.starts_with("<!-- toolproof:pr-comment"));
    // A tiny budget still keeps the verdict first.
    let tiny = render_within(&report, &RUN, 2000);
    assert!(tiny.len() <= 2000 && tiny.contains("## ❌ toolproof failed"));
}

#[test]
fn a_passing_run_links_the_details_without_a_cut_note() {
    let body = render(&fixtures::all_passed(), &RUN);
    assert!(body.contains("## ✅ toolproof passed · toolproof.yaml"));
    assert!(
        body.ends_with("_Details: [the run summary](https://github.com/o/r/actions/runs/42)._\n")
    );
    let no_link = render(&fixtures::all_passed(), &PrContext::default());
    assert!(!no_link.contains("run summary"));
}

#[test]
fn a_model_without_an_id_is_not_written_as_empty_bold() {
    let mut report = fixtures::pull_request();
    if let Some(base) = report.history.as_mut().and_then(|h| h.base.as_mut()) {
        base.models[0].model = String::new();
    }
    let body = render(&report, &RUN);
    assert!(!body.contains("****"), "{body}");
    assert!(body.contains("\n- accuracy "), "{body}");
}

#[test]
fn modes_decide_whether_a_missing_comment_is_created() {
    use crate::output::post::wanted;
    use crate::settings::PrCommentMode;
    let changed = fixtures::pull_request();
    let mut steady = fixtures::all_passed();
    steady.history = None;
    for (mode, failed, changed_run, unchanged_pass) in [
        (PrCommentMode::Off, false, false, false),
        (PrCommentMode::Always, true, true, true),
        (PrCommentMode::OnFailure, true, false, false),
        (PrCommentMode::OnChange, true, true, false),
    ] {
        assert_eq!(wanted(mode, &steady, 1), failed, "{mode:?} failed");
        assert_eq!(wanted(mode, &changed, 0), changed_run, "{mode:?} changed");
        assert_eq!(wanted(mode, &steady, 0), unchanged_pass, "{mode:?} steady");
    }
}
