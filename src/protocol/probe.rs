//! The probe client: a raw line-level connection to a fresh stdio server process, so a check can
//! send anything (a non-JSON line, a batch, a request before `initialize`) and see exactly what
//! comes back. It answers the server's own requests (`ping`, `roots/list`) so it never stalls.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mcp::stdio::StdioSpec;

/// The revision the probes ask for when the server's own is not the point.
pub(crate) const PROBE_VERSION: &str = "2025-11-25";

/// One line from the server's stdout.
#[derive(Debug, Clone)]
pub(crate) enum Line {
    /// A JSON value.
    Json(Value),
    /// Not JSON.
    Text(String),
}

/// Why a probe gave up waiting.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Waited {
    /// Nothing came within the timeout.
    Timeout,
    /// The server closed stdout (exited).
    Closed,
}

impl std::fmt::Display for Waited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Waited::Timeout => f.write_str("no answer within the probe timeout"),
            Waited::Closed => f.write_str("the server closed its output"),
        }
    }
}

/// A fresh server process and its pipes.
pub(crate) struct Probe {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Line>,
    timeout: Duration,
    next_id: i64,
    _group: Option<crate::process::GroupGuard>,
}

impl Probe {
    /// Starts the server; stderr is discarded (the main connection shows it).
    pub(crate) fn spawn(spec: &StdioSpec, timeout: Duration) -> Result<Probe, String> {
        let Some((program, args)) = spec.command.split_first() else {
            return Err("the command is empty".into());
        };
        let mut cmd = Command::new(program);
        cmd.args(args)
            .envs(&spec.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        if let Some(cwd) = &spec.cwd {
            cmd.current_dir(cwd);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("could not start `{program}`: {e}"))?;
        let group = crate::process::register(child.id());
        let (tx, rx) = channel();
        if let Some(out) = child.stdout.take() {
            thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    let text = line.trim();
                    if text.is_empty() {
                        continue;
                    }
                    let msg = serde_json::from_str(text)
                        .map_or_else(|_| Line::Text(text.to_owned()), Line::Json);
                    if tx.send(msg).is_err() {
                        break;
                    }
                }
            });
        }
        Ok(Probe {
            stdin: child.stdin.take(),
            child,
            rx,
            timeout,
            next_id: 0,
            _group: group,
        })
    }

    /// A fresh request id.
    pub(crate) fn id(&mut self) -> i64 {
        self.next_id += 1;
        9000 + self.next_id
    }

    /// Writes one raw line (a newline is added).
    pub(crate) fn send_raw(&mut self, text: &str) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin
                .write_all(text.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush());
        }
    }

    /// Writes one message.
    pub(crate) fn send(&mut self, msg: &Value) {
        self.send_raw(&msg.to_string());
    }

    /// Sends a request and returns its id.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.id();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Sends a notification.
    pub(crate) fn notify(&mut self, method: &str) {
        self.send(&json!({"jsonrpc": "2.0", "method": method}));
    }

    /// The next line that is not the server's notification, answering the server's requests.
    /// Responses, batches and non-JSON lines come back to the caller.
    pub(crate) fn next(&mut self) -> Result<Line, Waited> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.rx.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(Waited::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(Waited::Closed),
            };
            if let Line::Json(Value::Object(obj)) = &line
                && let Some(method) = obj.get("method").and_then(Value::as_str)
            {
                if let Some(id) = obj.get("id") {
                    let result = if method == "roots/list" {
                        json!({"roots": []})
                    } else {
                        json!({})
                    };
                    self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
                }
                continue;
            }
            return Ok(line);
        }
    }

    /// The response to request `id`; other responses in between are returned in `others`.
    pub(crate) fn response_to(&mut self, id: i64, others: &mut Vec<Line>) -> Result<Value, Waited> {
        loop {
            let line = self.next()?;
            match &line {
                Line::Json(v) if v.get("id").and_then(Value::as_i64) == Some(id) => {
                    return Ok(v.clone());
                }
                _ => others.push(line),
            }
        }
    }

    /// A request and its response, ignoring anything else that comes first.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Result<Value, Waited> {
        let id = self.request(method, params);
        self.response_to(id, &mut Vec::new())
    }

    /// `initialize` asking for `version`, then `notifications/initialized`: the result.
    pub(crate) fn handshake(&mut self, version: &str) -> Result<Value, String> {
        let answer = self
            .call("initialize", init_params(version))
            .map_err(|w| format!("`initialize` got {w}"))?;
        match answer.get("result") {
            Some(result) if result.is_object() => {
                self.notify("notifications/initialized");
                Ok(result.clone())
            }
            _ => Err(format!("`initialize` was answered with {}", brief(&answer))),
        }
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        self.stdin.take();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `initialize` params asking for `version`.
pub(crate) fn init_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "toolproof-protocol-probe", "version": env!("CARGO_PKG_VERSION")}
    })
}

/// A message shortened for a finding: at most 200 characters.
pub(crate) fn brief(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The JSON-RPC error code of a response, if it is an error.
pub(crate) fn error_code(v: &Value) -> Option<i64> {
    v.get("error")?.get("code")?.as_i64()
}
