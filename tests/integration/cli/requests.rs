//! Scripted answers to the server's own requests (`elicitation`, `sampling`, `roots`) through
//! the `toolproof` binary and the fake server's `client-requests` tools, over stdio, streamable
//! HTTP and the 2024-11-05 HTTP+SSE transport.

use super::*;
use serde_json::json;

/// Every kind of answer, one test each; each test's expectation holds only when the server got
/// exactly the scripted answer.
const TESTS: &str = r#"  - name: accept with content
    tool: book
    args: {party: 2}
    elicitation: {action: accept, content: {time: "19:00", note: window}}
    expect: {contains: 'booked 2 at {"time":"19:00","note":"window"}'}
  - name: accept with the defaults
    tool: book
    args: {party: 3}
    elicitation: {action: accept}
    expect: {contains: 'booked 3 at {"time":"18:00"}'}
  - name: decline
    tool: book
    args: {party: 2}
    elicitation: {action: decline}
    expect: {contains: "not booked: the user chose decline"}
  - name: cancel
    tool: book
    args: {party: 2}
    elicitation: {action: cancel}
    expect: {contains: "not booked: the user chose cancel"}
  - name: sampling text
    tool: summarize
    args: {text: a long story}
    sampling: {text: a short summary}
    expect: {contains: "summary: a short summary (model toolproof-scripted)"}
  - name: roots
    tool: list_roots
    roots: ["file:///tmp/project", "file:///srv/data"]
    expect: {contains: "roots: [file:///tmp/project, file:///srv/data]"}
  - name: top-level default answer
    tool: book
    args: {party: 4}
    expect: {contains: "not booked: the user chose cancel"}
"#;

fn write_config(dir: &Dir, server: &str) {
    dir.write(
        "toolproof.yaml",
        &format!(
            "{server}checks:\n  enabled: false\nelicitation: {{action: cancel}}\ntests:\n{TESTS}"
        ),
    );
}

fn stdio_server() -> String {
    format!(
        "server:\n  command: {}\n",
        yaml_list(&[&fake(), "--fault", "client-requests"])
    )
}

fn report(dir: &Dir) -> Value {
    let text = std::fs::read_to_string(dir.path("r.json")).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

fn test_named<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["phases"]["tests"]["results"]
        .as_array()
        .and_then(|r| r.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no test {name} in {report:#}"))
}

fn assert_all_scripted_answers_arrive(dir: &Dir) {
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let r = report(dir);
    let asked = |name: &str| test_named(&r, name)["server_requests"].clone();
    assert_eq!(
        asked("accept with content"),
        json!([{"method": "elicitation/create", "answer": "accept"}])
    );
    assert_eq!(
        asked("accept with the defaults")[0]["answer"],
        "accept (the schema's defaults)"
    );
    assert_eq!(
        asked("sampling text")[0]["method"],
        "sampling/createMessage"
    );
    assert_eq!(
        asked("roots"),
        json!([{"method": "roots/list", "answer": "2 roots"}])
    );
    assert_eq!(asked("top-level default answer")[0]["answer"], "cancel");
}

#[test]
fn scripted_answers_reach_a_stdio_server_and_are_recorded() {
    let dir = Dir::new("requests-stdio");
    write_config(&dir, &stdio_server());
    assert_all_scripted_answers_arrive(&dir);
}

#[test]
fn scripted_answers_reach_an_http_server_on_the_post_stream() {
    let dir = Dir::new("requests-http");
    let server = http_fake(&["--fault", "client-requests"]);
    write_config(&dir, &format!("server:\n  url: {}\n", server.url));
    assert_all_scripted_answers_arrive(&dir);
}

#[test]
fn scripted_answers_reach_an_http_server_on_its_resumed_get_stream() {
    // The server sends its requests on the session's GET stream, which it closes after the
    // priming event: they arrive only if toolproof listens there and resumes it.
    let dir = Dir::new("requests-get-stream");
    let log = dir.path("wire.jsonl").display().to_string();
    let server = http_fake(&["--fault", "client-requests,get-stream", "--log", &log]);
    write_config(&dir, &format!("server:\n  url: {}\n", server.url));
    assert_all_scripted_answers_arrive(&dir);
    let gets: Vec<Value> = dir
        .read("wire.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["method"] == "GET")
        .collect();
    let first = gets
        .first()
        .unwrap_or_else(|| panic!("no GET stream opened"));
    assert!(first["headers"].get("last-event-id").is_none(), "{first:#}");
    assert_eq!(first["headers"]["accept"], "text/event-stream");
    let sid = first["headers"]["mcp-session-id"].as_str().unwrap_or("?");
    let resumed = format!("{sid}-0");
    assert!(
        gets.iter()
            .any(|g| g["headers"]["last-event-id"].as_str() == Some(resumed.as_str())),
        "no GET resumed the stream after its priming event {resumed}: {gets:#?}"
    );
}

#[test]
fn scripted_answers_reach_a_stateless_server_as_input_responses() {
    // 2026-07-28 has no server-to-client requests: the tool answers `input_required`, and the
    // call is sent again with the scripted answer in `inputResponses`.
    for transport in ["stdio", "http"] {
        let dir = Dir::new(&format!("requests-mrtr-{transport}"));
        let log = dir.path("wire.jsonl").display().to_string();
        let args = [
            "--era",
            "modern",
            "--fault",
            "client-requests",
            "--log",
            &log,
        ];
        let _http;
        let server = if transport == "http" {
            _http = http_fake(&args);
            format!("server:\n  url: {}\n", _http.url)
        } else {
            let mut command = vec![fake()];
            command.extend(args.iter().map(|a| (*a).to_owned()));
            let refs: Vec<&str> = command.iter().map(String::as_str).collect();
            format!("server:\n  command: {}\n", yaml_list(&refs))
        };
        write_config(&dir, &server);
        assert_all_scripted_answers_arrive(&dir);
        let retries: Vec<Value> = dir
            .read("wire.jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|entry| entry["message"].clone())
            .filter(|m| m["method"] == "tools/call" && m["params"].get("inputResponses").is_some())
            .collect();
        // One retry per test: seven tests, each answered in one round.
        assert_eq!(retries.len(), 7, "{transport}: {retries:#?}");
        assert!(
            retries.iter().all(|m| m["params"]["requestState"]
                .as_str()
                .is_some_and(|s| s.starts_with("fake-state-"))),
            "{retries:#?}"
        );
    }
}

#[test]
fn a_stateless_tool_asking_for_unscripted_sampling_says_what_to_script() {
    // Sampling is declared (another test scripts it), so the tool asks; this test scripts no
    // answer, and a refusal cannot be sent as an input response.
    let dir = Dir::new("requests-mrtr-unscripted");
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {}\nchecks:\n  enabled: false\ntests:\n  - name: scripted\n    tool: summarize\n    args: {{text: t}}\n    sampling: {{text: s}}\n  - name: summary\n    tool: summarize\n    args: {{text: t}}\n    expect: {{is_error: false}}\n",
            yaml_list(&[&fake(), "--era", "modern", "--fault", "client-requests"])
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let r = report(&dir);
    let text = test_named(&r, "summary").to_string();
    assert!(
        text.contains("`sampling/createMessage`") && text.contains("script `sampling:`"),
        "{text}"
    );
}

#[test]
fn scripted_answers_reach_an_http_sse_server_on_its_event_stream() {
    let dir = Dir::new("requests-legacy-sse");
    let server = http_fake(&["--fault", "client-requests", "--legacy-sse"]);
    write_config(
        &dir,
        &format!("server:\n  url: {}\n  transport: sse\n", server.url),
    );
    assert_all_scripted_answers_arrive(&dir);
    assert_eq!(report(&dir)["server"]["transport"], "sse");
}

#[test]
fn unscripted_requests_keep_the_defaults_and_declare_no_capability() {
    let dir = Dir::new("requests-default");
    dir.write(
        "toolproof.yaml",
        &format!(
            "{}checks:\n  enabled: false\ntests:\n  - name: book\n    tool: book\n    args: {{party: 2}}\n    expect: {{is_error: false}}\n",
            stdio_server()
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let r = report(&dir);
    let book = test_named(&r, "book");
    assert_eq!(
        book["text"],
        "the client did not declare the `elicitation` capability"
    );
    assert!(book.get("server_requests").is_none(), "{book:#}");
}

#[test]
fn capabilities_declared_for_one_test_get_the_default_answer_in_others() {
    let dir = Dir::new("requests-mixed");
    dir.write(
        "toolproof.yaml",
        &format!(
            "{}checks:\n  enabled: false\ntests:\n  - name: roots\n    tool: list_roots\n    roots: [\"file:///a\"]\n  - name: book\n    tool: book\n    args: {{party: 2}}\n    expect: {{is_error: true}}\n",
            stdio_server()
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let r = report(&dir);
    // `book` is not scripted: elicitation is declared (no other test scripts it) only when
    // some test does, so here the server refuses to ask.
    assert_eq!(
        test_named(&r, "book")["text"],
        "the client did not declare the `elicitation` capability"
    );
    assert_eq!(test_named(&r, "roots")["text"], "roots: [file:///a]");
}

#[test]
fn content_breaking_the_requested_schema_fails_the_test_and_says_so() {
    let dir = Dir::new("requests-bad-content");
    dir.write(
        "toolproof.yaml",
        &format!(
            "{}checks:\n  enabled: false\ntests:\n  - name: bad time\n    tool: book\n    args: {{party: 2}}\n    elicitation: {{action: accept, content: {{time: late}}}}\n",
            stdio_server()
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let r = report(&dir);
    let bad = test_named(&r, "bad time");
    assert_eq!(bad["status"], "failed");
    let failure = bad["failures"][0].as_str().unwrap_or_default();
    assert!(
        failure.contains(
            "the scripted elicitation content {\"time\":\"late\"} breaks the requested schema"
        ) && failure.contains("/time"),
        "{failure}"
    );
    assert_eq!(bad["text"], "not booked: the user chose cancel");
    // The console detail of a failing test names what the server asked and what it got.
    assert!(
        out.stdout
            .contains("server asked: elicitation/create → cancel"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_bad_answer_shape_is_a_config_error_with_its_place() {
    let dir = Dir::new("requests-config");
    dir.write(
        "toolproof.yaml",
        &format!(
            "{}tests:\n  - name: t\n    tool: book\n    elicitation: {{action: decline, content: {{time: \"19:00\"}}}}\n",
            stdio_server()
        ),
    );
    let out = toolproof_in(&dir.0, &["run"], &[]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("toolproof.yaml:6:")
            && out.stderr.contains("only sent with `action: accept`"),
        "{}",
        out.stderr
    );
}
