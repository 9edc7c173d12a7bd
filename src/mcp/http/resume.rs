//! Resuming a streamable-HTTP response stream that ended before its response (2025-11-25):
//! after the server's `retry` interval, a `GET` with `Last-Event-ID` reopens it.

use std::time::{Duration, Instant};

use super::{HttpTransport, error_body, header, http_detail};
use crate::mcp::error::{McpError, shorten};

/// Most reconnections in a row to a response stream that bring no new event.
pub(super) const MAX_IDLE_RESUMES: u32 = 5;
/// Wait before reconnecting when the server gave no `retry`.
const DEFAULT_RETRY_WAIT: Duration = Duration::from_millis(500);
/// Longest wait before reconnecting, whatever `retry` the server asked for.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(10);

/// Where a response stream can be resumed from.
#[derive(Debug, Default)]
pub(super) struct Resume {
    /// The last event id seen.
    pub(super) last_id: Option<String>,
    /// The server's reconnection time.
    retry: Option<Duration>,
    /// Reconnections since the last new event id.
    pub(super) idle: u32,
}

impl Resume {
    /// Takes the stream's last event id and `retry`; a new id counts as progress.
    pub(super) fn note(&mut self, last_id: Option<&str>, retry: Option<Duration>) {
        if let Some(id) = last_id
            && self.last_id.as_deref() != Some(id)
        {
            self.last_id = Some(id.to_owned());
            self.idle = 0;
        }
        if retry.is_some() {
            self.retry = retry;
        }
    }

    /// How long to wait before reconnecting: the server's `retry`, at most [`MAX_RETRY_WAIT`].
    pub(super) fn wait(&self) -> Duration {
        self.retry.unwrap_or(DEFAULT_RETRY_WAIT).min(MAX_RETRY_WAIT)
    }
}

impl HttpTransport {
    /// Reopens a stream that ended before the response: waits the server's `retry` interval
    /// (at most [`MAX_RETRY_WAIT`]), then GETs it again from the last event id.
    pub(super) fn resume(
        &self,
        method: &str,
        resume: &mut Resume,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<ureq::http::Response<ureq::Body>, McpError> {
        let ended = format!("the event stream for `{method}` ended without a response");
        let Some(last_id) = resume.last_id.clone() else {
            return Err(McpError::Protocol(ended));
        };
        if resume.idle >= MAX_IDLE_RESUMES {
            return Err(McpError::Protocol(format!(
                "{ended}, and {MAX_IDLE_RESUMES} reconnections in a row (GET with Last-Event-ID {}) brought nothing new",
                shorten(&last_id, 60)
            )));
        }
        resume.idle += 1;
        let wait = resume.wait();
        let left = deadline.saturating_duration_since(Instant::now());
        let timed_out = McpError::Timeout {
            method: method.to_owned(),
            after: timeout,
        };
        if wait >= left {
            return Err(if self.interrupt.sleep(left) {
                timed_out
            } else {
                McpError::Interrupted {
                    method: method.to_owned(),
                }
            });
        }
        if !self.interrupt.sleep(wait) {
            return Err(McpError::Interrupted {
                method: method.to_owned(),
            });
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let req = self
            .agent
            .get(&self.spec.url)
            .config()
            .timeout_global(Some(left))
            .build()
            .header("accept", "text/event-stream")
            .header("last-event-id", last_id.as_str());
        let mut resp = self
            .session_headers(req, self.session.as_deref())
            .call()
            .map_err(|e| self.transport_error(e, method, timeout))?;
        let status = resp.status().as_u16();
        let content_type = header(&resp, "content-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        if status == 200 && content_type.starts_with("text/event-stream") {
            return Ok(resp);
        }
        let text = error_body(&mut resp);
        let (detail, _) = http_detail(status, &content_type, &text, self.session.is_some());
        Err(McpError::Protocol(format!(
            "{ended}, and resuming it (GET with Last-Event-ID {}) got HTTP {status}: {detail}",
            shorten(&last_id, 60)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TransportPref;
    use crate::interrupt::{Interrupt, Signal};

    #[test]
    fn a_signal_ends_the_wait_before_a_reconnection() {
        let mut transport = HttpTransport::new(super::super::HttpSpec {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: Vec::new(),
            transport: TransportPref::default(),
        });
        let interrupt = Interrupt::new();
        interrupt.fire(Signal::Term);
        transport.interrupt = interrupt;
        let mut resume = Resume::default();
        resume.note(Some("7"), Some(MAX_RETRY_WAIT));
        let deadline = Instant::now() + Duration::from_secs(60);
        let answer = transport.resume("tools/call", &mut resume, deadline, MAX_RETRY_WAIT);
        assert!(
            matches!(answer, Err(McpError::Interrupted { ref method }) if method == "tools/call"),
            "{:?}",
            answer.err()
        );
    }
}
