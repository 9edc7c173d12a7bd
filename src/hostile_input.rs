//! Hostile input for every parser: entry points for the cargo-fuzz targets (`fuzz/`, not the
//! fuzz phase in `src/fuzz/`) and the property tests. Each hands untrusted bytes to one parser
//! exactly as toolproof does, and checks what must hold whatever the bytes are. A panic here is
//! a finding. Compiled for tests and with the `fuzzing` feature; not part of the supported API.

use std::io::BufReader;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use crate::evals::Choice;
use crate::evals::asking::cache;
use crate::mcp::protocol;
use crate::mcp::sse::SseEvents;
use crate::mcp::stdio::lines::{self, Line};
use crate::mcp::types::Tool;
use crate::provider::{Answer, anthropic, command, openai};

/// `toolproof.yaml` bytes through the loader. The loader reads a path, so the bytes go to a
/// scratch file first (one per call, removed after). Every `${VAR}` is set. Returns whether
/// the config loaded; an error must say something.
pub fn config(bytes: &[u8]) -> bool {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "toolproof-fuzz-config-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let path: PathBuf = dir.join("toolproof.yaml");
    if std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, bytes))
        .is_err()
    {
        return false;
    }
    let loaded = crate::config::load_with(
        &path,
        &|_| Some("fuzz-value".into()),
        &crate::provider::registry::names(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    match loaded {
        Ok(loaded) => {
            let server = &loaded.config.server;
            assert!(server.url.is_some() || server.command.is_some());
            true
        }
        Err(e) => {
            assert!(!e.message.trim().is_empty(), "an error without a message");
            false
        }
    }
}

/// What the stdio reader made of a server's stdout.
#[derive(Debug, Default, PartialEq)]
pub struct StdoutRead {
    /// JSON-RPC messages (objects and batches), in order.
    pub messages: Vec<Value>,
    /// Lines that start like a message but cannot be read: why.
    pub unreadable: Vec<String>,
    /// Lines that were not JSON-RPC.
    pub noise: Vec<String>,
}

/// A server's stdout through the stdio line reader, then each message through the client's
/// first steps (batch split, result/error split, server info). Every message is an object or
/// an array that reads back from its own text; noise is one line; every line is read once and
/// the reader ends.
pub fn jsonrpc_lines(bytes: &[u8]) -> StdoutRead {
    let mut reader = BufReader::new(bytes);
    let mut buf = Vec::new();
    let mut read = StdoutRead::default();
    let mut lines = 0;
    while let Ok(Some(line)) = lines::next(&mut reader, &mut buf) {
        lines += 1;
        assert!(lines <= bytes.len(), "more lines than bytes");
        match line {
            Line::Message(v) => {
                assert!(v.is_object() || v.is_array());
                let again: Value = serde_json::from_str(&v.to_string()).unwrap_or(Value::Null);
                assert_eq!(again, v);
                for message in protocol::flatten(v.clone()) {
                    if let Ok(result) = protocol::split_response(message.clone())
                        && let Some(Value::Array(tools)) = result.get("tools")
                    {
                        for tool in tools {
                            let _ = Tool::from_wire(tool.clone()).summary().len();
                        }
                    }
                    let _ = protocol::supports_modern(&message);
                    let _ = protocol::server_info(message.get("serverInfo"), &message, "v");
                }
                read.messages.push(v);
            }
            Line::Unreadable { reason, start } => {
                assert!(!reason.trim().is_empty() && !start.contains('\n'));
                read.unreadable.push(reason);
            }
            Line::Noise(line) => {
                assert!(!line.contains('\n') && !line.trim().is_empty());
                read.noise.push(line);
            }
        }
    }
    read
}

/// A `text/event-stream` body through the SSE reader: the data of each event. Reading bytes
/// never fails, and no event is empty (an empty one is skipped, ended or not).
pub fn sse(bytes: &[u8]) -> Vec<String> {
    let events: Vec<String> = SseEvents::new(bytes)
        .map(|e| e.unwrap_or_else(|err| panic!("reading a byte slice failed: {err:?}")))
        .collect();
    assert!(events.iter().all(|e| !e.is_empty()), "{events:?}");
    events
}

/// An Anthropic Messages answer body, as the HTTP provider reads a 2xx.
pub(crate) fn anthropic_answer(bytes: &[u8]) -> Option<Answer> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    let answer = anthropic::read(&v).ok()?;
    check_answer(&answer);
    Some(answer)
}

/// An OpenAI Chat Completions answer body, as the HTTP provider reads a 2xx.
pub(crate) fn openai_answer(bytes: &[u8]) -> Option<Answer> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    let answer = openai::read(&v).ok()?;
    check_answer(&answer);
    Some(answer)
}

/// A command provider's stdout (lossy UTF-8, as the provider reads it).
pub(crate) fn command_answer(bytes: &[u8]) -> Option<Answer> {
    let answer = command::parse(&String::from_utf8_lossy(bytes)).ok()?;
    check_answer(&answer);
    assert!(answer.calls.iter().all(|c| c.args.is_ok()));
    Some(answer)
}

/// What every provider's answer holds: arguments that parsed are an object.
fn check_answer(answer: &Answer) {
    for call in &answer.calls {
        if let Ok(args) = &call.args {
            assert!(args.is_object(), "arguments {args} are not an object");
        }
    }
}

/// A cache file's bytes, as a lookup reads them. An entry that reads is written back (as
/// toolproof writes entries) and must read back the same.
pub(crate) fn cache_entry(bytes: &[u8]) -> Option<Choice> {
    let text = std::str::from_utf8(bytes).ok()?;
    let choice = cache::parse_entry(text).ok()?;
    let written = cache::entry_text(&choice, "anthropic", "model", "prompt");
    assert_eq!(
        cache::parse_entry(&written).as_ref(),
        Ok(&choice),
        "{written}"
    );
    Some(choice)
}

#[cfg(test)]
mod props;
