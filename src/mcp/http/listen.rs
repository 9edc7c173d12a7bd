//! The standalone GET stream of a streamable-HTTP session (2025-03-26 to 2025-11-25): after
//! `initialized` a thread GETs the endpoint for the server's own messages, answers the requests
//! that come on it (as the current test scripts them) with POSTs, and resumes the stream with
//! `Last-Event-ID` when the server closes it after an event id (2025-11-25 polling). A server
//! that offers no GET stream (405, or anything but an event stream) is left alone.

use std::io::BufReader;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use super::resume::{MAX_IDLE_RESUMES, Resume};
use super::{HttpTransport, header};
use crate::interrupt::{Interrupt, Signal};
use crate::mcp::protocol;
use crate::mcp::sse::SseEvents;

/// How long the GET waits for the response head; the stream itself may stay quiet forever.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a POST of an answer to the server's request may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `listen` waits for the GET's response head before the session's next request
/// goes out, so the server has the stream before anything else: a server that routes the
/// answer to a later request to whichever GET it has would otherwise race the listener.
const OPENED_WAIT: Duration = Duration::from_secs(3);

/// The handle the transport keeps: `stop` ends the listener at its next message, or at once
/// while it waits to resume the stream.
#[derive(Debug, Default)]
pub(super) struct Listener {
    stop: Interrupt,
}

impl Listener {
    pub(super) fn stop(&self) {
        self.stop.fire(Signal::Term);
    }

    fn stopped(&self) -> bool {
        self.stop.is_set()
    }
}

impl HttpTransport {
    /// Starts listening on the session's GET stream (once; a no-op on the HTTP+SSE transport,
    /// whose one stream is already read, and on a stateless revision, which has no GET stream).
    pub(crate) fn listen(&mut self) {
        if self.listener.is_some() || self.legacy.is_some() {
            return;
        }
        let listener = Arc::new(Listener::default());
        self.listener = Some(Arc::clone(&listener));
        let mut worker = self.clone();
        worker.listener = None;
        let (opened, first_open) = mpsc::channel();
        std::thread::spawn(move || worker.run_listener(&listener, &opened));
        // Either outcome of the first GET (or a server slow to send its head) lets us go on.
        let _ = first_open.recv_timeout(OPENED_WAIT);
    }

    /// The listener thread: open, read, resume, until the stream cannot go on or `stop`.
    /// `opened` hears once that the first GET has its answer, whatever it was.
    fn run_listener(mut self, listener: &Listener, opened: &mpsc::Sender<()>) {
        let mut resume = Resume::default();
        let mut last_id: Option<String> = None;
        loop {
            if listener.stopped() {
                return;
            }
            let resp = self.open_get(last_id.as_deref());
            let _ = opened.send(());
            let Some(resp) = resp else {
                return;
            };
            let mut events = SseEvents::new(BufReader::new(resp.into_body().into_reader()));
            while let Some(Ok(event)) = events.next_event() {
                resume.note(events.last_event_id(), events.retry());
                if listener.stopped() {
                    return;
                }
                self.on_server_message(&event.data);
            }
            resume.note(events.last_event_id(), events.retry());
            // Without an event id the stream cannot be resumed; the server ended it.
            let Some(id) = resume.last_id.clone() else {
                return;
            };
            if resume.idle >= MAX_IDLE_RESUMES || listener.stopped() {
                return;
            }
            resume.idle += 1;
            if !listener.stop.sleep(resume.wait()) {
                return;
            }
            last_id = Some(id);
        }
    }

    /// GETs the stream (from `last_id` when resuming): the response when it is an event
    /// stream, `None` otherwise (405 says the server offers none).
    fn open_get(&self, last_id: Option<&str>) -> Option<ureq::http::Response<ureq::Body>> {
        let mut req = self
            .agent
            .get(&self.spec.url)
            .config()
            .timeout_recv_response(Some(OPEN_TIMEOUT))
            .build()
            .header("accept", "text/event-stream");
        if let Some(id) = last_id {
            req = req.header("last-event-id", id);
        }
        let resp = self
            .session_headers(req, self.session.as_deref())
            .call()
            .ok()?;
        let content_type = header(&resp, "content-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        (resp.status().as_u16() == 200 && content_type.starts_with("text/event-stream"))
            .then_some(resp)
    }

    /// A message on the GET stream: a request of the server's is answered; notifications
    /// and anything unreadable are passed over (no request of ours waits on this stream).
    fn on_server_message(&mut self, data: &str) {
        let Ok(v) = protocol::parse_message(data) else {
            return;
        };
        if v.get("id").is_some() && v.get("method").and_then(Value::as_str).is_some() {
            let reply = self.responder.answer(&v);
            let _ = self.post(&reply, None, ANSWER_TIMEOUT);
        }
    }
}
