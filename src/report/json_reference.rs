//! The members of mcp-toolproof 0.3.1's JSON report, kept beside toolproof's own in the JSON
//! report so that scripts written for it (`jq .tests`, `jq .summary.failed`) keep working:
//! `duration_s`, `checks`, `tests`, `bench`, `fuzz`, `evals` and `summary`, each in the
//! reference's shape (its `report_to_dict`), built from the same [`RunReport`].
//!
//! Its `target`, `server` and `passed` are toolproof's members of the same name already; its
//! `error` (a string) is toolproof's `error` object, whose `message` holds that text.

use serde_json::{Map, Value, json};

use crate::outcome::{CaseStatus, PhaseStatus, RunReport, TestStatus};

/// The reference's members, in its order.
pub(crate) fn members(report: &RunReport) -> Map<String, Value> {
    let mut top = Map::new();
    top.insert(
        "duration_s".into(),
        json!(round(report.duration_ms / 1000.0, 3)),
    );
    top.insert("checks".into(), Value::Array(checks(report)));
    top.insert("tests".into(), Value::Array(tests(report)));
    top.insert("bench".into(), Value::Array(bench(report)));
    top.insert("fuzz".into(), fuzz(report));
    top.insert("evals".into(), evals(report));
    top.insert("summary".into(), summary(report));
    top
}

/// Python's `round(x, digits)`: the float nearest the decimal rounding of `x`'s exact value.
fn round(x: f64, digits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.digits$}").parse().unwrap_or(x)
}

/// The static-check findings as mcp-toolproof lists them: `tool`, `check`, `severity`,
/// `message` (also `inspect --json`'s `checks`).
pub(super) fn checks(report: &RunReport) -> Vec<Value> {
    report
        .phases
        .checks
        .results
        .findings
        .iter()
        .map(|f| {
            json!({
                "tool": f.tool,
                "check": f.check,
                "severity": f.severity,
                "message": f.message,
            })
        })
        .collect()
}

fn tests(report: &RunReport) -> Vec<Value> {
    report
        .phases
        .tests
        .results
        .iter()
        .filter(|t| t.status != TestStatus::NotRun)
        .map(|t| {
            json!({
                "name": t.name,
                "tool": t.tool,
                "passed": matches!(t.status, TestStatus::Passed | TestStatus::Flaky),
                "failures": t.failures,
                "latency_ms": round(t.latency_ms, 1),
                "attempts": t.attempts,
                "is_error": t.is_error,
                "text": t.text,
                "server_stderr": t.stderr.as_deref().filter(|s| !s.is_empty()),
            })
        })
        .collect()
}

fn bench(report: &RunReport) -> Vec<Value> {
    let Some(results) = &report.phases.bench.results else {
        return Vec::new();
    };
    results
        .targets
        .iter()
        .map(|b| {
            json!({
                "name": b.name,
                "tool": b.tool,
                "passed": b.passed,
                "failures": b.failures,
                "calls": b.calls,
                "concurrency": b.concurrency,
                "errors": b.errors,
                "error_rate": round(b.error_rate, 4),
                "throughput": round(b.throughput, 2),
                "p50_ms": round(b.latency.p50_ms, 2),
                "p95_ms": round(b.latency.p95_ms, 2),
                "p99_ms": round(b.latency.p99_ms, 2),
                "mean_ms": round(b.latency.mean_ms, 2),
                "max_ms": round(b.latency.max_ms, 2),
                "first_error": b.first_error,
            })
        })
        .collect()
}

fn fuzz(report: &RunReport) -> Value {
    let Some(results) = &report.phases.fuzz.results else {
        return json!({"seed": null, "tools": []});
    };
    let tools: Vec<Value> = results
        .tools
        .iter()
        .map(|t| {
            let findings: Vec<Value> = t
                .findings
                .iter()
                .map(|x| {
                    json!({"kind": x.kind, "mode": x.mode, "input": x.input, "detail": x.detail})
                })
                .collect();
            json!({
                "tool": t.tool,
                "passed": findings.is_empty(),
                "calls": t.calls,
                "skipped": t.skipped,
                "duration_s": round(t.duration_ms / 1000.0, 2),
                "findings": findings,
            })
        })
        .collect();
    json!({"seed": results.seed, "tools": tools})
}

/// The first model's results (the reference asks one model), `null` when the evals did not
/// run or the server could not be reached.
fn evals(report: &RunReport) -> Value {
    let phase = &report.phases.evals;
    // No results: the server could not be reached, or the phase did not run (the reference
    // has no evals then either).
    let Some(results) = &phase.results else {
        return Value::Null;
    };
    let Some(model) = results.models.first() else {
        return Value::Null;
    };
    let cases: Vec<Value> = model
        .cases
        .iter()
        .map(|c| {
            // The trial that decided the verdict: the first wrong one, else the first.
            let trial = c
                .trials
                .iter()
                .find(|t| !t.passed)
                .or_else(|| c.trials.first());
            let first = trial.and_then(|t| t.calls.first());
            json!({
                "name": c.name,
                "prompt": c.prompt,
                "passed": c.status == CaseStatus::Correct,
                "expect_tool": c.expect_tool,
                "expect_args": c.expect_args,
                "picked_tool": first.map(|call| &call.tool),
                "picked_args": first.map_or_else(|| json!({}), |call| call.args.clone()),
                "failures": trial.map(|t| t.failures.clone()).unwrap_or_default(),
                "cached": trial.is_some_and(|t| t.cached),
            })
        })
        .collect();
    json!({
        "provider": results.provider,
        "model": model.model,
        "passed": model.passed && phase.status != PhaseStatus::Error,
        "accuracy": round(model.accuracy, 4),
        "correct": model.correct,
        "min_accuracy": model.min_accuracy,
        "error": model.error.as_deref().or(if phase.status == PhaseStatus::Error {
            phase.reason.as_deref()
        } else {
            None
        }),
        "skipped_tools": results.left_out_tools,
        "cases": cases,
    })
}

/// The phases the reference would list for this command: `run` lists the checks and the tests
/// always and the evals, bench and fuzz when they ran; `eval`, `bench` and `fuzz` their own.
fn phases(report: &RunReport) -> Vec<&'static str> {
    match report.command.as_str() {
        "eval" => return vec!["evals"],
        "bench" => return vec!["bench"],
        "fuzz" => return vec!["fuzz"],
        _ => {}
    }
    let ran = |status: PhaseStatus| status != PhaseStatus::Skipped;
    let p = &report.phases;
    let run = report.command == "run";
    let mut out = Vec::new();
    if run || ran(p.checks.status) {
        out.push("checks");
    }
    if run || ran(p.tests.status) {
        out.push("tests");
    }
    for (key, status) in [
        ("evals", p.evals.status),
        ("bench", p.bench.status),
        ("fuzz", p.fuzz.status),
    ] {
        if ran(status) && !report.absent.contains(&key) {
            out.push(key);
        }
    }
    out
}

fn summary(report: &RunReport) -> Value {
    let findings = &report.phases.checks.results.findings;
    let count = |severity: &str| {
        findings
            .iter()
            .filter(|f| serde_json::to_value(f.severity).ok() == Some(json!(severity)))
            .count()
    };
    let tests = tests(report);
    let failed = tests.iter().filter(|t| t["passed"] != true).count();
    let bench_failed = report
        .phases
        .bench
        .results
        .as_ref()
        .map_or(0, |b| b.targets.iter().filter(|t| !t.passed).count());
    let fuzz_findings = report
        .phases
        .fuzz
        .results
        .as_ref()
        .map_or(0, |f| f.tools.iter().map(|t| t.findings.len()).sum());
    // `evals`'s `accuracy`, without building its list of cases a second time.
    let accuracy = report
        .phases
        .evals
        .results
        .as_ref()
        .and_then(|r| r.models.first())
        .map_or(Value::Null, |model| json!(round(model.accuracy, 4)));
    json!({
        "phases": phases(report),
        "tests": tests.len(),
        "failed": failed,
        "check_errors": count("error"),
        "check_warnings": count("warning"),
        "bench_failed": bench_failed,
        "fuzz_findings": fuzz_findings,
        "eval_accuracy": accuracy,
    })
}

#[cfg(test)]
mod tests {
    use super::round;

    #[test]
    fn rounding_is_pythons() {
        assert_eq!(round(2.675, 2), 2.67); // 2.675 is 2.67499999… as a float
        assert_eq!(round(0.125, 2), 0.12); // an exact tie goes to even
        assert_eq!(round(1234.5678, 1), 1234.6);
        assert_eq!(round(0.0, 3), 0.0);
        assert!(round(f64::NAN, 2).is_nan());
    }
}
