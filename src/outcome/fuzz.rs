//! What the fuzz phase found: per tool, the calls made and each finding, shrunk, with the
//! `tests:` entry that reproduces it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The fuzz phase's results.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FuzzResults {
    /// The seed every input came from (`--seed` replays the run).
    pub seed: u64,
    /// Examples per batch (valid and invalid).
    pub max_examples: u32,
    /// Tools in server order: fuzzed, or skipped and why.
    pub tools: Vec<FuzzTool>,
    /// Set when `run` fuzzed no tool (the phase is then skipped, never passed): why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

impl FuzzResults {
    /// Findings over every tool.
    pub fn findings(&self) -> usize {
        self.tools.iter().map(|t| t.findings.len()).sum()
    }

    /// Tools that were fuzzed (not skipped).
    pub fn fuzzed(&self) -> usize {
        self.tools.iter().filter(|t| t.skipped.is_none()).count()
    }

    /// `2 findings in 3 tools (seed 7)`.
    pub fn counts_text(&self) -> String {
        let n = self.findings();
        let t = self.fuzzed();
        format!(
            "{n} finding{} in {t} tool{} (seed {})",
            if n == 1 { "" } else { "s" },
            if t == 1 { "" } else { "s" },
            self.seed
        )
    }
}

/// One tool.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FuzzTool {
    /// Tool name.
    pub tool: String,
    /// `passed`, `failed` or `skipped`.
    pub status: String,
    /// Why it was not fuzzed.
    pub skipped: Option<String>,
    /// `tools/call` requests sent, shrinking included.
    pub calls: u64,
    /// Valid inputs tried (before shrinking).
    pub valid_inputs: u64,
    /// Invalid inputs tried (before shrinking).
    pub invalid_inputs: u64,
    /// Why fuzzing this tool stopped early (time budget, repeated hangs, a server that could
    /// not be restarted), and the inputs it left out (a duration longer than the time left).
    pub stopped: Option<String>,
    /// Wall time.
    pub duration_ms: f64,
    /// What went wrong, one per kind and mode, valid first.
    pub findings: Vec<FuzzFinding>,
}

/// One finding.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FuzzFinding {
    /// `hang`, `slow`, `crash`, `rejected-valid`, `internal-error`, `unhandled-exception`,
    /// `accepted-invalid`, `unexpected-error`, `output-schema` or `bad-schema`.
    pub kind: String,
    /// `valid` or `invalid`: whether the input satisfied the input schema.
    pub mode: String,
    /// The smallest input found that still shows it.
    pub input: Value,
    /// For an invalid input, why the schema rejects it (`/order/qty: -1 is less than the
    /// minimum of 0`).
    pub defect: Option<String>,
    /// What happened.
    pub detail: String,
    /// What the server wrote to stderr during the call (a crash's last words).
    pub stderr: Option<String>,
    /// The input as first found, before shrinking.
    pub found_input: Value,
    /// Calls spent shrinking.
    pub shrink_calls: u64,
    /// A `tests:` entry that reproduces the finding, ready to paste into `toolproof.yaml`.
    pub test: String,
}
