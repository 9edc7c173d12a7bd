//! What a history line records of a run, gathered from its phases with the run's secrets
//! masked, and what writing it does to the report: one place for `run --history` and
//! `merge --history`.

use std::path::Path;

use super::{Recorded, RunFacts};
use crate::outcome::{
    ChecksResults, EvalsResults, FindingKey, HistoryRecord, Inventory, Phase, TestResult,
    TestStatus,
};
use crate::report::redact::Redactor;

/// A run's facts for its history line, owned and masked.
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    evals: Option<EvalsResults>,
    findings: Option<Vec<FindingKey>>,
    failed_tests: Option<Vec<String>>,
    tools: Option<Vec<String>>,
}

impl Gathered {
    /// The failing findings when the checks ran, the failed and errored tests when the tests
    /// ran, the eval results (also of an evals phase that errored: its trend is still shown),
    /// and the tools listed; each masked, since the history file is written like a report.
    pub(crate) fn of(
        checks: Option<&Phase<ChecksResults>>,
        tests: Option<&Phase<Vec<TestResult>>>,
        evals: Option<&Phase<Option<EvalsResults>>>,
        inventory: Option<&Inventory>,
        secrets: &Redactor,
    ) -> Gathered {
        let mut g = Gathered {
            findings: checks.filter(|p| p.ran()).map(|p| {
                p.results
                    .findings
                    .iter()
                    .filter(|f| f.fails)
                    .map(|f| FindingKey {
                        check: f.check.clone(),
                        tool: f.tool.clone(),
                    })
                    .collect()
            }),
            failed_tests: tests.filter(|p| p.ran()).map(|p| {
                p.results
                    .iter()
                    .filter(|t| matches!(t.status, TestStatus::Failed | TestStatus::Error))
                    .map(|t| t.name.clone())
                    .collect()
            }),
            evals: evals.and_then(|p| p.results.clone()),
            tools: inventory.map(|i| i.tools.iter().map(|t| t.name.clone()).collect()),
        };
        secrets.serde(&mut g.findings);
        secrets.serde(&mut g.failed_tests);
        secrets.serde(&mut g.evals);
        secrets.serde(&mut g.tools);
        g
    }

    /// The facts, as [`super::record`] takes them.
    pub(crate) fn facts(&self) -> RunFacts<'_> {
        RunFacts {
            evals: self.evals.as_ref(),
            findings: self.findings.as_deref(),
            failed_tests: self.failed_tests.as_deref(),
            tools: self.tools.as_deref(),
        }
    }
}

/// What the report says of writing the history file at `path`: the trend goes into the evals'
/// results; a file that could not be written is noted on the evals phase too, when it has
/// results.
pub(crate) fn outcome(
    path: &Path,
    recorded: std::io::Result<Recorded>,
    evals: Option<&mut Phase<Option<EvalsResults>>>,
) -> HistoryRecord {
    let mut record = HistoryRecord {
        path: path.display().to_string(),
        ..HistoryRecord::default()
    };
    match recorded {
        Ok(r) => {
            record.recorded = true;
            record.base = r.base;
            if let Some(results) = evals.and_then(|p| p.results.as_mut()) {
                results.history = r.trend;
            }
        }
        Err(e) => {
            let note = format!("the history file {} was not written: {e}", path.display());
            if let Some(phase) = evals.filter(|p| p.results.is_some()) {
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
