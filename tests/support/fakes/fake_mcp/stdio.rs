//! The stdio transport: newline-delimited JSON-RPC on stdin and stdout, one session per process.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::opts::Fault;
use crate::server::{Ctx, Incoming, Outcome, Peer, RpcError, Server, classify, error_response};

/// Writes one line to stdout and flushes; a closed stdout means the client is gone.
fn send_line(text: &str) {
    let mut out = io::stdout().lock();
    let ok = out
        .write_all(text.as_bytes())
        .and_then(|_| out.write_all(b"\n"))
        .and_then(|_| out.flush());
    if ok.is_err() {
        std::process::exit(0);
    }
}

fn send(msg: &Value) {
    send_line(&msg.to_string());
}

/// One line read from stdin.
enum Line {
    /// Parsed JSON.
    Msg(Value),
    /// Not JSON (the reason).
    Bad(String),
}

struct StdioPeer<R> {
    input: R,
    backlog: VecDeque<Line>,
}

impl<R: BufRead> StdioPeer<R> {
    /// Reads the next non-empty line, logging it; `None` at end of input.
    fn read(&mut self, server: &Server) -> Option<Line> {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match self.input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&buf);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            return Some(match serde_json::from_str::<Value>(text) {
                Ok(v) => {
                    server.log(&json!({"transport": "stdio", "message": v, "text": text}));
                    Line::Msg(v)
                }
                Err(e) => {
                    server.log(&json!({"transport": "stdio", "raw": text}));
                    Line::Bad(e.to_string())
                }
            });
        }
    }

    fn next(&mut self, server: &Server) -> Option<Line> {
        self.backlog.pop_front().or_else(|| self.read(server))
    }
}

impl<R: BufRead> Peer for StdioPeer<R> {
    fn notify(&mut self, msg: &Value) {
        send(msg);
    }

    fn ask(&mut self, server: &Server, requests: &[Value]) -> Vec<Option<Value>> {
        let ids: Vec<String> = requests.iter().map(|r| r["id"].to_string()).collect();
        server.expect_answers(&ids);
        for r in requests {
            send(r);
        }
        while !server.all_answered(&ids) {
            let Some(line) = self.read(server) else { break };
            match &line {
                Line::Msg(v) if matches!(classify(v), Incoming::Response) => {
                    if !server.deliver(v) {
                        eprintln!("fake_mcp: response to no pending request: {v}");
                    }
                }
                _ => self.backlog.push_back(line),
            }
        }
        server.take_answers(&ids, Some(Duration::ZERO))
    }
}

/// Serves stdio until stdin ends; returns the exit status.
pub fn serve(server: Arc<Server>) -> i32 {
    if server.opts.has(Fault::StdoutNoise) {
        send_line("fake-mcp 1.0.0 starting up, have a nice day!");
    }
    let stdin = io::stdin();
    let mut peer = StdioPeer {
        input: stdin.lock(),
        backlog: VecDeque::new(),
    };
    let mut ctx = Ctx::default();
    while let Some(line) = peer.next(&server) {
        let msg = match line {
            Line::Msg(v) => v,
            Line::Bad(_) if server.opts.planted("malformed") => continue,
            // A transport loop that ends on a decode error: the server is gone.
            Line::Bad(_) if server.opts.has(Fault::MalformedExit) => std::process::exit(65),
            Line::Bad(reason) => {
                let e = RpcError::new(-32700, format!("Parse error: {reason}"));
                send(&error_response(&Value::Null, &e));
                continue;
            }
        };
        if msg.is_array() && server.opts.planted("batch") {
            // A parser that cannot take an array: the server dies.
            std::process::exit(70);
        }
        if let (Value::Array(items), true) = (&msg, server.opts.has(Fault::LenientBatch)) {
            let answers: Vec<Value> = items
                .iter()
                .filter_map(|m| match server.handle(m, &mut ctx, &mut peer) {
                    Outcome::Reply { msg, .. } => Some(msg),
                    _ => None,
                })
                .collect();
            send(&Value::Array(answers));
            continue;
        }
        match server.handle(&msg, &mut ctx, &mut peer) {
            Outcome::Reply { msg, .. } => send(&msg),
            Outcome::Later(work) if server.opts.has(Fault::OneAtATime) => {
                if let Some(msg) = work() {
                    send(&msg);
                }
            }
            Outcome::Later(work) => {
                std::thread::spawn(move || {
                    if let Some(msg) = work() {
                        send(&msg);
                    }
                });
            }
            Outcome::Garbage(text) => send_line(&text),
            Outcome::Hang | Outcome::Nothing => {}
        }
    }
    0
}
