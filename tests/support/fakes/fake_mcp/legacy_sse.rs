//! The 2024-11-05 HTTP+SSE transport (`--legacy-sse`): `GET /sse` opens a session's event
//! stream, whose first event (`endpoint`) names `/messages?session_id=ID`. Every POST there is
//! answered `202 Accepted` without a body; the response, and whatever the server sends before it
//! (notifications, requests to the client), comes on the stream as a `message` event. A POST to
//! `/sse` gets 405, as servers of that revision answer a streamable HTTP client's first POST.
//!
//! Each session has a worker thread that handles its messages in the order they were POSTed (so
//! `notifications/initialized` is handled before the request after it); the client's answers to
//! the server's requests skip the queue, since the worker may be waiting for them.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::http::{refusal, unauthorized, write_full, write_json};
use crate::http1::Request;
use crate::server::{Ctx, Incoming, Outcome, Peer, Server, classify, lock};

/// Where the event stream is opened.
pub const STREAM_PATH: &str = "/sse";
/// Where messages are POSTed (the `endpoint` event adds `?session_id=ID`).
pub const MESSAGES_PATH: &str = "/messages";
/// How long a request to the client waits for its answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(30);

/// The queue of each open session's worker, by session id.
static SESSIONS: Mutex<Option<HashMap<String, Sender<Value>>>> = Mutex::new(None);

/// What the stream's writer is told.
enum Event {
    /// Send this as a `message` event.
    Message(String),
    /// The client closed the connection.
    Closed,
}

/// Answers one request of the HTTP+SSE transport; `Ok(false)` means close the connection.
pub fn answer(server: &Arc<Server>, req: &Request, stream: &mut TcpStream) -> io::Result<bool> {
    let ka = req.keep_alive;
    if let Some(done) = unauthorized(server, req, stream) {
        return done;
    }
    let not_allowed = |stream: &mut TcpStream, allow: &str, why: &[u8]| {
        let extra = [("Allow".to_owned(), allow.to_owned())];
        write_full(stream, 405, Some("text/plain"), &extra, why, ka).map(|()| ka)
    };
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", STREAM_PATH) => open_stream(server, req, stream),
        ("POST", MESSAGES_PATH) => post(server, req, stream),
        (_, STREAM_PATH) => not_allowed(
            stream,
            "GET",
            b"method not allowed: open the event stream with GET (HTTP+SSE, 2024-11-05)",
        ),
        (_, MESSAGES_PATH) => not_allowed(stream, "POST", b"method not allowed: POST messages"),
        _ => {
            let body = format!("not found; the event stream is {STREAM_PATH}");
            write_full(stream, 404, Some("text/plain"), &[], body.as_bytes(), ka)?;
            Ok(ka)
        }
    }
}

/// `GET /sse`: a new session. Sends the `endpoint` event, then every message the session's
/// worker produces, until the client goes away.
fn open_stream(server: &Arc<Server>, req: &Request, stream: &mut TcpStream) -> io::Result<bool> {
    let accept = req.header("accept").unwrap_or("").to_ascii_lowercase();
    if !accept.contains("text/event-stream") {
        let body = b"not acceptable: Accept must list text/event-stream";
        write_full(stream, 406, Some("text/plain"), &[], body, req.keep_alive)?;
        return Ok(req.keep_alive);
    }
    let id = server.new_session_id();
    let (events, feed) = mpsc::channel();
    let (queue, messages) = mpsc::channel();
    // The client sends nothing more on this connection: a read that ends means it left.
    let mut watched = stream.try_clone()?;
    let closed = events.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        while matches!(watched.read(&mut buf), Ok(n) if n > 0) {}
        let _ = closed.send(Event::Closed);
    });
    let worker_server = Arc::clone(server);
    std::thread::spawn(move || work(&worker_server, &messages, &events));
    lock(&SESSIONS)
        .get_or_insert_with(HashMap::new)
        .insert(id.clone(), queue);
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    let mut written = stream.write_all(head.as_bytes()).and_then(|()| {
        chunk(
            stream,
            "endpoint",
            &format!("{MESSAGES_PATH}?session_id={id}"),
        )
    });
    while written.is_ok() {
        match feed.recv() {
            Ok(Event::Message(data)) => written = chunk(stream, "message", &data),
            Ok(Event::Closed) | Err(_) => break,
        }
    }
    if let Some(sessions) = lock(&SESSIONS).as_mut() {
        // Dropping the queue ends the worker once it is done with what it holds.
        sessions.remove(&id);
    }
    let _ = stream.shutdown(Shutdown::Both);
    Ok(false)
}

/// Writes one SSE event as one chunk.
fn chunk(stream: &mut TcpStream, name: &str, data: &str) -> io::Result<()> {
    let mut text = format!("event: {name}\n");
    for line in data.split('\n') {
        text.push_str(&format!("data: {line}\n"));
    }
    text.push('\n');
    let mut out = format!("{:x}\r\n", text.len()).into_bytes();
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(b"\r\n");
    stream.write_all(&out)?;
    stream.flush()
}

/// `POST /messages?session_id=ID`: 202 at once; the message goes to the session's worker, or
/// (an answer to a request of the server's) straight to whoever waits for it.
fn post(server: &Server, req: &Request, stream: &mut TcpStream) -> io::Result<bool> {
    let ka = req.keep_alive;
    let id = req
        .query
        .split('&')
        .find_map(|pair| pair.strip_prefix("session_id="));
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        let body = refusal(-32600, "Bad Request: missing session_id in the query");
        write_json(stream, 400, &[], &body, ka)?;
        return Ok(ka);
    };
    let queue = lock(&SESSIONS)
        .as_ref()
        .and_then(|sessions| sessions.get(id).cloned());
    let Some(queue) = queue else {
        write_json(stream, 404, &[], &refusal(-32001, "Session not found"), ka)?;
        return Ok(ka);
    };
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
            let body = refusal(-32700, format!("Parse error: {e}"));
            write_json(stream, 400, &[], &body, ka)?;
            return Ok(ka);
        }
    };
    if matches!(classify(&msg), Incoming::Response) {
        if !server.deliver(&msg) {
            eprintln!("fake_mcp: response to no pending request: {msg}");
        }
    } else if queue.send(msg).is_err() {
        write_json(stream, 404, &[], &refusal(-32001, "Session ended"), ka)?;
        return Ok(ka);
    }
    write_full(stream, 202, None, &[], b"", ka)?;
    Ok(ka)
}

/// Sends what the server has to say on the session's stream.
struct StreamPeer {
    events: Sender<Event>,
}

impl StreamPeer {
    fn send(&self, text: String) {
        // A stream that is gone drops what is left to say.
        let _ = self.events.send(Event::Message(text));
    }
}

impl Peer for StreamPeer {
    fn notify(&mut self, msg: &Value) {
        self.send(msg.to_string());
    }

    fn ask(&mut self, server: &Server, requests: &[Value]) -> Vec<Option<Value>> {
        let ids: Vec<String> = requests.iter().map(|r| r["id"].to_string()).collect();
        server.expect_answers(&ids);
        for r in requests {
            self.send(r.to_string());
        }
        server.take_answers(&ids, Some(ASK_TIMEOUT))
    }
}

/// A session's worker: handles its messages in order, answering on the stream. Long work
/// (`slow`) runs on a thread of its own so the session goes on meanwhile.
fn work(server: &Arc<Server>, messages: &Receiver<Value>, events: &Sender<Event>) {
    // `session_header`: every message after `initialize` belongs to the session, as a
    // legacy session's requests over streamable HTTP do.
    let mut ctx = Ctx {
        session: None,
        http: true,
        session_header: true,
    };
    let mut peer = StreamPeer {
        events: events.clone(),
    };
    for msg in messages {
        match server.handle(&msg, &mut ctx, &mut peer) {
            Outcome::Reply { msg, .. } => peer.send(msg.to_string()),
            Outcome::Garbage(text) => peer.send(text),
            Outcome::Later(later) => {
                let peer = StreamPeer {
                    events: events.clone(),
                };
                std::thread::spawn(move || {
                    if let Some(msg) = later() {
                        peer.send(msg.to_string());
                    }
                });
            }
            Outcome::Hang | Outcome::Nothing => {}
        }
    }
}
