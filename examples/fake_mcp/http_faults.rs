//! The HTTP faults of a `tools/call` POST, answered before the server looks at the call: a 401
//! whose body is a JSON-RPC error for the request's id, an event stream that never ends, an
//! event of cut-off JSON, one event too large to keep, and an answer sent a byte at a time.

use std::io::{self, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use crate::opts::{Fault, Options};
use crate::server::{RpcError, error_response, notification};

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
