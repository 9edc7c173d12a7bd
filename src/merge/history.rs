//! The history file of the merged run: one record for the whole run (one line per model, as a
//! run writes), the trend and the comparison with the base branch, as `run --history` does.

use std::path::Path;
use std::time::SystemTime;

use crate::evals::history::{self, RunFacts};
use crate::report::model::{FindingKey, HistoryRecord, RunReport, TestStatus};
use crate::report::redact::Redactor;
use crate::settings::MergeSettings;

/// Appends the merged run to the history file at `path`, sets the evals' trend, and returns
/// what the report says about it.
pub fn record(path: &Path, report: &mut RunReport, settings: &MergeSettings) -> HistoryRecord {
    let secrets = Redactor::new(settings.secrets());
    let phases = &report.phases;
    let mut findings: Option<Vec<FindingKey>> = phases.checks.ran().then(|| {
        phases
            .checks
            .results
            .findings
            .iter()
            .filter(|f| f.fails)
            .map(|f| FindingKey {
                check: f.check.clone(),
                tool: f.tool.clone(),
            })
            .collect()
    });
    secrets.serde(&mut findings);
    let mut failed: Option<Vec<String>> = phases.tests.ran().then(|| {
        phases
            .tests
            .results
            .iter()
            .filter(|t| matches!(t.status, TestStatus::Failed | TestStatus::Error))
            .map(|t| t.name.clone())
            .collect()
    });
    secrets.serde(&mut failed);
    let mut evals = phases.evals.results.clone();
    secrets.serde(&mut evals);
    let mut tools: Option<Vec<String>> = report
        .inventory
        .as_ref()
        .map(|i| i.tools.iter().map(|t| t.name.clone()).collect());
    secrets.serde(&mut tools);
    let facts = RunFacts {
        evals: evals.as_ref(),
        findings: findings.as_deref(),
        failed_tests: failed.as_deref(),
        tools: tools.as_deref(),
    };
    let now = crate::run::rfc3339(SystemTime::now());
    let dir = std::env::current_dir().unwrap_or_default();
    let recorded = history::record(path, facts, &now, &dir, settings.revision());
    let mut record = HistoryRecord {
        path: path.display().to_string(),
        ..HistoryRecord::default()
    };
    match recorded {
        Ok(r) => {
            record.recorded = true;
            record.base = r.base;
            if let Some(results) = report.phases.evals.results.as_mut() {
                results.history = r.trend;
            }
        }
        Err(e) => {
            let note = format!("the history file {} was not written: {e}", path.display());
            let phase = &mut report.phases.evals;
            if phase.results.is_some() {
                phase.reason = Some(match phase.reason.take() {
                    Some(r) => format!("{r}; {note}"),
                    None => note.clone(),
                });
            }
            record.error = Some(note);
        }
    }
    record
}
