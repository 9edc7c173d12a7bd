//! The assertions of one YAML test: what `expect:` says about a tool call's outcome, turned
//! into failure lines. Pure: no I/O, no printing. Values in messages are shown as JSON.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use crate::config::{Expect, JsonPathCheck, JsonType, vocab};
use crate::mcp::types::{CallOutcome, CallResult};
use crate::pycompat::re::PyRegex;

/// Most characters of a value or a text shown in one failure line.
pub(crate) const SHOWN: usize = 200;
/// Most output-schema errors listed for one result; the rest are counted.
const MAX_SCHEMA_ERRORS: usize = 50;

/// Checks every expectation (none short-circuits another) and returns one line per failure;
/// an empty list means the outcome passed. `output_schema` is the tool's declared
/// `outputSchema`, if any.
pub(crate) fn check(
    expect: &Expect,
    outcome: &CallOutcome,
    output_schema: Option<&Value>,
) -> Vec<String> {
    let mut view = View::of(&outcome.result);
    let mut failures = Vec::new();
    check_error(expect.is_error, &view, &mut failures);

    if let Some(want) = &expect.equals {
        let actual = match view.data() {
            Some(v) => v.clone(),
            None => Value::String(view.text.clone()),
        };
        if !json_eq(want, &actual) {
            failures.push(format!(
                "expected result {}, got {}",
                show(want),
                show(&actual)
            ));
        }
    }

    if let Some(needles) = &expect.contains {
        for needle in needles.items() {
            if !view.text.contains(needle.as_str()) {
                failures.push(format!(
                    "result does not contain {}: {}",
                    show(&Value::String(needle.clone())),
                    excerpt(&view.text)
                ));
            }
        }
    }

    if let Some(pattern) = &expect.regex {
        match PyRegex::new(pattern).map(|re| re.search(&view.text)) {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => failures.push(format!(
                "result does not match /{pattern}/: {}",
                excerpt(&view.text)
            )),
            Ok(Err(gave_up)) => {
                failures.push(format!("/{pattern}/ could not be applied: {gave_up}"))
            }
            Err(e) => failures.push(format!("/{pattern}/ is {e}")),
        }
    }

    for (path, rule) in &expect.jsonpath {
        check_path(path, rule, &mut view, &mut failures);
    }

    if let Some(limit) = expect.max_latency_ms {
        let took = outcome.latency.as_secs_f64() * 1000.0;
        if took > limit {
            failures.push(format!(
                "took {}ms, limit is {}ms",
                latency_text(took, limit),
                number_text(limit)
            ));
        }
    }

    if expect.output_schema
        && let Some(schema) = output_schema.filter(|s| !s.is_null())
        && !view.is_error()
    {
        match view.structured {
            None => failures
                .push("tool declares an outputSchema but returned no structured content".into()),
            Some(structured) => failures.extend(schema_failures(schema, structured)),
        }
    }

    failures
}

/// `is_error`, and the rule that a JSON-RPC error (the server refusing the call, not the tool
/// answering) fails a test unless the test expects an error.
fn check_error(want: Option<bool>, view: &View<'_>, failures: &mut Vec<String>) {
    if let CallResult::ProtocolError { code, message, .. } = view.result
        && want != Some(true)
    {
        failures.push(format!("protocol error {code}: {}", excerpt(message)));
        return;
    }
    let got = view.is_error();
    let disguised = view.result.error_as_success();
    match want {
        // What came back is what a maintainer needs: often an error put in the text of a
        // result without `isError` ("Error: only SELECT allowed"), which is then named.
        Some(true) if !got => failures.push(match &disguised {
            Some(text) => format!(
                "expected an error but the tool succeeded: {} ({ERROR_AS_SUCCESS}: the text \
                 reads as an error, but isError is false)",
                excerpt(text)
            ),
            None if view.text.trim().is_empty() => {
                "expected an error but the tool succeeded, with no text".to_owned()
            }
            None => format!(
                "expected an error but the tool succeeded: {}",
                excerpt(&view.text)
            ),
        }),
        Some(false) if got => failures.push(format!(
            "expected success but the tool returned an error: {}",
            excerpt(&view.text)
        )),
        Some(false) => {
            if let Some(text) = disguised {
                failures.push(format!(
                    "{ERROR_AS_SUCCESS}: expected success; isError is false, but the tool's only \
                     text reads as an error: {}",
                    excerpt(&text)
                ));
            }
        }
        _ => {}
    }
}

/// The kind of finding a result whose `isError` is false while its only text reads as an
/// error makes, in tests as in fuzz.
pub(crate) const ERROR_AS_SUCCESS: &str = "error-as-success";

/// For a test that does not say whether it expects an error (`is_error` not set), the warning
/// an error returned as success deserves: the test passes or fails on its other expectations,
/// as in mcp-toolproof, but the report says what came back.
pub(crate) fn warnings(expect: &Expect, outcome: &CallOutcome) -> Vec<String> {
    if expect.is_error.is_some() {
        return Vec::new();
    }
    outcome
        .result
        .error_as_success()
        .map(|text| {
            format!(
                "{ERROR_AS_SUCCESS}: isError is false, but the tool's only text reads as an \
                 error: {}; with `is_error: false` in its expect the test fails on this",
                excerpt(&text)
            )
        })
        .into_iter()
        .collect()
}

/// JSON value equality: numbers compare by value (`1` equals `1.0`), never across types
/// (`1` is not `true`), and object keys in any order.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn number_eq(x: &Number, y: &Number) -> bool {
    if let (Some(p), Some(q)) = (x.as_i64(), y.as_i64()) {
        return p == q;
    }
    if let (Some(p), Some(q)) = (x.as_u64(), y.as_u64()) {
        return p == q;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(p), Some(q)) => p == q,
        _ => false,
    }
}

/// The JSON type of a value: `null`, `boolean`, `integer` (a float with an integral value
/// counts), `number`, `string`, `array` or `object`.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if is_integral(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_integral(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

fn has_type(v: &Value, t: JsonType) -> bool {
    match t {
        JsonType::Null => v.is_null(),
        JsonType::Boolean => v.is_boolean(),
        JsonType::Integer => matches!(v, Value::Number(n) if is_integral(n)),
        JsonType::Number => v.is_number(),
        JsonType::String => v.is_string(),
        JsonType::Array => v.is_array(),
        JsonType::Object => v.is_object(),
    }
}

fn type_word(t: JsonType) -> &'static str {
    match t {
        JsonType::Null => "null",
        JsonType::Boolean => "boolean",
        JsonType::Integer => "integer",
        JsonType::Number => "number",
        JsonType::String => "string",
        JsonType::Array => "array",
        JsonType::Object => "object",
    }
}

/// The parts of a result the assertions read, with the text parsed as JSON at most once.
struct View<'a> {
    result: &'a CallResult,
    text: String,
    /// `structuredContent`, unless absent or `null`.
    structured: Option<&'a Value>,
    /// The text parsed as JSON: `None` until asked, then `Some(None)` when it is not JSON.
    parsed: Option<Option<Value>>,
}

impl<'a> View<'a> {
    fn of(result: &'a CallResult) -> Self {
        let structured = match result {
            CallResult::Result { structured, .. } => structured.as_ref().filter(|v| !v.is_null()),
            CallResult::ProtocolError { .. } => None,
        };
        View {
            result,
            text: result.text(),
            structured,
            parsed: None,
        }
    }

    /// A JSON-RPC error counts as an error result.
    fn is_error(&self) -> bool {
        match self.result {
            CallResult::Result { is_error, .. } => *is_error,
            CallResult::ProtocolError { .. } => true,
        }
    }

    /// The structured content when the tool returned any, else the text parsed as JSON.
    fn data(&mut self) -> Option<&Value> {
        if let Some(s) = self.structured {
            return Some(s);
        }
        let text = &self.text;
        self.parsed
            .get_or_insert_with(|| serde_json::from_str(text).ok())
            .as_ref()
    }
}

fn check_path(path: &str, rule: &JsonPathCheck, view: &mut View<'_>, failures: &mut Vec<String>) {
    let compiled = match vocab::jsonpath(path) {
        Ok(p) => p,
        Err(e) => {
            failures.push(format!("{path}: invalid JSONPath ({})", e.problem));
            return;
        }
    };
    let Some(data) = view.data() else {
        failures.push(format!(
            "{path}: the result is not JSON, so the path cannot be applied"
        ));
        return;
    };
    let nodes = compiled.query(data);
    let value = match nodes.as_slice() {
        [] => {
            if rule.exists {
                failures.push(format!("{path}: no match in the result"));
            }
            return;
        }
        [one] => one.clone(),
        many => Value::Array(many.to_vec()),
    };
    if !rule.exists {
        failures.push(format!("{path}: expected no match, found {}", show(&value)));
        return;
    }
    if let Some(t) = rule.kind
        && !has_type(&value, t)
    {
        failures.push(format!(
            "{path}: expected type {}, got {}",
            type_word(t),
            type_name(&value)
        ));
    }
    if let Some(want) = &rule.equals
        && !json_eq(want, &value)
    {
        failures.push(format!(
            "{path}: expected {}, got {}",
            show(want),
            show(&value)
        ));
    }
    if rule.min.is_some() || rule.max.is_some() {
        match value.as_f64() {
            None => failures.push(format!(
                "{path}: range check needs a number, got {}",
                type_name(&value)
            )),
            Some(v) => {
                if let Some(min) = rule.min
                    && v < min
                {
                    failures.push(format!(
                        "{path}: {} is below min {}",
                        show(&value),
                        number_text(min)
                    ));
                }
                if let Some(max) = rule.max
                    && v > max
                {
                    failures.push(format!(
                        "{path}: {} is above max {}",
                        show(&value),
                        number_text(max)
                    ));
                }
            }
        }
    }
}

/// One line per output-schema violation, sorted by where in the instance it is.
fn schema_failures(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = match jsonschema::validator_for(schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![format!(
                "output schema: the tool's outputSchema cannot be used to validate ({})",
                cut(&e.to_string(), SHOWN)
            )];
        }
    };
    let mut errors: Vec<(Vec<Segment>, String, String)> = validator
        .iter_errors(instance)
        .map(|e| {
            let path = e.instance_path();
            let key = path.into_iter().map(Segment::from).collect();
            (key, path.as_str().to_owned(), e.to_string())
        })
        .collect();
    // Stable: errors at the same place keep the validator's order.
    errors.sort_by(|a, b| a.0.cmp(&b.0));
    let total = errors.len();
    let mut lines: Vec<String> = errors
        .into_iter()
        .take(MAX_SCHEMA_ERRORS)
        .map(|(_, at, message)| {
            let message = cut(&message, SHOWN);
            if at.is_empty() {
                format!("output schema: {message}")
            } else {
                format!("output schema: {at}: {message}")
            }
        })
        .collect();
    if total > MAX_SCHEMA_ERRORS {
        lines.push(format!(
            "output schema: {} more errors not listed",
            total - MAX_SCHEMA_ERRORS
        ));
    }
    lines
}

/// A step of an instance path; indexes sort by number and before property names.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Segment {
    Index(usize),
    Property(String),
}

impl From<jsonschema::paths::LocationSegment<'_>> for Segment {
    fn from(s: jsonschema::paths::LocationSegment<'_>) -> Self {
        match s {
            jsonschema::paths::LocationSegment::Index(i) => Segment::Index(i),
            jsonschema::paths::LocationSegment::Property(p) => Segment::Property(p.to_string()),
        }
    }
}

/// A value as compact JSON, cut to [`SHOWN`] characters.
pub(crate) fn show(v: &Value) -> String {
    cut(&v.to_string(), SHOWN)
}

/// A text on one line (control characters as spaces), cut to [`SHOWN`] characters.
pub(crate) fn excerpt(text: &str) -> String {
    let head: String = text
        .chars()
        .take(SHOWN + 1)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cut(&head, SHOWN)
}

/// At most `max` characters, with `…` when something was cut.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((end, _)) => format!("{}…", &s[..end]),
    }
}

/// `250`, `0.5`, `1e300` as written in YAML (no `.0` on integral values).
pub(crate) fn number_text(x: f64) -> String {
    format!("{x}")
}

/// Whole milliseconds, or tenths when rounding would hide that the limit was passed.
fn latency_text(took: f64, limit: f64) -> String {
    if took.round().partial_cmp(&limit) == Some(Ordering::Greater) {
        format!("{took:.0}")
    } else {
        format!("{took:.1}")
    }
}

#[cfg(test)]
mod tests;
