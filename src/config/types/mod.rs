//! The shape of `toolproof.yaml`: one serde type per section, every key of mcp-toolproof 0.3.1
//! plus toolproof's own additions. Loading and validation live in [`super::load`].
//!
//! Here: the whole file, `server:` and `checks:`; `suite` has `tests:`, `perf` `fuzz:` and
//! `bench:`, `evals` `evals:`.

mod cases;
mod compare;
mod crowd;
mod evals;
mod overrides;
mod perf;
mod stress;
mod suite;
mod trials;
mod tune;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

pub(crate) use cases::*;
pub(crate) use compare::*;
pub(crate) use crowd::*;
pub(crate) use evals::*;
pub(crate) use overrides::*;
pub(crate) use perf::*;
pub(crate) use stress::*;
pub(crate) use suite::*;
pub(crate) use trials::*;
pub(crate) use tune::*;

/// The whole file after loading: `${VAR}` expanded in `server`, paths resolved.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The path as the user gave it (used in messages and annotations).
    pub path: PathBuf,
    /// The folder relative paths resolve from: the YAML's folder, or the cwd without a file.
    pub base_dir: PathBuf,
    /// The configuration itself.
    pub config: Config,
    /// Values that came from `${VAR}` expansion; every renderer redacts them.
    /// Non-empty, without repeats, longest first (so a redactor can replace them in order).
    pub secrets: Vec<String>,
    /// How to show the server: the URL or the command (items joined by spaces) as written,
    /// before `${VAR}` expansion, so it never holds a secret.
    pub target: String,
    /// What loads but has no effect (a top-level `base_dir`), each with its place.
    pub warnings: Vec<super::ConfigWarning>,
}

/// Top level of `toolproof.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// How to reach the server.
    pub server: ServerConfig,
    /// Default per-test call timeout in milliseconds.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: f64,
    /// Default per-test retries.
    #[serde(default)]
    pub retries: u32,
    /// Default wait between a test's attempts, in milliseconds.
    #[serde(default)]
    pub retry_delay_ms: f64,
    /// Static checks on the tool list.
    #[serde(default)]
    pub checks: ChecksConfig,
    /// YAML tool-call tests.
    #[serde(default)]
    pub tests: Vec<TestCase>,
    /// Schema fuzzing; present means the phase runs in `run`.
    #[serde(default)]
    pub fuzz: Option<FuzzConfig>,
    /// Latency benchmarks; present means the phase runs in `run`.
    #[serde(default)]
    pub bench: Option<BenchConfig>,
    /// Tool-selection evals; present means the phase runs in `run`.
    #[serde(default)]
    pub evals: Option<EvalConfig>,
    /// Default answer to `elicitation/create` for tests that set none.
    #[serde(default)]
    pub elicitation: Option<ElicitationAnswer>,
    /// Default answer to `sampling/createMessage` for tests that set none.
    #[serde(default)]
    pub sampling: Option<SamplingAnswer>,
    /// Default roots answered to `roots/list` for tests that set none.
    #[serde(default)]
    pub roots: Option<Vec<String>>,
    /// Checks of the server's protocol behaviour; present means the phase runs in `run`.
    #[serde(default)]
    pub protocol: Option<ProtocolConfig>,
    /// The rewriter of `toolproof tune` (toolproof's own).
    #[serde(default)]
    pub tune: Option<TuneConfig>,
}

/// `protocol:` (toolproof's own; mcp-toolproof has no such section).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolConfig {
    /// Run the phase in `run`.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Failed warnings fail the phase.
    #[serde(default)]
    pub strict: bool,
    /// Protocol check ids to turn off.
    #[serde(default)]
    pub disable: Vec<String>,
    /// How long a probe waits for one answer, in milliseconds.
    #[serde(default = "default_probe_timeout_ms")]
    pub timeout_ms: f64,
}

impl Default for ProtocolConfig {
    /// The values used when the YAML has no `protocol:` section.
    fn default() -> Self {
        Self {
            enabled: true,
            strict: false,
            disable: Vec::new(),
            timeout_ms: default_probe_timeout_ms(),
        }
    }
}

fn default_probe_timeout_ms() -> f64 {
    5000.0
}

fn default_timeout_ms() -> f64 {
    10_000.0
}

/// Which MCP revision to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum ProtocolPin {
    /// Probe `server/discover`, fall back to `initialize`.
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// Legacy handshake, revision 2025-03-26.
    #[serde(rename = "2025-03-26")]
    V20250326,
    /// Legacy handshake, revision 2025-06-18.
    #[serde(rename = "2025-06-18")]
    V20250618,
    /// Legacy handshake, revision 2025-11-25.
    #[serde(rename = "2025-11-25")]
    V20251125,
    /// Stateless revision 2026-07-28.
    #[serde(rename = "2026-07-28")]
    V20260728,
}

/// Which HTTP transport to use for a `url` server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum TransportPref {
    /// Streamable HTTP; when `initialize` gets 400, 404 or 405, the 2024-11-05 HTTP+SSE
    /// transport (the specification's backwards-compatibility procedure).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// Streamable HTTP only.
    #[serde(rename = "streamable-http")]
    StreamableHttp,
    /// The 2024-11-05 HTTP+SSE transport: `url` is the SSE endpoint.
    #[serde(rename = "sse")]
    Sse,
}

/// `server:`: exactly one of `command` and `url`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Program and arguments of a stdio server.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// Streamable HTTP endpoint.
    #[serde(default)]
    pub url: Option<String>,
    /// Extra environment for a stdio server.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// A stdio server inherits the whole environment (less toolproof's credentials) rather
    /// than the MCP SDKs' short list ([`crate::process::SERVER_INHERITED_VARS`]).
    #[serde(default)]
    pub inherit_env: bool,
    /// Extra headers for an HTTP server.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Working folder of a stdio server, relative to the YAML's folder.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Seconds allowed for start-up and the handshake.
    #[serde(default = "default_startup_timeout_s")]
    pub startup_timeout_s: f64,
    /// Pin the protocol revision instead of detecting it.
    #[serde(default)]
    pub protocol: ProtocolPin,
    /// HTTP transport of a `url` server.
    #[serde(default)]
    pub transport: TransportPref,
}

fn default_startup_timeout_s() -> f64 {
    30.0
}

impl Default for ServerConfig {
    /// No server yet (neither `command` nor `url`), every other key at its default.
    fn default() -> Self {
        Self {
            command: None,
            url: None,
            env: BTreeMap::new(),
            inherit_env: false,
            headers: BTreeMap::new(),
            cwd: None,
            startup_timeout_s: default_startup_timeout_s(),
            protocol: ProtocolPin::default(),
            transport: TransportPref::default(),
        }
    }
}

/// `checks:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChecksConfig {
    /// Run the static checks at all.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Longest description before `description-length` warns.
    #[serde(default = "default_max_description_length")]
    pub max_description_length: usize,
    /// Warnings fail the run too.
    #[serde(default)]
    pub strict: bool,
    /// Check ids turned off.
    #[serde(default)]
    pub disable: Vec<String>,
    /// Similarity (0..1) at which `similar-tools` flags a pair.
    #[serde(default = "default_similarity_threshold")]
    pub similarity_threshold: f64,
    /// Estimated token budget of the whole tool list for `tool-list-size`.
    #[serde(default = "default_max_tool_list_tokens")]
    pub max_tool_list_tokens: usize,
    /// Model clients whose schema rules the `client-*` checks apply (toolproof's own key).
    #[serde(default = "default_clients")]
    pub clients: Vec<String>,
    /// YAML line of the `checks:` key, when the config has one (filled by the loader; reports
    /// point the findings there).
    #[serde(skip)]
    pub line: Option<u32>,
}

impl Default for ChecksConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_description_length: default_max_description_length(),
            strict: false,
            disable: Vec::new(),
            similarity_threshold: default_similarity_threshold(),
            max_tool_list_tokens: default_max_tool_list_tokens(),
            clients: default_clients(),
            line: None,
        }
    }
}

fn yes() -> bool {
    true
}
fn default_max_description_length() -> usize {
    1024
}
fn default_similarity_threshold() -> f64 {
    0.8
}
fn default_max_tool_list_tokens() -> usize {
    10_000
}
fn default_clients() -> Vec<String> {
    super::vocab::DEFAULT_CLIENTS
        .iter()
        .map(|c| (*c).to_owned())
        .collect()
}
