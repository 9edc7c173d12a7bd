//! Tests of the job summary: snapshots, escaping, the byte budget, and the evals sections.

use super::fixtures;
use crate::outcome::CaseStatus;
use crate::outcome::{Finding, LintFinding, Phase, Severity};
use crate::report::markdown::*;
use crate::report::markdown::{CELL_CHARS, md, render_within};

#[test]
fn snapshots() {
    fixtures::snapshot_settings().bind(|| {
        for (name, report) in fixtures::all() {
            insta::assert_snapshot!(format!("markdown_{name}"), render(&report));
        }
    });
}

#[test]
fn hostile_report_has_no_live_markup() {
    let out = render(&fixtures::hostile());
    assert!(!out.contains("<script>"));
    assert!(!out.contains("<img"));
    assert!(!out.contains("@everyone"));
    assert!(out.contains("\\[click\\](https://evil.example)"));
    assert!(!out.contains("sk-live-123456"));
    assert!(!out.contains('\x1b'));
    // Every table row has exactly the columns of its header.
    for line in out.lines().filter(|l| l.starts_with("| ")) {
        let cells = line.replace("\\|", "").matches('|').count();
        assert!(
            // 4: the stress table of a curve measured in one order.
            (3..=7).contains(&cells),
            "{line}"
        );
    }
}

#[test]
fn skipped_and_errored_phases_say_so() {
    let out = render(&fixtures::unreachable());
    assert!(out.contains("| Static checks | ❌ the server could not be reached |"));
    assert!(out.contains("| Bench | ⏭️ skipped: no bench section in toolproof.yaml |"));
    assert!(!out.contains('✅'));
}

#[test]
fn fifty_thousand_findings_fit_the_budget() {
    let mut report = fixtures::failing();
    let finding = |i: usize| Finding {
        tool: format!("tool_{i}"),
        tool_index: Some(i),
        check: "description".into(),
        severity: Severity::Error,
        message: format!("tool number {i} has a description that says nothing useful at all"),
        hint: None,
        fails: true,
    };
    report.phases.checks.results.findings = (0..50_000).map(finding).collect();
    let out = render(&report);
    assert!(out.len() <= SUMMARY_BUDGET, "{} bytes", out.len());
    assert!(out.len() > SUMMARY_BUDGET / 2, "the budget should be used");
    assert!(out.contains(" more (see the JSON/JUnit report)"));
    // The failed tests still have their room.
    assert!(out.contains("wrong expectation retried"));
    assert!(out.ends_with("</details>\n\n"));
}

#[test]
fn a_huge_set_lint_and_coverage_table_share_the_budget() {
    use crate::outcome::ToolCoverage;
    let mut report = fixtures::lint_findings();
    let mut failed_tests = fixtures::failing();
    report.phases.tests = std::mem::replace(&mut failed_tests.phases.tests, Phase::skipped(""));
    if let Some(r) = report.phases.lint.results.as_mut() {
        let first = r.findings[0].clone();
        r.findings = (0..30_000)
            .map(|i| LintFinding {
                case: Some(format!("case {i}")),
                ..first.clone()
            })
            .collect();
        r.coverage.tools = (0..30_000)
            .map(|i| ToolCoverage {
                tool: format!("tool_{i}"),
                cases: vec![format!("case {i}"), format!("case {i} again")],
                quoting: Vec::new(),
            })
            .collect();
    }
    let out = render(&report);
    assert!(out.len() <= SUMMARY_BUDGET, "{} bytes", out.len());
    assert!(out.len() > SUMMARY_BUDGET / 2, "the budget should be used");
    assert!(out.contains("Set lint findings") && out.contains("Eval set coverage"));
    assert_eq!(
        out.matches(" more (see the JSON/JUnit report)").count(),
        2,
        "both lists cut"
    );
    // The failed tests still have their room.
    assert!(out.contains("wrong expectation retried"));
}

#[test]
fn huge_strings_are_cut() {
    let mut report = fixtures::failing();
    let huge = "x".repeat(5_000_000);
    report.target = huge.clone();
    if let Some(e) = report.error.as_mut() {
        e.message = huge.clone();
        e.stderr = Some(format!("{huge}\n").repeat(3));
    }
    report.phases.evals.reason = Some(huge);
    let out = render(&report);
    assert!(out.len() < 64 * 1024, "{} bytes", out.len());
}

#[test]
fn tiny_budget_still_bounded() {
    let out = render_within(&fixtures::failing(), 500);
    assert!(out.len() <= 500, "{}", out.len());
}

#[test]
fn every_miss_is_listed_with_its_why() {
    let report = fixtures::evals_failing();
    let out = render(&report);
    let Some(ev) = report.phases.evals.results.as_ref() else {
        panic!("fixture without evals");
    };
    let misses = ev.models[0]
        .cases
        .iter()
        .filter(|c| c.status == CaseStatus::Miss);
    for case in misses {
        let why = md(case.why.as_deref().unwrap_or_default(), CELL_CHARS);
        let row = out
            .lines()
            .find(|l| {
                l.contains(&format!(" {} ", md(&case.name, CELL_CHARS))) && l.starts_with("| ")
            })
            .unwrap_or_default();
        assert!(row.contains(&format!("| {why} |")), "{}: {row}", case.name);
    }
    assert!(out.contains("| Evals | ❌ 25% accuracy (3/12), minimum 90%; 1 critical case missed: ord-refund; Wilson 95% lower bound 24.6% (12/30 trials) is below the minimum 60% |"));
    assert!(out.contains(
        "<details open><summary>Misses (7, 1 critical) and provider errors (2)</summary>"
    ));
    assert!(out.contains("| 🚨 | ord-refund **(critical)** | start\\_refund {\"order\\_id\": \"55219\"} | get\\_order"), "{out}");
    assert!(out.contains("- ❌ critical: 1 critical case missed: ord-refund\n"));
    assert!(out.contains(
        "**Confusion pairs** (expected → picked): delete\\_account → (no tool) ×3 · start\\_refund → get\\_order ×3 · "
    ));
    assert!(
        out.contains("- Miss rate over the last 5 runs: 2% → 2% → 3% → 4% → 75% (rising) ⚠️\n")
    );
    assert!(out.contains("> [!WARNING]\n> the miss rate is rising: 2% → 75% over the last 5 runs"));
    assert!(out.contains("- Left out (invalid input schema): search\n"));
    assert!(out.contains(
        "- Cache: 3 cached, 29 asked (27 answered, 2 failed), 41 requests (12 retries), 1 unreadable cache file asked again, 1 answer not saved\n"
    ));
}

#[test]
fn provider_abort_is_a_caution_and_no_case_passes() {
    let out = render(&fixtures::evals_abort());
    assert!(out.contains("| Evals | ❌ the provider could not be used: the provider rejected the request: 401 Unauthorized: Incorrect API key provided |"), "{out}");
    assert!(out.contains("> [!CAUTION]\n> **The provider could not be used:** the provider rejected the request: 401 Unauthorized"));
    let evals = out
        .split("### Tool-selection evals")
        .nth(1)
        .unwrap_or_default();
    assert!(!evals.contains('✅'), "{evals}");
    assert!(evals.contains("❌ **Accuracy not measured"));
}

#[test]
fn several_models_side_by_side() {
    let out = render(&fixtures::evals_models());
    assert!(
        out.contains("| Evals | ❌ 1 of 2 models failed: claude-sonnet-4-5: 100% accuracy (3/3), minimum 90% · claude-haiku-4-5: 33.3% accuracy (1/3), minimum 90%; 1 case has no cached answer and --offline forbids asking: chit |"),
        "{out}"
    );
    assert!(out.contains("| claude-haiku-4-5 | 33.3% | 1/3 |  | 0 | ❌ failed |"));
    assert!(out.contains("#### claude-haiku-4-5\n"));
    assert!(out.contains("> [!IMPORTANT]\n> **Not in the cache (--offline):** chit<br>hint: run once without --offline"));
    // Several models share one history: no line claims the rise for itself.
    assert!(!out.contains("⚠️\n- Miss rate"), "{out}");
    assert!(
        out.contains("the miss rate is rising: claude-haiku-4-5 0% → 66.7% over the last 3 runs")
    );
}

#[test]
fn twenty_thousand_misses_fit_the_budget() {
    let mut report = fixtures::evals_failing();
    if let Some(ev) = report.phases.evals.results.as_mut() {
        let m = &mut ev.models[0];
        let miss = m.cases[2].clone();
        m.cases = (0..20_000)
            .map(|i| {
                let mut c = miss.clone();
                c.name = format!("case number {i} with a name long enough to matter");
                c
            })
            .collect();
    }
    let out = render(&report);
    assert!(out.len() <= SUMMARY_BUDGET, "{} bytes", out.len());
    assert!(out.len() > SUMMARY_BUDGET / 2, "the budget should be used");
    assert!(out.contains(" more (see the JSON/JUnit report)"));
    assert!(
        out.contains("- Miss rate over the last 5 runs"),
        "the tail survives"
    );
}

/// The phase's reason already holds the verdict (and the failed gates, and any note the run
/// added): the row says it once, never `verdict: verdict; …`.
#[test]
fn the_evals_row_says_the_verdict_once() {
    let mut checked = 0;
    for (name, report) in fixtures::all() {
        let Some(ev) = report.phases.evals.results.as_ref() else {
            continue;
        };
        let out = render(&report);
        let row = out
            .lines()
            .find(|l| l.starts_with("| Evals |"))
            .unwrap_or_default();
        for m in &ev.models {
            let said = match (&m.error, &m.tools_unseen) {
                (Some(_), _) => "could not be used".to_string(),
                (None, Some(_)) => "did not show the tools to the model".to_string(),
                (None, None) => format!("accuracy ({}/{})", m.correct, m.total),
            };
            assert_eq!(row.matches(&said).count(), 1, "{name}: {row}");
            checked += 1;
        }
    }
    assert!(checked >= 5, "the fixtures have eval results");
}
