//! The 2024-11-05 HTTP+SSE transport: a GET opens the event stream, whose first event
//! (`endpoint`) names where to POST messages (a URL relative to the stream's); responses and
//! server requests arrive on the stream as `message` events. A reader thread owns the stream
//! and hands each response to the request waiting for its id, so clones of the transport can
//! have requests in flight side by side.

use std::collections::HashMap;
use std::io::BufReader;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::Agent;

use super::{Answer, HttpTransport, error_body, header, http_detail};
use crate::mcp::error::McpError;
use crate::mcp::protocol;
use crate::mcp::requests::Responder;
use crate::mcp::sse::SseEvents;
use crate::pycompat::bigint;

/// The open event stream of a 2024-11-05 server.
#[derive(Debug)]
pub(super) struct LegacyStream {
    /// Where to POST messages (absolute).
    endpoint: String,
    /// Who waits for the response with each id.
    waiters: Mutex<HashMap<String, Sender<Value>>>,
    /// Why the stream ended, once it has.
    ended: Mutex<Option<String>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the reader thread sends back before it settles into dispatching.
type Opened = Result<Arc<LegacyStream>, McpError>;

impl HttpTransport {
    /// GETs the SSE endpoint and waits (up to `timeout`) for its `endpoint` event; from then
    /// on every message is POSTed there.
    pub(crate) fn open_legacy(&mut self, timeout: Duration) -> Result<(), McpError> {
        let started = Instant::now();
        let req = self
            .agent
            .get(&self.spec.url)
            .config()
            .timeout_recv_response(Some(timeout))
            .build()
            .header("accept", "text/event-stream");
        let req = self
            .spec
            .headers
            .iter()
            .fold(req, |r, (k, v)| r.header(k.as_str(), v.as_str()));
        let mut resp = req
            .call()
            .map_err(|e| self.transport_error(e, "GET (HTTP+SSE)", timeout))?;
        let status = resp.status().as_u16();
        let content_type = header(&resp, "content-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        if status != 200 || !content_type.starts_with("text/event-stream") {
            let text = error_body(&mut resp);
            let (detail, _) = http_detail(status, &content_type, &text, false);
            return Err(McpError::Http {
                status,
                url: self.spec.url.clone(),
                detail: format!("no HTTP+SSE event stream here: {detail}"),
                hint: Some("check the URL: an HTTP+SSE server's stream is often at /sse".into()),
            });
        }
        let (tx, rx) = mpsc::channel::<Opened>();
        let reader = Reader {
            agent: self.agent.clone(),
            url: self.spec.url.clone(),
            headers: self.spec.headers.clone(),
            responder: self.responder.clone(),
        };
        let body = resp.into_body();
        std::thread::spawn(move || reader.run(body, &tx));
        let left = timeout.saturating_sub(started.elapsed());
        match rx.recv_timeout(left) {
            Ok(Ok(stream)) => {
                self.legacy = Some(stream);
                Ok(())
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err(McpError::Protocol(format!(
                "the HTTP+SSE stream of {} sent no `endpoint` event within {timeout:?}",
                self.spec.url
            ))),
        }
    }

    /// POSTs `msg` to the endpoint and waits on the stream for the response to `want`.
    pub(super) fn post_legacy(
        &self,
        stream: &LegacyStream,
        msg: &Value,
        want: Option<&Value>,
        timeout: Duration,
    ) -> Result<Answer, McpError> {
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let started = Instant::now();
        let waiting = match want {
            Some(id) => {
                if let Some(why) = lock(&stream.ended).clone() {
                    return Err(closed(&self.spec.url, method, &why));
                }
                let (tx, rx) = mpsc::channel();
                lock(&stream.waiters).insert(id.to_string(), tx);
                Some((id.to_string(), rx))
            }
            None => None,
        };
        let forget = || {
            if let Some((id, _)) = &waiting {
                lock(&stream.waiters).remove(id);
            }
        };
        if let Err(e) = post_message(
            &self.agent,
            &self.spec.headers,
            &stream.endpoint,
            msg,
            timeout,
        )
        .map_err(|e| match e {
            PostError::Transport(e) => self.transport_error(e, method, timeout),
            PostError::Status(status, detail) => McpError::Http {
                status,
                url: stream.endpoint.clone(),
                detail,
                hint: None,
            },
        }) {
            forget();
            return Err(e);
        }
        let Some((_, rx)) = &waiting else {
            return Ok(Answer::Accepted);
        };
        match rx.recv_timeout(timeout.saturating_sub(started.elapsed())) {
            Ok(v) => Ok(Answer::Response(v)),
            Err(RecvTimeoutError::Timeout) => {
                forget();
                Err(McpError::Timeout {
                    method: method.to_owned(),
                    after: timeout,
                })
            }
            Err(RecvTimeoutError::Disconnected) => {
                let why = lock(&stream.ended).clone().unwrap_or_default();
                Err(closed(&self.spec.url, method, &why))
            }
        }
    }
}

fn closed(url: &str, method: &str, why: &str) -> McpError {
    McpError::Protocol(format!(
        "the HTTP+SSE stream of {url} ended before the response to `{method}` ({why})"
    ))
}

/// Why a POST of a message failed.
enum PostError {
    Transport(ureq::Error),
    Status(u16, String),
}

/// POSTs one message to the endpoint; any 2xx is accepted (the answer comes on the stream).
fn post_message(
    agent: &Agent,
    headers: &[(String, String)],
    endpoint: &str,
    msg: &Value,
    timeout: Duration,
) -> Result<(), PostError> {
    let body = bigint::to_vec(msg).unwrap_or_default();
    let req = agent
        .post(endpoint)
        .config()
        .timeout_global(Some(timeout))
        .build()
        .header("content-type", "application/json");
    let req = headers
        .iter()
        .fold(req, |r, (k, v)| r.header(k.as_str(), v.as_str()));
    let mut resp = req.send(&body[..]).map_err(PostError::Transport)?;
    let status = resp.status().as_u16();
    let content_type = header(&resp, "content-type")
        .unwrap_or("")
        .to_ascii_lowercase();
    let text = error_body(&mut resp);
    if (200..300).contains(&status) {
        return Ok(());
    }
    Err(PostError::Status(
        status,
        http_detail(status, &content_type, &text, false).0,
    ))
}

/// The thread that reads the stream.
struct Reader {
    agent: Agent,
    url: String,
    headers: Vec<(String, String)>,
    /// Answers the server's requests from the current test's script, and records them (shared
    /// with the client, as on the other transports).
    responder: Responder,
}

impl Reader {
    fn run(self, body: ureq::Body, opened: &Sender<Opened>) {
        let mut events = SseEvents::new(BufReader::new(body.into_reader()));
        let mut stream: Option<Arc<LegacyStream>> = None;
        let why = loop {
            let event = match events.next_event() {
                None => break "the server closed it".to_owned(),
                Some(Err(e)) => break format!("reading it failed: {e:?}"),
                Some(Ok(event)) => event,
            };
            match (&stream, event.name.as_str()) {
                (None, "endpoint") => {
                    let s = Arc::new(LegacyStream {
                        endpoint: resolve(&self.url, event.data.trim()),
                        waiters: Mutex::new(HashMap::new()),
                        ended: Mutex::new(None),
                    });
                    let _ = opened.send(Ok(Arc::clone(&s)));
                    stream = Some(s);
                }
                (Some(s), "message") => self.dispatch(s, &event.data),
                _ => {}
            }
        };
        match stream {
            Some(s) => {
                *lock(&s.ended) = Some(why);
                lock(&s.waiters).clear();
            }
            None => {
                let _ = opened.send(Err(McpError::Protocol(format!(
                    "the HTTP+SSE stream of {} ended before its `endpoint` event: {why}",
                    self.url
                ))));
            }
        }
    }

    /// A message on the stream: a response goes to its waiter, a server request is answered
    /// (as the current test scripts it) with a POST to the endpoint, anything else
    /// (notifications, late responses) is dropped.
    fn dispatch(&self, stream: &LegacyStream, data: &str) {
        let Ok(v) = protocol::parse_message(data) else {
            return;
        };
        match (v.get("id"), v.get("method").and_then(Value::as_str)) {
            (Some(_), Some(_)) => {
                let reply = self.responder.answer(&v);
                let timeout = Duration::from_secs(30);
                let _ = post_message(
                    &self.agent,
                    &self.headers,
                    &stream.endpoint,
                    &reply,
                    timeout,
                );
            }
            (Some(id), None) => {
                if let Some(tx) = lock(&stream.waiters).remove(&id.to_string()) {
                    let _ = tx.send(v);
                }
            }
            _ => {}
        }
    }
}

/// `reference` resolved against `base` (RFC 3986, for the forms servers send: absolute,
/// `//host/path`, `/path?query` and `path?query`).
fn resolve(base: &str, reference: &str) -> String {
    if reference.starts_with("http://") || reference.starts_with("https://") {
        return reference.to_owned();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    if let Some(net) = reference.strip_prefix("//") {
        return format!("{scheme}://{net}");
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..authority_end]);
    if reference.starts_with('/') {
        return format!("{origin}{reference}");
    }
    let path = rest[authority_end..].split(['?', '#']).next().unwrap_or("");
    let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
    if reference.starts_with('?') {
        return format!("{origin}{path}{reference}");
    }
    format!("{origin}{dir}{reference}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_resolve_against_the_stream_url() {
        let base = "http://127.0.0.1:3001/sse?x=1";
        assert_eq!(
            resolve(base, "/messages?sessionId=a"),
            "http://127.0.0.1:3001/messages?sessionId=a"
        );
        assert_eq!(
            resolve("http://h:1/api/sse", "messages?s=1"),
            "http://h:1/api/messages?s=1"
        );
        assert_eq!(resolve("https://h/sse", "//other/m"), "https://other/m");
        assert_eq!(resolve(base, "http://x/m"), "http://x/m");
        assert_eq!(resolve("http://h:1", "m"), "http://h:1/m");
    }
}
