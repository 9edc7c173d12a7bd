//! The quality of a tool's arguments (the top-level `properties` of a usable input schema), one
//! finding per tool and check, naming the arguments and the text that triggered it:
//!
//! - `default-type` (warning): a `default` its own schema refuses, e.g. `null` on
//!   `type: string` (what `x: str = None` gives in Python) or a value outside the `enum`. A
//!   client that fills in defaults, or a model that copies one, sends a value the server's own
//!   schema rejects. Only judged when every branch of the argument declares its `type`.
//! - `required-default` (info): a required argument with a `default`: the default never
//!   applies and a model must choose a value on every call. An info: calls still work.
//! - `prose-limits` (info): a description that states a default or a limit the schema lacks.
//!   Only literal values of the argument's type are read (`Default is false` on a boolean,
//!   `Defaults to 10`, `Maximum: 100`, `at most 30`, `(1-500)` on a number, a quoted string or
//!   an `enum` member on a string), and a default followed by more than its sentence end
//!   (`Default: 5.1 (timeline: 9.3)`, `Default: the used range`) is not: a schema `default`
//!   could not say the same.
//! - `argument-description` (info): arguments without a `description`, all of them in one
//!   finding. An argument the tool's description documents docstring-style (`query: the
//!   search text`, in an `Args:` section) counts as described: the model reads that text.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use crate::mcp::types::Tool;
use crate::outcome::Severity;

use super::{
    ARGUMENT_DESCRIPTION, DEFAULT_TYPE, PROSE_LIMITS, Problem, REQUIRED_DEFAULT, Sink, quote,
};

/// Arguments named in one finding; the rest are counted.
const NAMED: usize = 8;

/// Runs the argument checks on a usable input schema.
pub(super) fn check(schema: &Map<String, Value>, tool: &Tool, shown: &str, out: &mut Sink) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let arguments: Vec<(&str, &Map<String, Value>)> = properties
        .iter()
        .filter_map(|(name, p)| Some((name.as_str(), p.as_object()?)))
        .collect();
    if out.enabled(DEFAULT_TYPE) {
        default_type(&arguments, shown, out);
    }
    if out.enabled(REQUIRED_DEFAULT) {
        required_default(schema, &arguments, shown, out);
    }
    if out.enabled(PROSE_LIMITS) {
        prose_limits(&arguments, shown, out);
    }
    if out.enabled(ARGUMENT_DESCRIPTION) {
        argument_description(schema, &arguments, tool, shown, out);
    }
}

// ------------------------------------------------------------------------------ default-type

fn default_type(arguments: &[(&str, &Map<String, Value>)], shown: &str, out: &mut Sink) {
    let mut wrong = Vec::new();
    for (name, p) in arguments {
        let Some(default) = p.get("default") else {
            continue;
        };
        if let Some(types) = declared_types(p)
            && !types.iter().any(|t| fits(default, t))
        {
            wrong.push(format!(
                "{} defaults to {} but is typed {}",
                arg(name),
                value_text(default),
                types.join(" or ")
            ));
        } else if let Some(values) = p.get("enum").and_then(Value::as_array)
            && !values.iter().any(|v| same_value(v, default))
        {
            wrong.push(format!(
                "{} defaults to {}, which is not in its enum",
                arg(name),
                value_text(default)
            ));
        }
    }
    if wrong.is_empty() {
        return;
    }
    out.add(
        shown,
        DEFAULT_TYPE,
        Severity::Warning,
        Problem::new(
            format!(
                "{}; a client that fills in defaults, or a model that copies one, sends a value \
                 the tool's own schema refuses",
                listed(&wrong)
            ),
            "give each default a value its schema accepts, allow it (`\"type\": [\"string\", \
             \"null\"]` for a null default), or remove the default",
        ),
    );
}

/// Every type the argument allows, when each branch says (`type`, a list of types, or
/// `anyOf`/`oneOf` branches that each declare one); `None` when any part is left open (`$ref`,
/// a branch without `type`), so nothing is judged.
fn declared_types(p: &Map<String, Value>) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |t: &str| {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_owned());
        }
    };
    if p.get("$ref").is_some() || p.get("allOf").is_some() {
        return None;
    }
    match p.get("type") {
        Some(Value::String(t)) => push(t),
        Some(Value::Array(list)) => {
            for t in list {
                push(t.as_str()?);
            }
        }
        Some(_) => return None,
        None => {}
    }
    let mut branches = 0;
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = p.get(key) {
            for branch in list.as_array()? {
                branches += 1;
                for t in declared_types(branch.as_object()?)? {
                    push(&t);
                }
            }
        }
    }
    let nullable = p.get("nullable") == Some(&Value::Bool(true));
    if nullable {
        push("null");
    }
    if out.is_empty() || (p.get("type").is_none() && branches == 0) {
        return None;
    }
    Some(out)
}

/// JSON equality with numbers compared by value (`1` equals `1.0`), as JSON Schema's `enum` does.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

/// Whether `value` is of JSON Schema type `t` (an integer may be written `5.0`); an unknown
/// type accepts anything.
fn fits(value: &Value, t: &str) -> bool {
    match t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

// -------------------------------------------------------------------------- required-default

fn required_default(
    schema: &Map<String, Value>,
    arguments: &[(&str, &Map<String, Value>)],
    shown: &str,
    out: &mut Sink,
) {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let both: Vec<String> = arguments
        .iter()
        .filter(|(name, _)| required.contains(name))
        .filter_map(|(name, p)| {
            let default = p.get("default")?;
            Some(format!("{} (default {})", arg(name), value_text(default)))
        })
        .collect();
    if both.is_empty() {
        return;
    }
    let (what, never, it) = if both.len() == 1 {
        ("argument is", "the default never applies", "it")
    } else {
        ("arguments are", "the defaults never apply", "each")
    };
    out.add(
        shown,
        REQUIRED_DEFAULT,
        Severity::Info,
        Problem::new(
            format!(
                "required {what} given a default: {}; {never}, so a model must choose a value \
                 on every call",
                listed(&both)
            ),
            format!("take {it} out of `required` if the default is what the tool uses"),
        ),
    );
}

// ------------------------------------------------------------------------------ prose-limits

/// `Default is 5`, `defaults to "png"`, `(default: 100)`, `default value is true`.
static DEFAULT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\bdefaults?(?:\s+value)?(?:\s*[:=]|\s+is|\s+to|\s+of)\s*(`?)("[^"\n]{1,40}"|'[^'\n]{1,40}'|[^\s,;.()'"`]+(?:\.\d+)?)(`?)"#,
    )
    .expect("default pattern")
});

/// `Maximum: 100`, `max 50`, `at most 30`, `no more than 10` (not `up to`, which as often
/// describes a result: `each page holds up to 10 results`).
static MAX_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\bmax(?:imum)?(?:\s+is|\s+of)?\s*[:=]?\s*|\bat most\s+|\bno more than\s+)`?(-?\d+(?:\.\d+)?)`?(?:\s|[.,;)]|$)")
        .expect("max pattern")
});

/// `Minimum: 1`, `min 0`, `at least 1`.
static MIN_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:\bmin(?:imum)?(?:\s+is|\s+of)?\s*[:=]?\s*|\bat least\s+)`?(-?\d+(?:\.\d+)?)`?(?:\s|[.,;)]|$)",
    )
    .expect("min pattern")
});

/// `(1-500)`, `(0 to 100)`, `between 1 and 50`.
static RANGE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\(\s*(-?\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(-?\d+(?:\.\d+)?)\s*\)|\bbetween\s+(-?\d+(?:\.\d+)?)\s+and\s+(-?\d+(?:\.\d+)?)\b")
        .expect("range pattern")
});

fn prose_limits(arguments: &[(&str, &Map<String, Value>)], shown: &str, out: &mut Sink) {
    let mut stated = Vec::new();
    for (name, p) in arguments {
        let text = p.get("description").and_then(Value::as_str).unwrap_or("");
        if text.is_empty() {
            continue;
        }
        let Some(types) = declared_types(p) else {
            continue;
        };
        let mut missing = Vec::new();
        if p.get("default").is_none()
            && let Some(said) = prose_default(text, &types, p)
        {
            missing.push(format!("{} but no `default`", quote(&said, 40)));
        }
        let numeric = types.iter().any(|t| t == "integer" || t == "number");
        if numeric {
            let (max, min) = prose_bounds(text);
            let has = |k: &str| p.get(k).is_some();
            let max = max.filter(|_| !has("maximum") && !has("exclusiveMaximum"));
            let min = min.filter(|_| !has("minimum") && !has("exclusiveMinimum"));
            match (max, min) {
                (Some(a), Some(b)) if a == b => {
                    missing.push(format!("{} but no `minimum` nor `maximum`", quote(&a, 40)));
                }
                (max, min) => {
                    if let Some(said) = max {
                        missing.push(format!("{} but no `maximum`", quote(&said, 40)));
                    }
                    if let Some(said) = min {
                        missing.push(format!("{} but no `minimum`", quote(&said, 40)));
                    }
                }
            }
        }
        if !missing.is_empty() {
            stated.push(format!("{} says {}", arg(name), missing.join(", ")));
        }
    }
    if stated.is_empty() {
        return;
    }
    out.add(
        shown,
        PROSE_LIMITS,
        Severity::Info,
        Problem::new(
            format!(
                "stated only in prose: {}; clients and validators read the schema, not the \
                 description",
                listed(&stated)
            ),
            "put the value in the schema too (`default`, `maximum`, `minimum`), where clients \
             and models both see it",
        ),
    )
}

/// The text stating a default of the argument's type, if the description has one.
fn prose_default(text: &str, types: &[String], p: &Map<String, Value>) -> Option<String> {
    for m in DEFAULT_RE.captures_iter(text) {
        let whole = m.get(0)?;
        let raw = m.get(2)?.as_str();
        // The value must end its clause: `Default: 5.1 (timeline: 9.3)` is no single default.
        let after = text[whole.end()..].trim_start();
        let ends = after.is_empty()
            || after.starts_with(['.', ',', ';', ')'])
            || after
                .strip_prefix('(')
                .and_then(|a| a.split_once(')'))
                .is_some_and(|(inner, _)| {
                    !inner
                        .chars()
                        .any(|c| c.is_ascii_digit() || c == ':' || c == '=')
                });
        if !ends {
            continue;
        }
        let quoted = raw.len() >= 2
            && ((raw.starts_with('"') && raw.ends_with('"'))
                || (raw.starts_with('\'') && raw.ends_with('\'')));
        let value: Option<Value> = if quoted {
            Some(Value::String(raw[1..raw.len() - 1].to_owned()))
        } else {
            match raw.to_ascii_lowercase().as_str() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => serde_json::from_str::<serde_json::Number>(raw)
                    .ok()
                    .map(Value::Number),
            }
        };
        let is = |t: &str| types.iter().any(|x| x == t);
        let enumerated = |s: &str| {
            p.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.iter().any(|v| v.as_str() == Some(s)))
        };
        let fits_type = match &value {
            Some(Value::Bool(_)) => is("boolean"),
            Some(v @ Value::Number(_)) => (is("integer") && fits(v, "integer")) || is("number"),
            Some(Value::String(s)) => is("string") && !s.is_empty(),
            _ => false,
        } || (is("string") && !quoted && enumerated(raw));
        if fits_type {
            return Some(whole.as_str().trim().to_owned());
        }
    }
    None
}

/// The texts stating a maximum and a minimum, if the description has them.
fn prose_bounds(text: &str) -> (Option<String>, Option<String>) {
    // From the keyword to the number, without what follows it.
    let said = |re: &Regex| {
        re.captures(text).and_then(|c| {
            let (whole, number) = (c.get(0)?, c.get(1)?);
            let end = number.end() + usize::from(text[number.end()..].starts_with('`'));
            Some(text[whole.start()..end].trim().to_owned())
        })
    };
    let mut max = said(&MAX_RE);
    let mut min = said(&MIN_RE);
    if let Some(m) = RANGE_RE.find(text) {
        let range = m.as_str().trim().to_owned();
        max.get_or_insert_with(|| range.clone());
        min.get_or_insert(range);
    }
    (max, min)
}

// ----------------------------------------------------------------------- argument-description

fn argument_description(
    schema: &Map<String, Value>,
    arguments: &[(&str, &Map<String, Value>)],
    tool: &Tool,
    shown: &str,
    out: &mut Sink,
) {
    let tool_text = tool.description.as_deref().unwrap_or("");
    let bare: Vec<&str> = arguments
        .iter()
        .filter(|(name, p)| !described(schema, p) && !documented_in(tool_text, name))
        .map(|(name, _)| *name)
        .collect();
    if bare.is_empty() {
        return;
    }
    let names: Vec<String> = bare.iter().map(|n| arg(n)).collect();
    let what = if bare.len() == arguments.len() {
        if bare.len() == 1 {
            "its one argument has no description".to_owned()
        } else {
            format!(
                "none of its {} arguments has a description",
                arguments.len()
            )
        }
    } else {
        let verb = if bare.len() == 1 { "has" } else { "have" };
        format!(
            "{} of its {} arguments {verb} no description",
            bare.len(),
            arguments.len()
        )
    };
    out.add(
        shown,
        ARGUMENT_DESCRIPTION,
        Severity::Info,
        Problem::new(
            format!(
                "{what}: {}; a model guesses what to pass from the name alone",
                listed(&names)
            ),
            "describe each argument: what it is, its format, an example",
        ),
    );
}

/// Whether an argument has a description: its own, one of its `anyOf`/`oneOf`/`allOf`
/// branches' (a model reads those too), or that of the local definition it refers to.
fn described(schema: &Map<String, Value>, p: &Map<String, Value>) -> bool {
    described_within(schema, p, 0)
}

fn described_within(schema: &Map<String, Value>, p: &Map<String, Value>, depth: usize) -> bool {
    if p.get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| !d.trim().is_empty())
    {
        return true;
    }
    if depth > 4 {
        return true;
    }
    let branches = ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|k| p.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_object);
    for branch in branches {
        if described_within(schema, branch, depth + 1) {
            return true;
        }
    }
    let Some(reference) = p.get("$ref").and_then(Value::as_str) else {
        return false;
    };
    // A reference toolproof cannot follow is given the benefit of the doubt.
    let Some(pointer) = reference.strip_prefix('#') else {
        return true;
    };
    let root = Value::Object(schema.clone());
    match root.pointer(pointer).and_then(Value::as_object) {
        Some(target) => described_within(schema, target, depth + 1),
        None => true,
    }
}

/// Whether the tool's description documents `name` docstring-style: a line that starts with
/// the name (bulleted or in backticks, with an optional `(type)`) followed by `:` or ` - `.
fn documented_in(text: &str, name: &str) -> bool {
    text.lines().any(|line| {
        let line = line
            .trim_start()
            .trim_start_matches(['-', '*', '•'])
            .trim_start();
        let line = line.strip_prefix("@param").map_or(line, str::trim_start);
        let rest = line
            .strip_prefix('`')
            .and_then(|l| l.strip_prefix(name))
            .and_then(|l| l.strip_prefix('`'))
            .or_else(|| line.strip_prefix(name));
        let Some(rest) = rest else {
            return false;
        };
        let rest = rest.trim_start();
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.split_once(')').map_or(r, |(_, after)| after).trim_start(),
            None => rest,
        };
        rest.starts_with(':') || rest.starts_with("- ") || rest.starts_with("– ")
    })
}

// ------------------------------------------------------------------------------------ shared

/// An argument's name as a message shows it: in backticks, cut to 60 characters (names come
/// from the server).
fn arg(name: &str) -> String {
    let mut cut: String = name.chars().take(60).collect();
    if cut.len() < name.len() {
        cut.pop();
        cut.push('…');
    }
    format!("`{cut}`")
}

/// A value as a message shows it: JSON, cut short.
fn value_text(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(39).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// The first [`NAMED`] items joined, then how many more.
fn listed(items: &[String]) -> String {
    let mut text = items
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > NAMED {
        text.push_str(&format!(" and {} more", items.len() - NAMED));
    }
    text
}

#[cfg(test)]
mod tests;
