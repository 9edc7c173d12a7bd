//! The client's own cost per tool call: the same `tools/call` round trips over the same stdio
//! pipes, once through a bare loop (write a line, read a line: the server's time plus the pipe)
//! and once through toolproof's `Client::call_tool`. The difference is what toolproof adds.
//!
//! `cargo build --release -p toolproof-test-support --bins && cargo bench --bench client_overhead`

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use toolproof::facade::ProtocolPin;
use toolproof::facade::StdioSpec;
use toolproof::facade::{Client, ClientOptions, ServerSpec};

const CALLS: usize = 20_000;
const ROUNDS: usize = 5;

fn fake() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/fake_mcp");
    if !path.exists() {
        eprintln!(
            "{} is missing: run `cargo build --release -p toolproof-test-support --bins` first",
            path.display()
        );
        std::process::exit(2);
    }
    path
}

/// Mean time of a bare write-line/read-line round trip.
fn bare() -> Duration {
    let mut child = Command::new(fake())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start fake_mcp: {e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("stdin"));
    let mut stdout = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("stdout")));
    let mut line = String::new();
    let mut send = |msg: &Value, read: bool, line: &mut String| {
        let mut bytes = serde_json::to_vec(msg).unwrap_or_default();
        bytes.push(b'\n');
        stdin
            .write_all(&bytes)
            .unwrap_or_else(|e| panic!("write: {e}"));
        if read {
            line.clear();
            stdout
                .read_line(line)
                .unwrap_or_else(|e| panic!("read: {e}"));
        }
    };
    send(
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bare", "version": "0"}}}),
        true,
        &mut line,
    );
    send(
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        false,
        &mut line,
    );
    let started = Instant::now();
    for id in 1..=CALLS {
        send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "x"}}}),
            true,
            &mut line,
        );
    }
    let per_call = started.elapsed() / CALLS as u32;
    let _ = child.kill();
    let _ = child.wait();
    per_call
}

/// Mean time of `Client::call_tool` for the same call.
fn client() -> Duration {
    let mut c = Client::connect(
        ServerSpec::Stdio(StdioSpec {
            command: vec![fake().display().to_string()],
            env: Default::default(),
            inherit_env: true,
            cwd: None,
        }),
        ClientOptions {
            pin: ProtocolPin::V20251125,
            startup_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            capabilities: json!({}),
        },
    )
    .unwrap_or_else(|e| panic!("connect: {}", e.error));
    let mut args = Map::new();
    args.insert("text".into(), json!("x"));
    let started = Instant::now();
    for _ in 0..CALLS {
        c.call_tool("echo", &args, Duration::from_secs(10))
            .unwrap_or_else(|e| panic!("call: {}", e.error));
    }
    let per_call = started.elapsed() / CALLS as u32;
    c.close();
    per_call
}

fn main() {
    // `cargo test --all-targets` runs bench targets once as a smoke test, without `--bench`:
    // the measurement needs a release build and takes seconds, so it only runs under
    // `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        println!("client_overhead: measured only under `cargo bench`");
        return;
    }
    let mut bare_runs = Vec::new();
    let mut client_runs = Vec::new();
    for _ in 0..ROUNDS {
        bare_runs.push(bare());
        client_runs.push(client());
    }
    bare_runs.sort();
    client_runs.sort();
    let (b, c) = (bare_runs[ROUNDS / 2], client_runs[ROUNDS / 2]);
    println!("tools/call round trip over stdio, median of {ROUNDS} rounds of {CALLS} calls:");
    println!(
        "  bare loop (server + pipe):   {:>8.1} µs",
        b.as_secs_f64() * 1e6
    );
    println!(
        "  toolproof Client::call_tool: {:>8.1} µs",
        c.as_secs_f64() * 1e6
    );
    println!(
        "  client overhead per call:    {:>8.1} µs",
        (c.as_secs_f64() - b.as_secs_f64()) * 1e6
    );
}
