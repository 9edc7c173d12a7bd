//! Integers beyond 64 bits, kept exact as Python keeps them. serde_json's `Value` holds such an
//! integer only as a float (its `arbitrary_precision` feature would change how every number in
//! the program compares and prints), while mcp-toolproof sends and hashes the Python int that
//! PyYAML read, every digit of it.
//!
//! The config loader puts such an integer where toolproof sends it as written (`evals.params`,
//! a test's `args`, `elicitation.content`, `bench.targets[].args`) as a marked string,
//! [`value`]; the JSON writers of what toolproof sends write it as its bare digits:
//! [`to_vec`] (MCP messages, model API requests) and
//! [`crate::evals::asking::cache::pyjson`] (cache keys and files). Everywhere else the config holds the
//! nearest float ([`approx`]), which is how the reference compares a number with an argument a
//! model chose (`float(expected) == float(actual)`).

use serde_json::Value;

/// What starts the text of a marked integer; the decimal digits follow.
const MARK: &str = "\u{0}toolproof int:";

/// The marked form of the integer with decimal `digits` (a `-` first when negative).
pub(crate) fn value(digits: &str) -> Value {
    Value::String(format!("{MARK}{digits}"))
}

/// The decimal digits of a marked integer; `None` for any other string.
pub(crate) fn digits(text: &str) -> Option<&str> {
    let digits = text.strip_prefix(MARK)?;
    let unsigned = digits.strip_prefix('-').unwrap_or(digits);
    (!unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// The float nearest the integer with decimal `digits` (correctly rounded, as Python's
/// `float(int)`), the largest finite one beyond the float range.
pub(crate) fn approx(digits: &str) -> f64 {
    let x: f64 = digits.parse().unwrap_or(0.0);
    if x.is_infinite() {
        f64::MAX.copysign(x)
    } else {
        x
    }
}

/// The JSON text of `value` as `serde_json::to_vec` writes it, with each marked integer written
/// as its digits.
pub(crate) fn to_vec(value: &Value) -> serde_json::Result<Vec<u8>> {
    if !holds_marked(value) {
        return serde_json::to_vec(value);
    }
    let mut out = Vec::new();
    write(&mut out, value)?;
    Ok(out)
}

/// `value` with each marked integer replaced by its nearest float ([`approx`]): what a
/// judgement or a report reads, where the reference compares `float(expected) ==
/// float(actual)`.
pub(crate) fn approx_value(value: &Value) -> Value {
    if !holds_marked(value) {
        return value.clone();
    }
    match value {
        Value::String(s) => match digits(s).and_then(|d| serde_json::Number::from_f64(approx(d))) {
            Some(n) => Value::Number(n),
            None => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(approx_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), approx_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// [`to_vec`] as a `String`.
pub(crate) fn to_string(value: &Value) -> String {
    to_vec(value)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| value.to_string())
}

/// Reads JSON `text` as `serde_json::from_str` does, but keeps each integer beyond 64 bits as
/// its marked form ([`value`]) rather than the nearest float: what toolproof is given to send
/// on (a `session` request's arguments, a model's arguments written into the cache) keeps
/// every digit, as Python's `json.loads` keeps it.
pub(crate) fn from_str(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str(&marked(text))
}

/// [`from_str`] into any type: its `Value` members keep every digit of a big integer.
pub(crate) fn from_str_as<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_str(&marked(text))
}

/// `text` with each integer beyond 64 bits replaced by its marked form, as a JSON string.
fn marked(text: &str) -> std::borrow::Cow<'_, str> {
    // An integer beyond 64 bits has at least 19 digits in a row; most texts have no such run.
    let mut run = 0;
    let long_run = text.bytes().any(|b| {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        run >= 19
    });
    if !long_run {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut rewritten: Option<String> = None;
    let mut copied = 0;
    for span in number_spans(text) {
        let token = &text[span.clone()];
        if big_integer(token) {
            let out = rewritten.get_or_insert_with(|| String::with_capacity(text.len() + 32));
            out.push_str(&text[copied..span.start]);
            out.push('"');
            out.push_str("\\u0000toolproof int:");
            out.push_str(token);
            out.push('"');
            copied = span.end;
        }
    }
    match rewritten {
        None => std::borrow::Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            std::borrow::Cow::Owned(out)
        }
    }
}

/// Where the number tokens of a JSON text stand, in order; strings are skipped, escapes and
/// all. A rough lexer: on a text that is not JSON it still ends, and the parser says why.
pub(crate) fn number_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                out.push(start..i);
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether `token` is a JSON integer (`-?(0|[1-9][0-9]*)`) that fits neither `i64` nor `u64`.
fn big_integer(token: &str) -> bool {
    let unsigned = token.strip_prefix('-').unwrap_or(token);
    !unsigned.is_empty()
        && unsigned.bytes().all(|b| b.is_ascii_digit())
        && !(unsigned.len() > 1 && unsigned.starts_with('0'))
        && token.parse::<i64>().is_err()
        && token.parse::<u64>().is_err()
}

fn holds_marked(value: &Value) -> bool {
    match value {
        Value::String(s) => digits(s).is_some(),
        Value::Array(items) => items.iter().any(holds_marked),
        Value::Object(map) => map.values().any(holds_marked),
        _ => false,
    }
}

fn write(out: &mut Vec<u8>, value: &Value) -> serde_json::Result<()> {
    match value {
        Value::String(s) => match digits(s) {
            Some(d) => out.extend_from_slice(d.as_bytes()),
            None => serde_json::to_writer(&mut *out, s)?,
        },
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(out, item)?;
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, k)?;
                out.push(b':');
                write(out, v)?;
            }
            out.push(b'}');
        }
        other => serde_json::to_writer(&mut *out, other)?,
    }
    Ok(())
}

/// A whole number of any size, built digit by digit, for [`Whole::decimal`] text.
#[derive(Debug, Clone, Default)]
pub(crate) struct Whole {
    /// Base 10^9 limbs, least significant first.
    limbs: Vec<u32>,
}

impl Whole {
    const BASE: u64 = 1_000_000_000;

    /// `self * by + add`.
    pub(crate) fn mul_add(&mut self, by: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.limbs {
            let n = u64::from(*limb) * u64::from(by) + carry;
            *limb = (n % Self::BASE) as u32;
            carry = n / Self::BASE;
        }
        while carry > 0 {
            self.limbs.push((carry % Self::BASE) as u32);
            carry /= Self::BASE;
        }
    }

    /// The number written in `radix` with `digits` (every character a digit of that radix).
    pub(crate) fn parse(digits: &str, radix: u32) -> Option<Whole> {
        let mut n = Whole::default();
        for c in digits.chars() {
            n.mul_add(radix, c.to_digit(radix)?);
        }
        Some(n)
    }

    /// Decimal text, `-` first when `negative` and not zero.
    pub(crate) fn decimal(&self, negative: bool) -> String {
        let mut limbs = self.limbs.iter().rev().skip_while(|l| **l == 0);
        let Some(first) = limbs.next() else {
            return "0".to_owned();
        };
        let mut out = if negative {
            "-".to_owned()
        } else {
            String::new()
        };
        out.push_str(&first.to_string());
        for limb in limbs {
            out.push_str(&format!("{limb:09}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marked_integers_are_written_as_their_digits_and_nothing_else_changes() {
        let v = json!({
            "seed": value("123456789012345678901234567890"),
            "n": [value("-340282366920938463463374607431768211457"), 1.5, 1e300, "x\u{0}"],
            "s": "\u{0}toolproof int:12a",
            "k\"": {"é": null, "b": true},
        });
        let text = String::from_utf8(to_vec(&v).expect("write")).expect("utf-8");
        assert_eq!(
            text,
            concat!(
                r#"{"seed":123456789012345678901234567890,"#,
                r#""n":[-340282366920938463463374607431768211457,1.5,1e+300,"x\u0000"],"#,
                r#""s":"\u0000toolproof int:12a","k\"":{"é":null,"b":true}}"#
            )
        );
        let plain = json!({"a": [1, 2.5, "\u{0}toolproof int:"], "b": {"c": -0.0}});
        assert_eq!(
            to_vec(&plain).expect("write"),
            serde_json::to_vec(&plain).expect("write")
        );
    }

    #[test]
    fn big_integers_read_from_json_keep_every_digit() {
        let text = r#"{"n": 1180591620717411303425, "m": [-18446744073709551617, 18446744073709551615, -9223372036854775808], "s": "1180591620717411303425 \" 99999999999999999999", "f": 1e30, "g": 1.5}"#;
        let v = from_str(text).expect("reads");
        assert_eq!(v["n"], value("1180591620717411303425"));
        assert_eq!(v["m"][0], value("-18446744073709551617"));
        assert_eq!(v["m"][1], json!(18446744073709551615u64));
        assert_eq!(v["m"][2], json!(i64::MIN));
        assert_eq!(
            v["s"],
            json!("1180591620717411303425 \" 99999999999999999999")
        );
        assert_eq!(v["f"], json!(1e30));
        assert_eq!(
            to_string(&v),
            r#"{"n":1180591620717411303425,"m":[-18446744073709551617,18446744073709551615,-9223372036854775808],"s":"1180591620717411303425 \" 99999999999999999999","f":1e+30,"g":1.5}"#
        );
        // Nothing else changes: plain JSON reads as serde_json reads it, and bad JSON fails.
        let plain = r#"{"a": [1, -2, 3.25, "x"], "b": null}"#;
        assert_eq!(
            from_str(plain).expect("reads"),
            serde_json::from_str::<Value>(plain).expect("reads")
        );
        assert!(from_str("{\"a\": 012345678901234567890123}").is_err());
        assert!(from_str("[123456789012345678901234567890").is_err());
        // The shortest integer beyond 64 bits has 19 digits.
        let v = from_str("[-9223372036854775809, 922337203685477580]").expect("reads");
        assert_eq!(v[0], value("-9223372036854775809"));
        assert_eq!(v[1], json!(922337203685477580u64));
    }

    #[test]
    fn wholes_of_any_radix_print_in_decimal() {
        let hex = Whole::parse("100000000000000000000000000000001", 16).expect("hex");
        assert_eq!(
            hex.decimal(false),
            "340282366920938463463374607431768211457"
        );
        assert_eq!(
            hex.decimal(true),
            "-340282366920938463463374607431768211457"
        );
        assert_eq!(Whole::parse("000", 8).expect("octal").decimal(true), "0");
        assert_eq!(
            Whole::parse("1000000000", 10).expect("dec").decimal(false),
            "1000000000"
        );
        assert!(Whole::parse("12", 2).is_none());
        let mut sexagesimal = Whole::parse("1", 10).expect("one");
        for _ in 0..24 {
            sexagesimal.mul_add(60, 0);
        }
        assert_eq!(
            sexagesimal.decimal(false),
            "4738381338321616896000000000000000000000000"
        );
        assert_eq!(
            approx("123456789012345678901234567890"),
            1.2345678901234568e29
        );
        assert_eq!(approx(&format!("-1{}", "0".repeat(400))), -f64::MAX);
    }
}
