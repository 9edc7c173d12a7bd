//! The transport-independent part of the fake server: reading JSON-RPC messages, the two
//! protocol eras, sessions, the method table, faults that change answers, the message log and
//! the bookkeeping of requests the server sends to the client.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use crate::catalog::{self, Behaviour, ToolEntry};
use crate::opts::{Fault, Options};

/// The stateless revision.
pub const MODERN_VERSION: &str = "2026-07-28";
/// Handshake revisions the server accepts from a client.
pub const LEGACY_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
/// What `initialize` answers when the client asked for something else.
pub const LEGACY_FALLBACK: &str = "2025-11-25";
/// `_meta` key of the protocol version.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the server identity.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The server's version string.
pub const SERVER_VERSION: &str = "1.0.0";
/// What `garbage` sends instead of the handshake answer.
pub const GARBAGE: &str = "this is not JSON {{{ <html>";
/// Cursor `endless-pagination` returns forever.
const ENDLESS_CURSOR: &str = "again";

/// A JSON-RPC error object.
#[derive(Debug, Clone)]
pub struct RpcError {
    /// Error code.
    pub code: i64,
    /// Message.
    pub message: String,
    /// Optional data.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error without data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
}

/// A full success response.
pub fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A full error response.
pub fn error_response(id: &Value, e: &RpcError) -> Value {
    let mut error = json!({"code": e.code, "message": e.message});
    if let Some(data) = &e.data {
        error["data"] = data.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// A notification message.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A legacy session: what `initialize` negotiated and how far the handshake got.
#[derive(Debug, Clone)]
pub struct Session {
    /// Negotiated protocol version.
    pub version: String,
    /// `notifications/initialized` arrived.
    pub initialized: bool,
    /// The `server-requests` fault already asked the client.
    pub asked_client: bool,
    /// The `capabilities` the client declared in `initialize`.
    pub client_capabilities: Value,
}

/// What one incoming message is.
#[derive(Debug)]
pub enum Incoming<'a> {
    /// A request (has `method` and a non-null `id`).
    Request {
        /// Request id.
        id: &'a Value,
        /// Method.
        method: &'a str,
        /// Params (`Null` when absent).
        params: &'a Value,
    },
    /// A notification (has `method`, no `id`).
    Notification {
        /// Method.
        method: &'a str,
        /// Params (`Null` when absent).
        params: &'a Value,
    },
    /// A response to a request the server sent.
    Response,
    /// Anything else.
    Invalid {
        /// Id to answer with (`Null` when unknown).
        id: Value,
        /// Why it is invalid.
        reason: String,
    },
}

/// Sorts a parsed message into [`Incoming`].
pub fn classify(msg: &Value) -> Incoming<'_> {
    const NULL: &Value = &Value::Null;
    let Some(obj) = msg.as_object() else {
        return Incoming::Invalid {
            id: Value::Null,
            reason: "a message must be a JSON object".into(),
        };
    };
    let id = obj.get("id");
    let usable_id = id.filter(|v| v.is_string() || v.is_number());
    let invalid = |reason: &str| Incoming::Invalid {
        id: usable_id.cloned().unwrap_or(Value::Null),
        reason: reason.into(),
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("`jsonrpc` must be \"2.0\"");
    }
    let params = obj.get("params").unwrap_or(NULL);
    if !(params.is_null() || params.is_object()) {
        return invalid("`params` must be an object");
    }
    match (obj.get("method"), id) {
        (Some(Value::String(method)), None) => Incoming::Notification { method, params },
        (Some(Value::String(method)), Some(_)) => match usable_id {
            Some(id) => Incoming::Request { id, method, params },
            None => invalid("`id` must be a string or a number"),
        },
        (Some(_), _) => invalid("`method` must be a string"),
        (None, Some(_)) if obj.contains_key("result") || obj.contains_key("error") => {
            Incoming::Response
        }
        (None, _) => invalid("a message needs a `method`, or a `result` or `error`"),
    }
}

/// The `_meta` protocol version of a request, if any.
pub fn meta_version(params: &Value) -> Option<&str> {
    params.get("_meta")?.get(META_VERSION)?.as_str()
}

/// What the transport must do after a message was handled.
pub enum Outcome {
    /// Send this response (with this HTTP status on HTTP).
    Reply {
        /// The response message.
        msg: Value,
        /// HTTP status to use.
        status: u16,
    },
    /// Run this (it may take long), then send what it returns, if anything.
    Later(Box<dyn FnOnce() -> Option<Value> + Send>),
    /// Send this text where the response belongs.
    Garbage(String),
    /// Never answer.
    Hang,
    /// Nothing to send: a notification or a client's response.
    Nothing,
}

/// The transport's side channel, used before the response is sent.
pub trait Peer {
    /// Sends a notification to the client.
    fn notify(&mut self, msg: &Value);
    /// Sends requests to the client and waits for their answers (`None` = never came).
    fn ask(&mut self, server: &Server, requests: &[Value]) -> Vec<Option<Value>>;
}

/// Per-message context from the transport.
#[derive(Debug, Default)]
pub struct Ctx {
    /// The legacy session this message belongs to; `initialize` fills it.
    pub session: Option<Session>,
    /// The message came over HTTP.
    pub http: bool,
    /// HTTP: the request carried `Mcp-Session-Id`.
    pub session_header: bool,
}

/// Shared server state.
pub struct Server {
    /// Options from the command line.
    pub opts: Options,
    /// The tool list.
    pub tools: Vec<ToolEntry>,
    log: Mutex<Option<File>>,
    /// HTTP sessions by id.
    pub sessions: Mutex<HashMap<String, Session>>,
    pending: Mutex<HashMap<String, Option<Value>>>,
    answered: Condvar,
    cancelled: Mutex<HashSet<String>>,
    counter: AtomicU64,
}

/// Locks a mutex, recovering from poisoning (a panicked thread must not take the server down).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Server {
    /// Builds the server, opening the log file.
    pub fn new(opts: Options) -> Result<Server, String> {
        let log = match &opts.log {
            Some(path) => Some(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| format!("cannot open log file {}: {e}", path.display()))?,
            ),
            None => None,
        };
        Ok(Server {
            tools: catalog::tools(&opts),
            opts,
            log: Mutex::new(log),
            sessions: Mutex::new(HashMap::new()),
            pending: Mutex::new(HashMap::new()),
            answered: Condvar::new(),
            cancelled: Mutex::new(HashSet::new()),
            counter: AtomicU64::new(1),
        })
    }

    /// Appends one entry to the `--log` file.
    pub fn log(&self, entry: &Value) {
        if let Some(file) = lock(&self.log).as_mut() {
            let _ = writeln!(file, "{entry}").and_then(|_| file.flush());
        }
    }

    /// A process-unique number.
    pub fn next_number(&self) -> u64 {
        self.counter.fetch_add(1, Ordering::Relaxed)
    }

    /// A fresh session id (visible ASCII).
    pub fn new_session_id(&self) -> String {
        if self.opts.planted("http-session") {
            return format!("fake session {}", self.next_number());
        }
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        format!(
            "fake-{:016x}-{}",
            nanos ^ std::process::id() as u64,
            self.next_number()
        )
    }

    /// Registers requests the server is about to send so answers can be matched.
    pub fn expect_answers(&self, ids: &[String]) {
        let mut pending = lock(&self.pending);
        for id in ids {
            pending.insert(id.clone(), None);
        }
    }

    /// Files a client's response; false when no such request is pending.
    pub fn deliver(&self, msg: &Value) -> bool {
        let key = msg.get("id").map(Value::to_string).unwrap_or_default();
        let mut pending = lock(&self.pending);
        match pending.get_mut(&key) {
            Some(slot) => {
                *slot = Some(msg.clone());
                self.answered.notify_all();
                true
            }
            None => false,
        }
    }

    /// Whether every listed request has an answer.
    pub fn all_answered(&self, ids: &[String]) -> bool {
        let pending = lock(&self.pending);
        ids.iter()
            .all(|id| pending.get(id).is_some_and(Option::is_some))
    }

    /// Takes the answers of `ids` out of the table, waiting up to `timeout` for missing ones.
    pub fn take_answers(&self, ids: &[String], timeout: Option<Duration>) -> Vec<Option<Value>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut pending = lock(&self.pending);
        loop {
            let done = ids
                .iter()
                .all(|id| pending.get(id).is_some_and(Option::is_some));
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if done || left == Some(Duration::ZERO) {
                break;
            }
            pending = match left {
                Some(left) => {
                    self.answered
                        .wait_timeout(pending, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self
                    .answered
                    .wait(pending)
                    .unwrap_or_else(|e| e.into_inner()),
            };
        }
        ids.iter().map(|id| pending.remove(id).flatten()).collect()
    }

    fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        caps.insert("tools".into(), json!({"listChanged": false}));
        if self.opts.resources
            || self.surface_list("resources").is_some()
            || self.surface_list("resourceTemplates").is_some()
        {
            caps.insert("resources".into(), json!({}));
        }
        if self.surface_list("prompts").is_some() {
            caps.insert("prompts".into(), json!({}));
        }
        if self.opts.prompts {
            caps.insert("prompts".into(), json!({}));
            caps.insert("completions".into(), json!({}));
        }
        if self.opts.has(Fault::Notifications) || self.opts.planted("logging") {
            caps.insert("logging".into(), json!({}));
        }
        if self.opts.planted("capabilities") {
            caps.insert("resources".into(), json!({}));
        }
        Value::Object(caps)
    }

    fn server_info(&self) -> Value {
        let version = self
            .opts
            .surface
            .as_ref()
            .and_then(|s| s.get("version"))
            .and_then(Value::as_str)
            .unwrap_or(SERVER_VERSION);
        json!({"name": self.opts.name, "version": version})
    }

    /// A list `--surface` gives (`resources`, `prompts`, `resourceTemplates`).
    fn surface_list(&self, key: &str) -> Option<Value> {
        self.opts.surface.as_ref()?.get(key).cloned()
    }

    /// Handles one parsed message.
    pub fn handle(self: &Arc<Self>, msg: &Value, ctx: &mut Ctx, peer: &mut dyn Peer) -> Outcome {
        match classify(msg) {
            Incoming::Request { id, method, params } => self.request(id, method, params, ctx, peer),
            Incoming::Notification { method, params } => {
                self.notification(method, params, ctx);
                if self.opts.planted("notifications") {
                    let e = RpcError::new(-32601, format!("Method not found: {method}"));
                    return Outcome::Reply {
                        msg: error_response(&Value::Null, &e),
                        status: 200,
                    };
                }
                Outcome::Nothing
            }
            Incoming::Response => {
                if !self.deliver(msg) {
                    eprintln!("fake_mcp: response to no pending request: {msg}");
                }
                Outcome::Nothing
            }
            Incoming::Invalid { .. } if self.opts.planted("malformed") && !msg.is_array() => {
                Outcome::Nothing
            }
            Incoming::Invalid { id, reason } => Outcome::Reply {
                msg: error_response(
                    &id,
                    &RpcError::new(-32600, format!("Invalid Request: {reason}")),
                ),
                status: 400,
            },
        }
    }

    fn notification(&self, method: &str, params: &Value, ctx: &mut Ctx) {
        match method {
            "notifications/initialized" if self.opts.planted("initialized") => {}
            "notifications/initialized" => match ctx.session.as_mut() {
                Some(s) => s.initialized = true,
                None => eprintln!("fake_mcp: notifications/initialized outside a session"),
            },
            "notifications/cancelled" => {
                if let Some(id) = params.get("requestId") {
                    lock(&self.cancelled).insert(id.to_string());
                }
            }
            _ => {}
        }
    }

    /// Which era a request other than `initialize`/`server/discover` belongs to.
    fn is_modern(&self, params: &Value, ctx: &Ctx) -> bool {
        match self.opts.era {
            crate::opts::Era::Modern => true,
            crate::opts::Era::Legacy => false,
            crate::opts::Era::Both if ctx.http => !ctx.session_header,
            crate::opts::Era::Both => meta_version(params).is_some(),
        }
    }

    fn request(
        self: &Arc<Self>,
        id: &Value,
        method: &str,
        params: &Value,
        ctx: &mut Ctx,
        peer: &mut dyn Peer,
    ) -> Outcome {
        let era = self.opts.era;
        let modern = match method {
            "initialize" => !era.legacy(),
            "server/discover" => era.modern(),
            _ => self.is_modern(params, ctx),
        };
        let (http, session_header) = (ctx.http, ctx.session_header);
        let fail = |e: RpcError| {
            let status = match (http, modern, e.code) {
                (true, true, -32601) => 404,
                (true, true, -32022 | -32020) => 400,
                // A legacy HTTP server refuses session-less requests other than initialize.
                (true, false, _) if method == "server/discover" && !session_header => 400,
                _ => 200,
            };
            Outcome::Reply {
                msg: error_response(id, &e),
                status,
            }
        };
        let not_found = || RpcError::new(-32601, format!("Method not found: {method}"));

        // The two entry points of the eras.
        if method == "initialize" {
            if !era.legacy() {
                return fail(not_found());
            }
            if self.opts.has(Fault::HangInitialize) {
                return Outcome::Hang;
            }
            if self.opts.has(Fault::Garbage) {
                return Outcome::Garbage(GARBAGE.to_owned());
            }
            let asked = params.get("protocolVersion").and_then(Value::as_str);
            let version = match (&self.opts.legacy_version, asked) {
                (Some(forced), _) => forced.clone(),
                (None, Some(v))
                    if LEGACY_VERSIONS.contains(&v) || self.opts.planted("init-version") =>
                {
                    v.to_owned()
                }
                _ => LEGACY_FALLBACK.to_owned(),
            };
            ctx.session = Some(Session {
                version: version.clone(),
                initialized: false,
                asked_client: false,
                client_capabilities: params.get("capabilities").cloned().unwrap_or(Value::Null),
            });
            self.chatter(params, peer);
            let result = json!({
                "protocolVersion": version,
                "capabilities": self.capabilities(),
                "serverInfo": self.server_info(),
                "instructions": "A scripted fake MCP server for toolproof's tests."
            });
            return Outcome::Reply {
                msg: response(id, result),
                status: 200,
            };
        }
        if method == "server/discover" {
            if self.opts.has(Fault::HangInitialize) || self.opts.has(Fault::HangDiscoverOnly) {
                return Outcome::Hang;
            }
            if !era.modern() {
                return fail(not_found());
            }
            if self.opts.has(Fault::Garbage) {
                return Outcome::Garbage(GARBAGE.to_owned());
            }
            if let Err(e) = check_meta(params) {
                return fail(e);
            }
            self.chatter(params, peer);
            let mut meta = Map::new();
            meta.insert(META_SERVER_INFO.into(), self.server_info());
            let result = json!({
                "resultType": "complete",
                "supportedVersions": [MODERN_VERSION],
                "capabilities": self.capabilities(),
                "instructions": "A scripted fake MCP server for toolproof's tests.",
                "_meta": meta,
                "ttlMs": 60_000,
                "cacheScope": "public"
            });
            return Outcome::Reply {
                msg: response(id, result),
                status: 200,
            };
        }

        // Every other request: first the era's admission rules.
        if modern {
            if let Err(e) = check_meta(params) {
                return fail(e);
            }
            if method == "ping" {
                return fail(not_found());
            }
        } else {
            match &ctx.session {
                None if self.opts.planted("before-initialize") => {}
                None => {
                    return fail(RpcError::new(
                        -32600,
                        format!("received {method} before initialize"),
                    ));
                }
                Some(s) if !s.initialized && method != "ping" => {
                    return fail(RpcError::new(
                        -32600,
                        format!("received {method} before notifications/initialized"),
                    ));
                }
                Some(_) => {}
            }
        }
        self.chatter(params, peer);
        if method == "tools/call" {
            if let Some(out) = self.call_asking(id, params, ctx, peer) {
                return out;
            }
            return self.call_tool(id, params, modern, peer);
        }
        let result = match method {
            "ping" if self.opts.planted("ping") => Err(not_found()),
            "ping" => Ok(json!({})),
            "tools/list" => {
                if self.opts.planted("list-changed") {
                    peer.notify(&json!({
                        "jsonrpc": "2.0", "method": "notifications/tools/list_changed"
                    }));
                }
                self.ask_client_once(ctx, modern, peer);
                self.list_tools(params)
            }
            "resources/list" if self.surface_list("resources").is_some() => {
                Ok(json!({"resources": self.surface_list("resources")}))
            }
            "resources/templates/list" if self.surface_list("resourceTemplates").is_some() => {
                Ok(json!({"resourceTemplates": self.surface_list("resourceTemplates")}))
            }
            "prompts/list" if self.surface_list("prompts").is_some() => {
                Ok(json!({"prompts": self.surface_list("prompts")}))
            }
            "resources/list" if self.opts.resources => {
                Ok(json!({"resources": [catalog::resource()]}))
            }
            "resources/read" if self.opts.has(Fault::ResourcesUnavailable) => Err(RpcError::new(
                -32603,
                "cannot read resources: the backend is not reachable",
            )),
            "resources/read" if self.opts.planted("resources-read") => {
                Ok(json!({"resource": catalog::resource()}))
            }
            "resources/read" if self.opts.resources => {
                let uri = params.get("uri").and_then(Value::as_str);
                if uri == catalog::resource()["uri"].as_str() {
                    Ok(json!({"contents": [{
                        "uri": uri, "mimeType": "text/plain", "text": catalog::RESOURCE_TEXT
                    }]}))
                } else {
                    let code = if modern { -32602 } else { -32002 };
                    Err(RpcError::new(code, "Resource not found"))
                }
            }
            "prompts/list" if self.opts.prompts || self.opts.planted("unadvertised") => {
                Ok(json!({"prompts": [catalog::prompt()]}))
            }
            "completion/complete" if self.opts.prompts => {
                let who = params["ref"]["name"] == "greet" && params["argument"]["name"] == "who";
                let values = if who {
                    json!(["Ada", "Grace"])
                } else {
                    json!([])
                };
                Ok(json!({"completion": {"values": values, "hasMore": false}}))
            }
            "prompts/get" if self.opts.planted("prompts-get") => {
                Err(RpcError::new(-32603, "cannot render prompts today"))
            }
            "prompts/get" if self.opts.prompts => {
                let who = params
                    .get("arguments")
                    .and_then(|a| a.get("who"))
                    .and_then(Value::as_str);
                match (params.get("name").and_then(Value::as_str), who) {
                    (Some("greet"), Some(who)) => Ok(json!({
                        "description": "A greeting.",
                        "messages": [{"role": "user",
                                      "content": {"type": "text", "text": format!("Say hello to {who}.")}}]
                    })),
                    (Some("greet"), None) => Err(RpcError::new(-32602, "missing argument `who`")),
                    _ => Err(RpcError::new(-32602, "Unknown prompt")),
                }
            }
            "logging/setLevel" if !modern && self.opts.has(Fault::Notifications) => Ok(json!({})),
            _ if self.opts.planted("unknown-method") && !method.ends_with("/list") => Ok(json!({})),
            _ => Err(not_found()),
        };
        match result {
            Ok(mut result) => {
                if modern {
                    mark_modern(&mut result, method.ends_with("/list"));
                }
                Outcome::Reply {
                    msg: response(id, result),
                    status: 200,
                }
            }
            Err(e) => fail(e),
        }
    }

    /// The `notifications` fault: a log message and a progress update before each answer.
    fn chatter(&self, params: &Value, peer: &mut dyn Peer) {
        if !self.opts.has(Fault::Notifications) {
            return;
        }
        let token = params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .cloned()
            .unwrap_or_else(|| json!("fake-progress"));
        peer.notify(&notification(
            "notifications/message",
            json!({"level": "info", "logger": "fake_mcp", "data": "working on it"}),
        ));
        peer.notify(&notification(
            "notifications/progress",
            json!({"progressToken": token, "progress": 1, "total": 2, "message": "halfway"}),
        ));
    }

    /// The `server-requests` fault: before the first `tools/list` answer of a legacy session,
    /// ask the client for `ping` and `roots/list` and wait for both answers.
    fn ask_client_once(&self, ctx: &mut Ctx, modern: bool, peer: &mut dyn Peer) {
        let Some(session) = ctx.session.as_mut() else {
            return;
        };
        if modern || !self.opts.has(Fault::ServerRequests) || session.asked_client {
            return;
        }
        session.asked_client = true;
        let n = self.next_number();
        let requests = [
            json!({"jsonrpc": "2.0", "id": format!("fake-ping-{n}"), "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": format!("fake-roots-{n}"), "method": "roots/list"}),
        ];
        let answers = peer.ask(self, &requests);
        for (request, answer) in requests.iter().zip(answers) {
            let what = match answer {
                Some(a) if a.get("result").is_some() => {
                    format!("answered with result {}", a["result"])
                }
                Some(a) => format!(
                    "answered with error {}",
                    a.get("error").unwrap_or(&Value::Null)
                ),
                None => "got no answer".to_owned(),
            };
            eprintln!(
                "fake_mcp: server-requests: {} {what}",
                request["method"].as_str().unwrap_or("")
            );
        }
    }

    /// A call of a `client-requests` tool (in a legacy session, or stateless); `None` for any
    /// other call.
    fn call_asking(
        &self,
        id: &Value,
        params: &Value,
        ctx: &Ctx,
        peer: &mut dyn Peer,
    ) -> Option<Outcome> {
        let name = params.get("name").and_then(Value::as_str)?;
        let tool = self.tools.iter().find(|t| t.def["name"] == name)?;
        if tool.behaviour != catalog::Behaviour::AsksClient {
            return None;
        }
        let Some(session) = ctx.session.as_ref() else {
            let caps = params["_meta"][META_CAPABILITIES].clone();
            let mut result = crate::asking::call_stateless(name, params, &caps);
            if result.get("resultType").is_none() {
                mark_modern(&mut result, false);
            }
            return Some(Outcome::Reply {
                msg: response(id, result),
                status: 200,
            });
        };
        let empty = Map::new();
        let args = params
            .get("arguments")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let result = crate::asking::call(self, name, args, &session.client_capabilities, peer);
        Some(Outcome::Reply {
            msg: response(id, result),
            status: 200,
        })
    }

    fn list_tools(&self, params: &Value) -> Result<Value, RpcError> {
        let defs = || self.tools.iter().map(|t| t.def.clone());
        let cursor = params.get("cursor").and_then(Value::as_str);
        if self.opts.has(Fault::EndlessPagination) {
            let page = defs().take(self.opts.page_size.max(1)).collect::<Vec<_>>();
            return Ok(json!({"tools": page, "nextCursor": ENDLESS_CURSOR}));
        }
        let start = match cursor {
            None => 0,
            Some(_) if self.opts.planted("invalid-cursor") => 0,
            Some(c) => c
                .strip_prefix("offset-")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n < self.tools.len())
                .ok_or_else(|| RpcError::new(-32602, format!("Invalid cursor: {c}")))?,
        };
        let page_size = match self.opts.page_size {
            0 if self.opts.planted("pagination") => 1,
            0 => self.tools.len(),
            n => n,
        };
        let end = (start + page_size).min(self.tools.len());
        let page: Vec<Value> = defs().skip(start).take(end - start).collect();
        let mut result = json!({"tools": page});
        if end < self.tools.len() {
            let next = if self.opts.planted("pagination") {
                format!("page-{end}")
            } else {
                format!("offset-{end}")
            };
            result["nextCursor"] = json!(next);
        }
        Ok(result)
    }

    fn call_tool(
        self: &Arc<Self>,
        id: &Value,
        params: &Value,
        modern: bool,
        peer: &mut dyn Peer,
    ) -> Outcome {
        let reply = |result: Result<Value, RpcError>| -> Value {
            match result {
                Ok(mut r) => {
                    if modern {
                        mark_modern(&mut r, false);
                    }
                    response(id, r)
                }
                Err(e) => error_response(id, &e),
            }
        };
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        let empty = Map::new();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(a)) => a,
            Some(_) => {
                return Outcome::Reply {
                    msg: reply(Err(RpcError::new(-32602, "`arguments` must be an object"))),
                    status: 200,
                };
            }
        };
        let planted = |id| self.opts.planted(id);
        let known = self.tools.iter().any(|t| t.def["name"] == name);
        if (planted("unknown-tool") && !known)
            || (planted("invalid-arguments") && known && args.is_empty())
        {
            return Outcome::Reply {
                msg: reply(Ok(catalog::text_result("done".to_owned(), false))),
                status: 200,
            };
        }
        let Some(tool) = self.tools.iter().find(|t| t.def["name"] == name) else {
            return Outcome::Reply {
                msg: reply(Err(RpcError::new(-32602, format!("Unknown tool: {name}")))),
                status: 200,
            };
        };
        match tool.behaviour {
            Behaviour::Crash => {
                eprintln!("about to crash");
                std::process::exit(3);
            }
            Behaviour::Fuzz(bug) => {
                match crate::fuzz_targets::call(bug, &tool.def["inputSchema"], args) {
                    crate::fuzz_targets::Reply::Result(r) => Outcome::Reply {
                        msg: reply(Ok(r)),
                        status: 200,
                    },
                    crate::fuzz_targets::Reply::Rpc(code, message) => Outcome::Reply {
                        msg: reply(Err(RpcError::new(code, message))),
                        status: 200,
                    },
                    crate::fuzz_targets::Reply::Crash(last_words) => {
                        eprintln!("{last_words}");
                        std::process::exit(4);
                    }
                    crate::fuzz_targets::Reply::Hang => Outcome::Hang,
                    crate::fuzz_targets::Reply::After(ms, result) => {
                        let id = id.clone();
                        Outcome::Later(Box::new(move || {
                            std::thread::sleep(Duration::from_millis(ms));
                            Some(response(&id, result))
                        }))
                    }
                    crate::fuzz_targets::Reply::Stuck => {
                        // On the reading thread: nothing else is read, `ping` included.
                        std::thread::sleep(Duration::from_secs(60));
                        Outcome::Hang
                    }
                }
            }
            Behaviour::Slow => match catalog::slow_millis(args) {
                Ok(ms) => {
                    let server = Arc::clone(self);
                    let id = id.clone();
                    Outcome::Later(Box::new(move || {
                        std::thread::sleep(Duration::from_millis(ms));
                        if lock(&server.cancelled).remove(&id.to_string()) {
                            return None;
                        }
                        let mut result = catalog::text_result(format!("slept {ms} ms"), false);
                        if modern {
                            mark_modern(&mut result, false);
                        }
                        Some(response(&id, result))
                    }))
                }
                Err(result) => Outcome::Reply {
                    msg: reply(Ok(result)),
                    status: 200,
                },
            },
            _ => {
                let result = catalog::call_now(tool, args, self.opts.has(Fault::HugeResult));
                let msg = reply(Ok(result));
                crate::hostile::flood(&self.opts, peer);
                match crate::hostile::call_answer(&self.opts, id, &msg) {
                    Some(text) => Outcome::Garbage(text),
                    None => Outcome::Reply { msg, status: 200 },
                }
            }
        }
    }
}

/// Adds what 2026-07-28 puts on results.
fn mark_modern(result: &mut Value, is_list: bool) {
    if let Some(obj) = result.as_object_mut() {
        obj.insert("resultType".into(), json!("complete"));
        if is_list {
            obj.insert("ttlMs".into(), json!(60_000));
            obj.insert("cacheScope".into(), json!("public"));
        }
    }
}

/// The `_meta` every 2026-07-28 request must carry.
fn check_meta(params: &Value) -> Result<(), RpcError> {
    let meta = params.get("_meta");
    let requested = meta.and_then(|m| m.get(META_VERSION));
    if requested.and_then(Value::as_str) != Some(MODERN_VERSION) {
        return Err(RpcError {
            code: -32022,
            message: "Unsupported protocol version".into(),
            data: Some(json!({
                "supported": [MODERN_VERSION],
                "requested": requested.cloned().unwrap_or(Value::Null)
            })),
        });
    }
    if !meta
        .and_then(|m| m.get(META_CAPABILITIES))
        .is_some_and(Value::is_object)
    {
        return Err(RpcError::new(
            -32602,
            format!("Invalid params: _meta needs an object `{META_CAPABILITIES}`"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opts::Era;

    struct NoPeer;
    impl Peer for NoPeer {
        fn notify(&mut self, _: &Value) {}
        fn ask(&mut self, _: &Server, r: &[Value]) -> Vec<Option<Value>> {
            vec![None; r.len()]
        }
    }

    fn server(era: Era) -> Arc<Server> {
        let opts = Options {
            era,
            page_size: 2,
            ..Options::default()
        };
        match Server::new(opts) {
            Ok(s) => Arc::new(s),
            Err(e) => panic!("{e}"),
        }
    }

    fn reply(s: &Arc<Server>, ctx: &mut Ctx, msg: Value) -> Value {
        match s.handle(&msg, ctx, &mut NoPeer) {
            Outcome::Reply { msg, .. } => msg,
            _ => Value::Null,
        }
    }

    fn meta() -> Value {
        json!({"_meta": {META_VERSION: MODERN_VERSION, META_CAPABILITIES: {}}})
    }

    #[test]
    fn legacy_handshake_then_pagination() {
        let s = server(Era::Legacy);
        let mut ctx = Ctx::default();
        let r = reply(
            &s,
            &mut ctx,
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"}),
        );
        assert_eq!(r["error"]["code"], -32601);
        let r = reply(
            &s,
            &mut ctx,
            json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18"}}),
        );
        assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
        let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
        assert_eq!(reply(&s, &mut ctx, list.clone())["error"]["code"], -32600);
        s.handle(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            &mut ctx,
            &mut NoPeer,
        );
        let r = reply(&s, &mut ctx, list);
        assert_eq!(r["result"]["nextCursor"], "offset-2");
        let r = reply(
            &s,
            &mut ctx,
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"cursor": "offset-4"}}),
        );
        assert_eq!(r["result"]["tools"][0]["name"], "crash");
        assert!(r["result"].get("nextCursor").is_none());
    }

    #[test]
    fn modern_requires_meta_and_marks_results() {
        let s = server(Era::Modern);
        let mut ctx = Ctx::default();
        let r = reply(
            &s,
            &mut ctx,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        );
        assert_eq!(r["error"]["code"], -32022);
        assert_eq!(r["error"]["data"]["supported"][0], MODERN_VERSION);
        let r = reply(
            &s,
            &mut ctx,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": meta()}),
        );
        assert_eq!(r["result"]["resultType"], "complete");
        let r = reply(
            &s,
            &mut ctx,
            json!({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}}),
        );
        assert_eq!(r["error"]["code"], -32601);
    }

    #[test]
    fn bad_messages_get_errors() {
        let s = server(Era::Both);
        let mut ctx = Ctx::default();
        assert_eq!(reply(&s, &mut ctx, json!([1, 2]))["error"]["code"], -32600);
        assert_eq!(
            reply(&s, &mut ctx, json!({"jsonrpc": "2.0", "id": 7}))["error"]["code"],
            -32600
        );
        let r = reply(
            &s,
            &mut ctx,
            json!({"jsonrpc": "2.0", "id": 8, "method": "nope", "params": meta()}),
        );
        assert_eq!(r["error"]["code"], -32601);
    }
}
