//! The console report over the fixtures: snapshots of every fixture, widths, escapes and
//! redaction, and the evals section's wording.

use super::fixtures;
use crate::outcome::CaseStatus;
use crate::outcome::RunReport;
use crate::report::console::*;

fn plain(report: &RunReport) -> String {
    render(
        report,
        &ConsoleOptions {
            color: false,
            width: 80,
        },
    )
}

#[test]
fn snapshots() {
    fixtures::snapshot_settings().bind(|| {
        for (name, report) in fixtures::all() {
            insta::assert_snapshot!(format!("console_{name}"), plain(&report));
        }
    });
}

#[test]
fn a_failed_start_keeps_the_stderr_as_written_and_both_ends_of_it() {
    let out = plain(&fixtures::failed_start());
    assert!(
        out.contains("  │            ^^^^^^^^^^^^^^^^^^^\n"),
        "{out}"
    );
    assert!(out.contains("  │ … 5 lines left out …\n"), "{out}");
    fixtures::snapshot_settings().bind(|| {
        insta::assert_snapshot!("console_failed_start", out);
    });
}

#[test]
fn colour_snapshot() {
    let out = render(
        &fixtures::failing(),
        &ConsoleOptions {
            color: true,
            width: 100,
        },
    );
    assert!(out.contains("\x1b[1;31mFAILED\x1b[0m"));
    fixtures::snapshot_settings().bind(|| {
        insta::assert_snapshot!("console_failing_color", out);
    });
}

#[test]
fn no_escape_reaches_the_terminal_without_colour() {
    for (name, report) in fixtures::all() {
        let out = plain(&report);
        assert!(!out.contains('\x1b'), "{name}: escape in output");
        assert!(
            !out.chars().any(|c| c.is_control() && c != '\n'),
            "{name}: control character in output"
        );
    }
}

#[test]
fn lines_fit_the_width_outside_gutters() {
    use unicode_width::UnicodeWidthStr;
    for width in [40, 60, 80, 120] {
        let opts = ConsoleOptions {
            color: false,
            width,
        };
        for report in [
            fixtures::failing(),
            fixtures::evals_failing(),
            fixtures::evals_models(),
            fixtures::hostile(),
        ] {
            let out = render(&report, &opts);
            for line in out.lines().filter(|l| l.starts_with(['┌', '│', '├', '└'])) {
                assert!(line.width() <= width, "{width}: {line:?}");
            }
            // The verdict's lines too, from the width on which all its parts fit one each.
            let tail = out.lines().rev().take_while(|l| l.starts_with("   "));
            for line in tail.chain(out.lines().last()).filter(|_| width >= 80) {
                assert!(line.width() <= width, "{width}: {line:?}");
            }
        }
    }
}

/// The evals section of a console report rendered wide enough that no cell wraps.
fn evals_part(report: &RunReport) -> String {
    let out = render(
        report,
        &ConsoleOptions {
            color: false,
            width: 400,
        },
    );
    let start = out.find("Evals:").unwrap_or(0);
    let end = out.find("Set lint:").unwrap_or(out.len());
    out[start..end].to_string()
}

#[test]
fn every_miss_shows_its_why_and_failed_gates_are_listed() {
    let report = fixtures::evals_failing();
    let out = evals_part(&report);
    let Some(ev) = report.phases.evals.results.as_ref() else {
        panic!("fixture without evals");
    };
    let misses: Vec<_> = ev.models[0]
        .cases
        .iter()
        .filter(|c| c.status == CaseStatus::Miss)
        .collect();
    assert_eq!(misses.len(), 7);
    for case in misses {
        let why = case.why.as_deref().unwrap_or_default();
        assert!(out.contains(&format!("why: {why}")), "{}: {out}", case.name);
    }
    for line in [
        "Evals: FAIL - 25% accuracy (3/12), minimum 90%; 1 critical case missed: ord-refund; Wilson 95% lower bound 24.6% (12/30 trials) is below the minimum 60%",
        "Tool-selection evals (anthropic / claude-haiku-4-5)",
        "Accuracy 25% (3/12), minimum 90%",
        "Trials: up to 3 per case, 12/30 correct (40%), Wilson 95% lower bound 24.6%, minimum 60%",
        "7 misses (1 critical), 2 provider errors (no usable answer after retries; not a model miss)",
        "FAIL min_accuracy: accuracy 25% (3/12) is below the minimum 90%",
        "FAIL critical: 1 critical case missed: ord-refund",
        "Critical misses (must be right on every trial): ord-refund",
        "  start_refund → get_order ×3",
        "Cache: 3 cached, 29 asked (27 answered, 2 failed), 41 requests (12 retries), 1 unreadable cache file asked again, 1 answer not saved",
        "Miss rate over the last 5 runs: 2% → 2% → 3% → 4% → 75% (rising)",
        "Left out (invalid input schema): search",
    ] {
        assert!(out.lines().any(|l| l == line), "missing {line:?} in\n{out}");
    }
    assert!(out.contains("WARN the miss rate is rising: 2% → 75% over the last 5 runs"));
    assert!(out.contains("WARN 1 answer not saved to the cache: cannot create cache folder"));
    // Marks: a provider error is not a miss, and the critical row is tagged.
    assert!(out.contains("│ ERROR │ wx-tomorrow"), "{out}");
    assert!(out.contains("│ MISS  │ ord-refund         │"), "{out}");
    assert!(out.contains("│       │ (critical)         │"), "{out}");
    assert!(
        out.contains("│ start_refund {\"order_id\": \"55219\"}"),
        "{out}"
    );
    assert!(out.contains("(refused)") && out.contains("(malformed arguments: "));
    assert!(out.contains("2/3 trials, ambiguous"));
}

#[test]
fn provider_abort_is_shown_and_no_case_passes() {
    let out = evals_part(&fixtures::evals_abort());
    assert!(
        out.starts_with(
            "Evals: ERROR - the provider could not be used: the provider rejected the request: 401"
        ),
        "{out}"
    );
    let phase_line = out.lines().next().unwrap_or_default();
    assert_eq!(
        phase_line.matches("could not be used").count(),
        1,
        "said once: {phase_line}"
    );
    assert!(out.contains(
        "ERROR the provider could not be used: the provider rejected the request: 401 Unauthorized"
    ));
    assert!(out.contains("      hint: set OPENAI_API_KEY to a valid key"));
    assert!(!out.contains("PASS"), "{out}");
    assert_eq!(out.matches("│ SKIP │").count(), 3, "{out}");
    assert!(out.contains("not counted: the provider could not be used"));
    assert!(out.contains("Accuracy not measured"));
    let all = plain(&fixtures::evals_abort());
    assert!(verdict(&all).contains("|  evals: error  |"));
}

#[test]
fn evals_without_results_keep_one_line() {
    let mut report = fixtures::all_passed();
    report.phases.evals = crate::outcome::Phase::skipped("no evals section in toolproof.yaml");
    let out = plain(&report);
    assert!(out.contains("\nEvals: SKIP - no evals section in toolproof.yaml\n\nSet lint:"));
    assert!(
        !out.contains("evals:"),
        "a skipped phase is left out of the summary"
    );
    assert!(plain(&fixtures::failing()).contains(
        "\nEvals: ERROR - the server could not be restarted after it exited\n\nSet lint:"
    ));
}

#[test]
fn several_models_get_a_side_by_side_table_and_the_offline_hint() {
    let report = fixtures::evals_models();
    let out = evals_part(&report);
    assert!(
        out.starts_with("Evals: FAIL - 1 of 2 models failed: claude-sonnet-4-5: 100% accuracy (3/3), minimum 90% · claude-haiku-4-5: 33.3% accuracy (1/3), minimum 90%; 1 case has no cached answer and --offline forbids asking: chit\n┌"),
        "{out}"
    );
    assert!(out.contains("│ claude-sonnet-4-5 │     100% │ 3/3     │                 │ 0               │ PASS    │"), "{out}");
    assert!(
        out.contains("│ claude-haiku-4-5  │    33.3% │ 1/3     │"),
        "{out}"
    );
    assert!(out.contains("Not in the cache (--offline): chit\nhint: run once without --offline"));
    assert!(out.contains("Miss rate over the last 3 runs (claude-haiku-4-5): 0% → 33.3% → 66.7%"));
    let last = plain(&report)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    assert!(
        last.contains("evals: claude-sonnet-4-5 100% (3/3), claude-haiku-4-5 33.3% (1/3)"),
        "{last}"
    );
}

#[test]
fn skipped_and_errored_phases_never_look_passed() {
    let out = plain(&fixtures::unreachable());
    assert!(out.contains("Static checks: ERROR - the server could not be reached"));
    assert!(out.contains("Tests: ERROR - the server could not be reached"));
    assert!(out.contains("Bench: SKIP - no bench section in toolproof.yaml"));
    assert!(!out.contains("PASS"));
    assert!(
        verdict(&out).starts_with("FAILED  |  checks: error  |  tests: error  |  evals: error")
    );
}

#[test]
fn hostile_text_cannot_become_a_workflow_command() {
    let out = plain(&fixtures::hostile());
    for line in out.lines() {
        assert!(!line.trim_start().starts_with("::"), "{line:?}");
        assert!(!line.contains("##["), "{line:?}");
    }
}

#[test]
fn secrets_are_redacted() {
    let out = plain(&fixtures::hostile());
    assert!(!out.contains("sk-live-123456"));
    assert!(out.contains("token=***"));
}

#[test]
fn summary_counts() {
    let out = plain(&fixtures::failing());
    assert_eq!(
        verdict(&out),
        "FAILED  |  checks: 4 errors, 3 warnings  |  tests: 1 passed, 2 failed, 1 error, 1 not run  |  evals: error  |  2.76s"
    );
    let ok = plain(&fixtures::all_passed());
    assert_eq!(
        verdict(&ok),
        "PASSED  |  checks: 0 errors, 0 warnings  |  tests: 3 passed (1 flaky), 0 failed  |  evals: 100% accuracy (3/3)  |  2.76s"
    );
    // At 80 columns it takes two lines, the second indented.
    assert!(ok.ends_with("PASSED  |  checks: 0 errors, 0 warnings  |  tests: 3 passed (1 flaky), 0 failed\n   evals: 100% accuracy (3/3)  |  2.76s\n"), "{ok}");
}

/// The verdict at the end of a console report, its lines joined as one.
fn verdict(out: &str) -> String {
    let lines: Vec<&str> = out.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.starts_with(['P', 'F', 'I']) && l.contains("  |  "))
        .unwrap_or(0);
    lines[start..]
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join("  |  ")
}

/// The warning about non-protocol stdout fits an 80-column terminal, and a line the server
/// printed at each of its 50 starts (a fuzzed server restarted after every crash) is shown
/// once, with its count; a long line is cut to the width.
#[test]
fn stdout_noise_fits_the_width_and_says_a_repeated_line_once() {
    let mut report = fixtures::failing();
    let banner = "fake-mcp 1.0.0 starting up, have a nice day!";
    report.stdout_noise = std::iter::repeat_n(banner.to_owned(), 50)
        .chain([format!("debug: {}", "x".repeat(200))])
        .collect();
    report.stdout_noise_total = 51;
    let out = plain(&report);
    let start = out.find("WARN").expect("the warning");
    let block: Vec<&str> = out[start..].lines().take_while(|l| !l.is_empty()).collect();
    for line in &block {
        assert!(
            unicode_width::UnicodeWidthStr::width(*line) <= 80,
            "{} columns: {line}",
            unicode_width::UnicodeWidthStr::width(*line)
        );
    }
    assert_eq!(
        block,
        [
            "WARN the server printed 51 non-protocol lines on stdout (strict MCP clients fail",
            "     on them):",
            "  │ fake-mcp 1.0.0 starting up, have a nice day!  (×50)",
            &format!("  │ debug: {}…", "x".repeat(68)),
        ]
    );
    assert_eq!(out.matches(banner).count(), 1, "{out}");
}
