//! The fuzz phase end to end: `toolproof fuzz` and `run` with a `fuzz:` section against the
//! fake server's `fz_*` tools, each hiding one defect. Every kind is found and shrunk, the same
//! seed makes the same calls, a printed `tests:` entry reproduces its finding, destructive tools
//! are left alone unless asked, and every report agrees with the exit code.

use super::*;
use serde_json::json;

/// `toolproof fuzz` on the fake server with `fuzz-targets`, writing `r.json`.
fn fuzz_fake(dir: &Dir, flags: &[&str], fake_args: &[&str]) -> (Out, Value) {
    let fake = fake();
    let mut args = vec!["fuzz", "--json", "r.json"];
    args.extend_from_slice(flags);
    args.extend(["--", fake.as_str(), "--fault", "fuzz-targets"]);
    args.extend_from_slice(fake_args);
    let out = toolproof_in(&dir.0, &args, &[]);
    let report =
        serde_json::from_str(&std::fs::read_to_string(dir.path("r.json")).unwrap_or_default())
            .unwrap_or(Value::Null);
    (out, report)
}

fn tool<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["phases"]["fuzz"]["results"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["tool"] == name))
        .unwrap_or_else(|| panic!("no fuzz row for {name} in {report:#}"))
}

#[test]
fn fuzz_finds_and_shrinks_each_planted_defect() {
    let dir = Dir::new("fuzz-kinds");
    let mut flags = vec![
        "--examples",
        "15",
        "--timeout-ms",
        "300",
        "--seed",
        "11",
        "--valid-must-succeed",
    ];
    let names = [
        "fz_crash",
        "fz_hang",
        "fz_accept",
        "fz_output",
        "fz_reject",
        "fz_internal",
        "fz_traceback",
        "fz_unexpected",
        "fz_strict",
    ];
    for n in names {
        flags.extend(["--tool", n]);
    }
    let (out, report) = fuzz_fake(&dir, &flags, &[]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("Repeat this run with --seed 11"),
        "{}",
        out.stdout
    );
    let expected = [
        ("fz_crash", "crash", "valid", json!({"order": {"qty": -1}})),
        ("fz_accept", "accepted-invalid", "invalid", json!({})),
        (
            "fz_output",
            "output-schema",
            "valid",
            json!({"items": ["", "", ""]}),
        ),
        ("fz_reject", "rejected-valid", "valid", json!({"name": " "})),
        (
            "fz_internal",
            "internal-error",
            "valid",
            json!({"tags": [{"label": ""}]}),
        ),
        (
            "fz_traceback",
            "unhandled-exception",
            "valid",
            json!({"path": "/"}),
        ),
        (
            "fz_unexpected",
            "unexpected-error",
            "valid",
            json!({"n": 1}),
        ),
    ];
    for (name, kind, mode, input) in expected {
        let row = tool(&report, name);
        let findings = row["findings"].as_array().expect("findings");
        assert_eq!(findings.len(), 1, "{name}: {row:#}");
        let f = &findings[0];
        assert_eq!(
            (f["kind"].as_str(), f["mode"].as_str()),
            (Some(kind), Some(mode)),
            "{name}: {f:#}"
        );
        assert_eq!(f["input"], input, "{name} was not shrunk: {f:#}");
        assert!(
            f["test"].as_str().is_some_and(|t| t.contains(name)),
            "{f:#}"
        );
    }
    // The crash restarted the server and kept the dying words; fuzzing went on after it.
    let crash = &tool(&report, "fz_crash")["findings"][0];
    assert!(
        crash["stderr"]
            .as_str()
            .unwrap_or("")
            .contains("negative quantity"),
        "{crash:#}"
    );
    assert!(tool(&report, "fz_crash")["valid_inputs"].as_u64() > Some(1));
    // The hang: cancelled, and shrunk to the shortest text that still hangs.
    let hang = &tool(&report, "fz_hang")["findings"][0];
    assert_eq!(hang["kind"], "hang");
    assert_eq!(
        hang["input"]["text"].as_str().map(|t| t.chars().count()),
        Some(41),
        "{hang:#}"
    );
    // The strict tool validates with the schema: every valid input passed and every invalid
    // one was refused, through nested objects, $ref cycles, oneOf, formats and patterns.
    let strict = tool(&report, "fz_strict");
    assert_eq!(strict["status"], "passed", "{strict:#}");
    assert!(strict["valid_inputs"].as_u64() >= Some(10), "{strict:#}");
    assert!(strict["invalid_inputs"].as_u64() >= Some(10), "{strict:#}");
}

/// The `tools/call` params the fake server received, in order.
fn calls_in(log: &str) -> Vec<Value> {
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["message"]["method"] == "tools/call")
        .map(|v| v["message"]["params"].clone())
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_calls_and_another_seed_others() {
    let dir = Dir::new("fuzz-seed");
    let run = |seed: &str, log: &str| {
        let log_path = dir.path(log).display().to_string();
        let flags = [
            "--examples",
            "8",
            "--seed",
            seed,
            "--tool",
            "fz_strict",
            "--tool",
            "fz_accept",
        ];
        let (out, _) = fuzz_fake(&dir, &flags, &["--log", &log_path]);
        assert!(
            out.stdout.contains(&format!("seed {seed}")),
            "{}",
            out.stdout
        );
        calls_in(&dir.read(log))
    };
    let first = run("5", "a.log");
    let again = run("5", "b.log");
    let other = run("6", "c.log");
    assert!(first.len() >= 16, "{first:?}");
    assert_eq!(first, again);
    assert_ne!(first, other);
}

#[test]
fn a_printed_test_entry_reproduces_its_finding() {
    let dir = Dir::new("fuzz-paste");
    let flags = [
        "--examples",
        "10",
        "--seed",
        "3",
        "--tool",
        "fz_crash",
        "--tool",
        "fz_accept",
        "--tool",
        "fz_internal",
    ];
    let (out, report) = fuzz_fake(&dir, &flags, &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let mut entries = String::new();
    for name in ["fz_crash", "fz_accept", "fz_internal"] {
        let test = tool(&report, name)["findings"][0]["test"]
            .as_str()
            .expect("entry")
            .to_owned();
        // The console shows the same entry.
        assert!(
            out.stdout.contains(test.lines().next().unwrap_or("-")),
            "{}",
            out.stdout
        );
        entries.push_str(&test);
    }
    let server = yaml_list(&[&fake(), "--fault", "fuzz-targets"]);
    dir.write(
        "toolproof.yaml",
        &format!("server:\n  command: {server}\nchecks:\n  enabled: false\ntests:\n{entries}"),
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "t.json"], &[]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let tests = dir.json("t.json")["phases"]["tests"]["results"].clone();
    let tests = tests.as_array().expect("tests");
    assert_eq!(tests.len(), 3);
    for t in tests {
        assert_ne!(t["status"], "passed", "{t:#}");
    }
}

#[test]
fn destructive_tools_are_skipped_unless_asked_and_the_no_form_overrides_the_config() {
    let dir = Dir::new("fuzz-destructive");
    let flags = [
        "--examples",
        "2",
        "--tool",
        "fz_unannotated",
        "--tool",
        "crash",
    ];
    let (out, report) = fuzz_fake(&dir, &flags, &[]);
    // Nothing fuzzed: never a pass (see `nothing_fuzzed_is_never_a_pass`).
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        tool(&report, "crash")["skipped"]
            .as_str()
            .unwrap_or("")
            .contains("destructiveHint: true")
    );
    assert!(
        tool(&report, "fz_unannotated")["skipped"]
            .as_str()
            .unwrap_or("")
            .contains("MCP counts such a tool as destructive")
    );

    let mut asked = flags.to_vec();
    asked.push("--include-destructive");
    let (out, report) = fuzz_fake(&dir, &asked, &[]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    // `crash` exits on every call: each call is a crash, and the server is restarted each time.
    assert_eq!(tool(&report, "crash")["findings"][0]["kind"], "crash");
    assert_eq!(
        tool(&report, "fz_unannotated")["findings"][0]["kind"],
        "accepted-invalid"
    );

    let server = yaml_list(&[&fake(), "--fault", "fuzz-targets"]);
    dir.write(
        "toolproof.yaml",
        &format!("server:\n  command: {server}\nfuzz:\n  include_destructive: true\n  max_examples: 2\n  tools: [fz_unannotated]\n"),
    );
    let out = toolproof_in(
        &dir.0,
        &[
            "fuzz",
            "-c",
            "toolproof.yaml",
            "--no-include-destructive",
            "--json",
            "n.json",
        ],
        &[],
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(dir.json("n.json")["phases"]["fuzz"]["results"]["tools"][0]["skipped"].is_string());
}

/// A `fuzz` that fuzzes nothing (every tool skipped as destructive) fails loudly, with the
/// way out, even though the server would have crashed on every call; in `run` the phase is
/// skipped with a warning in every report, never passed.
#[test]
fn nothing_fuzzed_is_never_a_pass() {
    let dir = Dir::new("fuzz-nothing");
    // `crash` (destructiveHint: true) exits on every call; `fz_unannotated` says nothing, so MCP
    // counts it as destructive. Both are skipped.
    let flags = [
        "--examples",
        "2",
        "--tool",
        "fz_unannotated",
        "--tool",
        "crash",
        "--junit",
        "j.xml",
        "--summary",
        "s.md",
    ];
    let (out, report) = fuzz_fake(&dir, &flags, &[]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("Fuzz: PASS"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("Fuzz: ERROR - nothing was fuzzed: both tools were skipped"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("--include-destructive") && out.stdout.contains("readOnlyHint: true"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("FAILED"), "{}", out.stdout);
    let fuzz = &report["phases"]["fuzz"];
    assert_eq!(fuzz["status"], "error", "{fuzz:#}");
    assert!(
        fuzz["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("nothing was fuzzed")),
        "{fuzz:#}"
    );
    assert_eq!(
        (report["passed"].as_bool(), report["exit_code"].as_i64()),
        (Some(false), Some(1))
    );
    let xml = dir.read("j.xml");
    let doc = roxmltree::Document::parse(&xml).expect("JUnit parses");
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("fuzz"))
        .expect("fuzz suite");
    assert_eq!(suite.attribute("errors"), Some("1"), "{xml}");
    assert!(
        dir.read("s.md").contains("| Fuzz | ❌ nothing was fuzzed"),
        "{}",
        dir.read("s.md")
    );

    // In `run` the phase is skipped with a warning; the run's verdict is the other phases'.
    let server = yaml_list(&[&fake(), "--fault", "fuzz-targets"]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nchecks:\n  enabled: false\nfuzz:\n  max_examples: 2\n  tools: [fz_unannotated, crash]\n"
        ),
    );
    let out = toolproof_in(
        &dir.0,
        &[
            "run",
            "--json",
            "r.json",
            "--junit",
            "rj.xml",
            "--summary",
            "rs.md",
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("Fuzz: SKIP - warning: nothing was fuzzed: both tools were skipped"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("Fuzz: PASS"), "{}", out.stdout);
    let fuzz = &dir.json("r.json")["phases"]["fuzz"];
    assert_eq!(fuzz["status"], "skipped", "{fuzz:#}");
    assert!(
        fuzz["results"]["warning"]
            .as_str()
            .is_some_and(|w| w.starts_with("nothing was fuzzed")),
        "{fuzz:#}"
    );
    let xml = dir.read("rj.xml");
    let doc = roxmltree::Document::parse(&xml).expect("JUnit parses");
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("fuzz"))
        .expect("fuzz suite");
    assert_eq!(
        (suite.attribute("failures"), suite.attribute("errors")),
        (Some("0"), Some("0")),
        "{xml}"
    );
    let phase_case = suite
        .children()
        .find(|c| c.attribute("name") == Some("fuzz"))
        .expect("a testcase for the phase");
    let skipped = phase_case
        .children()
        .find(|c| c.has_tag_name("skipped"))
        .expect("skipped");
    assert!(
        skipped
            .attribute("message")
            .is_some_and(|m| m.starts_with("warning: nothing was fuzzed")),
        "{xml}"
    );
    let md = dir.read("rs.md");
    assert!(
        md.contains("| Fuzz | ⚠️ skipped: nothing was fuzzed"),
        "{md}"
    );
}

#[test]
fn run_fuzzes_its_fuzz_section_and_junit_agrees_with_the_exit_code() {
    let dir = Dir::new("fuzz-run");
    let server = yaml_list(&[&fake(), "--fault", "fuzz-targets"]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nchecks:\n  enabled: false\nfuzz:\n  max_examples: 6\n  timeout_ms: 500\n  seed: 9\n  tools: [fz_output, fz_strict]\n"
        ),
    );
    let out = toolproof_in(
        &dir.0,
        &[
            "run",
            "--junit",
            "j.xml",
            "--json",
            "r.json",
            "--summary",
            "s.md",
            "--html",
            "r.html",
        ],
        &[],
    );
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let xml = dir.read("j.xml");
    let doc = roxmltree::Document::parse(&xml).expect("JUnit parses");
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("fuzz"))
        .expect("fuzz suite");
    assert_eq!(suite.attribute("tests"), Some("2"));
    assert_eq!(suite.attribute("failures"), Some("1"));
    let failing = suite
        .children()
        .find(|c| c.attribute("name") == Some("fz_output"))
        .expect("fz_output case");
    assert!(failing.children().any(|c| c.has_tag_name("failure")));
    assert!(dir.read("s.md").contains("output-schema (valid)"));
    assert!(dir.read("r.html").contains("output-schema"));
    assert_eq!(dir.json("r.json")["phases"]["fuzz"]["results"]["seed"], 9);

    let out = toolproof_in(&dir.0, &["run", "--skip-fuzz", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(dir.json("r.json")["phases"]["fuzz"]["status"], "skipped");
}

#[test]
fn a_tool_name_the_server_lacks_fails_and_bad_numbers_are_usage_errors() {
    let dir = Dir::new("fuzz-typo");
    let (out, report) = fuzz_fake(&dir, &["--examples", "2", "--tool", "fz_acept"], &[]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(report["phases"]["fuzz"]["status"], "error");
    assert!(
        report["phases"]["fuzz"]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("`fz_acept`")
    );

    for bad in [
        ["--examples", "0"],
        ["--timeout-ms", "-5"],
        ["--max-time", "0"],
    ] {
        let (out, _) = fuzz_fake(&dir, &bad, &[]);
        assert_eq!(out.code, 2, "{bad:?}: {}", out.stderr);
        assert!(out.stderr.contains("error:"), "{}", out.stderr);
    }
}

#[test]
fn a_hang_that_blocks_the_server_is_cancelled_and_the_server_restarted() {
    let dir = Dir::new("fuzz-stuck");
    let log = dir.path("server.log").display().to_string();
    // `fz_stuck` blocks even `ping` on a long text, so only a restart frees the server.
    let flags = [
        "--examples",
        "15",
        "--timeout-ms",
        "200",
        "--max-time",
        "6",
        "--seed",
        "11",
        "--tool",
        "fz_stuck",
    ];
    let (out, report) = fuzz_fake(&dir, &flags, &["--log", &log]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let row = tool(&report, "fz_stuck");
    assert_eq!(row["findings"][0]["kind"], "hang", "{row:#}");
    let methods: Vec<String> = dir
        .read("server.log")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["message"]["method"].as_str().map(str::to_owned))
        .collect();
    let count = |m: &str| methods.iter().filter(|x| *x == m).count();
    // The blocked server never reads the cancellation nor the ping; it is stopped and started
    // again, and fuzzing goes on with the new process.
    assert!(
        count("initialize") >= 2,
        "the server was not restarted: {methods:?}"
    );
    let after_restart = methods
        .iter()
        .skip_while(|m| *m != "tools/call")
        .skip_while(|m| *m != "initialize");
    assert!(
        after_restart.clone().any(|m| m == "tools/call"),
        "{methods:?}"
    );
}

/// Boundary values come before random ones: `fz_weather` dies only on `{"city": ""}`, which
/// a random string rarely is, and 20 examples find it whatever the seed.
#[test]
fn boundary_values_come_first_so_every_seed_finds_the_empty_string() {
    let dir = Dir::new("fuzz-boundary");
    let mut missed = Vec::new();
    for seed in 1..=10 {
        let seed = seed.to_string();
        let flags = ["--examples", "20", "--seed", &seed, "--tool", "fz_weather"];
        let (out, report) = fuzz_fake(&dir, &flags, &[]);
        let row = tool(&report, "fz_weather");
        let crash = row["findings"]
            .as_array()
            .and_then(|f| f.iter().find(|f| f["kind"] == "crash"));
        match crash {
            Some(f) => {
                assert_eq!(out.code, 1, "{}", out.stdout);
                assert_eq!(f["mode"], "valid", "{f:#}");
                assert_eq!(f["input"], json!({"city": ""}), "{f:#}");
                assert!(
                    f["stderr"]
                        .as_str()
                        .is_some_and(|s| s.contains("no such city")),
                    "{f:#}"
                );
            }
            None => missed.push(seed),
        }
    }
    assert!(missed.is_empty(), "seeds that missed the crash: {missed:?}");
}

/// The bundled demo server keeps to its own input schemas: the fuzzer finds nothing in it
/// (every tool, the destructive one too), so a new user's first `toolproof fuzz` passes.
#[test]
fn the_demo_server_keeps_to_its_schemas_under_the_fuzzer() {
    let dir = super::demo_dir("fuzz-demo", "toolproof.yaml");
    for seed in ["1", "2", "3"] {
        let out = toolproof_in(
            &dir.0,
            &[
                "fuzz",
                "-c",
                "toolproof.yaml",
                "--seed",
                seed,
                "--include-destructive",
                "--json",
                "f.json",
            ],
            &[],
        );
        assert_eq!(out.code, 0, "seed {seed}: {}", out.stdout);
        let text = dir.read("f.json");
        let r: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let tools = r["phases"]["fuzz"]["results"]["tools"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(tools, 5, "every tool is fuzzed: {text}");
    }
}

/// By default only tools marked `readOnlyHint: true` are fuzzed: `fz_write` (it says
/// `destructiveHint: false` but changes state) is left alone, with the flag that includes it;
/// `--include-writes`, `TOOLPROOF_FUZZ_INCLUDE_WRITES` and `fuzz.include_writes` fuzz it, and so
/// does `--include-destructive`, which fuzzes every tool.
#[test]
fn writes_are_fuzzed_only_when_asked() {
    let dir = Dir::new("fuzz-writes");
    let flags = [
        "--examples",
        "2",
        "--tool",
        "fz_write",
        "--tool",
        "fz_strict",
    ];
    let (out, report) = fuzz_fake(&dir, &flags, &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let why = tool(&report, "fz_write")["skipped"]
        .as_str()
        .unwrap_or_default();
    assert!(
        why.contains("readOnlyHint: true") && why.contains("--include-writes"),
        "{why}"
    );
    assert_eq!(tool(&report, "fz_write")["calls"], 0);
    assert!(tool(&report, "fz_strict")["calls"].as_u64() > Some(0));

    let fuzzed = |report: &Value| {
        tool(report, "fz_write")["skipped"].is_null()
            && tool(report, "fz_write")["calls"].as_u64() > Some(0)
    };
    for extra in [["--include-writes"], ["--include-destructive"]] {
        let mut asked = flags.to_vec();
        asked.extend(extra);
        let (out, report) = fuzz_fake(&dir, &asked, &[]);
        assert_eq!(out.code, 0, "{extra:?}: {}", out.stdout);
        assert!(fuzzed(&report), "{extra:?}: {report:#}");
    }
    // The environment variable, and the YAML key, which the flag overrides.
    let fake = fake();
    let mut args = vec!["fuzz", "--json", "r.json"];
    args.extend_from_slice(&flags);
    args.extend(["--", fake.as_str(), "--fault", "fuzz-targets"]);
    let out = toolproof_in(&dir.0, &args, &[("TOOLPROOF_FUZZ_INCLUDE_WRITES", "1")]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(fuzzed(&dir.json("r.json")));
    let server = yaml_list(&[&fake, "--fault", "fuzz-targets"]);
    dir.write(
        "toolproof.yaml",
        &format!("server:\n  command: {server}\nfuzz:\n  include_writes: true\n  max_examples: 2\n  tools: [fz_write]\n"),
    );
    let out = toolproof_in(&dir.0, &["fuzz", "--json", "y.json"], &[]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(fuzzed(&dir.json("y.json")));
    let out = toolproof_in(
        &dir.0,
        &["fuzz", "--no-include-writes", "--json", "n.json"],
        &[],
    );
    // Nothing left to fuzz: the one tool is a write, and the message says so.
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "nothing was fuzzed: the one tool was skipped, as it does not declare readOnlyHint: true"
        ) && out.stdout.contains("--include-writes"),
        "{}",
        out.stdout
    );
}

/// "All N tools were skipped" says why (none declares `readOnlyHint: true`, and how many for
/// each reason) and which flag includes them.
#[test]
fn nothing_fuzzed_says_why_and_which_flag_includes_the_tools() {
    let dir = Dir::new("fuzz-nothing-why");
    let flags = [
        "--examples",
        "2",
        "--tool",
        "fz_write",
        "--tool",
        "fz_unannotated",
        "--tool",
        "crash",
    ];
    let (out, report) = fuzz_fake(&dir, &flags, &[]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let reason = report["phases"]["fuzz"]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        reason.starts_with(
            "nothing was fuzzed: all 3 tools were skipped, as none declares readOnlyHint: true \
             and only read-only tools are fuzzed by default (1 marked destructiveHint: false \
             (writes), 1 marked destructiveHint: true, 1 without readOnlyHint or \
             destructiveHint, which MCP counts as destructive)"
        ),
        "{reason}"
    );
    assert!(
        reason.contains("pass --include-writes (or set fuzz.include_writes: true) to fuzz the 1 write")
            && reason.contains("--include-destructive (or set fuzz.include_destructive: true) to fuzz those and the 2 that may be destructive"),
        "{reason}"
    );
}

/// A tool whose arguments declare how long it takes is given that time: `fz_wait` answers after
/// its `duration` (1 s by default, at most 1.5 s), well over a 300 ms timeout, and is no hang.
#[test]
fn a_tool_is_given_the_duration_its_arguments_declare() {
    let dir = Dir::new("fuzz-duration");
    let flags = [
        "--examples",
        "3",
        "--timeout-ms",
        "300",
        "--seed",
        "4",
        "--tool",
        "fz_wait",
    ];
    let (out, report) = fuzz_fake(&dir, &flags, &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let row = tool(&report, "fz_wait");
    assert_eq!(row["findings"], json!([]), "{row:#}");
    assert!(row["calls"].as_u64() >= Some(3), "{row:#}");
    assert!(row["stopped"].is_null(), "{row:#}");
    // A tool slower than the duration it was asked for is slow, not a hang: `fz_wait_twice`
    // takes twice its `duration`, over it plus the timeout.
    let flags = [
        "--examples",
        "3",
        "--timeout-ms",
        "100",
        "--seed",
        "4",
        "--tool",
        "fz_wait_twice",
    ];
    let (out, report) = fuzz_fake(&dir, &flags, &[]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let finding = &tool(&report, "fz_wait_twice")["findings"][0];
    assert_eq!(finding["kind"], "slow", "{finding:#}");
    let detail = finding["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("slower than the timeout: no answer within ")
            && detail.contains("its `duration` asked for plus timeout_ms"),
        "{detail}"
    );
    // With less time left than the declared duration, inputs are not sent, and the row says so.
    let flags = [
        "--examples",
        "3",
        "--timeout-ms",
        "300",
        "--max-time",
        "0.5",
        "--tool",
        "fz_wait",
    ];
    let (out, report) = fuzz_fake(&dir, &flags, &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let row = tool(&report, "fz_wait");
    let stopped = row["stopped"].as_str().unwrap_or_default();
    assert!(
        stopped.contains("not sent: `duration` asked for up to"),
        "{row:#}"
    );
}

/// A server restarted after every crash prints its startup banner each time: the console says
/// it once, with how many times it came, within an 80-column terminal.
#[test]
fn a_banner_printed_at_every_restart_is_shown_once_with_its_count() {
    let dir = Dir::new("fuzz-noise");
    let fake = fake();
    let args = [
        "fuzz",
        "--json",
        "r.json",
        "--examples",
        "10",
        "--seed",
        "3",
        "--tool",
        "fz_crash",
        "--",
        fake.as_str(),
        "--fault",
        "fuzz-targets",
        "--fault",
        "stdout-noise",
    ];
    let out = toolproof_in(&dir.0, &args, &[("COLUMNS", "80")]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let report = dir.json("r.json");
    let total = report["stdout_noise_total"].as_u64().unwrap_or_default();
    assert!(total > 1, "the server restarted: {report:#}");
    let banner = "fake-mcp 1.0.0 starting up, have a nice day!";
    assert_eq!(out.stdout.matches(banner).count(), 1, "{}", out.stdout);
    assert!(
        out.stdout.contains(&format!("  │ {banner}  (×{total})\n")),
        "{}",
        out.stdout
    );
    let warning = out
        .stdout
        .lines()
        .find(|l| l.starts_with("WARN the server printed"))
        .expect("the warning");
    assert!(warning.chars().count() <= 80, "{warning}");
}

/// A tool that answers its errors as success (`isError` false), as mcp-server-sqlite's
/// `read_query` does, is a finding of its own kind for valid and invalid inputs alike, with
/// the text; a printed entry expects what the tool should have said.
#[test]
fn an_error_returned_as_success_is_its_own_finding_with_the_text() {
    let dir = Dir::new("fuzz-error-as-success");
    let flags = ["--examples", "6", "--seed", "3", "--tool", "read_query"];
    let (out, report) = fuzz_fake(&dir, &flags, &["--fault", "error-as-success"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let row = tool(&report, "read_query");
    let findings = row["findings"].as_array().cloned().unwrap_or_default();
    assert!(!findings.is_empty(), "{row:#}");
    for f in &findings {
        assert_eq!(f["kind"], "error-as-success", "{f:#}");
        let detail = f["detail"].as_str().unwrap_or_default();
        assert!(
            detail
                .starts_with("success result (isError false) whose only text reads as an error: ")
                && (detail.contains("Error: Only SELECT queries are allowed")
                    || detail.contains("Database error: ")),
            "{detail}"
        );
    }
    assert!(out.stdout.contains("error-as-success"), "{}", out.stdout);
}
