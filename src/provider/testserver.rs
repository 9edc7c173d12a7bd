//! A scripted HTTP/1.1 responder on 127.0.0.1 for the provider tests: it records every request
//! (method, path, lowercase headers, body, arrival time) and answers what the script says, late
//! or not at all when asked to.

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One request as received.
#[derive(Debug, Clone)]
pub(super) struct Captured {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    pub at: Instant,
}

impl Captured {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What to answer.
#[derive(Debug, Clone)]
pub(super) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub delay: Duration,
    pub drop: bool,
}

impl Reply {
    pub(super) fn json(status: u16, body: Value) -> Reply {
        Reply::raw(status, &body.to_string())
    }

    pub(super) fn raw(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: body.to_owned(),
            delay: Duration::ZERO,
            drop: false,
        }
    }

    /// Closes the connection without answering.
    pub(super) fn dropped() -> Reply {
        Reply {
            drop: true,
            ..Reply::raw(200, "")
        }
    }

    pub(super) fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub(super) fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

type Script = dyn Fn(usize, &Captured) -> Reply + Send + Sync;

/// A running responder. Its threads end with the test process.
pub(super) struct Server {
    pub base: String,
    log: Arc<Mutex<Vec<Captured>>>,
}

impl Server {
    /// Starts a responder; `script(n, request)` answers the n-th request (from 0).
    pub(super) fn start(
        script: impl Fn(usize, &Captured) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let log = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let count = Arc::new(AtomicUsize::new(0));
        let shared = Arc::clone(&log);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (log, script, count) =
                    (Arc::clone(&shared), Arc::clone(&script), Arc::clone(&count));
                std::thread::spawn(move || serve(stream, &log, &*script, &count));
            }
        });
        Server {
            base: format!("http://127.0.0.1:{port}"),
            log,
        }
    }

    /// Every request received so far, in arrival order.
    pub(super) fn requests(&self) -> Vec<Captured> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

fn serve(stream: TcpStream, log: &Mutex<Vec<Captured>>, script: &Script, count: &AtomicUsize) {
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(req) = read_request(&mut reader) {
        let n = count.fetch_add(1, Ordering::SeqCst);
        let reply = script(n, &req);
        if let Ok(mut l) = log.lock() {
            l.push(req);
        }
        std::thread::sleep(reply.delay);
        if reply.drop {
            let _ = out.shutdown(Shutdown::Both);
            return;
        }
        let mut head = format!("HTTP/1.1 {} X\r\n", reply.status);
        for (name, value) in &reply.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!(
            "content-type: application/json\r\ncontent-length: {}\r\n\r\n",
            reply.body.len()
        ));
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(reply.body.as_bytes());
        if out.write_all(&bytes).and_then(|_| out.flush()).is_err() {
            return;
        }
    }
}

fn read_request(r: &mut impl BufRead) -> Option<Captured> {
    let mut line = String::new();
    r.read_line(&mut line).ok().filter(|n| *n > 0)?;
    let at = Instant::now();
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok().filter(|n| *n > 0)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (name, value) = h.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some(Captured {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        at,
    })
}
