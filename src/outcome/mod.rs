//! The one data model every report is rendered from. The engine fills a [`RunReport`]; renderers
//! read it and return text. Its serde form is the JSON report (schema version
//! [`SCHEMA_VERSION`], documented in `docs/json-report.md`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

mod bench;
mod checks;
mod comparison;
pub mod cost;
mod crowd;
mod evals;
mod fuzz;
mod history;
mod lint;
mod plan;
mod protocol;
pub mod rates;
mod stamp;
mod stress;
mod suite;
mod surface;

pub use bench::{BaselineDelta, BaselineInfo, BenchResults, BenchTargetResult, Latency, Limits};
pub use checks::{ChecksResults, Finding, Severity};
pub use comparison::{BaseRef, ComparedRow, Comparison, Fingerprint, Verdict, p_text};
pub use cost::{ModelCost, PriceUsed, Tokens};
pub use crowd::{Collision, Crowd, CrowdNeighbour, Steal};
pub use fuzz::{FuzzFinding, FuzzResults, FuzzTool};
pub use lint::{ContrastPair, Coverage, LintFinding, LintResults, NotChecked, ToolCoverage};
pub use plan::{BudgetUse, EvalPlan, ModelPlan};
pub(crate) use plan::{POWER, pct};
pub use protocol::{ProtocolCheck, ProtocolResults};
pub use stamp::{config_digest, hex, rfc3339, verdict};
pub use stress::{
    StressBreak, StressHeadroom, StressMiss, StressModel, StressPoint, StressResults, ToolOrder,
};

/// How "no tool" is written wherever a tool name would be.
pub const NO_TOOL: &str = "(no tool)";
pub use evals::ContextEntry;
pub use evals::{
    AnswerKind, CacheUse, CaseStatus, ConcurrencyUse, Confusion, EvalCaseResult, EvalsResults,
    Gate, GateKind, HistoryPoint, HistoryTrend, ModelEval, OverridesUse, PickedCall, Share,
    ToolListTokens, ToolScore, ToolTokens, ToolsUnseen, TrialResult,
};
pub use history::{
    BaseComparison, BaseRun, FindingChanges, FindingKey, HistoryRecord, ModelChange, TestChanges,
};
pub use suite::{ServerRequest, TestCounts, TestResult, TestStatus};
pub use surface::{AffectedRow, ChangeKind, SurfaceChange, SurfaceResults};

/// Version of the JSON report's shape; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything one invocation found out.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// How many non-protocol lines it printed in all (`stdout_noise` keeps the first ones).
    pub stdout_noise_total: usize,
    /// The signal that stopped the run (`SIGINT`, `SIGTERM`), when one did; phases it cut
    /// short say so in their reason.
    pub interrupted: Option<String>,
    /// What the config says that loads but has no effect (`file:line:col: message`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_warnings: Vec<String>,
    /// The phases, always all of them, in run order.
    pub phases: Phases,
    /// What `cache status` or `cache prune` found (only for those commands).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_audit: Option<CacheAudit>,
    /// The history file (`--history`): whether this run was recorded, and what changed against
    /// the base branch's last recorded run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryRecord>,
    /// Which shard of a sharded run this is (`--shard K/N`); absent when the run was not
    /// sharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// sha256 (hex) of the config file's bytes; absent without a config
    /// file. `merge` refuses reports whose digests differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_digest: Option<String>,
    /// Values to redact from every rendering (never serialized).
    #[serde(skip, default)]
    pub secrets: Vec<String>,
    /// The keys of the phases that are no part of this run (no section in the config, or not
    /// a phase of the command): the JUnit report has no testcase for them. Serialized as
    /// `absent_phases` (only when there are any), so `merge` reads them back.
    #[serde(
        default,
        rename = "absent_phases",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "phase_keys"
    )]
    pub absent: Vec<&'static str>,
}

/// One shard of a run split with `--shard K/N`.
pub use crate::shard::Shard;

/// The phase keys of `absent_phases`, as the static keys of [`Phases::overview`]; unknown
/// keys are dropped.
fn phase_keys<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<&'static str>, D::Error> {
    const KEYS: [&str; 8] = [
        "checks", "tests", "evals", "lint", "stress", "bench", "fuzz", "protocol",
    ];
    let names = Vec::<String>::deserialize(d)?;
    Ok(names
        .iter()
        .filter_map(|n| KEYS.iter().find(|k| **k == n.as_str()).copied())
        .collect())
}

/// The committed eval cache compared with the current cases (`cache status`, `cache prune`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CacheAudit {
    /// The cache folder.
    pub dir: String,
    /// Every answer the current cases, models and trials need, in order.
    pub answers: Vec<CachedAnswer>,
    /// Files no current case can hit (`cache prune`).
    pub stale: Vec<String>,
    /// Whether the stale files were removed (`cache prune --apply`).
    pub removed: bool,
    /// Stale files `cache prune --apply` could not remove (the others were removed).
    pub not_removed: Vec<NotRemoved>,
    /// Why the audit could not be finished (an unreadable cache folder…).
    pub error: Option<String>,
}

/// A stale cache file that could not be removed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NotRemoved {
    /// The file.
    pub file: String,
    /// Why not.
    pub error: String,
}

/// One answer a current case needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedAnswer {
    /// The case name, with the model when there are several and the trial after the first.
    pub label: String,
    /// The cache key (sha256 hex).
    pub key: String,
    /// `cached`, `missing` or `corrupt`.
    pub state: String,
}

impl CacheAudit {
    /// Answers not usable from the cache (missing or corrupt).
    pub fn missing(&self) -> usize {
        self.answers.iter().filter(|a| a.state != "cached").count()
    }
}

/// Name and version of the tool that wrote the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Generator {
    /// Always `toolproof`.
    pub name: String,
    /// Crate version.
    pub version: String,
}

impl RunReport {
    /// How many non-protocol lines the server printed on stdout in all.
    pub fn noise_count(&self) -> usize {
        self.stdout_noise_total.max(self.stdout_noise.len())
    }
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
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// `stdio`, `http` (streamable HTTP) or `sse` (the 2024-11-05 HTTP+SSE transport).
    pub transport: String,
    /// The capabilities object as sent.
    pub capabilities: Value,
}

/// The server could not be started, reached or understood.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerError {
    /// What went wrong, one line first.
    pub message: String,
    /// Server stderr written before it failed, if any.
    pub stderr: Option<String>,
}

/// What `tools/list`, `resources/list` and `prompts/list` returned.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Inventory {
    /// Tools in server order.
    pub tools: Vec<ToolSummary>,
    /// Resources as sent (`None` when the server has no resources capability).
    pub resources: Option<Vec<Value>>,
    /// Prompts as sent (`None` when the server has no prompts capability).
    pub prompts: Option<Vec<Value>>,
    /// Listings that failed (`resources/list failed: …`): reported, not fatal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// The estimated tokens of the whole tool list as a model is sent it (tools whose input
    /// schema is not valid JSON Schema are left out of it, as the evals leave them out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_list_tokens: Option<u64>,
}

/// One tool, as `inspect` shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// Its estimated tokens in the tool list a model is sent; `None` when it is left out of
    /// that list (input schema not valid JSON Schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// The tool object exactly as the server sent it (`inspect --json` prints it as `tools[]`;
    /// the run report leaves it out).
    #[serde(skip, default)]
    pub definition: Value,
}

/// How a phase ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Phases {
    /// Static checks.
    pub checks: Phase<ChecksResults>,
    /// YAML tool-call tests.
    pub tests: Phase<Vec<TestResult>>,
    /// Tool-selection evals.
    pub evals: Phase<Option<EvalsResults>>,
    /// The set lint: the labelled eval cases checked against the tool list.
    pub lint: Phase<Option<LintResults>>,
    /// The evals again with distractor tools added and the tool list reordered.
    pub stress: Phase<Option<StressResults>>,
    /// Latency benchmarks.
    pub bench: Phase<Option<BenchResults>>,
    /// Schema fuzzing.
    pub fuzz: Phase<Option<FuzzResults>>,
    /// The server's protocol behaviour.
    pub protocol: Phase<Option<ProtocolResults>>,
    /// The server's tools, prompts and resources against `toolproof.lock`; absent when the
    /// run has no lock file to compare with (and was not `--locked`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<Phase<SurfaceResults>>,
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

/// A phase without its results, under `key` and `title`.
fn view<'a, T>(key: &'static str, title: &'static str, p: &'a Phase<T>) -> PhaseOverview<'a> {
    PhaseOverview {
        key,
        title,
        status: p.status,
        reason: p.reason.as_deref(),
        duration_ms: p.duration_ms,
    }
}

impl Phases {
    /// The surface phase without its results, when the run compared the server with its lock.
    pub fn surface_overview(&self) -> Option<PhaseOverview<'_>> {
        self.surface.as_ref().map(|p| view("surface", "Surface", p))
    }

    /// Every phase in run order, without its results.
    pub fn overview(&self) -> [PhaseOverview<'_>; 8] {
        [
            view("checks", "Static checks", &self.checks),
            view("tests", "Tests", &self.tests),
            view("evals", "Evals", &self.evals),
            view("lint", "Set lint", &self.lint),
            view("stress", "Stress", &self.stress),
            view("bench", "Bench", &self.bench),
            view("fuzz", "Fuzz", &self.fuzz),
            view("protocol", "Protocol", &self.protocol),
        ]
    }
}

/// `"s"` unless `n` is one.
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
