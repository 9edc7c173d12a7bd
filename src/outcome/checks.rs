//! Static-check results: findings with their severity.

use serde::{Deserialize, Serialize};

/// Severity of a static-check finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the run.
    Error,
    /// Fails the run only under `strict`.
    Warning,
    /// Never fails the run: advice (the set lint's `missing-why`, which `strict` raises to a
    /// warning).
    Info,
}

impl Severity {
    /// The lowercase word the reports use: `error`, `warning`, `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// Results of the static checks.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ChecksResults {
    /// Whether warnings fail the run.
    pub strict: bool,
    /// Names of the tools checked, in server order.
    pub tools: Vec<String>,
    /// Check ids turned off in the YAML.
    pub disabled: Vec<String>,
    /// Problems found, duplicates first then per tool in server order.
    pub findings: Vec<Finding>,
}

impl ChecksResults {
    /// `2 errors, 1 warning in 6 tools`.
    pub fn counts_text(&self) -> String {
        use super::plural;
        let (e, w, t) = (
            self.count(Severity::Error),
            self.count(Severity::Warning),
            self.tools.len(),
        );
        format!(
            "{e} error{}, {w} warning{} in {t} tool{}",
            plural(e),
            plural(w),
            plural(t)
        )
    }

    /// Number of findings of a severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// One static-check problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The tool it is about (`<unnamed>` for a tool without a name, `*` for the whole list,
    /// `a + b` for a pair).
    pub tool: String,
    /// Position of that tool in [`ChecksResults::tools`] when the finding is about one tool;
    /// absent for a name used several times (`duplicate-name`), a pair or the whole list. With
    /// two tools of the same name, it says which one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_index: Option<usize>,
    /// Stable check id, e.g. `description-length`.
    pub check: String,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// What to do about it, when there is a fix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Whether it fails the run (errors, and warnings under strict).
    pub fails: bool,
}

impl Finding {
    /// What a reader sees: the message, then `hint: …` on its own line when there is a hint.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match &self.hint {
            Some(hint) => format!("{}\nhint: {hint}", self.message).into(),
            None => self.message.as_str().into(),
        }
    }
}
