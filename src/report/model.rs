//! The one data model every report is rendered from. The engine fills a [`RunReport`]; renderers
//! read it and return text. Its serde form is the JSON report (schema version
//! [`SCHEMA_VERSION`], documented in `docs/json-report.md`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Version of the JSON report's shape; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything one invocation found out.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// `toolproof` and its version.
    pub generator: Generator,
    /// The subcommand: `run`, `inspect`, `eval`…
    pub command: String,
    /// How the server was named by the user (URL or command line, `${VAR}` left unexpanded).
    pub target: String,
    /// The config file, as given, when there was one.
    pub config_file: Option<String>,
    /// Identity and protocol of the server, once reached.
    pub server: Option<ServerSummary>,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// Wall time of the whole invocation.
    pub duration_ms: f64,
    /// Whether the invocation passed (exit code 0).
    pub passed: bool,
    /// The process exit code this report leads to.
    pub exit_code: i32,
    /// Why the server could not be used, when it could not.
    pub error: Option<ServerError>,
    /// What the server offers.
    pub inventory: Option<Inventory>,
    /// Non-protocol lines the server printed on stdout.
    pub stdout_noise: Vec<String>,
    /// The phases, always all five, in run order.
    pub phases: Phases,
    /// Values to redact from every rendering (never serialized).
    #[serde(skip)]
    pub secrets: Vec<String>,
}

/// Name and version of the tool that wrote the report.
#[derive(Debug, Clone, Serialize)]
pub struct Generator {
    /// Always `toolproof`.
    pub name: String,
    /// Crate version.
    pub version: String,
}

impl Default for Generator {
    fn default() -> Self {
        Generator {
            name: "toolproof".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// The server as it introduced itself.
#[derive(Debug, Clone, Serialize)]
pub struct ServerSummary {
    /// `serverInfo.name`.
    pub name: Option<String>,
    /// `serverInfo.version`.
    pub version: Option<String>,
    /// `serverInfo.title`.
    pub title: Option<String>,
    /// Negotiated protocol revision.
    pub protocol_version: String,
    /// `legacy` (initialize) or `modern` (server/discover).
    pub era: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The capabilities object as sent.
    pub capabilities: Value,
}

/// The server could not be started, reached or understood.
#[derive(Debug, Clone, Serialize)]
pub struct ServerError {
    /// What went wrong, one line first.
    pub message: String,
    /// Server stderr written before it failed, if any.
    pub stderr: Option<String>,
}

/// What `tools/list`, `resources/list` and `prompts/list` returned.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Inventory {
    /// Tools in server order.
    pub tools: Vec<ToolSummary>,
    /// Resources as sent (`None` when the server has no resources capability).
    pub resources: Option<Vec<Value>>,
    /// Prompts as sent (`None` when the server has no prompts capability).
    pub prompts: Option<Vec<Value>>,
}

/// One tool, as `inspect` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolSummary {
    /// Name.
    pub name: String,
    /// Title (tool `title`, else `annotations.title`).
    pub title: Option<String>,
    /// First line of the description.
    pub summary: String,
    /// Annotation hints as sent.
    pub annotations: Option<Value>,
    /// Whether an output schema is declared.
    pub has_output_schema: bool,
}

/// How a phase ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
    /// Ran, and everything in it passed.
    Passed,
    /// Ran, and something in it failed.
    Failed,
    /// Not run on purpose (disabled, not configured, filtered out). Never counts as passed.
    Skipped,
    /// Could not run (server unreachable, provider unusable).
    Error,
}

/// One phase: its status, why, and what it found.
#[derive(Debug, Clone, Serialize)]
pub struct Phase<T> {
    /// How it ended.
    pub status: PhaseStatus,
    /// Why it was skipped or errored, or a one-line verdict.
    pub reason: Option<String>,
    /// Wall time.
    pub duration_ms: f64,
    /// What it found (empty when it did not run).
    pub results: T,
}

impl<T: Default> Phase<T> {
    /// A phase that did not run on purpose.
    pub fn skipped(reason: impl Into<String>) -> Self {
        Phase {
            status: PhaseStatus::Skipped,
            reason: Some(reason.into()),
            duration_ms: 0.0,
            results: T::default(),
        }
    }

    /// A phase that could not run.
    pub fn error(reason: impl Into<String>) -> Self {
        Phase {
            status: PhaseStatus::Error,
            reason: Some(reason.into()),
            duration_ms: 0.0,
            results: T::default(),
        }
    }
}

impl<T> Phase<T> {
    /// Whether this phase makes the run fail.
    pub fn fails(&self) -> bool {
        matches!(self.status, PhaseStatus::Failed | PhaseStatus::Error)
    }

    /// Whether the phase ran (passed or failed).
    pub fn ran(&self) -> bool {
        matches!(self.status, PhaseStatus::Passed | PhaseStatus::Failed)
    }
}

/// All phases, in the order they run.
#[derive(Debug, Clone, Serialize)]
pub struct Phases {
    /// Static checks.
    pub checks: Phase<ChecksResults>,
    /// YAML tool-call tests.
    pub tests: Phase<Vec<TestResult>>,
    /// Tool-selection evals.
    pub evals: Phase<Option<EvalsResults>>,
    /// Latency benchmarks.
    pub bench: Phase<Option<Value>>,
    /// Schema fuzzing.
    pub fuzz: Phase<Option<Value>>,
}

/// Severity of a static-check finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the run.
    Error,
    /// Fails the run only under `strict`.
    Warning,
}

/// Results of the static checks.
#[derive(Debug, Clone, Default, Serialize)]
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
        use super::escape::plural;
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The tool it is about (`<unnamed>` for a tool without a name, `*` for the whole list,
    /// `a + b` for a pair).
    pub tool: String,
    /// Stable check id, e.g. `description-length`.
    pub check: String,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// What to do about it, when there is a fix.
    #[serde(skip_serializing_if = "Option::is_none")]
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

/// How one YAML test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, Serialize)]
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
}

impl PhaseStatus {
    /// The lowercase word used in the JSON report: `passed`, `failed`, `skipped`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            PhaseStatus::Passed => "passed",
            PhaseStatus::Failed => "failed",
            PhaseStatus::Skipped => "skipped",
            PhaseStatus::Error => "error",
        }
    }
}

/// One phase without its results: what the per-phase lines of every report are made from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseOverview<'a> {
    /// The phase's key in the JSON report: `checks`, `tests`, `evals`, `bench`, `fuzz`.
    pub key: &'static str,
    /// Its human name: `Static checks`, `Tests`, `Evals`, `Bench`, `Fuzz`.
    pub title: &'static str,
    /// How it ended.
    pub status: PhaseStatus,
    /// Why it was skipped or errored, or a one-line verdict.
    pub reason: Option<&'a str>,
    /// Wall time.
    pub duration_ms: f64,
}

impl Phases {
    /// All five phases in run order, without their results.
    pub fn overview(&self) -> [PhaseOverview<'_>; 5] {
        fn view<'a, T>(
            key: &'static str,
            title: &'static str,
            p: &'a Phase<T>,
        ) -> PhaseOverview<'a> {
            PhaseOverview {
                key,
                title,
                status: p.status,
                reason: p.reason.as_deref(),
                duration_ms: p.duration_ms,
            }
        }
        [
            view("checks", "Static checks", &self.checks),
            view("tests", "Tests", &self.tests),
            view("evals", "Evals", &self.evals),
            view("bench", "Bench", &self.bench),
            view("fuzz", "Fuzz", &self.fuzz),
        ]
    }
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
        use super::escape::plural;
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

/// Results of the tool-selection evals: one entry per model asked.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EvalsResults {
    /// `anthropic`, `openai` or `command`, as resolved (flag > env > YAML).
    pub provider: String,
    /// One per model (`evals.models`, or the single `model`).
    pub models: Vec<ModelEval>,
    /// Tools not offered to the model because their input schema is not valid JSON Schema.
    pub left_out_tools: Vec<String>,
    /// sha256 of the tool list sent to the model (the same list for every model).
    pub tool_list_hash: String,
    /// Cache use: where, and how many answers came from it.
    pub cache: CacheUse,
    /// The miss-rate history, when `--history` was given.
    pub history: Option<HistoryTrend>,
}

/// How the answer cache was used.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CacheUse {
    /// Whether the cache was read (`cache: true`, not `--no-cache`, not the command provider).
    pub read: bool,
    /// Whether new answers were written.
    pub write: bool,
    /// The cache folder.
    pub dir: Option<String>,
    /// Answers replayed from the cache.
    pub hits: usize,
    /// Answers asked of the provider.
    pub asked: usize,
    /// Cache files that could not be read (counted as misses).
    pub corrupt: usize,
}

/// How one model did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ModelEval {
    /// Model id (empty for a command provider without one).
    pub model: String,
    /// Whether this model passed every gate.
    pub passed: bool,
    /// Why the provider could not be used at all (key missing, 401, unknown model, 400 …).
    /// When set, no case counts as correct.
    pub error: Option<String>,
    /// Cases.
    pub total: usize,
    /// Cases correct on every trial.
    pub correct: usize,
    /// correct / total (0 when there are no cases).
    pub accuracy: f64,
    /// The gate on accuracy.
    pub min_accuracy: f64,
    /// Trials per case (the most any case had).
    pub trials: u32,
    /// Share of all trials that were correct.
    pub trial_accuracy: f64,
    /// Wilson 95% lower bound of the trial accuracy.
    pub wilson_lower: f64,
    /// The optional gate on `wilson_lower`.
    pub min_wilson_lower: Option<f64>,
    /// Names of critical cases that missed on some trial.
    pub critical_misses: Vec<String>,
    /// Cases that missed because of a provider error (after retries).
    pub provider_errors: usize,
    /// Cases not asked because `--offline` and no cached answer.
    pub uncached: Vec<String>,
    /// Every gate with its verdict, in the order checked.
    pub gates: Vec<Gate>,
    /// Expected → picked pairs of the misses, most frequent first.
    pub confusion: Vec<Confusion>,
    /// Per case, in YAML order.
    pub cases: Vec<EvalCaseResult>,
}

/// One pass/fail rule of the evals.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Gate {
    /// `min_accuracy`, `critical`, `min_wilson_lower`, `provider`, `offline`.
    pub name: String,
    /// Whether it held.
    pub passed: bool,
    /// One line: `accuracy 80% (8/10) is below the minimum 90%`.
    pub detail: String,
}

/// A confusion pair: the label said `expected`, the model picked `picked`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Confusion {
    /// Expected tool (`(no tool)` for none).
    pub expected: String,
    /// What was picked (`(no tool)` for none).
    pub picked: String,
    /// How many trials went this way.
    pub count: usize,
    /// Cases involved.
    pub cases: Vec<String>,
}

/// How a case ended over its trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseStatus {
    /// Correct on every trial.
    Correct,
    /// Wrong on some trial.
    Miss,
    /// Some trial got no usable answer from the provider (after retries).
    ProviderError,
    /// Not asked (offline without a cached answer, or the provider was unusable).
    NotRun,
}

/// One labelled case.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalCaseResult {
    /// Name (or the prompt, shortened).
    pub name: String,
    /// The prompt.
    pub prompt: String,
    /// Why the row exists.
    pub why: Option<String>,
    /// Must be right on every trial whatever the accuracy.
    pub critical: bool,
    /// YAML line (in the file holding the case).
    pub line: Option<u32>,
    /// File holding the case, when not the main config (`cases_file`).
    pub file: Option<String>,
    /// Expected tool; `None` means no tool.
    pub expect_tool: Option<String>,
    /// Expected arguments (subset).
    pub expect_args: Value,
    /// Outcome over the trials.
    pub status: CaseStatus,
    /// Correct trials / trials.
    pub pass_rate: f64,
    /// Both passed and failed across trials.
    pub ambiguous: bool,
    /// Each trial.
    pub trials: Vec<TrialResult>,
}

/// What kind of answer a trial got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// One or more tool calls.
    ToolCall,
    /// Text and no call.
    TextOnly,
    /// No call and no text.
    NoTool,
    /// The model declined (`stop_reason: refusal`, OpenAI `refusal`).
    Refusal,
    /// The answer was cut off (`max_tokens`/`length`).
    Truncated,
    /// No usable answer: the provider failed after retries.
    ProviderError,
    /// Not asked.
    NotAsked,
}

/// One call the model made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PickedCall {
    /// The MCP tool name (mapped back from the API-safe name).
    pub tool: String,
    /// Arguments as parsed.
    pub args: Value,
    /// The raw arguments string when it was not valid JSON.
    pub malformed_args: Option<String>,
}

/// One trial of a case.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrialResult {
    /// Whether it was correct.
    pub passed: bool,
    /// What kind of answer came back.
    pub kind: AnswerKind,
    /// Every call the model made, in order.
    pub calls: Vec<PickedCall>,
    /// Text that came with the answer.
    pub text: Option<String>,
    /// Why it is wrong (empty when correct).
    pub failures: Vec<String>,
    /// Replayed from the cache.
    pub cached: bool,
    /// The provider's error, for `ProviderError`.
    pub provider_error: Option<String>,
    /// Request time (0 when cached).
    pub latency_ms: f64,
}

/// The miss-rate trend read from the history file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct HistoryTrend {
    /// The history file.
    pub path: String,
    /// The last runs (oldest first), this run included.
    pub points: Vec<HistoryPoint>,
    /// Whether the miss rate rose across the window.
    pub rising: bool,
    /// Lines of the file that could not be read.
    pub skipped_lines: usize,
}

/// One run in the trend.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HistoryPoint {
    /// RFC 3339 time.
    pub time: String,
    /// Short commit, when known.
    pub commit: Option<String>,
    /// Model.
    pub model: String,
    /// Miss rate in 0..1.
    pub miss_rate: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_reads_as_its_message_then_its_hint() {
        let mut f = Finding {
            tool: "t".into(),
            check: "description".into(),
            severity: Severity::Error,
            message: "tool has no description".into(),
            hint: None,
            fails: true,
        };
        assert_eq!(f.text(), "tool has no description");
        assert!(
            !serde_json::to_string(&f)
                .unwrap_or_default()
                .contains("hint")
        );
        f.hint = Some("say what the tool does".into());
        assert_eq!(
            f.text(),
            "tool has no description\nhint: say what the tool does"
        );
        let json = serde_json::to_value(&f).unwrap_or_default();
        assert_eq!(json["hint"], "say what the tool does");
        assert_eq!(json["message"], "tool has no description");
    }
}
