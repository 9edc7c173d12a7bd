//! `security-encoded-blob`: a long run of base64 or hex in prose a model reads. A description
//! has no use for one; an encoded payload hides text from a reviewer that a model may decode.
//! A warning: a hash or a key in an example is sometimes legitimate.

use std::sync::LazyLock;

use regex::Regex;

use super::super::Problem;
use super::{Field, excerpt};

/// Base64 (standard or URL-safe) of at least 60 characters, or hex of at least 80.
static BLOB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9+/_\-]{60,}={0,2}|\b[0-9A-Fa-f]{80,}\b").expect("blob pattern")
});

/// Whether a run looks encoded rather than like a long identifier or path: it mixes upper
/// and lower case and digits, and is not made of words joined by `-`, `_` or `/`.
fn encoded(run: &str) -> bool {
    let hex = run.chars().all(|c| c.is_ascii_hexdigit());
    if hex {
        return run.len() >= 80;
    }
    let upper = run.chars().filter(char::is_ascii_uppercase).count();
    let lower = run.chars().filter(char::is_ascii_lowercase).count();
    let digits = run.chars().filter(char::is_ascii_digit).count();
    let longest_word = run
        .split(['-', '_', '/', '+', '='])
        .map(str::len)
        .max()
        .unwrap_or(0);
    upper >= 4 && lower >= 4 && digits >= 2 && longest_word >= 40
}

/// The text a base64 run decodes to, when it is mostly printable ASCII.
fn decoded(run: &str) -> Option<String> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in run.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push(((bits >> count) & 0xFF) as u8);
        }
    }
    let printable = out
        .iter()
        .filter(|b| b.is_ascii_graphic() || **b == b' ' || **b == b'\n')
        .count();
    (printable * 10 >= out.len() * 9).then(|| String::from_utf8_lossy(&out).into_owned())
}

pub(super) fn check(fields: &[&Field]) -> Option<Problem> {
    for field in fields {
        for m in BLOB.find_iter(field.text) {
            let run = m.as_str();
            if !encoded(run) {
                continue;
            }
            let what = if run.chars().all(|c| c.is_ascii_hexdigit()) {
                "hex"
            } else {
                "base64"
            };
            let mut message = format!(
                "a {}-character {what} blob: {}",
                run.len(),
                excerpt(field, m.start(), m.start().saturating_add(40).min(m.end()))
            );
            if what == "base64"
                && let Some(text) = decoded(run)
            {
                message.push_str(&format!(
                    "; it decodes to {}",
                    super::super::quote(&text, 120)
                ));
            }
            return Some(Problem::new(
                message,
                "write what the model needs to know in plain words; move data out of the \
                 description",
            ));
        }
    }
    None
}
