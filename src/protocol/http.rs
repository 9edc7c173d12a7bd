//! The checks of the streamable HTTP transport itself: sessions, the `MCP-Protocol-Version`
//! header, content negotiation, notifications, the GET stream, the priming event and `retry`
//! of a response stream, and `Origin` validation. Each
//! sends one request of its own beside the shared session (or on a fresh session when it ends
//! or spoils one) and reads the status the specification asks for.

use serde_json::json;

use super::Verdict;
use super::conformance::Session;
use super::probe::{Ask, PROBE_VERSION, Probe, Reply, SseEvent, init_params};

/// A revision no server supports, sent as `MCP-Protocol-Version`.
const BOGUS_VERSION: &str = "1999-01-01";
/// A session id no server issued.
const UNKNOWN_SESSION: &str = "toolproof-never-issued-session";
/// An origin a DNS-rebinding page would send.
const FOREIGN_ORIGIN: &str = "http://dns-rebinding.toolproof.invalid";

/// A `ping` request body with a fresh id.
fn ping(probe: &mut Probe) -> String {
    json!({"jsonrpc": "2.0", "id": probe.id(), "method": "ping"}).to_string()
}

/// One exchange on the shared session's probe.
fn shared(
    s: &mut Session<'_>,
    make: impl FnOnce(&mut Probe) -> Ask<'static>,
) -> Result<Reply, String> {
    let probe = s.probe();
    let ask = make(probe);
    match probe.http() {
        Some(h) => h.exchange(&ask),
        None => Err("the probe does not speak HTTP".into()),
    }
}

/// Skips a check that needs the session id the server did not issue.
fn needs_session(s: &mut Session<'_>) -> Result<String, Verdict> {
    s.session_id().ok_or_else(|| {
        Verdict::Skip("the server issues no `Mcp-Session-Id` (stateless), which it may".into())
    })
}

pub(super) fn session(s: &mut Session<'_>) -> Verdict {
    let sid = match needs_session(s) {
        Ok(sid) => sid,
        Err(v) => return v,
    };
    if sid.is_empty() || !sid.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Verdict::Fail(format!(
            "the session id {sid:?} is not made of visible ASCII characters (0x21 to 0x7E)"
        ));
    }
    match shared(s, |p| Ask::post(ping(p))) {
        Ok(r) if r.ok() => Verdict::Pass,
        Ok(r) => Verdict::Fail(format!(
            "a `ping` carrying the session id the server issued was answered with {}",
            r.shown()
        )),
        Err(e) => Verdict::Fail(e),
    }
}

pub(super) fn missing_session(s: &mut Session<'_>) -> Verdict {
    if let Err(v) = needs_session(s) {
        return v;
    }
    let reply = shared(s, |p| Ask {
        session: false,
        ..Ask::post(ping(p))
    });
    expect_status(
        reply,
        &[400],
        "a `ping` without the `Mcp-Session-Id` the server issued",
    )
}

pub(super) fn unknown_session(s: &mut Session<'_>) -> Verdict {
    if let Err(v) = needs_session(s) {
        return v;
    }
    let reply = shared(s, |p| {
        Ask::post(ping(p)).with("mcp-session-id", UNKNOWN_SESSION)
    });
    expect_status(
        reply,
        &[404],
        "a `ping` with a session id the server never issued",
    )
}

pub(super) fn delete(s: &mut Session<'_>) -> Verdict {
    if let Err(v) = needs_session(s) {
        return v;
    }
    let mut probe = match s.fresh() {
        Ok(p) => p,
        Err(e) => return Verdict::Fail(e),
    };
    if let Err(e) = probe.handshake(PROBE_VERSION) {
        return Verdict::Fail(format!("a second session could not start: {e}"));
    }
    let body = ping(&mut probe);
    let Some(http) = probe.http() else {
        return Verdict::Skip("the probe does not speak HTTP".into());
    };
    let ended = http.exchange(&Ask {
        method: "DELETE",
        body: None,
        read_body: true,
        ..Ask::post(String::new())
    });
    match ended {
        Ok(r) if r.status == 405 => return Verdict::Pass,
        Ok(r) if r.ok() => {}
        Ok(r) => {
            return Verdict::Fail(format!(
                "DELETE of the session was answered with {}; 2xx ends it, 405 says clients may \
                 not",
                r.shown()
            ));
        }
        Err(e) => return Verdict::Fail(e),
    }
    let after = http.exchange(&Ask::post(body));
    http.forget_session();
    expect_status(after, &[404], "a `ping` on the session after its DELETE")
}

pub(super) fn protocol_version(s: &mut Session<'_>) -> Verdict {
    if s.negotiated() == "2025-03-26" {
        return Verdict::Skip(
            "the session speaks 2025-03-26; `MCP-Protocol-Version` came with 2025-06-18".into(),
        );
    }
    let reply = shared(s, |p| {
        Ask::post(ping(p)).with("mcp-protocol-version", BOGUS_VERSION)
    });
    expect_status(
        reply,
        &[400],
        &format!("a `ping` with `MCP-Protocol-Version: {BOGUS_VERSION}`"),
    )
}

pub(super) fn accept(s: &mut Session<'_>) -> Verdict {
    let reply = shared(s, |p| Ask::post(ping(p)).with("accept", "text/html"));
    match reply {
        Ok(r) if (400..500).contains(&r.status) => Verdict::Pass,
        Ok(r) => Verdict::Fail(format!(
            "a `ping` whose `Accept` is only text/html was answered with {} instead of 406 Not \
             Acceptable",
            r.shown()
        )),
        Err(e) => Verdict::Fail(e),
    }
}

pub(super) fn notification(s: &mut Session<'_>) -> Verdict {
    let probe = s.probe();
    probe.notify("notifications/roots/list_changed");
    let Some(http) = probe.http() else {
        return Verdict::Skip("the probe does not speak HTTP".into());
    };
    let wrong: Vec<String> = http
        .notified()
        .iter()
        .filter(|(_, r)| r.status != 202 || !r.messages.is_empty())
        .map(|(method, r)| format!("`{method}` was answered with {}", r.shown()))
        .collect();
    if wrong.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail(format!(
            "{} (202 Accepted with no body is required)",
            wrong.join("; ")
        ))
    }
}

pub(super) fn get(s: &mut Session<'_>) -> Verdict {
    let reply = shared(s, |_| Ask {
        method: "GET",
        body: None,
        read_body: false,
        ..Ask::post(String::new())
    });
    match reply {
        Ok(r) if r.status == 405 => Verdict::Pass,
        Ok(r) if r.ok() && r.content_type.starts_with("text/event-stream") => Verdict::Pass,
        Ok(r) => Verdict::Fail(format!(
            "a GET asking for text/event-stream was answered with {}; the answer must be an \
             event stream or 405 Method Not Allowed",
            r.shown()
        )),
        Err(e) => Verdict::Fail(e),
    }
}

/// The events of the stream a `ping` on the shared session is answered with, or why the
/// stream checks do not apply (a revision before 2025-11-25, a JSON answer).
fn ping_stream(s: &mut Session<'_>) -> Result<Vec<SseEvent>, Verdict> {
    let version = s.negotiated();
    if version.as_str() < "2025-11-25" {
        return Err(Verdict::Skip(format!(
            "the session speaks {version}; priming events and polling came with 2025-11-25"
        )));
    }
    match shared(s, |p| Ask::post(ping(p))) {
        Ok(r) if r.ok() && r.content_type.starts_with("text/event-stream") => Ok(r.events),
        Ok(r) if r.ok() => Err(Verdict::Skip(format!(
            "a `ping` is answered with {} rather than an event stream",
            if r.content_type.is_empty() {
                "no content type"
            } else {
                r.content_type.as_str()
            }
        ))),
        Ok(r) => Err(Verdict::Fail(format!(
            "a `ping` on the session was answered with {}",
            r.shown()
        ))),
        Err(e) => Err(Verdict::Fail(e)),
    }
}

pub(super) fn sse_priming(s: &mut Session<'_>) -> Verdict {
    let events = match ping_stream(s) {
        Ok(e) => e,
        Err(v) => return v,
    };
    match events.first() {
        Some(first) if first.priming() => Verdict::Pass,
        Some(first) => Verdict::Fail(format!(
            "the event stream answering a `ping` began with {{{}}}, not a priming event (an \
             event id and empty data) to reconnect with",
            first.shown()
        )),
        None => Verdict::Fail("the event stream answering a `ping` had no event".into()),
    }
}

pub(super) fn sse_retry(s: &mut Session<'_>) -> Verdict {
    let events = match ping_stream(s) {
        Ok(e) => e,
        Err(v) => return v,
    };
    if events.iter().any(SseEvent::response) {
        return Verdict::Skip(
            "the stream carried its response before it ended; `retry` is asked only of a \
             server that closes a stream before its response"
                .into(),
        );
    }
    if !events.iter().any(SseEvent::priming) {
        return Verdict::Skip(
            "the stream is not primed for reconnection (see `http-sse-priming`)".into(),
        );
    }
    if events.iter().any(|e| e.retry.is_some()) {
        Verdict::Pass
    } else {
        Verdict::Fail(
            "the event stream answering a `ping` was closed before its response, and no \
             event before the close has a `retry` field: the client cannot know how long to \
             wait before it reconnects"
                .into(),
        )
    }
}

pub(super) fn origin(s: &mut Session<'_>) -> Verdict {
    let strict = s.negotiated().as_str() >= "2025-11-25";
    let mut probe = match s.fresh() {
        Ok(p) => p,
        Err(e) => return Verdict::Fail(e),
    };
    let body = json!({
        "jsonrpc": "2.0", "id": probe.id(), "method": "initialize",
        "params": init_params(PROBE_VERSION)
    })
    .to_string();
    let Some(http) = probe.http() else {
        return Verdict::Skip("the probe does not speak HTTP".into());
    };
    let what = format!("an `initialize` with `Origin: {FOREIGN_ORIGIN}`");
    match http.exchange(&Ask::post(body).with("origin", FOREIGN_ORIGIN)) {
        Ok(r) if r.status == 403 => Verdict::Pass,
        Ok(r) if !strict && (400..500).contains(&r.status) => Verdict::Pass,
        Ok(r) if r.ok() => {
            if let Some(sid) = r.session.clone() {
                http.adopt_session(sid);
            }
            Verdict::Fail(format!(
                "{what} was accepted ({}): a web page can reach this server by DNS rebinding",
                r.shown()
            ))
        }
        Ok(r) => Verdict::Fail(format!(
            "{what} was answered with {}; revision 2025-11-25 asks for 403 Forbidden",
            r.shown()
        )),
        Err(e) => Verdict::Fail(e),
    }
}

/// Pass when the reply has one of `statuses`.
fn expect_status(reply: Result<Reply, String>, statuses: &[u16], what: &str) -> Verdict {
    match reply {
        Ok(r) if statuses.contains(&r.status) => Verdict::Pass,
        Ok(r) => Verdict::Fail(format!(
            "{what} was answered with {}, not {}",
            r.shown(),
            statuses
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(" or ")
        )),
        Err(e) => Verdict::Fail(e),
    }
}
