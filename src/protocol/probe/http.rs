//! A probe over streamable HTTP: one session of its own. Each message is one POST; the JSON
//! body or the events of the response stream are queued as the messages a stdio server would
//! have printed, and an HTTP error status is turned into the error response of the request it
//! refused (with the status in `httpStatus`), so the transport-neutral checks read both alike.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

use serde_json::{Value, json};
use ureq::Agent;

use super::{Line, Waited};
use crate::mcp::http::HttpSpec;

/// Most bytes a probe reads of one answer.
const BODY_LIMIT: u64 = 4 << 20;
/// Resumptions of one response stream the server closed before its response.
const MAX_RESUMES: usize = 3;
/// The longest `retry` a probe waits before resuming a stream.
const MAX_RETRY_WAIT_MS: u64 = 1000;
/// How long the DELETE that ends a probe's session may take.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);

/// One HTTP request of a check, beyond what every request carries.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ask<'a> {
    /// `POST`, `GET` or `DELETE`.
    pub method: &'a str,
    /// The body of a POST.
    pub body: Option<String>,
    /// Send the probe's session id (when it has one).
    pub session: bool,
    /// Send the negotiated `MCP-Protocol-Version` (when there is one).
    pub version: bool,
    /// Headers that replace the defaults of the same name (`accept`, `mcp-session-id`, ...).
    pub headers: Vec<(&'a str, String)>,
    /// Read the body (a GET's event stream is left unread).
    pub read_body: bool,
}

impl<'a> Ask<'a> {
    /// A POST of `body` on the probe's session.
    pub(crate) fn post(body: String) -> Ask<'a> {
        Ask {
            method: "POST",
            body: Some(body),
            session: true,
            version: true,
            headers: Vec::new(),
            read_body: true,
        }
    }

    /// The same request with header `name` set to `value`.
    pub(crate) fn with(mut self, name: &'a str, value: impl Into<String>) -> Ask<'a> {
        self.headers.push((name, value.into()));
        self
    }
}

/// What the server answered one request with.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The content type, lowercase (empty when none).
    pub content_type: String,
    /// The `Mcp-Session-Id` it set.
    pub session: Option<String>,
    /// The messages in the body (one JSON body, or the events of a stream).
    pub messages: Vec<Line>,
    /// The events of an event stream as sent, empty (priming) ones included, up to the first
    /// response.
    pub events: Vec<SseEvent>,
    /// The body as text when it was not an event stream (cut at 200 characters).
    pub text: String,
}

impl Reply {
    /// Status and content type, for a finding.
    pub(crate) fn shown(&self) -> String {
        let ct = if self.content_type.is_empty() {
            "no content type".to_owned()
        } else {
            self.content_type.clone()
        };
        if self.text.trim().is_empty() {
            format!("HTTP {} ({ct})", self.status)
        } else {
            format!("HTTP {} ({ct}): {}", self.status, self.text.trim())
        }
    }

    /// A 2xx status.
    pub(crate) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// A probe's own session on a streamable HTTP server.
pub(crate) struct HttpWire {
    agent: Agent,
    spec: HttpSpec,
    timeout: Duration,
    session: Option<String>,
    version: Option<String>,
    queue: VecDeque<Line>,
    /// What the last POST got, for a wait that found nothing queued.
    last: String,
    /// Each notification POSTed: its method and the reply.
    notified: Vec<(String, Reply)>,
}

impl HttpWire {
    pub(super) fn new(spec: &HttpSpec, timeout: Duration) -> HttpWire {
        HttpWire {
            agent: crate::net::agent_config(&spec.url)
                .max_redirects(0)
                .build()
                .into(),
            spec: spec.clone(),
            timeout,
            session: None,
            version: None,
            queue: VecDeque::new(),
            last: "nothing was sent".into(),
            notified: Vec::new(),
        }
    }

    /// The session id the server issued, if any.
    pub(crate) fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// Takes `sid` as the probe's session (ended with DELETE when the probe goes).
    pub(crate) fn adopt_session(&mut self, sid: String) {
        self.session = Some(sid);
    }

    /// Forgets the session (it has ended).
    pub(crate) fn forget_session(&mut self) {
        self.session = None;
    }

    /// The negotiated revision, sent as `MCP-Protocol-Version` from now on.
    pub(crate) fn set_version(&mut self, version: &str) {
        self.version = Some(version.to_owned());
    }

    /// The notifications POSTed so far and what each got.
    pub(crate) fn notified(&self) -> &[(String, Reply)] {
        &self.notified
    }

    /// POSTs one message and queues what comes back.
    pub(super) fn post_raw(&mut self, text: &str) {
        let sent: Option<Value> = serde_json::from_str(text).ok();
        let id = sent.as_ref().and_then(|v| v.get("id")).cloned();
        let method = sent
            .as_ref()
            .and_then(|v| v.get("method"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let reply = match self.exchange(&Ask::post(text.to_owned())) {
            Ok(r) => r,
            Err(e) => {
                self.last = e;
                return;
            }
        };
        if let Some(sid) = &reply.session {
            self.session = Some(sid.clone());
        }
        self.last = format!("the POST was answered with {}", reply.shown());
        if let (Some(m), None) = (&method, &id) {
            self.notified.push((m.clone(), reply.clone()));
        }
        if reply.ok() {
            self.queue_and_resume(reply, id.as_ref());
            return;
        }
        // An error status refuses the message: as the error response of the request it was.
        let mut refusal = match reply.messages.first() {
            Some(Line::Json(v @ Value::Object(_))) => v.clone(),
            _ => json!({"jsonrpc": "2.0", "error": {"message": reply.shown()}}),
        };
        // A refused notification is no answer (`notified` keeps it for the HTTP checks).
        if method.is_some() && id.is_none() {
            return;
        }
        if let Some(obj) = refusal.as_object_mut() {
            // The status answers this POST, whatever id (or none) its body names.
            if let Some(id) = id {
                obj.insert("id".into(), id);
            }
            obj.insert("httpStatus".into(), json!(reply.status));
        }
        self.queue.push_back(Line::Json(refusal));
    }

    /// Queues the messages of a successful reply. A server may close a response stream before
    /// the response to `id`, once it sent an event id: the probe resumes it with a GET and that
    /// id as `Last-Event-ID`, after the `retry` the server asked for (capped), as a client does.
    fn queue_and_resume(&mut self, mut reply: Reply, id: Option<&Value>) {
        let answers = |line: &Line| match (line, id) {
            (_, None) | (Line::Json(Value::Array(_)), _) => true,
            (Line::Json(v), Some(id)) => v.get("method").is_none() && v.get("id") == Some(id),
            (Line::Text(_), _) => false,
        };
        self.queue.extend(std::mem::take(&mut reply.messages));
        let mut resumed = 0;
        while resumed < MAX_RESUMES && !self.queue.iter().any(answers) {
            let Some(last) = reply.events.iter().rev().find_map(|e| e.id.clone()) else {
                break;
            };
            resumed += 1;
            let retry = reply.events.iter().rev().find_map(|e| e.retry.as_deref());
            if let Some(ms) = retry.and_then(|r| r.trim().parse::<u64>().ok()) {
                std::thread::sleep(Duration::from_millis(ms.min(MAX_RETRY_WAIT_MS)));
            }
            let ask = Ask {
                method: "GET",
                body: None,
                ..Ask::post(String::new())
            }
            .with("last-event-id", last);
            match self.exchange(&ask) {
                Ok(r) if r.ok() && r.content_type.starts_with("text/event-stream") => {
                    reply = r;
                    self.queue.extend(std::mem::take(&mut reply.messages));
                }
                Ok(r) => {
                    self.last = format!(
                        "the stream closed before its response, and the GET resuming it was \
                         answered with {}",
                        r.shown()
                    );
                    break;
                }
                Err(e) => {
                    self.last = e;
                    break;
                }
            }
        }
    }

    /// Whether a queued message is a response (or a batch of them).
    fn response(line: &Line) -> bool {
        match line {
            Line::Json(Value::Array(_)) => true,
            Line::Json(v) => v.get("method").is_none() && v.get("id").is_some(),
            Line::Text(_) => false,
        }
    }

    /// The next queued message; nothing more can come once the queue is empty.
    pub(super) fn next(&mut self) -> Result<Line, Waited> {
        self.queue
            .pop_front()
            .ok_or_else(|| Waited::Http(format!("no response: {}", self.last)))
    }

    /// Sends a request with the probe's timeout.
    fn run<S: ureq::AsSendBody>(
        &self,
        request: ureq::http::Request<S>,
    ) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        let request = self
            .agent
            .configure_request(request)
            .timeout_global(Some(self.timeout))
            .build();
        self.agent.run(request)
    }

    /// One request with the probe's headers (as `ask` says) and the user's.
    pub(crate) fn exchange(&self, ask: &Ask<'_>) -> Result<Reply, String> {
        let mut headers: Vec<(String, String)> = vec![
            ("accept".into(), accept_of(ask.method).into()),
            ("content-type".into(), "application/json".into()),
        ];
        if let (true, Some(s)) = (ask.session, &self.session) {
            headers.push(("mcp-session-id".into(), s.clone()));
        }
        if let (true, Some(v)) = (ask.version, &self.version) {
            headers.push(("mcp-protocol-version".into(), v.clone()));
        }
        for (name, value) in &ask.headers {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            headers.push(((*name).to_owned(), value.clone()));
        }
        let uri = &self.spec.url;
        let builder = ureq::http::Request::builder().method(ask.method).uri(uri);
        let builder = self
            .spec
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .chain(headers)
            .fold(builder, |b, (k, v)| b.header(k, v));
        let sent = match &ask.body {
            Some(body) => builder.body(body.clone()).map(|r| self.run(r)),
            None => builder.body(()).map(|r| self.run(r)),
        };
        let mut resp = sent
            .map_err(|e| format!("the request could not be built: {e}"))?
            .map_err(|e| format!("{} {uri} failed: {e}", ask.method))?;
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let content_type = header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let session = header("mcp-session-id");
        let status = resp.status().as_u16();
        let mut reply = Reply {
            status,
            content_type,
            session,
            messages: Vec::new(),
            events: Vec::new(),
            text: String::new(),
        };
        if !ask.read_body {
            return Ok(reply);
        }
        let body = resp.body_mut().as_reader().take(BODY_LIMIT);
        if reply.content_type.starts_with("text/event-stream") {
            reply.events = read_events(body);
            reply.messages = reply.events.iter().filter_map(SseEvent::message).collect();
        } else {
            let mut raw = String::new();
            let _ = BufReader::new(body).read_to_string(&mut raw);
            let trimmed = raw.trim();
            if !trimmed.is_empty() {
                reply.messages.push(
                    serde_json::from_str(trimmed)
                        .map_or_else(|_| Line::Text(trimmed.to_owned()), Line::Json),
                );
            }
            reply.text = cut(trimmed, 200);
        }
        Ok(reply)
    }
}

impl Drop for HttpWire {
    fn drop(&mut self) {
        let Some(session) = self.session.take() else {
            return;
        };
        let mut request = ureq::http::Request::builder()
            .method("DELETE")
            .uri(&self.spec.url)
            .header("mcp-session-id", session);
        if let Some(v) = &self.version {
            request = request.header("mcp-protocol-version", v);
        }
        for (k, v) in &self.spec.headers {
            request = request.header(k, v);
        }
        if let Ok(request) = request.body(()) {
            let request = self
                .agent
                .configure_request(request)
                .timeout_global(Some(DELETE_TIMEOUT))
                .build();
            let _ = self.agent.run(request);
        }
    }
}

/// What a request of `method` accepts.
fn accept_of(method: &str) -> &'static str {
    if method == "GET" {
        "text/event-stream"
    } else {
        "application/json, text/event-stream"
    }
}

/// One event of a stream, its fields as the server sent them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `id` field.
    pub id: Option<String>,
    /// The `data` lines joined with `\n` (`None`: no `data` field).
    pub data: Option<String>,
    /// The `retry` field, as written.
    pub retry: Option<String>,
}

impl SseEvent {
    /// The message the event carries; none for an event with empty data (a priming event).
    fn message(&self) -> Option<Line> {
        let data = self.data.as_deref().filter(|d| !d.trim().is_empty())?;
        Some(serde_json::from_str(data).map_or_else(|_| Line::Text(data.to_owned()), Line::Json))
    }

    /// Whether it carries a response (or a batch of them).
    pub(crate) fn response(&self) -> bool {
        self.message().is_some_and(|m| HttpWire::response(&m))
    }

    /// Whether it primes a reconnection: an event id and empty data.
    pub(crate) fn priming(&self) -> bool {
        self.id.as_deref().is_some_and(|id| !id.is_empty())
            && self.data.as_deref().is_none_or(|d| d.trim().is_empty())
    }

    /// The event as a finding shows it, cut at 120 characters.
    pub(crate) fn shown(&self) -> String {
        let mut fields = Vec::new();
        if let Some(id) = &self.id {
            fields.push(format!("id: {id}"));
        }
        if let Some(retry) = &self.retry {
            fields.push(format!("retry: {retry}"));
        }
        fields.push(format!("data: {}", self.data.as_deref().unwrap_or("")));
        cut(&fields.join(", "), 120)
    }
}

/// The events of a stream, up to and with the first response (the stream of a POST may stay
/// open after it), with the fields the WHATWG rules give them; comments are skipped.
fn read_events(body: impl Read) -> Vec<SseEvent> {
    let mut out = Vec::new();
    let mut event: Option<SseEvent> = None;
    for line in BufReader::new(body).lines() {
        let Ok(line) = line else { break };
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            if let Some(done) = event.take() {
                let response = done.message().is_some_and(|m| HttpWire::response(&m));
                out.push(done);
                if response {
                    break;
                }
            }
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        let e = event.get_or_insert_with(SseEvent::default);
        match field {
            "id" => e.id = Some(value.to_owned()),
            "retry" => e.retry = Some(value.to_owned()),
            "data" => match e.data.as_mut() {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => e.data = Some(value.to_owned()),
            },
            _ => {}
        }
    }
    // A stream that ends without the blank line after its last event still sent it.
    out.extend(event);
    out
}

/// `text` cut at `n` characters.
fn cut(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_keep_their_fields_priming_ones_included_up_to_the_response() {
        let body = "id: 7-1\nretry: 500\ndata:\n\n: keep-alive\n\n\
                    event: message\nid: 7-2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\n\
                    data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":1,\"result\":{}}\n\n\
                    data: after the response\n\n";
        let events = read_events(body.as_bytes());
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(events[0].priming());
        assert_eq!(events[0].retry.as_deref(), Some("500"));
        assert!(!events[1].priming());
        assert_eq!(events[2].id, None);
        let messages: Vec<Line> = events.iter().filter_map(SseEvent::message).collect();
        assert_eq!(messages.len(), 2);
        assert!(matches!(&messages[1], Line::Json(v) if v["id"] == 1));
        assert_eq!(events[0].shown(), "id: 7-1, retry: 500, data: ");
    }

    #[test]
    fn an_event_with_data_or_without_an_id_does_not_prime() {
        let events = read_events("data: {}\n\nid:\ndata:\n\n".as_bytes());
        assert!(events.iter().all(|e| !e.priming()), "{events:?}");
        // A stream cut before the blank line after its last event still sent that event.
        let events = read_events("id: 1\ndata:".as_bytes());
        assert!(events[0].priming());
    }
}
