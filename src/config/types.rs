//! The shape of `toolproof.yaml`: one serde type per section, every key of mcp-toolproof 0.3.1
//! plus toolproof's own additions. Loading and validation live in [`super::load`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

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
            headers: BTreeMap::new(),
            cwd: None,
            startup_timeout_s: default_startup_timeout_s(),
            protocol: ProtocolPin::default(),
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

/// One entry of `tests:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCase {
    /// Test name.
    pub name: String,
    /// Tool to call.
    pub tool: String,
    /// Arguments, as written.
    #[serde(default)]
    pub args: serde_json::Map<String, Value>,
    /// What the result must look like.
    #[serde(default)]
    pub expect: Expect,
    /// Call timeout; beats the top-level value and `--timeout-ms`.
    #[serde(default)]
    pub timeout_ms: Option<f64>,
    /// Retries; beats the top-level value and `--retries`.
    #[serde(default)]
    pub retries: Option<u32>,
    /// Wait between attempts; beats the top-level value.
    #[serde(default)]
    pub retry_delay_ms: Option<f64>,
    /// Labels for `--filter`/`-k`.
    #[serde(default)]
    pub tags: Vec<String>,
    /// YAML line of this entry (filled by the loader).
    #[serde(skip)]
    pub line: Option<u32>,
}

/// `expect:` of a test.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The result's `isError` must be this.
    #[serde(default)]
    pub is_error: Option<bool>,
    /// The result must equal this JSON value; `Some(Value::Null)` when `equals: null` is written.
    #[serde(default, deserialize_with = "present")]
    pub equals: Option<Value>,
    /// Substrings the text must contain.
    #[serde(default)]
    pub contains: Option<StringOrList>,
    /// A regex the text must match.
    #[serde(default)]
    pub regex: Option<String>,
    /// JSONPath checks keyed by path.
    #[serde(default)]
    pub jsonpath: BTreeMap<String, JsonPathCheck>,
    /// Soft latency limit.
    #[serde(default)]
    pub max_latency_ms: Option<f64>,
    /// Validate against the tool's outputSchema (default true).
    #[serde(default = "yes")]
    pub output_schema: bool,
}

impl Default for Expect {
    /// No expectations, except the outputSchema check, which is on unless turned off.
    fn default() -> Self {
        Self {
            is_error: None,
            equals: None,
            contains: None,
            regex: None,
            jsonpath: BTreeMap::new(),
            max_latency_ms: None,
            output_schema: true,
        }
    }
}

/// Deserializes a key that is present (even as `null`) into `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// A string or a list of strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StringOrList {
    /// One needle.
    One(String),
    /// Several needles.
    Many(Vec<String>),
}

impl StringOrList {
    /// The needles, one or many.
    pub fn items(&self) -> &[String] {
        match self {
            StringOrList::One(s) => std::slice::from_ref(s),
            StringOrList::Many(v) => v,
        }
    }
}

/// Hand-written instead of `untagged`, so a wrong value gets a message that names both forms.
impl<'de> Deserialize<'de> for StringOrList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Needles;

        impl<'de> serde::de::Visitor<'de> for Needles {
            type Value = StringOrList;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or a list of strings")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<StringOrList, E> {
                Ok(StringOrList::One(v.to_owned()))
            }

            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<StringOrList, E> {
                Ok(StringOrList::One(v))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<StringOrList, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<String>()? {
                    items.push(item);
                }
                Ok(StringOrList::Many(items))
            }
        }

        d.deserialize_any(Needles)
    }
}

/// One `jsonpath:` entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonPathCheck {
    /// JSON type the match must have.
    #[serde(default, rename = "type")]
    pub kind: Option<JsonType>,
    /// Value the match must equal (present counts, even null).
    #[serde(default, deserialize_with = "present")]
    pub equals: Option<Value>,
    /// Inclusive lower bound.
    #[serde(default)]
    pub min: Option<f64>,
    /// Inclusive upper bound.
    #[serde(default)]
    pub max: Option<f64>,
    /// The path must match (default) or must not.
    #[serde(default = "yes")]
    pub exists: bool,
}

/// JSON value types for `jsonpath.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JsonType {
    /// string
    String,
    /// number (integers too)
    Number,
    /// integer
    Integer,
    /// boolean
    Boolean,
    /// array
    Array,
    /// object
    Object,
    /// null
    Null,
}

/// `fuzz:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FuzzConfig {
    /// Run the phase in `run`.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Examples per batch.
    #[serde(default = "default_max_examples")]
    pub max_examples: u32,
    /// Per-call timeout.
    #[serde(default = "default_fuzz_timeout_ms")]
    pub timeout_ms: f64,
    /// Time budget per tool.
    #[serde(default = "default_max_time_s")]
    pub max_time_s: f64,
    /// Seed; random when unset.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Only these tools (empty = all).
    #[serde(default)]
    pub tools: Vec<String>,
    /// Tools to skip.
    #[serde(default)]
    pub skip: Vec<String>,
    /// Fuzz tools marked destructive.
    #[serde(default)]
    pub include_destructive: bool,
    /// Valid inputs must succeed.
    #[serde(default)]
    pub valid_must_succeed: bool,
    /// Invalid inputs must fail.
    #[serde(default = "yes")]
    pub invalid_must_fail: bool,
}

fn default_max_examples() -> u32 {
    50
}

impl Default for FuzzConfig {
    /// The values used when the YAML has no `fuzz:` section.
    fn default() -> Self {
        Self {
            enabled: true,
            max_examples: default_max_examples(),
            timeout_ms: default_fuzz_timeout_ms(),
            max_time_s: default_max_time_s(),
            seed: None,
            tools: Vec::new(),
            skip: Vec::new(),
            include_destructive: false,
            valid_must_succeed: false,
            invalid_must_fail: true,
        }
    }
}
fn default_fuzz_timeout_ms() -> f64 {
    2000.0
}
fn default_max_time_s() -> f64 {
    60.0
}

/// `bench:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchConfig {
    /// Run the phase in `run`.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Measured calls per target.
    #[serde(default = "default_calls")]
    pub calls: u32,
    /// Concurrent callers.
    #[serde(default = "default_concurrency")]
    pub concurrency: u32,
    /// Unmeasured calls first.
    #[serde(default = "default_warmup")]
    pub warmup: u32,
    /// Per-call timeout.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: f64,
    /// Section-wide thresholds.
    #[serde(default)]
    pub thresholds: BenchThresholds,
    /// Targets; empty means every test not expecting an error.
    #[serde(default)]
    pub targets: Vec<BenchTarget>,
}

fn default_calls() -> u32 {
    100
}

impl Default for BenchConfig {
    /// The values used when the YAML has no `bench:` section.
    fn default() -> Self {
        Self {
            enabled: true,
            calls: default_calls(),
            concurrency: default_concurrency(),
            warmup: default_warmup(),
            timeout_ms: default_timeout_ms(),
            thresholds: BenchThresholds::default(),
            targets: Vec::new(),
        }
    }
}
fn default_concurrency() -> u32 {
    10
}
fn default_warmup() -> u32 {
    3
}

/// Bench limits.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchThresholds {
    /// p50 limit.
    #[serde(default)]
    pub p50_ms: Option<f64>,
    /// p95 limit.
    #[serde(default)]
    pub p95_ms: Option<f64>,
    /// p99 limit.
    #[serde(default)]
    pub p99_ms: Option<f64>,
    /// Error-rate limit (fraction).
    #[serde(default)]
    pub max_error_rate: Option<f64>,
    /// Throughput floor (calls/s).
    #[serde(default)]
    pub min_throughput: Option<f64>,
}

/// One bench target.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchTarget {
    /// Tool to call.
    pub tool: String,
    /// Arguments.
    #[serde(default)]
    pub args: serde_json::Map<String, Value>,
    /// Label.
    #[serde(default)]
    pub name: Option<String>,
    /// Replaces the section thresholds.
    #[serde(default)]
    pub thresholds: Option<BenchThresholds>,
}

/// Eval providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Anthropic Messages API.
    Anthropic,
    /// OpenAI Chat Completions (and compatible).
    Openai,
    /// A program of the user's.
    Command,
}

/// `evals:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalConfig {
    /// Run the phase in `run`.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Provider.
    #[serde(default)]
    pub provider: Option<Provider>,
    /// Model id.
    #[serde(default)]
    pub model: Option<String>,
    /// Program of the command provider.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// System prompt.
    #[serde(default)]
    pub system: Option<String>,
    /// Extra request body keys.
    #[serde(default)]
    pub params: serde_json::Map<String, Value>,
    /// Accuracy gate in 0..=1.
    #[serde(default = "default_min_accuracy")]
    pub min_accuracy: f64,
    /// Use the answer cache.
    #[serde(default = "yes")]
    pub cache: bool,
    /// Cache folder, relative to the YAML's folder.
    #[serde(default = "default_cache_dir")]
    pub cache_dir: PathBuf,
    /// Command provider timeout.
    #[serde(default = "default_eval_timeout_s")]
    pub timeout_s: f64,
    /// Labelled cases.
    #[serde(default)]
    pub cases: Vec<EvalCase>,
    /// Several models to ask the same cases, each gated on its own (instead of `model`).
    #[serde(default)]
    pub models: Vec<String>,
    /// The system prompt read from a file (the one the client ships), relative to the YAML.
    #[serde(default)]
    pub system_file: Option<PathBuf>,
    /// More cases, from their own YAML file (a list, or a mapping with `cases:`).
    #[serde(default)]
    pub cases_file: Option<PathBuf>,
    /// Requests in flight at once.
    #[serde(default = "default_eval_concurrency")]
    pub concurrency: u32,
    /// Output token cap sent to the API (Anthropic `max_tokens`, OpenAI
    /// `max_completion_tokens`); part of the cache key when set.
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// What several tool calls in one answer mean: `first` scores the first call, `miss`
    /// makes the case a miss.
    #[serde(default)]
    pub multiple_calls: MultipleCalls,
    /// Times each case is asked (each trial is its own cache entry).
    #[serde(default = "default_trials")]
    pub trials: u32,
    /// Gate on the Wilson 95% lower bound of the trial accuracy.
    #[serde(default)]
    pub min_wilson_lower: Option<f64>,
    /// Seconds allowed for one API request.
    #[serde(default = "default_request_timeout_s")]
    pub request_timeout_s: f64,
    /// Retries of a request that hit 429, 529, 5xx, a timeout or a dropped connection.
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
}

/// `evals.multiple_calls`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MultipleCalls {
    /// Score the first call; the report says there were several.
    #[default]
    First,
    /// Several calls make the case a miss.
    Miss,
}

fn default_eval_concurrency() -> u32 {
    8
}
fn default_trials() -> u32 {
    1
}
fn default_request_timeout_s() -> f64 {
    120.0
}
fn default_max_retries() -> u32 {
    4
}

fn default_min_accuracy() -> f64 {
    1.0
}

impl Default for EvalConfig {
    /// The values used when the YAML has no `evals:` section.
    fn default() -> Self {
        Self {
            enabled: true,
            provider: None,
            model: None,
            command: None,
            system: None,
            params: serde_json::Map::new(),
            min_accuracy: default_min_accuracy(),
            cache: true,
            cache_dir: default_cache_dir(),
            timeout_s: default_eval_timeout_s(),
            cases: Vec::new(),
            models: Vec::new(),
            system_file: None,
            cases_file: None,
            concurrency: default_eval_concurrency(),
            max_tokens: None,
            multiple_calls: MultipleCalls::First,
            trials: default_trials(),
            min_wilson_lower: None,
            request_timeout_s: default_request_timeout_s(),
            max_retries: default_max_retries(),
        }
    }
}
fn default_cache_dir() -> PathBuf {
    PathBuf::from(".toolproof-cache")
}
fn default_eval_timeout_s() -> f64 {
    120.0
}

/// One labelled eval case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalCase {
    /// The user prompt.
    pub prompt: String,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Expected tool; the key must be present, `null` meaning no tool.
    #[serde(default, deserialize_with = "present_string")]
    pub expect_tool: Option<Option<String>>,
    /// Expected arguments (subset match).
    #[serde(default)]
    pub expect_args: serde_json::Map<String, Value>,
    /// Why this row exists; shown with every miss.
    #[serde(default)]
    pub why: Option<String>,
    /// Must be right on every trial, whatever the accuracy.
    #[serde(default)]
    pub critical: bool,
    /// Trials for this case (beats `evals.trials`).
    #[serde(default)]
    pub trials: Option<u32>,
    /// YAML line of this entry (filled by the loader).
    #[serde(skip)]
    pub line: Option<u32>,
    /// The file holding this entry when it came from `cases_file` (filled by the loader).
    #[serde(skip)]
    pub file: Option<PathBuf>,
}

fn present_string<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}
