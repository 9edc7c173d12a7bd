//! Invalid inputs with exactly one defect each, at any depth: a valid input is walked beside its
//! schema, every place a defect can go is listed, and one is planted. The caller keeps it only
//! when the schema validator rejects the result.

use serde_json::{Map, Value, json};

use super::keywords::{bound, required_names, resolve};
use crate::mcp::pointer::escape;
use crate::rng::Rng;

/// One way an input breaks its schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Defect {
    /// A required property left out.
    Missing(String),
    /// A value of a type the schema does not allow.
    WrongType(Value),
    /// `null` where null is not allowed.
    Null,
    /// A number below `minimum` or above `maximum`.
    OutOfRange(Value),
    /// A string longer than `maxLength`.
    TooLong(usize),
    /// A string shorter than `minLength`.
    TooShort(usize),
    /// A property `additionalProperties: false` forbids.
    Extra,
    /// A value outside `enum`.
    NotInEnum(Value),
}

/// A defect at a place (a JSON pointer into the input, `""` for the whole input).
#[derive(Debug, Clone)]
pub(crate) struct Planted {
    /// Where.
    pub at: String,
    /// What.
    pub defect: Defect,
}

/// Every defect that can be planted in `value` (valid for `schema`), at every depth.
pub(crate) fn candidates(root: &Value, value: &Value) -> Vec<Planted> {
    let mut out = Vec::new();
    walk(root, root, value, String::new(), &mut out, 0);
    out
}

/// Plants one defect, chosen with `rng`, into a copy of `value`.
pub(crate) fn plant(root: &Value, value: &Value, rng: &mut Rng) -> Option<(Value, Planted)> {
    let all = candidates(root, value);
    if all.is_empty() {
        return None;
    }
    let planted = rng.pick(&all).clone();
    Some((apply(value, &planted), planted))
}

/// `value` with `planted` applied.
pub(crate) fn apply(value: &Value, planted: &Planted) -> Value {
    let mut out = value.clone();
    let Some(target) = out.pointer_mut(&planted.at) else {
        return out;
    };
    match &planted.defect {
        Defect::Missing(name) => {
            if let Value::Object(m) = target {
                m.shift_remove(name);
            }
        }
        Defect::Extra => {
            if let Value::Object(m) = target {
                let mut key = "unexpected".to_owned();
                while m.contains_key(&key) {
                    key.push('_');
                }
                m.insert(key, json!("x"));
            }
        }
        Defect::WrongType(v) | Defect::OutOfRange(v) | Defect::NotInEnum(v) => *target = v.clone(),
        Defect::Null => *target = Value::Null,
        Defect::TooLong(n) | Defect::TooShort(n) => *target = Value::String("x".repeat(*n)),
    }
    out
}

/// The schema as it applies here: `$ref` followed and `allOf` parts merged in (shallowly).
fn effective(root: &Value, schema: &Value) -> Map<String, Value> {
    let mut s = schema.as_object().cloned().unwrap_or_default();
    for _ in 0..16 {
        let Some(r) = s.get("$ref").and_then(Value::as_str).map(str::to_owned) else {
            break;
        };
        s.remove("$ref");
        if let Some(Value::Object(t)) = resolve(root, &r) {
            for (k, v) in t {
                s.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    if let Some(Value::Array(parts)) = s.remove("allOf") {
        for p in parts {
            for (k, v) in effective(root, &p) {
                s.entry(k).or_insert(v);
            }
        }
    }
    s
}

fn walk(
    root: &Value,
    schema: &Value,
    value: &Value,
    at: String,
    out: &mut Vec<Planted>,
    depth: usize,
) {
    if depth > 32 {
        return;
    }
    let s = effective(root, schema);
    here(&s, value, &at, out);
    match value {
        Value::Object(m) => {
            let props = s.get("properties").and_then(Value::as_object);
            for (k, v) in m {
                let sub = props
                    .and_then(|p| p.get(k))
                    .or_else(|| s.get("additionalProperties").filter(|a| a.is_object()));
                if let Some(sub) = sub {
                    walk(root, sub, v, format!("{at}/{}", escape(k)), out, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            let prefix = s.get("prefixItems").and_then(Value::as_array);
            for (i, v) in items.iter().enumerate() {
                let sub = prefix
                    .and_then(|p| p.get(i))
                    .or_else(|| match s.get("items") {
                        Some(Value::Array(t)) => t.get(i),
                        other => other,
                    });
                if let Some(sub) = sub {
                    walk(root, sub, v, format!("{at}/{i}"), out, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// The defects that fit this one place.
fn here(s: &Map<String, Value>, value: &Value, at: &str, out: &mut Vec<Planted>) {
    let mut put = |defect| {
        out.push(Planted {
            at: at.to_owned(),
            defect,
        })
    };
    let types = allowed_types(s);
    if let Value::Object(m) = value {
        for name in required_names(s) {
            if m.contains_key(&name) {
                put(Defect::Missing(name));
            }
        }
        if s.get("additionalProperties") == Some(&Value::Bool(false)) {
            put(Defect::Extra);
        }
    }
    if let Some(types) = &types {
        if !types.iter().any(|t| t == "null") {
            put(Defect::Null);
        }
        let others = [
            json!(true),
            json!(0),
            json!(1.5),
            json!("x"),
            json!([]),
            json!({}),
        ];
        if let Some(v) = others
            .into_iter()
            .find(|v| !types.iter().any(|t| fits(t, v)))
        {
            put(Defect::WrongType(v));
        }
    }
    if value.is_number() {
        if let Some(lo) = bound(s, "minimum", "exclusiveMinimum", true) {
            put(Defect::OutOfRange(json!((lo - 1.0).floor())));
        }
        if let Some(hi) = bound(s, "maximum", "exclusiveMaximum", false) {
            put(Defect::OutOfRange(json!((hi + 1.0).ceil())));
        }
    }
    if value.is_string() {
        if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
            put(Defect::TooLong(max as usize + 1));
        }
        if let Some(min) = s
            .get("minLength")
            .and_then(Value::as_u64)
            .filter(|m| *m > 0)
        {
            put(Defect::TooShort(min as usize - 1));
        }
    }
    if let Some(Value::Array(options)) = s.get("enum") {
        let strings = options.iter().any(Value::is_string);
        let candidate = if strings {
            json!("not-one-of-the-enum")
        } else {
            json!(-987_654_321)
        };
        if !options.contains(&candidate) {
            put(Defect::NotInEnum(candidate));
        }
    }
}

fn allowed_types(s: &Map<String, Value>) -> Option<Vec<String>> {
    match s.get("type") {
        Some(Value::String(t)) => Some(vec![t.clone()]),
        Some(Value::Array(ts)) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    }
}

fn fits(ty: &str, v: &Value) -> bool {
    match ty {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => true,
    }
}
