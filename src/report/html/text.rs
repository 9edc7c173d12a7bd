//! Untrusted text made safe for the page: cut, cleaned of terminal escapes, escaped.

use std::borrow::Cow;

use crate::report::escape::{clean, format_ms, format_secs, tail_lines, truncate_chars};

/// Escapes the five HTML special characters, for text and attribute values alike.
pub(super) fn esc(text: &str) -> Cow<'_, str> {
    crate::report::escape::markup(text)
}

/// Untrusted text made safe to place in HTML: cut to `max_chars` (with `…`), terminal escapes
/// removed and control characters made visible, trimmed, escaped. Newlines are kept; cells
/// that can hold several lines have the `pre` class.
pub(super) fn text(raw: &str, max_chars: usize) -> String {
    // Cutting before cleaning keeps megabyte-long strings cheap; cleaning only shrinks text.
    let rough = truncate_chars(raw, max_chars.saturating_mul(4));
    let cleaned = clean(&rough);
    let cut = truncate_chars(cleaned.trim(), max_chars);
    esc(&cut).into_owned()
}

/// [`text`] on one line: newlines and tabs become spaces.
pub(super) fn one_line(raw: &str, max_chars: usize) -> String {
    text(raw, max_chars).replace(['\n', '\t'], " ")
}

/// Untrusted multi-line output (stderr, result text) in a `<pre>`: the last lines, cut, cleaned
/// and escaped.
pub(super) fn pre_block(raw: &str, max_lines: usize, max_chars: usize) -> String {
    // The end of the output is what explains a failure: keep the last bytes of a huge one.
    let mut start = raw.len().saturating_sub(max_chars.saturating_mul(4));
    while !raw.is_char_boundary(start) {
        start += 1;
    }
    let tail = tail_lines(&raw[start..], max_lines);
    let cleaned = clean(&tail);
    format!("<pre>{}</pre>", esc(&last_chars(&cleaned, max_chars)))
}

/// The last `max_chars` characters of `text`, starting with `…` when cut.
pub(super) fn last_chars(text: &str, max_chars: usize) -> Cow<'_, str> {
    let total = text.chars().count();
    if total <= max_chars {
        return Cow::Borrowed(text);
    }
    let skip = total - max_chars.saturating_sub(1);
    let start = text.char_indices().nth(skip).map_or(text.len(), |(i, _)| i);
    Cow::Owned(format!("…{}", &text[start..]))
}

/// A collapsible block of untrusted output.
pub(super) fn details_pre(summary: &str, body: &str, open: bool) -> String {
    format!(
        "<details{}><summary>{summary}</summary>{body}</details>",
        if open { " open" } else { "" }
    )
}

/// A phase's wall time: `4ms` under a second, `2.76s` from there.
pub(super) fn duration(ms: f64) -> String {
    if ms < 1000.0 {
        format_ms(ms)
    } else {
        format_secs(ms)
    }
}

/// The run's start time as `<time>`: `2026-12-01 10:00:00 UTC` for an RFC 3339 UTC stamp,
/// otherwise as given.
pub(super) fn started(at: &str) -> String {
    let shown = match at.strip_suffix('Z') {
        Some(rest) if rest.len() >= 19 && rest.as_bytes().get(10) == Some(&b'T') => {
            let no_fraction = rest.split('.').next().unwrap_or(rest);
            format!("{} UTC", no_fraction.replacen('T', " ", 1))
        }
        _ => at.to_string(),
    };
    format!("<time datetime=\"{}\">{}</time>", esc(at), text(&shown, 64))
}
