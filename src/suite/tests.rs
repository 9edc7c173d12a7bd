//! The runner against a scripted stand-in for the server: order, timeouts, crashes, restarts,
//! retries and filters, without processes or waiting.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::*;
use crate::config::Config;

/// What the next call does.
enum Step {
    Text(&'static str),
    ErrorResult(&'static str),
    Protocol(&'static str),
    Timeout,
    Crash(&'static str),
    Broken(McpError),
}

#[derive(Default)]
struct Fake {
    script: VecDeque<Step>,
    /// Outcomes of successive restarts; `Ok` once exhausted.
    restarts: VecDeque<Result<(), &'static str>>,
    exited: bool,
    calls: Vec<(String, Duration)>,
    restarted: usize,
    pauses: Vec<Duration>,
    /// Answers to successive pings after a timeout; answered once exhausted.
    pings: VecDeque<bool>,
    /// Restarts of a server that did not answer a ping.
    hung_restarts: usize,
}

impl Fake {
    fn new(script: Vec<Step>) -> Self {
        Fake {
            script: script.into(),
            ..Fake::default()
        }
    }
}

fn result(text: &str, is_error: bool) -> CallResult {
    CallResult::Result {
        content: vec![json!({"type": "text", "text": text})],
        structured: None,
        is_error,
    }
}

impl Server for Fake {
    fn call(
        &mut self,
        tool: &str,
        _args: &Map<String, Value>,
        timeout: Duration,
    ) -> Result<CallOutcome, CallFailure> {
        assert!(!self.exited, "called a dead server");
        self.calls.push((tool.to_owned(), timeout));
        let ok = |result: CallResult| {
            Ok(CallOutcome {
                latency: Duration::from_millis(7),
                result,
                stderr: "call stderr\n".into(),
            })
        };
        let failed = |error: McpError, stderr: &str, latency: Duration| {
            Err(CallFailure {
                error,
                stderr: stderr.to_owned(),
                latency,
            })
        };
        match self.script.pop_front().unwrap_or(Step::Text("ok")) {
            Step::Text(t) => ok(result(t, false)),
            Step::ErrorResult(t) => ok(result(t, true)),
            Step::Protocol(m) => ok(CallResult::ProtocolError {
                code: -32602,
                message: m.into(),
                data: None,
            }),
            Step::Timeout => failed(
                McpError::Timeout {
                    method: "tools/call".into(),
                    after: timeout,
                },
                "",
                timeout,
            ),
            Step::Crash(stderr) => {
                self.exited = true;
                failed(
                    McpError::Exited {
                        how: "exited with code 3".into(),
                    },
                    stderr,
                    Duration::from_millis(3),
                )
            }
            Step::Broken(e) => failed(e, "", Duration::from_millis(1)),
        }
    }

    fn has_exited(&self) -> bool {
        self.exited
    }

    fn restart(&mut self) -> Result<(), ConnectError> {
        self.restarted += 1;
        match self.restarts.pop_front().unwrap_or(Ok(())) {
            Ok(()) => {
                self.exited = false;
                Ok(())
            }
            Err(stderr) => Err(ConnectError {
                error: McpError::Exited {
                    how: "exited with code 1".into(),
                },
                stderr: stderr.into(),
            }),
        }
    }

    fn answers_ping(&mut self) -> bool {
        self.pings.pop_front().unwrap_or(true)
    }

    fn restart_hung(&mut self) -> Result<(), ConnectError> {
        self.hung_restarts += 1;
        self.restart()
    }

    fn pause(&mut self, d: Duration, _: &Interrupt) {
        self.pauses.push(d);
    }
}

fn tools() -> Vec<Tool> {
    ["echo", "add", "get_weather"]
        .into_iter()
        .map(|n| Tool::from_wire(json!({"name": n, "inputSchema": {"type": "object"}})))
        .collect()
}

fn config(v: Value) -> Config {
    let mut v = v;
    v["server"] = json!({"command": ["server"]});
    serde_json::from_value(v).unwrap()
}

fn statuses(p: &Phase<Vec<TestResult>>) -> Vec<TestStatus> {
    p.results.iter().map(|r| r.status).collect()
}

#[test]
fn tests_run_in_yaml_order_and_report_the_last_result() {
    let cfg = config(json!({"tests": [
        {"name": "one", "tool": "echo", "expect": {"contains": "first"}, "tags": ["smoke"]},
        {"name": "two", "tool": "add", "expect": {"is_error": true}},
    ]}));
    let mut fake = Fake::new(vec![Step::Text("first"), Step::ErrorResult("nope")]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(phase.status, PhaseStatus::Passed);
    assert_eq!(phase.reason, None);
    let called: Vec<&str> = fake.calls.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(called, ["echo", "add"]);
    let one = &phase.results[0];
    assert_eq!(one.name, "one");
    assert_eq!(one.status, TestStatus::Passed);
    assert_eq!(one.attempts, 1);
    assert_eq!(one.latency_ms, 7.0);
    assert_eq!(one.is_error, Some(false));
    assert_eq!(one.text.as_deref(), Some("first"));
    assert_eq!(one.tags, ["smoke"]);
    assert_eq!(one.stderr, None, "stderr is kept only for failing tests");
    assert_eq!(phase.results[1].is_error, Some(true));
}

#[test]
fn a_failed_assertion_keeps_the_stderr_of_its_call() {
    let cfg = config(json!({"tests": [{"name": "t", "tool": "echo", "expect": {"equals": "b"}}]}));
    let mut fake = Fake::new(vec![Step::Text("a")]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(phase.status, PhaseStatus::Failed);
    let t = &phase.results[0];
    assert_eq!(t.status, TestStatus::Failed);
    assert_eq!(t.failures, [r#"expected result "b", got "a""#]);
    assert_eq!(t.stderr.as_deref(), Some("call stderr\n"));
}

#[test]
fn a_protocol_error_is_an_error_result() {
    let cfg =
        config(json!({"tests": [{"name": "t", "tool": "echo", "expect": {"is_error": true}}]}));
    let mut fake = Fake::new(vec![Step::Protocol("Invalid params")]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(statuses(&phase), [TestStatus::Passed]);
    assert_eq!(phase.results[0].is_error, Some(true));
    assert_eq!(phase.results[0].text.as_deref(), Some("Invalid params"));
}

#[test]
fn an_unknown_tool_fails_without_a_call_and_suggests_the_nearest() {
    let cfg = config(json!({"retries": 3, "tests": [
        {"name": "typo", "tool": "get-weather"},
        {"name": "far", "tool": "launch_rocket"},
    ]}));
    let mut fake = Fake::new(vec![]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert!(fake.calls.is_empty());
    assert_eq!(statuses(&phase), [TestStatus::Failed, TestStatus::Failed]);
    assert_eq!(phase.results[0].attempts, 0);
    assert_eq!(
        phase.results[0].failures,
        ["server has no tool named 'get-weather', did you mean 'get_weather'?"]
    );
    assert_eq!(
        phase.results[1].failures,
        ["server has no tool named 'launch_rocket'"]
    );
}

#[test]
fn nearest_tool_name() {
    let names = ["echo", "add", "get_weather"];
    assert_eq!(nearest("ecoh", names.into_iter()), Some("echo"));
    assert_eq!(nearest("ECHO", names.into_iter()), Some("echo"));
    assert_eq!(
        nearest("get.weather", names.into_iter()),
        Some("get_weather")
    );
    assert_eq!(nearest("sum", names.into_iter()), None);
    assert_eq!(nearest("ehco_", names.into_iter()), Some("echo"));
}

#[test]
fn a_timeout_is_reported_as_such_after_the_test_timeout() {
    let cfg = config(json!({"timeout_ms": 5000, "tests": [
        {"name": "slow", "tool": "echo", "timeout_ms": 1500, "expect": {"is_error": true}},
        {"name": "next", "tool": "echo"},
    ]}));
    let mut fake = Fake::new(vec![Step::Timeout]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(fake.calls[0].1, Duration::from_millis(1500));
    assert_eq!(fake.calls[1].1, Duration::from_millis(5000));
    let slow = &phase.results[0];
    assert_eq!(slow.status, TestStatus::Error, "never an error result");
    assert_eq!(slow.failures, ["no answer within 1500ms (timeout_ms)"]);
    assert_eq!(slow.latency_ms, 1500.0);
    assert_eq!(slow.is_error, None);
    assert_eq!(fake.restarted, 0, "a live server is not restarted");
    assert_eq!(
        fake.hung_restarts, 0,
        "a server that answers a ping is kept"
    );
    assert_eq!(phase.results[1].status, TestStatus::Passed);
}

#[test]
fn a_server_that_does_not_answer_a_ping_after_a_timeout_is_restarted() {
    let cfg = config(json!({"tests": [
        {"name": "hangs", "tool": "echo", "timeout_ms": 300, "retries": 1},
        {"name": "next", "tool": "echo"},
    ]}));
    let mut fake = Fake::new(vec![Step::Timeout, Step::Timeout]);
    fake.pings = VecDeque::from([false, true]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(fake.hung_restarts, 1);
    let hangs = &phase.results[0];
    assert_eq!(hangs.status, TestStatus::Error);
    assert_eq!(
        hangs.failures,
        [
            "no answer within 300ms (timeout_ms)",
            "attempt 1: the server did not answer a ping after the timeout; restarted"
        ]
    );
    assert_eq!(phase.results[1].status, TestStatus::Passed);
    assert_eq!(phase.reason, None);
}

#[test]
fn a_hung_server_that_cannot_restart_leaves_the_rest_not_run() {
    let cfg = config(json!({"tests": [
        {"name": "hangs", "tool": "echo"},
        {"name": "next", "tool": "echo"},
    ]}));
    let mut fake = Fake::new(vec![Step::Timeout]);
    fake.pings = VecDeque::from([false]);
    fake.restarts = VecDeque::from([Err("port in use")]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    let why = "server exited with code 1; its stderr ends with: port in use";
    assert_eq!(
        phase.results[0].failures[1],
        format!(
            "the server did not answer a ping after the timeout and could not be restarted: {why}"
        )
    );
    assert_eq!(phase.results[1].status, TestStatus::NotRun);
    assert_eq!(
        phase.reason.as_deref(),
        Some(format!("the server could not be restarted: {why}").as_str())
    );
}

#[test]
fn timeouts_of_minutes_and_beyond_pass_through() {
    let cfg = config(json!({"tests": [
        {"name": "long", "tool": "echo", "timeout_ms": 300000},
        {"name": "absurd", "tool": "echo", "timeout_ms": 1e300},
    ]}));
    let mut fake = Fake::new(vec![]);
    run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(fake.calls[0].1, Duration::from_secs(300));
    assert_eq!(fake.calls[1].1, Duration::from_secs(30 * 24 * 3600));
}

#[test]
fn a_crash_is_an_error_with_the_calls_stderr_then_the_server_restarts() {
    let cfg = config(json!({"tests": [
        {"name": "boom", "tool": "echo"},
        {"name": "after", "tool": "echo"},
    ]}));
    let mut fake = Fake::new(vec![Step::Crash("about to crash\n")]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    let boom = &phase.results[0];
    assert_eq!(boom.status, TestStatus::Error);
    assert_eq!(
        boom.failures,
        ["the server exited with code 3 during the call"]
    );
    assert_eq!(boom.stderr.as_deref(), Some("about to crash\n"));
    assert_eq!(fake.restarted, 1);
    assert_eq!(phase.results[1].status, TestStatus::Passed);
    assert_eq!(phase.reason, None);
}

#[test]
fn broken_pipes_also_restart_the_server() {
    let cfg = config(json!({"tests": [{"name": "t", "tool": "echo"}]}));
    let mut fake = Fake::new(vec![Step::Broken(McpError::Io("broken pipe".into()))]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(
        phase.results[0].failures,
        ["no result from the server: i/o with the server failed: broken pipe"]
    );
    assert_eq!(fake.restarted, 1);
}

#[test]
fn a_failed_restart_marks_every_remaining_test_not_run() {
    let cfg = config(json!({"tests": [
        {"name": "ok", "tool": "echo"},
        {"name": "boom", "tool": "echo", "retries": 2},
        {"name": "left", "tool": "echo"},
        {"name": "also left", "tool": "nope"},
    ]}));
    let mut fake = Fake::new(vec![Step::Text("fine"), Step::Crash("dying\n")]);
    fake.restarts
        .push_back(Err("boot\nrefusing to start again\n\n"));
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(
        statuses(&phase),
        [
            TestStatus::Passed,
            TestStatus::Error,
            TestStatus::NotRun,
            TestStatus::NotRun
        ]
    );
    assert_eq!(fake.calls.len(), 2, "no retry on a server that is gone");
    let why = "server exited with code 1; its stderr ends with: refusing to start again";
    assert_eq!(phase.results[1].attempts, 1);
    assert_eq!(phase.results[1].stderr.as_deref(), Some("dying\n"));
    for left in &phase.results[2..] {
        assert_eq!(left.attempts, 0);
        assert_eq!(
            left.failures,
            [format!("not run: the server could not be restarted: {why}")]
        );
    }
    assert_eq!(phase.status, PhaseStatus::Failed);
    assert_eq!(
        phase.reason,
        Some(format!("the server could not be restarted: {why}"))
    );
}

#[test]
fn a_server_found_dead_before_a_call_is_restarted_first() {
    let cfg = config(json!({"tests": [{"name": "t", "tool": "echo"}]}));
    let mut fake = Fake::new(vec![]);
    fake.exited = true;
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(fake.restarted, 1);
    assert_eq!(statuses(&phase), [TestStatus::Passed]);

    let mut dead = Fake::new(vec![]);
    dead.exited = true;
    dead.restarts.push_back(Err(""));
    let phase = run_cfg(&mut dead, &tools(), &cfg, None);
    assert!(dead.calls.is_empty());
    assert_eq!(statuses(&phase), [TestStatus::NotRun]);
    assert_eq!(
        phase.results[0].failures,
        ["not run: the server could not be restarted: server exited with code 1"]
    );
}

#[test]
fn a_pass_on_a_retry_is_flaky_and_keeps_what_flaked() {
    let cfg = config(json!({"retry_delay_ms": 50, "tests": [
        {"name": "t", "tool": "echo", "retries": 3, "retry_delay_ms": 20, "expect": {"equals": "yes"}},
    ]}));
    let mut fake = Fake::new(vec![Step::Text("no"), Step::Timeout, Step::Text("yes")]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(phase.status, PhaseStatus::Passed, "flaky counts as passed");
    let t = &phase.results[0];
    assert_eq!(t.status, TestStatus::Flaky);
    assert_eq!(t.attempts, 3);
    assert_eq!(
        t.failures,
        [
            r#"attempt 1: expected result "yes", got "no""#,
            "attempt 2: no answer within 10000ms (timeout_ms)"
        ]
    );
    assert_eq!(t.text.as_deref(), Some("yes"));
    assert_eq!(t.stderr, None);
    assert_eq!(fake.pauses, [Duration::from_millis(20); 2]);
}

#[test]
fn retries_stop_at_the_limit_and_report_the_last_attempt_first() {
    let cfg = config(json!({"retries": 2, "tests": [
        {"name": "t", "tool": "echo", "expect": {"equals": "yes"}},
    ]}));
    let mut fake = Fake::new(vec![
        Step::Crash("x"),
        Step::Text("no"),
        Step::Text("no"),
        Step::Text("yes"),
    ]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    let t = &phase.results[0];
    assert_eq!(t.status, TestStatus::Failed);
    assert_eq!(t.attempts, 3);
    assert_eq!(fake.calls.len(), 3);
    assert_eq!(fake.restarted, 1);
    assert!(fake.pauses.is_empty(), "no delay configured");
    assert_eq!(
        t.failures,
        [
            r#"expected result "yes", got "no""#,
            "attempt 1: the server exited with code 3 during the call"
        ]
    );
}

#[test]
fn no_retries_means_one_attempt() {
    let cfg =
        config(json!({"tests": [{"name": "t", "tool": "echo", "expect": {"equals": "yes"}}]}));
    let mut fake = Fake::new(vec![Step::Text("no"), Step::Text("yes")]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, None);
    assert_eq!(fake.calls.len(), 1);
    assert_eq!(statuses(&phase), [TestStatus::Failed]);
}

#[test]
fn tests_the_filter_leaves_out_are_not_in_the_results() {
    let cfg = config(json!({"tests": [
        {"name": "a", "tool": "echo"},
        {"name": "b", "tool": "echo", "tags": ["x"]},
    ]}));
    let mut fake = Fake::new(vec![]);
    let phase = run_cfg(&mut fake, &tools(), &cfg, Some("tag:x"));
    assert_eq!(phase.results.len(), 1);
    assert_eq!(phase.results[0].name, "b");
}

#[test]
fn an_interrupt_stops_the_run_and_says_what_did_not_run() {
    let cfg = config(json!({"tests": [
        {"name": "a", "tool": "echo"},
        {"name": "b", "tool": "echo"},
    ]}));
    let mut fake = Fake::new(vec![Step::Text("x"), Step::Text("y")]);
    let interrupt = Interrupt::new();
    interrupt.fire(Signal::Term);
    let selected = crate::settings::select(&cfg.tests, None);
    let (events, rx) = Events::channel();
    let phase = run_on(
        &mut fake,
        &tools(),
        Selection {
            tests: &cfg.tests,
            selected: &selected,
            defaults: defaults_of(&cfg),
        },
        &events,
        &interrupt,
    );
    assert!(fake.calls.is_empty());
    assert_eq!(statuses(&phase), [TestStatus::NotRun, TestStatus::NotRun]);
    assert_eq!(phase.status, PhaseStatus::Error);
    assert_eq!(
        phase.reason.as_deref(),
        Some("interrupted by SIGTERM: 0 of 2 tests ran")
    );
    assert_eq!(
        phase.results[0].failures,
        ["not run: the run was interrupted by SIGTERM"]
    );
    drop(events);
    let finished: Vec<Event> = rx.iter().collect();
    assert_eq!(finished.len(), 2, "{finished:?}");
}

#[test]
fn kept_text_is_cut_at_64_kib_on_a_character_boundary() {
    let small = "é".repeat(10);
    assert_eq!(keep_head(small.clone()), small);
    let big = "é".repeat(KEEP_BYTES);
    let head = keep_head(big.clone());
    assert!(head.len() <= KEEP_BYTES);
    assert!(head.starts_with("éé"));
    assert!(head.ends_with(&format!("(cut: {} bytes in all)", big.len())));
    let tail = keep_tail(format!("start{big}end"));
    assert!(tail.len() <= KEEP_BYTES);
    assert!(tail.ends_with("éend"));
    assert!(!tail.contains("start"));
}
