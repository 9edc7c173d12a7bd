//! Greedy shrinking: from a failing input, try simpler variants (a property or item left out,
//! a string shortened, a number moved towards zero) and keep the first that still shows the
//! finding, until no variant does or the budget is spent. "Simpler" is a strict order (shorter
//! JSON text, then the smaller text), so shrinking always ends.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value, json};

/// Shrinks `input` while `keeps` says a variant still shows the finding. `keeps` is asked at
/// most `budget` times. Returns the smallest input and how many times `keeps` was asked.
pub(crate) fn shrink(
    input: &Value,
    budget: u64,
    mut keeps: impl FnMut(&Value) -> Option<bool>,
) -> (Value, u64) {
    let mut current = input.clone();
    let mut asked = 0;
    'outer: loop {
        for candidate in variants(&current) {
            if simpler(&candidate, &current) != Ordering::Less {
                continue;
            }
            if asked >= budget {
                break 'outer;
            }
            match keeps(&candidate) {
                // Not asked: the candidate is not in the right mode (the schema decides).
                None => continue,
                Some(kept) => {
                    asked += 1;
                    if kept {
                        current = candidate;
                        continue 'outer;
                    }
                }
            }
        }
        break;
    }
    (current, asked)
}

/// The order shrinking follows: shorter JSON first, then the smaller text.
pub(crate) fn simpler(a: &Value, b: &Value) -> Ordering {
    let (ta, tb) = (a.to_string(), b.to_string());
    ta.len().cmp(&tb.len()).then_with(|| ta.cmp(&tb))
}

/// Every one-step simplification of `v`, the biggest steps first.
pub(crate) fn variants(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match v {
        Value::Object(m) => {
            for k in m.keys() {
                let mut smaller = m.clone();
                smaller.shift_remove(k);
                out.push(Value::Object(smaller));
            }
            for (k, child) in m {
                for c in variants(child) {
                    let mut changed: Map<String, Value> = m.clone();
                    changed.insert(k.clone(), c);
                    out.push(Value::Object(changed));
                }
            }
        }
        Value::Array(items) => {
            if items.len() > 1 {
                out.push(Value::Array(items[..items.len() / 2].to_vec()));
            }
            for i in 0..items.len() {
                let mut smaller = items.clone();
                smaller.remove(i);
                out.push(Value::Array(smaller));
            }
            for (i, child) in items.iter().enumerate() {
                for c in variants(child) {
                    let mut changed = items.clone();
                    changed[i] = c;
                    out.push(Value::Array(changed));
                }
            }
        }
        Value::String(s) => {
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len();
            if n > 0 {
                out.push(json!(""));
                for keep in [n / 2, n * 3 / 4, n * 7 / 8] {
                    if keep < n {
                        out.push(Value::String(chars[..keep].iter().collect()));
                    }
                }
                out.push(Value::String(chars[n / 2..].iter().collect()));
                if n <= 64 {
                    out.push(Value::String(chars[..n - 1].iter().collect()));
                    out.push(Value::String(chars[1..].iter().collect()));
                }
                let plain: String = chars
                    .iter()
                    .map(|c| if c.is_ascii_alphanumeric() { *c } else { 'a' })
                    .collect();
                if plain != *s {
                    out.push(Value::String(plain));
                }
            }
        }
        Value::Number(n) => number_variants(n, &mut out),
        Value::Bool(_) | Value::Null => {}
    }
    out
}

/// The simpler numbers: towards zero, a negative one's opposite, a float's whole part.
fn number_variants(n: &Number, out: &mut Vec<Value>) {
    if let Some(i) = n.as_i64() {
        // A negative number is also tried as its opposite: `1` is simpler than `-1`.
        let opposite = (i < 0).then(|| i.checked_neg()).flatten();
        for c in [
            Some(0),
            Some(i / 2),
            Some(i.signum()),
            Some(i - i.signum()),
            opposite,
        ]
        .into_iter()
        .flatten()
        {
            if c != i {
                out.push(json!(c));
            }
        }
    } else if let Some(f) = n.as_f64() {
        out.push(json!(0));
        if f.trunc() != f && f.abs() < 9.0e15 {
            out.push(json!(f.trunc() as i64));
        }
        out.push(json!(f.trunc()));
        let halved = (f / 2.0 * 1000.0).round() / 1000.0;
        if halved != f {
            out.push(json!(halved));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinks_to_the_smallest_input_that_keeps_the_finding() {
        // The "bug": a nested qty below zero. Everything else should go.
        let input = json!({
            "order": {"qty": -4817, "note": "a long note that does not matter", "tags": ["x", "y", "z"]},
            "customer": "someone",
            "flag": true
        });
        let (small, asked) = shrink(&input, 1000, |v| {
            Some(
                v.pointer("/order/qty")
                    .and_then(Value::as_i64)
                    .is_some_and(|q| q < 0),
            )
        });
        assert_eq!(small, json!({"order": {"qty": -1}}));
        assert!(asked > 0);
    }

    #[test]
    fn a_negative_number_shrinks_to_its_opposite_when_that_keeps_the_finding() {
        // The "bug": an odd number. Boundary inputs find it at -1 first.
        let odd = |v: &Value| Some(v["n"].as_i64().is_some_and(|n| n % 2 != 0));
        assert_eq!(shrink(&json!({"n": -1}), 100, odd).0, json!({"n": 1}));
        assert_eq!(shrink(&json!({"n": -37}), 100, odd).0, json!({"n": 1}));
    }

    #[test]
    fn a_variant_outside_the_mode_is_not_counted_and_the_budget_holds() {
        let input = json!({"text": "x".repeat(200)});
        // Only strings longer than 50 reproduce; variants without `text` are "not valid".
        let (small, _) = shrink(&input, 1000, |v| {
            v.get("text")
                .and_then(Value::as_str)
                .map(|t| t.chars().count() > 50)
        });
        assert_eq!(small["text"].as_str().map(str::len), Some(51));
        let (_, asked) = shrink(&input, 3, |_| Some(false));
        assert_eq!(asked, 3);
    }

    #[test]
    fn the_result_is_never_bigger_than_the_input() {
        let v = json!({"a": [1.5, "héllo", true, {"b": -7}], "c": null});
        // Every variant "keeps" the finding: shrinking must still end, on something simpler.
        let (small, _) = shrink(&v, 10_000, |_| Some(true));
        assert_eq!(small, json!({}));
        assert!(
            variants(&v)
                .iter()
                .any(|c| simpler(c, &v) == Ordering::Less)
        );
    }
}
