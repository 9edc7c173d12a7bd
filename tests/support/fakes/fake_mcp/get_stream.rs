//! `--fault get-stream`: the standalone GET stream of a legacy HTTP session, the way a
//! 2025-11-25 server that polls uses it. The first GET of a session gets a priming event (an
//! id, `retry: 50`) and the stream closes; the GET that resumes it with that `Last-Event-ID`
//! stays open and carries what the server sends outside any POST: with this fault the
//! server's own requests (`book`, `summarize`, `list_roots`) and notifications go there, and
//! the POST waits for their answers as usual. Messages sent while no stream is open wait in
//! the session's outbox.

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::TcpStream;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

use serde_json::Value;

use crate::http1::Request;
use crate::server::{Peer, Server, lock};

/// The `retry` the priming event asks for, in milliseconds.
const RETRY_MS: u64 = 50;
/// How long a request sent on the GET stream waits for the client's answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(30);

/// A session's outbox: the sender the server writes to, and the receiver the open stream
/// holds (taken while a stream is open).
struct Outbox {
    tx: Sender<String>,
    rx: Option<Receiver<String>>,
}

static OUTBOXES: Mutex<Option<HashMap<String, Outbox>>> = Mutex::new(None);

/// The sender of `sid`'s outbox, made on first use.
fn sender(sid: &str) -> Sender<String> {
    let mut boxes = lock(&OUTBOXES);
    let boxes = boxes.get_or_insert_with(HashMap::new);
    let entry = boxes.entry(sid.to_owned()).or_insert_with(|| {
        let (tx, rx) = channel();
        Outbox { tx, rx: Some(rx) }
    });
    entry.tx.clone()
}

fn take_receiver(sid: &str) -> Option<Receiver<String>> {
    sender(sid);
    lock(&OUTBOXES).as_mut()?.get_mut(sid)?.rx.take()
}

fn give_back(sid: &str, rx: Receiver<String>) {
    if let Some(entry) = lock(&OUTBOXES).as_mut().and_then(|b| b.get_mut(sid)) {
        entry.rx = Some(rx);
    }
}

fn send(stream: &mut TcpStream, data: &[u8]) -> io::Result<()> {
    stream.write_all(data)?;
    stream.flush()
}

fn chunk(stream: &mut TcpStream, data: &str) -> io::Result<()> {
    send(stream, format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
}

const HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                    Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";

/// Serves a GET of the session's stream. Returns whether the connection may be kept.
pub fn get(server: &Server, req: &Request, stream: &mut TcpStream) -> io::Result<bool> {
    let refuse = |stream: &mut TcpStream, status: u16, why: &str| {
        let head = format!(
            "HTTP/1.1 {status} {}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            crate::http1::reason(status),
            why.len()
        );
        send(stream, format!("{head}{why}").as_bytes()).map(|()| false)
    };
    let Some(sid) = req.header("mcp-session-id") else {
        return refuse(stream, 400, "a GET stream needs Mcp-Session-Id");
    };
    if !lock(&server.sessions).contains_key(sid) {
        return refuse(stream, 404, "Session not found");
    }
    let Some(last) = req.header("last-event-id") else {
        sender(sid);
        send(stream, HEAD.as_bytes())?;
        chunk(
            stream,
            &format!("id: {sid}-0\nretry: {RETRY_MS}\ndata:\n\n"),
        )?;
        return send(stream, b"0\r\n\r\n").map(|()| false);
    };
    if last != format!("{sid}-0") {
        return refuse(stream, 404, "no such event on this session's stream");
    }
    let Some(rx) = take_receiver(sid) else {
        return refuse(stream, 409, "this session's GET stream is already open");
    };
    send(stream, HEAD.as_bytes())?;
    let mut n = 0u64;
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(msg) => {
                n += 1;
                let event = format!("id: {sid}-{n}\ndata: {msg}\n\n");
                if chunk(stream, &event).is_err() {
                    give_back(sid, rx);
                    return Ok(false);
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                // A deleted session ends its stream.
                if !lock(&server.sessions).contains_key(sid) {
                    break;
                }
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    send(stream, b"0\r\n\r\n").map(|()| false)
}

/// The server's side channel of one POST when its session's messages go on the GET stream.
pub struct GetPeer {
    pub sid: String,
}

impl Peer for GetPeer {
    fn notify(&mut self, msg: &Value) {
        let _ = sender(&self.sid).send(msg.to_string());
    }

    fn ask(&mut self, server: &Server, requests: &[Value]) -> Vec<Option<Value>> {
        let ids: Vec<String> = requests.iter().map(|r| r["id"].to_string()).collect();
        server.expect_answers(&ids);
        let tx = sender(&self.sid);
        for r in requests {
            let _ = tx.send(r.to_string());
        }
        server.take_answers(&ids, Some(ASK_TIMEOUT))
    }
}
