//! The YAML tool-call tests (`tests:`): which tests `--filter` selects, and running them in
//! order with honest timeouts, retries, and a restart when the server dies or hangs. Never prints;
//! the assertions themselves live in [`assert`].

pub(crate) mod assert;
mod typo;

use typo::nearest;
pub(crate) use typo::nearest as nearest_tool;

use std::time::{Duration, Instant};

use crate::config::{TestCase, limits};
use crate::events::{Event, Events};
use crate::interrupt::{Interrupt, Signal};
use crate::mcp::ToolServer as Server;
use crate::mcp::client::{CallFailure, Client, ConnectError};
use crate::mcp::error::McpError;
use crate::mcp::requests::ServerRequest;
use crate::mcp::types::{CallOutcome, CallResult, Tool};
use crate::outcome::{self, Phase, PhaseStatus, TestResult, TestStatus};

/// Most bytes of a result's text (and of a failing call's stderr) kept in a [`TestResult`].
pub(crate) const KEEP_BYTES: usize = 64 * 1024;

/// The values a test falls back to when it sets none itself (resolved from the flags, the
/// environment and the YAML).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Defaults {
    /// Per-call timeout.
    pub timeout: Duration,
    /// Retries after a failed attempt.
    pub retries: u32,
    /// Wait between attempts.
    pub retry_delay: Duration,
}

/// The tests of one run: all of them, which ones run, and their defaults.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Selection<'a> {
    /// Every test, in YAML order.
    pub tests: &'a [TestCase],
    /// Indexes of the tests to run, in order.
    pub selected: &'a [usize],
    /// What a test falls back to.
    pub defaults: Defaults,
}

/// Runs the selected tests in order, one after another, on `client`; `tools` is the server's
/// tool list. The phase is `Passed` when every test passed (flaky ones count) and `Failed`
/// otherwise; its reason says when the server could not be restarted. When `interrupt`
/// fires, the test in flight and every later one are not run, and the phase is an error that
/// says so.
pub(crate) fn run(
    client: &mut Client,
    tools: &[Tool],
    selection: Selection<'_>,
    events: &Events,
    interrupt: &Interrupt,
) -> Phase<Vec<TestResult>> {
    run_on(client, tools, selection, events, interrupt)
}

fn run_on<S: Server>(
    server: &mut S,
    tools: &[Tool],
    selection: Selection<'_>,
    events: &Events,
    interrupt: &Interrupt,
) -> Phase<Vec<TestResult>> {
    let started = Instant::now();
    let mut broken: Option<String> = None;
    let mut results = Vec::with_capacity(selection.selected.len());
    for &i in selection.selected {
        let test = &selection.tests[i];
        let result = match interrupt.signal() {
            Some(signal) => interrupted(test, signal, false),
            None => {
                let run = Run {
                    tools,
                    defaults: &selection.defaults,
                    events,
                    interrupt,
                };
                run_one(server, &run, test, &mut broken)
            }
        };
        events.emit(Event::TestFinished {
            name: result.name.clone(),
            status: result.status,
            latency_ms: result.latency_ms,
            failure: result.failures.first().cloned(),
        });
        results.push(result);
    }
    let all_ok = results
        .iter()
        .all(|r| matches!(r.status, TestStatus::Passed | TestStatus::Flaky));
    let (status, reason) = match interrupt.signal() {
        Some(signal) => {
            let ran = results
                .iter()
                .filter(|r| r.status != TestStatus::NotRun)
                .count();
            (
                PhaseStatus::Error,
                Some(format!(
                    "interrupted by {}: {ran} of {} tests ran",
                    signal.name(),
                    results.len()
                )),
            )
        }
        None if all_ok => (PhaseStatus::Passed, None),
        None => (PhaseStatus::Failed, None),
    };
    Phase {
        status,
        reason: reason.or(broken.map(|why| format!("the server could not be restarted: {why}"))),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results,
    }
}

/// What every test of a run shares.
struct Run<'a> {
    tools: &'a [Tool],
    defaults: &'a Defaults,
    events: &'a Events,
    interrupt: &'a Interrupt,
}

/// A test the interrupt kept from running (or whose call it cut short).
fn interrupted(test: &TestCase, signal: Signal, in_flight: bool) -> TestResult {
    let mut result = blank(test);
    result.failures.push(if in_flight {
        format!(
            "not finished: the run was interrupted by {} during the call",
            signal.name()
        )
    } else {
        format!("not run: the run was interrupted by {}", signal.name())
    });
    result
}

fn blank(test: &TestCase) -> TestResult {
    TestResult {
        name: test.name.clone(),
        tool: test.tool.clone(),
        status: TestStatus::NotRun,
        failures: Vec::new(),
        latency_ms: 0.0,
        attempts: 0,
        is_error: None,
        text: None,
        stderr: None,
        tags: test.tags.clone(),
        line: test.line,
        server_requests: Vec::new(),
        warnings: Vec::new(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Pass,
    Fail,
    Error,
}

/// One call of a test and what came of it.
struct Attempt {
    verdict: Verdict,
    failures: Vec<String>,
    /// What the report should say without failing the test.
    warnings: Vec<String>,
    latency_ms: f64,
    is_error: Option<bool>,
    text: Option<String>,
    stderr: String,
    /// The server died (or its pipes broke) and needs a restart.
    server_gone: bool,
    /// The call got no answer in time.
    timed_out: bool,
    /// The server's own requests during the call.
    requests: Vec<ServerRequest>,
}

fn run_one<S: Server>(
    server: &mut S,
    run: &Run<'_>,
    test: &TestCase,
    broken: &mut Option<String>,
) -> TestResult {
    let mut result = blank(test);
    if let Some(why) = broken {
        result.failures.push(not_run(why));
        return result;
    }
    let Some(tool) = run.tools.iter().find(|t| t.name == test.tool) else {
        result.status = TestStatus::Failed;
        result.failures.push(no_such_tool(&test.tool, run.tools));
        return result;
    };

    let mut history = match attempt_all(server, run, test, tool, broken) {
        Ok(history) => history,
        Err(cut) => return interrupted(test, cut.signal, cut.in_flight),
    };
    let Some(last) = history.pop() else {
        // Only a failed restart leaves a test without any attempt.
        if let Some(why) = broken {
            result.failures.push(not_run(why));
        }
        return result;
    };
    result.attempts = u32::try_from(history.len() + 1).unwrap_or(u32::MAX);
    result.status = match last.verdict {
        Verdict::Pass if history.is_empty() => TestStatus::Passed,
        Verdict::Pass => TestStatus::Flaky,
        Verdict::Fail => TestStatus::Failed,
        Verdict::Error => TestStatus::Error,
    };
    result.failures = last.failures.clone();
    for (i, earlier) in history.iter().enumerate() {
        for line in &earlier.failures {
            if !last.failures.contains(line) {
                result.failures.push(format!("attempt {}: {line}", i + 1));
            }
        }
    }
    result.latency_ms = last.latency_ms;
    result.warnings = last.warnings;
    result.is_error = last.is_error;
    result.text = last.text;
    result.server_requests = last
        .requests
        .into_iter()
        .map(|r| outcome::ServerRequest {
            method: r.method,
            answer: r.answer,
            problem: r.problem,
        })
        .collect();
    if matches!(result.status, TestStatus::Failed | TestStatus::Error)
        && !last.stderr.trim().is_empty()
    {
        result.stderr = Some(keep_tail(last.stderr));
    }
    result
}

/// A test the interrupt cut short: by which signal, and whether during a call.
struct Cut {
    signal: Signal,
    in_flight: bool,
}

/// Calls the tool until an attempt passes or the retries run out, restarting a server that
/// died. `Err` when the interrupt cut the test short.
fn attempt_all<S: Server>(
    server: &mut S,
    run: &Run<'_>,
    test: &TestCase,
    tool: &Tool,
    broken: &mut Option<String>,
) -> Result<Vec<Attempt>, Cut> {
    let defaults = run.defaults;
    let timeout = test.timeout_ms.map_or(defaults.timeout, limits::millis);
    let allowed = test.retries.unwrap_or(defaults.retries).saturating_add(1);
    let delay = test
        .retry_delay_ms
        .map_or(defaults.retry_delay, limits::millis);
    let mut history: Vec<Attempt> = Vec::new();
    for n in 1..=allowed {
        if n > 1 {
            run.events.emit(Event::TestRetry {
                name: test.name.clone(),
                attempt: n - 1,
                of: allowed,
            });
            if !delay.is_zero() {
                server.pause(delay, run.interrupt);
            }
        }
        if let Some(signal) = run.interrupt.signal() {
            return Err(Cut {
                signal,
                in_flight: false,
            });
        }
        if server.has_exited()
            && let Err(e) = server.restart()
        {
            *broken = Some(restart_reason(&e));
            break;
        }
        let mut attempt = call_once(server, tool, test, timeout);
        if let Some(signal) = run.interrupt.signal() {
            // The interrupt stopped the server: what the call saw says nothing of the tool.
            return Err(Cut {
                signal,
                in_flight: true,
            });
        }
        let restarted = if attempt.server_gone {
            server.restart().map_err(|e| restart_reason(&e))
        } else if attempt.timed_out {
            probe_after_timeout(server, &mut attempt)
        } else {
            Ok(())
        };
        let passed = attempt.verdict == Verdict::Pass;
        history.push(attempt);
        if let Err(why) = restarted {
            *broken = Some(why);
            break;
        }
        if passed {
            break;
        }
    }
    Ok(history)
}

fn call_once<S: Server>(
    server: &mut S,
    tool: &Tool,
    test: &TestCase,
    timeout: Duration,
) -> Attempt {
    server.script_answers(crate::mcp::spec::script_of(test));
    let answer = server.call(&test.tool, &test.args, timeout);
    let requests = server.server_requests();
    let mut attempt = attempt_of(server, tool, test, answer, timeout);
    for problem in requests.iter().filter_map(|r| r.problem.as_ref()) {
        attempt.failures.push(problem.clone());
        if attempt.verdict == Verdict::Pass {
            attempt.verdict = Verdict::Fail;
        }
    }
    attempt.requests = requests;
    attempt
}

/// What one call's answer says about the test.
fn attempt_of<S: Server>(
    server: &mut S,
    tool: &Tool,
    test: &TestCase,
    answer: Result<CallOutcome, CallFailure>,
    timeout: Duration,
) -> Attempt {
    match answer {
        Ok(outcome) => {
            let failures = assert::check(&test.expect, &outcome, tool.output_schema.as_ref());
            let warnings = assert::warnings(&test.expect, &outcome);
            let is_error = match &outcome.result {
                CallResult::Result { is_error, .. } => *is_error,
                CallResult::ProtocolError { .. } => true,
            };
            Attempt {
                verdict: if failures.is_empty() {
                    Verdict::Pass
                } else {
                    Verdict::Fail
                },
                failures,
                warnings,
                latency_ms: outcome.latency.as_secs_f64() * 1000.0,
                is_error: Some(is_error),
                text: Some(keep_head(outcome.result.text())),
                stderr: outcome.stderr,
                server_gone: false,
                timed_out: false,
                requests: Vec::new(),
            }
        }
        Err(failure) => {
            let message = match &failure.error {
                McpError::Timeout { .. } => format!(
                    "no answer within {}ms (timeout_ms)",
                    assert::number_text(limits::in_millis(timeout))
                ),
                McpError::Exited { how } => format!("the server {how} during the call"),
                other => format!("no result from the server: {other}"),
            };
            Attempt {
                verdict: Verdict::Error,
                failures: vec![message],
                warnings: Vec::new(),
                latency_ms: failure.latency.as_secs_f64() * 1000.0,
                is_error: None,
                text: None,
                stderr: failure.stderr,
                server_gone: failure.error.is_fatal() || server.has_exited(),
                timed_out: matches!(failure.error, McpError::Timeout { .. }),
                requests: Vec::new(),
            }
        }
    }
}

/// After a call timed out: probes the server with a `ping` and restarts it when it does not
/// answer (a server that handles one request at a time is still stuck in the call, and every
/// later test would time out too), saying so among the attempt's failures. `Err` holds why the
/// restart failed.
fn probe_after_timeout<S: Server>(server: &mut S, attempt: &mut Attempt) -> Result<(), String> {
    if server.answers_ping() {
        return Ok(());
    }
    let said = "the server did not answer a ping after the timeout";
    match server.restart_hung() {
        Ok(()) => {
            attempt.failures.push(format!("{said}; restarted"));
            Ok(())
        }
        Err(e) => {
            let why = restart_reason(&e);
            attempt
                .failures
                .push(format!("{said} and could not be restarted: {why}"));
            Err(why)
        }
    }
}

fn not_run(why: &str) -> String {
    format!("not run: the server could not be restarted: {why}")
}

/// The restart error, with the last line the server wrote to stderr when there is one.
pub(crate) fn restart_reason(e: &ConnectError) -> String {
    match e.stderr.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(line) => format!(
            "{}; its stderr ends with: {}",
            e.error,
            assert::excerpt(line)
        ),
        None => e.error.to_string(),
    }
}

/// `server has no tool named 'x'`, with the nearest listed name when one is close.
fn no_such_tool(name: &str, tools: &[Tool]) -> String {
    let mut message = format!("server has no tool named '{name}'");
    if let Some(near) = nearest(name, tools.iter().map(|t| t.name.as_str())) {
        message.push_str(&format!(", did you mean '{near}'?"));
    }
    message
}

/// The first [`KEEP_BYTES`] of a text, with a note saying how long it was.
fn keep_head(text: String) -> String {
    if text.len() <= KEEP_BYTES {
        return text;
    }
    let note = format!("\n… (cut: {} bytes in all)", text.len());
    let mut end = KEEP_BYTES - note.len();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{note}", &text[..end])
}

/// The last [`KEEP_BYTES`] of a text (the last words of a dying server matter most).
fn keep_tail(text: String) -> String {
    if text.len() <= KEEP_BYTES {
        return text;
    }
    let note = format!("… (cut: the last part of {} bytes)\n", text.len());
    let mut start = text.len() - (KEEP_BYTES - note.len());
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("{note}{}", &text[start..])
}

/// The defaults the YAML alone gives (tests of this module).
#[cfg(test)]
fn defaults_of(cfg: &crate::config::Config) -> Defaults {
    Defaults {
        timeout: limits::millis(cfg.timeout_ms),
        retries: cfg.retries,
        retry_delay: limits::millis(cfg.retry_delay_ms),
    }
}

/// Runs the tests of `cfg` that `filter` selects with the YAML's defaults (tests of this
/// module).
#[cfg(test)]
fn run_cfg<S: Server>(
    server: &mut S,
    tools: &[Tool],
    cfg: &crate::config::Config,
    filter: Option<&str>,
) -> Phase<Vec<TestResult>> {
    let selected = crate::settings::select(&cfg.tests, filter);
    let selection = Selection {
        tests: &cfg.tests,
        selected: &selected,
        defaults: defaults_of(cfg),
    };
    run_on(server, tools, selection, &Events::none(), &Interrupt::new())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) mod fake_server_tests;
