//! A reader of `text/event-stream` bodies: yields the `data` of each event, as the WHATWG
//! rules build it (lines joined with `\n`, comments and empty events skipped), holding at most
//! one event of [`MESSAGE_LIMIT`] bytes in memory. It keeps what resuming a stream needs: the
//! last event id and the server's `retry` interval, empty (priming) events included.

use std::io::{BufRead, Read};
use std::time::Duration;

use super::error::shorten;
use super::protocol::MESSAGE_LIMIT;

/// Why no event could be read.
#[derive(Debug)]
pub(crate) enum SseError {
    /// Reading the body failed (or timed out).
    Io(std::io::Error),
    /// The event (or one of its lines) is larger than the limit; its first characters.
    TooLarge(String),
}

/// One event: its type (`message` when the stream names none) and its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// The `event` field, `message` by default.
    pub name: String,
    /// The `data` lines joined with `\n`.
    pub data: String,
}

/// Iterates over the data payloads of the events in `reader` ([`SseEvents::next_event`] gives
/// their types too).
pub(crate) struct SseEvents<R> {
    reader: R,
    line: Vec<u8>,
    limit: usize,
    last_id: Option<String>,
    retry: Option<Duration>,
}

impl<R: BufRead> SseEvents<R> {
    /// Wraps a buffered reader of the response body; events are limited to [`MESSAGE_LIMIT`].
    pub(crate) fn new(reader: R) -> Self {
        Self::with_limit(reader, MESSAGE_LIMIT)
    }

    /// Wraps a reader with another limit on an event's size.
    pub(crate) fn with_limit(reader: R, limit: usize) -> Self {
        SseEvents {
            reader,
            line: Vec::new(),
            limit,
            last_id: None,
            retry: None,
        }
    }

    /// The last event id the stream set (`id:` field), to resume it from.
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref().filter(|id| !id.is_empty())
    }

    /// The reconnection time the server asked for (`retry:` field).
    pub(crate) fn retry(&self) -> Option<Duration> {
        self.retry
    }
}

/// Room for a field name and a line end on top of an event's data.
const LINE_SLACK: usize = 64;

impl<R: BufRead> Iterator for SseEvents<R> {
    type Item = Result<String, SseError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_event().map(|e| e.map(|e| e.data))
    }
}

impl<R: BufRead> SseEvents<R> {
    /// The next event with data, its type included.
    pub(crate) fn next_event(&mut self) -> Option<Result<Event, SseError>> {
        let mut data: Option<String> = None;
        let mut name: Option<String> = None;
        let event = |data: String, name: Option<String>| Event {
            name: name.unwrap_or_else(|| "message".to_owned()),
            data,
        };
        loop {
            self.line.clear();
            let used = data.as_ref().map_or(0, String::len);
            let room = (self.limit.saturating_sub(used) + LINE_SLACK) as u64;
            match self
                .reader
                .by_ref()
                .take(room)
                .read_until(b'\n', &mut self.line)
            {
                Err(e) => return Some(Err(SseError::Io(e))),
                // An event the body ends in without its blank line still counts, unless empty.
                Ok(0) => return data.filter(|d| !d.is_empty()).map(|d| Ok(event(d, name))),
                Ok(n) if n as u64 == room && self.line.last() != Some(&b'\n') => {
                    let start = data.unwrap_or_else(|| lossy(&self.line));
                    return Some(Err(SseError::TooLarge(shorten(&start, 80))));
                }
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&self.line);
            let text = text.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                match data.take() {
                    Some(d) if !d.is_empty() => return Some(Ok(event(d, name))),
                    _ => {
                        name = None;
                        continue;
                    }
                }
            }
            if text.starts_with(':') {
                continue;
            }
            let (field, value) = match text.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (text, ""),
            };
            match field {
                "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
                "retry" => {
                    if let Ok(ms) = value.parse::<u64>() {
                        self.retry = Some(Duration::from_millis(ms));
                    }
                }
                "event" => name = Some(value.to_owned()),
                _ => {}
            }
            if field == "data" {
                match data.as_mut() {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_owned()),
                }
                if data.as_ref().is_some_and(|d| d.len() > self.limit) {
                    let start = data.map(|d| shorten(&d, 80)).unwrap_or_default();
                    return Some(Err(SseError::TooLarge(start)));
                }
            }
        }
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(s: &str) -> Vec<String> {
        SseEvents::new(s.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap_or_default()
    }

    #[test]
    fn joins_data_lines_and_skips_comments_and_priming() {
        let body =
            "id: 0\ndata:\n\n: keep-alive\n\nevent: message\ndata: {\"a\":\ndata: 1}\n\ndata: last";
        assert_eq!(events(body), vec!["{\"a\":\n1}".to_owned(), "last".into()]);
    }

    #[test]
    fn an_event_over_the_limit_is_refused_without_being_held() {
        let many_lines = "data: 0123456789\n".repeat(20) + "\n";
        let mut events = SseEvents::with_limit(many_lines.as_bytes(), 100);
        assert!(
            matches!(events.next(), Some(Err(SseError::TooLarge(s))) if s.starts_with("0123456789"))
        );
        let one_line = format!("data: {}\n\n", "y".repeat(10_000));
        let mut events = SseEvents::with_limit(one_line.as_bytes(), 100);
        assert!(
            matches!(events.next(), Some(Err(SseError::TooLarge(s))) if s.starts_with("data: yyy"))
        );
        let fits = format!("data: {}\n\ndata: next\n\n", "z".repeat(100));
        let got: Vec<String> = SseEvents::with_limit(fits.as_bytes(), 100)
            .filter_map(Result::ok)
            .collect();
        assert_eq!(got, ["z".repeat(100), "next".into()]);
    }

    #[test]
    fn keeps_the_last_id_retry_and_event_type() {
        let body =
            "id: a-1\nretry: 250\ndata:\n\nevent: endpoint\ndata: /messages?s=1\n\ndata: x\n\n";
        let mut events = SseEvents::new(body.as_bytes());
        let first = events.next_event().and_then(Result::ok);
        assert_eq!(
            first,
            Some(Event {
                name: "endpoint".into(),
                data: "/messages?s=1".into()
            })
        );
        assert_eq!(events.last_event_id(), Some("a-1"));
        assert_eq!(events.retry(), Some(Duration::from_millis(250)));
        let second = events.next_event().and_then(Result::ok).map(|e| e.name);
        assert_eq!(second.as_deref(), Some("message"));
        assert!(events.next_event().is_none());
    }

    #[test]
    fn accepts_crlf() {
        assert_eq!(events("data: x\r\n\r\n"), vec!["x".to_owned()]);
    }
}
