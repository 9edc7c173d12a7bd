//! The history file of the merged run: one record for the whole run (one line per model, as a
//! run writes), the trend and the comparison with the base branch, as `run --history` does.

use std::path::Path;
use std::time::SystemTime;

use crate::evals::judging::history;
use crate::outcome::{HistoryRecord, RunReport};
use crate::report::redact::Redactor;
use crate::settings::MergeSettings;

/// Appends the merged run to the history file at `path`, sets the evals' trend, and returns
/// what the report says about it.
pub(super) fn record(
    path: &Path,
    report: &mut RunReport,
    settings: &MergeSettings,
) -> HistoryRecord {
    let phases = &report.phases;
    let gathered = history::Gathered::of(
        Some(&phases.checks),
        Some(&phases.tests),
        Some(&phases.evals),
        report.inventory.as_ref(),
        &Redactor::new(settings.secrets()),
    );
    let now = crate::outcome::rfc3339(SystemTime::now());
    let dir = std::env::current_dir().unwrap_or_default();
    let recorded = history::record(path, gathered.facts(), &now, &dir, settings.revision());
    history::outcome(path, recorded, Some(&mut report.phases.evals))
}
