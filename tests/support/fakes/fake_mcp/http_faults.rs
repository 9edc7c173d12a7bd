//! The HTTP faults of a `tools/call` POST, answered before the server looks at the call: a 401
//! whose body is a JSON-RPC error for the request's id, an event stream that never ends, an
//! event of cut-off JSON, one event too large to keep, and an answer sent a byte at a time.
//! Also a response stream closed after its priming event, to be resumed with a GET and
//! `Last-Event-ID` (`sse-resume`, and `sse-close-ping` and `protocol-http-sse-retry` for a
//! `ping`) or never (`sse-drop`).

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::http1::Request;
use crate::opts::{Fault, Options};
use crate::server::{Ctx, Outcome, Peer, RpcError, Server, error_response, lock, notification};

/// Responses of `sse-resume` streams, by the id of the event they follow.
static RESUMABLE: Mutex<Option<HashMap<String, String>>> = Mutex::new(None);
/// The `retry` interval a closed stream asks for, in milliseconds.
const RESUME_RETRY_MS: u64 = 50;

/// A peer that drops what the server would send before the response.
struct Quiet;

impl Peer for Quiet {
    fn notify(&mut self, _msg: &Value) {}

    fn ask(&mut self, _server: &Server, requests: &[Value]) -> Vec<Option<Value>> {
        vec![None; requests.len()]
    }
}

/// `sse-resume` and `sse-drop` (of a `tools/call`), `sse-close-ping` and
/// `protocol-http-sse-retry` (of a `ping`): runs the request, then opens an event stream, sends
/// a priming event with an id (and `retry`, but for `protocol-http-sse-retry`), and closes it.
/// But for `sse-drop` the response waits for the GET that resumes the stream. `None` when no
/// such fault applies to the request.
pub fn closed_stream(
    server: &Arc<Server>,
    msg: &Value,
    ctx: &mut Ctx,
    headers: &[(String, String)],
    stream: &mut TcpStream,
) -> Option<io::Result<bool>> {
    let opts = &server.opts;
    let (resumes, retry) = match msg.get("method").and_then(Value::as_str) {
        Some("tools/call") if opts.has(Fault::SseResume) => (true, true),
        Some("tools/call") if opts.has(Fault::SseDrop) => (false, true),
        Some("ping") if opts.planted("http-sse-retry") => (true, false),
        Some("ping") if opts.has(Fault::SseClosePing) => (true, true),
        _ => return None,
    };
    let reply = match server.handle(msg, ctx, &mut Quiet) {
        Outcome::Reply { msg, .. } => Some(msg.to_string()),
        Outcome::Later(work) => work().map(|m| m.to_string()),
        Outcome::Garbage(text) => Some(text),
        Outcome::Hang | Outcome::Nothing => None,
    };
    let id = format!("{}-1", server.next_number());
    if let (true, Some(reply)) = (resumes, reply) {
        lock(&RESUMABLE)
            .get_or_insert_with(HashMap::new)
            .insert(id.clone(), reply);
    }
    let mut head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                    Transfer-Encoding: chunked\r\nConnection: close\r\n"
            .to_owned();
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let priming = if retry {
        format!("id: {id}\nretry: {RESUME_RETRY_MS}\ndata:\n\n")
    } else {
        format!("id: {id}\ndata:\n\n")
    };
    let sent = send(stream, &[head.as_bytes()])
        .and_then(|()| chunk(stream, priming.as_bytes()))
        .and_then(|()| send(stream, &[b"0\r\n\r\n"]));
    Some(sent.map(|()| false))
}

/// A GET that resumes a stream closed before its response: the response it held back, after
/// `Last-Event-ID`. `None` when no such fault is planted (or, for the `ping` ones, the GET
/// resumes nothing), so that GET is served as without the fault.
pub fn resume_get(
    opts: &Options,
    req: &Request,
    stream: &mut TcpStream,
) -> Option<io::Result<bool>> {
    let pings = opts.planted("http-sse-retry") || opts.has(Fault::SseClosePing);
    let resumes_ping = pings && req.header("last-event-id").is_some();
    if !(opts.has(Fault::SseResume) || resumes_ping) {
        return None;
    }
    let last = req.header("last-event-id").unwrap_or("");
    let reply = lock(&RESUMABLE).as_mut().and_then(|m| m.remove(last));
    let Some(reply) = reply else {
        let body = format!("no stream to resume after Last-Event-ID {last:?}");
        let head = format!(
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            body.len()
        );
        return Some(send(stream, &[head.as_bytes(), body.as_bytes()]).map(|()| false));
    };
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    let next = last.strip_suffix("-1").unwrap_or(last);
    let mut event = format!("id: {next}-2\n");
    for line in reply.split('\n') {
        event.push_str(&format!("data: {line}\n"));
    }
    event.push('\n');
    let sent = send(stream, &[head.as_bytes()])
        .and_then(|()| chunk(stream, event.as_bytes()))
        .and_then(|()| send(stream, &[b"0\r\n\r\n"]));
    Some(sent.map(|()| false))
}

/// Pause between two notifications of `sse-endless` and two bytes of `trickle`.
const TICK: Duration = Duration::from_millis(20);
/// Size of the `sse-huge-event` event: over a 64 MiB message limit.
const HUGE_EVENT_BYTES: usize = 70 << 20;

/// Answers a `tools/call` POST as an HTTP fault says; `None` when no such fault is planted.
/// `Some(Ok(keep))` says whether the connection may serve another request.
pub fn tools_call(opts: &Options, msg: &Value, stream: &mut TcpStream) -> Option<io::Result<bool>> {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    if opts.has(Fault::Http401Call) {
        let body = error_response(
            &id,
            &RpcError::new(-32001, "Unauthorized: the token expired"),
        );
        let body = body.to_string();
        let head = format!(
            "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\
             WWW-Authenticate: Bearer\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        return Some(send(stream, &[head.as_bytes(), body.as_bytes()]).map(|()| false));
    }
    if opts.has(Fault::Trickle) {
        return Some(trickle(stream, &id).map(|()| false));
    }
    let sse = [Fault::SseEndless, Fault::SseMalformed, Fault::SseHugeEvent];
    let fault = sse.into_iter().find(|f| opts.has(*f))?;
    Some(event_stream(stream, fault, &id).map(|()| false))
}

fn send(stream: &mut TcpStream, parts: &[&[u8]]) -> io::Result<()> {
    for part in parts {
        stream.write_all(part)?;
    }
    stream.flush()
}

/// A whole answer with its `Content-Length`, the body a byte at a time.
fn trickle(stream: &mut TcpStream, id: &Value) -> io::Result<()> {
    let body = json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": "finally, all of it"}]}})
    .to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    send(stream, &[head.as_bytes()])?;
    for byte in body.as_bytes() {
        std::thread::sleep(TICK);
        send(stream, &[&[*byte]])?;
    }
    Ok(())
}

/// One chunk of a chunked body.
fn chunk(stream: &mut TcpStream, data: &[u8]) -> io::Result<()> {
    let size = format!("{:x}\r\n", data.len());
    send(stream, &[size.as_bytes(), data, b"\r\n"])
}

/// The SSE faults: endless notifications, an event of cut JSON, or one huge event.
fn event_stream(stream: &mut TcpStream, fault: Fault, id: &Value) -> io::Result<()> {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    send(stream, &[head.as_bytes()])?;
    match fault {
        Fault::SseEndless => {
            // Until the client hangs up.
            for n in 0u64.. {
                let note = notification(
                    "notifications/message",
                    json!({"level": "debug", "logger": "fake_mcp", "data": format!("still working {n}")}),
                );
                chunk(stream, format!("data: {note}\n\n").as_bytes())?;
                std::thread::sleep(TICK);
            }
        }
        Fault::SseMalformed => {
            let cut = format!(r#"data: {{"jsonrpc":"2.0","id":{id},"result":{{"content":["#);
            chunk(stream, format!("{cut}\n\n").as_bytes())?;
        }
        _ => {
            let mut line = b"data: ".to_vec();
            line.extend(std::iter::repeat_n(b'x', (1 << 20) - 7));
            line.push(b'\n');
            for _ in 0..HUGE_EVENT_BYTES / line.len() + 1 {
                chunk(stream, &line)?;
            }
        }
    }
    send(stream, &[b"0\r\n\r\n"])
}
