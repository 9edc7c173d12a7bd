//! HTTP servers that fail: nobody listening, error statuses, HTML, event streams that never end
//! or break, answers that trickle, a refused authorisation, a wrong id, a server that hangs.

use super::harness::{Case, example};
use super::servers::{ECHO, verdicts};

pub use toolproof_test_support::Listening;

/// Starts a fake (`fake_mcp --http …`, `fake_llm`) and reads the URL it listens on.
pub fn listening(name: &str, args: &[&str]) -> Listening {
    toolproof_test_support::listening(&example(name), args)
}

/// The fake MCP server over HTTP with these arguments.
fn http_fake(args: &[&str]) -> Listening {
    let mut all = vec!["--http", "127.0.0.1:0"];
    all.extend_from_slice(args);
    listening("fake_mcp", &all)
}

/// A config for an HTTP server at `url`, short budgets, no static checks, and `tests`.
fn suite(url: &str, tests: &str) -> String {
    format!(
        "server:\n  url: {url}\n  startup_timeout_s: 2\ntimeout_ms: 300\nchecks:\n  enabled: false\ntests:\n{tests}"
    )
}

/// An `echo` test with a timeout long enough that an error reported late would show.
const PATIENT_ECHO: &str =
    "  - name: echo\n    tool: echo\n    args: {text: hi}\n    timeout_ms: 20000\n";

#[test]
fn a_refused_connection_is_named() {
    // A port that was free a moment ago and has nobody listening now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(9, |a| a.port());
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = Case::new("http-refused").yaml(&suite(&url, ECHO)).run();
    out.sound(1).says("connection refused");
    assert_eq!(out.report()["phases"]["tests"]["status"], "error");
}

#[test]
fn a_404_says_to_check_the_path() {
    let server = http_fake(&["--fault", "http-404"]);
    let out = Case::new("http-404").yaml(&suite(&server.url, ECHO)).run();
    out.sound(1)
        .says("HTTP 404 from")
        .says("check the URL path, often /mcp");
}

#[test]
fn a_500_quotes_the_body() {
    let server = http_fake(&["--fault", "http-500"]);
    let out = Case::new("http-500").yaml(&suite(&server.url, ECHO)).run();
    out.sound(1)
        .says("HTTP 500 from")
        .says("Internal Server Error: the fake broke");
}

#[test]
fn an_html_page_is_named_as_one() {
    let server = http_fake(&["--fault", "http-html"]);
    let out = Case::new("http-html").yaml(&suite(&server.url, ECHO)).run();
    out.sound(1).says("got an HTML page (Welcome It works!)");
}

#[test]
fn a_401_with_a_json_rpc_error_body_fails_even_a_test_that_expects_an_error() {
    let server = http_fake(&["--fault", "http-401-call"]);
    let tests = "  - name: expects an error\n    tool: echo\n    args: {text: hi}\n    expect: {is_error: true}\n  - name: expects nothing\n    tool: echo\n    args: {text: hi}\n";
    let out = Case::new("http-401-call")
        .yaml(&suite(&server.url, tests))
        .run();
    out.sound(1)
        .says("HTTP 401 from")
        .says("check `headers:` in the config, e.g. Authorization");
    let v = verdicts(&out);
    assert_eq!(v[0].0, "error", "{out:?}");
    assert_eq!(v[1].0, "error", "{out:?}");
}

#[test]
fn an_event_stream_that_never_answers_is_cut_at_the_timeout() {
    let server = http_fake(&["--fault", "sse-endless"]);
    let tests = format!("  - name: endless\n    tool: echo\n    args: {{text: hi}}\n{ECHO}");
    let out = Case::new("sse-endless")
        .yaml(&suite(&server.url, &tests))
        .run();
    out.sound(1);
    let v = verdicts(&out);
    assert_eq!(
        v[0],
        (
            "error".to_owned(),
            "no answer within 300ms (timeout_ms)".to_owned()
        )
    );
    // The fake answers calls side by side, so the ping after the timeout is answered.
    assert_eq!(results_failures(&out, 0), 1, "{out:?}");
}

/// How many failure lines test `i` has.
fn results_failures(out: &super::harness::Outcome, i: usize) -> usize {
    super::servers::results(out)[i]["failures"]
        .as_array()
        .map_or(0, Vec::len)
}

#[test]
fn an_event_of_cut_json_is_reported_at_once_as_unreadable() {
    let server = http_fake(&["--fault", "sse-malformed"]);
    let out = Case::new("sse-malformed")
        .yaml(&suite(&server.url, PATIENT_ECHO))
        .run();
    out.sound(1)
        .says("the answer to `tools/call` could not be read: it is not valid JSON");
}

#[test]
fn an_event_over_the_message_limit_is_refused_and_named() {
    let server = http_fake(&["--fault", "sse-huge-event"]);
    let out = Case::new("sse-huge-event")
        .yaml(&suite(&server.url, PATIENT_ECHO))
        .run();
    out.sound(1)
        .says("it is an SSE event over the 64 MiB limit for one message");
}

#[test]
fn an_answer_sent_a_byte_at_a_time_is_bounded_by_the_call_timeout() {
    let server = http_fake(&["--fault", "trickle"]);
    let tests = format!("  - name: trickle\n    tool: echo\n    args: {{text: hi}}\n{ECHO}");
    let out = Case::new("trickle").yaml(&suite(&server.url, &tests)).run();
    out.sound(1);
    let v = verdicts(&out);
    assert_eq!(
        v[0],
        (
            "error".to_owned(),
            "no answer within 300ms (timeout_ms)".to_owned()
        )
    );
}

#[test]
fn an_http_answer_with_the_wrong_id_is_reported_at_once() {
    let server = http_fake(&["--fault", "wrong-id"]);
    let out = Case::new("http-wrong-id")
        .yaml(&suite(&server.url, PATIENT_ECHO))
        .run();
    out.sound(1).says("with id 1004, which no request has");
}

#[test]
fn a_hung_http_server_that_cannot_open_a_new_session_leaves_the_rest_not_run() {
    // One request at a time: while `slow` runs, neither the ping nor a new session's
    // handshake is answered, so the tests after it cannot run.
    let server = http_fake(&["--fault", "one-at-a-time"]);
    let tests = format!("  - name: hangs\n    tool: slow\n    args: {{ms: 600000}}\n{ECHO}");
    let out = Case::new("http-one-at-a-time")
        .yaml(&suite(&server.url, &tests))
        .run();
    out.sound(1)
        .says("not run: the server could not be restarted: no answer to `server/discover`");
    let hung = &super::servers::results(&out)[0];
    assert_eq!(hung["failures"][0], "no answer within 300ms (timeout_ms)");
    let second = hung["failures"][1].as_str().unwrap_or("");
    assert!(
        second.starts_with("the server did not answer a ping after the timeout and could not be restarted: no answer to `server/discover` within 2"),
        "{second}"
    );
    assert_eq!(verdicts(&out)[1].0, "not_run", "{out:?}");
}
