//! Reading JSON Schema keywords for the generators: the type a schema implies, its required
//! names, bounds, local `$ref`s and `allOf` merged into one schema.

use serde_json::{Map, Value};

/// `type` a schema without one implies from its keywords.
pub(super) fn implied_type(s: &Map<String, Value>) -> &'static str {
    let has = |keys: &[&str]| keys.iter().any(|k| s.contains_key(*k));
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
    ]) {
        "object"
    } else if has(&[
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
    ]) {
        "array"
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        "string"
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        "number"
    } else {
        "any"
    }
}

/// The names in `required`.
pub(crate) fn required_names(s: &Map<String, Value>) -> Vec<String> {
    s.get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn required_in(out: &Map<String, Value>, required: &[String]) -> usize {
    required.iter().filter(|r| out.contains_key(*r)).count()
}

pub(super) fn usize_of(s: &Map<String, Value>, key: &str) -> Option<usize> {
    s.get(key)
        .and_then(Value::as_f64)
        .map(|v| v.max(0.0) as usize)
}

pub(super) fn i64_of(s: &Map<String, Value>, key: &str) -> Option<i64> {
    s.get(key).and_then(Value::as_f64).map(|v| v as i64)
}

/// The inclusive bound from `minimum`/`exclusiveMinimum` (draft 6+ number or draft 4 boolean),
/// or the maximum side.
pub(crate) fn bound(
    s: &Map<String, Value>,
    inclusive: &str,
    exclusive: &str,
    low: bool,
) -> Option<f64> {
    let step = if low { 1.0 } else { -1.0 };
    let incl = s.get(inclusive).and_then(Value::as_f64);
    let excl = match s.get(exclusive) {
        Some(Value::Number(n)) => n.as_f64().map(|v| v + step * 1e-3),
        Some(Value::Bool(true)) => incl.map(|v| v + step * 1e-3),
        _ => None,
    };
    match (incl, excl) {
        (Some(a), Some(b)) => Some(if low { a.max(b) } else { a.min(b) }),
        (a, b) => b.or(a),
    }
}

/// Integer bounds (inclusive), `None` when no integer fits.
pub(super) fn int_bounds(s: &Map<String, Value>) -> Option<(i64, i64)> {
    let int_side = |inclusive: &str, exclusive: &str, low: bool| -> Option<i64> {
        let incl = s.get(inclusive).and_then(Value::as_f64);
        let excl = match s.get(exclusive) {
            Some(Value::Number(n)) => n
                .as_f64()
                .map(|v| if low { v.floor() + 1.0 } else { v.ceil() - 1.0 }),
            Some(Value::Bool(true)) => {
                incl.map(|v| if low { v.floor() + 1.0 } else { v.ceil() - 1.0 })
            }
            _ => None,
        };
        let incl = incl.map(|v| if low { v.ceil() } else { v.floor() });
        let v = match (incl, excl) {
            (Some(a), Some(b)) => Some(if low { a.max(b) } else { a.min(b) }),
            (a, b) => b.or(a),
        }?;
        Some(v.clamp(-9.0e15, 9.0e15) as i64)
    };
    let lo = int_side("minimum", "exclusiveMinimum", true).unwrap_or(i64::MIN / 2);
    let hi = int_side("maximum", "exclusiveMaximum", false).unwrap_or(i64::MAX / 2);
    (lo <= hi).then_some((lo, hi))
}

/// A local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer) into the root.
pub(crate) fn resolve<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    let decoded = percent_decode(pointer);
    root.pointer(&decoded)
}

pub(super) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `s` without its combinator `key`s, merged with each of `parts` (refs resolved one level):
/// properties and required names are unioned, the tighter bound wins, other keys are taken as
/// they come. Good enough for the `allOf` schemas tools declare; the validator judges the rest.
pub(super) fn merge_all(s: &Map<String, Value>, parts: &[Value], root: &Value) -> Value {
    let mut out: Map<String, Value> = s
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "allOf" | "oneOf" | "anyOf"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for part in parts {
        let part = match part.get("$ref").and_then(Value::as_str) {
            Some(r) => resolve(root, r).unwrap_or(part),
            None => part,
        };
        let Some(p) = part.as_object() else { continue };
        for (k, v) in p {
            merge_key(&mut out, k, v);
        }
    }
    Value::Object(out)
}

pub(super) fn merge_key(out: &mut Map<String, Value>, k: &str, v: &Value) {
    match (k, out.get_mut(k)) {
        ("properties", Some(Value::Object(mine))) => {
            if let Value::Object(theirs) = v {
                for (name, sub) in theirs {
                    mine.entry(name.clone()).or_insert_with(|| sub.clone());
                }
            }
        }
        ("required", Some(Value::Array(mine))) => {
            if let Value::Array(theirs) = v {
                for r in theirs {
                    if !mine.contains(r) {
                        mine.push(r.clone());
                    }
                }
            }
        }
        ("minimum" | "minLength" | "minItems" | "exclusiveMinimum", Some(mine)) => {
            if v.as_f64() > mine.as_f64() {
                *mine = v.clone();
            }
        }
        ("maximum" | "maxLength" | "maxItems" | "exclusiveMaximum", Some(mine)) => {
            if v.as_f64() < mine.as_f64() {
                *mine = v.clone();
            }
        }
        (_, Some(_)) => {}
        (_, None) => {
            out.insert(k.to_owned(), v.clone());
        }
    }
}
