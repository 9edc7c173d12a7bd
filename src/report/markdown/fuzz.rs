//! The fuzz phase in the Markdown summary: its row in the phase table and a list of findings,
//! each with its smallest input.

use super::CELL_CHARS;
use super::list::List;
use super::text::md;
use crate::outcome::{FuzzResults, PhaseOverview, PhaseStatus};

/// Longest input shown, in characters.
const INPUT_CHARS: usize = 200;

/// `2 findings in 3 tools (seed 7)` when the phase ran.
fn result(phase: &PhaseOverview<'_>, results: Option<&FuzzResults>) -> Option<String> {
    let r = results?;
    matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed).then(|| r.counts_text())
}

/// The phase's row: a `run` that fuzzed nothing is skipped with a warning sign.
pub(super) fn row(phase: &PhaseOverview<'_>, results: Option<&FuzzResults>) -> String {
    match results.and_then(|r| r.warning.as_deref()) {
        Some(warning) => {
            let why = phase.reason.unwrap_or(warning);
            format!(
                "| {} | ⚠️ skipped: {} |\n",
                phase.title,
                md(why, CELL_CHARS)
            )
        }
        None => super::phase_row(phase, result(phase, results)),
    }
}

/// One row per finding.
pub(super) fn findings(results: Option<&FuzzResults>) -> List {
    let mut rows = Vec::new();
    let mut seed = None;
    if let Some(r) = results {
        seed = Some(r.seed);
        for t in &r.tools {
            for f in &t.findings {
                let input = serde_json::to_string(&f.input).unwrap_or_default();
                rows.push(format!(
                    "| ❌ | {} | {} ({}) | {} | {} |\n",
                    md(&t.tool, CELL_CHARS),
                    md(&f.kind, 40),
                    md(&f.mode, 10),
                    md(&input, INPUT_CHARS),
                    md(&f.detail, CELL_CHARS)
                ));
            }
        }
    }
    List {
        summary: format!(
            "Fuzz findings ({}){}",
            rows.len(),
            seed.map(|s| format!(", seed {s}")).unwrap_or_default()
        ),
        open: true,
        header: "| | Tool | Finding | Smallest input | Details |\n|---|---|---|---|---|\n",
        rows,
    }
}
