//! A reader of `text/event-stream` bodies: yields the `data` of each event, as the WHATWG
//! rules build it (lines joined with `\n`, comments and empty events skipped).

use std::io::BufRead;

/// Iterates over the data payloads of the events in `reader`.
pub struct SseEvents<R> {
    reader: R,
    line: Vec<u8>,
}

impl<R: BufRead> SseEvents<R> {
    /// Wraps a buffered reader of the response body.
    pub fn new(reader: R) -> Self {
        SseEvents {
            reader,
            line: Vec::new(),
        }
    }
}

impl<R: BufRead> Iterator for SseEvents<R> {
    type Item = std::io::Result<String>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut data: Option<String> = None;
        loop {
            self.line.clear();
            match self.reader.read_until(b'\n', &mut self.line) {
                Err(e) => return Some(Err(e)),
                Ok(0) => return data.map(Ok),
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&self.line);
            let text = text.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                match data.take() {
                    Some(d) if !d.is_empty() => return Some(Ok(d)),
                    _ => continue,
                }
            }
            if text.starts_with(':') {
                continue;
            }
            let (field, value) = match text.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (text, ""),
            };
            if field == "data" {
                match data.as_mut() {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_owned()),
                }
            }
        }
    }
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
    fn accepts_crlf() {
        assert_eq!(events("data: x\r\n\r\n"), vec!["x".to_owned()]);
    }
}
