//! The stress section of the console report: the verdict, then per model a table with one row
//! per distractor count and one column per order, the breaking point and the misses there,
//! then what the lists were and how their answers were found.

use super::{phase_line, push_indented};
use crate::outcome::{PhaseOverview, ToolOrder};
use crate::report::escape::clean;
use crate::report::stress_view::{StressModelView, StressView};
use crate::report::table::{Cell, Column, Paint, Table};

pub(super) fn section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    view: Option<&StressView<'_>>,
    width: usize,
    color: bool,
) {
    let Some(view) = view else {
        let detail = phase.reason.map(|s| clean(s).into_owned());
        phase_line(out, phase, detail.as_deref(), color);
        out.push('\n');
        return;
    };
    phase_line(out, phase, Some(&clean(&view.headline)), color);
    for m in &view.models {
        if view.several {
            out.push('\n');
            out.push_str(&Paint::Bold.paint(&format!("Model {}", clean(m.model)), color));
            out.push('\n');
        }
        model_block(out, view, m, width, color);
    }
    for line in [
        Some(&view.lists),
        Some(&view.answers),
        view.skipped.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        push_indented(out, &clean(line), "  ");
    }
    out.push('\n');
}

fn model_block(
    out: &mut String,
    view: &StressView<'_>,
    m: &StressModelView<'_>,
    width: usize,
    color: bool,
) {
    let mut columns = vec![
        Column::fixed_right("Distractors"),
        Column::fixed_right("Tools"),
    ];
    columns.extend(view.orders.iter().map(|o| Column::text(order_header(*o))));
    let mut table = Table::new(columns);
    for row in &m.rows {
        let mut cells = vec![
            Cell::new(row.distractors.to_string()),
            Cell::new(row.tools.to_string()),
        ];
        cells.extend(row.cells.iter().map(|c| match c {
            None => Cell::new("-"),
            Some(c) if c.breaks => Cell::painted(format!("{} ↓ breaks", c.text), Paint::Red),
            Some(c) if c.below => Cell::painted(format!("{} ↓", c.text), Paint::Red),
            Some(c) => Cell::new(c.text.clone()),
        }));
        table.row(cells);
    }
    out.push_str(&table.render(width, color));
    if let Some(line) = &m.headroom {
        push_indented(out, &clean(line), "  ");
    }
    // With one model the phase line already says it.
    if view.several {
        let paint = if m.broke { Paint::Red } else { Paint::Green };
        out.push_str(&paint.paint(&m.breaking, color));
        out.push('\n');
    }
    if m.rows
        .iter()
        .flat_map(|r| r.cells.iter().flatten())
        .any(|c| c.below)
    {
        out.push_str(&format!("↓ below the {}\n", view.minimum));
    }
    if let Some(title) = &m.misses_title {
        out.push_str(title);
        out.push('\n');
        for line in &m.misses {
            push_indented(out, &format!("  {}", clean(line)), "    ");
        }
        if let Some(more) = &m.misses_more {
            out.push_str(&format!("  {more}\n"));
        }
    }
    if let Some((held, line)) = &m.gate {
        let mark = if *held {
            Paint::Green.paint("PASS", color)
        } else {
            Paint::Red.paint("FAIL", color)
        };
        out.push_str(&format!("{mark} {line}\n"));
    }
}

/// The column header of an order, in every report.
pub(crate) fn order_header(order: ToolOrder) -> &'static str {
    match order {
        ToolOrder::Server => "Server order",
        ToolOrder::Shuffled => "Shuffled",
        ToolOrder::Reversed => "Reversed",
    }
}
