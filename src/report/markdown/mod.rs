//! The Markdown job summary (GitHub-flavoured, appended to `$GITHUB_STEP_SUMMARY` or
//! `--summary`): verdict, server, one row per phase, then the static-check findings and the
//! failed tests in `<details>`, then the tool-selection evals per model (verdict, failed gates,
//! every miss with its `why`, confusion pairs, the miss-rate trend), then the set lint's
//! findings and its coverage table (tool → cases, no-tool cases, contrastive pairs). Every
//! untrusted string is escaped for Markdown and HTML, and the whole text stays under
//! [`SUMMARY_BUDGET`] bytes by cutting lists with a note.

mod bench;
mod evals;
mod fuzz;
mod lint;
mod list;
pub(crate) mod pr_comment;
mod protocol;
mod stress;
mod surface;
mod text;
mod verdict;

#[cfg(test)]
mod tests;

use super::escape::{format_secs, plural};
use super::evals_view::EvalsView;
use super::stress_view::StressView;
use crate::outcome::{
    ChecksResults, PhaseOverview, PhaseStatus, RunReport, TestCounts, TestStatus,
};
use list::{List, share};
pub(crate) use text::md;
use text::pre_details;

/// Largest summary in bytes. GitHub drops a step summary over 1 MiB entirely, and rejects some
/// slightly below that, so this leaves room.
pub(crate) const SUMMARY_BUDGET: usize = 900 * 1024;

/// Longest untrusted table cell, in characters.
pub(crate) const CELL_CHARS: usize = 300;
/// Longest connection error message, in characters.
const ERROR_CHARS: usize = 2000;
/// Most server stderr lines shown, and their longest total, in characters.
const STDERR_LINES: usize = 60;
const STDERR_CHARS: usize = 8000;
/// Bytes kept free for section headers, closing tags and "… more" notes.
const SECTION_OVERHEAD: usize = 1024;
/// Longest line of eval verdicts (gates, confusion pairs, trend), in characters.
const LINE_CHARS: usize = 2000;

/// The job summary of `report`, secrets redacted, at most [`SUMMARY_BUDGET`] bytes.
pub(crate) fn render(report: &RunReport) -> String {
    render_within(report, SUMMARY_BUDGET)
}

pub(crate) fn render_within(report: &RunReport, budget: usize) -> String {
    let report = report.redacted();
    let r = &*report;
    let mut out = String::new();
    top_of_page(&mut out, r);
    out.push_str(&surface::section(r));

    let view = EvalsView::of(&r.phases.evals);
    out.push_str(&verdict::section(view.as_ref()));
    out.push_str(&phase_table(r, view.as_ref()));
    // Fixed and small (a row per distractor count): kept whole, at the end.
    let stress = stress::section(StressView::of(&r.phases.stress).as_ref());
    let budget = budget.saturating_sub(stress.len());

    let findings = finding_rows(&r.phases.checks.results);
    let failed = failed_test_rows(r);
    let fuzzed = fuzz::findings(r.phases.fuzz.results.as_ref());
    let protocol = protocol::findings(r.phases.protocol.results.as_ref());
    let lint_results = r
        .phases
        .lint
        .results
        .as_ref()
        .filter(|_| r.phases.lint.ran());
    let linted = lint::findings(lint_results, r.config_file.as_deref());
    let coverage = lint::coverage(lint_results);
    let pairs = lint::pairs(lint_results);
    let blocks = view.as_ref().map_or_else(Vec::new, evals::blocks);
    let fixed: usize = blocks.iter().map(|b| b.head.len() + b.tail.len()).sum();
    let mut lists = vec![
        &findings, &failed, &fuzzed, &protocol, &linted, &coverage, &pairs,
    ];
    lists.extend(blocks.iter().map(|b| &b.misses));
    let available = budget.saturating_sub(out.len() + fixed + lists.len() * SECTION_OVERHEAD);
    let allotments = share(
        &lists.iter().map(|l| l.bytes()).collect::<Vec<_>>(),
        available,
    );
    findings.render_into(&mut out, allotments[0]);
    failed.render_into(&mut out, allotments[1]);
    fuzzed.render_into(&mut out, allotments[2]);
    protocol.render_into(&mut out, allotments[3]);
    for (block, allotment) in blocks.iter().zip(&allotments[7..]) {
        out.push_str(&block.head);
        block.misses.render_into(&mut out, *allotment);
        out.push_str(&block.tail);
    }
    // The set lint after the evals it is about.
    linted.render_into(&mut out, allotments[4]);
    coverage.render_into(&mut out, allotments[5]);
    pairs.render_into(&mut out, allotments[6]);
    fit(&mut out, budget);
    out.push_str(&stress);
    out
}

/// One row per phase, then a blank line.
fn phase_table(r: &RunReport, view: Option<&EvalsView<'_>>) -> String {
    let mut out = String::from("| Phase | Result |\n|---|---|\n");
    let [checks, tests, evals, lint, stress, bench, fuzz, proto] = r.phases.overview();
    out.push_str(&phase_row(
        &checks,
        checks_result(&checks, &r.phases.checks.results),
    ));
    out.push_str(&phase_row(
        &tests,
        tests_result(&tests, &r.phases.tests.results),
    ));
    out.push_str(&match view {
        Some(view) => evals::row(&evals, view),
        None => phase_row(&evals, None),
    });
    // The lint's reason is its counts: said once.
    let counts = lint::result(&lint, r.phases.lint.results.as_ref());
    let lint_row = PhaseOverview {
        reason: if counts.is_some() { None } else { lint.reason },
        ..lint
    };
    out.push_str(&phase_row(&lint_row, counts));
    out.push_str(&stress::row(
        &stress,
        StressView::of(&r.phases.stress).as_ref(),
    ));
    out.push_str(&bench::row(&bench, r.phases.bench.results.as_ref()));
    out.push_str(&fuzz::row(&fuzz, r.phases.fuzz.results.as_ref()));
    out.push_str(&phase_row(
        &proto,
        protocol::result(&proto, r.phases.protocol.results.as_ref()),
    ));
    out.push('\n');
    out.push_str(&bench::table(r.phases.bench.results.as_ref()));
    out
}

/// The verdict, the server, the connection error and non-protocol stdout.
fn top_of_page(out: &mut String, r: &RunReport) {
    let interrupted = r
        .interrupted
        .as_deref()
        .map(|s| format!("was interrupted by {s}"));
    let (icon, verdict) = match (&interrupted, r.passed) {
        (Some(how), _) => ("⛔", how.as_str()),
        (None, true) => ("✅", "passed"),
        (None, false) => ("❌", "failed"),
    };
    let shard = r
        .shard
        .map(|s| format!(" · shard {} of {}", s.index, s.count))
        .unwrap_or_default();
    out.push_str(&format!("## {icon} toolproof {verdict}{shard}\n\n"));
    out.push_str(&server_line(r));
    out.push_str("\n\n");

    if let Some(err) = &r.error {
        out.push_str("> [!CAUTION]\n> **The server could not be used:** ");
        out.push_str(&md(&err.message, ERROR_CHARS));
        out.push_str("\n\n");
        if let Some(stderr) = err.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
            out.push_str(&pre_details("Server stderr", stderr, false));
        }
    }
    if !r.stdout_noise.is_empty() {
        let n = r.noise_count();
        out.push_str(&format!(
            "> [!WARNING]\n> The server printed {n} non-protocol line{} on stdout; strict MCP clients fail on them. First: {}\n\n",
            plural(n),
            md(&r.stdout_noise[0], CELL_CHARS)
        ));
    }
}

/// Cuts `out` to `budget` bytes with a note; only reachable with a budget smaller than the
/// fixed parts.
fn fit(out: &mut String, budget: usize) {
    if out.len() <= budget {
        return;
    }
    let note = "\n\n… cut to fit the job summary (see the JSON/JUnit report)\n";
    let mut end = budget.saturating_sub(note.len());
    while end > 0 && !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out.push_str(note);
}

fn server_line(r: &RunReport) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &r.server {
        let name = s.name.as_deref().unwrap_or("unnamed server");
        let who = match s.version.as_deref() {
            Some(v) => format!("{name} {v}"),
            None => name.to_string(),
        };
        let who = md(&who, CELL_CHARS);
        if !who.is_empty() {
            parts.push(format!("**{who}**"));
        }
    }
    parts.push(md(&r.target, CELL_CHARS));
    if let Some(s) = &r.server {
        parts.push(format!(
            "{} · protocol {}",
            md(&s.transport, 40),
            md(&s.protocol_version, 40)
        ));
    }
    parts.push(format_secs(r.duration_ms));
    parts.join(" · ")
}

pub(super) fn phase_row(phase: &PhaseOverview<'_>, ran: Option<String>) -> String {
    let reason = phase.reason.map(|s| md(s, CELL_CHARS));
    let result = match phase.status {
        PhaseStatus::Skipped => {
            format!("⏭️ skipped: {}", reason.unwrap_or_else(|| "not run".into()))
        }
        PhaseStatus::Error => format!("❌ {}", reason.unwrap_or_else(|| "could not run".into())),
        PhaseStatus::Passed | PhaseStatus::Failed => {
            let icon = if phase.status == PhaseStatus::Passed {
                "✅"
            } else {
                "❌"
            };
            let what = ran.unwrap_or_else(|| phase.status.as_str().to_string());
            match reason {
                Some(reason) => format!("{icon} {what}: {reason}"),
                None => format!("{icon} {what}"),
            }
        }
    };
    format!("| {} | {result} |\n", phase.title)
}

fn checks_result(phase: &PhaseOverview<'_>, c: &ChecksResults) -> Option<String> {
    matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed).then(|| c.counts_text())
}

fn tests_result(phase: &PhaseOverview<'_>, tests: &[crate::outcome::TestResult]) -> Option<String> {
    matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed)
        .then(|| TestCounts::of(tests).out_of_text())
}

fn finding_rows(c: &ChecksResults) -> List {
    use crate::outcome::Severity;
    let rows = c
        .findings
        .iter()
        .map(|f| {
            let icon = match (f.fails, f.severity) {
                (true, _) => "❌",
                (false, Severity::Info) => "ℹ️",
                (false, _) => "⚠️",
            };
            format!(
                "| {icon} | {} | {} | {} |\n",
                md(&f.tool, CELL_CHARS),
                md(&f.check, 80),
                md(&f.text(), CELL_CHARS)
            )
        })
        .collect();
    let (e, w, i) = (
        c.count(Severity::Error),
        c.count(Severity::Warning),
        c.count(Severity::Info),
    );
    let infos = if i > 0 {
        format!(", {i} info{}", plural(i))
    } else {
        String::new()
    };
    List {
        summary: format!(
            "Static-check findings: {e} error{}, {w} warning{}{infos}",
            plural(e),
            plural(w)
        ),
        open: c.findings.iter().any(|f| f.fails),
        header: "| | Tool | Check | Problem |\n|---|---|---|---|\n",
        rows,
    }
}

fn failed_test_rows(r: &RunReport) -> List {
    let tests = &r.phases.tests.results;
    let rows: Vec<String> = tests
        .iter()
        .filter(|t| {
            matches!(
                t.status,
                TestStatus::Failed | TestStatus::Error | TestStatus::NotRun
            )
        })
        .map(|t| {
            let icon = match t.status {
                TestStatus::NotRun => "⏭️",
                _ => "❌",
            };
            let place = match (r.config_file.as_deref(), t.line) {
                (Some(file), Some(line)) => md(&format!("{file}:{line}"), CELL_CHARS),
                (Some(file), None) => md(file, CELL_CHARS),
                _ => String::new(),
            };
            let mut failure = t.failures.join("\n");
            if t.attempts > 1 && t.status != TestStatus::NotRun {
                failure.push_str(&format!("\n(after {} attempts)", t.attempts));
            }
            format!(
                "| {icon} | {} | {} | {place} | {} |\n",
                md(&t.name, CELL_CHARS),
                md(&t.tool, CELL_CHARS),
                md(&failure, CELL_CHARS * 2)
            )
        })
        .collect();
    List {
        summary: format!("Failed tests ({})", rows.len()),
        open: true,
        header: "| | Test | Tool | Where | Failure |\n|---|---|---|---|---|\n",
        rows,
    }
}
