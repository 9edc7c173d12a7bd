//! The answer to one streamable HTTP POST as an event stream: started on the first thing the
//! server sends before its response (a notification, a request to the client), with a priming
//! event, then one event per message, chunked.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use crate::server::{Peer, Server, notification};

/// How long a server request sent over SSE waits for the client's answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(30);

/// The side channel of one POST: turns the response into an SSE stream on first use.
pub struct HttpPeer<'a> {
    pub stream: &'a mut TcpStream,
    pub headers: Vec<(String, String)>,
    pub keep_alive: bool,
    pub started: bool,
    pub note_first: bool,
    pub stream_no: u64,
    pub events: u64,
    pub broken: bool,
    /// Start the stream with a priming event (`protocol-http-sse-priming` leaves it out).
    pub priming: bool,
}

impl HttpPeer<'_> {
    fn chunk(&mut self, data: &[u8]) {
        if self.broken || data.is_empty() {
            return;
        }
        let mut out = format!("{:x}\r\n", data.len()).into_bytes();
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
        if self
            .stream
            .write_all(&out)
            .and_then(|_| self.stream.flush())
            .is_err()
        {
            self.broken = true;
        }
    }

    pub fn event(&mut self, data: &str) {
        self.events += 1;
        let mut text = format!("id: {}-{}\n", self.stream_no, self.events);
        for line in data.split('\n') {
            text.push_str(&format!("data: {line}\n"));
        }
        text.push('\n');
        self.chunk(text.as_bytes());
    }

    /// Sends the SSE head, the priming event and (with `--sse`) a first notification.
    pub fn start(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        let mut head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                        Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n"
            .to_owned();
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        let connection = if self.keep_alive {
            "keep-alive"
        } else {
            "close"
        };
        head.push_str(&format!("Connection: {connection}\r\n\r\n"));
        if self.stream.write_all(head.as_bytes()).is_err() {
            self.broken = true;
        }
        if self.priming {
            self.events += 1;
            // `retry` as long as toolproof waits without one, so timings do not change.
            let priming = format!(
                "id: {}-{}\nretry: 500\ndata:\n\n",
                self.stream_no, self.events
            );
            self.chunk(priming.as_bytes());
        }
        if self.note_first {
            let note = notification(
                "notifications/message",
                json!({"level": "debug", "logger": "fake_mcp", "data": "answering over SSE"}),
            );
            self.event(&note.to_string());
        }
    }

    pub fn finish(&mut self) {
        if !self.broken
            && self
                .stream
                .write_all(b"0\r\n\r\n")
                .and_then(|_| self.stream.flush())
                .is_err()
        {
            self.broken = true;
        }
    }
}

impl Peer for HttpPeer<'_> {
    fn notify(&mut self, msg: &Value) {
        self.start();
        self.event(&msg.to_string());
    }

    fn ask(&mut self, server: &Server, requests: &[Value]) -> Vec<Option<Value>> {
        let ids: Vec<String> = requests.iter().map(|r| r["id"].to_string()).collect();
        server.expect_answers(&ids);
        self.start();
        for r in requests {
            self.event(&r.to_string());
        }
        server.take_answers(&ids, Some(ASK_TIMEOUT))
    }
}
