//! Numbers of a `tools/list` answer as Python's SDK reads them. serde_json (without
//! `arbitrary_precision`, which would change every number in the program) reads an integer
//! beyond 64 bits as a float, `-0` as the float `-0.0`, and some long decimals one unit off;
//! Python reads the first as the exact integer, the second as `0`, the third correctly
//! rounded. The eval cache key hashes the tool list as Python writes it, so for each such
//! number the text Python writes is kept beside the tool (under [`EXACT_NUMBERS`], which
//! [`crate::mcp::types::Tool::from_wire`] takes out again).

use serde_json::{Map, Number, Value};

use crate::pycompat::float::float_repr;

/// The key, inside a listed tool's object, of its JSON pointer → Python text map.
pub(crate) const EXACT_NUMBERS: &str = "\u{0}toolproof exact numbers";

/// Records the numbers of each tool in `message` (a `tools/list` response parsed from `text`)
/// that a `Value` holds differently from Python. Gives up, changing nothing, when the numbers
/// of the text and of the value do not line up (duplicate keys).
pub(crate) fn mark(message: &mut Value, text: &str) {
    if !matches!(message.pointer("/result/tools"), Some(Value::Array(_))) {
        return;
    }
    let mut per_tool: Vec<Map<String, Value>> = Vec::new();
    for (pointer, python) in differing(message, text) {
        let Some(rest) = pointer.strip_prefix("/result/tools/") else {
            continue;
        };
        let (index, within) = rest.split_once('/').unwrap_or((rest, ""));
        let Ok(index) = index.parse::<usize>() else {
            continue;
        };
        if per_tool.len() <= index {
            per_tool.resize_with(index + 1, Map::new);
        }
        per_tool[index].insert(format!("/{within}"), Value::String(python));
    }
    let Some(Value::Array(tools)) = message.pointer_mut("/result/tools") else {
        return;
    };
    for (tool, found) in tools.iter_mut().zip(per_tool) {
        if let (Value::Object(tool), false) = (tool, found.is_empty()) {
            tool.insert(EXACT_NUMBERS.to_owned(), Value::Object(found));
        }
    }
}

/// Every number of `value` (parsed from `text`) that Python would read differently, as its
/// JSON pointer and the text Python's `json.dumps` writes for it; empty when the numbers of
/// the text and of the value do not line up (duplicate keys).
pub(crate) fn differing(value: &Value, text: &str) -> Vec<(String, String)> {
    let tokens = number_tokens(text);
    if tokens.is_empty() {
        return Vec::new();
    }
    let mut numbers = Vec::new();
    collect(value, &mut String::new(), &mut numbers);
    if numbers.len() != tokens.len() {
        return Vec::new();
    }
    numbers
        .into_iter()
        .zip(tokens)
        .filter_map(|((pointer, number), token)| Some((pointer, python_text(number, token)?)))
        .collect()
}

/// A `tools/list` answer with numbers beyond a 64-bit float (`1e400`, or an integer of
/// hundreds of digits), read as Python's SDK reads it: such a float is infinite there, held
/// here as the largest finite float with Python's `Infinity` kept for the cache key, and such
/// an integer keeps its digits. `None` for any other message, which stays unreadable.
pub(crate) fn overflowing_tool_list(text: &str) -> Option<Value> {
    let mut clamped = String::with_capacity(text.len());
    let mut copied = 0;
    for token in number_tokens(text) {
        if !token.parse::<f64>().is_ok_and(f64::is_infinite) {
            continue;
        }
        let start = token.as_ptr() as usize - text.as_ptr() as usize;
        clamped.push_str(&text[copied..start]);
        if token.starts_with('-') {
            clamped.push('-');
        }
        clamped.push_str("1.7976931348623157e308");
        copied = start + token.len();
    }
    if copied == 0 {
        return None;
    }
    clamped.push_str(&text[copied..]);
    let mut message: Value = serde_json::from_str(&clamped).ok()?;
    if !matches!(message.pointer("/result/tools"), Some(Value::Array(_))) {
        return None;
    }
    mark(&mut message, text);
    Some(message)
}

/// Every number of `value` in document order, with its JSON pointer.
fn collect<'v>(value: &'v Value, at: &mut String, out: &mut Vec<(String, &'v Number)>) {
    let step = |at: &mut String, segment: &str, v: &'v Value, out: &mut Vec<_>| {
        let len = at.len();
        at.push('/');
        at.push_str(&crate::mcp::pointer::escape(segment));
        collect(v, at, out);
        at.truncate(len);
    };
    match value {
        Value::Number(n) => out.push((at.clone(), n)),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                step(at, &i.to_string(), v, out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                step(at, k, v, out);
            }
        }
        _ => {}
    }
}

/// The number tokens of a JSON text, in order (strings skipped).
fn number_tokens(text: &str) -> Vec<&str> {
    crate::pycompat::bigint::number_spans(text)
        .into_iter()
        .map(|span| &text[span])
        .collect()
}

/// What Python's `json.dumps` writes for the number spelled `token`, when that differs from
/// what the `Value` holding `number` would give; `None` when they agree.
fn python_text(number: &Number, token: &str) -> Option<String> {
    let integer = !token.contains(['.', 'e', 'E']);
    if integer {
        if token == "-0" {
            return Some("0".into());
        }
        if number.is_i64() || number.is_u64() {
            return None;
        }
        return Some(token.to_owned());
    }
    let exact: f64 = token.parse().ok()?;
    let held = number.as_f64()?;
    (exact.to_bits() != held.to_bits()).then(|| float_repr(exact))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn marked(text: &str) -> Value {
        let mut v: Value = serde_json::from_str(text).expect("json");
        mark(&mut v, text);
        v
    }

    #[test]
    fn big_integers_and_minus_zero_keep_python_text() {
        let v = marked(
            r#"{"id": 1, "result": {"tools": [{"name": "a", "inputSchema": {"maximum": 123456789012345678901234567890, "minimum": -0, "m": -0.0, "k": 7, "s": "-0"}}, {"name": "b", "x": [1, -123456789012345678901234567890]}]}}"#,
        );
        assert_eq!(
            v["result"]["tools"][0][EXACT_NUMBERS],
            json!({
                "/inputSchema/maximum": "123456789012345678901234567890",
                "/inputSchema/minimum": "0"
            })
        );
        assert_eq!(
            v["result"]["tools"][1][EXACT_NUMBERS],
            json!({"/x/1": "-123456789012345678901234567890"})
        );
    }

    #[test]
    fn a_tool_list_with_floats_beyond_range_reads_them_as_python_infinity() {
        let text = r#"{"id": 2, "result": {"tools": [{"name": "a", "inputSchema": {"maximum": 1e400, "minimum": -1E999, "big": 1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000, "f": 0.5}}]}}"#;
        assert!(serde_json::from_str::<Value>(text).is_err());
        let v = overflowing_tool_list(text).expect("read");
        assert_eq!(
            v["result"]["tools"][0]["inputSchema"]["maximum"],
            json!(f64::MAX)
        );
        let exact = &v["result"]["tools"][0][EXACT_NUMBERS];
        assert_eq!(exact["/inputSchema/maximum"], "Infinity");
        assert_eq!(exact["/inputSchema/minimum"], "-Infinity");
        assert_eq!(exact["/inputSchema/big"].as_str().map(str::len), Some(322));
        assert!(exact.get("/inputSchema/f").is_none());
        // Any other message stays unreadable.
        assert!(
            overflowing_tool_list(r#"{"id": 3, "result": {"content": [], "n": 1e400}}"#).is_none()
        );
    }

    #[test]
    fn nothing_is_marked_when_every_number_fits() {
        let v = marked(
            r#"{"result": {"tools": [{"name": "a", "n": 18446744073709551615, "f": 0.1}]}}"#,
        );
        assert!(v["result"]["tools"][0].get(EXACT_NUMBERS).is_none());
    }

    #[test]
    fn duplicate_keys_leave_the_tools_alone() {
        let v = marked(r#"{"result": {"tools": [{"n": 1, "n": 123456789012345678901234567890}]}}"#);
        assert!(v["result"]["tools"][0].get(EXACT_NUMBERS).is_none());
    }
}
