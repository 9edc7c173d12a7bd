//! `expect_args` against the tool's input schema: keys it does not list (`unknown-arg`: an
//! error when the schema forbids other keys, since no valid answer can carry one; a warning
//! when it only does not list them, since the model is never told about the key), values a
//! property's schema rejects (`invalid-arg`), and arguments on a no-tool case
//! (`args-on-no-tool`).
//!
//! The values are validated with the scorer's own validator
//! ([`crate::evals::judging::grade::schema`]: Draft 2020-12, `pattern` as Python's `re.search`) against
//! the schema cut down to its per-property parts (`properties`, `patternProperties`, a schema
//! `additionalProperties`, and the definitions `$ref`s point at), so a key that is required but
//! not listed in the case is no finding: `expect_args` is a subset.

use serde_json::{Map, Value};

use super::labels::expected;
use super::{At, LintInput, Sink, listed, named};
use crate::config::EvalCase;
use crate::config::vocab::set_lint::{ARGS_ON_NO_TOOL, INVALID_ARG, UNKNOWN_ARG};
use crate::evals::judging::grade::schema;
use crate::mcp::types::Tool;
use crate::outcome::Severity;
use crate::pycompat::re::PyRegex;
use crate::pycompat::{casefold, strip};
use crate::suite::nearest_tool;

pub(super) fn check(input: &LintInput<'_>, out: &mut Sink) {
    for case in input.cases {
        if case.expect_args.is_empty() {
            continue;
        }
        let Some(name) = expected(case) else {
            let keys: Vec<&str> = case.expect_args.keys().map(String::as_str).collect();
            out.add(
                ARGS_ON_NO_TOOL,
                Severity::Warning,
                format!(
                    "{} expects no tool but sets expect_args ({}), which are never checked",
                    named(case, input),
                    listed(&keys, 8)
                ),
                "remove expect_args, or set expect_tool to the tool they are for".to_owned(),
                At::case(case),
            );
            continue;
        };
        let Some(schema) = input
            .tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t: &Tool| t.input_schema.as_ref())
            .and_then(Value::as_object)
        else {
            continue; // `unknown-tool` says so, or there is no schema to hold the case to
        };
        unknown_keys(input, case, name, schema, out);
        invalid_values(input, case, name, schema, out);
    }
}

/// Keys of `expect_args` that neither `properties` nor `patternProperties` holds.
fn unknown_keys(
    input: &LintInput<'_>,
    case: &EvalCase,
    tool: &str,
    schema: &Map<String, Value>,
    out: &mut Sink,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    let patterns: Vec<PyRegex> = schema
        .get("patternProperties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys())
        .filter_map(|p| PyRegex::new(p).ok())
        .collect();
    if properties.is_none() && patterns.is_empty() {
        return; // nothing listed: no key can be told apart from a typo
    }
    let forbids = [
        schema.get("additionalProperties"),
        schema.get("unevaluatedProperties"),
    ]
    .iter()
    .any(|v| *v == Some(&Value::Bool(false)));
    let listed_keys: Vec<&str> = properties
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for key in case.expect_args.keys() {
        let known = listed_keys.contains(&key.as_str())
            || patterns.iter().any(|p| p.search(key).unwrap_or(false));
        if known {
            continue;
        }
        let hint = match nearest_tool(key, listed_keys.iter().copied()) {
            Some(n) => format!("did you mean `{n}`?"),
            None if listed_keys.is_empty() => {
                format!("`{tool}` lists no properties: remove the key from expect_args")
            }
            None => format!("the properties are {}", listed(&listed_keys, 12)),
        };
        let (severity, why) = if forbids {
            (
                Severity::Error,
                "which forbids other keys (`additionalProperties: false`): no valid answer can carry it",
            )
        } else {
            (Severity::Warning, "so the model is never told about it")
        };
        out.add(
            UNKNOWN_ARG,
            severity,
            format!(
                "{}: expect_args key `{key}` is not a property of `{tool}`'s input schema, {why}",
                named(case, input)
            ),
            hint,
            At::case(case).tool(tool),
        );
    }
}

/// The keywords that say what one property may hold, and the definitions they may refer to.
const PER_PROPERTY: [&str; 7] = [
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "properties",
    "patternProperties",
    "additionalProperties",
];

/// Values of `expect_args` that their property's schema rejects.
fn invalid_values(
    input: &LintInput<'_>,
    case: &EvalCase,
    tool: &str,
    schema: &Map<String, Value>,
    out: &mut Sink,
) {
    let mut cut = Map::new();
    for key in PER_PROPERTY {
        match schema.get(key) {
            // `false` is `unknown-arg`'s to report; a schema holds the extra values to it.
            Some(Value::Bool(_)) if key == "additionalProperties" => {}
            Some(v) => {
                cut.insert(key.to_owned(), v.clone());
            }
            None => {}
        }
    }
    let Ok(validator) = schema::validator(&Value::Object(cut)) else {
        return; // the static checks report a schema that cannot be compiled
    };
    let args = Value::Object(case.expect_args.clone());
    let mut reported: Vec<String> = Vec::new();
    for error in validator.iter_errors(&args) {
        let path = error.instance_path().to_string();
        let key = crate::mcp::pointer::unescape(
            path.trim_start_matches('/')
                .split('/')
                .next()
                .unwrap_or_default(),
        );
        if key.is_empty() || reported.contains(&key) {
            continue;
        }
        let Some(value) = case.expect_args.get(&key) else {
            continue;
        };
        if matches_ignoring_case(schema, &key, value) {
            continue;
        }
        out.add(
            INVALID_ARG,
            Severity::Error,
            format!(
                "{}: expect_args `{key}` is {}, which `{tool}`'s input schema rejects: {error}",
                named(case, input),
                serde_json::to_string(value).unwrap_or_default()
            ),
            "no valid answer can match it: fix the expected value (strings compare ignoring case and surrounding spaces)"
                .to_owned(),
            At::case(case).tool(tool),
        );
        reported.push(key);
    }
}

/// A string the scorer would match with a value of the property's `enum` or `const` (strings
/// compare as `strip().casefold()`): `"paris"` against `enum: [Paris]` can pass.
fn matches_ignoring_case(schema: &Map<String, Value>, key: &str, value: &Value) -> bool {
    let Value::String(want) = value else {
        return false;
    };
    let Some(prop) = schema
        .get("properties")
        .and_then(|p| p.get(key))
        .and_then(Value::as_object)
    else {
        return false;
    };
    let folded = casefold(strip(want));
    let same = |v: &Value| v.as_str().is_some_and(|s| casefold(strip(s)) == folded);
    prop.get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| e.iter().any(same))
        || prop.get("const").is_some_and(same)
}
