//! `fuzz:` and `bench:`: schema fuzzing and latency benchmarks.

use serde::Deserialize;
use serde_json::Value;

use super::{default_timeout_ms, yes};

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
    /// Fuzz tools that change state but say `destructiveHint: false` too.
    #[serde(default)]
    pub include_writes: bool,
    /// Fuzz every tool, those that are or may be destructive too.
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
            include_writes: false,
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
    /// Requests in flight at once on each connection.
    #[serde(default = "default_concurrency")]
    pub concurrency: u32,
    /// Separate sessions to spread the calls over (for stdio, one server process each).
    #[serde(default = "one")]
    pub connections: u32,
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
    /// A previous JSON report (`--json`) to compare with, relative to the config file.
    #[serde(default)]
    pub baseline: Option<std::path::PathBuf>,
    /// Largest p95 increase over the baseline that still passes, in percent.
    #[serde(default)]
    pub max_regression: Option<f64>,
}

fn one() -> u32 {
    1
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
            connections: one(),
            warmup: default_warmup(),
            timeout_ms: default_timeout_ms(),
            thresholds: BenchThresholds::default(),
            targets: Vec::new(),
            baseline: None,
            max_regression: None,
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
