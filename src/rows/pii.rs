//! Redaction of what a transcript must not carry into the set: email addresses, phone
//! numbers, card numbers (those passing the Luhn check), keys and tokens (the shapes of the
//! common providers' API keys, GitHub, Slack, AWS and Google keys, JWTs and bearer tokens,
//! plus the run's own secrets), each replaced by `[email]`, `[phone]`, `[card]` or `[key]`
//! and counted by kind.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::report::redact::Redactor;

/// The shapes of keys and tokens.
static KEYS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(?:sk|pk|rk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_\-]{16,}",
        r"|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}",
        r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        r"|\bAIza[0-9A-Za-z_\-]{35}",
        r"|\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        r"|(?i:bearer)\s+[A-Za-z0-9._~+/\-]{16,}=*",
        r"|(?i:(?:api[_-]?key|token|secret|password)\s*[:=]\s*)[A-Za-z0-9._~+/\-]{12,}",
    ))
    .expect("key pattern")
});

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
        .expect("email pattern")
});

/// Runs of digits with spaces, dashes, dots or brackets between them, maybe after a `+`.
static DIGITS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\+?\(?\d[\d\s().\-]{6,}\d").expect("digits pattern"));

/// An ISO date or a time, which a digit run must not be taken for.
static DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$").expect("date pattern")
});

/// What was redacted, by kind.
pub(crate) type Counts = BTreeMap<&'static str, usize>;

/// Redacts texts and counts what it replaced.
pub(crate) struct Pii {
    secrets: Redactor,
    /// What was replaced so far, by kind.
    pub counts: Counts,
}

impl Pii {
    /// A redactor that masks the run's `secrets` too.
    pub(crate) fn new(secrets: &[String]) -> Pii {
        Pii {
            secrets: Redactor::new(secrets),
            counts: Counts::new(),
        }
    }

    /// `text` with every secret, key, email, card and phone number replaced.
    pub(crate) fn text(&mut self, text: &str) -> String {
        let mut out = self.secrets.apply(text).into_owned();
        let masked = out.matches(crate::report::redact::MASK).count()
            - text.matches(crate::report::redact::MASK).count();
        if masked > 0 {
            *self.counts.entry("key").or_default() += masked;
            out = out.replace(crate::report::redact::MASK, "[key]");
        }
        out = self.replace(&KEYS, &out, "key");
        out = self.replace(&EMAIL, &out, "email");
        self.numbers(&out)
    }

    /// Every string of `value` redacted.
    pub(crate) fn value(&mut self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn replace(&mut self, pattern: &Regex, text: &str, kind: &'static str) -> String {
        let n = pattern.find_iter(text).count();
        if n == 0 {
            return text.to_owned();
        }
        *self.counts.entry(kind).or_default() += n;
        pattern.replace_all(text, format!("[{kind}]")).into_owned()
    }

    /// Card numbers (13 to 19 digits passing Luhn) and phone numbers (9 to 15 digits, not a
    /// date).
    fn numbers(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for m in DIGITS.find_iter(text) {
            let run = m.as_str().trim_end_matches([' ', '.', '-', '(']);
            let digits: String = run.chars().filter(char::is_ascii_digit).collect();
            let kind = if (13..=19).contains(&digits.len()) && luhn(&digits) {
                "card"
            } else if (9..=15).contains(&digits.len()) && !DATE.is_match(run.trim()) {
                "phone"
            } else {
                continue;
            };
            *self.counts.entry(kind).or_default() += 1;
            out.push_str(&text[last..m.start()]);
            out.push_str(&format!("[{kind}]"));
            last = m.start() + run.len();
        }
        out.push_str(&text[last..]);
        out
    }
}

/// The Luhn check of a card number.
fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let d2 = d * 2;
                if d2 > 9 { d2 - 9 } else { d2 }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_replaced_and_counted() {
        let mut pii = Pii::new(&["hunter2-the-run-secret".to_owned()]);
        let text = "mail ana.silva@example.co.uk or call +44 20 7946 0958, card 4111 1111 1111 1111, \
                    key sk-ant-api03-abcdefghijklmnop1234, token ghp_abcdefghijklmnopqrstuvwx, \
                    secret hunter2-the-run-secret, on 2026-12-06 for 3 days in 90210";
        let out = pii.text(text);
        for gone in ["ana.silva", "7946", "1111", "sk-ant", "ghp_", "hunter2"] {
            assert!(!out.contains(gone), "{gone} left in {out}");
        }
        for kept in ["2026-12-06", "3 days", "90210"] {
            assert!(out.contains(kept), "{kept} lost in {out}");
        }
        assert_eq!(
            pii.counts,
            Counts::from([("card", 1), ("email", 1), ("key", 3), ("phone", 1)])
        );
    }

    #[test]
    fn values_are_redacted_string_by_string() {
        let mut pii = Pii::new(&[]);
        let v = pii.value(&serde_json::json!({"to": "bo@example.com", "n": 2}));
        assert_eq!(v, serde_json::json!({"to": "[email]", "n": 2}));
    }
}
