//! The bench row of the phase table and the table of targets.

use super::phase_row;
use super::text::md;
use crate::outcome::{BenchResults, PhaseOverview};

/// Longest details cell, in characters.
const DETAILS_CHARS: usize = 300;

pub(super) fn row(phase: &PhaseOverview<'_>, results: Option<&BenchResults>) -> String {
    phase_row(
        phase,
        results.map(|r| format!("{}/{} within limits", r.passed(), r.targets.len())),
    )
}

/// The targets as a table, after the phase table (empty when the bench did not run).
pub(super) fn table(results: Option<&BenchResults>) -> String {
    let Some(r) = results.filter(|r| !r.targets.is_empty()) else {
        return String::new();
    };
    let mut out = String::from(
        "| | Bench target | Calls | p50 | p95 | p99 | Calls/s | Errors | Details |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for t in &r.targets {
        out.push_str(&format!(
            "| {} | {} | {} | {:.1}ms | {:.1}ms | {:.1}ms | {:.1} | {:.1}% | {} |\n",
            if t.passed { "✅" } else { "❌" },
            md(&t.name, 100),
            t.calls_text(),
            t.p50_ms,
            t.p95_ms,
            t.p99_ms,
            t.throughput,
            t.error_rate * 100.0,
            md(&t.details().join("; "), DETAILS_CHARS),
        ));
    }
    out.push('\n');
    out
}
