//! The run's shape from the outside: each command plans its phases before connecting, a
//! signal still leaves valid reports and no server behind, report destinations that are not
//! regular files are written in place, a closed stdout ends the run quietly, and a long phase
//! keeps talking.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::FileTypeExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;

use super::*;

/// The JSON lines the fake server logged: one per message it received.
fn logged_methods(dir: &Dir) -> Vec<String> {
    std::fs::read_to_string(dir.path("server.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["message"]["method"].as_str().map(str::to_owned))
        .collect()
}

/// A config whose one test would sleep 3 s in the server, and a command-provider eval.
fn slow_test_config(dir: &Dir) {
    let server = yaml_list(&[&fake(), "--log", "server.log"]);
    let picker = yaml_list(&[
        "sh",
        "-c",
        "cat >/dev/null; echo '{\"tool\": \"echo\", \"args\": {\"text\": \"hello\"}}'",
    ]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\ntests:\n  - name: sleeps three seconds\n    tool: slow\n    args: {{ms: 3000}}\nevals:\n  provider: command\n  command: {picker}\n  cases:\n    - {{prompt: echo hello, expect_tool: echo}}\n"
        ),
    );
}

#[test]
fn inspect_and_eval_plan_only_their_phases_and_call_no_tool() {
    let dir = Dir::new("plan-inspect");
    slow_test_config(&dir);
    let out = toolproof_in(&dir.0, &["inspect", "-c", "toolproof.yaml", "--json"], &[]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["phases"]["tests"]["status"], "skipped");
    assert_eq!(
        report["phases"]["tests"]["reason"],
        "inspect runs only the static checks"
    );
    assert_eq!(report["phases"]["evals"]["status"], "skipped");
    assert_eq!(report["phases"]["checks"]["status"], "passed");
    let methods = logged_methods(&dir);
    assert!(methods.iter().any(|m| m == "tools/list"), "{methods:?}");
    assert!(!methods.iter().any(|m| m == "tools/call"), "{methods:?}");

    let _ = std::fs::remove_file(dir.path("server.log"));
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml", "--json", "r.json"],
        &[],
    );
    let report = dir.json("r.json");
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["phases"]["evals"]["status"], "passed");
    for phase in ["checks", "tests", "bench", "fuzz"] {
        assert_eq!(report["phases"][phase]["status"], "skipped", "{phase}");
        assert_eq!(
            report["phases"][phase]["reason"], "eval runs only the evals",
            "{phase}"
        );
    }
    assert!(!logged_methods(&dir).iter().any(|m| m == "tools/call"));

    let _ = std::fs::remove_file(dir.path("server.log"));
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    let report = dir.json("r.json");
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["phases"]["tests"]["status"], "passed");
    assert!(logged_methods(&dir).iter().any(|m| m == "tools/call"));
}

/// Whether a process whose command line contains `marker` is still alive.
fn process_alive(marker: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.filter_map(Result::ok).any(|e| {
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        // A zombie (state Z) is gone already; it only waits for its parent to reap it.
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'));
        !zombie && String::from_utf8_lossy(&cmdline).contains(marker)
    })
}

#[test]
fn sigterm_mid_test_writes_valid_reports_marks_the_run_interrupted_and_stops_the_server() {
    let dir = Dir::new("sigterm");
    let marker = format!("sigterm-marker-{}", std::process::id());
    let (log_path, log) = fifo_log(&dir);
    let log_arg = log_path.display().to_string();
    let server = yaml_list(&[&fake(), "--name", &marker, "--log", &log_arg]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\ntests:\n  - name: quick echo\n    tool: echo\n    args: {{text: hi}}\n  - name: a minute of sleep\n    tool: slow\n    args: {{ms: 60000}}\n    timeout_ms: 120000\n  - name: never reached\n    tool: echo\n    args: {{text: later}}\n"
        ),
    );
    let mut child = spawn_run(&dir);
    let lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    wait_for_call(&log, "slow");
    assert!(process_alive(&marker), "the server should run");
    sigterm(&child);
    let seen: Vec<String> = lines.map(Result::unwrap_or_default).collect();
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(143), "{seen:#?}");
    assert!(!process_alive(&marker), "the server outlived toolproof");

    let report = dir.json("r.json");
    assert_eq!(report["interrupted"], "SIGTERM");
    assert_eq!(report["exit_code"], 143);
    assert_eq!(report["passed"], false);
    let tests = &report["phases"]["tests"];
    assert_eq!(tests["status"], "error");
    assert_eq!(tests["reason"], "interrupted by SIGTERM: 1 of 3 tests ran");
    assert_eq!(tests["results"][0]["status"], "passed");
    assert_eq!(tests["results"][1]["status"], "not_run");
    assert_eq!(
        tests["results"][1]["failures"][0],
        "not finished: the run was interrupted by SIGTERM during the call"
    );
    assert_eq!(tests["results"][2]["status"], "not_run");

    let junit = dir.read("j.xml");
    assert!(junit.starts_with("<?xml"), "{junit}");
    assert!(junit.trim_end().ends_with("</testsuites>"), "{junit}");
    assert!(junit.contains("interrupted by SIGTERM"), "{junit}");
    // What ran before the signal is kept.
    assert!(junit.contains(" name=\"quick echo\" time=\""), "{junit}");
}

/// Starts `toolproof run` in `dir` with reports, stderr piped.
fn spawn_run(dir: &Dir) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_toolproof"))
        .args(["run", "--junit", "j.xml", "--json", "r.json"])
        .current_dir(&dir.0)
        .env("CI", "true")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start toolproof")
}

/// Reads stderr lines into `seen` until one contains every word of `until`.
fn read_until(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    seen: &mut Vec<String>,
    until: &[&str],
) {
    for line in lines.by_ref() {
        let line = line.unwrap_or_default();
        seen.push(line.clone());
        if until.iter().all(|w| line.contains(w)) {
            return;
        }
    }
    panic!("never saw {until:?}: {seen:#?}");
}

/// A FIFO the fake server logs every message it receives to, and the lines as they come.
fn fifo_log(dir: &Dir) -> (PathBuf, mpsc::Receiver<String>) {
    let path = dir.path("server.fifo");
    mkfifo(&path);
    let (tx, rx) = mpsc::channel();
    let reading = path.clone();
    std::thread::spawn(move || {
        let Ok(file) = std::fs::File::open(&reading) else {
            return;
        };
        for line in BufReader::new(file).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    (path, rx)
}

/// Blocks until the server logged a `tools/call` of `tool`: the call is in flight.
fn wait_for_call(log: &mpsc::Receiver<String>, tool: &str) {
    for line in log.iter() {
        let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if v["message"]["method"] == "tools/call" && v["message"]["params"]["name"] == tool {
            return;
        }
    }
    panic!("the server never logged a call of {tool}");
}

fn sigterm(child: &std::process::Child) {
    let ok = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill -TERM");
}

#[test]
fn sigterm_abandons_an_http_call_in_flight() {
    let dir = Dir::new("sigterm-http");
    let (log_path, log) = fifo_log(&dir);
    let log_arg = log_path.display().to_string();
    let server = http_fake(&["--log", &log_arg]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  url: {}\ntests:\n  - name: quick echo\n    tool: echo\n    args: {{text: hi}}\n  - name: ten minutes of sleep\n    tool: slow\n    args: {{ms: 600000}}\n    timeout_ms: 900000\n",
            server.url
        ),
    );
    let mut child = spawn_run(&dir);
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    wait_for_call(&log, "slow");
    sigterm(&child);
    let seen: Vec<String> = lines.by_ref().map(Result::unwrap_or_default).collect();
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(143), "{seen:#?}");
    let report = dir.json("r.json");
    assert_eq!(report["interrupted"], "SIGTERM");
    let slow = &report["phases"]["tests"]["results"][1];
    assert_eq!(slow["status"], "not_run");
    assert_eq!(
        slow["failures"][0],
        "not finished: the run was interrupted by SIGTERM during the call"
    );
    // The ten-minute call was left behind, not waited for.
    assert!(
        report["duration_ms"]
            .as_f64()
            .is_some_and(|ms| ms < 300_000.0)
    );
}

#[test]
fn a_second_signal_exits_at_once_and_kills_a_server_that_ignores_the_first() {
    let dir = Dir::new("second-signal");
    let marker = format!("stubborn-marker-{}", std::process::id());
    let (log_path, log) = fifo_log(&dir);
    let script = format!(
        "trap '' TERM; exec {} --name {marker} --log {}",
        fake(),
        log_path.display()
    );
    let server = yaml_list(&["sh", "-c", &script]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\ntests:\n  - name: quick echo\n    tool: echo\n    args: {{text: hi}}\n  - name: ten minutes of sleep\n    tool: slow\n    args: {{ms: 600000}}\n    timeout_ms: 900000\n"
        ),
    );
    let mut child = spawn_run(&dir);
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut seen = Vec::new();
    wait_for_call(&log, "slow");
    sigterm(&child);
    read_until(
        &mut lines,
        &mut seen,
        &["SIGTERM received", "again to exit at once"],
    );
    // The server ignores SIGTERM, so the run is still waiting for it to end (toolproof kills
    // it 3 s after the first signal, then writes the reports).
    assert!(process_alive(&marker), "{seen:#?}");
    sigterm(&child);
    seen.extend(lines.map(Result::unwrap_or_default));
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(143), "{seen:#?}");
    assert!(
        !dir.path("r.json").exists(),
        "a second signal still wrote the reports: {seen:#?}"
    );
    assert!(
        !process_alive(&marker),
        "the server outlived a second signal"
    );
}

/// A small server and config for the report-destination tests.
fn clean_server_config(dir: &Dir) {
    let server = yaml_list(&[&fake()]);
    dir.write("toolproof.yaml", &format!("server:\n  command: {server}\n"));
}

#[test]
fn dev_null_stays_a_device_and_dev_stdout_receives_the_json() {
    let dir = Dir::new("devices");
    clean_server_config(&dir);
    let out = toolproof_in(
        &dir.0,
        &[
            "run",
            "toolproof.yaml",
            "--junit",
            "/dev/null",
            "--json",
            "/dev/stdout",
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let meta = std::fs::metadata("/dev/null").expect("/dev/null");
    assert!(meta.file_type().is_char_device(), "/dev/null was replaced");
    let report: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not only the JSON report ({e}): {out:?}"));
    assert_eq!(report["exit_code"], 0);
    // The console report moved to stderr, out of the way of the JSON.
    assert!(out.stderr.contains("PASSED"), "{out:?}");

    let out = toolproof_in(&dir.0, &["run", "--junit", "-"], &[]);
    assert!(out.stdout.starts_with("<?xml"), "{out:?}");
    let out = toolproof_in(&dir.0, &["run", "--junit", "-", "--json", "-"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("2 reports are sent to stdout"),
        "{out:?}"
    );
}

/// Reads `fifo` on a thread; returns what arrived. Unblocks a reader left waiting when no
/// writer ever came.
fn read_fifo_while(fifo: &Path, run: impl FnOnce() -> Out) -> (Out, String) {
    let (tx, rx) = mpsc::channel();
    let path = fifo.to_path_buf();
    let reader = std::thread::spawn(move || {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let _ = tx.send(());
        text
    });
    let out = run();
    if rx.try_recv().is_err() {
        // Nobody wrote: open and close the FIFO so the reader sees an end.
        let _ = std::fs::OpenOptions::new().write(true).open(fifo);
    }
    (out, reader.join().unwrap_or_default())
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn a_fifo_and_symlinks_are_written_through_never_replaced() {
    let dir = Dir::new("fifo");
    clean_server_config(&dir);
    let fifo = dir.path("junit.fifo");
    mkfifo(&fifo);
    let (out, xml) = read_fifo_while(&fifo, || {
        toolproof_in(&dir.0, &["run", "--junit", "junit.fifo"], &[])
    });
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        xml.starts_with("<?xml") && xml.contains("</testsuites>"),
        "{xml}"
    );
    assert!(std::fs::metadata(&fifo).is_ok_and(|m| m.file_type().is_fifo()));

    // A symlink to the FIFO: written through the link, both stay what they were.
    let link = dir.path("to-fifo.xml");
    std::os::unix::fs::symlink(&fifo, &link).expect("symlink");
    let (out, xml) = read_fifo_while(&fifo, || {
        toolproof_in(&dir.0, &["run", "--junit", "to-fifo.xml"], &[])
    });
    assert_eq!(out.code, 0, "{out:?}");
    assert!(xml.contains("</testsuites>"), "{xml}");
    assert!(std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()));

    // A symlink to a regular file: the file gets the report, the link stays a link.
    let real = dir.write("real.json", "old");
    let link = dir.path("report.json");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    let out = toolproof_in(&dir.0, &["run", "--json", "report.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()));
    let report: Value = serde_json::from_str(&dir.read("real.json")).unwrap_or(Value::Null);
    assert_eq!(report["exit_code"], 0);
}

#[test]
fn an_unwritable_report_path_is_a_usage_error_before_connecting() {
    let dir = Dir::new("unwritable");
    let server = yaml_list(&[&fake(), "--log", "server.log"]);
    dir.write("toolproof.yaml", &format!("server:\n  command: {server}\n"));
    dir.write("blocker", "a file where a folder should be");
    let out = toolproof_in(&dir.0, &["run", "--junit", "blocker/j.xml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("cannot write the JUnit report to blocker/j.xml"),
        "{out:?}"
    );
    assert!(!dir.path("server.log").exists(), "the server was started");
    let out = toolproof_in(&dir.0, &["run", "--json", "new/deep/r.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(dir.path("new/deep/r.json").is_file());
}

#[test]
fn a_reader_that_goes_away_ends_the_run_quietly_with_its_own_code() {
    for (fault, want) in [(None, 0), (Some("no-description"), 1)] {
        let mut args = vec!["inspect".to_string(), "--".into(), fake()];
        if let Some(f) = fault {
            args.extend(["--fault".to_string(), f.into()]);
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolproof"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start toolproof");
        // `| head -0`: the reader is gone before the first byte.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(want), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// Off a terminal a heartbeat line says how far a phase got whenever it has been quiet for the
/// interval (20 s by default, `TOOLPROOF_HEARTBEAT_S` here): each case waits three times the
/// interval for the model, so a heartbeat comes before every case line.
#[test]
fn a_long_eval_off_a_terminal_prints_a_heartbeat_whenever_it_is_quiet_for_the_interval() {
    let llm = crate::fake("fake_llm");
    let api = listening(&llm, &["--delay-ms", "3000"]);
    let dir = Dir::new("heartbeat");
    let server = yaml_list(&[&fake()]);
    let cases: String = (1..=3)
        .map(|i| {
            format!("    - {{prompt: 'case {i} [[call echo {{\"text\": \"x\"}}]]', expect_tool: echo}}\n")
        })
        .collect();
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: anthropic\n  model: fake-model\n  cache: false\n  concurrency: 1\n  cases:\n{cases}"
        ),
    );
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml"],
        &[
            ("TOOLPROOF_HEARTBEAT_S", "1"),
            ("ANTHROPIC_API_KEY", "sk-test-key-0123456789"),
            ("ANTHROPIC_BASE_URL", &api.url),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stderr.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == "evals: 3 cases to run")
        .unwrap_or_else(|| panic!("no phase start line: {lines:#?}"));
    let end = lines
        .iter()
        .position(|l| l.starts_with("evals: PASS"))
        .unwrap_or_else(|| panic!("no phase end line: {lines:#?}"));
    let is_beat = |l: &str| l.starts_with("evals: ") && l.contains(" cases, ");
    // Each case line has a heartbeat before it, after the phase start or the case before.
    let mut quiet_since = start;
    let mut cases_seen = 0;
    let mut done_before = 0;
    for (i, line) in lines.iter().enumerate().take(end).skip(start + 1) {
        if is_beat(line) {
            // `evals: 1/3 cases, 4s`: how far the phase got, never going back, and when.
            let done: usize = line
                .trim_start_matches("evals: ")
                .split('/')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(usize::MAX);
            assert!(done >= done_before && done <= 3, "{line}");
            assert!(line.ends_with('s'), "{line}");
            done_before = done;
        } else if line.trim_start().starts_with("PASS") {
            assert!(
                lines[quiet_since + 1..i].iter().any(|l| is_beat(l)),
                "no heartbeat before {line:?}: {lines:#?}"
            );
            cases_seen += 1;
            quiet_since = i;
        }
    }
    assert_eq!(cases_seen, 3, "{lines:#?}");
}

#[test]
fn console_on_stderr_when_stdout_is_taken_by_a_report() {
    let dir = Dir::new("console-stderr");
    clean_server_config(&dir);
    let out = toolproof_in(&dir.0, &["run", "--json", "-"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        serde_json::from_str::<Value>(&out.stdout).is_ok(),
        "{out:?}"
    );
    assert!(out.stderr.contains("Static checks: PASS"), "{out:?}");
}

#[test]
fn github_actions_folds_each_long_phase_and_defuses_commands_in_names() {
    let dir = Dir::new("groups");
    let server = yaml_list(&[&fake()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\ntests:\n  - name: plain echo\n    tool: echo\n    args: {{text: hi}}\n  - name: \"::error::forged\"\n    tool: echo\n    args: {{text: hi}}\n"
        ),
    );
    let out = toolproof_in(&dir.0, &["run"], &[("GITHUB_ACTIONS", "true")]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stderr.lines().collect();
    let open = lines.iter().position(|l| *l == "::group::tests (2 tests)");
    let close = lines.iter().position(|l| *l == "::endgroup::");
    let (Some(open), Some(close)) = (open, close) else {
        panic!("no group: {out:?}");
    };
    assert!(open < close, "{out:?}");
    let inside = &lines[open + 1..close];
    assert_eq!(inside.len(), 2, "{inside:?}");
    assert!(inside[0].contains("PASS  plain echo"), "{inside:?}");
    assert!(
        lines.iter().all(|l| !l.trim_start().starts_with("::error")),
        "a test name acted as a workflow command: {out:?}"
    );
    assert!(
        lines[close + 1].starts_with("tests: PASS - 2/2 passed"),
        "{out:?}"
    );
}

/// Each phase's first progress line counts what it will do in its own unit, singular for one:
/// `tests: 1 test to run`, `fuzz: 4 tools to run`; a tool the fuzzer leaves alone (`crash`,
/// marked destructive) is not counted.
#[test]
fn the_progress_lines_count_in_each_phases_unit() {
    let dir = Dir::new("progress-units");
    let cmd = yaml_list(&[&fake()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {cmd}\ntests:\n  - {{name: says hi, tool: echo, args: {{text: hi}}}}\nfuzz:\n  max_examples: 1\n  seed: 7\n  tools: [echo, add, crash]\n"
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--no-checks"], &[("CI", "true")]);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert!(lines.contains(&"tests: 1 test to run"), "{lines:#?}");
    assert!(lines.contains(&"fuzz: 2 tools to run"), "{lines:#?}");
}

#[test]
fn a_heartbeat_interval_outside_one_to_thirty_seconds_is_refused() {
    let dir = Dir::new("heartbeat-bad");
    clean_server_config(&dir);
    for bad in ["0", "31", "soon"] {
        let out = toolproof_in(&dir.0, &["run"], &[("TOOLPROOF_HEARTBEAT_S", bad)]);
        assert_eq!(out.code, 2, "{out:?}");
        assert!(
            out.stderr.contains("TOOLPROOF_HEARTBEAT_S")
                && out.stderr.contains(&format!("got `{bad}`")),
            "{out:?}"
        );
    }
}
