//! Many calls of one tool on one session with several requests in flight at once: over stdio
//! the requests are pipelined on the one pipe (sent before earlier ones are answered, matched
//! by id as answers come); over HTTP each request in flight has its own POST on the shared
//! session. The calls to make are taken from a [`Budget`] that several sessions can share.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::{CANCEL_BUDGET, Client, Conn, tool_result};
use crate::mcp::error::McpError;
use crate::mcp::http::{Answer, HttpTransport};
use crate::mcp::protocol::{self, RpcFailure};
use crate::mcp::stdio::StdioTransport;
use crate::mcp::types::CallResult;

/// Calls still to be made, shared by every session of a benchmark.
#[derive(Debug)]
pub struct Budget(AtomicU64);

impl Budget {
    /// `calls` calls to make.
    pub fn new(calls: u64) -> Budget {
        Budget(AtomicU64::new(calls))
    }

    /// Takes one call; `false` once none is left.
    pub fn take(&self) -> bool {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .is_ok()
    }
}

/// Where each finished call goes: its latency and what it produced.
pub(crate) type Record<'a> = dyn Fn(Duration, Result<CallResult, McpError>) + Sync + 'a;

/// One call in the batch.
pub struct Batch<'a> {
    /// The tool.
    pub tool: &'a str,
    /// Its arguments.
    pub arguments: &'a Map<String, Value>,
    /// Requests in flight at once.
    pub in_flight: usize,
    /// Budget of each call.
    pub timeout: Duration,
}

impl Client {
    /// Calls `batch.tool` until `budget` is spent, with up to `batch.in_flight` requests
    /// outstanding on this session, and hands each finished call to `record`. A transport that
    /// fails fails the calls in flight; the calls after it fail at once (no reconnect, so a
    /// crash shows as errors, not as a shorter run). Stops taking calls once the run is
    /// interrupted.
    pub fn call_pipelined(&mut self, batch: &Batch<'_>, budget: &Budget, record: &Record<'_>) {
        let params = self.with_meta(Some(
            json!({"name": batch.tool, "arguments": batch.arguments}),
        ));
        let interrupt = self.interrupt.clone();
        let take = || !interrupt.as_ref().is_some_and(|i| i.is_set()) && budget.take();
        let first_id = self.next_id + 1;
        let used = match &mut self.conn {
            Conn::Stdio(t) => stdio_batch(t, batch, params.as_ref(), first_id, &take, record),
            Conn::Http(t) => http_batch(t, batch, params.as_ref(), first_id, &take, record),
        };
        self.next_id += used;
    }
}

/// What the response to a `tools/call` says.
pub(super) fn call_result(response: Value) -> Result<CallResult, McpError> {
    match protocol::split_response(response) {
        Err(RpcFailure {
            code,
            message,
            data,
        }) => Ok(CallResult::ProtocolError {
            code,
            message,
            data,
        }),
        Ok(Value::Null) => Err(McpError::Protocol(
            "the server answered `tools/call` with `result: null`; a tool result is an object with `content`, and the SDKs refuse null"
                .into(),
        )),
        Ok(r) => tool_result(&r).ok_or_else(|| {
            McpError::Protocol(
                "the tool asked for input (resultType input_required), which toolproof does not provide"
                    .into(),
            )
        }),
    }
}

/// A request in flight on the pipe.
struct Pending {
    id: Value,
    sent: Instant,
}

fn stdio_batch(
    t: &mut StdioTransport,
    batch: &Batch<'_>,
    params: Option<&Value>,
    first_id: u64,
    take: &dyn Fn() -> bool,
    record: &Record<'_>,
) -> u64 {
    let mut next = first_id;
    // Sent in order with one timeout, so the oldest request is always the first to expire.
    let mut order: VecDeque<String> = VecDeque::new();
    let mut pending: HashMap<String, Pending> = HashMap::new();
    loop {
        while pending.len() < batch.in_flight.max(1) && take() {
            let id = json!(next);
            let msg = protocol::request(next, "tools/call", params.cloned());
            next += 1;
            let sent = Instant::now();
            match t.send(&msg) {
                Ok(()) => {
                    order.push_back(id.to_string());
                    pending.insert(id.to_string(), Pending { id, sent });
                }
                Err(e) => record(sent.elapsed(), Err(e.answering("tools/call"))),
            }
        }
        while order.front().is_some_and(|k| !pending.contains_key(k)) {
            order.pop_front();
        }
        let Some(oldest) = order.front().and_then(|k| pending.get(k)) else {
            return next - first_id;
        };
        let deadline = oldest.sent + batch.timeout;
        match t.recv(deadline) {
            Ok(Some(incoming)) => {
                for m in protocol::flatten(incoming) {
                    stdio_message(t, m, &mut pending, record);
                }
            }
            Ok(None) => {
                let key = order.pop_front().unwrap_or_default();
                if let Some(p) = pending.remove(&key) {
                    t.abandon(&p.id);
                    let _ = t.send(&protocol::cancelled(&p.id, "timed out"));
                    let error = McpError::Timeout {
                        method: "tools/call".into(),
                        after: batch.timeout,
                    };
                    record(p.sent.elapsed(), Err(error));
                }
            }
            Err(e) => {
                let e = e.answering("tools/call");
                for key in order.drain(..) {
                    if let Some(p) = pending.remove(&key) {
                        record(p.sent.elapsed(), Err(e.clone()));
                    }
                }
            }
        }
    }
}

/// One message read while calls are in flight: an answer to one of them, a request of the
/// server's (answered), or something else (dropped).
fn stdio_message(
    t: &mut StdioTransport,
    m: Value,
    pending: &mut HashMap<String, Pending>,
    record: &Record<'_>,
) {
    match (m.get("id"), m.get("method").and_then(Value::as_str)) {
        (Some(rid), Some(method)) => {
            let _ = t.send(&protocol::answer_server_request(rid.clone(), method));
        }
        (Some(rid), None) => {
            if let Some(p) = pending.remove(&rid.to_string()) {
                record(p.sent.elapsed(), call_result(m));
            }
        }
        _ => {}
    }
}

fn http_batch(
    t: &mut HttpTransport,
    batch: &Batch<'_>,
    params: Option<&Value>,
    first_id: u64,
    take: &(dyn Fn() -> bool + Sync),
    record: &Record<'_>,
) -> u64 {
    let next = AtomicU64::new(first_id);
    std::thread::scope(|s| {
        for _ in 0..batch.in_flight.max(1) {
            let mut conn = t.clone();
            let next = &next;
            s.spawn(move || {
                while take() {
                    let id = next.fetch_add(1, Ordering::Relaxed);
                    let msg = protocol::request(id, "tools/call", params.cloned());
                    let started = Instant::now();
                    let answer = conn.post(&msg, Some(&json!(id)), batch.timeout);
                    let latency = started.elapsed();
                    let outcome = match answer {
                        Ok(Answer::Response(v)) => call_result(v),
                        Ok(Answer::Accepted) => {
                            Err(McpError::Protocol("no response to `tools/call`".into()))
                        }
                        Err(e) => {
                            if let McpError::Timeout { .. } = e {
                                let cancel = protocol::cancelled(&json!(id), "timed out");
                                let _ = conn.post(&cancel, None, CANCEL_BUDGET);
                            }
                            Err(e)
                        }
                    };
                    record(latency, outcome);
                }
            });
        }
    });
    next.load(Ordering::Relaxed) - first_id
}
