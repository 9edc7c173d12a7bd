//! Settings: what one invocation will do, resolved once from the command line, the
//! environment and `toolproof.yaml` (flag > environment variable > YAML > default) by
//! [`Settings::resolve`]. Nothing after it reads `std::env` or the raw flags for an option; the
//! value is immutable and its fields are private.

mod batch;
mod bench;
mod compare;
mod env;
mod flags;
mod fuzz;
mod github;
mod merge;
mod outputs;
mod overrides;
mod protocol;
mod resolve;
mod revision;
mod secrets;
mod set_lint;
mod shard;
mod source;
mod spend;
mod stress;
mod suite;
mod surface;
#[cfg(test)]
mod tests;
mod workspace;

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

pub(crate) use batch::BatchSettings;
pub(crate) use bench::{BenchSettings, BenchTargetSettings, Thresholds};
pub(crate) use compare::CompareSettings;
pub(crate) use env::Env;
pub(crate) use fuzz::FuzzSettings;
pub(crate) use github::{Github, PrComment, PrCommentMode};
pub(crate) use merge::MergeSettings;
pub(crate) use protocol::ProtocolSettings;
pub(crate) use revision::Revision;
pub(crate) use set_lint::LintSettings;
pub(crate) use shard::case_ids;
pub(crate) use shard::case_name as case_identity;
pub(crate) use shard::identities as case_identities;
pub(crate) use source::{ConfigSource, config_source};
pub(crate) use spend::Budget;

/// The secrets an invocation must never print, before a config is read: toolproof's own
/// credentials in the environment (the providers' keys, the CI tokens). [`Settings::secrets`]
/// adds the config's `${VAR}` values to them.
pub(crate) fn environment_secrets(env: &Env) -> Vec<String> {
    secrets::resolve(env, &[])
}
pub(crate) use stress::StressSettings;
#[cfg(test)]
pub(crate) use suite::select;
pub(crate) use surface::SurfaceSettings;

use crate::config::{EvalConfig, LoadedConfig, TestCase, ToolChoice};
use crate::report::junit::JunitOptions;
use crate::report::places::Places;

/// Which command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommandKind {
    /// `toolproof inspect` (`json`: print the JSON report instead of the text view).
    Inspect {
        /// `--json`.
        json: bool,
    },
    /// `toolproof run`.
    Run,
    /// `toolproof eval`.
    Eval,
    /// `toolproof lint`.
    Lint,
    /// `toolproof bench`.
    Bench,
    /// `toolproof fuzz`.
    Fuzz,
    /// `toolproof protocol`.
    Protocol,
    /// `toolproof cache status`.
    CacheStatus,
    /// `toolproof cache prune` (`apply`: remove the files, not only list them).
    CachePrune {
        /// `--apply`.
        apply: bool,
    },
}

impl CommandKind {
    /// The name recorded in the report: `inspect`, `run`, `eval`, `cache status`, `cache prune`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CommandKind::Inspect { .. } => "inspect",
            CommandKind::Run => "run",
            CommandKind::Eval => "eval",
            CommandKind::Lint => "lint",
            CommandKind::Bench => "bench",
            CommandKind::Fuzz => "fuzz",
            CommandKind::Protocol => "protocol",
            CommandKind::CacheStatus => "cache status",
            CommandKind::CachePrune { .. } => "cache prune",
        }
    }
}

/// Where a resolved value came from; skip reasons and messages name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A command-line flag, e.g. `--skip-evals`.
    Flag(&'static str),
    /// An environment variable and its value, e.g. `TOOLPROOF_SKIP_EVALS=1`.
    Env(&'static str, String),
    /// A key of `toolproof.yaml`, e.g. `evals.enabled: false`.
    Yaml(&'static str),
    /// The built-in default.
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag(flag) => write!(f, "{flag}"),
            Origin::Env(name, value) => write!(f, "{name}={value}"),
            Origin::Yaml(key) => write!(f, "{key} in the config"),
            Origin::Default => write!(f, "the default"),
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Resolved<T> {
    /// The value in force.
    pub value: T,
    /// Who set it.
    pub origin: Origin,
}

impl<T> Resolved<T> {
    /// The same setting, its value converted (milliseconds into a `Duration`, say).
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Resolved<U> {
        Resolved {
            value: f(self.value),
            origin: self.origin,
        }
    }
}

/// Where a report goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// Standard output (`-`).
    Stdout,
    /// A path (possibly a device, a FIFO or a symlink; the writer decides how to write it).
    Path(PathBuf),
}

/// The report destinations and how the console looks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outputs {
    color: bool,
    width: usize,
    junit: Option<Target>,
    junit_file_attrs: bool,
    json: Option<Target>,
    html: Option<Target>,
    badge: Option<Target>,
    sarif: Option<Target>,
    summary: Option<Target>,
    save_tools: Option<Target>,
    annotations: bool,
    places: Places,
    live: LiveMode,
    history: Option<PathBuf>,
    github: Github,
}

/// Longest silence off a terminal while something runs, unless `TOOLPROOF_HEARTBEAT_S` says
/// otherwise (the promise is 30 s; the margin covers a loaded machine).
pub(crate) const DEFAULT_HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(20);

/// How progress reaches the user while a run works (always on stderr).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LiveMode {
    /// stderr is a terminal (and not CI): draw a progress bar.
    pub bar: bool,
    /// Colour the live lines.
    pub color: bool,
    /// Fold long sections with `::group::` (GitHub Actions).
    pub groups: bool,
    /// Print nothing live (`inspect`, `cache`).
    pub quiet: bool,
    /// Columns of the terminal stderr is: longer lines wrap there. `None` in a log.
    pub width: Option<usize>,
    /// Longest silence off a terminal while something runs (`TOOLPROOF_HEARTBEAT_S`).
    pub heartbeat: std::time::Duration,
}

/// Static checks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CheckSettings {
    enabled: Resolved<bool>,
    strict: Resolved<bool>,
}

impl CheckSettings {
    /// Whether the checks run (`--no-checks`, `checks.enabled`).
    pub(crate) fn enabled(&self) -> &Resolved<bool> {
        &self.enabled
    }
    /// Whether warnings fail (`--strict`, `TOOLPROOF_STRICT`, `checks.strict`).
    pub(crate) fn strict(&self) -> bool {
        self.strict.value
    }
    /// Whether a flag asked for the checks (`--checks`).
    pub(crate) fn asked(&self) -> bool {
        self.enabled.value && matches!(self.enabled.origin, Origin::Flag(_))
    }
}

/// Tool-call tests: the defaults every test falls back to, and which tests run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TestSettings {
    timeout: Resolved<Duration>,
    retries: Resolved<u32>,
    retry_delay: Duration,
    selected: Vec<usize>,
}

impl TestSettings {
    /// Default per-call timeout.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout.value
    }
    /// Default retries.
    pub(crate) fn retries(&self) -> u32 {
        self.retries.value
    }
    /// Default wait between attempts.
    pub(crate) fn retry_delay(&self) -> Duration {
        self.retry_delay
    }
    /// Indexes of the tests the filter selects, in YAML order.
    pub(crate) fn selected(&self) -> &[usize] {
        &self.selected
    }
}

/// Why the eval provider or model could not be resolved (the evals phase reports it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EvalSetupError {
    /// Nothing names a provider.
    #[error(
        "no eval provider: set evals.provider ({}), TOOLPROOF_EVAL_PROVIDER or --provider",
        crate::provider::registry::names().join(", ")
    )]
    NoProvider,
    /// A provider name nobody knows: what [`crate::provider::registry::unknown`] says of it.
    #[error("{0}")]
    UnknownProvider(String),
    /// `provider: command` without `evals.command`.
    #[error("the command provider needs evals.command")]
    NoCommand,
    /// Nothing names a model.
    #[error("no eval model: set evals.model (or evals.models), TOOLPROOF_EVAL_MODEL or --model")]
    NoModel,
}

/// Provider and models after flag > environment > YAML.
#[derive(Debug, Clone)]
pub(crate) struct EvalTarget {
    /// The provider.
    pub provider: &'static dyn crate::provider::Kind,
    /// Models to ask, in order (one empty id for a command provider without a model).
    pub models: Vec<String>,
}

impl PartialEq for EvalTarget {
    fn eq(&self, other: &Self) -> bool {
        self.provider.name() == other.provider.name() && self.models == other.models
    }
}

/// Tool-selection evals.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EvalSettings {
    target: Result<EvalTarget, EvalSetupError>,
    min_accuracy: Resolved<f64>,
    no_cache: bool,
    offline: Resolved<bool>,
    stress_on: Resolved<bool>,
    stress: Option<StressSettings>,
    tool_choice: Option<Resolved<ToolChoice>>,
    max_tokens_key: &'static str,
    batch: BatchSettings,
    prompt_cache: Resolved<bool>,
    compare: CompareSettings,
    /// `--dry-run`: print the plan, ask nothing.
    dry_run: bool,
    /// What the evals may spend.
    budget: Budget,
}

impl EvalSettings {
    /// The body key `evals.max_tokens` is sent under to the OpenAI provider:
    /// `evals.max_tokens_field`, where `auto` means `max_completion_tokens` for OpenAI's own
    /// API and `max_tokens` for any other `OPENAI_BASE_URL`.
    pub(crate) fn openai_max_tokens_key(&self) -> &'static str {
        self.max_tokens_key
    }
    /// The stress curve's tool lists, when it runs (`--stress`, `TOOLPROOF_EVAL_STRESS`,
    /// `evals.stress`).
    pub(crate) fn stress(&self) -> Option<&StressSettings> {
        self.stress.as_ref()
    }
    /// Why the stress curve does not run (meaningful when [`Self::stress`] is `None`).
    pub(crate) fn stress_off_reason(&self) -> String {
        stress::off_reason(&self.stress_on)
    }
    /// `--tool-choice` > `TOOLPROOF_EVAL_TOOL_CHOICE` > `evals.tool_choice`; `None` when
    /// nothing sets it (the request is then the reference's, `auto`).
    pub(crate) fn tool_choice(&self) -> Option<&ToolChoice> {
        self.tool_choice.as_ref().map(|r| &r.value)
    }
    /// Who set the tool choice, when someone did.
    pub(crate) fn tool_choice_origin(&self) -> Option<&Origin> {
        self.tool_choice.as_ref().map(|r| &r.origin)
    }
    /// Provider and models, or why they could not be resolved.
    pub(crate) fn target(&self) -> Result<&EvalTarget, &EvalSetupError> {
        self.target.as_ref()
    }
    /// The comparison with the base run.
    pub(crate) fn compare(&self) -> &CompareSettings {
        &self.compare
    }
    /// The accuracy gate.
    pub(crate) fn min_accuracy(&self) -> f64 {
        self.min_accuracy.value
    }
    /// `--no-cache`: ask again (answers are still written).
    pub(crate) fn no_cache(&self) -> bool {
        self.no_cache
    }
    /// `--offline`: never call a model API.
    pub(crate) fn offline(&self) -> bool {
        self.offline.value
    }
    /// When uncached requests go through the provider's batch API.
    pub(crate) fn batch(&self) -> &BatchSettings {
        &self.batch
    }

    /// Anthropic's prompt cache marker on the tool list and system prompt:
    /// `--no-prompt-cache` / `--prompt-cache` > `TOOLPROOF_PROMPT_CACHE` >
    /// `evals.prompt_cache` > on.
    pub(crate) fn prompt_cache(&self) -> bool {
        self.prompt_cache.value
    }
    /// `--dry-run` / `TOOLPROOF_DRY_RUN`: print the plan and ask nothing.
    pub(crate) fn dry_run(&self) -> bool {
        self.dry_run
    }
    /// `--max-requests`, `--max-cost` and their variables over `evals.budget`.
    pub(crate) fn budget(&self) -> &Budget {
        &self.budget
    }
}

/// Everything one invocation will do. Built only by [`Settings::resolve`].
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    command: CommandKind,
    loaded: LoadedConfig,
    checks: CheckSettings,
    tests: TestSettings,
    evals: Option<EvalSettings>,
    bench: Option<BenchSettings>,
    fuzz: Option<FuzzSettings>,
    protocol: Option<ProtocolSettings>,
    lint: Option<LintSettings>,
    skips: Skips,
    outputs: Outputs,
    revision: Revision,
    env: Env,
    secrets: Vec<String>,
    /// `--shard K/N`, when the run is one shard of several.
    shard: Option<crate::shard::Shard>,
    /// The whole `evals:` section when a shard holds only some of its cases (the set lint
    /// reads the whole set).
    whole_evals: Option<EvalConfig>,
    surface: surface::SurfaceSettings,
}

/// Whether `run` turns a configured later phase off (`--skip-X`, `TOOLPROOF_SKIP_X`,
/// `X.enabled: false`) or keeps it on against them (`--no-skip-X`, `TOOLPROOF_SKIP_X=0`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Skips {
    evals: Resolved<bool>,
    lint: Resolved<bool>,
    bench: Resolved<bool>,
    fuzz: Resolved<bool>,
    protocol: Resolved<bool>,
}

impl Default for Skips {
    fn default() -> Self {
        let run = || Resolved {
            value: false,
            origin: Origin::Default,
        };
        Skips {
            evals: run(),
            lint: run(),
            bench: run(),
            fuzz: run(),
            protocol: run(),
        }
    }
}

fn skipped_by(r: &Resolved<bool>) -> Option<&Origin> {
    r.value.then_some(&r.origin)
}

impl Skips {
    /// Who turned the evals off, if anyone did.
    pub(crate) fn evals(&self) -> Option<&Origin> {
        skipped_by(&self.evals)
    }
    /// Who turned the set lint off.
    pub(crate) fn lint(&self) -> Option<&Origin> {
        skipped_by(&self.lint)
    }
    /// Who turned the bench off.
    pub(crate) fn bench(&self) -> Option<&Origin> {
        skipped_by(&self.bench)
    }
    /// Who turned the fuzz off.
    pub(crate) fn fuzz(&self) -> Option<&Origin> {
        skipped_by(&self.fuzz)
    }
    /// Who turned the protocol phase off.
    pub(crate) fn protocol(&self) -> Option<&Origin> {
        skipped_by(&self.protocol)
    }
    /// Whether a flag asked for the set lint (`--no-skip-lint`).
    pub(crate) fn lint_asked(&self) -> bool {
        !self.lint.value && matches!(self.lint.origin, Origin::Flag(_))
    }
    /// Whether a flag asked for the protocol checks (`--no-skip-protocol`).
    pub(crate) fn protocol_asked(&self) -> bool {
        !self.protocol.value && matches!(self.protocol.origin, Origin::Flag(_))
    }
}

impl Settings {
    /// The command.
    pub(crate) fn command(&self) -> CommandKind {
        self.command
    }
    /// The loaded `toolproof.yaml` (or the config built for `--url` / `-- COMMAND`).
    pub(crate) fn loaded(&self) -> &LoadedConfig {
        &self.loaded
    }
    /// The labelled tool-call tests, in YAML order.
    pub(crate) fn tests_list(&self) -> &[TestCase] {
        &self.loaded.config.tests
    }
    /// The `evals:` section, when there is one, with the cases of this shard only.
    pub(crate) fn eval_config(&self) -> Option<&EvalConfig> {
        self.loaded.config.evals.as_ref()
    }
    /// The `evals:` section with every case, whatever the shard (for the set lint).
    pub(crate) fn whole_eval_config(&self) -> Option<&EvalConfig> {
        self.whole_evals
            .as_ref()
            .or(self.loaded.config.evals.as_ref())
    }
    /// The shard of this run, when it is one of several.
    pub(crate) fn shard(&self) -> Option<crate::shard::Shard> {
        self.shard
    }
    /// Static checks.
    pub(crate) fn checks(&self) -> &CheckSettings {
        &self.checks
    }
    /// Tool-call tests.
    pub(crate) fn tests(&self) -> &TestSettings {
        &self.tests
    }
    /// Evals, when the config has an `evals:` section.
    pub(crate) fn evals(&self) -> Option<&EvalSettings> {
        self.evals.as_ref()
    }
    /// The latency benchmarks: `run` with a `bench:` section, or `bench`.
    pub(crate) fn bench(&self) -> Option<&BenchSettings> {
        self.bench.as_ref()
    }

    /// Fuzzing: for `fuzz`, and for `run` when the config has a `fuzz:` section.
    pub(crate) fn fuzz(&self) -> Option<&FuzzSettings> {
        self.fuzz.as_ref()
    }
    /// The protocol checks: for `protocol`, and for `run` with a `protocol:` section.
    pub(crate) fn protocol(&self) -> Option<&ProtocolSettings> {
        self.protocol.as_ref()
    }
    /// The set lint: for `lint`, and for `run` and `eval` when the config has an `evals:`
    /// section.
    pub(crate) fn lint(&self) -> Option<&LintSettings> {
        self.lint.as_ref()
    }
    /// Phases turned off by flags or the environment.
    pub(crate) fn skips(&self) -> &Skips {
        &self.skips
    }
    /// Reports and console.
    pub(crate) fn outputs(&self) -> &Outputs {
        &self.outputs
    }
    /// Commit and ref from the CI environment.
    pub(crate) fn revision(&self) -> &Revision {
        &self.revision
    }
    /// The environment snapshot (provider keys and endpoints are read from it).
    pub(crate) fn env(&self) -> &Env {
        &self.env
    }
    /// Values never to be written anywhere: the config's `${VAR}` values, the provider
    /// credentials and the GitHub token of the environment. Longest first.
    pub(crate) fn secrets(&self) -> &[String] {
        &self.secrets
    }
}
