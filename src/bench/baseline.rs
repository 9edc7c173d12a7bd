//! `--baseline`: a JSON report of an earlier run, read once; each target is compared by name
//! on p95 and fails when it grew by more than the allowed percentage.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::outcome::{BaselineDelta, BaselineInfo, BenchTargetResult};

/// The p95 of each target of an earlier report.
#[derive(Debug)]
pub(crate) struct Baseline {
    path: PathBuf,
    p95: HashMap<String, f64>,
}

impl Baseline {
    /// Reads a report written by `--json` (toolproof's, or mcp-toolproof's `bench` list).
    pub(crate) fn read(path: &Path) -> Result<Baseline, String> {
        let shown = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("the baseline {shown} could not be read: {e}"))?;
        let json: Value = serde_json::from_str(&text)
            .map_err(|e| format!("the baseline {shown} is not JSON: {e}"))?;
        let p95 = Baseline::targets(&json).ok_or_else(|| {
            format!("the baseline {shown} has no bench results: pass a report written by `toolproof bench --json` or `toolproof run --json`")
        })?;
        Ok(Baseline {
            path: path.to_path_buf(),
            p95,
        })
    }

    fn targets(json: &Value) -> Option<HashMap<String, f64>> {
        let list = json
            .pointer("/phases/bench/results/targets")
            .or_else(|| json.get("bench"))
            .and_then(Value::as_array)?;
        Some(
            list.iter()
                .filter(|t| t.get("calls").and_then(Value::as_u64).unwrap_or(0) > 0)
                .filter_map(|t| {
                    let name = t.get("name")?.as_str()?.to_owned();
                    Some((name, t.get("p95_ms")?.as_f64()?))
                })
                .collect(),
        )
    }

    /// What the report says about the baseline.
    pub(crate) fn info(&self, max_regression: f64) -> BaselineInfo {
        BaselineInfo {
            path: self.path.display().to_string(),
            max_regression_pct: max_regression,
        }
    }

    /// Adds the comparison to `r`, and a failure when its p95 grew by more than
    /// `max_regression` percent. A target the baseline lacks, or one that measured nothing, is
    /// not compared.
    pub(crate) fn compare(&self, r: &mut BenchTargetResult, max_regression: f64) {
        let Some(&before) = self.p95.get(&r.name) else {
            return;
        };
        if r.calls == 0 {
            return;
        }
        let now = r.p95_ms;
        let change_pct = if before > 0.0 {
            (now - before) / before * 100.0
        } else {
            0.0
        };
        let regressed = now > before * (1.0 + max_regression / 100.0);
        let delta = BaselineDelta {
            p95_ms_before: before,
            p95_ms_now: now,
            change_pct,
            regressed,
        };
        if regressed {
            r.failures.push(format!(
                "{} over the baseline, more than the {}% allowed",
                delta.text(),
                max_regression
            ));
        }
        r.baseline = Some(delta);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn baseline(p95: f64) -> Baseline {
        let report = json!({"phases": {"bench": {"results": {"targets": [
            {"name": "echo", "calls": 10, "p95_ms": p95}
        ]}}}});
        Baseline {
            path: PathBuf::from("base.json"),
            p95: Baseline::targets(&report).expect("targets"),
        }
    }

    fn result(p95: f64) -> BenchTargetResult {
        BenchTargetResult {
            name: "echo".into(),
            calls: 10,
            p95_ms: p95,
            ..BenchTargetResult::default()
        }
    }

    #[test]
    fn a_p95_above_the_allowed_growth_fails() {
        let mut r = result(12.5);
        baseline(10.0).compare(&mut r, 10.0);
        assert_eq!(
            r.failures,
            ["p95 10.0ms → 12.5ms (+25.0%) over the baseline, more than the 10% allowed"]
        );
        assert!(r.baseline.is_some_and(|d| d.regressed));
    }

    #[test]
    fn growth_within_the_allowance_and_a_speed_up_pass() {
        for now in [10.9, 4.0] {
            let mut r = result(now);
            baseline(10.0).compare(&mut r, 10.0);
            assert!(r.failures.is_empty(), "{now}: {:?}", r.failures);
            assert!(r.baseline.is_some_and(|d| !d.regressed));
        }
    }

    #[test]
    fn the_reference_report_shape_is_read_too() {
        let reference = json!({"bench": [{"name": "echo", "calls": 5, "p95_ms": 3.5}]});
        assert_eq!(Baseline::targets(&reference).expect("list")["echo"], 3.5);
        assert!(Baseline::targets(&json!({"tests": []})).is_none());
    }
}
