//! `toolproof bench` and the bench phase of `run`, against the fake server over stdio.

use super::*;

fn bench(dir: &Dir, flags: &[&str]) -> Out {
    let fake = fake();
    let mut args = vec!["bench"];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--", &fake]);
    toolproof_in(&dir.0, &args, &[])
}

/// The direction that is safe on a loaded machine: a 50 ms sleep is never under 1 ms.
#[test]
fn bench_threshold_breach_fails_with_the_reference_message() {
    let dir = Dir::new("bench-breach");
    let out = bench(
        &dir,
        &[
            "--tool",
            "slow",
            "--args",
            r#"{"ms": 50}"#,
            "--calls",
            "4",
            "--concurrency",
            "2",
            "--p50-ms",
            "1",
            "--junit",
            "j.xml",
            "--json",
            "r.json",
        ],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("ms is over 1ms"), "{}", out.stdout);
    assert!(
        out.stdout.contains("bench: 0 passed, 1 failed"),
        "{}",
        out.stdout
    );
    let report = dir.json("r.json");
    let target = &report["phases"]["bench"]["results"]["targets"][0];
    assert_eq!(target["passed"], false);
    assert_eq!(target["calls"], 4);
    assert!(target["p50_ms"].as_f64().unwrap_or(0.0) >= 50.0, "{target}");
    let junit = dir.read("j.xml");
    assert!(
        junit.contains(r#"<testsuite name="bench" tests="1" failures="1""#),
        "{junit}"
    );
}

#[test]
fn bench_errors_without_a_threshold_fail_and_show_the_first_error() {
    let dir = Dir::new("bench-errors");
    let out = bench(
        &dir,
        &["--tool", "fail", "--calls", "3", "--json", "r.json"],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains("error rate 100.0% is over 0.0%"),
        "{}",
        out.stdout
    );
    let target = &dir.json("r.json")["phases"]["bench"]["results"]["targets"][0];
    assert_eq!(target["errors"], 3);
    assert!(
        target["first_error"]
            .as_str()
            .is_some_and(|e| !e.is_empty()),
        "{target}"
    );
    // An allowance that covers them passes.
    let out = bench(
        &dir,
        &["--tool", "fail", "--calls", "3", "--max-error-rate", "1"],
    );
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn bench_of_a_tool_the_server_lacks_fails() {
    let dir = Dir::new("bench-missing");
    let out = bench(&dir, &["--tool", "no_such_tool", "--calls", "2"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains("the server has no tool `no_such_tool`"),
        "{}",
        out.stdout
    );
}

fn baseline(dir: &Dir, p95: f64) -> String {
    let report = serde_json::json!({"phases": {"bench": {"results": {"targets": [
        {"name": "echo", "tool": "echo", "calls": 10, "p95_ms": p95}
    ]}}}});
    dir.write("base.json", &report.to_string())
        .display()
        .to_string()
}

#[test]
fn bench_baseline_regression_fails_and_no_regression_passes() {
    let dir = Dir::new("bench-baseline");
    let echo = [
        "--tool",
        "echo",
        "--args",
        r#"{"text": "hi"}"#,
        "--calls",
        "5",
    ];
    // Any real call takes more than 1.1 ns: a regression on every machine.
    let tiny = baseline(&dir, 0.000_001);
    let mut flags = echo.to_vec();
    flags.extend_from_slice(&[
        "--baseline",
        &tiny,
        "--max-regression",
        "10",
        "--json",
        "r.json",
    ]);
    let out = bench(&dir, &flags);
    assert_eq!(out.code, 1, "{out:?}");
    // The console table wraps its details to the terminal's width: read the words in the JSON.
    let target = &dir.json("r.json")["phases"]["bench"]["results"]["targets"][0];
    assert_eq!(target["baseline"]["regressed"], true, "{target}");
    let failures = target["failures"].to_string();
    assert!(
        failures.contains("over the baseline, more than the 10% allowed") && failures.contains('→'),
        "{failures}"
    );
    assert!(out.stdout.contains("→"), "{}", out.stdout);
    // An hour-long baseline p95 is never regressed from.
    let slow = baseline(&dir, 3_600_000.0);
    let mut flags = echo.to_vec();
    flags.extend_from_slice(&["--baseline", &slow, "--json", "r.json"]);
    let out = bench(&dir, &flags);
    assert_eq!(out.code, 0, "{out:?}");
    let target = &dir.json("r.json")["phases"]["bench"]["results"]["targets"][0];
    assert_eq!(target["baseline"]["regressed"], false, "{target}");
    assert_eq!(target["baseline"]["p95_ms_before"], 3_600_000.0);
}

#[test]
fn bench_command_takes_every_flag() {
    let dir = Dir::new("bench-flags");
    let out = bench(
        &dir,
        &[
            "--tool",
            "echo",
            "--args",
            r#"{"text": "x"}"#,
            "--calls",
            "6",
            "--concurrency",
            "3",
            "--connections",
            "2",
            "--warmup",
            "1",
            "--timeout-ms",
            "60000",
            "--p50-ms",
            "3600000",
            "--p95-ms",
            "3600000",
            "--p99-ms",
            "3600000",
            "--max-error-rate",
            "0.5",
            "--min-throughput",
            "0",
            "--max-regression",
            "25",
            "--json",
            "r.json",
            "--junit",
            "j.xml",
            "--html",
            "r.html",
            "--summary",
            "s.md",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let target = &dir.json("r.json")["phases"]["bench"]["results"]["targets"][0];
    assert_eq!(target["calls"], 6);
    assert_eq!(target["concurrency"], 3);
    assert_eq!(target["connections"], 2);
    assert_eq!(target["errors"], 0);
    assert_eq!(target["thresholds"]["max_error_rate"], 0.5);
    assert!(
        dir.read("s.md")
            .contains("| Bench | ✅ 1/1 within limits |")
    );
    assert!(dir.read("r.html").contains("data-status=\"passed\""));
}

#[test]
fn bench_usage_errors_exit_2() {
    let dir = Dir::new("bench-usage");
    let out = bench(&dir, &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("nothing to benchmark"),
        "{}",
        out.stderr
    );
    for bad in [
        ["--calls", "0"],
        ["--concurrency", "0"],
        ["--max-error-rate", "1.5"],
        ["--args", "{not json"],
    ] {
        let mut flags = vec!["--tool", "echo"];
        flags.extend_from_slice(&bad);
        let out = bench(&dir, &flags);
        assert_eq!(out.code, 2, "{bad:?}: {out:?}");
    }
}

#[test]
fn run_benches_the_tests_that_expect_success_and_range_checks_the_section() {
    let dir = Dir::new("bench-run");
    let server = yaml_list(&[&fake()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\ntests:\n  - name: says hi\n    tool: echo\n    args: {{text: hi}}\n  - name: fails\n    tool: fail\n    expect: {{is_error: true}}\nbench:\n  calls: 3\n  concurrency: 2\n"
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let targets = &dir.json("r.json")["phases"]["bench"]["results"]["targets"];
    assert_eq!(targets.as_array().map(Vec::len), Some(1), "{targets}");
    assert_eq!(targets[0]["name"], "says hi");

    dir.write(
        "bad.yaml",
        &format!("server:\n  command: {server}\nbench:\n  calls: 3\n  connections: 0\n"),
    );
    let out = toolproof_in(&dir.0, &["run", "bad.yaml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("bad.yaml:5:"), "{}", out.stderr);
}

/// The `note:` lines of a run's stderr.
fn notes(out: &Out) -> Vec<&str> {
    out.stderr
        .lines()
        .filter(|l| l.starts_with("note:"))
        .collect()
}

#[test]
fn bench_in_flight_beyond_the_calls_is_lowered_and_absurd_shapes_are_refused() {
    let dir = Dir::new("bench-shape");
    let echo = ["--tool", "echo", "--args", r#"{"text": "x"}"#];
    let with = |flags: &[&str]| {
        let mut all = echo.to_vec();
        all.extend_from_slice(flags);
        all.extend_from_slice(&["--json", "r.json"]);
        bench(&dir, &all)
    };
    // More requests in flight than calls: lowered to the calls, said once on stderr.
    let out = with(&["--calls", "3", "--concurrency", "1000000000"]);
    assert_eq!(out.code, 0, "{out:?}");
    let said = notes(&out);
    assert_eq!(said.len(), 1, "{}", out.stderr);
    assert!(
        said[0].contains("--concurrency 1000000000") && said[0].contains("--calls 3"),
        "{}",
        said[0]
    );
    let target = &dir.json("r.json")["phases"]["bench"]["results"]["targets"][0];
    assert_eq!(
        (target["concurrency"].as_u64(), target["calls"].as_u64()),
        (Some(3), Some(3))
    );
    // More sessions than calls: the same, one line for both.
    let out = with(&[
        "--calls",
        "2",
        "--concurrency",
        "5",
        "--connections",
        "1000000000",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let said = notes(&out);
    assert_eq!(said.len(), 1, "{}", out.stderr);
    assert!(said[0].contains("--connections 1000000000"), "{}", said[0]);
    let target = &dir.json("r.json")["phases"]["bench"]["results"]["targets"][0];
    assert_eq!(
        (
            target["concurrency"].as_u64(),
            target["connections"].as_u64()
        ),
        (Some(2), Some(2))
    );
    // The default concurrency (10) above a few calls is lowered without a word.
    let out = with(&["--calls", "3"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(notes(&out).is_empty(), "{}", out.stderr);

    // Shapes no machine runs are usage errors, before anything starts.
    for (bad, flag) in [
        (
            ["--calls", "200000", "--concurrency", "1000000000"],
            "--concurrency",
        ),
        (
            ["--calls", "200000", "--connections", "1000000000"],
            "--connections",
        ),
        (["--calls", "5000", "--connections", "500"], "--connections"),
    ] {
        let out = with(&bad);
        assert_eq!(out.code, 2, "{bad:?}: {out:?}");
        assert!(
            out.stderr.contains("error:") && out.stderr.contains(flag),
            "{bad:?}: {}",
            out.stderr
        );
    }
    let out = with(&[
        "--calls",
        "100000",
        "--concurrency",
        "100",
        "--connections",
        "20",
    ]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("2000"), "{}", out.stderr);

    // The same rules for the YAML `bench:` section under `run`.
    let server = yaml_list(&[&fake()]);
    let section = |body: &str| {
        format!(
            "server:\n  command: {server}\nchecks:\n  enabled: false\nbench:\n{body}  targets:\n    - tool: echo\n      args: {{text: x}}\n"
        )
    };
    dir.write("low.yaml", &section("  calls: 2\n  concurrency: 50\n"));
    let out = toolproof_in(&dir.0, &["run", "low.yaml", "--json", "y.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let said = notes(&out);
    assert_eq!(said.len(), 1, "{}", out.stderr);
    assert!(said[0].contains("bench.concurrency"), "{}", said[0]);
    let target = &dir.json("y.json")["phases"]["bench"]["results"]["targets"][0];
    assert_eq!(target["concurrency"], 2);
    dir.write(
        "huge.yaml",
        &section("  calls: 200000\n  concurrency: 1000000000\n"),
    );
    let out = toolproof_in(&dir.0, &["run", "huge.yaml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("bench.concurrency"), "{}", out.stderr);
}
