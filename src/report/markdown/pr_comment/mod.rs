//! The pull-request comment: one per config, found again by a hidden marker and updated in
//! place. Verdict first, then what changed against the base branch (see [`changes`]), the phase
//! table, and the lists behind it: the cases that newly miss, the failing static-check
//! findings, the failed tests and each model's misses. The whole body stays under
//! [`COMMENT_BUDGET`] bytes (GitHub takes 65,536 characters; a character is at least a byte),
//! cutting lists with a note and a link to the run summary. Untrusted text is escaped and
//! secrets redacted as in the job summary, whose pieces this reuses.

mod changes;

use super::evals::{MISS_HEADER, miss_row, miss_rows};
use super::list::{List, share};
use super::text::md;
use super::{
    CELL_CHARS, ERROR_CHARS, LINE_CHARS, SECTION_OVERHEAD, failed_test_rows, finding_rows, fit,
};
use crate::outcome::{CaseStatus, RunReport};
use crate::report::evals_view::EvalsView;

/// Largest comment body in bytes, well under GitHub's limit of 65,536 characters.
pub(crate) const COMMENT_BUDGET: usize = 60_000;

/// What the comment needs besides the report.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PrContext<'a> {
    /// The run's page (`{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}/actions/runs/{GITHUB_RUN_ID}`),
    /// linked when something was cut.
    pub run_url: Option<&'a str>,
}

/// The hidden first line that identifies toolproof's comment for this config, e.g.
/// `<!-- toolproof:pr-comment config=toolproof.yaml -->` (the config path as given, without a
/// leading `./`; the target when there is no config file). Characters that could end the HTML
/// comment or break the line are percent-encoded.
pub(crate) fn marker(report: &RunReport) -> String {
    let report = report.redacted();
    let config = report.config_file.as_deref().unwrap_or(&report.target);
    // `./toolproof.yaml` and `toolproof.yaml` are the same config: one comment.
    let config = config.trim_start_matches("./");
    let mut encoded = String::with_capacity(config.len());
    for byte in config.bytes() {
        let c = char::from(byte);
        if c.is_ascii_alphanumeric() || "._/~+=:,@-".contains(c) {
            encoded.push(c);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    format!("<!-- toolproof:pr-comment config={encoded} -->")
}

/// The comment body for `report`, at most [`COMMENT_BUDGET`] bytes.
pub(crate) fn render(report: &RunReport, ctx: &PrContext<'_>) -> String {
    render_within(report, ctx, COMMENT_BUDGET)
}

pub(crate) fn render_within(report: &RunReport, ctx: &PrContext<'_>, budget: usize) -> String {
    let mut out = marker(report);
    out.push('\n');
    let report = report.redacted();
    let r = &*report;
    out.push_str(&heading(r));
    out.push_str(&super::surface::section(r));
    let view = EvalsView::of(&r.phases.evals);
    out.push_str(&super::verdict::section(view.as_ref()));
    out.push_str(&changes::section(r.history.as_ref()));
    out.push_str(&super::phase_table(r, view.as_ref()));
    if let Some(v) = &view {
        for line in &v.cost {
            out.push_str(&format!("{}\n\n", md(line, LINE_CHARS)));
        }
    }

    let lists = lists(r, view.as_ref());
    let cut_note = footer(ctx, true);
    let available = budget.saturating_sub(
        out.len() + cut_note.len() + lists.len() * SECTION_OVERHEAD + SECTION_OVERHEAD,
    );
    let allotments = share(
        &lists.iter().map(List::bytes).collect::<Vec<_>>(),
        available,
    );
    let mut cut = false;
    for (list, allotment) in lists.iter().zip(allotments) {
        cut |= list.bytes() > allotment;
        list.render_into(&mut out, allotment);
    }
    out.push_str(&footer(ctx, cut));
    fit(&mut out, budget);
    out
}

/// `## ❌ toolproof failed · toolproof.yaml`, and why the server could not be used.
fn heading(r: &RunReport) -> String {
    let (icon, verdict) = match (&r.interrupted, r.passed) {
        (Some(signal), _) => ("⛔", format!("was interrupted by {}", md(signal, 20))),
        (None, true) => ("✅", "passed".to_owned()),
        (None, false) => ("❌", "failed".to_owned()),
    };
    let config = r.config_file.as_deref().unwrap_or(&r.target);
    let mut out = format!(
        "## {icon} toolproof {verdict} · {}\n\n",
        md(config, CELL_CHARS)
    );
    if let Some(err) = &r.error {
        out.push_str("> [!CAUTION]\n> **The server could not be used:** ");
        out.push_str(&md(&err.message, ERROR_CHARS));
        out.push_str("\n\n");
    }
    out
}

/// The lists that share what is left of the budget, most telling first: the newly missed
/// cases (open), then the findings, the failed tests and every model's misses (closed).
fn lists(r: &RunReport, view: Option<&EvalsView<'_>>) -> Vec<List> {
    let mut lists = Vec::new();
    let changes = r
        .history
        .as_ref()
        .and_then(|h| h.base.as_ref())
        .filter(|b| b.run.is_some());
    if let (Some(base), Some(view)) = (changes, view) {
        for change in base.models.iter().filter(|m| !m.newly_missed.is_empty()) {
            let Some(m) = view.models.iter().find(|m| m.model == change.model) else {
                continue;
            };
            let rows: Vec<String> = m
                .rows
                .iter()
                .filter(|row| row.status != CaseStatus::Correct)
                .filter(|row| change.newly_missed.iter().any(|n| n == row.name))
                .map(miss_row)
                .collect();
            let mut summary = format!("Newly missed ({})", changes::cases(rows.len()));
            if view.several {
                summary = format!("{}: {summary}", md(m.model, CELL_CHARS));
            }
            lists.push(List {
                summary,
                open: true,
                header: MISS_HEADER,
                rows,
            });
        }
    }
    let mut rest = vec![finding_rows(&r.phases.checks.results), failed_test_rows(r)];
    for m in view.map_or(&[][..], |v| &v.models[..]) {
        let mut misses = miss_rows(m);
        if view.is_some_and(|v| v.several) {
            misses.summary = format!("{}: {}", md(m.model, CELL_CHARS), misses.summary);
        }
        rest.push(misses);
    }
    for list in &mut rest {
        list.open = false;
    }
    lists.extend(rest);
    lists
}

/// The link to the run summary, with a note when something was cut.
fn footer(ctx: &PrContext<'_>, cut: bool) -> String {
    let link = ctx.run_url.map(|url| {
        let url: String = url
            .chars()
            .filter(|c| !c.is_whitespace() && !c.is_control())
            .map(|c| match c {
                '(' => "%28".to_owned(),
                ')' => "%29".to_owned(),
                '<' => "%3C".to_owned(),
                '>' => "%3E".to_owned(),
                c => c.to_string(),
            })
            .collect();
        format!("[the run summary]({url})")
    });
    match (cut, link) {
        (true, Some(link)) => {
            format!("_Some lists were cut to fit a comment; everything is in {link}._\n")
        }
        (true, None) => {
            "_Some lists were cut to fit a comment; everything is in the job summary and the \
             JSON report._\n"
                .into()
        }
        (false, Some(link)) => format!("_Details: {link}._\n"),
        (false, None) => String::new(),
    }
}
