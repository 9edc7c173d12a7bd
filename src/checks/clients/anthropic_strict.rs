//! `client-anthropic-strict`: what Claude refuses in a tool's `input_schema` once a client
//! sets `strict: true` on the tool (strict tool use, which compiles the schema to a grammar
//! with the same limits as structured outputs).
//!
//! Source: Anthropic, "Structured outputs", sections "JSON Schema limitations" and "Schema
//! complexity limits", <https://platform.claude.com/docs/en/build-with-claude/structured-outputs>,
//! and "Strict tool use", <https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use>
//! ("Both JSON outputs and strict tool use share these limitations"), read 2026-12-01 from a
//! stored copy of the revision whose examples use claude-opus-4-8. "If you use an unsupported
//! feature, you'll receive a 400 error with details."
//!
//! - `additional-properties`: "`additionalProperties` (must be set to `false` for objects)";
//!   not supported: "`additionalProperties` set to anything other than `false`". Leaving it out
//!   is refused too: "For 'object' type, 'additionalProperties' must be explicitly set to
//!   false", nested objects included (vercel/ai#20681, 2026-09-12, reproduced first-hand).
//! - `constraints`: not supported: "Numerical constraints (such as `minimum`, `maximum`,
//!   `multipleOf`)" (with `exclusiveMinimum` and `exclusiveMaximum`, the rest of that family),
//!   "String constraints (`minLength`, `maxLength`)", "Array constraints beyond `minItems` of 0
//!   or 1" (`maxItems`, `uniqueItems`, `contains`, `minContains`, `maxContains`, and `minItems`
//!   above 1). The SDKs' helpers strip these from schemas they build; an MCP client passing a
//!   server's schema through does not.
//! - `enum-values`: "Complex types within enums" (objects and arrays) are not supported.
//! - `recursion`: "Recursive schemas" are not supported: a `$ref` that, followed, comes back to
//!   itself.
//! - `all-of-ref`: "`allOf` (with limitations - `allOf` with `$ref` not supported)".
//! - `pattern`: regex "NOT supported: Backreferences …, Lookahead/lookbehind assertions …, Word
//!   boundaries: `\b`, `\B`". Large `{n,m}` ranges "may result in 400 errors", too vague to flag.
//! - `request-limits` (about the whole list): "Strict tools per request: 20", "Optional
//!   parameters: 24" ("Each parameter not listed in `required` counts"), "Parameters with union
//!   types: 16" (`anyOf` or type arrays), all "across all strict schemas in a single request",
//!   counted as if the client sends every tool strict.
//!
//! Not flagged: string formats outside the supported list (the page lists supported formats
//! but does not name others as refused, so the reading without false positives is that they
//! pass); external `$ref` (the `input-schema` check already reports every `$ref` that does not
//! resolve within the schema). Strict tool use is opt-in, hence not on by default.

use serde_json::{Map, Value};

use super::{Hit, Node, Scope, is_object, names, place, walk};
use crate::checks::Problem;

/// Constraints strict tool use refuses, whatever their value.
const CONSTRAINTS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
];

const MAX_STRICT_TOOLS: usize = 20;
const MAX_OPTIONAL: usize = 24;
const MAX_UNIONS: usize = 16;
/// `$ref`s looked at for recursion, at most (a bound on the work, not a rule).
const MAX_REFS: usize = 500;

/// Every place in `root` strict tool use refuses, in walk order; recursion last.
pub(super) fn rules(root: &Map<String, Value>) -> Vec<Hit> {
    let mut hits = Vec::new();
    walk(root, Scope::JsonSchema, &mut |node| {
        closed_object(node, &mut hits);
        constraints(node, &mut hits);
        enum_values(node, &mut hits);
        all_of_ref(node, &mut hits);
        pattern(node, &mut hits);
    });
    hits.extend(recursion(root));
    hits
}

fn closed_object(node: &Node, hits: &mut Vec<Hit>) {
    if !is_object(node.map) || node.map.get("additionalProperties") == Some(&Value::Bool(false)) {
        return;
    }
    let at = place(&node.pointer);
    let what = match node.map.get("additionalProperties") {
        None => "the object does not set `additionalProperties: false`",
        Some(_) => "`additionalProperties` is not false (strict tool use takes only false)",
    };
    hits.push(Hit::new(
        "additional-properties",
        &node.pointer,
        what,
        format!("set `\"additionalProperties\": false` at {at}"),
    ));
}

fn constraints(node: &Node, hits: &mut Vec<Hit>) {
    let mut found: Vec<&str> = CONSTRAINTS
        .iter()
        .copied()
        .filter(|k| node.map.contains_key(*k))
        .collect();
    if node
        .map
        .get("minItems")
        .and_then(Value::as_f64)
        .is_some_and(|n| n > 1.0)
    {
        found.push("minItems");
    }
    if found.is_empty() {
        return;
    }
    let list = names(found, 8);
    hits.push(Hit::new(
        "constraints",
        &node.pointer,
        format!("{list} not supported (numeric, string and array constraints are not)"),
        format!(
            "remove {list} at {}, state the limits in the description and check them in the \
             tool",
            place(&node.pointer)
        ),
    ));
}

fn enum_values(node: &Node, hits: &mut Vec<Hit>) {
    let Some(Value::Array(values)) = node.map.get("enum") else {
        return;
    };
    let complex = values
        .iter()
        .filter(|v| v.is_object() || v.is_array())
        .count();
    if complex == 0 {
        return;
    }
    hits.push(Hit::new(
        "enum-values",
        &node.pointer,
        format!("{complex} enum values are objects or arrays; only strings, numbers, booleans and null are supported"),
        format!(
            "at {}, replace the enum with `anyOf` of object schemas using `const` fields, or \
             with scalar values",
            place(&node.pointer)
        ),
    ));
}

fn all_of_ref(node: &Node, hits: &mut Vec<Hit>) {
    let Some(Value::Array(branches)) = node.map.get("allOf") else {
        return;
    };
    if !branches.iter().any(|b| b.get("$ref").is_some()) {
        return;
    }
    hits.push(Hit::new(
        "all-of-ref",
        &node.pointer,
        "`allOf` with a `$ref` branch is not supported",
        format!(
            "inline the referenced definition into the `allOf` at {}, or merge the branches",
            place(&node.pointer)
        ),
    ));
}

fn pattern(node: &Node, hits: &mut Vec<Hit>) {
    let Some(Value::String(pattern)) = node.map.get("pattern") else {
        return;
    };
    let found = regex_features(pattern);
    if found.is_empty() {
        return;
    }
    hits.push(Hit::new(
        "pattern",
        &node.pointer,
        format!(
            "the `pattern` uses {}, which strict tool use does not support",
            found.join(", ")
        ),
        format!(
            "rewrite the `pattern` at {} without them, or drop it and check the value in the tool",
            place(&node.pointer)
        ),
    ));
}

/// The unsupported regex features `pattern` uses (ECMA-262 syntax), each named once.
fn regex_features(pattern: &str) -> Vec<&'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut found: Vec<&'static str> = Vec::new();
    let mut note = |what: &'static str| {
        if !found.contains(&what) {
            found.push(what);
        }
    };
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if !in_class {
                    match chars.get(i + 1) {
                        Some('b' | 'B') => note("a word boundary"),
                        Some('1'..='9') => note("a backreference"),
                        Some('k') if chars.get(i + 2) == Some(&'<') => note("a backreference"),
                        _ => {}
                    }
                }
                i += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class && chars.get(i + 1) == Some(&'?') => {
                let rest: String = chars[i + 2..].iter().take(2).collect();
                if rest.starts_with('=') || rest.starts_with('!') {
                    note("a lookahead");
                } else if rest == "<=" || rest == "<!" {
                    note("a lookbehind");
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// One finding for the first `$ref` that leads back to itself, if any.
fn recursion(root: &Map<String, Value>) -> Option<Hit> {
    // (where the $ref is, the pointer it names) for local references.
    let mut refs: Vec<(String, String)> = Vec::new();
    walk(root, Scope::JsonSchema, &mut |node| {
        if let Some(Value::String(r)) = node.map.get("$ref")
            && let Some(target) = r.strip_prefix('#')
            && (target.is_empty() || target.starts_with('/'))
            && refs.len() < MAX_REFS
        {
            refs.push((node.pointer.clone(), target.to_owned()));
        }
    });
    let inside = |at: &str, target: &str| {
        target.is_empty() || at == target || at.starts_with(&format!("{target}/"))
    };
    // Following ref i meets ref j when j is written inside i's target.
    let next: Vec<Vec<usize>> = refs
        .iter()
        .map(|(_, target)| {
            (0..refs.len())
                .filter(|&j| inside(&refs[j].0, target))
                .collect()
        })
        .collect();
    let first = (0..refs.len()).find(|&start| reaches(&next, start, start))?;
    let (at, target) = &refs[first];
    let target = if target.is_empty() { "#" } else { target };
    Some(Hit::new(
        "recursion",
        at,
        format!(
            "the `$ref` to {} leads back to itself; recursive schemas are not supported",
            names([target], 1)
        ),
        format!(
            "at {}, unroll the recursion to a fixed depth, or take the nested part as a JSON \
             string",
            place(at)
        ),
    ))
}

/// Whether `to` can be reached from `from` in one or more steps.
fn reaches(next: &[Vec<usize>], from: usize, to: usize) -> bool {
    let mut seen = vec![false; next.len()];
    let mut stack: Vec<usize> = next[from].clone();
    while let Some(i) = stack.pop() {
        if i == to {
            return true;
        }
        if !std::mem::replace(&mut seen[i], true) {
            stack.extend(&next[i]);
        }
    }
    false
}

/// What one tool adds to the per-request totals.
#[derive(Default)]
struct Counts {
    optional: usize,
    unions: usize,
}

fn counts(root: &Map<String, Value>) -> Counts {
    let mut c = Counts::default();
    walk(root, Scope::JsonSchema, &mut |node| {
        let Some(Value::Object(properties)) = node.map.get("properties") else {
            return;
        };
        let required: Vec<&str> = match node.map.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for (name, schema) in properties {
            c.optional += usize::from(!required.contains(&name.as_str()));
            let union =
                schema.get("anyOf").is_some() || schema.get("type").is_some_and(Value::is_array);
            c.unions += usize::from(union);
        }
    });
    c
}

/// The finding when the tools, all sent with `strict: true` in one request, pass Claude's
/// per-request limits.
pub(super) fn request_limits(schemas: &[(&str, &Map<String, Value>)]) -> Option<Problem> {
    let per_tool: Vec<(&str, Counts)> = schemas.iter().map(|(n, s)| (*n, counts(s))).collect();
    let optional: usize = per_tool.iter().map(|(_, c)| c.optional).sum();
    let unions: usize = per_tool.iter().map(|(_, c)| c.unions).sum();
    if schemas.len() <= MAX_STRICT_TOOLS && optional <= MAX_OPTIONAL && unions <= MAX_UNIONS {
        return None;
    }
    let mut most: Vec<&(&str, Counts)> = per_tool.iter().filter(|(_, c)| c.optional > 0).collect();
    most.sort_by_key(|(_, c)| std::cmp::Reverse(c.optional));
    let most: Vec<String> = most
        .iter()
        .take(3)
        .map(|(n, c)| format!("`{}` ({})", super::escaped(n), c.optional))
        .collect();
    let mut message = format!(
        "Claude strict tool use rule `request-limits` at the whole list: sent with \
         `strict: true`, these tools make one request of {} strict tools (limit \
         {MAX_STRICT_TOOLS}), {optional} optional parameters (limit {MAX_OPTIONAL}) and {unions} \
         parameters with union types (limit {MAX_UNIONS}); Claude refuses such a request with \
         HTTP 400",
        schemas.len()
    );
    if !most.is_empty() {
        message.push_str(&format!("; most optional parameters: {}", most.join(", ")));
    }
    Some(Problem::new(
        message,
        "mark only the tools that need it strict, make parameters required where a default \
         would do, or split the server",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn broken(schema: Value) -> Vec<(&'static str, String)> {
        super::super::broken_by(rules, &schema)
    }

    /// A schema strict tool use accepts: closed objects, optional fields, unions, local
    /// definitions, formats, a plain pattern, `minItems: 1`, scalar enums.
    fn strict_ok() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "format": "uri", "pattern": "^[A-Z][a-z]+$"},
                "unit": {"enum": ["C", "F", 1, true, null]},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "at": {"anyOf": [{"$ref": "#/$defs/point"}, {"type": "null"}]},
                "both": {"allOf": [{"type": "string"}, {"default": "x"}]}
            },
            "required": ["city"],
            "additionalProperties": false,
            "$defs": {
                "point": {
                    "type": "object",
                    "properties": {"lat": {"type": "number"}},
                    "additionalProperties": false
                }
            }
        })
    }

    #[test]
    fn a_strict_schema_passes_every_rule() {
        assert_eq!(broken(strict_ok()), vec![]);
    }

    #[test]
    fn additional_properties_must_be_explicitly_false() {
        let mut schema = strict_ok();
        schema["$defs"]["point"]
            .as_object_mut()
            .unwrap()
            .remove("additionalProperties");
        schema["additionalProperties"] = json!(true);
        assert_eq!(
            broken(schema),
            vec![
                ("additional-properties", String::new()),
                ("additional-properties", "/$defs/point".to_owned())
            ]
        );
    }

    #[test]
    fn constraints_are_refused_but_min_items_one_is_not() {
        let mut schema = strict_ok();
        schema["properties"]["city"]["maxLength"] = json!(40);
        schema["properties"]["tags"]["minItems"] = json!(2);
        schema["properties"]["tags"]["uniqueItems"] = json!(true);
        schema["$defs"]["point"]["properties"]["lat"]["minimum"] = json!(-90);
        let hits = rules(schema.as_object().unwrap());
        let got: Vec<_> = hits.iter().map(|h| (h.rule, h.pointer.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("constraints", "/properties/city"),
                ("constraints", "/properties/tags"),
                ("constraints", "/$defs/point/properties/lat"),
            ]
        );
        assert!(
            hits[1]
                .what
                .starts_with("`uniqueItems`, `minItems` not supported"),
            "{}",
            hits[1].what
        );
    }

    #[test]
    fn enum_values_must_be_scalars() {
        let mut schema = strict_ok();
        schema["properties"]["unit"]["enum"] = json!(["C", {"k": 1}, [1]]);
        assert_eq!(
            broken(schema),
            vec![("enum-values", "/properties/unit".to_owned())]
        );
    }

    #[test]
    fn recursion_is_found_directly_and_through_definitions() {
        let mut schema = strict_ok();
        schema["$defs"]["point"]["properties"]["next"] = json!({"$ref": "#/$defs/point"});
        assert_eq!(
            broken(schema),
            vec![("recursion", "/$defs/point/properties/next".to_owned())]
        );

        let mut schema = strict_ok();
        schema["$defs"]["a"] = json!({"anyOf": [{"$ref": "#/$defs/b"}, {"type": "null"}]});
        schema["$defs"]["b"] = json!({"type": "array", "items": {"$ref": "#/$defs/a"}});
        assert_eq!(
            broken(schema),
            vec![("recursion", "/$defs/a/anyOf/0".to_owned())]
        );

        let mut schema = strict_ok();
        schema["properties"]["tree"] = json!({"type": "array", "items": {"$ref": "#"}});
        assert_eq!(
            broken(schema),
            vec![("recursion", "/properties/tree/items".to_owned())]
        );
    }

    #[test]
    fn all_of_with_a_ref_is_refused() {
        let mut schema = strict_ok();
        schema["properties"]["both"]["allOf"][1] = json!({"$ref": "#/$defs/point"});
        assert_eq!(
            broken(schema),
            vec![("all-of-ref", "/properties/both".to_owned())]
        );
    }

    #[test]
    fn pattern_features_outside_the_supported_regex_subset() {
        assert_eq!(regex_features(r"^[a-z]+(\d{2,4})?$"), Vec::<&str>::new());
        assert_eq!(
            regex_features(r"[\b]x"),
            Vec::<&str>::new(),
            "backspace in a class"
        );
        assert_eq!(
            regex_features(r"(?<name>a)"),
            Vec::<&str>::new(),
            "a named group"
        );
        assert_eq!(
            regex_features(r"\bfoo(?=bar)(a)\1(?<!x)"),
            vec![
                "a word boundary",
                "a lookahead",
                "a backreference",
                "a lookbehind"
            ]
        );
        let mut schema = strict_ok();
        schema["properties"]["city"]["pattern"] = json!(r"^\w+\b$");
        assert_eq!(
            broken(schema),
            vec![("pattern", "/properties/city".to_owned())]
        );
    }

    #[test]
    fn request_limits_count_tools_optional_and_union_parameters() {
        let ok = strict_ok();
        let ok = ok.as_object().unwrap();
        // strict_ok has 4 optional parameters and 1 union (`at`); `point` adds `lat`.
        let four: Vec<(&str, &Map<String, Value>)> = (0..4).map(|_| ("t", ok)).collect();
        assert!(request_limits(&four).is_none(), "4 tools x 5 optional = 20");
        let five: Vec<(&str, &Map<String, Value>)> = (0..5).map(|_| ("t", ok)).collect();
        let problem = request_limits(&five).expect("25 optional parameters");
        let text = format!("{problem:?}");
        assert!(text.contains("25 optional parameters (limit 24)"), "{text}");

        let empty = json!({"type": "object", "additionalProperties": false});
        let many: Vec<(&str, &Map<String, Value>)> =
            (0..21).map(|_| ("t", empty.as_object().unwrap())).collect();
        assert!(request_limits(&many).is_some(), "21 strict tools");
    }
}
