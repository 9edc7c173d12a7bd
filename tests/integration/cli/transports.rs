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
        .find(|e| e["method"] == "GET" && e["headers"].get("last-event-id").is_some())
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

// ---------------------------------------------------------------- 2024-11-05 HTTP+SSE

/// The fake speaking the 2024-11-05 HTTP+SSE transport (its URL is the `/sse` stream), with its
/// wire log in `log_dir`.
fn legacy_sse_fake(log_dir: &Dir, extra: &[&str]) -> (Listening, PathBuf) {
    let log = log_dir.path("wire.jsonl");
    let log_arg = log.display().to_string();
    let mut args = vec!["--legacy-sse", "--log", &log_arg];
    args.extend_from_slice(extra);
    let server = http_fake(&args);
    assert!(server.url.ends_with("/sse"), "{}", server.url);
    (server, log)
}

/// (method, path, JSON-RPC method) of each logged HTTP request, in order.
fn requests(log: &Path) -> Vec<(String, String, String)> {
    wire(log)
        .iter()
        .map(|e| {
            let text = |v: &Value| v.as_str().unwrap_or("").to_owned();
            (
                text(&e["method"]),
                text(&e["path"]),
                text(&e["message"]["method"]),
            )
        })
        .collect()
}

fn tool_names(report: &Value) -> Vec<String> {
    report["inventory"]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_http_sse_server_is_inspected_with_transport_sse() {
    let logs = Dir::new("legacy-sse-inspect-log");
    let (server, log) = legacy_sse_fake(&logs, &["--resources"]);
    let dir = Dir::new("legacy-sse-inspect");
    let out = toolproof_in(
        &dir.0,
        &[
            "inspect",
            "--json",
            "--url",
            &server.url,
            "--transport",
            "sse",
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let report: Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("no JSON ({e}): {out:?}"));
    assert_eq!(report["server"]["transport"], "sse", "{report:#}");
    assert_eq!(report["server"]["era"], "legacy");
    assert_eq!(report["server"]["name"], "fake-mcp");
    assert_eq!(
        tool_names(&report),
        ["echo", "add", "fail", "slow", "crash"]
    );
    assert_eq!(report["inventory"]["resources"][0]["uri"], "fake://readme");
    // The stream first, then every message POSTed to the endpoint it named; nothing to /sse.
    let sent = requests(&log);
    assert_eq!(sent[0], ("GET".into(), "/sse".into(), String::new()));
    let posts: Vec<&str> = sent[1..]
        .iter()
        .map(|(m, p, rpc)| {
            assert_eq!((m.as_str(), p.as_str()), ("POST", "/messages"), "{sent:?}");
            rpc.as_str()
        })
        .collect();
    assert_eq!(
        posts[..4],
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "resources/list"
        ]
    );
    let session = wire(&log)[1]["query"].as_str().unwrap_or("").to_owned();
    assert!(session.starts_with("session_id=fake-"), "{session}");
    // The console names the transport in its header.
    let text = toolproof_in(
        &dir.0,
        &["inspect", "--url", &server.url, "--transport", "sse"],
        &[],
    );
    assert!(
        text.stdout.contains("protocol 2025-11-25 (legacy, sse)"),
        "{text:?}"
    );
}

#[test]
fn a_tool_call_test_passes_over_http_sse() {
    let logs = Dir::new("legacy-sse-run-log");
    let (server, log) = legacy_sse_fake(&logs, &[]);
    let (_dir, out, report) = echo_run("legacy-sse-run", &server.url, "  transport: sse\n");
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["server"]["transport"], "sse", "{report:#}");
    let result = &report["phases"]["tests"]["results"][0];
    assert_eq!(result["status"], "passed", "{report:#}");
    assert_eq!(result["text"], "resumed", "{result:#}");
    let call = wire(&log)
        .into_iter()
        .find(|e| e["message"]["method"] == "tools/call")
        .unwrap_or_else(|| panic!("no tools/call on the wire"));
    assert_eq!(call["path"], "/messages", "{call:#}");
    assert_eq!(call["message"]["params"]["arguments"]["text"], "resumed");
}

#[test]
fn auto_falls_back_to_http_sse_when_the_post_is_refused() {
    let logs = Dir::new("legacy-sse-auto-log");
    let (server, log) = legacy_sse_fake(&logs, &[]);
    // No `transport:`: auto is the default.
    let (_dir, out, report) = echo_run("legacy-sse-auto", &server.url, "");
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["server"]["transport"], "sse", "{report:#}");
    assert_eq!(
        report["phases"]["tests"]["results"][0]["status"], "passed",
        "{report:#}"
    );
    // Streamable HTTP first (POSTs to the URL, refused with 405), then the stream.
    let sent = requests(&log);
    let get = sent
        .iter()
        .position(|(m, p, _)| m == "GET" && p == "/sse")
        .unwrap_or_else(|| panic!("no GET of the stream: {sent:?}"));
    assert!(
        sent[..get]
            .iter()
            .any(|(m, p, rpc)| m == "POST" && p == "/sse" && rpc == "initialize"),
        "{sent:?}"
    );
    assert!(
        sent[get + 1..]
            .iter()
            .all(|(m, p, _)| m == "POST" && p == "/messages"),
        "{sent:?}"
    );
}

#[test]
fn streamable_http_against_an_http_sse_server_says_to_try_sse() {
    let server = http_fake(&["--legacy-sse"]);
    let (_dir, out, report) = echo_run(
        "legacy-sse-streamable",
        &server.url,
        "  transport: streamable-http\n",
    );
    assert_eq!(out.code, 1, "{out:?}");
    let message = report["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains(&format!("HTTP 405 from {}", server.url)),
        "{report:#}"
    );
    assert!(
        message.contains("2024-11-05 HTTP+SSE transport, set `server.transport: sse`"),
        "{message}"
    );
    assert!(out.stdout.contains("`server.transport: sse`"), "{out:?}");
    assert!(!out.stderr.contains("panicked"), "{out:?}");
}
