//! What the protocol phase found: one entry per protocol check, passed, failed with what the
//! server did, or skipped and why.

use serde::{Deserialize, Serialize};

use super::Severity;

/// The protocol phase's results.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ProtocolResults {
    /// Whether failed warnings fail the phase.
    pub strict: bool,
    /// How the probes reached the server (`stdio`).
    pub transport: String,
    /// The version the server negotiated with the probes, when it did.
    pub protocol_version: Option<String>,
    /// Every check, in run order.
    pub checks: Vec<ProtocolCheck>,
}

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtocolCheck {
    /// The check id (`ping`, `unknown-method`, …).
    pub id: String,
    /// How much a failure weighs.
    pub severity: Severity,
    /// `passed`, `failed` or `skipped`.
    pub status: String,
    /// What the server did (failed) or why the check did not run (skipped).
    pub detail: Option<String>,
}

impl ProtocolCheck {
    /// Whether the check failed.
    pub fn failed(&self) -> bool {
        self.status == "failed"
    }
}

impl ProtocolResults {
    /// Failed checks of a severity.
    pub fn failed(&self, severity: Severity) -> usize {
        self.checks
            .iter()
            .filter(|c| c.failed() && c.severity == severity)
            .count()
    }

    /// Whether the phase fails: a failed error, or a failed warning under `strict`.
    pub fn fails(&self) -> bool {
        self.failed(Severity::Error) > 0 || (self.strict && self.failed(Severity::Warning) > 0)
    }

    /// `1 error, 2 warnings in 17 checks (3 skipped)`.
    pub fn counts_text(&self) -> String {
        use super::plural;
        let (e, w) = (self.failed(Severity::Error), self.failed(Severity::Warning));
        let skipped = self.checks.iter().filter(|c| c.status == "skipped").count();
        let n = self.checks.len();
        format!(
            "{e} error{}, {w} warning{} in {n} check{} ({skipped} skipped)",
            plural(e),
            plural(w),
            plural(n)
        )
    }
}
