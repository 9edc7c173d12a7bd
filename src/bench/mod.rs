//! Latency benchmarks: each target called `calls` times with `concurrency` requests in flight
//! on each of `connections` sessions, latencies in an HDR histogram, and the target held to
//! its limits and to the baseline. One target at a time, so they do not skew each other.

mod baseline;
mod stats;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::interrupt::Interrupt;
use crate::mcp::client::pipeline::{Batch, Budget};
use crate::mcp::types::{CallResult, Tool};
use crate::mcp::{Client, ClientOptions, McpError, ServerSpec};
use crate::outcome::{BenchResults, BenchTargetResult, Limits, Phase, PhaseStatus};
use crate::settings::{BenchSettings, BenchTargetSettings, Thresholds};
use stats::Recorder;

pub(crate) use baseline::Baseline;
pub(crate) use stats::failures;

/// Longest first-error text kept, in characters (as mcp-toolproof).
const FIRST_ERROR_CHARS: usize = 200;

/// What the phase needs besides the settings.
pub(crate) struct BenchRun<'a> {
    /// The bench settings.
    pub settings: &'a BenchSettings,
    /// How to open the extra sessions.
    pub server: (&'a ServerSpec, &'a ClientOptions),
    /// Stop taking calls once set.
    pub interrupt: &'a Interrupt,
}

/// Runs every target on `client` (and on `connections - 1` more sessions) and returns the phase.
pub(crate) fn run(
    client: &mut Client,
    tools: &[Tool],
    run: &BenchRun<'_>,
) -> Phase<Option<BenchResults>> {
    let started = Instant::now();
    let s = run.settings;
    let baseline = match s.baseline.as_deref().map(Baseline::read).transpose() {
        Ok(b) => b,
        Err(why) => return Phase::error(why),
    };
    let mut extra = Vec::new();
    for i in 1..s.connections {
        match Client::connect(run.server.0.clone(), run.server.1.clone()) {
            Ok(mut c) => {
                c.stop_on(run.interrupt.clone());
                extra.push(c);
            }
            Err(e) => {
                close_all(&mut extra);
                return Phase::error(format!(
                    "could not open bench connection {} of {}: {}",
                    i + 1,
                    s.connections,
                    e.error
                ));
            }
        }
    }
    let mut results = BenchResults {
        targets: Vec::new(),
        baseline: baseline.as_ref().map(|b| b.info(s.max_regression)),
    };
    for target in &s.targets {
        if run.interrupt.is_set() {
            break;
        }
        let mut r = if tools.iter().any(|t| t.name == target.tool) {
            measure(client, &mut extra, target, s)
        } else {
            missing_tool(target, s)
        };
        if let Some(b) = &baseline {
            b.compare(&mut r, s.max_regression);
        }
        r.passed = r.failures.is_empty();
        results.targets.push(r);
    }
    close_all(&mut extra);
    let failed = results.targets.iter().any(|t| !t.passed);
    Phase {
        status: if failed {
            PhaseStatus::Failed
        } else {
            PhaseStatus::Passed
        },
        reason: None,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results: Some(results),
    }
}

fn close_all(clients: &mut [Client]) {
    for c in clients {
        c.close();
    }
}

/// A target whose tool the server does not list: a failure, never a pass.
fn missing_tool(target: &BenchTargetSettings, s: &BenchSettings) -> BenchTargetResult {
    BenchTargetResult {
        name: target.name.clone(),
        tool: target.tool.clone(),
        failures: vec![format!(
            "the server has no tool `{}`: nothing was measured",
            target.tool
        )],
        concurrency: s.concurrency,
        connections: s.connections,
        thresholds: limits(&target.thresholds),
        ..BenchTargetResult::default()
    }
}

fn limits(t: &Thresholds) -> Limits {
    Limits {
        p50_ms: t.p50_ms,
        p95_ms: t.p95_ms,
        p99_ms: t.p99_ms,
        max_error_rate: t.max_error_rate,
        min_throughput: t.min_throughput,
    }
}

/// Warm-up calls, then the measured calls over every session at once.
fn measure(
    client: &mut Client,
    extra: &mut [Client],
    target: &BenchTargetSettings,
    s: &BenchSettings,
) -> BenchTargetResult {
    let timeout = s.timeout;
    for _ in 0..s.warmup {
        let _ = client.call_tool(&target.tool, &target.args, timeout);
    }
    let batch = Batch {
        tool: &target.tool,
        arguments: &target.args,
        in_flight: s.concurrency as usize,
        timeout,
    };
    let budget = Budget::new(u64::from(s.calls));
    let recorder = Mutex::new(Recorder::new());
    let record = |latency: Duration, outcome: Result<CallResult, McpError>| {
        let error = error_text(outcome);
        stats::lock(&recorder).add(latency, error);
    };
    let started = Instant::now();
    std::thread::scope(|scope| {
        for other in extra.iter_mut() {
            let (batch, budget, record) = (&batch, &budget, &record);
            scope.spawn(move || other.call_pipelined(batch, budget, record));
        }
        client.call_pipelined(&batch, &budget, &record);
    });
    let wall = started.elapsed();
    let recorder = recorder.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut r = recorder.result(target, wall);
    r.concurrency = s.concurrency;
    r.connections = s.connections;
    r.thresholds = limits(&target.thresholds);
    r.failures = failures(&r, &target.thresholds);
    r
}

/// Why a call counts as an error, or `None` for a success.
fn error_text(outcome: Result<CallResult, McpError>) -> Option<String> {
    let text = match outcome {
        Ok(CallResult::Result {
            is_error: false, ..
        }) => return None,
        Ok(r @ CallResult::Result { .. }) => {
            let text = r.text();
            if text.trim().is_empty() {
                "the tool answered with isError: true".to_owned()
            } else {
                text
            }
        }
        Ok(CallResult::ProtocolError { code, message, .. }) => {
            format!("JSON-RPC error {code}: {message}")
        }
        Err(e) => e.to_string(),
    };
    Some(crate::report::escape::truncate_chars(&text, FIRST_ERROR_CHARS).into_owned())
}
