//! Faults that break the wire rather than the tool list: what a `tools/call` answer becomes
//! under them (an error, nested too deep, a number out of range, content blocks the SDKs
//! refuse, the wrong id, twice, too long), the floods written at start or before an answer,
//! the one-request-at-a-time mode, and tools with hostile schemas.

use std::io::{self, Write};
use std::sync::{Mutex, MutexGuard};

use serde_json::{Value, json};

use crate::opts::{Fault, Options};
use crate::server::{Peer, RpcError, error_response, notification, response};

/// Nesting of the `deep-result` answer (serde_json, like many parsers, stops at 128).
const DEEP: usize = 200;
/// 2^128: 39 digits, more than a 64-bit integer holds.
pub const BIG_INTEGER: &str = "340282366920938463463374607431768211456";
/// Text size of the `huge-line` answer: over a 64 MiB message limit.
const HUGE_LINE_BYTES: usize = 70 << 20;
/// Lines and line size of `huge-noise`.
const HUGE_NOISE: (usize, usize) = (4, 50 << 20);
/// Lines of `noise-flood`.
const NOISE_FLOOD_LINES: usize = 100_000;
/// Bytes of `stderr-flood`.
const STDERR_FLOOD_BYTES: usize = 100 << 20;
/// Notifications of `notification-flood` before each answer.
const NOTIFICATION_FLOOD: usize = 10_000;
/// Levels of the deepest hostile schema (the tools/list line stays under 128 levels).
const SCHEMA_DEPTH: usize = 55;

/// The raw text sent instead of `normal`, the answer to a `tools/call` with `id`, when a fault
/// changes it; several lines are joined with newlines.
pub fn call_answer(opts: &Options, id: &Value, normal: &Value) -> Option<String> {
    let raw = |structured: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"see structuredContent"}}],"structuredContent":{structured}}}}}"#
        )
    };
    if opts.has(Fault::CallRpcError) {
        let e = RpcError::new(-32603, "internal error: the database is unreachable");
        return Some(error_response(id, &e).to_string());
    }
    if opts.has(Fault::DeepResult) {
        let deep = format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP));
        return Some(raw(&format!(r#"{{"deep":{deep}}}"#)));
    }
    if opts.has(Fault::HugeNumber) {
        return Some(raw(r#"{"n":1e400}"#));
    }
    if opts.has(Fault::BigInteger) {
        return Some(raw(&format!(r#"{{"n":{BIG_INTEGER}}}"#)));
    }
    if opts.has(Fault::BadContent) {
        let result = json!({"content": [{"type": "text", "text": 5}, {"type": "text"}]});
        return Some(response(id, result).to_string());
    }
    if opts.has(Fault::WrongId) {
        let mut wrong = normal.clone();
        wrong["id"] = match id.as_u64() {
            Some(n) => json!(n + 1000),
            None => json!(format!("not-{id}")),
        };
        return Some(wrong.to_string());
    }
    if opts.has(Fault::DuplicateAnswer) {
        return Some(format!("{normal}\n{normal}"));
    }
    if opts.has(Fault::HugeLine) {
        // Written as text: building and serializing a 70 MiB value takes seconds in a debug
        // build, enough on a loaded machine to miss the test's timeout before the limit is hit.
        let mut line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"isError":false,"content":[{{"type":"text","text":""#
        );
        line.push_str(&"x".repeat(HUGE_LINE_BYTES));
        line.push_str(r#""}]}}"#);
        return Some(line);
    }
    None
}

/// `notification-flood`: many notifications before a `tools/call` answer.
pub fn flood(opts: &Options, peer: &mut dyn Peer) {
    if !opts.has(Fault::NotificationFlood) {
        return;
    }
    for n in 0..NOTIFICATION_FLOOD {
        peer.notify(&notification(
            "notifications/message",
            json!({"level": "debug", "logger": "fake_mcp", "data": format!("flood {n}")}),
        ));
    }
}

/// The floods written at start: stderr always, stdout only on stdio (on HTTP it carries the
/// `listening on` line). A closed pipe ends the flood quietly.
pub fn at_start(opts: &Options, stdio: bool) {
    if opts.has(Fault::StderrFlood) {
        let chunk = vec![b'e'; 1 << 20];
        let mut err = io::stderr().lock();
        for _ in 0..STDERR_FLOOD_BYTES >> 20 {
            if err.write_all(&chunk).is_err() {
                break;
            }
        }
        let _ = err.write_all(b"\nfake_mcp: stderr flood done\n");
    }
    if !stdio {
        return;
    }
    let mut out = io::stdout().lock();
    if opts.has(Fault::HugeNoise) {
        let chunk = vec![b'n'; 1 << 20];
        let (lines, size) = HUGE_NOISE;
        for _ in 0..lines {
            for _ in 0..size >> 20 {
                let _ = out.write_all(&chunk);
            }
            let _ = out.write_all(b"\n");
        }
    }
    if opts.has(Fault::NoiseFlood) {
        for n in 1..=NOISE_FLOOD_LINES {
            let _ = writeln!(out, "log line {n} of {NOISE_FLOOD_LINES}");
        }
    }
    let _ = out.flush();
}

/// Under `one-at-a-time`, the turn of the caller: held while one request is handled.
pub fn turn(opts: &Options) -> Option<MutexGuard<'static, ()>> {
    static TURN: Mutex<()> = Mutex::new(());
    opts.has(Fault::OneAtATime)
        .then(|| TURN.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The tools of `hostile-schemas`: a schema that refers to itself, one nested
/// [`SCHEMA_DEPTH`] levels deep, a pattern that is not a regular expression, a `$ref` to a
/// remote document (on a loopback port where nothing listens), and a 100,000-value enum.
pub fn schema_tools() -> Vec<Value> {
    let tool = |name: &str, schema: Value| {
        json!({"name": name, "description": format!("A tool whose input schema is hostile ({name})."),
               "inputSchema": schema})
    };
    let mut deep = json!({"type": "string"});
    for _ in 0..SCHEMA_DEPTH {
        deep = json!({"type": "object", "properties": {"a": deep}});
    }
    let values: Vec<u32> = (0..100_000).collect();
    vec![
        tool(
            "self_ref",
            json!({"type": "object", "properties": {"next": {"$ref": "#"}}}),
        ),
        tool("deep_schema", deep),
        tool(
            "bad_pattern",
            json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "(("}}}),
        ),
        tool(
            "remote_ref",
            json!({"type": "object",
                   "properties": {"x": {"$ref": "http://127.0.0.1:9/schema.json"}}}),
        ),
        tool(
            "huge_enum",
            json!({"type": "object", "properties": {"e": {"enum": values}}}),
        ),
    ]
}
