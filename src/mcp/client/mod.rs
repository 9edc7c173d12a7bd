//! The protocol layer: a connected server, `_meta` on stateless requests, bounded pagination,
//! and tool calls with their latency. The handshake and era detection are in `handshake`;
//! the messages themselves in [`super::protocol`].

mod deviations;
mod handshake;
pub(crate) mod pipeline;

use crate::interrupt::Interrupt;
use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::content;
use super::error::{McpError, shorten};
use super::http::{Answer, HttpTransport};
use super::protocol::{self, RpcFailure};
use super::requests::{Responder, Script, ServerRequest};
use super::stdio::StdioTransport;
use super::stdio::lines::Noise;
use super::types::{CallOutcome, CallResult, Era, ServerInfo, Tool};

pub use super::spec::{ClientOptions, ServerSpec};

/// Most pages read from one listing before it counts as endless.
const MAX_PAGES: usize = 10_000;
/// How long a server gets to answer a `ping` after a call timed out before it counts as hung
/// (and is restarted). A server that works on requests side by side answers at once; one stuck
/// in the timed-out call does not answer at all, so a longer wait would only add to the run.
pub(crate) const PING_AFTER_TIMEOUT: Duration = Duration::from_secs(2);
/// How long telling an HTTP server that a timed-out request is cancelled may take: a server
/// that does not take the notification in that time is probed with a `ping` anyway.
const CANCEL_BUDGET: Duration = Duration::from_millis(500);
/// Most times a 2026-07-28 `tools/call` is sent again with answers to its `input_required`.
const INPUT_ROUNDS: usize = 8;

/// The server could not be brought up: what failed, and what it wrote to stderr meanwhile.
#[derive(Debug, Clone)]
pub struct ConnectError {
    /// What failed.
    pub error: McpError,
    /// stderr of a stdio server up to the failure.
    pub stderr: String,
}

/// A tool call that produced no result.
#[derive(Debug, Clone)]
pub struct CallFailure {
    /// What went wrong.
    pub error: McpError,
    /// stderr written during the call.
    pub stderr: String,
    /// Time until the failure was seen.
    pub latency: Duration,
}

enum Conn {
    Stdio(StdioTransport),
    Http(HttpTransport),
}

/// A connected MCP server.
pub struct Client {
    spec: ServerSpec,
    opts: ClientOptions,
    conn: Conn,
    info: ServerInfo,
    era: Era,
    next_id: u64,
    /// stdout noise of the processes already closed.
    noise: Noise,
    deviations: deviations::Deviations,
    closed: bool,
    /// Cuts waits for HTTP answers short when the run is stopped (a stdio server is stopped
    /// through its process group instead).
    interrupt: Option<Interrupt>,
    /// Answers the server's own requests; shared with the transport.
    responder: Responder,
}

impl Client {
    /// From now on, stops waiting for an HTTP answer when `interrupt` fires.
    pub fn stop_on(&mut self, interrupt: Interrupt) {
        self.interrupt = Some(interrupt);
    }

    /// Starts or reaches the server and completes the handshake.
    pub fn connect(spec: ServerSpec, opts: ClientOptions) -> Result<Client, ConnectError> {
        let responder = Responder::default();
        let conn = open(&spec, &responder)?;
        let mut client = Client {
            spec,
            opts,
            conn,
            info: ServerInfo::default(),
            era: Era::Legacy,
            next_id: 0,
            noise: Noise::default(),
            deviations: deviations::Deviations::default(),
            closed: false,
            interrupt: None,
            responder,
        };
        let started = Instant::now();
        match client.handshake(started + client.opts.startup_timeout) {
            Ok(()) => Ok(client),
            Err(error) => {
                if let Conn::Stdio(t) = &mut client.conn {
                    t.kill();
                }
                let stderr = client.stderr_since(0);
                let error = client.explain_startup(error, started.elapsed());
                client.close_conn();
                Err(ConnectError { error, stderr })
            }
        }
    }

    /// Closes the server and starts it again (stdio), or starts a new session (HTTP).
    pub fn restart(&mut self) -> Result<(), ConnectError> {
        self.close_conn();
        self.conn = open(&self.spec, &self.responder)?;
        self.closed = false;
        self.next_id = 0;
        let started = Instant::now();
        let result = self.handshake(started + self.opts.startup_timeout);
        result.map_err(|error| {
            if let Conn::Stdio(t) = &mut self.conn {
                t.kill();
            }
            ConnectError {
                stderr: self.stderr_since(0),
                error: self.explain_startup(error, started.elapsed()),
            }
        })
    }

    /// From now on, answers the server's requests from `script` (defaults where it says
    /// nothing).
    pub fn script_answers(&mut self, script: Script) {
        self.responder.set_script(script);
    }

    /// The requests the server sent since the last call of this, with what was answered.
    pub fn take_server_requests(&mut self) -> Vec<ServerRequest> {
        self.responder.take_seen()
    }

    /// What the server said about itself.
    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// The era in use.
    pub fn era(&self) -> Era {
        self.era
    }

    /// `stdio`, `http` (streamable HTTP) or `sse` (the 2024-11-05 HTTP+SSE transport).
    pub fn transport_name(&self) -> &'static str {
        match &self.conn {
            Conn::Stdio(_) => "stdio",
            Conn::Http(t) => t.name(),
        }
    }

    /// Non-protocol lines the server printed on stdout (kept across restarts; the first
    /// ones, each cut short, see [`Noise`]), and how many it printed in all.
    pub fn stdout_noise(&self) -> (Vec<String>, usize) {
        let mut all = self.noise.clone();
        if let (Conn::Stdio(t), false) = (&self.conn, self.closed) {
            all.extend(&t.noise());
        }
        (all.lines, all.total)
    }

    /// What the server's responses so far did that JSON-RPC 2.0 or MCP does not allow but
    /// toolproof read past (no `"jsonrpc": "2.0"`, `result: null`), one line per kind.
    pub fn protocol_warnings(&self) -> Vec<String> {
        self.deviations.warnings()
    }

    /// A position in the server's stderr (0 for HTTP).
    pub fn stderr_mark(&self) -> u64 {
        match &self.conn {
            Conn::Stdio(t) => t.stderr_mark(),
            Conn::Http(_) => 0,
        }
    }

    /// stderr written since `mark` (empty for HTTP).
    pub fn stderr_since(&self, mark: u64) -> String {
        match &self.conn {
            Conn::Stdio(t) => t.stderr_since(mark),
            Conn::Http(_) => String::new(),
        }
    }

    /// Whether the server process has ended (always false for HTTP).
    pub fn has_exited(&self) -> bool {
        match &self.conn {
            Conn::Stdio(t) => t.has_exited(),
            Conn::Http(_) => false,
        }
    }

    /// Every tool, following `nextCursor` to the end.
    pub fn list_tools(&mut self) -> Result<Vec<Tool>, McpError> {
        Ok(self
            .list_all("tools/list", "tools")?
            .into_iter()
            .map(Tool::from_wire)
            .collect())
    }

    /// Every resource, when the server declares the capability.
    pub fn list_resources(&mut self) -> Result<Option<Vec<Value>>, McpError> {
        if !self.info.has_capability("resources") {
            return Ok(None);
        }
        self.list_all("resources/list", "resources").map(Some)
    }

    /// Every resource template, when the server declares resources; a server that has none
    /// and refuses the method is taken to have none.
    pub fn list_resource_templates(&mut self) -> Result<Option<Vec<Value>>, McpError> {
        if !self.info.has_capability("resources") {
            return Ok(None);
        }
        match self.list_all("resources/templates/list", "resourceTemplates") {
            Ok(list) => Ok(Some(list)),
            Err(McpError::Rpc { code: -32601, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Every prompt, when the server declares the capability.
    pub fn list_prompts(&mut self) -> Result<Option<Vec<Value>>, McpError> {
        if !self.info.has_capability("prompts") {
            return Ok(None);
        }
        self.list_all("prompts/list", "prompts").map(Some)
    }

    /// Calls a tool. A JSON-RPC error is a result (`ProtocolError`); no answer is a failure.
    pub fn call_tool(
        &mut self,
        name: &str,
        arguments: &Map<String, Value>,
        timeout: Duration,
    ) -> Result<CallOutcome, CallFailure> {
        let mark = self.stderr_mark();
        let started = Instant::now();
        let mut params = json!({"name": name, "arguments": arguments});
        let mut answer = self.roundtrip("tools/call", Some(params.clone()), timeout);
        // 2026-07-28: a tool that needs input answers `input_required`; the call is sent again
        // with the answers (from the test's script), within the same timeout.
        let mut rounds = 0;
        while rounds < INPUT_ROUNDS {
            let Ok(response) = &answer else { break };
            let Some(next) = self.input_answers(&params, response) else {
                break;
            };
            params = next;
            rounds += 1;
            let left = timeout.saturating_sub(started.elapsed());
            answer = self.roundtrip("tools/call", Some(params.clone()), left);
        }
        let latency = started.elapsed();
        let stderr = self.stderr_since(mark);
        let response = match answer {
            Ok(r) => r,
            Err(error) => {
                if let (McpError::Timeout { .. }, Conn::Http(t)) = (&error, &mut self.conn) {
                    // Tell an HTTP server the call is cancelled, after the latency was taken
                    // (the stdio transport does so itself).
                    let cancel = protocol::cancelled(&json!(self.next_id), "timed out");
                    let _ = t.post(&cancel, None, CANCEL_BUDGET);
                }
                return Err(CallFailure {
                    error,
                    stderr,
                    latency,
                });
            }
        };
        let result = match protocol::split_response(response) {
            Err(RpcFailure {
                code,
                message,
                data,
            }) => CallResult::ProtocolError {
                code,
                message,
                data,
            },
            // Accepting it would pass a test that every SDK client fails on.
            Ok(Value::Null) => {
                return Err(CallFailure {
                    error: McpError::Protocol(
                        "the server answered `tools/call` with `result: null`; a tool result is an object with `content`, and the SDKs refuse null"
                            .into(),
                    ),
                    stderr,
                    latency,
                });
            }
            Ok(r) => match tool_result(&r) {
                Some(result) => {
                    // The SDKs refuse the whole result: their clients get nothing to judge.
                    if let CallResult::Result { content, .. } = &result
                        && let Some(why) = content::problems(content)
                    {
                        return Err(CallFailure {
                            error: McpError::Protocol(format!(
                                "the `tools/call` result has content blocks the SDKs refuse: {why}"
                            )),
                            stderr,
                            latency,
                        });
                    }
                    result
                }
                None => {
                    return Err(CallFailure {
                        error: McpError::Protocol(input_refused(&r, rounds == INPUT_ROUNDS)),
                        stderr,
                        latency,
                    });
                }
            },
        };
        Ok(CallOutcome {
            latency,
            result,
            stderr,
        })
    }

    /// The params of the retried call when `response` is an `input_required` result whose
    /// every request the script (or its defaults) can answer; `None` otherwise.
    fn input_answers(&self, params: &Value, response: &Value) -> Option<Value> {
        let result = response.get("result")?;
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            return None;
        }
        let mut answers = Map::new();
        for (key, request) in result.get("inputRequests")?.as_object()? {
            let asked = json!({
                "id": key,
                "method": request.get("method")?,
                "params": request.get("params").cloned().unwrap_or(json!({})),
            });
            let answered = self.responder.answer(&asked);
            answers.insert(key.clone(), answered.get("result")?.clone());
        }
        let mut next = params.as_object()?.clone();
        next.insert("inputResponses".into(), Value::Object(answers));
        match result.get("requestState") {
            Some(state) => next.insert("requestState".into(), state.clone()),
            None => next.remove("requestState"),
        };
        Some(Value::Object(next))
    }

    /// Ends the session (DELETE for HTTP) or stops the process (stdio).
    pub fn close(&mut self) {
        self.close_conn();
    }

    fn close_conn(&mut self) {
        if self.closed {
            return;
        }
        match &mut self.conn {
            Conn::Stdio(t) => {
                t.close();
                self.noise.extend(&t.noise());
            }
            Conn::Http(t) => t.close(),
        }
        self.closed = true;
    }

    fn explain_startup(&self, error: McpError, waited: Duration) -> McpError {
        match error {
            McpError::Timeout { method, .. } => {
                let (lines, _) = self.stdout_noise();
                match lines.first() {
                    Some(first) => McpError::NoisyStartup {
                        method,
                        after: waited,
                        first_line: shorten(first, 120),
                    },
                    None => McpError::Timeout {
                        method,
                        after: waited,
                    },
                }
            }
            other => other,
        }
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn with_meta(&self, params: Option<Value>) -> Option<Value> {
        if self.era != Era::Modern {
            return params;
        }
        Some(protocol::with_modern_meta(params, &self.opts.capabilities))
    }

    /// Sends a request and returns the whole response object (with `result` or `error`).
    fn roundtrip(
        &mut self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        let id = self.fresh_id();
        let params = self.with_meta(params);
        let msg = protocol::request(id, method, params);
        let t = match &mut self.conn {
            Conn::Stdio(t) => {
                let response = t.roundtrip(&msg, timeout)?;
                self.deviations.note(method, &response);
                return Ok(response);
            }
            Conn::Http(t) => t,
        };
        let answer = match &self.interrupt {
            Some(interrupt) => t.post_interruptible(&msg, Some(&json!(id)), timeout, interrupt),
            None => t.post(&msg, Some(&json!(id)), timeout),
        };
        match answer? {
            Answer::Response(v) => {
                self.deviations.note(method, &v);
                Ok(v)
            }
            Answer::Accepted => Err(McpError::Protocol(format!("no response to `{method}`"))),
        }
    }

    /// Whether the server answers a `ping` within [`PING_AFTER_TIMEOUT`]; any answer counts,
    /// an error too (a 2026-07-28 server does not know `ping`, but it answered).
    pub fn answers_ping(&mut self) -> bool {
        self.roundtrip("ping", None, PING_AFTER_TIMEOUT).is_ok()
    }

    /// Restarts a server that stopped answering: a stdio server is stopped at once (SIGTERM,
    /// then SIGKILL) instead of being given time to exit on its own, and an HTTP session is
    /// dropped without a DELETE (which would hang too); then as [`Client::restart`].
    pub fn restart_hung(&mut self) -> Result<(), ConnectError> {
        if !self.closed {
            match &mut self.conn {
                Conn::Stdio(t) => {
                    t.terminate();
                    self.noise.extend(&t.noise());
                }
                Conn::Http(t) => t.reset_session(),
            }
            self.closed = true;
        }
        self.restart()
    }

    fn request_result(&mut self, method: &str, params: Option<Value>) -> Result<Value, McpError> {
        let timeout = self.opts.request_timeout;
        let response = self.roundtrip(method, params, timeout)?;
        result_of(method, response)
    }

    fn notify(&mut self, method: &str) -> Result<(), McpError> {
        let msg = protocol::notification(method);
        match &mut self.conn {
            Conn::Stdio(t) => t.send(&msg),
            Conn::Http(t) => t.post(&msg, None, self.opts.request_timeout).map(|_| ()),
        }
    }

    fn list_all(&mut self, method: &str, key: &str) -> Result<Vec<Value>, McpError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let result = self.request_result(method, params)?;
            match result.get(key) {
                Some(Value::Array(page)) => items.extend(page.iter().cloned()),
                Some(_) => {
                    return Err(McpError::Protocol(format!(
                        "`{method}` returned `{key}` that is not a list"
                    )));
                }
                None => {
                    return Err(McpError::Protocol(format!(
                        "`{method}` returned no `{key}` list"
                    )));
                }
            }
            match result.get("nextCursor") {
                Some(Value::String(next)) if !next.is_empty() => {
                    if !seen.insert(next.clone()) {
                        return Err(McpError::Protocol(format!(
                            "`{method}` returned the cursor `{}` twice: the server paginates endlessly",
                            shorten(next, 60)
                        )));
                    }
                    cursor = Some(next.clone());
                }
                _ => return Ok(items),
            }
        }
        Err(McpError::Protocol(format!(
            "`{method}` went on for more than {MAX_PAGES} pages"
        )))
    }
}

fn open(spec: &ServerSpec, responder: &Responder) -> Result<Conn, ConnectError> {
    match spec {
        ServerSpec::Stdio(s) => {
            let mut t = StdioTransport::spawn(s).map_err(|error| ConnectError {
                error,
                stderr: String::new(),
            })?;
            t.answer_with(responder.clone());
            Ok(Conn::Stdio(t))
        }
        ServerSpec::Http(h) => {
            let mut t = HttpTransport::new(h.clone());
            t.answer_with(responder.clone());
            Ok(Conn::Http(t))
        }
    }
}

/// The result of a response to `method`, or its JSON-RPC error as an [`McpError::Rpc`].
fn result_of(method: &str, response: Value) -> Result<Value, McpError> {
    protocol::split_response(response).map_err(|e| McpError::Rpc {
        method: method.to_owned(),
        code: e.code,
        message: e.message,
    })
}

/// Why an `input_required` result was left unanswered: the methods it asked for, and whether
/// the tool kept asking (`exhausted`) or asked for what no script answers.
fn input_refused(r: &Value, exhausted: bool) -> String {
    let methods: Vec<String> = r
        .get("inputRequests")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(_, req)| req.get("method").and_then(Value::as_str))
        .map(|m| format!("`{m}`"))
        .collect();
    let asked = if methods.is_empty() {
        "input".to_owned()
    } else {
        methods.join(", ")
    };
    if exhausted {
        format!(
            "the tool still asked for {asked} (resultType input_required) after {INPUT_ROUNDS} answered rounds"
        )
    } else {
        format!(
            "the tool asked for {asked} (resultType input_required), which toolproof cannot answer \
             unscripted; hint: script `sampling:` (or `elicitation:`, `roots:`) in the test"
        )
    }
}

/// A `tools/call` result as a [`CallResult`]; `None` when the tool asked for input instead.
fn tool_result(r: &Value) -> Option<CallResult> {
    if r.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return None;
    }
    let content = match r.get("content") {
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    Some(CallResult::Result {
        content,
        structured: r.get("structuredContent").cloned(),
        is_error: r.get("isError").and_then(Value::as_bool).unwrap_or(false),
    })
}
