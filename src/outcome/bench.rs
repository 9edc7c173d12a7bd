//! Latency benchmark results: one entry per target, and the baseline they were compared with.

use serde::Serialize;

/// The bench phase's results.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct BenchResults {
    /// One per target, in order.
    pub targets: Vec<BenchTargetResult>,
    /// The earlier report the targets were compared with (`--baseline`).
    pub baseline: Option<BaselineInfo>,
}

impl BenchResults {
    /// Targets that passed.
    pub fn passed(&self) -> usize {
        self.targets.iter().filter(|t| t.passed).count()
    }

    /// `2 passed, 1 failed`, plus the baseline when there is one.
    pub fn counts_text(&self) -> String {
        let passed = self.passed();
        let mut s = format!("{passed} passed, {} failed", self.targets.len() - passed);
        if let Some(b) = &self.baseline {
            s.push_str(&format!(
                "; compared with {} (p95 may grow {}%)",
                b.path, b.max_regression_pct
            ));
        }
        s
    }
}

impl BenchTargetResult {
    /// `N xC` (and `× K connections`).
    pub fn calls_text(&self) -> String {
        if self.connections > 1 {
            format!(
                "{} x{} x{}conn",
                self.calls, self.concurrency, self.connections
            )
        } else {
            format!("{} x{}", self.calls, self.concurrency)
        }
    }

    /// The failures, then `first error: …` and the baseline comparison.
    pub fn details(&self) -> Vec<String> {
        let mut lines = self.failures.clone();
        if let Some(e) = &self.first_error {
            lines.push(format!("first error: {e}"));
        }
        if let Some(d) = self.baseline.filter(|d| !d.regressed) {
            lines.push(format!("baseline {}", d.text()));
        }
        lines
    }

    /// `calls=N concurrency=C p50=…ms …`: the figures on one line.
    pub fn figures(&self) -> String {
        let l = &self.latency;
        format!(
            "calls={} concurrency={} connections={} p50={:.1}ms p90={:.1}ms p95={:.1}ms p99={:.1}ms p99.9={:.1}ms max={:.1}ms mean={:.1}ms throughput={:.1}/s error_rate={:.1}%",
            self.calls,
            self.concurrency,
            self.connections,
            l.p50_ms,
            l.p90_ms,
            l.p95_ms,
            l.p99_ms,
            l.p99_9_ms,
            l.max_ms,
            l.mean_ms,
            self.throughput,
            self.error_rate * 100.0
        )
    }
}

/// The earlier report the bench was compared with.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct BaselineInfo {
    /// Its path as given.
    pub path: String,
    /// Largest p95 growth that passes, in percent.
    pub max_regression_pct: f64,
}

/// One benchmarked target.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct BenchTargetResult {
    /// Label.
    pub name: String,
    /// Tool called.
    pub tool: String,
    /// No limit was broken.
    pub passed: bool,
    /// One line per broken limit (or why the target could not run), first one first.
    pub failures: Vec<String>,
    /// Measured calls that finished (errors included).
    pub calls: u64,
    /// Requests in flight at once on each connection.
    pub concurrency: u32,
    /// Sessions the calls were spread over.
    pub connections: u32,
    /// Calls that failed: an error result, a protocol error, a timeout or a transport failure.
    pub errors: u64,
    /// `errors / calls` (0 when no call finished).
    pub error_rate: f64,
    /// Finished calls per second of the measured phase.
    pub throughput: f64,
    /// Wall time of the measured phase.
    pub duration_ms: f64,
    /// Latency percentiles, mean and max in ms (see `docs/json-report.md` for the definition).
    pub latency: Latency,
    /// p50 in ms (as `latency.p50_ms`; the key mcp-toolproof reports).
    pub p50_ms: f64,
    /// p95 in ms.
    pub p95_ms: f64,
    /// p99 in ms.
    pub p99_ms: f64,
    /// The first failed call's message, shortened.
    pub first_error: Option<String>,
    /// The limits the target was held to.
    pub thresholds: Limits,
    /// The comparison with the baseline's target of the same name.
    pub baseline: Option<BaselineDelta>,
}

/// Latency figures in ms.
#[derive(Debug, Clone, Copy, Default, Serialize, serde::Deserialize)]
pub struct Latency {
    /// Fastest call.
    pub min_ms: f64,
    /// Median.
    pub p50_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// 99.9th percentile.
    pub p99_9_ms: f64,
    /// Slowest call.
    pub max_ms: f64,
    /// Mean.
    pub mean_ms: f64,
}

/// The limits of a target (`null`: none).
#[derive(Debug, Clone, Copy, Default, Serialize, serde::Deserialize)]
pub struct Limits {
    /// p50 limit in ms.
    pub p50_ms: Option<f64>,
    /// p95 limit in ms.
    pub p95_ms: Option<f64>,
    /// p99 limit in ms.
    pub p99_ms: Option<f64>,
    /// Largest error rate that passes.
    pub max_error_rate: f64,
    /// Fewest calls per second that passes.
    pub min_throughput: Option<f64>,
}

/// p95 then and now.
#[derive(Debug, Clone, Copy, Serialize, serde::Deserialize)]
pub struct BaselineDelta {
    /// The baseline's p95 in ms.
    pub p95_ms_before: f64,
    /// This run's p95 in ms.
    pub p95_ms_now: f64,
    /// Growth in percent (negative: faster).
    pub change_pct: f64,
    /// Above the allowed growth.
    pub regressed: bool,
}

impl BaselineDelta {
    /// `p95 9.8ms → 12.3ms (+25.0%)`.
    pub fn text(&self) -> String {
        format!(
            "p95 {:.1}ms → {:.1}ms ({:+.1}%)",
            self.p95_ms_before, self.p95_ms_now, self.change_pct
        )
    }
}
