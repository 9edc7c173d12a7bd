//! The probe client: a raw connection to the server, so a check can send anything (a non-JSON
//! line, a batch, a request before `initialize`) and see exactly what comes back. Over stdio a
//! probe is a fresh server process; over streamable HTTP it is a fresh session, and what each
//! POST gets back is queued as the lines a stdio server would have printed. The probe answers
//! the server's own requests (`ping`, `roots/list`) so it never stalls, and remembers the
//! notifications it passed over.

mod http;
mod stdio;

use std::time::Duration;

use serde_json::{Value, json};

pub(crate) use http::{Ask, HttpWire, Reply, SseEvent};
use stdio::StdioWire;

use crate::mcp::ServerSpec;

/// The revision the probes ask for when the server's own is not the point.
pub(crate) const PROBE_VERSION: &str = "2025-11-25";

/// One message from the server.
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
    /// An HTTP exchange ended without the message: what it got instead.
    Http(String),
}

impl std::fmt::Display for Waited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Waited::Timeout => f.write_str("no answer within the probe timeout"),
            Waited::Closed => f.write_str("the server closed its output"),
            Waited::Http(what) => f.write_str(what),
        }
    }
}

/// How a probe reaches the server.
enum Wire {
    Stdio(StdioWire),
    Http(HttpWire),
}

/// One probe connection.
pub(crate) struct Probe {
    wire: Wire,
    next_id: i64,
    /// The methods of the notifications the server sent, in order.
    notes: Vec<String>,
}

impl Probe {
    /// A fresh connection: a new process over stdio (whose first answer may take `startup`),
    /// a new (not yet initialised) session over HTTP.
    pub(crate) fn open(
        spec: &ServerSpec,
        timeout: Duration,
        startup: Duration,
    ) -> Result<Probe, String> {
        let wire = match spec {
            ServerSpec::Stdio(s) => Wire::Stdio(StdioWire::spawn(s, timeout, startup)?),
            ServerSpec::Http(h) => Wire::Http(HttpWire::new(h, timeout)),
        };
        Ok(Probe {
            wire,
            next_id: 0,
            notes: Vec::new(),
        })
    }

    /// The HTTP side of the probe, when it speaks HTTP.
    pub(crate) fn http(&mut self) -> Option<&mut HttpWire> {
        match &mut self.wire {
            Wire::Http(h) => Some(h),
            Wire::Stdio(_) => None,
        }
    }

    /// The notifications the server sent so far (their methods).
    pub(crate) fn notes(&self) -> &[String] {
        &self.notes
    }

    /// A fresh request id.
    pub(crate) fn id(&mut self) -> i64 {
        self.next_id += 1;
        9000 + self.next_id
    }

    /// Sends one raw message: a line over stdio, a POST body over HTTP.
    pub(crate) fn send_raw(&mut self, text: &str) {
        match &mut self.wire {
            Wire::Stdio(s) => s.send_raw(text),
            Wire::Http(h) => h.post_raw(text),
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

    /// The next message that is not the server's notification, answering the server's
    /// requests. Responses, batches and non-JSON lines come back to the caller.
    pub(crate) fn next(&mut self) -> Result<Line, Waited> {
        loop {
            let line = match &mut self.wire {
                Wire::Stdio(s) => s.next()?,
                Wire::Http(h) => h.next()?,
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
                } else {
                    self.notes.push(method.to_owned());
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
    pub(crate) fn handshake(&mut self, version: &str) -> Result<Value, Handshake> {
        let answer = self
            .call("initialize", init_params(version))
            .map_err(Handshake::Unanswered)?;
        match answer.get("result") {
            Some(result) if result.is_object() => {
                if let (Some(h), Some(v)) = (self.http(), result["protocolVersion"].as_str()) {
                    h.set_version(v);
                }
                self.notify("notifications/initialized");
                Ok(result.clone())
            }
            _ if answer.get("error").is_some() => Err(Handshake::Refused(answer)),
            _ => Err(Handshake::Malformed(answer)),
        }
    }
}

/// Why a handshake failed.
#[derive(Debug, Clone)]
pub(crate) enum Handshake {
    /// No answer came: the server cannot be used.
    Unanswered(Waited),
    /// `initialize` was refused with an error: the server speaks another lifecycle (2026-07-28
    /// only) or transport.
    Refused(Value),
    /// The answer is neither a result object nor an error.
    Malformed(Value),
}

impl std::fmt::Display for Handshake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Handshake::Unanswered(w) => write!(f, "`initialize` got {w}"),
            Handshake::Refused(a) | Handshake::Malformed(a) => {
                write!(f, "`initialize` was answered with {}", brief(a))
            }
        }
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
