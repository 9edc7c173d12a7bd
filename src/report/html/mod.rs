//! The single-file HTML report (`--html PATH`): one page with its CSS inline and no script, no
//! font and no image fetched from anywhere, readable on a phone (tables turn into stacked cards
//! under 640px) and in dark mode. The connection error comes first, then the phases with
//! their status, then one section per phase; every table lists its failing rows first, but the
//! stress curve's, which reads in distractor order (its rows are `curve below` or `curve above`). Every
//! string that came from a server, a model, a provider or a file is cleaned of terminal escapes,
//! cut to a length and HTML-escaped, and the model's secrets are redacted before any of that.
//!
//! The page holds no time of its own (only the run's start time), so two renders of one report
//! are byte-identical.
//!
//! Hooks for tests and scripts: sections have the ids `connection-error`, `phases`, `checks`,
//! `tests`, `evals`, `lint` (with `coverage` and `contrastive-pairs` headings), `stress` (the
//! chart's hooks are in `chart`), `bench`, `fuzz` and `protocol`; every table row of a result
//! has a `data-status` (the
//! JSON report's word for it) and one class of `fail`, `warn`, `skip` or `pass`.

mod bench;
mod chart;
mod evals;
mod fuzz;
mod lint;
pub(crate) mod marks;
mod phases;
mod protocol;
mod stress;
mod surface;
mod text;

#[cfg(test)]
mod tests;

use super::escape::{format_secs, plural};
use super::evals_view::EvalsView;
use super::stress_view::StressView;
use crate::outcome::{PhaseOverview, PhaseStatus, RunReport, TestCounts};
use marks::{TABLE_CLOSE, Tone, by_rank, cell, code_spans, phase_mark, ran, row_open, table_open};
use text::{details_pre, duration, esc, one_line, pre_block, started, text};

/// Longest name (tool, test, case, model, check), in characters.
const NAME_CHARS: usize = 300;
/// Longest table cell or message line, in characters.
const CELL_CHARS: usize = 2000;
/// Longest result text shown for a test, in characters.
const RESULT_CHARS: usize = 5000;
/// Longest connection or provider error, in characters.
const ERROR_CHARS: usize = 5000;
/// Most server stderr lines shown per block, and their longest total, in characters.
const STDERR_LINES: usize = 200;
const STDERR_CHARS: usize = 20_000;
/// Most non-protocol stdout lines shown.
const NOISE_LINES: usize = 20;

/// The stylesheet, inlined in `<head>`. Light and dark colours come from custom properties;
/// under 640px every `table.cards` becomes a stack of cards labelled by `data-label`.
pub(crate) const STYLE: &str = include_str!("style.css");

/// The HTML report of `report`, secrets redacted: a complete page ending with a newline.
pub fn render(report: &RunReport) -> String {
    let report = report.redacted();
    let r = &*report;
    let mut out = String::with_capacity(32 * 1024);

    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    out.push_str(&format!(
        "<meta name=\"generator\" content=\"{} {}\">\n",
        esc(&r.generator.name),
        esc(&r.generator.version)
    ));
    out.push_str(&format!(
        "<title>toolproof {}: {}{}</title>\n",
        if r.passed { "passed" } else { "failed" },
        one_line(&server_title(r), NAME_CHARS),
        r.shard
            .map(|s| format!(" (shard {} of {})", s.index, s.count))
            .unwrap_or_default()
    ));
    out.push_str("<style>\n");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");

    header(&mut out, r);
    out.push_str("<main class=\"wrap\">\n");
    connection_error(&mut out, r);
    stdout_noise(&mut out, r);
    phases_table(&mut out, r);
    let [checks, tests, evals, lint, stress, bench, fuzz, proto] = r.phases.overview();
    surface::section(&mut out, &r.phases);
    phases::checks_section(
        &mut out,
        &checks,
        &r.phases.checks.results,
        r.inventory.as_ref(),
    );
    phases::tests_section(
        &mut out,
        &tests,
        &r.phases.tests.results,
        r.config_file.as_deref(),
    );
    evals::section(
        &mut out,
        &evals,
        EvalsView::of(&r.phases.evals).as_ref(),
        r.config_file.as_deref(),
    );
    lint::section(
        &mut out,
        &lint,
        r.phases.lint.results.as_ref(),
        r.config_file.as_deref(),
    );
    stress::section(&mut out, &stress, StressView::of(&r.phases.stress).as_ref());
    bench::section(&mut out, &bench, r.phases.bench.results.as_ref());
    fuzz::section(&mut out, &fuzz, r.phases.fuzz.results.as_ref());
    protocol::section(&mut out, &proto, r.phases.protocol.results.as_ref());
    out.push_str("</main>\n");

    out.push_str(&format!(
        "<footer class=\"wrap\"><p>Written by {} {} for the run started {}.</p></footer>\n",
        esc(&r.generator.name),
        esc(&r.generator.version),
        started(&r.started_at)
    ));
    out.push_str("</body>\n</html>\n");
    out
}

/// `name version` of the server, or the target when the server never introduced itself.
fn server_title(r: &RunReport) -> String {
    match &r.server {
        Some(s) => {
            let name = s.name.as_deref().filter(|n| !n.trim().is_empty());
            match (name, s.version.as_deref()) {
                (Some(n), Some(v)) => format!("{n} {v}"),
                (Some(n), None) => n.to_string(),
                (None, _) => r.target.clone(),
            }
        }
        None => r.target.clone(),
    }
}

fn header(out: &mut String, r: &RunReport) {
    let (tone, word) = match (r.interrupted.is_some(), r.passed) {
        (true, _) => (Tone::Fail, "INTERRUPTED"),
        (false, true) => (Tone::Pass, "PASSED"),
        (false, false) => (Tone::Fail, "FAILED"),
    };
    out.push_str("<header class=\"top wrap\" id=\"top\">\n");
    out.push_str(&format!(
        "<p class=\"verdict-line\"><span class=\"badge big {}\" id=\"verdict\" data-status=\"{}\">{word}</span> <span>toolproof {} · exit code {}</span></p>\n",
        tone.class(),
        match (r.interrupted.is_some(), r.passed) {
            (true, _) => "interrupted",
            (false, true) => "passed",
            (false, false) => "failed",
        },
        one_line(&r.command, NAME_CHARS),
        r.exit_code
    ));
    out.push_str(&format!(
        "<h1>{}</h1>\n",
        one_line(&server_title(r), NAME_CHARS)
    ));
    let mut meta: Vec<(&str, String)> = Vec::new();
    meta.push((
        "Target",
        format!("<code>{}</code>", one_line(&r.target, CELL_CHARS)),
    ));
    if let Some(s) = r.shard {
        meta.push((
            "Shard",
            format!(
                "{} of {}: part of a run, merged by <code>toolproof merge</code>",
                s.index, s.count
            ),
        ));
    }
    if let Some(s) = &r.server {
        if let Some(title) = s.title.as_deref().filter(|t| !t.trim().is_empty()) {
            meta.push(("Server title", one_line(title, NAME_CHARS)));
        }
        meta.push(("Transport", one_line(&s.transport, 40)));
        let era = match s.era.as_str() {
            "legacy" => "initialize handshake".to_string(),
            "modern" => "server/discover".to_string(),
            other => one_line(other, 40),
        };
        meta.push((
            "Protocol",
            format!("{} ({era})", one_line(&s.protocol_version, 40)),
        ));
    }
    if let Some(config) = &r.config_file {
        meta.push((
            "Config",
            format!("<code>{}</code>", one_line(config, CELL_CHARS)),
        ));
    }
    meta.push(("Started", started(&r.started_at)));
    meta.push(("Duration", format_secs(r.duration_ms)));
    meta.push((
        "toolproof",
        format!(
            "{} {}",
            one_line(&r.generator.name, 40),
            one_line(&r.generator.version, 40)
        ),
    ));
    out.push_str("<dl class=\"meta\">\n");
    for (label, value) in meta {
        out.push_str(&format!("<div><dt>{label}</dt><dd>{value}</dd></div>\n"));
    }
    out.push_str("</dl>\n</header>\n");
}

fn connection_error(out: &mut String, r: &RunReport) {
    let Some(err) = &r.error else {
        return;
    };
    out.push_str("<section id=\"connection-error\" class=\"alert fail\" data-status=\"error\">\n");
    out.push_str("<h2>The server could not be used</h2>\n");
    out.push_str(&format!(
        "<pre class=\"message\">{}</pre>\n",
        text(&err.message, ERROR_CHARS)
    ));
    if let Some(stderr) = err.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
        out.push_str(&details_pre(
            "Server stderr",
            &pre_block(stderr, STDERR_LINES, STDERR_CHARS),
            true,
        ));
        out.push('\n');
    }
    out.push_str("</section>\n");
}

fn stdout_noise(out: &mut String, r: &RunReport) {
    let n = r.noise_count();
    if n == 0 {
        return;
    }
    out.push_str("<section id=\"stdout-noise\" class=\"alert warn\">\n");
    out.push_str(&format!(
        "<h2>The server printed {n} non-protocol line{} on stdout</h2>\n<p>Strict MCP clients fail on them: stdout is for JSON-RPC messages only; log to stderr.</p>\n",
        plural(n)
    ));
    let shown: Vec<&str> = r
        .stdout_noise
        .iter()
        .take(NOISE_LINES)
        .map(String::as_str)
        .collect();
    out.push_str(&pre_block(&shown.join("\n"), NOISE_LINES, STDERR_CHARS));
    if n > NOISE_LINES {
        out.push_str(&format!("<p class=\"sub\">… {} more</p>", n - NOISE_LINES));
    }
    out.push_str("\n</section>\n");
}

/// The eight phases, failed and errored first, then passed, then skipped; each links to its
/// section.
fn phases_table(out: &mut String, r: &RunReport) {
    out.push_str("<section id=\"phases\">\n<h2>Phases</h2>\n");
    out.push_str(&table_open(
        "phases",
        &[("Phase", ""), ("Result", ""), ("Time", "num")],
    ));
    let phases = r.phases.overview();
    let rank = |p: &PhaseOverview<'_>| match p.status {
        PhaseStatus::Failed | PhaseStatus::Error => 0,
        PhaseStatus::Passed => 1,
        PhaseStatus::Skipped => 2,
    };
    for phase in by_rank(&phases, rank) {
        let (tone, word) = phase_mark(phase.status);
        out.push_str(&row_open(tone, phase.status.as_str(), word));
        out.push_str(&format!(
            "<th scope=\"row\"><a href=\"#{}\">{}</a></th>",
            phase.key, phase.title
        ));
        out.push_str(&cell("Result", "pre", &phase_result(r, phase)));
        let time = if ran(phase) {
            duration(phase.duration_ms)
        } else {
            String::new()
        };
        out.push_str(&cell("Time", "num", &time));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
    out.push_str("</section>\n");
}

/// One phase's result in a sentence, escaped.
fn phase_result(r: &RunReport, phase: &PhaseOverview<'_>) -> String {
    if phase.key == "evals"
        && let Some(view) = EvalsView::of(&r.phases.evals)
    {
        // The headline already says the verdict and every note the run added: said once.
        return text(&view.headline, CELL_CHARS);
    }
    let reason = phase.reason.map(|s| text(s, CELL_CHARS));
    if !ran(phase) {
        // The badge says SKIPPED already: the cell says why; an error says it could not run.
        let reason = reason.map(|r| code_spans(&r));
        return match (phase.status, reason) {
            (PhaseStatus::Error, Some(reason)) => format!("could not run: {reason}"),
            (PhaseStatus::Error, None) => "could not run".to_string(),
            (_, Some(reason)) => reason,
            (_, None) => "not run".to_string(),
        };
    }
    let what = match phase.key {
        "checks" => Some(esc(&r.phases.checks.results.counts_text()).into_owned()),
        "tests" => Some(esc(&TestCounts::of(&r.phases.tests.results).out_of_text()).into_owned()),
        _ => None,
    };
    match (what, reason) {
        (Some(what), Some(reason)) if !what.starts_with(&reason) => format!("{what}: {reason}"),
        (Some(what), _) => what,
        (None, Some(reason)) => reason,
        (None, None) => phase.status.as_str().to_string(),
    }
}
