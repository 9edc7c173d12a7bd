//! The Surface section: the server's tools, prompts and resources against `toolproof.lock`,
//! one row per change, breaking first, with the eval rows a changed tool touches.

use super::CELL_CHARS;
use super::marks::{
    TABLE_CLOSE, Tone, cell, not_run_line, ran, row_open, section_open, table_open,
};
use super::text::text;
use crate::outcome::{ChangeKind, Phases, SurfaceChange};

/// Eval rows named in one cell.
const ROWS_NAMED: usize = 5;

pub(super) fn section(out: &mut String, phases: &Phases) {
    let (Some(phase), Some(overview)) = (&phases.surface, phases.surface_overview()) else {
        return;
    };
    section_open(out, &overview, overview.title);
    let s = &phase.results;
    if ran(&overview) {
        let line = format!("Against {}: {}", s.lock_file, s.counts_text());
        out.push_str(&format!(
            "<p class=\"pre\">{}</p>\n",
            text(&line, CELL_CHARS)
        ));
    } else {
        out.push_str(&not_run_line(&overview));
    }
    if !s.changes.is_empty() {
        out.push_str(&table_open(
            "surface",
            &[("Item", ""), ("What changed", ""), ("Eval rows", "")],
        ));
        for c in &s.changes {
            row(out, c, s.locked);
        }
        out.push_str(TABLE_CLOSE);
    }
    out.push_str("</section>\n");
}

fn row(out: &mut String, c: &SurfaceChange, locked: bool) {
    let (tone, word) = match c.kind {
        ChangeKind::Breaking if locked => (Tone::Fail, "BREAKING"),
        ChangeKind::Breaking => (Tone::Warn, "BREAKING"),
        ChangeKind::Selection if locked => (Tone::Fail, "SELECTION"),
        ChangeKind::Selection => (Tone::Warn, "SELECTION"),
        ChangeKind::Compatible => (Tone::Skip, "COMPATIBLE"),
    };
    out.push_str(&row_open(tone, c.kind.as_str(), word));
    out.push_str(&cell("Item", "", &text(&c.item, CELL_CHARS)));
    let mut what = c.what.clone();
    if !c.rug_pull.is_empty() {
        what.push_str(&format!(" (rug pull: now trips {})", c.rug_pull.join(", ")));
    }
    out.push_str(&cell("What changed", "pre", &text(&what, CELL_CHARS)));
    let mut rows: Vec<String> = c
        .rows
        .iter()
        .take(ROWS_NAMED)
        .map(|r| {
            format!(
                "{} [{}]: {}",
                r.case,
                r.model,
                crate::report::console::status_word(r.status)
            )
        })
        .collect();
    if c.rows.len() > ROWS_NAMED {
        rows.push(format!("… {} more", c.rows.len() - ROWS_NAMED));
    }
    out.push_str(&cell(
        "Eval rows",
        "pre",
        &text(&rows.join("\n"), CELL_CHARS),
    ));
    out.push_str("</tr>\n");
}
