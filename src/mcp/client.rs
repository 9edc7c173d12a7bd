//! The protocol layer: era detection and handshake, `_meta` on stateless requests, answers to
//! server-initiated requests, bounded pagination, and tool calls with their latency.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::error::{McpError, shorten};
use super::http::{Answer, HttpSpec, HttpTransport};
use super::stdio::{StdioSpec, StdioTransport};
use super::types::{CallOutcome, CallResult, Era, ServerInfo, Tool};
use crate::config::ProtocolPin;

/// The stateless revision.
pub const MODERN_VERSION: &str = "2026-07-28";
/// The newest handshake revision, offered by default.
pub const LATEST_LEGACY: &str = "2025-11-25";
/// Handshake revisions we accept from a server.
pub const LEGACY_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Most pages read from one listing before it counts as endless.
const MAX_PAGES: usize = 10_000;

/// Where the server is.
#[derive(Debug, Clone)]
pub enum ServerSpec {
    /// A program speaking stdio.
    Stdio(StdioSpec),
    /// A streamable HTTP endpoint.
    Http(HttpSpec),
}

/// Knobs of a connection.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Era or revision to speak.
    pub pin: ProtocolPin,
    /// Budget for start-up and the handshake.
    pub startup_timeout: Duration,
    /// Budget for listings and other non-tool requests.
    pub request_timeout: Duration,
}

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
    noise: Vec<String>,
    noise_total: usize,
    closed: bool,
}

/// Our `clientInfo`.
pub fn client_info() -> Value {
    json!({"name": "toolproof", "version": env!("CARGO_PKG_VERSION")})
}

/// The answer toolproof gives to a request the server sends us.
pub fn answer_server_request(id: Value, method: &str) -> Value {
    match method {
        "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        "roots/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"roots": []}}),
        "elicitation/create" => {
            json!({"jsonrpc": "2.0", "id": id, "result": {"action": "decline"}})
        }
        "sampling/createMessage" => json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32601, "message": "toolproof does not offer sampling"}}),
        other => json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32601, "message": format!("toolproof does not handle `{other}`")}}),
    }
}

impl Client {
    /// Starts or reaches the server and completes the handshake.
    pub fn connect(spec: ServerSpec, opts: ClientOptions) -> Result<Client, ConnectError> {
        let conn = open(&spec)?;
        let mut client = Client {
            spec,
            opts,
            conn,
            info: ServerInfo::default(),
            era: Era::Legacy,
            next_id: 0,
            noise: Vec::new(),
            noise_total: 0,
            closed: false,
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
        self.conn = open(&self.spec)?;
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

    /// What the server said about itself.
    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// The era in use.
    pub fn era(&self) -> Era {
        self.era
    }

    /// `stdio` or `http`.
    pub fn transport_name(&self) -> &'static str {
        match self.conn {
            Conn::Stdio(_) => "stdio",
            Conn::Http(_) => "http",
        }
    }

    /// Non-protocol lines the server printed on stdout (kept across restarts), and their count.
    pub fn stdout_noise(&self) -> (Vec<String>, usize) {
        let mut lines = self.noise.clone();
        let mut total = self.noise_total;
        if let (Conn::Stdio(t), false) = (&self.conn, self.closed) {
            let (now, count) = t.noise();
            lines.extend(now.iter().cloned());
            total += count;
        }
        (lines, total)
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
        let params = json!({"name": name, "arguments": arguments});
        let answer = self.roundtrip("tools/call", Some(params), timeout);
        let latency = started.elapsed();
        let stderr = self.stderr_since(mark);
        let response = match answer {
            Ok(r) => r,
            Err(error) => {
                return Err(CallFailure {
                    error,
                    stderr,
                    latency,
                });
            }
        };
        let result = match split_response(response) {
            Err((code, message, data)) => CallResult::ProtocolError {
                code,
                message,
                data,
            },
            Ok(r) => {
                if r.get("resultType").and_then(Value::as_str) == Some("input_required") {
                    return Err(CallFailure {
                        error: McpError::Protocol(
                            "the tool asked for input (resultType input_required), which toolproof does not provide"
                                .into(),
                        ),
                        stderr,
                        latency,
                    });
                }
                let content = match r.get("content") {
                    Some(Value::Array(items)) => items.clone(),
                    _ => Vec::new(),
                };
                CallResult::Result {
                    content,
                    structured: r.get("structuredContent").cloned(),
                    is_error: r.get("isError").and_then(Value::as_bool).unwrap_or(false),
                }
            }
        };
        Ok(CallOutcome {
            latency,
            result,
            stderr,
        })
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
                let (lines, count) = t.noise();
                self.noise.extend(lines.iter().cloned());
                self.noise_total += count;
                t.close();
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
                    Some(first) => McpError::Protocol(format!(
                        "no answer to `{method}` within {}: the server printed non-JSON on stdout instead: {}",
                        super::error::human(waited),
                        shorten(first, 120)
                    )),
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
        let mut p = match params {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        p.insert("_meta".into(), modern_meta());
        Some(Value::Object(p))
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
        let msg = request(id, method, params);
        match &mut self.conn {
            Conn::Stdio(t) => stdio_roundtrip(t, &msg, timeout),
            Conn::Http(t) => match t.post(&msg, Some(&json!(id)), timeout)? {
                Answer::Response(v) => Ok(v),
                Answer::Accepted => Err(McpError::Protocol(format!("no response to `{method}`"))),
            },
        }
    }

    fn request_result(&mut self, method: &str, params: Option<Value>) -> Result<Value, McpError> {
        let timeout = self.opts.request_timeout;
        let response = self.roundtrip(method, params, timeout)?;
        result_of(method, response)
    }

    fn notify(&mut self, method: &str) -> Result<(), McpError> {
        let msg = json!({"jsonrpc": "2.0", "method": method});
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

    fn handshake(&mut self, deadline: Instant) -> Result<(), McpError> {
        let legacy_version = match self.opts.pin {
            ProtocolPin::Auto => None,
            ProtocolPin::V20250326 => Some("2025-03-26"),
            ProtocolPin::V20250618 => Some("2025-06-18"),
            ProtocolPin::V20251125 => Some("2025-11-25"),
            ProtocolPin::V20260728 => return self.modern_only(deadline),
        };
        if let Some(version) = legacy_version {
            return self.legacy_only(version, deadline);
        }
        match self.conn {
            Conn::Stdio(_) => self.stdio_auto(deadline),
            Conn::Http(_) => self.http_auto(deadline),
        }
    }

    fn remaining(deadline: Instant) -> Duration {
        deadline.saturating_duration_since(Instant::now())
    }

    fn modern_only(&mut self, deadline: Instant) -> Result<(), McpError> {
        self.era = Era::Modern;
        if let Conn::Http(t) = &mut self.conn {
            t.set_protocol(MODERN_VERSION, Era::Modern);
        }
        let response = self.roundtrip("server/discover", None, Self::remaining(deadline))?;
        let result = result_of("server/discover", response)?;
        if !supports_modern(&result) {
            return Err(McpError::Protocol(format!(
                "the server does not support {MODERN_VERSION} (supportedVersions: {})",
                result.get("supportedVersions").unwrap_or(&Value::Null)
            )));
        }
        self.adopt_modern(&result);
        Ok(())
    }

    fn legacy_only(&mut self, version: &str, deadline: Instant) -> Result<(), McpError> {
        self.era = Era::Legacy;
        let response = self.roundtrip(
            "initialize",
            Some(initialize_params(version)),
            Self::remaining(deadline),
        )?;
        let result = result_of("initialize", response)?;
        self.adopt_legacy(&result)
    }

    fn http_auto(&mut self, deadline: Instant) -> Result<(), McpError> {
        match self.modern_only(deadline) {
            Ok(()) => Ok(()),
            Err(e @ (McpError::Connect { .. } | McpError::Timeout { .. })) => Err(e),
            Err(_) => {
                if let Conn::Http(t) = &mut self.conn {
                    t.reset_session();
                    t.set_protocol_none();
                }
                self.legacy_only(LATEST_LEGACY, deadline)
            }
        }
    }

    fn stdio_auto(&mut self, deadline: Instant) -> Result<(), McpError> {
        let Conn::Stdio(t) = &mut self.conn else {
            return Err(McpError::Protocol("not a stdio connection".into()));
        };
        let decision = probe_stdio(t, deadline)?;
        self.next_id = 3;
        match decision {
            Decision::Modern(result) => {
                self.adopt_modern(&result);
                Ok(())
            }
            Decision::Legacy(result) => self.adopt_legacy(&result),
        }
    }

    fn adopt_modern(&mut self, result: &Value) {
        let server = result
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"));
        self.info = server_info(server, result, MODERN_VERSION);
        self.era = Era::Modern;
        if let Conn::Http(t) = &mut self.conn {
            t.set_protocol(MODERN_VERSION, Era::Modern);
        }
    }

    fn adopt_legacy(&mut self, result: &Value) -> Result<(), McpError> {
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !LEGACY_VERSIONS.contains(&version) {
            return Err(McpError::Protocol(format!(
                "the server answered initialize with protocol version `{}`, which toolproof does not speak (it speaks {} and {MODERN_VERSION})",
                shorten(version, 40),
                LEGACY_VERSIONS.join(", ")
            )));
        }
        self.info = server_info(result.get("serverInfo"), result, version);
        self.era = Era::Legacy;
        if let Conn::Http(t) = &mut self.conn {
            t.set_protocol(version, Era::Legacy);
        }
        self.notify("notifications/initialized")
    }
}

enum Decision {
    Modern(Value),
    Legacy(Value),
}

/// Sends `server/discover` and `initialize` back to back so neither kind of server makes us
/// wait: a modern server answers discover, a legacy one answers initialize. A legacy server
/// that ignores discover is detected with a `ping` fence after its initialize answer: servers
/// answer in order, so the fence's answer means discover will not be answered.
fn probe_stdio(t: &mut StdioTransport, deadline: Instant) -> Result<Decision, McpError> {
    let (discover_id, init_id, fence_id) = (json!(1), json!(2), json!(3));
    let mut meta = Map::new();
    meta.insert("_meta".into(), modern_meta());
    t.send(&request(1, "server/discover", Some(Value::Object(meta))))?;
    t.send(&request(
        2,
        "initialize",
        Some(initialize_params(LATEST_LEGACY)),
    ))?;
    let mut discover: Option<Result<Value, String>> = None;
    let mut init: Option<Result<Value, String>> = None;
    let mut fence_sent = false;
    loop {
        let Some(incoming) = t.recv(deadline)? else {
            let waiting = if init.is_none() {
                "initialize"
            } else {
                "server/discover"
            };
            return Err(McpError::Timeout {
                method: waiting.into(),
                after: Duration::ZERO,
            });
        };
        for msg in flatten(incoming) {
            let id = msg.get("id").cloned();
            if let (Some(id), Some(m)) = (&id, msg.get("method").and_then(Value::as_str)) {
                t.send(&answer_server_request(id.clone(), m))?;
                continue;
            }
            let Some(id) = id else { continue };
            let outcome = split_response(msg).map_err(|(code, message, _)| {
                format!("JSON-RPC error {code}: {}", shorten(&message, 200))
            });
            if id == discover_id {
                discover = Some(outcome);
            } else if id == init_id {
                init = Some(outcome);
            } else if id == fence_id && discover.is_none() {
                discover = Some(Err("not answered".into()));
            }
        }
        if let Some(Ok(result)) = &discover
            && supports_modern(result)
        {
            return Ok(Decision::Modern(result.clone()));
        }
        match (&discover, &init) {
            (Some(_), Some(Ok(result))) => return Ok(Decision::Legacy(result.clone())),
            (Some(Err(d)), Some(Err(i))) => {
                return Err(McpError::Protocol(format!(
                    "the server refused both handshakes: initialize gave {i}; server/discover gave {d}"
                )));
            }
            (Some(Ok(_)), Some(Err(i))) => {
                return Err(McpError::Protocol(format!(
                    "the server supports neither {MODERN_VERSION} nor the initialize handshake ({i})"
                )));
            }
            (None, Some(Ok(_))) if !fence_sent => {
                t.send(&request(3, "ping", None))?;
                fence_sent = true;
            }
            _ => {}
        }
    }
}

fn open(spec: &ServerSpec) -> Result<Conn, ConnectError> {
    match spec {
        ServerSpec::Stdio(s) => {
            StdioTransport::spawn(s)
                .map(Conn::Stdio)
                .map_err(|error| ConnectError {
                    error,
                    stderr: String::new(),
                })
        }
        ServerSpec::Http(h) => Ok(Conn::Http(HttpTransport::new(h.clone()))),
    }
}

fn request(id: u64, method: &str, params: Option<Value>) -> Value {
    let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(p) = params {
        msg["params"] = p;
    }
    msg
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": client_info(),
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn initialize_params(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {}, "clientInfo": client_info()})
}

fn supports_modern(result: &Value) -> bool {
    result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|x| x == MODERN_VERSION))
}

fn server_info(server: Option<&Value>, result: &Value, version: &str) -> ServerInfo {
    let text = |k: &str| {
        server
            .and_then(|s| s.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    ServerInfo {
        name: text("name"),
        version: text("version"),
        title: text("title"),
        protocol_version: version.to_owned(),
        capabilities: result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({})),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// The result of a response to `method`, or its JSON-RPC error as an [`McpError::Rpc`].
fn result_of(method: &str, response: Value) -> Result<Value, McpError> {
    split_response(response).map_err(|(code, message, _)| McpError::Rpc {
        method: method.to_owned(),
        code,
        message,
    })
}

/// `Ok(result)` or `Err((code, message, data))`.
fn split_response(mut v: Value) -> Result<Value, (i64, String, Option<Value>)> {
    if let Some(err) = v.get("error") {
        let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)")
            .to_owned();
        return Err((code, message, err.get("data").cloned()));
    }
    match v.get_mut("result") {
        Some(r) => Ok(r.take()),
        None => Err((0, "response without result or error".into(), None)),
    }
}

fn flatten(v: Value) -> Vec<Value> {
    match v {
        Value::Array(items) => items,
        v => vec![v],
    }
}

/// Sends `msg` and reads until its response, answering server requests on the way.
fn stdio_roundtrip(
    t: &mut StdioTransport,
    msg: &Value,
    timeout: Duration,
) -> Result<Value, McpError> {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    t.send(msg)?;
    let deadline = Instant::now() + timeout;
    loop {
        let Some(incoming) = t.recv(deadline)? else {
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "timed out"}});
            let _ = t.send(&cancel);
            return Err(McpError::Timeout {
                method: method.to_owned(),
                after: timeout,
            });
        };
        for m in flatten(incoming) {
            match (m.get("id"), m.get("method").and_then(Value::as_str)) {
                (Some(rid), Some(server_method)) => {
                    t.send(&answer_server_request(rid.clone(), server_method))?;
                }
                (Some(rid), None) if *rid == id => return Ok(m),
                // Notifications and answers to requests we gave up on.
                _ => {}
            }
        }
    }
}
