//! The client's HTTP transports: resuming a streamable HTTP response stream (2025-11-25) and
//! the 2024-11-05 HTTP+SSE transport, each through the binary against the fake server.

use super::*;

/// A run of one `echo` test against `url`, with `server_extra` under `server:`; the report.
fn echo_run(name: &str, url: &str, server_extra: &str) -> (Dir, Out, Value) {
    let dir = Dir::new(name);
    let cfg = format!(
        "server:\n  url: {url}\n  startup_timeout_s: 10\n{server_extra}checks:\n  enabled: false\n\
         tests:\n  - name: echo\n    tool: echo\n    args: {{text: resumed}}\n    timeout_ms: 20000\n    expect: {{contains: resumed}}\n"
    );
    dir.write("toolproof.yaml", &cfg);
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    let report =
        serde_json::from_str(&std::fs::read_to_string(dir.path("r.json")).unwrap_or_default())
            .unwrap_or(Value::Null);
    (dir, out, report)
}

fn wire(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn a_response_stream_closed_after_its_priming_event_is_resumed_with_last_event_id() {
    let log_dir = Dir::new("sse-resume-log");
    let log = log_dir.path("wire.jsonl");
    let server = http_fake(&["--fault", "sse-resume", "--log", &log.display().to_string()]);
    let (_dir, out, report) = echo_run("sse-resume", &server.url, "");
    assert_eq!(out.code, 0, "{out:?}");
    let result = &report["phases"]["tests"]["results"][0];
    assert_eq!(result["status"], "passed", "{report:#}");
    let entries = wire(&log);
    let get = entries
        .iter()
        .find(|e| e["method"] == "GET")
        .unwrap_or_else(|| panic!("no GET to resume the stream: {entries:#?}"));
    let last = get["headers"]["last-event-id"].as_str().unwrap_or("");
    assert!(last.ends_with("-1"), "{get:#}");
    assert_eq!(get["headers"]["accept"], "text/event-stream");
    assert!(get["headers"]["mcp-session-id"].is_string(), "{get:#}");
}

#[test]
fn a_response_stream_the_server_will_not_resume_is_a_clear_error() {
    let server = http_fake(&["--fault", "sse-drop"]);
    let (_dir, out, report) = echo_run("sse-drop", &server.url, "");
    assert_eq!(out.code, 1, "{out:?}");
    let result = &report["phases"]["tests"]["results"][0];
    let failures = result["failures"].to_string();
    assert!(
        failures.contains("the event stream for `tools/call` ended without a response, and resuming it (GET with Last-Event-ID")
            && failures.contains("got HTTP 405"),
        "{result:#}"
    );
    assert!(!out.stderr.contains("panicked"), "{out:?}");
}
