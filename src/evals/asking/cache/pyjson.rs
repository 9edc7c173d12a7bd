//! JSON text written exactly as Python's `json.dumps(..., ensure_ascii=False)` writes it, byte for
//! byte, so cache keys and cache files match the ones mcp-toolproof 0.3.1 produces.
//!
//! What Python does, and so what this does:
//! - compact form separators are `", "` and `": "`; with an indent they are `","` and `": "`, each
//!   item on its own line, and empty containers stay `[]` / `{}`;
//! - `sort_keys=True` orders object keys by code point at every level (UTF-8 byte order is the
//!   same order);
//! - strings escape `"`, `\`, `\n`, `\r`, `\t`, `\b`, `\f` and every other character below U+0020
//!   as `\u00xx` (lowercase hex); DEL, non-ASCII and U+2028/U+2029 are written as they are;
//! - integers print as integers (the whole `u64`/`i64` range, and beyond it the integers a
//!   config holds as [`crate::pycompat::bigint`] marks); floats print as Python's
//!   `repr(float)`: the shortest digits that round-trip, in exponent form (`1e-05`, `1e+16`)
//!   when the decimal exponent is below -4 or at least 16, else positional with at least one
//!   fractional digit (`100.0`).

use std::fmt::Write as _;

use serde_json::Value;

use crate::pycompat::bigint;
use crate::pycompat::float::float_repr;

/// How to lay the text out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    /// Order object keys by code point at every level (`sort_keys=True`).
    pub sort_keys: bool,
    /// `indent=n`: one item per line, nested `n` spaces deeper per level; `None` is the compact form.
    pub indent: Option<usize>,
}

impl Style {
    /// `json.dumps(v, sort_keys=True, ensure_ascii=False)`: the form cache keys hash.
    pub(crate) const KEY: Style = Style {
        sort_keys: true,
        indent: None,
    };
    /// `json.dumps(v, indent=2, ensure_ascii=False)`: the form of cache files.
    pub(crate) const FILE: Style = Style {
        sort_keys: false,
        indent: Some(2),
    };
}

/// The text Python's `json.dumps` gives for `value` in `style`.
pub(crate) fn dumps(value: &Value, style: Style) -> String {
    let mut out = String::new();
    write_value(&mut out, value, style, 0);
    out
}

/// Appends the text of `value` to `out`, as [`dumps`] would write it.
pub(crate) fn dump_into(out: &mut String, value: &Value, style: Style) {
    write_value(out, value, style, 0);
}

/// [`dump_into`], writing the number at each JSON pointer of `exact` as the text given there
/// instead of from the `Value` (numbers a `Value` cannot hold as Python holds them: integers
/// beyond 64 bits, see [`crate::mcp::protocol`]).
pub(crate) fn dump_exact_into(
    out: &mut String,
    value: &Value,
    style: Style,
    exact: &[(String, String)],
) {
    if exact.is_empty() {
        return dump_into(out, value, style);
    }
    let mut at = Exact {
        pointer: String::new(),
        map: exact.iter().cloned().collect(),
    };
    write_value_at(out, value, style, 0, &mut Some(&mut at));
}

/// Where the writer is, and the numbers to write from text.
struct Exact {
    pointer: String,
    map: std::collections::HashMap<String, String>,
}

impl Exact {
    fn enter(&mut self, segment: &str) -> usize {
        let len = self.pointer.len();
        self.pointer.push('/');
        self.pointer.push_str(&crate::mcp::pointer::escape(segment));
        len
    }
}

fn write_value(out: &mut String, value: &Value, style: Style, depth: usize) {
    write_value_at(out, value, style, depth, &mut None);
}

fn write_value_at(
    out: &mut String,
    value: &Value,
    style: Style,
    depth: usize,
    at: &mut Option<&mut Exact>,
) {
    if let (Value::Number(_), Some(e)) = (value, at.as_deref())
        && let Some(text) = e.map.get(&e.pointer)
    {
        out.push_str(text);
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else if let Some(f) = n.as_f64() {
                out.push_str(&float_repr(f));
            } else {
                // Only reachable with serde_json's arbitrary_precision: the digits as given.
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => match bigint::digits(s) {
            Some(digits) => out.push_str(digits),
            None => write_str(out, s),
        },
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                separator(out, style, depth + 1, i == 0);
                let back = at.as_deref_mut().map(|e| e.enter(&i.to_string()));
                write_value_at(out, item, style, depth + 1, at);
                if let (Some(len), Some(e)) = (back, at.as_deref_mut()) {
                    e.pointer.truncate(len);
                }
            }
            close(out, style, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if style.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                separator(out, style, depth + 1, i == 0);
                write_str(out, k);
                out.push_str(": ");
                let back = at.as_deref_mut().map(|e| e.enter(k));
                write_value_at(out, v, style, depth + 1, at);
                if let (Some(len), Some(e)) = (back, at.as_deref_mut()) {
                    e.pointer.truncate(len);
                }
            }
            close(out, style, depth);
            out.push('}');
        }
    }
}

/// What goes before an item: nothing or `", "` in the compact form, a newline and the indent
/// (after a `,` unless first) in the indented form.
fn separator(out: &mut String, style: Style, depth: usize, first: bool) {
    match style.indent {
        None => {
            if !first {
                out.push_str(", ");
            }
        }
        Some(width) => {
            if !first {
                out.push(',');
            }
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', width * depth));
        }
    }
}

fn close(out: &mut String, style: Style, depth: usize) {
    if let Some(width) = style.indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', width * depth));
    }
}

/// A JSON string literal as Python writes it with `ensure_ascii=False`.
pub(crate) fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let mut plain_from = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        // Every byte matched above is ASCII, so `i` is a character boundary.
        out.push_str(&s[plain_from..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        plain_from = i + 1;
    }
    out.push_str(&s[plain_from..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    // The ties below are written exactly: their exact value is the point of the test.
    #[allow(clippy::excessive_precision)]
    fn floats_print_like_python_repr() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (0.1, "0.1"),
            (-1.5, "-1.5"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (123_456_789_012_345_680.0, "1.2345678901234568e+17"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (0.1 + 0.2, "0.30000000000000004"),
            (9_999_999_999_999_998.0, "9999999999999998.0"),
            // Exact ties between two shortest candidates: Python keeps the even digit.
            (138_885_500_658_438.125, "138885500658438.12"),
            (1_130_057_563_187_245.25, "1130057563187245.2"),
            (9_367_367_842_231.062_5, "9367367842231.062"),
            (3_769_048_438_796.281_25, "3769048438796.2812"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::NAN, "NaN"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(*f), *want, "repr of {f:?}");
        }
    }

    #[test]
    fn strings_escape_only_what_python_escapes() {
        let s = "\u{0}\u{1}\u{8}\u{b}\u{c}\u{1f}\u{7f}\u{80}é\u{2028}日😀\"\\/\n\r\t";
        let mut out = String::new();
        write_str(&mut out, s);
        assert_eq!(
            out,
            "\"\\u0000\\u0001\\b\\u000b\\f\\u001f\u{7f}\u{80}é\u{2028}日😀\\\"\\\\/\\n\\r\\t\""
        );
    }

    #[test]
    fn compact_sorted_and_indented_layouts() {
        let v = json!({"b": {}, "a": [], "c": [1, {"z": 1, "y": [true, null]}], "é": 2, "Z": 3});
        assert_eq!(
            dumps(&v, Style::KEY),
            r#"{"Z": 3, "a": [], "b": {}, "c": [1, {"y": [true, null], "z": 1}], "é": 2}"#
        );
        assert_eq!(
            dumps(&v, Style::FILE),
            "{\n  \"b\": {},\n  \"a\": [],\n  \"c\": [\n    1,\n    {\n      \"z\": 1,\n      \"y\": [\n        true,\n        null\n      ]\n    }\n  ],\n  \"é\": 2,\n  \"Z\": 3\n}"
        );
    }

    #[test]
    fn integers_cover_the_whole_u64_and_i64_range() {
        let v = json!([u64::MAX, i64::MIN, 0, -1]);
        assert_eq!(
            dumps(&v, Style::KEY),
            "[18446744073709551615, -9223372036854775808, 0, -1]"
        );
    }
}
