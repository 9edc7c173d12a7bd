//! The bench section of the console report: one row per target.

use super::phase_line;
use crate::outcome::{BenchResults, PhaseOverview};
use crate::report::escape::clean;
use crate::report::table::{Cell, Column, Paint, Table};

pub(super) fn section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: Option<&BenchResults>,
    width: usize,
    color: bool,
) {
    let Some(r) = results else {
        let detail = phase.reason.map(|s| clean(s).into_owned());
        phase_line(out, phase, detail.as_deref(), color);
        out.push('\n');
        return;
    };
    phase_line(out, phase, Some(&clean(&r.counts_text())), color);
    let mut table = Table::new(vec![
        Column::fixed(""),
        Column::text("Target"),
        Column::fixed_right("Calls"),
        Column::fixed_right("p50"),
        Column::fixed_right("p95"),
        Column::fixed_right("p99"),
        Column::fixed_right("Calls/s"),
        Column::fixed_right("Errors"),
        Column::text("Details"),
    ]);
    for t in &r.targets {
        let mark = if t.passed {
            Cell::painted("PASS", Paint::Green)
        } else {
            Cell::painted("FAIL", Paint::Red)
        };
        table.row(vec![
            mark,
            Cell::new(clean(&t.name)),
            Cell::new(t.calls_text()),
            Cell::new(format!("{:.1}ms", t.p50_ms)),
            Cell::new(format!("{:.1}ms", t.p95_ms)),
            Cell::new(format!("{:.1}ms", t.p99_ms)),
            Cell::new(format!("{:.1}", t.throughput)),
            Cell::new(format!("{:.1}%", t.error_rate * 100.0)),
            Cell::new(clean(&t.details().join("\n"))),
        ]);
    }
    out.push_str(&table.render(width, color));
    out.push('\n');
}
