//! Streamable HTTP transport over blocking ureq: one POST per message, JSON or SSE answers,
//! `Mcp-Session-Id` for legacy sessions, the per-request headers of 2026-07-28, and a DELETE of
//! the session at the end.

use std::io::BufReader;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::Agent;

use super::error::{McpError, shorten};
use super::protocol::{self, MESSAGE_LIMIT};
use super::requests::Responder;
use super::sse::{SseError, SseEvents};
use super::types::Era;
use crate::config::TransportPref;
use crate::interrupt::Interrupt;
use crate::pycompat::bigint;

mod errors;
mod legacy;
mod listen;
mod resume;

use resume::Resume;

/// Most bytes read from one response body (one JSON-RPC message).
const BODY_LIMIT: u64 = MESSAGE_LIMIT as u64;
/// Most bytes read from the body of an error status: enough for any error message.
const ERROR_BODY_LIMIT: u64 = 1 << 20;

/// How to reach an HTTP server.
#[derive(Debug, Clone)]
pub struct HttpSpec {
    /// Endpoint URL.
    pub url: String,
    /// Extra headers sent with every request.
    pub headers: Vec<(String, String)>,
    /// Streamable HTTP, the 2024-11-05 HTTP+SSE transport, or detected.
    pub transport: TransportPref,
}

/// A streamable HTTP connection. Cloning it shares the connection pool and copies the session,
/// so a request can run on another thread.
#[derive(Debug, Clone)]
pub(crate) struct HttpTransport {
    agent: Agent,
    spec: HttpSpec,
    session: Option<String>,
    protocol: Option<String>,
    era: Era,
    /// Answers the server's requests on response streams.
    responder: Responder,
    /// The event stream of the 2024-11-05 HTTP+SSE transport, once opened.
    legacy: Option<std::sync::Arc<legacy::LegacyStream>>,
    /// The reader of the session's GET stream, once started.
    listener: Option<std::sync::Arc<listen::Listener>>,
    /// Ends the waits between reconnections of a response stream (set for a request made
    /// with [`HttpTransport::post_interruptible`]).
    interrupt: Interrupt,
}

/// What a POST gave back.
pub(crate) enum Answer {
    /// The JSON-RPC response to our request.
    Response(Value),
    /// Accepted without a body (notifications, responses).
    Accepted,
}

impl HttpTransport {
    /// Prepares a connection (nothing is sent yet).
    pub(crate) fn new(spec: HttpSpec) -> Self {
        HttpTransport {
            // A redirected POST cannot be followed (ureq resends it as a GET without its
            // body, or gives up on a 307): a 3xx is reported with where it leads instead.
            agent: crate::net::agent_config(&spec.url)
                .max_redirects(0)
                .build()
                .into(),
            spec,
            session: None,
            protocol: None,
            era: Era::Legacy,
            responder: Responder::default(),
            legacy: None,
            listener: None,
            interrupt: Interrupt::new(),
        }
    }

    /// From now on, answers the server's requests with `responder`.
    pub(crate) fn answer_with(&mut self, responder: Responder) {
        self.responder = responder;
    }

    /// The transport preference of the spec.
    pub(crate) fn transport(&self) -> TransportPref {
        self.spec.transport
    }

    /// `sse` for the 2024-11-05 HTTP+SSE transport, else `http`.
    pub(crate) fn name(&self) -> &'static str {
        if self.legacy.is_some() { "sse" } else { "http" }
    }

    /// Sets the negotiated revision (sent as `MCP-Protocol-Version`) and era.
    pub(crate) fn set_protocol(&mut self, version: &str, era: Era) {
        self.protocol = Some(version.to_owned());
        self.era = era;
    }

    /// Stops sending `MCP-Protocol-Version` (before a legacy `initialize`).
    pub(crate) fn set_protocol_none(&mut self) {
        self.protocol = None;
        self.era = Era::Legacy;
    }

    /// Forgets the legacy session (after a failed probe, or to start over).
    pub(crate) fn reset_session(&mut self) {
        self.session = None;
        self.legacy = None;
        self.stop_listening();
    }

    /// POSTs one message and returns the response with id `want`, if any is awaited.
    pub(crate) fn post(
        &mut self,
        msg: &Value,
        want: Option<&Value>,
        timeout: Duration,
    ) -> Result<Answer, McpError> {
        if let Some(stream) = &self.legacy {
            return self.post_legacy(stream, msg, want, timeout);
        }
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let req = self.post_request(msg, method, timeout);
        let body = bigint::to_vec(msg).map_err(|e| McpError::Io(e.to_string()))?;
        let resp = req
            .send(&body[..])
            .map_err(|e| self.transport_error(e, method, timeout))?;
        let status = resp.status().as_u16();
        if let Some(sid) = header(&resp, "mcp-session-id") {
            self.session = Some(sid.to_owned());
        }
        let content_type = header(&resp, "content-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        if !(200..300).contains(&status) {
            return self.error_status(resp, status, &content_type, want);
        }
        let Some(want) = want else {
            return Ok(Answer::Accepted);
        };
        if status == 202 {
            return Err(McpError::Protocol(format!(
                "server answered `{method}` with 202 Accepted and no response"
            )));
        }
        if content_type.starts_with("text/event-stream") {
            return self.read_events(resp, want, method, timeout);
        }
        self.read_json(resp, status, &content_type, want, method, timeout)
    }

    /// [`HttpTransport::post`] on a helper thread, waited for until it answers or `interrupt`
    /// fires; then the request is left behind and [`McpError::Interrupted`] returned. The
    /// session the answer carries is kept.
    pub(crate) fn post_interruptible(
        &mut self,
        msg: &Value,
        want: Option<&Value>,
        timeout: Duration,
        interrupt: &Interrupt,
    ) -> Result<Answer, McpError> {
        let method = msg
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let mut worker = self.clone();
        worker.interrupt = interrupt.clone();
        let (msg, want) = (msg.clone(), want.cloned());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let answer = worker.post(&msg, want.as_ref(), timeout);
            let _ = tx.send((answer, worker.session));
        });
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok((answer, session)) => {
                    self.session = session;
                    return answer;
                }
                Err(RecvTimeoutError::Timeout) if interrupt.is_set() => {
                    return Err(McpError::Interrupted { method });
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(McpError::Io(format!(
                        "the request `{method}` ended without an answer"
                    )));
                }
            }
        }
    }

    /// A POST with our headers: session, revision, and for a stateless request `Mcp-Method`
    /// and `Mcp-Name`.
    fn post_request(
        &self,
        msg: &Value,
        method: &str,
        timeout: Duration,
    ) -> ureq::RequestBuilder<ureq::typestate::WithBody> {
        let mut req = self
            .agent
            .post(&self.spec.url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json");
        req = self.session_headers(req, self.session.as_deref());
        if self.era == Era::Modern && !method.is_empty() {
            req = req.header("mcp-method", method);
            let params = msg.get("params");
            let name = params
                .and_then(|p| p.get("name").or_else(|| p.get("uri")))
                .and_then(Value::as_str);
            if let (Some(name), true) = (
                name,
                matches!(method, "tools/call" | "resources/read" | "prompts/get"),
            ) {
                req = req.header("mcp-name", name);
            }
        }
        req
    }

    /// A non-2xx answer: the JSON-RPC error in its body when it answers `want` (how a modern
    /// server fails a request), else an [`McpError::Http`]. A refused authorisation (401, 403)
    /// is always an [`McpError::Http`], whatever its body: it is no answer of the server's.
    fn error_status(
        &self,
        mut resp: ureq::http::Response<ureq::Body>,
        status: u16,
        content_type: &str,
        want: Option<&Value>,
    ) -> Result<Answer, McpError> {
        if (300..400).contains(&status) {
            let location = header(&resp, "location");
            return Err(McpError::Http {
                status,
                url: self.spec.url.clone(),
                detail: crate::net::redirect_words(&self.spec.url, location),
                hint: Some(
                    "toolproof follows no redirect of a JSON-RPC request: set `server.url` to the address the server answers at".to_owned(),
                ),
            });
        }
        let text = error_body(&mut resp);
        if let Some(want) = want
            && !matches!(status, 401 | 403)
            && let Ok(v) = serde_json::from_str::<Value>(&text)
            && v.get("id") == Some(want)
            && v.get("error").is_some()
        {
            return Ok(Answer::Response(v));
        }
        let (detail, hint) = http_detail(status, content_type, &text, self.session.is_some());
        Err(McpError::Http {
            status,
            url: self.spec.url.clone(),
            detail,
            hint: hint.map(str::to_owned),
        })
    }

    /// Reads an SSE answer until the response to `want`, answering the server's requests on
    /// the stream. A stream that ends first is resumed (2025-11-25): after the server's `retry`
    /// interval, a GET with `Last-Event-ID` continues it, up to [`MAX_IDLE_RESUMES`] times in a
    /// row without a new event, within the request's `timeout`.
    fn read_events(
        &mut self,
        resp: ureq::http::Response<ureq::Body>,
        want: &Value,
        method: &str,
        timeout: Duration,
    ) -> Result<Answer, McpError> {
        let deadline = Instant::now() + timeout;
        let mut resume = Resume::default();
        let mut resp = resp;
        loop {
            if let Some(answer) = self.read_stream(resp, want, method, timeout, &mut resume)? {
                return Ok(answer);
            }
            resp = self.resume(method, &mut resume, deadline, timeout)?;
        }
    }

    /// Reads one event stream: `Some` with the response, `None` when the stream ended (or
    /// broke off, when it can be resumed) before it.
    fn read_stream(
        &mut self,
        resp: ureq::http::Response<ureq::Body>,
        want: &Value,
        method: &str,
        timeout: Duration,
        resume: &mut Resume,
    ) -> Result<Option<Answer>, McpError> {
        let mut events = SseEvents::new(BufReader::new(resp.into_body().into_reader()));
        loop {
            let event = events.next_event();
            resume.note(events.last_event_id(), events.retry());
            let data = match event {
                None => return Ok(None),
                Some(Ok(event)) => event.data,
                Some(Err(SseError::Io(e))) => match self.read_error(e, method, timeout) {
                    // A connection that breaks off is resumed like one that ends.
                    McpError::Connect { .. } if resume.last_id.is_some() => return Ok(None),
                    e => return Err(e),
                },
                Some(Err(SseError::TooLarge(start))) => {
                    return Err(McpError::Unreadable {
                        method: method.to_owned(),
                        reason: format!(
                            "it is an SSE event over the {} MiB limit for one message",
                            MESSAGE_LIMIT >> 20
                        ),
                        start,
                    });
                }
            };
            if let Some(answer) = self.on_message(&data, want, method, timeout)? {
                return Ok(Some(answer));
            }
        }
    }

    /// One message on a response stream: the response to `want`, or `None` after answering a
    /// server request or reading a notification.
    fn on_message(
        &mut self,
        data: &str,
        want: &Value,
        method: &str,
        timeout: Duration,
    ) -> Result<Option<Answer>, McpError> {
        let v = protocol::parse_message(data).map_err(|reason| McpError::Unreadable {
            method: method.to_owned(),
            reason,
            start: shorten(data, 80),
        })?;
        match (v.get("id"), v.get("method").and_then(Value::as_str)) {
            (Some(_), Some(_)) => {
                let reply = self.responder.answer(&v);
                self.post(&reply, None, timeout)?;
                Ok(None)
            }
            (Some(id), None) if id == want => Ok(Some(Answer::Response(v))),
            (Some(id), None) => Err(McpError::stray(method, want, id)),
            // Notifications.
            (None, _) => Ok(None),
        }
    }

    /// Reads a JSON answer and picks the response to `want` (out of a batch, as 2025-03-26
    /// allowed).
    fn read_json(
        &self,
        mut resp: ureq::http::Response<ureq::Body>,
        status: u16,
        content_type: &str,
        want: &Value,
        method: &str,
        timeout: Duration,
    ) -> Result<Answer, McpError> {
        let text = resp
            .body_mut()
            .with_config()
            .limit(BODY_LIMIT)
            .read_to_string()
            .map_err(|e| self.transport_error(e, method, timeout))?;
        if !content_type.starts_with("application/json") {
            return Err(McpError::Http {
                status,
                url: self.spec.url.clone(),
                detail: format!(
                    "expected application/json or text/event-stream, got {}",
                    if content_type.starts_with("text/html") {
                        format!("an HTML page ({})", shorten(&strip_tags(&text), 160))
                    } else if content_type.is_empty() {
                        format!("no content type: {}", shorten(&text, 200))
                    } else {
                        format!("`{content_type}`: {}", shorten(&text, 200))
                    }
                ),
                hint: None,
            });
        }
        let v = protocol::parse_message(&text).map_err(|reason| McpError::Unreadable {
            method: method.to_owned(),
            reason,
            start: shorten(&text, 80),
        })?;
        let found = match v {
            Value::Array(items) => items.into_iter().find(|m| m.get("id") == Some(want)),
            v => match v.get("id") {
                Some(id) if id == want => Some(v),
                Some(id) if v.get("method").is_none() => {
                    return Err(McpError::stray(method, want, id));
                }
                _ => None,
            },
        };
        found.map(Answer::Response).ok_or_else(|| {
            McpError::Protocol(format!("server answered `{method}` without our request id"))
        })
    }

    /// Ends a legacy session with DELETE, when there is one.
    pub(crate) fn close(&mut self) {
        // An HTTP+SSE session ends when its stream is dropped.
        self.legacy = None;
        self.stop_listening();
        let Some(sid) = self.session.take() else {
            return;
        };
        let req = self
            .agent
            .delete(&self.spec.url)
            .config()
            .timeout_global(Some(Duration::from_secs(5)))
            .build();
        let req = self.session_headers(req, Some(&sid));
        // 405 (not allowed) and errors are fine: the session ends with us either way.
        let _ = req.call();
    }

    fn stop_listening(&mut self) {
        if let Some(listener) = self.listener.take() {
            listener.stop();
        }
    }

    /// The YAML's headers, the negotiated revision and the session, on any request.
    fn session_headers<B>(
        &self,
        mut req: ureq::RequestBuilder<B>,
        session: Option<&str>,
    ) -> ureq::RequestBuilder<B> {
        for (k, v) in &self.spec.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        if let Some(v) = &self.protocol {
            req = req.header("mcp-protocol-version", v.as_str());
        }
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        req
    }
}

/// The body of an error status as text, for the message that reports it: at most
/// [`ERROR_BODY_LIMIT`] bytes, and empty when it cannot be read or is longer.
fn error_body(resp: &mut ureq::http::Response<ureq::Body>) -> String {
    resp.body_mut()
        .with_config()
        .limit(ERROR_BODY_LIMIT)
        .read_to_string()
        .unwrap_or_default()
}

/// A header's value, when it is text.
fn header<'r>(resp: &'r ureq::http::Response<ureq::Body>, name: &str) -> Option<&'r str> {
    resp.headers().get(name).and_then(|v| v.to_str().ok())
}

/// What an error status's body says (with why, for a status that has a known cause), and what
/// to check when the status points at a fix.
fn http_detail(
    status: u16,
    content_type: &str,
    body: &str,
    had_session: bool,
) -> (String, Option<&'static str>) {
    let mut detail = if content_type.starts_with("text/html") {
        format!("an HTML page ({})", shorten(&strip_tags(body), 160))
    } else if body.trim().is_empty() {
        "empty body".to_owned()
    } else {
        shorten(body, 300)
    };
    let hint = match status {
        401 | 403 => Some("check `headers:` in the config, e.g. Authorization"),
        404 if had_session => {
            detail.push_str(" (the session expired)");
            None
        }
        404 => Some("check the URL path, often /mcp"),
        406 => {
            detail.push_str(" (the server rejected our Accept header)");
            None
        }
        _ => None,
    };
    (detail, hint)
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(body: Vec<u8>) -> ureq::http::Response<ureq::Body> {
        ureq::http::Response::new(ureq::Body::builder().data(body))
    }

    #[test]
    fn an_error_body_is_read_up_to_its_limit() {
        assert_eq!(
            error_body(&mut response(b"no such tool".to_vec())),
            "no such tool"
        );
        let limit = usize::try_from(ERROR_BODY_LIMIT).unwrap();
        let at = error_body(&mut response(vec![b'x'; limit]));
        assert_eq!(at.len(), limit);
        assert_eq!(error_body(&mut response(vec![b'x'; limit + 1])), "");
        assert_eq!(error_body(&mut response(vec![0xff, 0xfe])), "");
    }

    #[test]
    fn html_bodies_are_summarised() {
        let d = http_detail(
            500,
            "text/html",
            "<html><body><h1>Oops</h1></body></html>",
            false,
        );
        assert_eq!(d, ("an HTML page (Oops)".to_owned(), None));
    }

    #[test]
    fn fixable_statuses_carry_a_hint_shown_in_parentheses() {
        let (detail, hint) = http_detail(401, "application/json", "{}", false);
        assert_eq!(
            hint,
            Some("check `headers:` in the config, e.g. Authorization")
        );
        let (expired, none) = http_detail(404, "", "", true);
        assert_eq!(
            (expired.as_str(), none),
            ("empty body (the session expired)", None)
        );
        let error = McpError::Http {
            status: 401,
            url: "http://h/mcp".into(),
            detail,
            hint: hint.map(str::to_owned),
        };
        assert_eq!(
            error.to_string(),
            "HTTP 401 from http://h/mcp: {} (check `headers:` in the config, e.g. Authorization)"
        );
    }
}
