//! The figures of one target: latencies in an HDR histogram (microseconds, 3 significant
//! digits), errors, and the limits it breaks, worded as mcp-toolproof words them.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use hdrhistogram::Histogram;

use crate::outcome::{BenchTargetResult, Latency};
use crate::settings::{BenchTargetSettings, Thresholds};

/// Longest latency the histogram tells apart: one hour, in microseconds (longer ones count
/// as one hour).
const MAX_MICROS: u64 = 3_600_000_000;

/// Calls of one target as they finish.
pub(super) struct Recorder {
    histogram: Histogram<u64>,
    errors: u64,
    first_error: Option<String>,
}

pub(super) fn lock(m: &Mutex<Recorder>) -> MutexGuard<'_, Recorder> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Recorder {
    pub(super) fn new() -> Recorder {
        Recorder {
            // Bounds and precision are constants the crate accepts.
            histogram: Histogram::new_with_bounds(1, MAX_MICROS, 3)
                .unwrap_or_else(|_| unreachable!("valid histogram bounds")),
            errors: 0,
            first_error: None,
        }
    }

    /// One finished call: its latency, and why it failed if it did.
    pub(super) fn add(&mut self, latency: Duration, error: Option<String>) {
        let micros = u64::try_from(latency.as_micros()).unwrap_or(MAX_MICROS);
        self.histogram
            .saturating_record(micros.clamp(1, MAX_MICROS));
        if let Some(e) = error {
            self.errors += 1;
            self.first_error.get_or_insert(e);
        }
    }

    /// The target's figures; limits and failures are filled in by the caller.
    pub(super) fn result(self, target: &BenchTargetSettings, wall: Duration) -> BenchTargetResult {
        let h = &self.histogram;
        let calls = h.len();
        let latency = latency_of(h);
        let secs = wall.as_secs_f64();
        BenchTargetResult {
            name: target.name.clone(),
            tool: target.tool.clone(),
            calls,
            errors: self.errors,
            error_rate: if calls == 0 {
                0.0
            } else {
                self.errors as f64 / calls as f64
            },
            throughput: if secs > 0.0 { calls as f64 / secs } else { 0.0 },
            duration_ms: secs * 1000.0,
            p50_ms: latency.p50_ms,
            p95_ms: latency.p95_ms,
            p99_ms: latency.p99_ms,
            latency,
            first_error: self.first_error,
            ..BenchTargetResult::default()
        }
    }
}

/// Percentiles by nearest rank over the histogram: the value of rank `max(1, ⌈q·n⌉)` among the
/// n recorded calls, as the top of its bucket (so at most 0.1 % above the exact latency).
fn latency_of(h: &Histogram<u64>) -> Latency {
    if h.is_empty() {
        return Latency::default();
    }
    let ms = |micros: u64| micros as f64 / 1000.0;
    let at = |q: f64| ms(h.value_at_quantile(q));
    Latency {
        min_ms: ms(h.min()),
        p50_ms: at(0.50),
        p90_ms: at(0.90),
        p95_ms: at(0.95),
        p99_ms: at(0.99),
        p99_9_ms: at(0.999),
        max_ms: ms(h.max()),
        mean_ms: h.mean() / 1000.0,
    }
}

/// Every limit `r` breaks, in mcp-toolproof's words: a percentile strictly over its limit, an
/// error rate strictly over its maximum, a throughput strictly under its minimum.
pub(crate) fn failures(r: &BenchTargetResult, t: &Thresholds) -> Vec<String> {
    let mut out = Vec::new();
    for (label, value, limit) in [
        ("p50", r.p50_ms, t.p50_ms),
        ("p95", r.p95_ms, t.p95_ms),
        ("p99", r.p99_ms, t.p99_ms),
    ] {
        if let Some(limit) = limit
            && value > limit
        {
            out.push(format!("{label} {value:.1}ms is over {}ms", short(limit)));
        }
    }
    if r.error_rate > t.max_error_rate {
        out.push(format!(
            "error rate {:.1}% is over {:.1}%",
            r.error_rate * 100.0,
            t.max_error_rate * 100.0
        ));
    }
    if let Some(min) = t.min_throughput
        && r.throughput < min
    {
        out.push(format!(
            "throughput {:.1}/s is under {}/s",
            r.throughput,
            short(min)
        ));
    }
    out
}

/// A limit as written: `200`, `0.5`, `0.001`.
fn short(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> BenchTargetSettings {
        BenchTargetSettings {
            name: "t".into(),
            tool: "echo".into(),
            args: serde_json::Map::new(),
            thresholds: Thresholds::default(),
        }
    }

    fn recorded(ms: &[u64], errors: usize) -> BenchTargetResult {
        let mut r = Recorder::new();
        for (i, v) in ms.iter().enumerate() {
            let error = (i < errors).then(|| format!("boom {i}"));
            r.add(Duration::from_millis(*v), error);
        }
        r.result(&target(), Duration::from_secs(2))
    }

    #[test]
    fn percentiles_are_nearest_rank_like_the_reference() {
        // 1..=100 ms: nearest rank gives p50 = 50, p95 = 95, p99 = 99 exactly.
        let ms: Vec<u64> = (1..=100).collect();
        let r = recorded(&ms, 0);
        let near = |a: f64, b: f64| (a - b).abs() <= b * 0.001 + 1e-9;
        assert!(near(r.p50_ms, 50.0), "{}", r.p50_ms);
        assert!(near(r.p95_ms, 95.0), "{}", r.p95_ms);
        assert!(near(r.p99_ms, 99.0), "{}", r.p99_ms);
        assert!(near(r.latency.p90_ms, 90.0));
        assert!(near(r.latency.max_ms, 100.0));
        assert!(near(r.latency.min_ms, 1.0));
        assert!(near(r.latency.mean_ms, 50.5));
        assert_eq!(r.calls, 100);
        assert!((r.throughput - 50.0).abs() < 1e-9);
    }

    #[test]
    fn one_call_is_every_percentile() {
        let r = recorded(&[7], 0);
        assert!((r.latency.p99_9_ms - 7.0).abs() < 0.01);
        assert!((r.p50_ms - 7.0).abs() < 0.01);
    }

    #[test]
    fn errors_count_and_the_first_is_kept() {
        let r = recorded(&[1, 1, 1, 1], 2);
        assert_eq!(r.errors, 2);
        assert!((r.error_rate - 0.5).abs() < 1e-12);
        assert_eq!(r.first_error.as_deref(), Some("boom 0"));
    }

    #[test]
    fn limits_are_worded_as_mcp_toolproof_words_them() {
        let r = recorded(&[10, 10, 10, 10], 1);
        let t = Thresholds {
            p50_ms: Some(0.001),
            p95_ms: Some(200.0),
            p99_ms: Some(5.0),
            max_error_rate: 0.01,
            min_throughput: Some(50.0),
        };
        assert_eq!(
            failures(&r, &t),
            [
                "p50 10.0ms is over 0.001ms",
                "p99 10.0ms is over 5ms",
                "error rate 25.0% is over 1.0%",
                "throughput 2.0/s is under 50/s",
            ]
        );
    }

    #[test]
    fn any_error_fails_by_default_and_none_passes() {
        let defaults = Thresholds::default();
        assert_eq!(
            failures(&recorded(&[1, 1], 1), &defaults),
            ["error rate 50.0% is over 0.0%"]
        );
        assert!(failures(&recorded(&[1, 1], 0), &defaults).is_empty());
    }
}
