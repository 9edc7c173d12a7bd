//! The protocol section of the console report: one row per check with its severity and what
//! the server did (or why the check was skipped).

use super::phase_line;
use crate::outcome::{PhaseOverview, ProtocolResults, Severity};
use crate::report::escape::clean;
use crate::report::table::{Cell, Column, Paint, Table};

pub(super) fn section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: Option<&ProtocolResults>,
    width: usize,
    color: bool,
) {
    let detail = phase.reason.map(|s| clean(s).into_owned());
    phase_line(out, phase, detail.as_deref(), color);
    let Some(r) = results.filter(|r| !r.checks.is_empty()) else {
        out.push('\n');
        return;
    };
    out.push_str(&table(r).render(width, color));
    out.push('\n');
}

fn table(r: &ProtocolResults) -> Table {
    let mut table = Table::new(vec![
        Column::fixed(""),
        Column::text("Check"),
        Column::fixed("Severity"),
        Column::text("Details"),
    ]);
    for c in &r.checks {
        let mark = match (c.status.as_str(), c.severity) {
            ("passed", _) => Cell::painted("PASS", Paint::Green),
            ("skipped", _) => Cell::painted("SKIP", Paint::Dim),
            (_, Severity::Error) => Cell::painted("FAIL", Paint::Red),
            (_, Severity::Warning) => Cell::painted("WARN", Paint::Yellow),
            (_, Severity::Info) => Cell::painted("INFO", Paint::Dim),
        };
        let severity = c.severity.as_str();
        table.row(vec![
            mark,
            Cell::new(c.id.clone()),
            Cell::new(severity),
            Cell::new(clean(c.detail.as_deref().unwrap_or_default())),
        ]);
    }
    table
}
