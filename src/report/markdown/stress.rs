//! The stress curve in the Markdown summary: its row in the phase table, and a section with a
//! table per model (one row per distractor count, one column per order), the breaking point
//! and the misses there.

use super::text::md;
use super::{CELL_CHARS, LINE_CHARS, phase_row};
use crate::outcome::{PhaseOverview, PhaseStatus};
use crate::report::stress_view::StressView;

/// The phase table's row: the verdict when the curve ran.
pub(super) fn row(phase: &PhaseOverview<'_>, view: Option<&StressView<'_>>) -> String {
    let Some(view) = view else {
        return phase_row(phase, None);
    };
    let icon = match phase.status {
        PhaseStatus::Passed => "✅",
        PhaseStatus::Skipped => "⏭️",
        PhaseStatus::Failed | PhaseStatus::Error => "❌",
    };
    format!(
        "| {} | {icon} {} |\n",
        phase.title,
        md(&view.headline, CELL_CHARS)
    )
}

/// The section, empty when the curve did not run.
pub(super) fn section(view: Option<&StressView<'_>>) -> String {
    let Some(view) = view else {
        return String::new();
    };
    let mut out = String::from("### Tool-count stress\n\n");
    out.push_str(&format!("{}\n\n", md(&view.headline, LINE_CHARS)));
    for m in &view.models {
        if view.several {
            out.push_str(&format!("**{}**\n\n", md(m.model, CELL_CHARS)));
        }
        out.push_str("| Distractors | Tools |");
        for order in &view.orders {
            out.push_str(&format!(
                " {} |",
                crate::report::console::order_header(*order)
            ));
        }
        out.push_str("\n|---:|---:|");
        out.push_str(&"---|".repeat(view.orders.len()));
        out.push('\n');
        for row in &m.rows {
            out.push_str(&format!("| {} | {} |", row.distractors, row.tools));
            for c in &row.cells {
                let text = match c {
                    None => "–".to_owned(),
                    Some(c) if c.breaks => format!("❌ **{}** breaks", md(&c.text, 80)),
                    Some(c) if c.below => format!("❌ {}", md(&c.text, 80)),
                    Some(c) => md(&c.text, 80),
                };
                out.push_str(&format!(" {text} |"));
            }
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&format!("{}\n\n", md(&m.breaking, LINE_CHARS)));
        if let Some(line) = &m.headroom {
            out.push_str(&format!("{}\n\n", md(line, LINE_CHARS)));
        }
        if let Some(title) = &m.misses_title {
            out.push_str(&format!("{}\n\n", md(title, LINE_CHARS)));
            for line in &m.misses {
                out.push_str(&format!("- {}\n", md(line, LINE_CHARS)));
            }
            if let Some(more) = &m.misses_more {
                out.push_str(&format!("- {more}\n"));
            }
            out.push('\n');
        }
        if let Some((held, line)) = &m.gate {
            let icon = if *held { "✅" } else { "❌" };
            out.push_str(&format!("{icon} {}\n\n", md(line, LINE_CHARS)));
        }
    }
    for line in [
        Some(&view.lists),
        Some(&view.answers),
        view.skipped.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        out.push_str(&format!("{}\n\n", md(line, LINE_CHARS)));
    }
    out
}
