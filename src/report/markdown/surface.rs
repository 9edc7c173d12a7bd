//! The surface diff in Markdown: the pull-request comment's first lines (and the job
//! summary's): the counts and the first changes in one line, then a table of every change
//! with the eval rows a changed tool touches.

use super::text::md;
use crate::outcome::{ChangeKind, RunReport, SurfaceChange};

/// Changes named in the opening line.
const NAMED: usize = 3;
/// Rows named in one cell.
const ROWS_NAMED: usize = 4;

/// The section, empty when the run has no surface phase or the server matches the lock.
pub(crate) fn section(r: &RunReport) -> String {
    let Some(phase) = &r.phases.surface else {
        return String::new();
    };
    let s = &phase.results;
    if s.changes.is_empty() {
        if let Some(reason) = phase.reason.as_deref().filter(|_| phase.fails()) {
            return format!("**API surface:** {}\n\n", md(reason, 300));
        }
        return String::new();
    }
    let named: Vec<String> = s
        .changes
        .iter()
        .take(NAMED)
        .map(|c| format!("{} {}", name(c), md(&c.what, 120)))
        .collect();
    let more = if s.changes.len() > NAMED { "; …" } else { "" };
    let icon = if s.count(ChangeKind::Breaking) > 0 {
        "⚠️ "
    } else {
        ""
    };
    let mut out = format!(
        "{icon}**API surface against {}:** {}: {}{more}\n\n",
        md(&s.lock_file, 120),
        s.counts_text(),
        named.join("; ")
    );
    out.push_str("| change | item | what | eval rows |\n|---|---|---|---|\n");
    for c in &s.changes {
        let mut what = md(&c.what, 200);
        if !c.rug_pull.is_empty() {
            what.push_str(&format!(
                " **rug pull:** now trips {}",
                c.rug_pull.join(", ")
            ));
        }
        out.push_str(&format!(
            "| {} | {} | {what} | {} |\n",
            c.kind.as_str(),
            md(&c.item, 120),
            rows(c)
        ));
    }
    out.push('\n');
    out
}

/// `get_order` for a tool, `prompt:greet` for the others.
fn name(c: &SurfaceChange) -> String {
    let shown = c.item.strip_prefix("tool:").unwrap_or(&c.item);
    md(shown, 80)
}

fn rows(c: &SurfaceChange) -> String {
    let mut cells: Vec<String> = c
        .rows
        .iter()
        .take(ROWS_NAMED)
        .map(|r| {
            format!(
                "{} ({})",
                md(&r.case, 60),
                crate::report::console::status_word(r.status)
            )
        })
        .collect();
    if c.rows.len() > ROWS_NAMED {
        cells.push(format!("{} more", c.rows.len() - ROWS_NAMED));
    }
    cells.join(", ")
}
