//! `toolproof session` (the pytest plugin's client) given hostile input: a request line far
//! past the message limit, and a server URL that carries a credential of the environment.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::Value;

use super::harness::example;

/// A request line over the 64 MiB limit: a whole call, so that before the limit it went to
/// the server.
fn huge_call() -> Vec<u8> {
    let mut line = br#"{"id":7,"op":"call","tool":"echo","arguments":{"text":""#.to_vec();
    line.resize(line.len() + (65 << 20), b'x');
    line.extend_from_slice(b"\"}}\n");
    line
}

#[test]
fn a_request_line_past_the_message_limit_is_refused_and_the_session_goes_on() {
    let fake = example("fake_mcp");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolproof"))
        .args(["session", "--", &fake])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start a session");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let mut all = br#"{"id":1,"op":"list_tools"}"#.to_vec();
        all.push(b'\n');
        all.extend(huge_call());
        all.extend_from_slice(
            b"{\"id\":2,\"op\":\"call\",\"tool\":\"echo\",\"arguments\":{\"text\":\"after\"}}\n",
        );
        all.extend_from_slice(b"{\"id\":3,\"op\":\"close\"}\n");
        stdin.write_all(&all)
    });
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let lines: Vec<Value> = stdout
        .lines()
        .map_while(Result::ok)
        .map(|l| serde_json::from_str(&l).unwrap_or(Value::String(l)))
        .collect();
    let written = writer.join().expect("the writer");
    let status = child.wait().expect("the session ends");
    assert!(written.is_ok(), "{written:?}");
    assert_eq!(status.code(), Some(0));
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert_eq!(lines[0]["ready"], true, "{:#}", lines[0]);
    assert_eq!(lines[1]["id"], 1);
    assert_eq!(lines[1]["ok"], true);
    assert_eq!(lines[2]["id"], Value::Null, "{:#}", lines[2]);
    assert_eq!(lines[2]["ok"], false);
    let said = lines[2]["error"].as_str().unwrap_or("");
    assert_eq!(
        said,
        format!(
            "the request line is {} bytes, over the 64 MiB limit for one message",
            huge_call().len() - 1
        )
    );
    assert_eq!(lines[3]["id"], 2);
    assert_eq!(lines[3]["ok"], true, "{:#}", lines[3]);
    assert_eq!(lines[3]["result"]["text"], "after", "{:#}", lines[3]);
}

#[test]
fn a_credential_of_the_environment_in_the_server_url_is_masked_as_inspect_masks_it() {
    let key = "sk-ant-fault-session-0123456789";
    // A port that was free a moment ago and has nobody listening now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let url = format!("http://127.0.0.1:{port}/mcp?key={key}");
    for args in [
        vec!["session".to_owned(), "--url".to_owned(), url.clone()],
        vec!["inspect".to_owned(), "--url".to_owned(), url.clone()],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_toolproof"))
            .args(&args)
            .env("ANTHROPIC_API_KEY", key)
            .env("CI", "true")
            .stdin(Stdio::null())
            .output()
            .expect("run toolproof");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stdout}{stderr}");
        assert!(
            !stdout.contains(key) && !stderr.contains(key),
            "{args:?} shows the key:\n{stdout}\n{stderr}"
        );
        assert!(
            stdout.contains("***") || stderr.contains("***"),
            "{args:?}: {stdout}{stderr}"
        );
    }
}
