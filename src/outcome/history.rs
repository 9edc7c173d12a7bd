//! The history file as the report sees it: whether this run was recorded in it, and what
//! changed against the base branch's last recorded run (the pull request comment's subject).
//! The engine (`evals::judging::history`) fills it; renderers only read it.

use serde::{Deserialize, Serialize};

/// The history file (`--history`) of this run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct HistoryRecord {
    /// The history file.
    pub path: String,
    /// Whether this run's lines were appended to it.
    pub recorded: bool,
    /// Why they were not, when they were not.
    pub error: Option<String>,
    /// The comparison with the base branch, when the run knows one (`GITHUB_BASE_REF`).
    pub base: Option<BaseComparison>,
}

/// This run against the last run the history file holds for the base branch.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BaseComparison {
    /// The base branch (`GITHUB_BASE_REF`).
    pub base_ref: String,
    /// The latest line of the base branch: when and which commit. `None` when the file holds
    /// no run of the base branch (then nothing below has a base value).
    pub run: Option<BaseRun>,
    /// One per model this run scored, in the order asked.
    pub models: Vec<ModelChange>,
    /// Failing static-check findings that appeared or went away; `None` when this run or
    /// every base line lacks the checks.
    pub checks: Option<FindingChanges>,
    /// Tests that newly fail or no longer fail; `None` when this run or every base line lacks
    /// the tests.
    pub tests: Option<TestChanges>,
}

/// When the base branch was last recorded.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BaseRun {
    /// RFC 3339 time of that run.
    pub time: String,
    /// Its commit, when recorded.
    pub commit: Option<String>,
}

/// One model's accuracy now and on the base branch, and the cases that changed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ModelChange {
    /// Model id.
    pub model: String,
    /// This run's accuracy in 0..1.
    pub accuracy: f64,
    /// The base branch's last recorded accuracy for the same provider and model; `None` when
    /// the base never ran it.
    pub base_accuracy: Option<f64>,
    /// Cases missed now that the base got right (or that it did not have).
    pub newly_missed: Vec<String>,
    /// Cases the base missed that are right now.
    pub newly_passing: Vec<String>,
}

/// A failing static-check finding as the history file records it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FindingKey {
    /// Check id, e.g. `description-length`.
    pub check: String,
    /// The tool it is about.
    pub tool: String,
}

/// Failing findings new in this run, and those the base had that are gone.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FindingChanges {
    /// Failing now, not on the base branch.
    pub new: Vec<FindingKey>,
    /// Failing on the base branch, not now.
    pub fixed: Vec<FindingKey>,
}

/// Tests failing now that did not on the base branch, and the reverse.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TestChanges {
    /// Failed (or errored) now, not on the base branch.
    pub newly_failing: Vec<String>,
    /// Failed on the base branch, not now.
    pub fixed: Vec<String>,
}

impl BaseComparison {
    /// Whether anything differs from the base run: an accuracy, a case, a finding, a test.
    /// Without a base run there is nothing to differ from.
    pub fn changed(&self) -> bool {
        if self.run.is_none() {
            return false;
        }
        let models = self.models.iter().any(|m| {
            m.base_accuracy
                .is_some_and(|base| (base - m.accuracy).abs() > 1e-9)
                || !m.newly_missed.is_empty()
                || !m.newly_passing.is_empty()
        });
        let checks = self
            .checks
            .as_ref()
            .is_some_and(|c| !c.new.is_empty() || !c.fixed.is_empty());
        let tests = self
            .tests
            .as_ref()
            .is_some_and(|t| !t.newly_failing.is_empty() || !t.fixed.is_empty());
        models || checks || tests
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_any_difference_against_a_known_base() {
        let mut c = BaseComparison {
            base_ref: "main".into(),
            run: None,
            models: vec![ModelChange {
                model: "m".into(),
                accuracy: 0.9,
                base_accuracy: Some(0.95),
                ..ModelChange::default()
            }],
            ..BaseComparison::default()
        };
        assert!(!c.changed(), "no base run, nothing to compare");
        c.run = Some(BaseRun::default());
        assert!(c.changed());
        c.models[0].base_accuracy = Some(0.9);
        assert!(!c.changed());
        c.tests = Some(TestChanges {
            newly_failing: vec!["t".into()],
            fixed: Vec::new(),
        });
        assert!(c.changed());
        c.tests = Some(TestChanges::default());
        c.checks = Some(FindingChanges {
            new: Vec::new(),
            fixed: vec![FindingKey {
                check: "c".into(),
                tool: "t".into(),
            }],
        });
        assert!(c.changed());
    }
}
