//! A finding as a `tests:` entry to paste into `toolproof.yaml`. Every string is written as a
//! double-quoted YAML scalar with everything outside printable ASCII escaped (`\uXXXX`,
//! `\UXXXXXXXX`), so line separators, NEL, BOM or control characters in an input cannot change
//! what the YAML means; numbers are written so that YAML 1.1 readers (PyYAML) read them back
//! as numbers.

use serde_json::Value;

use super::classify::Mode;

/// What the entry needs to know about the finding.
pub(crate) struct EntryFacts<'a> {
    /// Tool name.
    pub tool: &'a str,
    /// Finding kind, for the test name.
    pub kind: &'a str,
    /// Valid or invalid input.
    pub mode: Mode,
    /// The (shrunk) input.
    pub input: &'a Value,
    /// Timeout of a hang, so the test fails the same way.
    pub timeout_ms: Option<f64>,
}

/// The entry, starting with `- name:` and ending with a newline. The test states what the
/// tool should do (succeed on a valid input, fail on an invalid one), so it fails until the
/// finding is fixed.
pub(crate) fn test_entry(f: &EntryFacts<'_>) -> String {
    let mut out = format!(
        "- name: {}\n  tool: {}\n  args: {}\n",
        quoted(&format!("fuzz {} {} ({})", f.tool, f.kind, f.mode.as_str())),
        quoted(f.tool),
        flow(f.input)
    );
    if let Some(ms) = f.timeout_ms {
        out.push_str(&format!("  timeout_ms: {ms}\n"));
    }
    let is_error = f.mode == Mode::Invalid;
    out.push_str(&format!("  expect:\n    is_error: {is_error}\n"));
    out
}

/// A value in YAML flow style.
pub(crate) fn flow(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (None, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => number(f),
            _ => n.to_string(),
        },
        Value::String(s) => quoted(s),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", quoted(k), flow(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// A float YAML 1.1 reads as a float: always a `.` in the mantissa and a signed exponent.
fn number(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
        return format!("{f:.1}");
    }
    if f.abs() >= 1e-4 && f.abs() < 1e15 {
        return format!("{f}");
    }
    let s = format!("{f:e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_owned()
    } else {
        format!("{mantissa}.0")
    };
    let exp = if exp.starts_with('-') {
        exp.to_owned()
    } else {
        format!("+{exp}")
    };
    format!("{mantissa}e{exp}")
}

/// A double-quoted YAML scalar with only printable ASCII inside.
pub(crate) fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_entry_reads_back_as_the_same_test() {
        let input = json!({
            "text": "line\u{2028}sep\u{85}nel\u{feff}bom\u{0}nul \"q\" \\ 😀 : # {x}",
            "n": -3,
            "f": 1.5e300,
            "g": 0.25,
            "list": [true, null, {"k y": []}]
        });
        let yaml = test_entry(&EntryFacts {
            tool: "we\"ird: tool",
            kind: "crash",
            mode: Mode::Valid,
            input: &input,
            timeout_ms: Some(250.0),
        });
        assert!(yaml.is_ascii(), "{yaml}");
        let back: Vec<serde_json::Value> = serde_saphyr::from_str(&yaml).expect("valid YAML");
        assert_eq!(back[0]["tool"], json!("we\"ird: tool"));
        assert_eq!(back[0]["args"], input);
        assert_eq!(back[0]["timeout_ms"].as_f64(), Some(250.0));
        assert_eq!(back[0]["expect"]["is_error"], json!(false));
    }

    #[test]
    fn floats_keep_a_dot_and_a_signed_exponent() {
        assert_eq!(number(1e300), "1.0e+300");
        assert_eq!(number(2.5e-7), "2.5e-7");
        assert_eq!(number(3.0), "3.0");
        assert_eq!(number(0.125), "0.125");
    }
}
