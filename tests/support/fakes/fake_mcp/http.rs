//! The streamable HTTP transport: a minimal HTTP/1.1 server on `std::net`, one thread per
//! connection, keep-alive, `Content-Length` (or chunked) request bodies, JSON or SSE answers (the
//! event stream of one POST is in `post_stream`), legacy sessions and the 2026-07-28 header
//! rules. With `--legacy-sse` the requests go to the 2024-11-05 HTTP+SSE transport in
//! `legacy_sse` instead.

use crate::http1::{ReadError, Request, read_request, reason};
use crate::post_stream::HttpPeer;
use std::io::{self, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::opts::{Era, Fault};
use crate::server::{
    Ctx, Incoming, Outcome, RpcError, Server, classify, error_response, lock, meta_version,
};

/// Writes a complete response with a `Content-Length` body.
pub fn write_full(
    w: &mut impl Write,
    status: u16,
    content_type: Option<&str>,
    extra: &[(String, String)],
    body: &[u8],
    keep_alive: bool,
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    if let Some(ct) = content_type {
        head.push_str(&format!("Content-Type: {ct}\r\n"));
    }
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let connection = if keep_alive { "keep-alive" } else { "close" };
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: {connection}\r\n\r\n",
        body.len()
    ));
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    w.write_all(&out)?;
    w.flush()
}

pub fn write_json(
    w: &mut impl Write,
    status: u16,
    extra: &[(String, String)],
    msg: &Value,
    keep_alive: bool,
) -> io::Result<()> {
    write_full(
        w,
        status,
        Some("application/json"),
        extra,
        msg.to_string().as_bytes(),
        keep_alive,
    )
}

/// A JSON-RPC error body for an HTTP-level refusal before the body was read.
pub fn refusal(code: i64, message: impl Into<String>) -> Value {
    error_response(&Value::Null, &RpcError::new(code, message))
}

/// A JSON-RPC error body for an HTTP-level refusal of a message, answering its id.
fn refusal_of(msg: &Value, code: i64, message: impl Into<String>) -> Value {
    let id = msg.get("id").filter(|id| id.is_string() || id.is_number());
    error_response(id.unwrap_or(&Value::Null), &RpcError::new(code, message))
}

/// Serves HTTP forever; returns the exit status if listening fails.
pub fn serve(server: Arc<Server>, addr: SocketAddr) -> i32 {
    let listener = match TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("fake_mcp: error: cannot listen on {addr}: {e}");
            return 1;
        }
    };
    let local = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("fake_mcp: error: cannot read the bound address: {e}");
            return 1;
        }
    };
    let mut out = io::stdout().lock();
    let path = if server.opts.legacy_sse {
        crate::legacy_sse::STREAM_PATH
    } else {
        "/mcp"
    };
    if writeln!(out, "listening on http://{local}{path}")
        .and_then(|_| out.flush())
        .is_err()
    {
        return 1;
    }
    drop(out);
    for conn in listener.incoming() {
        match conn {
            Ok(stream) => {
                let server = Arc::clone(&server);
                std::thread::spawn(move || connection(&server, stream));
            }
            Err(e) => eprintln!("fake_mcp: accept failed: {e}"),
        }
    }
    0
}

fn connection(server: &Arc<Server>, mut stream: TcpStream) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    loop {
        let req = match read_request(&mut reader) {
            Ok(Some(req)) => req,
            Ok(None) | Err(ReadError::Io) => return,
            Err(ReadError::Bad(status, why)) => {
                server.log(&json!({"transport": "http", "bad_request": why}));
                let _ = write_full(
                    &mut stream,
                    status,
                    Some("text/plain"),
                    &[],
                    why.as_bytes(),
                    false,
                );
                return;
            }
        };
        log_request(server, &req);
        let answered = if server.opts.legacy_sse {
            crate::legacy_sse::answer(server, &req, &mut stream)
        } else {
            answer(server, &req, &mut stream)
        };
        match answered {
            Ok(true) if req.keep_alive => {}
            _ => return,
        }
    }
}

fn log_request(server: &Server, req: &Request) {
    let mut headers = Map::new();
    for (name, value) in &req.headers {
        let joined = match headers.get(name).and_then(Value::as_str) {
            Some(before) => format!("{before}, {value}"),
            None => value.clone(),
        };
        headers.insert(name.clone(), Value::String(joined));
    }
    let mut entry = json!({
        "transport": if server.opts.legacy_sse { "sse" } else { "http" },
        "method": req.method,
        "path": req.path,
        "headers": headers,
    });
    if !req.query.is_empty() {
        entry["query"] = json!(req.query);
    }
    if !req.body.is_empty() {
        match serde_json::from_slice::<Value>(&req.body) {
            Ok(v) => entry["message"] = v,
            Err(_) => entry["raw"] = json!(String::from_utf8_lossy(&req.body)),
        }
    }
    server.log(&entry);
}

/// Answers one request; `Ok(false)` means close the connection.
fn answer(server: &Arc<Server>, req: &Request, stream: &mut TcpStream) -> io::Result<bool> {
    let ka = req.keep_alive;
    if req.path != "/mcp" {
        write_full(
            stream,
            404,
            Some("text/plain"),
            &[],
            b"not found; the endpoint is /mcp",
            ka,
        )?;
        return Ok(ka);
    }
    if let Some(done) = unauthorized(server, req, stream) {
        return done;
    }
    if let Some(done) = crate::http_protocol::screen(&server.opts, req, stream) {
        return done;
    }
    if req.method == "GET"
        && let Some(done) = crate::http_faults::resume_get(&server.opts, req, stream)
    {
        return done;
    }
    if req.method == "GET" && server.opts.has(Fault::GetStream) {
        return crate::get_stream::get(server, req, stream);
    }
    match req.method.as_str() {
        "POST" => post(server, req, stream),
        "DELETE" => delete(server, req, stream),
        _ => {
            let extra = [("Allow".to_owned(), "POST, DELETE".to_owned())];
            write_full(
                stream,
                405,
                Some("text/plain"),
                &extra,
                b"method not allowed",
                ka,
            )?;
            Ok(ka)
        }
    }
}

/// A 401 when a `--require-header` is missing or wrong; `None` when all are there.
pub fn unauthorized(
    server: &Server,
    req: &Request,
    stream: &mut TcpStream,
) -> Option<io::Result<bool>> {
    let (name, _) = server
        .opts
        .require_headers
        .iter()
        .find(|(name, value)| req.header(name) != Some(value.as_str()))?;
    let extra = [("WWW-Authenticate".to_owned(), "Bearer".to_owned())];
    let body = refusal(
        -32000,
        format!("Unauthorized: header `{name}` missing or wrong"),
    );
    let ka = req.keep_alive;
    Some(write_json(stream, 401, &extra, &body, ka).map(|()| ka))
}

fn delete(server: &Server, req: &Request, stream: &mut TcpStream) -> io::Result<bool> {
    let ka = req.keep_alive;
    let sid = req.header("mcp-session-id");
    if !server.opts.era.legacy() || (server.opts.era == Era::Both && sid.is_none()) {
        let extra = [("Allow".to_owned(), "POST".to_owned())];
        write_full(
            stream,
            405,
            Some("text/plain"),
            &extra,
            b"no sessions here",
            ka,
        )?;
        return Ok(ka);
    }
    let Some(sid) = sid else {
        write_json(
            stream,
            400,
            &[],
            &refusal(-32600, "Bad Request: missing Mcp-Session-Id"),
            ka,
        )?;
        return Ok(ka);
    };
    let ended = if server.opts.planted("http-delete") {
        lock(&server.sessions).contains_key(sid)
    } else {
        lock(&server.sessions).remove(sid).is_some()
    };
    if ended {
        write_full(stream, 204, None, &[], b"", ka)?;
    } else {
        write_json(stream, 404, &[], &refusal(-32001, "Session not found"), ka)?;
    }
    Ok(ka)
}

/// A header value for a message: quoted, or `missing`.
fn shown(value: Option<&str>) -> String {
    value.map_or_else(|| "missing".to_owned(), |v| format!("{v:?}"))
}

/// The header a 2026-07-28 request must mirror in `Mcp-Name`, if any.
fn name_param<'a>(method: &str, params: &'a Value) -> Option<Option<&'a str>> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    Some(params.get(key).and_then(Value::as_str))
}

/// The 2026-07-28 header rules; `Err` holds the -32020 message.
fn check_modern_headers(req: &Request, msg: &Value) -> Result<(), String> {
    let (method, params) = match classify(msg) {
        Incoming::Request { method, params, .. } | Incoming::Notification { method, params } => {
            (method, params)
        }
        _ => return Ok(()),
    };
    if req.header("mcp-method") != Some(method) {
        return Err(format!(
            "Header mismatch: Mcp-Method is {} but the body's method is {method:?}",
            shown(req.header("mcp-method"))
        ));
    }
    let header_version = req.header("mcp-protocol-version");
    match (header_version, meta_version(params)) {
        (None, _) => return Err("Header mismatch: MCP-Protocol-Version is missing".into()),
        (Some(h), Some(m)) if h != m => {
            return Err(format!(
                "Header mismatch: MCP-Protocol-Version is {h:?} but _meta says {m:?}"
            ));
        }
        _ => {}
    }
    if let Some(expected) = name_param(method, params)
        && req.header("mcp-name") != expected
    {
        return Err(format!(
            "Header mismatch: Mcp-Name is {} but the body names {}",
            shown(req.header("mcp-name")),
            shown(expected)
        ));
    }
    Ok(())
}

fn post(server: &Arc<Server>, req: &Request, stream: &mut TcpStream) -> io::Result<bool> {
    let ka = req.keep_alive;
    let opts = &server.opts;
    let _turn = crate::hostile::turn(opts);
    if opts.has(Fault::Http404) {
        write_full(stream, 404, Some("text/plain"), &[], b"Not Found", ka)?;
        return Ok(ka);
    }
    if opts.has(Fault::Http500) {
        write_full(
            stream,
            500,
            Some("text/plain"),
            &[],
            b"Internal Server Error: the fake broke",
            ka,
        )?;
        return Ok(ka);
    }
    if opts.has(Fault::HttpHtml) {
        let page = b"<!doctype html><html><head><title>Welcome</title></head>\
                     <body><h1>It works!</h1></body></html>";
        write_full(stream, 200, Some("text/html; charset=utf-8"), &[], page, ka)?;
        return Ok(ka);
    }
    let accept = req.header("accept").unwrap_or("").to_ascii_lowercase();
    let acceptable = accept.contains("application/json") && accept.contains("text/event-stream");
    if !acceptable && !opts.planted("http-accept") {
        let body = refusal(
            -32000,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        );
        write_json(stream, 406, &[], &body, ka)?;
        return Ok(ka);
    }
    let content_type = req
        .header("content-type")
        .unwrap_or("")
        .to_ascii_lowercase();
    if !content_type.starts_with("application/json") {
        let body = refusal(
            -32000,
            "Unsupported Media Type: Content-Type must be application/json",
        );
        write_json(stream, 415, &[], &body, ka)?;
        return Ok(ka);
    }
    let msg: Value = match serde_json::from_slice(&req.body) {
        Ok(v) => v,
        Err(e) => {
            write_json(
                stream,
                400,
                &[],
                &refusal(-32700, format!("Parse error: {e}")),
                ka,
            )?;
            return Ok(ka);
        }
    };
    if msg.is_array() {
        write_json(
            stream,
            400,
            &[],
            &refusal_of(&msg, -32600, "Invalid Request: batches are not supported"),
            ka,
        )?;
        return Ok(ka);
    }
    let method = match classify(&msg) {
        Incoming::Request { method, .. } | Incoming::Notification { method, .. } => Some(method),
        _ => None,
    };
    let sid = req.header("mcp-session-id");
    let legacy = match opts.era {
        Era::Legacy => true,
        Era::Modern => false,
        Era::Both => method == Some("initialize") || sid.is_some(),
    };
    let mut ctx = Ctx {
        session: None,
        http: true,
        session_header: sid.is_some(),
    };
    let mut headers = Vec::new();
    let mut new_session = None;
    if legacy {
        if method == Some("initialize") {
            let id = server.new_session_id();
            headers.push(("Mcp-Session-Id".to_owned(), id.clone()));
            new_session = Some(id);
        } else if let Some(sid) = sid {
            let Some(session) = lock(&server.sessions).get(sid).cloned() else {
                let foreign = !sid.starts_with("fake");
                write_json(
                    stream,
                    if foreign && opts.planted("http-unknown-session") {
                        400
                    } else {
                        404
                    },
                    &[],
                    &refusal_of(&msg, -32001, "Session not found"),
                    ka,
                )?;
                return Ok(ka);
            };
            let sent = req.header("mcp-protocol-version");
            let fine = opts.planted("http-protocol-version")
                || sent == Some(session.version.as_str())
                || (sent.is_none() && session.version == "2025-03-26");
            if !fine {
                let body = refusal_of(
                    &msg,
                    -32600,
                    format!(
                        "Bad Request: MCP-Protocol-Version is {}, the session negotiated {:?}",
                        shown(sent),
                        session.version
                    ),
                );
                write_json(stream, 400, &[], &body, ka)?;
                return Ok(ka);
            }
            ctx.session = Some(session);
        } else if method != Some("server/discover")
            && !(method == Some("ping") && opts.planted("http-missing-session"))
        {
            write_json(
                stream,
                400,
                &[],
                &refusal_of(&msg, -32600, "Bad Request: missing Mcp-Session-Id"),
                ka,
            )?;
            return Ok(ka);
        }
    } else if method != Some("initialize")
        && let Err(why) = check_modern_headers(req, &msg)
    {
        write_json(stream, 400, &[], &refusal_of(&msg, -32020, why), ka)?;
        return Ok(ka);
    }

    if method == Some("tools/call")
        && let Some(done) = crate::http_faults::tools_call(opts, &msg, stream)
    {
        return done;
    }
    if let Some(done) = crate::http_faults::closed_stream(server, &msg, &mut ctx, &headers, stream)
    {
        return done;
    }
    let mut peer = HttpPeer {
        stream,
        headers,
        keep_alive: ka,
        started: false,
        note_first: opts.sse,
        stream_no: server.next_number(),
        events: 0,
        broken: false,
        priming: !opts.planted("http-sse-priming"),
    };
    let outcome = match sid.filter(|_| opts.has(Fault::GetStream)) {
        Some(sid) => {
            let sid = sid.to_owned();
            server.handle(&msg, &mut ctx, &mut crate::get_stream::GetPeer { sid })
        }
        None => server.handle(&msg, &mut ctx, &mut peer),
    };
    if let Some(session) = ctx.session {
        let mut sessions = lock(&server.sessions);
        match (&new_session, sid) {
            (Some(id), _) => {
                sessions.insert(id.clone(), session);
            }
            (None, Some(sid)) => {
                if let Some(slot) = sessions.get_mut(sid) {
                    *slot = session;
                }
            }
            (None, None) => {}
        }
    } else if new_session.is_some() && !peer.started {
        // initialize failed: no session to announce.
        peer.headers.clear();
    }
    let reply = match outcome {
        Outcome::Reply { msg, status } => Some((msg.to_string(), status)),
        Outcome::Later(work) => work().map(|m| (m.to_string(), 200)),
        Outcome::Garbage(text) => Some((text, 200)),
        Outcome::Nothing => None,
        Outcome::Hang => {
            hang_until_closed(peer.stream);
            return Ok(false);
        }
    };
    match reply {
        Some((body, status)) if peer.started || (opts.sse && status == 200) => {
            peer.start();
            peer.event(&body);
            peer.finish();
        }
        Some((body, status)) => {
            write_full(
                peer.stream,
                status,
                Some("application/json"),
                &peer.headers,
                body.as_bytes(),
                ka,
            )?;
        }
        None if peer.started => peer.finish(),
        None if opts.planted("http-notification") => {
            write_full(peer.stream, 200, None, &[], b"", ka)?;
        }
        None => write_full(peer.stream, 202, None, &[], b"", ka)?,
    }
    Ok(ka && !peer.broken)
}

/// Keeps a connection open without answering until the client gives up.
fn hang_until_closed(stream: &mut TcpStream) {
    if stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .is_err()
    {
        return;
    }
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}
