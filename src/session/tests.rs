//! The session against the fake server (`fake_mcp`, `tests/support`) over real pipes, fed requests
//! and read back line by line: a listing, calls, a bad line, a timeout, a crash and the restart
//! after it, and the lines of a session that cannot start.

use clap::Parser;
use serde_json::{Value, json};

use super::run;
use crate::cli::{Cli, Command};
use crate::settings::Env;
use crate::suite::fake_server_tests::fake;

/// Runs `toolproof session ARGS` on `input`; returns the exit code and the lines written.
fn session(args: &[&str], input: &str) -> (i32, Vec<Value>) {
    let cli = Cli::try_parse_from(["toolproof", "session"].iter().chain(args))
        .expect("the command line parses");
    let Command::Session(session_args) = &cli.command else {
        panic!("not a session: {cli:?}")
    };
    let mut out = Vec::new();
    let code = run(
        &cli,
        session_args,
        &Env::from_pairs([("PATH", std::env::var("PATH").unwrap_or_default())]),
        &mut input.as_bytes(),
        &mut out,
    );
    let lines = String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    (code, lines)
}

/// The fields of a call's result that do not depend on timing.
fn shape(reply: &Value) -> Value {
    let r = &reply["result"];
    json!([
        r["is_error"],
        r["text"],
        r["structured"],
        r["transport_error"],
        r["timed_out"],
        r["protocol_error"],
        r["error_code"]
    ])
}

#[test]
fn a_session_lists_calls_and_starts_a_crashed_server_again() {
    let fake = fake();
    let input = [
        r#"{"id":1,"op":"list_tools"}"#,
        r#"{"id":2,"op":"call","tool":"add","arguments":{"a":2,"b":3}}"#,
        r#"{"id":3,"op":"call","tool":"nope"}"#,
        "not json",
        r#"{"id":4,"op":"call","tool":"crash"}"#,
        r#"{"id":5,"op":"call","tool":"echo","arguments":{"text":"back"}}"#,
        r#"{"id":6,"op":"close"}"#,
        r#"{"id":7,"op":"list_tools"}"#,
    ]
    .join("\n");
    let (code, lines) = session(&["--", &fake], &input);
    assert_eq!(code, 0);
    assert_eq!(lines.len(), 7, "{lines:#?}");
    assert_eq!(
        (
            &lines[0]["ready"],
            &lines[0]["transport"],
            &lines[0]["server"]["name"]
        ),
        (&json!(true), &json!("stdio"), &json!("fake-mcp"))
    );
    let names: Vec<&Value> = lines[1]["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| &t["name"]).collect())
        .unwrap_or_default();
    assert_eq!(names, ["echo", "add", "fail", "slow", "crash"]);
    assert_eq!(
        lines[1]["tools"][0]["inputSchema"]["required"],
        json!(["text"])
    );
    assert_eq!(lines[2]["id"], 2);
    assert_eq!(
        shape(&lines[2]),
        json!([false, "5", {"result": 5}, null, false, false, null])
    );
    assert!(
        lines[2]["result"]["latency_ms"]
            .as_f64()
            .is_some_and(|ms| ms > 0.0)
    );
    assert_eq!(
        shape(&lines[3]),
        json!([true, "Unknown tool: nope", null, null, false, true, -32602])
    );
    assert_eq!(
        lines[4],
        json!({"id": null, "ok": false, "error": "the request is not JSON: expected ident at line 1 column 2"})
    );
    assert_eq!(
        shape(&lines[5]),
        json!([
            true,
            "",
            null,
            "connection lost, server probably crashed (server exited with code 3)",
            false,
            false,
            null
        ])
    );
    // The server is started again for the next call; nothing after `close` is read.
    assert_eq!(lines[6]["id"], 5);
    assert_eq!(
        shape(&lines[6]),
        json!([false, "back", null, null, false, false, null])
    );
}

#[test]
fn integers_beyond_64_bits_reach_the_server_with_every_digit() {
    let fake = fake();
    let log = std::env::temp_dir().join(format!(
        "toolproof-session-bigint-{}.jsonl",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&log);
    let log_arg = log.display().to_string();
    // What Python's `json.dumps` writes for `echo(text="x", n=2**70 + 1, m=[-(2**64) - 1])`.
    let input = r#"{"id":1,"op":"call","tool":"echo","arguments":{"text":"x","n":1180591620717411303425,"m":[-18446744073709551617, 1.5]}}"#;
    let (code, lines) = session(&["--", &fake, "--log", &log_arg], input);
    assert_eq!(code, 0);
    assert_eq!(lines[1]["ok"], json!(true), "{lines:#?}");
    let wire = std::fs::read_to_string(&log).expect("the fake's log");
    let _ = std::fs::remove_file(&log);
    let sent = wire
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["message"]["method"] == "tools/call")
        .and_then(|e| e["text"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no tools/call in the log:\n{wire}"));
    assert!(
        sent.contains(r#""n":1180591620717411303425"#)
            && sent.contains(r#""m":[-18446744073709551617,1.5]"#),
        "{sent}"
    );
}

#[test]
fn a_call_past_its_timeout_times_out_and_the_next_one_is_answered() {
    let fake = fake();
    let input = [
        r#"{"id":"slow","op":"call","tool":"slow","arguments":{"ms":5000},"timeout_s":0.3}"#,
        r#"{"id":"next","op":"call","tool":"echo","arguments":{"text":"here"}}"#,
    ]
    .join("\n");
    let (code, lines) = session(&["--", &fake], &input);
    assert_eq!(code, 0);
    assert_eq!(
        shape(&lines[1]),
        json!([
            true,
            "",
            null,
            "no answer to `tools/call` within 300ms",
            true,
            false,
            null
        ])
    );
    assert_eq!(
        shape(&lines[2]),
        json!([false, "here", null, null, false, false, null])
    );
}

#[test]
fn a_server_line_on_stdin_sets_up_the_server_and_a_bad_one_is_a_usage_error() {
    let fake = fake();
    let spec = json!({"command": [fake], "env": {"X": "1"}, "startup_timeout_s": 20});
    let input = format!(
        "{spec}\n{}\n",
        r#"{"id":1,"op":"call","tool":"echo","arguments":{"text":"ok"}}"#
    );
    let (code, lines) = session(&["--server-on-stdin"], &input);
    assert_eq!(code, 0);
    assert_eq!(lines[0]["ready"], true, "{lines:#?}");
    assert_eq!(lines[1]["result"]["text"], "ok");

    let (code, lines) = session(&["--server-on-stdin"], "{\"comand\": [\"x\"]}\n");
    assert_eq!(code, 2);
    assert_eq!(lines.len(), 1);
    assert_eq!(
        (&lines[0]["ready"], &lines[0]["usage"]),
        (&json!(false), &json!(true))
    );
    let error = lines[0]["error"].as_str().unwrap_or("");
    assert!(
        error.starts_with("the server line on stdin is not a server: unknown field `comand`")
            && error.contains("\nhint: send one JSON object"),
        "{error}"
    );
}

#[test]
fn a_server_that_cannot_start_is_not_ready() {
    let (code, lines) = session(&["--", "/nonexistent/mcp-server"], "");
    assert_eq!(code, 1);
    assert_eq!(lines.len(), 1);
    assert_eq!(
        (&lines[0]["ready"], &lines[0]["usage"]),
        (&json!(false), &json!(false))
    );
    let error = lines[0]["error"].as_str().unwrap_or("");
    assert!(
        error.starts_with(
            "could not connect to the server: could not start `/nonexistent/mcp-server`"
        ),
        "{error}"
    );
}

#[test]
fn a_request_line_over_the_message_limit_is_skipped_without_being_held() {
    use super::{Line, read_request};
    use std::io::{BufReader, Read};
    let limit = crate::mcp::protocol::MESSAGE_LIMIT as u64;
    let long = std::io::repeat(b'x').take(limit + 5);
    let input = long.chain(&b"\n{\"id\":2}\nlast"[..]);
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut buf = Vec::new();
    let first = read_request(&mut reader, &mut buf).expect("read");
    assert_eq!(first, Some(Line::TooLong(limit + 5)));
    assert!(buf.capacity() < 1 << 20, "{} bytes held", buf.capacity());
    assert_eq!(
        read_request(&mut reader, &mut buf).ok(),
        Some(Some(Line::Whole))
    );
    assert_eq!(buf, b"{\"id\":2}");
    assert_eq!(
        read_request(&mut reader, &mut buf).ok(),
        Some(Some(Line::Whole))
    );
    assert_eq!(buf, b"last");
    assert_eq!(read_request(&mut reader, &mut buf).ok(), Some(None));
}
