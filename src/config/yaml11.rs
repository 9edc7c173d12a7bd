//! Plain scalars read the YAML 1.1 way, as mcp-toolproof's loader (PyYAML `safe_load`) reads
//! them, so a config sends the same arguments and hashes the same eval cache keys in both tools:
//! `yes`/`off` are booleans, `0755` is octal, `0x1F` hex, `1:30` is 90, `1e3` (no dot) is text,
//! `1.5e+3` a float, `2024-01-15` a timestamp.
//!
//! Only plain (unquoted, untagged) scalars come here; quoted and block scalars are text.
//! A timestamp becomes the text the reference's MCP client puts on the wire for it (ISO 8601,
//! `T` between date and time, microseconds only when not zero, `Z` for UTC).

use std::sync::LazyLock;

use regex::Regex;

use crate::pycompat::bigint::Whole;

/// What a plain scalar means under YAML 1.1.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar {
    /// `~`, `null`, `Null`, `NULL` or nothing.
    Null,
    /// `yes`/`no`/`true`/`false`/`on`/`off` in lower, title or upper case.
    Bool(bool),
    /// An integer that fits in 128 bits.
    Int(i128),
    /// An integer too large for 128 bits, as its decimal digits (`-` first when negative): a
    /// Python int, which the reference sends and hashes with every digit.
    BigInt(String),
    /// A float, possibly infinite or NaN.
    Float(f64),
    /// A date or date-time, as ISO 8601 text.
    Timestamp(String),
    /// Anything else, unchanged.
    Str(String),
}

static BOOL: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")
});
static FLOAT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?",
        r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
        r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
        r"|[-+]?\.(?:inf|Inf|INF)",
        r"|\.(?:nan|NaN|NAN))$",
    ))
});
static INT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"^(?:[-+]?0b[0-1_]+",
        r"|[-+]?0[0-7_]+",
        r"|[-+]?(?:0|[1-9][0-9_]*)",
        r"|[-+]?0x[0-9a-fA-F_]+",
        r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
    ))
});
static NULL: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:~|null|Null|NULL|)$"));
/// Which plain scalars are timestamps.
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
        r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?",
        r"(?:[Tt]|[ \t]+)[0-9][0-9]?",
        r":[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?",
        r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$",
    ))
});
/// The parts of a timestamp.
static TIMESTAMP_PARTS: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"^(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})",
        r"(?:(?:[Tt]|[ \t]+)(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})",
        r"(?:\.(?P<fraction>[0-9]*))?",
        r"(?:[ \t]*(?P<tz>Z|(?P<sign>[-+])(?P<tzh>[0-9]{1,2})(?::(?P<tzm>[0-9]{2}))?))?)?$",
    ))
});

fn re(pattern: &str) -> Regex {
    // The patterns are constants; a typo is caught by every test that resolves a scalar.
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("bad built-in pattern: {e}"))
}

/// Resolves a plain scalar the way PyYAML's SafeLoader does. A scalar PyYAML would refuse to
/// construct (`=`, `0x_`, `2024-02-30`) stays text: the reference cannot load such a file at
/// all, and text is the most useful reading.
pub(crate) fn resolve(text: &str) -> Scalar {
    let first = text.chars().next();
    let candidates: &[fn(&str) -> Option<Scalar>] = match first {
        None => &[null],
        Some('y' | 'Y' | 't' | 'T' | 'f' | 'F' | 'o' | 'O') => &[boolean],
        Some('n' | 'N') => &[boolean, null],
        Some('~') => &[null],
        Some('0'..='9') => &[float, int, timestamp],
        Some('-' | '+') => &[float, int],
        Some('.') => &[float],
        _ => &[],
    };
    for candidate in candidates {
        if let Some(value) = candidate(text) {
            return value;
        }
    }
    Scalar::Str(text.to_owned())
}

fn boolean(text: &str) -> Option<Scalar> {
    BOOL.is_match(text).then(|| {
        Scalar::Bool(matches!(
            text.to_ascii_lowercase().as_str(),
            "yes" | "true" | "on"
        ))
    })
}

fn null(text: &str) -> Option<Scalar> {
    NULL.is_match(text).then_some(Scalar::Null)
}

/// Splits a leading sign off: (negative, rest).
fn sign(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

fn float(text: &str) -> Option<Scalar> {
    if !FLOAT.is_match(text) {
        return None;
    }
    let cleaned = text.replace('_', "").to_ascii_lowercase();
    let (negative, body) = sign(&cleaned);
    let magnitude = match body {
        ".inf" => f64::INFINITY,
        ".nan" => f64::NAN,
        _ if body.contains(':') => {
            let mut total = 0.0_f64;
            let mut base = 1.0_f64;
            for part in body.split(':').rev() {
                total += part.parse::<f64>().ok()? * base;
                base *= 60.0;
            }
            total
        }
        _ => body.parse::<f64>().ok()?,
    };
    Some(Scalar::Float(if negative { -magnitude } else { magnitude }))
}

fn int(text: &str) -> Option<Scalar> {
    if !INT.is_match(text) {
        return None;
    }
    let cleaned = text.replace('_', "");
    let (negative, body) = sign(&cleaned);
    let (digits, radix) = if body == "0" {
        ("0", 10)
    } else if let Some(rest) = body.strip_prefix("0b") {
        (rest, 2)
    } else if let Some(rest) = body.strip_prefix("0x") {
        (rest, 16)
    } else if body.starts_with('0') {
        (body, 8)
    } else if body.contains(':') {
        return sexagesimal_int(body, negative);
    } else {
        (body, 10)
    };
    if digits.is_empty() {
        // `0b_` and `0x_`: PyYAML fails on them.
        return None;
    }
    whole(digits, radix, negative)
}

/// `digits` in `radix`, as an `i128` when it fits, else as decimal digits.
fn whole(digits: &str, radix: u32, negative: bool) -> Option<Scalar> {
    if let Ok(n) = i128::from_str_radix(digits, radix) {
        return Some(Scalar::Int(if negative { -n } else { n }));
    }
    Some(big(Whole::parse(digits, radix)?, negative))
}

fn sexagesimal_int(body: &str, negative: bool) -> Option<Scalar> {
    let mut parts = body.split(':');
    let mut total = Whole::parse(parts.next()?, 10)?;
    for part in parts {
        total.mul_add(60, part.parse().ok()?);
    }
    Some(big(total, negative))
}

/// `n` as an `Int` when it fits in 128 bits, else as a `BigInt`.
fn big(n: Whole, negative: bool) -> Scalar {
    let text = n.decimal(negative);
    match text.parse::<i128>() {
        Ok(n) => Scalar::Int(n),
        Err(_) => Scalar::BigInt(text),
    }
}

fn timestamp(text: &str) -> Option<Scalar> {
    if !TIMESTAMP.is_match(text) {
        return None;
    }
    let caps = TIMESTAMP_PARTS.captures(text)?;
    let num = |name: &str| caps.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
    let (year, month, day) = (num("year")?, num("month")?, num("day")?);
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > days_in(year, month) {
        return None;
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    let Some(hour) = num("hour") else {
        return Some(Scalar::Timestamp(date));
    };
    let (minute, second) = (num("minute")?, num("second")?);
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut out = format!("{date}T{hour:02}:{minute:02}:{second:02}");
    if let Some(fraction) = caps.name("fraction") {
        let micros: String = fraction
            .as_str()
            .chars()
            .chain(std::iter::repeat('0'))
            .take(6)
            .collect();
        if micros != "000000" {
            out.push('.');
            out.push_str(&micros);
        }
    }
    if let Some(sign) = caps.name("sign") {
        let minutes = num("tzh")? * 60 + num("tzm").unwrap_or(0);
        if minutes >= 24 * 60 {
            return None;
        }
        if minutes == 0 {
            out.push('Z');
        } else {
            let sign = if sign.as_str() == "-" { '-' } else { '+' };
            out.push_str(&format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60));
        }
    } else if caps.name("tz").is_some() {
        out.push('Z');
    }
    Some(Scalar::Timestamp(out))
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests;
