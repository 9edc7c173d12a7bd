//! `client-gemini`: what the Gemini API refuses in a function declaration's `parameters`,
//! which takes Gemini's own `Schema` (a subset of OpenAPI 3.0), not JSON Schema.
//!
//! Sources, read 2026-12-01:
//! - the `Schema` message of `google/ai/generativelanguage/v1beta/content.proto`
//!   (googleapis/googleapis, stored copy at commit c76b7407), with the fields the v1beta
//!   client `@google-ai/generativelanguage` 3.7.0 lists for `ISchema` (which adds `minLength`,
//!   `maxLength`, `pattern`, `minProperties`, `maxProperties`, `example`); the REST reference
//!   is <https://ai.google.dev/api/caching#Schema>. Its `format` comment: "for STRING type:
//!   enum, date-time"; `enum` is a list of strings.
//! - what the API answers, since the reference does not say what happens to other input. It
//!   parses the request as protobuf JSON, so a key that is not a field fails the whole request:
//!   "Invalid JSON payload received. Unknown name \"additionalProperties\" at
//!   'tools[0].function_declarations[…].parameters…': Cannot find field."
//!   (musistudio/claude-code-router#187, 2025-07-15; the same for `$schema`, `const`,
//!   `exclusiveMinimum`, `propertyNames` in openswarm-ai/openswarm#24, and `const` in
//!   zed-industries/zed#44875, 2025-12-15). A list where one value is expected: "Proto field
//!   is not repeating, cannot start list" (`type`, zed-industries/zed#53919, 2026). Enum
//!   values that are not strings: "Invalid value at '…enum[2]' (TYPE_STRING), 4"
//!   (microsoft/azure-devops-mcp#145); an enum on another type: "function declaration enum
//!   only allowed for STRING type" (decolua/9router#380, 2026-03-21). A string format: "only
//!   'enum' and 'date-time' are supported for STRING type" (google-gemini/gemini-cli#3178,
//!   2025-07-03).
//!
//! All of these are refused, not dropped, so each is a request that fails. Fields the API
//! takes and ignores (`default`: "included here and ignored") change nothing and are not
//! flagged; nor are formats of numbers, for which no refusal is on record. Clients that send
//! the schema as `parametersJsonSchema` instead (Gemini CLI since July 2025,
//! google-gemini/gemini-cli#4176 and #5330) are not affected, hence not on by default.

use serde_json::{Map, Value};

use super::{Hit, Node, Scope, names, place, walk};

/// The fields of Gemini's `Schema`, by their JSON names and, as protobuf JSON also accepts,
/// their proto names.
const FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "minimum",
    "maximum",
    "max_items",
    "min_items",
    "min_properties",
    "max_properties",
    "min_length",
    "max_length",
    "any_of",
    "property_ordering",
];

/// What to do instead of a JSON Schema keyword Gemini lacks; any other is simply removed.
const INSTEAD: &[(&str, &str)] = &[
    ("$ref", "inline what `$ref` points to"),
    ("$defs", "inline the `$defs` where they are used"),
    (
        "definitions",
        "inline the `definitions` where they are used",
    ),
    ("oneOf", "use `anyOf` instead of `oneOf`"),
    ("allOf", "merge the `allOf` branches into one schema"),
    ("const", "use `enum` with the one value instead of `const`"),
    (
        "exclusiveMinimum",
        "use `minimum` instead of `exclusiveMinimum`",
    ),
    (
        "exclusiveMaximum",
        "use `maximum` instead of `exclusiveMaximum`",
    ),
    (
        "examples",
        "use `example` (one value) instead of `examples`",
    ),
    (
        "additionalProperties",
        "Gemini cannot forbid other keys, so the tool must refuse them itself",
    ),
];

/// String formats Gemini accepts.
const STRING_FORMATS: &[&str] = &["enum", "date-time"];

/// Every place in `root` the Gemini API refuses, in walk order.
pub(super) fn rules(root: &Map<String, Value>) -> Vec<Hit> {
    let mut hits = Vec::new();
    walk(root, Scope::Gemini, &mut |node| {
        unknown_keyword(node, &mut hits);
        list_value(node, &mut hits);
        enum_values(node, &mut hits);
        format(node, &mut hits);
    });
    hits
}

fn unknown_keyword(node: &Node, hits: &mut Vec<Hit>) {
    let unknown: Vec<&str> = node
        .map
        .keys()
        .map(String::as_str)
        .filter(|k| !FIELDS.contains(k))
        .collect();
    if unknown.is_empty() {
        return;
    }
    let list = names(unknown.iter().copied(), 8);
    let mut hint = format!("remove {list} at {}", place(&node.pointer));
    for key in &unknown {
        if let Some((_, fix)) = INSTEAD.iter().find(|(k, _)| k == key) {
            hint.push_str("; ");
            hint.push_str(fix);
        }
    }
    hits.push(Hit::new(
        "unknown-keyword",
        &node.pointer,
        format!("{list} not a field of Gemini's Schema"),
        hint,
    ));
}

fn list_value(node: &Node, hits: &mut Vec<Hit>) {
    let at = place(&node.pointer);
    if let Some(Value::Array(types)) = node.map.get("type") {
        let types: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
        hits.push(Hit::new(
            "list-value",
            &node.pointer,
            format!(
                "`type` is a list ({}); Gemini takes one type",
                names(types, 5)
            ),
            format!(
                "give one `type` at {at}; for a value that may be null use `anyOf` with \
                 `{{\"type\": \"null\"}}` as one branch, or `\"nullable\": true`"
            ),
        ));
    }
    if let Some(Value::Array(_)) = node.map.get("items") {
        hits.push(Hit::new(
            "list-value",
            &node.pointer,
            "`items` is a list of schemas (a tuple); Gemini takes one schema for every item",
            format!("describe the items at {at} with one schema"),
        ));
    }
}

fn enum_values(node: &Node, hits: &mut Vec<Hit>) {
    let Some(Value::Array(values)) = node.map.get("enum") else {
        return;
    };
    let non_strings = values.iter().filter(|v| !v.is_string()).count();
    // A list of types holding `string` is reported by `list-value` alone.
    let typed_string = match node.map.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => false,
    };
    let what = match (non_strings, typed_string) {
        (0, true) => return,
        (0, false) => "the enum's schema is not `\"type\": \"string\"`; Gemini allows enums \
                       only on strings"
            .to_owned(),
        (n, _) => format!("{n} enum values are not strings; Gemini's enum holds only strings"),
    };
    hits.push(Hit::new(
        "enum",
        &node.pointer,
        what,
        format!(
            "at {}, declare `\"type\": \"string\"` with string values, or drop the enum and \
             list the values in the description",
            place(&node.pointer)
        ),
    ));
}

fn format(node: &Node, hits: &mut Vec<Hit>) {
    let Some(Value::String(format)) = node.map.get("format") else {
        return;
    };
    let string = node.map.get("type").and_then(Value::as_str) == Some("string");
    if !string || STRING_FORMATS.contains(&format.as_str()) {
        return;
    }
    let shown = names([format.as_str()], 1);
    hits.push(Hit::new(
        "format",
        &node.pointer,
        format!("string `format` {shown}; Gemini accepts only enum and date-time"),
        format!(
            "remove `format` {shown} at {} and say it in the description",
            place(&node.pointer)
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn broken(schema: Value) -> Vec<(&'static str, String)> {
        super::super::broken_by(rules, &schema)
    }

    /// A schema Gemini accepts as `parameters`.
    fn gemini_ok() -> Value {
        json!({
            "type": "object",
            "title": "Forecast",
            "description": "Where and when",
            "properties": {
                "city": {"type": "string", "minLength": 1, "pattern": "^[A-Z]", "example": "Oslo"},
                "when": {"type": "string", "format": "date-time", "default": "now"},
                "unit": {"type": "string", "enum": ["C", "F"], "nullable": true},
                "days": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 7},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                "near": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "required": ["city"],
            "propertyOrdering": ["city", "when"]
        })
    }

    #[test]
    fn a_gemini_schema_passes_every_rule() {
        assert_eq!(broken(gemini_ok()), vec![]);
    }

    #[test]
    fn unknown_keywords_are_refused_with_what_to_do_instead() {
        let mut schema = gemini_ok();
        schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        schema["additionalProperties"] = json!(false);
        schema["properties"]["city"]["const"] = json!("Oslo");
        schema["properties"]["near"]["anyOf"][0]["$ref"] = json!("#/$defs/x");
        // Inside a keyword Gemini refuses as a whole, nothing more is reported.
        schema["$defs"] = json!({"x": {"oneOf": []}});
        let hits = rules(schema.as_object().unwrap());
        let got: Vec<_> = hits.iter().map(|h| (h.rule, h.pointer.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("unknown-keyword", ""),
                ("unknown-keyword", "/properties/city"),
                ("unknown-keyword", "/properties/near/anyOf/0"),
            ]
        );
        assert!(
            hits[0]
                .what
                .starts_with("`$schema`, `additionalProperties`, `$defs` not"),
            "{}",
            hits[0].what
        );
        assert_eq!(
            hits[1].hint,
            "remove `const` at /properties/city; use `enum` with the one value instead of `const`"
        );
    }

    #[test]
    fn proto_field_names_are_fields_too() {
        let mut schema = gemini_ok();
        schema["property_ordering"] = json!(["city"]);
        assert_eq!(broken(schema), vec![]);
    }

    #[test]
    fn list_value_refuses_type_lists_and_tuples() {
        let mut schema = gemini_ok();
        schema["properties"]["unit"]["type"] = json!(["string", "null"]);
        schema["properties"]["tags"]["items"] = json!([{"type": "string"}]);
        assert_eq!(
            broken(schema),
            vec![
                ("list-value", "/properties/unit".to_owned()),
                ("list-value", "/properties/tags".to_owned()),
            ]
        );
    }

    #[test]
    fn enum_must_be_strings_on_a_string() {
        let mut schema = gemini_ok();
        schema["properties"]["days"]["enum"] = json!([1, 2, 3]);
        schema["properties"]["near"]["anyOf"][0] = json!({"enum": ["a", "b"]});
        let hits = rules(schema.as_object().unwrap());
        let got: Vec<_> = hits.iter().map(|h| (h.rule, h.pointer.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("enum", "/properties/days"),
                ("enum", "/properties/near/anyOf/0")
            ]
        );
        assert!(hits[0].what.starts_with("3 enum values are not strings"));
        assert!(hits[1].what.contains("not `\"type\": \"string\"`"));
    }

    #[test]
    fn string_format_must_be_enum_or_date_time() {
        let mut schema = gemini_ok();
        schema["properties"]["city"]["format"] = json!("uri");
        assert_eq!(
            broken(schema),
            vec![("format", "/properties/city".to_owned())]
        );
    }
}
