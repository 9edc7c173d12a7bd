//! YAML tool-call test results and their counts.

use serde::{Deserialize, Serialize};

/// How one YAML test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    /// Every expectation held.
    Passed,
    /// Passed, but only on a retry.
    Flaky,
    /// An expectation failed.
    Failed,
    /// No usable answer: timeout, crash, transport failure.
    Error,
    /// Never called (server could not be restarted, filtered out).
    NotRun,
}

/// One YAML test.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TestResult {
    /// Test name.
    pub name: String,
    /// Tool called.
    pub tool: String,
    /// How it ended.
    pub status: TestStatus,
    /// Failure lines, first one first.
    pub failures: Vec<String>,
    /// Latency of the last attempt.
    pub latency_ms: f64,
    /// Attempts made.
    pub attempts: u32,
    /// The result's `isError`, when a result came back.
    pub is_error: Option<bool>,
    /// The result's text, when a result came back.
    pub text: Option<String>,
    /// Server stderr written during the failing call.
    pub stderr: Option<String>,
    /// Tags from the YAML.
    pub tags: Vec<String>,
    /// YAML line of the test.
    pub line: Option<u32>,
    /// Requests the server sent toolproof during the last attempt's call (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`), with what was answered; omitted when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_requests: Vec<ServerRequest>,
    /// What the report says without failing the test: `error-as-success: …` when the result's
    /// `isError` is false while its only text reads as an error and the test does not say
    /// which it expects; omitted when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One request a server sent during a test's call, and what toolproof answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerRequest {
    /// The request's method.
    pub method: String,
    /// What was answered, in words (`accept`, `decline`, `text (15 characters)`, `2 roots`,
    /// `refused: …`).
    pub answer: String,
    /// Why the scripted answer could not be given as written (it breaks the requested schema),
    /// which fails the test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// How many YAML tests ended which way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TestCounts {
    /// Passed at the first attempt.
    pub passed: usize,
    /// Passed on a retry.
    pub flaky: usize,
    /// An expectation failed.
    pub failed: usize,
    /// No usable answer.
    pub errors: usize,
    /// Never called.
    pub not_run: usize,
}

impl TestCounts {
    /// `4/5 passed (1 flaky), 1 failed, 1 error, 2 not run`: the parts after the first only
    /// when there are any.
    pub fn out_of_text(&self) -> String {
        use super::plural;
        let mut s = format!("{}/{} passed", self.ok(), self.total());
        if self.flaky > 0 {
            s.push_str(&format!(" ({} flaky)", self.flaky));
        }
        if self.failed > 0 {
            s.push_str(&format!(", {} failed", self.failed));
        }
        if self.errors > 0 {
            s.push_str(&format!(", {} error{}", self.errors, plural(self.errors)));
        }
        if self.not_run > 0 {
            s.push_str(&format!(", {} not run", self.not_run));
        }
        s
    }

    /// Counts the outcomes of `tests`.
    pub fn of(tests: &[TestResult]) -> Self {
        let mut counts = TestCounts::default();
        for t in tests {
            match t.status {
                TestStatus::Passed => counts.passed += 1,
                TestStatus::Flaky => counts.flaky += 1,
                TestStatus::Failed => counts.failed += 1,
                TestStatus::Error => counts.errors += 1,
                TestStatus::NotRun => counts.not_run += 1,
            }
        }
        counts
    }

    /// All tests.
    pub fn total(&self) -> usize {
        self.passed + self.flaky + self.failed + self.errors + self.not_run
    }

    /// Tests that passed in the end (flaky ones included).
    pub fn ok(&self) -> usize {
        self.passed + self.flaky
    }
}
