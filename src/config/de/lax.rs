//! Scalars as pydantic's lax mode reads them: number text with `_` between digits, the
//! words it takes for booleans, and floats that are whole numbers.

use super::*;

/// Number text as pydantic reads it: surrounding white space dropped, and `_` between digits
/// (`1_000`) removed.
pub(super) fn number_text(s: &str) -> String {
    let s = s.trim();
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        let between_digits = i > 0
            && bytes[i - 1].is_ascii_digit()
            && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
        if c != '_' || !between_digits {
            out.push(c);
        }
    }
    out
}

/// A boolean as pydantic's lax mode reads one: `true`/`false`, `0`/`1` (also `0.0`/`1.0`), and
/// in any letter case the words `true`, `false`, `t`, `f`, `yes`, `no`, `y`, `n`, `on`, `off`
/// and the text `1`/`0`.
pub(super) fn lax_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Int(0) | Value::UInt(0) => Some(false),
        Value::Int(1) | Value::UInt(1) => Some(true),
        Value::Float(x) if *x == 0.0 => Some(false),
        Value::Float(x) if *x == 1.0 => Some(true),
        Value::Str(s) => match s.to_lowercase().as_str() {
            "true" | "t" | "yes" | "y" | "on" | "1" => Some(true),
            "false" | "f" | "no" | "n" | "off" | "0" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn float_to_whole(x: f64) -> Option<i128> {
    (x.is_finite() && x.fract() == 0.0 && x.abs() < 1e30).then_some(x as i128)
}
