//! The bench settings: `bench:` of the config under the `bench` command's flags, its targets
//! chosen once (`--tool`, else `bench.targets`, else every test not expecting an error), and
//! each target's thresholds with the section's filled in.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

use super::Env;
use super::resolve::{env_value, pick};
use crate::cli::{BaselineArgs, BenchArgs, parse_non_negative};
use crate::config::{BenchConfig, BenchThresholds, ConfigError, TestCase, limits};

/// p95 growth over the baseline that still passes when nothing sets one, in percent.
pub(super) const DEFAULT_MAX_REGRESSION: f64 = 10.0;

/// Most sessions a benchmark opens (over stdio, one server process each).
pub(super) const MAX_CONNECTIONS: u32 = 100;

/// Most requests in flight at once over every session (`concurrency` × `connections`).
pub(super) const MAX_IN_FLIGHT: u64 = 1000;

/// One thing to benchmark.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BenchTargetSettings {
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
pub(crate) struct Thresholds {
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
pub(crate) struct BenchSettings {
    /// Measured calls per target.
    pub calls: u32,
    /// Requests in flight at once on each connection.
    pub concurrency: u32,
    /// Sessions the calls are spread over.
    pub connections: u32,
    /// Unmeasured calls before each target.
    pub warmup: u32,
    /// Per-call timeout.
    pub timeout: Duration,
    /// The targets, in order.
    pub targets: Vec<BenchTargetSettings>,
    /// An earlier JSON report to compare with.
    pub baseline: Option<PathBuf>,
    /// Largest p95 growth over the baseline that passes, in percent.
    pub max_regression: f64,
    /// What was lowered to fit the calls (`--concurrency 50 lowered to 3, …`), for stderr.
    pub note: Option<String>,
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
    let mut calls = section.calls;
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
    let (concurrency, connections, note) = in_flight(&section, args, cfg.is_some())?;
    Ok(Some(BenchSettings {
        calls,
        concurrency,
        connections,
        warmup,
        timeout: limits::millis(timeout_ms),
        targets,
        baseline,
        max_regression,
        note,
    }))
}

/// `concurrency` and `connections` as given (flag > `bench:` > default), fitted to the calls.
fn in_flight(
    section: &BenchConfig,
    args: Option<&BenchArgs>,
    in_yaml: bool,
) -> Result<(u32, u32, Option<String>), ConfigError> {
    let defaults = BenchConfig::default();
    let knob = |flag: Option<u32>, name: &'static str, yaml: u32, default: u32| Knob {
        value: flag.unwrap_or(yaml),
        source: match flag {
            Some(_) => Source::Flag(name),
            None if in_yaml && yaml != default => Source::Yaml(name),
            None => Source::Default,
        },
    };
    fit_to_calls(
        &knob(
            args.and_then(|a| a.calls),
            "calls",
            section.calls,
            defaults.calls,
        ),
        &knob(
            args.and_then(|a| a.concurrency),
            "concurrency",
            section.concurrency,
            defaults.concurrency,
        ),
        &knob(
            args.and_then(|a| a.connections),
            "connections",
            section.connections,
            defaults.connections,
        ),
    )
}

/// Who set a number of the bench.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    /// `--name`.
    Flag(&'static str),
    /// `bench.name` in the config.
    Yaml(&'static str),
    /// Nobody.
    Default,
}

/// One of `calls`, `concurrency`, `connections`: its value and who set it.
#[derive(Debug, Clone, Copy)]
struct Knob {
    value: u32,
    source: Source,
}

impl Knob {
    /// `--concurrency 50`, `bench.concurrency: 50` or `10 (the default)`.
    fn said(&self) -> String {
        match self.source {
            Source::Flag(name) => format!("--{name} {}", self.value),
            Source::Yaml(name) => format!("bench.{name}: {}", self.value),
            Source::Default => format!("{} (the default)", self.value),
        }
    }
}

/// `concurrency` and `connections` as used: each lowered to the calls when above them (more
/// could never be in flight, and the measurement is the same), with a note when someone set
/// the higher number; then refused (a usage error) when the sessions or the requests in flight
/// are more than [`MAX_CONNECTIONS`] or [`MAX_IN_FLIGHT`], which no benchmark of one server
/// needs and which would open processes or fill memory for minutes before timing out.
fn fit_to_calls(
    calls: &Knob,
    concurrency: &Knob,
    connections: &Knob,
) -> Result<(u32, u32, Option<String>), ConfigError> {
    let lowered = |k: &Knob| k.value.min(calls.value);
    let (conc, conn) = (lowered(concurrency), lowered(connections));
    let said: Vec<String> = [concurrency, connections]
        .into_iter()
        .filter(|k| k.value > calls.value && k.source != Source::Default)
        .map(Knob::said)
        .collect();
    let note = (!said.is_empty()).then(|| {
        format!(
            "bench: {} lowered to {}, the number of calls ({}): no more can be in flight",
            said.join(" and "),
            calls.value,
            calls.said()
        )
    });
    let after = |k: &Knob, v: u32| {
        if v < k.value {
            format!("{} (lowered to {v}, the number of calls)", k.said())
        } else {
            k.said()
        }
    };
    if conn > MAX_CONNECTIONS {
        return Err(ConfigError::new(format!(
            "bench: {} opens {conn} sessions (server processes over stdio); at most {MAX_CONNECTIONS}",
            after(connections, conn)
        ))
        .hint("lower --connections (bench.connections); --concurrency (bench.concurrency) keeps several requests in flight on each"));
    }
    let in_flight = u64::from(conc) * u64::from(conn);
    if in_flight > MAX_IN_FLIGHT {
        return Err(ConfigError::new(format!(
            "bench: {} × {} puts {in_flight} requests in flight at once; at most {MAX_IN_FLIGHT}",
            after(concurrency, conc),
            after(connections, conn)
        ))
        .hint("lower --concurrency (bench.concurrency), the requests in flight on each connection, or --connections (bench.connections)"));
    }
    Ok((conc, conn, note))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn flag(name: &'static str, value: u32) -> Knob {
        Knob {
            value,
            source: Source::Flag(name),
        }
    }

    fn default(value: u32) -> Knob {
        Knob {
            value,
            source: Source::Default,
        }
    }

    #[test]
    fn in_flight_above_the_calls_is_lowered_with_a_note_only_when_someone_asked() {
        let calls = flag("calls", 3);
        let (conc, conn, note) =
            fit_to_calls(&calls, &flag("concurrency", 1_000_000_000), &default(1)).expect("fits");
        assert_eq!((conc, conn), (3, 1));
        let note = note.expect("a note");
        assert!(
            note.contains("--concurrency 1000000000 lowered to 3") && note.contains("--calls 3"),
            "{note}"
        );
        let (conc, conn, note) = fit_to_calls(&calls, &default(10), &default(1)).expect("fits");
        assert_eq!((conc, conn, note), (3, 1, None));
    }

    #[test]
    fn sessions_and_requests_in_flight_are_capped_at_the_limits_not_below() {
        let calls = default(1_000_000);
        let fits = |conc: u32, conn: u32| {
            fit_to_calls(
                &calls,
                &flag("concurrency", conc),
                &flag("connections", conn),
            )
            .is_ok()
        };
        assert!(fits(1, MAX_CONNECTIONS));
        assert!(!fits(1, MAX_CONNECTIONS + 1));
        assert!(fits(MAX_IN_FLIGHT as u32, 1));
        assert!(!fits(MAX_IN_FLIGHT as u32 + 1, 1));
        assert!(fits(500, 2));
        assert!(!fits(500, 3));
        let err = fit_to_calls(
            &flag("calls", 200_000),
            &flag("concurrency", 1_000_000_000),
            &default(1),
        )
        .expect_err("refused");
        assert!(
            err.to_string()
                .contains("--concurrency 1000000000 (lowered to 200000, the number of calls) × 1 (the default) puts 200000 requests in flight"),
            "{err}"
        );
    }
}
