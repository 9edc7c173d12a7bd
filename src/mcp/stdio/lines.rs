//! A server's stdout, line by line, in bounded memory. A line that starts like a JSON-RPC
//! message is kept whole up to [`MESSAGE_LIMIT`] and parsed; anything else is noise, of which
//! only the first [`NOISE_LINE_KEEP`] bytes are kept, and the rest of the line is skipped
//! unread. The noise itself is kept in [`Noise`]: the first lines, and how many there were.

use std::io::{self, BufRead, Read};

use serde_json::Value;

use crate::mcp::error::shorten;
use crate::mcp::protocol::{MESSAGE_LIMIT, parse_message, too_large};

/// Most bytes of one noise line kept: enough to see what a banner or log line says.
pub(crate) const NOISE_LINE_KEEP: usize = 4 << 10;
/// Most noise lines kept (the first ones); later ones are only counted.
pub(crate) const NOISE_LINES_KEPT: usize = 200;
/// Characters of an unreadable message quoted in its error.
const START_SHOWN: usize = 80;
/// Bytes skipped per read when the rest of a line is not kept.
const SKIP_CHUNK: u64 = 64 << 10;

/// What one line of stdout is.
#[derive(Debug, PartialEq)]
pub(crate) enum Line {
    /// A JSON object or array.
    Message(Value),
    /// It starts like a JSON-RPC message but cannot be read.
    Unreadable {
        /// Why, in words.
        reason: String,
        /// Its first characters, shortened.
        start: String,
    },
    /// Not protocol: its first bytes as text, with a note of its length when cut.
    Noise(String),
}

/// The noise a server printed: the first [`NOISE_LINES_KEPT`] lines and the count of all.
#[derive(Debug, Default, Clone)]
pub(crate) struct Noise {
    /// The first lines, each at most [`NOISE_LINE_KEEP`] bytes (plus a note when cut).
    pub lines: Vec<String>,
    /// Every noise line printed.
    pub total: usize,
}

impl Noise {
    /// Counts a line, keeping it while there is room.
    pub(crate) fn push(&mut self, line: String) {
        self.total += 1;
        if self.lines.len() < NOISE_LINES_KEPT {
            self.lines.push(line);
        }
    }

    /// Adds another process's noise (kept across restarts), within the same bounds.
    pub(crate) fn extend(&mut self, other: &Noise) {
        let room = NOISE_LINES_KEPT.saturating_sub(self.lines.len());
        self.lines.extend(other.lines.iter().take(room).cloned());
        self.total += other.total;
    }
}

/// Reads the next non-blank line; `None` at the end of stdout. `buf` is scratch space.
pub(crate) fn next(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<Line>> {
    loop {
        buf.clear();
        let Some(len) = read_capped(reader, buf)? else {
            return Ok(None);
        };
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        let cut = len > buf.len() as u64;
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if !cut && is_blank(buf) {
            continue;
        }
        return Ok(Some(classify(buf, cut, len)));
    }
}

/// Whether a line holds only whitespace, in Unicode's sense (a vertical tab or a no-break
/// space too): such a line is skipped, neither a message nor noise.
fn is_blank(line: &[u8]) -> bool {
    std::str::from_utf8(line).is_ok_and(|text| text.trim().is_empty())
}

/// Reads one line into `buf` (with its `\n`, when it has one): at most [`MESSAGE_LIMIT`] bytes
/// of a message and [`NOISE_LINE_KEEP`] of noise, the rest skipped unread. Returns the line's
/// whole length without the `\n`, or `None` at the end of input.
fn read_capped(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<u64>> {
    let mut cap = NOISE_LINE_KEEP;
    let mut len = 0u64;
    loop {
        let room = cap.saturating_sub(buf.len()) as u64;
        let n = reader.by_ref().take(room).read_until(b'\n', buf)? as u64;
        len += n;
        if buf.last() == Some(&b'\n') {
            return Ok(Some(len - 1));
        }
        if n < room {
            // The input ended.
            return Ok((len > 0).then_some(len));
        }
        if cap == NOISE_LINE_KEEP && starts_like_message(buf) {
            cap = MESSAGE_LIMIT;
            continue;
        }
        let (skipped, newline) = skip_line(reader)?;
        return Ok(Some(len + skipped - u64::from(newline)));
    }
}

/// Skips to the end of the line; returns the bytes skipped and whether a `\n` ended them.
fn skip_line(reader: &mut impl BufRead) -> io::Result<(u64, bool)> {
    let mut scratch = Vec::with_capacity(SKIP_CHUNK as usize);
    let mut skipped = 0;
    loop {
        scratch.clear();
        let n = reader
            .by_ref()
            .take(SKIP_CHUNK)
            .read_until(b'\n', &mut scratch)?;
        skipped += n as u64;
        if scratch.last() == Some(&b'\n') {
            return Ok((skipped, true));
        }
        if n == 0 {
            return Ok((skipped, false));
        }
    }
}

/// Whether a line starts like a JSON-RPC message: an object, or a batch (`[` then `{`, `[`,
/// `]` or nothing), so that `[INFO] started` is noise.
fn starts_like_message(line: &[u8]) -> bool {
    let mut bytes = line.iter().copied().filter(|b| !b.is_ascii_whitespace());
    match bytes.next() {
        Some(b'{') => true,
        Some(b'[') => matches!(bytes.next(), None | Some(b'{' | b'[' | b']')),
        _ => false,
    }
}

/// What a line read by [`read_capped`] is: `kept` is what was kept of it, `cut` whether that
/// is not all, `len` its whole length.
fn classify(kept: &[u8], cut: bool, len: u64) -> Line {
    let text = String::from_utf8_lossy(kept);
    if !starts_like_message(kept) {
        if !cut {
            return Line::Noise(text.into_owned());
        }
        return Line::Noise(format!("{text}… (cut: {len} bytes)"));
    }
    let start = || shorten(&text, START_SHOWN);
    if cut {
        return Line::Unreadable {
            reason: too_large("a line", len),
            start: start(),
        };
    }
    match parse_message(&text) {
        Ok(v) if v.is_object() || v.is_array() => Line::Message(v),
        Ok(_) => Line::Noise(text.into_owned()),
        Err(reason) => Line::Unreadable {
            reason,
            start: start(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn lines(input: impl Read) -> Vec<Line> {
        let mut reader = BufReader::with_capacity(1 << 16, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = next(&mut reader, &mut buf).expect("read") {
            assert!(buf.len() <= MESSAGE_LIMIT + 1, "{} bytes held", buf.len());
            out.push(line);
        }
        out
    }

    #[test]
    fn messages_noise_and_unreadable_lines_are_told_apart() {
        let input = "{\"a\":1}\n\n   \n[INFO] started\n[{\"b\":2}]\n{\"n\": 1e400}\n\"just a string\"\r\nlast";
        let got = lines(input.as_bytes());
        assert_eq!(got[0], Line::Message(serde_json::json!({"a": 1})));
        assert_eq!(got[1], Line::Noise("[INFO] started".into()));
        assert_eq!(got[2], Line::Message(serde_json::json!([{"b": 2}])));
        assert!(
            matches!(&got[3], Line::Unreadable { reason, start }
                if reason.starts_with("it holds a number beyond") && start == "{\"n\": 1e400}"),
            "{:?}",
            got[3]
        );
        assert_eq!(got[4], Line::Noise("\"just a string\"".into()));
        assert_eq!(got[5], Line::Noise("last".into()));
        assert_eq!(got.len(), 6);
    }

    #[test]
    fn a_huge_noise_line_is_cut_without_being_held() {
        let huge = io::repeat(b'n').take(100 << 20);
        let input = huge.chain(&b"\n{\"after\":true}\n"[..]);
        let got = lines(input);
        match &got[0] {
            Line::Noise(text) => {
                assert!(text.len() < NOISE_LINE_KEEP + 40, "{}", text.len());
                assert!(
                    text.ends_with("… (cut: 104857600 bytes)"),
                    "{}",
                    &text[4000..]
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(got[1], Line::Message(serde_json::json!({"after": true})));
    }

    #[test]
    fn a_message_over_the_limit_is_unreadable_and_the_next_line_is_read() {
        let head = &b"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":\""[..];
        let body = io::repeat(b'x').take(MESSAGE_LIMIT as u64 + 10);
        let input = head.chain(body).chain(&b"\"}\n{\"id\":5}\n"[..]);
        let got = lines(input);
        match &got[0] {
            Line::Unreadable { reason, start } => {
                let len = MESSAGE_LIMIT as u64 + 10 + head.len() as u64 + 2;
                assert_eq!(reason, &too_large("a line", len));
                assert!(
                    start.starts_with("{\"jsonrpc\":\"2.0\",\"id\":4"),
                    "{start}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(got[1], Line::Message(serde_json::json!({"id": 5})));
    }

    #[test]
    fn noise_keeps_the_first_lines_and_counts_them_all() {
        let mut noise = Noise::default();
        for n in 0..100_000 {
            noise.push(format!("line {n}"));
        }
        assert_eq!(
            (noise.lines.len(), noise.total),
            (NOISE_LINES_KEPT, 100_000)
        );
        let mut all = Noise::default();
        all.extend(&noise);
        all.extend(&noise);
        assert_eq!((all.lines.len(), all.total), (NOISE_LINES_KEPT, 200_000));
        assert_eq!(all.lines[0], "line 0");
    }
}
