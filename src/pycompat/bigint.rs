//! Integers beyond 64 bits, kept exact as Python keeps them. serde_json's `Value` holds such an
//! integer only as a float (its `arbitrary_precision` feature would change how every number in
//! the program compares and prints), while mcp-toolproof sends and hashes the Python int that
//! PyYAML read, every digit of it.
//!
//! The config loader puts such an integer where toolproof sends it as written (`evals.params`,
//! a test's `args`, `elicitation.content`, `bench.targets[].args`) as a marked string,
//! [`value`]; the JSON writers of what toolproof sends write it as its bare digits:
//! [`to_vec`] (MCP messages, model API requests) and
//! [`crate::evals::cache::pyjson`] (cache keys and files). Everywhere else the config holds the
//! nearest float ([`approx`]), which is how the reference compares a number with an argument a
//! model chose (`float(expected) == float(actual)`).

use serde_json::Value;

/// What starts the text of a marked integer; the decimal digits follow.
const MARK: &str = "\u{0}toolproof int:";

/// The marked form of the integer with decimal `digits` (a `-` first when negative).
pub fn value(digits: &str) -> Value {
    Value::String(format!("{MARK}{digits}"))
}

/// The decimal digits of a marked integer; `None` for any other string.
pub fn digits(text: &str) -> Option<&str> {
    let digits = text.strip_prefix(MARK)?;
    let unsigned = digits.strip_prefix('-').unwrap_or(digits);
    (!unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// The float nearest the integer with decimal `digits` (correctly rounded, as Python's
/// `float(int)`), the largest finite one beyond the float range.
pub fn approx(digits: &str) -> f64 {
    let x: f64 = digits.parse().unwrap_or(0.0);
    if x.is_infinite() {
        f64::MAX.copysign(x)
    } else {
        x
    }
}

/// The JSON text of `value` as `serde_json::to_vec` writes it, with each marked integer written
/// as its digits.
pub fn to_vec(value: &Value) -> serde_json::Result<Vec<u8>> {
    if !holds_marked(value) {
        return serde_json::to_vec(value);
    }
    let mut out = Vec::new();
    write(&mut out, value)?;
    Ok(out)
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
pub struct Whole {
    /// Base 10^9 limbs, least significant first.
    limbs: Vec<u32>,
}

impl Whole {
    const BASE: u64 = 1_000_000_000;

    /// `self * by + add`.
    pub fn mul_add(&mut self, by: u32, add: u32) {
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
    pub fn parse(digits: &str, radix: u32) -> Option<Whole> {
        let mut n = Whole::default();
        for c in digits.chars() {
            n.mul_add(radix, c.to_digit(radix)?);
        }
        Some(n)
    }

    /// Decimal text, `-` first when `negative` and not zero.
    pub fn decimal(&self, negative: bool) -> String {
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
