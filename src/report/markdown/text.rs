//! Escaping untrusted text for the job summary.

use crate::report::escape::{clean, tail_lines, truncate_chars};

use super::{STDERR_CHARS, STDERR_LINES};

/// A collapsed `<details>` block showing `text` in `<pre>`.
pub(super) fn pre_details(title: &str, text: &str, open: bool) -> String {
    let tail = tail_lines(text, STDERR_LINES);
    let rough = truncate_chars(&tail, STDERR_CHARS.saturating_mul(4));
    let cleaned = clean(&rough);
    let shown = truncate_chars(&cleaned, STDERR_CHARS);
    let open = if open { " open" } else { "" };
    format!(
        "<details{open}><summary>{title}</summary>\n\n<pre>\n{}\n</pre>\n\n</details>\n\n",
        html(&shown)
    )
}

/// Escapes for HTML text: `&`, `<`, `>`; `@` gets a zero-width space so it cannot mention.
fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => out.push_str("@\u{200b}"),
            c => out.push(c),
        }
    }
    out
}

/// Untrusted text made safe for one Markdown table cell or inline run: control characters and
/// escapes removed, cut to `max_chars`, newlines as `<br>`, HTML special characters as entities,
/// Markdown punctuation (`|`, `` ` ``, `*`, `_`, `~`, `[`, `]`, `\`, `#`, and `$`, which GitHub
/// reads as math between two of them) backslash-escaped, and
/// `@` followed by a zero-width space so `@someone` never notifies anyone.
pub(crate) fn md(text: &str, max_chars: usize) -> String {
    // Cutting before cleaning keeps megabyte-long strings cheap; escapes only shrink text.
    let rough = truncate_chars(text, max_chars.saturating_mul(4));
    let cleaned = clean(&rough);
    let cut = truncate_chars(cleaned.trim(), max_chars);
    let mut out = String::with_capacity(cut.len() + 8);
    for c in cut.chars() {
        match c {
            '\n' => out.push_str("<br>"),
            '\t' => out.push(' '),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => out.push_str("@\u{200b}"),
            '|' | '`' | '*' | '_' | '~' | '[' | ']' | '\\' | '#' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}
