//! The protocol phase in the Markdown summary: its row in the phase table and a list of the
//! checks that failed, with what the server did.

use super::CELL_CHARS;
use super::list::List;
use super::text::md;
use crate::outcome::{PhaseOverview, PhaseStatus, ProtocolResults, Severity};

/// `1 error, 2 warnings in 17 checks (3 skipped)` when the phase ran.
pub(super) fn result(
    phase: &PhaseOverview<'_>,
    results: Option<&ProtocolResults>,
) -> Option<String> {
    let r = results?;
    matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed).then(|| r.counts_text())
}

/// One row per failed check.
pub(super) fn findings(results: Option<&ProtocolResults>) -> List {
    let mut rows = Vec::new();
    for c in results
        .iter()
        .flat_map(|r| r.checks.iter())
        .filter(|c| c.failed())
    {
        let (mark, word) = match c.severity {
            Severity::Error => ("❌", "error"),
            Severity::Warning => ("⚠️", "warning"),
            Severity::Info => ("ℹ️", "info"),
        };
        rows.push(format!(
            "| {mark} | `{}` | {word} | {} |\n",
            md(&c.id, 40),
            md(c.detail.as_deref().unwrap_or_default(), CELL_CHARS)
        ));
    }
    List {
        summary: format!("Protocol findings ({})", rows.len()),
        open: true,
        header: "| | Check | Severity | Details |\n|---|---|---|---|\n",
        rows,
    }
}
