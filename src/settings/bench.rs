//! The bench settings: `bench:` of the config under the `bench` command's flags, its targets
//! chosen once (`--tool`, else `bench.targets`, else every test not expecting an error), and
//! each target's thresholds with the section's filled in.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::Env;
use super::resolve::{env_value, pick};
use crate::cli::{BaselineArgs, BenchArgs, parse_non_negative};
use crate::config::{BenchConfig, BenchThresholds, ConfigError, TestCase};

/// p95 growth over the baseline that still passes when nothing sets one, in percent.
pub const DEFAULT_MAX_REGRESSION: f64 = 10.0;

/// One thing to benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchTargetSettings {
    /// Label in the reports (the target's `name`, the test's name, else the tool).
    pub name: String,
    /// The tool called.
    pub tool: String,
    /// Its arguments.
    pub args: Map<String, Value>,
    /// The limits in force: the target's own, else the section's.
    pub thresholds: Thresholds,
}

/// Limits of one target. `max_error_rate` is always set: 0 unless a limit says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Thresholds {
    /// p50 limit in ms.
    pub p50_ms: Option<f64>,
    /// p95 limit in ms.
    pub p95_ms: Option<f64>,
    /// p99 limit in ms.
    pub p99_ms: Option<f64>,
    /// Largest share of failed calls that passes.
    pub max_error_rate: f64,
    /// Fewest completed calls per second that passes.
    pub min_throughput: Option<f64>,
}

impl Thresholds {
    fn of(t: &BenchThresholds) -> Thresholds {
        Thresholds {
            p50_ms: t.p50_ms,
            p95_ms: t.p95_ms,
            p99_ms: t.p99_ms,
            max_error_rate: t.max_error_rate.unwrap_or(0.0),
            min_throughput: t.min_throughput,
        }
    }
}

/// The latency benchmarks.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchSettings {
    /// Measured calls per target.
    pub calls: u32,
    /// Requests in flight at once on each connection.
    pub concurrency: u32,
    /// Sessions the calls are spread over.
    pub connections: u32,
    /// Unmeasured calls before each target.
    pub warmup: u32,
    /// Per-call timeout in ms.
    pub timeout_ms: f64,
    /// The targets, in order.
    pub targets: Vec<BenchTargetSettings>,
    /// An earlier JSON report to compare with.
    pub baseline: Option<PathBuf>,
    /// Largest p95 growth over the baseline that passes, in percent.
    pub max_regression: f64,
}

/// The bench settings of `run` (`bench:` as written) or of `bench` (`bench:` under its flags).
/// `None` for `run` without a `bench:` section.
pub(super) fn resolve_bench(
    cfg: Option<&BenchConfig>,
    tests: &[TestCase],
    args: Option<&BenchArgs>,
    baseline: Option<&BaselineArgs>,
    env: &Env,
) -> Result<Option<BenchSettings>, ConfigError> {
    let section = match (cfg, args) {
        (None, None) => return Ok(None),
        (Some(c), _) => c.clone(),
        (None, Some(_)) => BenchConfig::default(),
    };
    let mut section_limits = section.thresholds.clone();
    let mut targets = section.targets.clone();
    let (mut calls, mut concurrency, mut connections) =
        (section.calls, section.concurrency, section.connections);
    let (mut warmup, mut timeout_ms) = (section.warmup, section.timeout_ms);
    if let Some(a) = args {
        if let Some(tool) = &a.tool {
            targets = vec![crate::config::BenchTarget {
                tool: tool.clone(),
                args: a.args.clone().unwrap_or_default(),
                name: None,
                thresholds: None,
            }];
        }
        calls = a.calls.unwrap_or(calls);
        concurrency = a.concurrency.unwrap_or(concurrency);
        connections = a.connections.unwrap_or(connections);
        warmup = a.warmup.unwrap_or(warmup);
        timeout_ms = a.timeout_ms.unwrap_or(timeout_ms);
        let t = &mut section_limits;
        t.p50_ms = a.p50_ms.or(t.p50_ms);
        t.p95_ms = a.p95_ms.or(t.p95_ms);
        t.p99_ms = a.p99_ms.or(t.p99_ms);
        t.max_error_rate = a.max_error_rate.or(t.max_error_rate);
        t.min_throughput = a.min_throughput.or(t.min_throughput);
    }
    let targets: Vec<BenchTargetSettings> = if targets.is_empty() {
        tests
            .iter()
            .filter(|t| t.expect.is_error != Some(true))
            .map(|t| BenchTargetSettings {
                name: t.name.clone(),
                tool: t.tool.clone(),
                args: t.args.clone(),
                thresholds: Thresholds::of(&section_limits),
            })
            .collect()
    } else {
        targets
            .iter()
            .map(|t| BenchTargetSettings {
                name: t.name.clone().unwrap_or_else(|| t.tool.clone()),
                tool: t.tool.clone(),
                args: t.args.clone(),
                // A target's thresholds replace the section's, as in mcp-toolproof.
                thresholds: Thresholds::of(t.thresholds.as_ref().unwrap_or(&section_limits)),
            })
            .collect()
    };
    if args.is_some() && targets.is_empty() {
        return Err(ConfigError::new("nothing to benchmark").hint(
            "pass --tool (with --args), or add `bench.targets` or tests that expect success to the config",
        ));
    }
    let (baseline, max_regression) = resolve_baseline(&section, baseline, env)?;
    Ok(Some(BenchSettings {
        calls,
        concurrency,
        connections,
        warmup,
        timeout_ms,
        targets,
        baseline,
        max_regression,
    }))
}

/// `--baseline` > `TOOLPROOF_BASELINE` > `bench.baseline`, and the same for the regression.
fn resolve_baseline(
    section: &BenchConfig,
    baseline: Option<&BaselineArgs>,
    env: &Env,
) -> Result<(Option<PathBuf>, f64), ConfigError> {
    let baseline_path = pick(
        baseline
            .and_then(|b| b.baseline.clone())
            .map(|p| (p, "--baseline")),
        env_value(env, "TOOLPROOF_BASELINE", |s| Ok(PathBuf::from(s)))?,
        section.baseline.clone().map(|p| (p, "bench.baseline")),
        PathBuf::new(),
    );
    let max_regression = pick(
        baseline
            .and_then(|b| b.max_regression)
            .map(|v| (v, "--max-regression")),
        env_value(env, "TOOLPROOF_MAX_REGRESSION", parse_non_negative)?,
        section.max_regression.map(|v| (v, "bench.max_regression")),
        DEFAULT_MAX_REGRESSION,
    );
    Ok((
        Some(baseline_path.value).filter(|p| !p.as_os_str().is_empty()),
        max_regression.value,
    ))
}
