//! `client-openai-strict`: what OpenAI refuses in a function's `parameters` once a client sets
//! `strict: true` (Structured Outputs for function calling).
//!
//! Source: OpenAI, "Structured model outputs", section "Supported schemas",
//! <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas> (also served
//! as developers.openai.com/api/docs/guides/structured-outputs), read 2026-12-01 from a stored
//! copy of the revision that allows 5000 properties and 10 levels of nesting (the August 2024
//! revision said 100 and 5) and lists only composition keywords as "not yet supported". The
//! function-calling guide says the same rules apply to `strict: true` tools. What the rules
//! enforce, each with the sentence it rests on:
//!
//! - `additional-properties`: "`additionalProperties: false` must always be set in objects".
//!   Only objects with `type: object` are held to it.
//! - `all-required`: "all fields or function parameters must be specified as `required`";
//!   optional ones are emulated "by using a union type with `null`".
//! - `root-object`: "the root level object of a schema must be an object, and not use
//!   `anyOf`". The API's error names more: "schema must have type 'object' and not have
//!   'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level" (quoted in
//!   cecli-dev/cecli#281, 2025-12-19), so all five are flagged at the root.
//! - `unsupported-keyword`: documented as not supported: `allOf`, `not`, `dependentRequired`,
//!   `dependentSchemas`, `if`, `then`, `else`. `oneOf` is not among the supported types and the
//!   API answers "'oneOf' is not permitted" (quoted in ai-dynamo/dynamo#15153, 2026). The
//!   current revision neither supports nor mentions `uniqueItems`, `contains`,
//!   `minContains`, `maxContains`, `unevaluatedItems`, `unevaluatedProperties`,
//!   `propertyNames`, `minProperties`, `maxProperties`, which the 2024 revision listed as not
//!   supported; the API still answers "'uniqueItems' is not permitted" (1jehuang/jcode#687,
//!   2026-07-31), so the whole group is flagged. Not flagged, because the current revision
//!   lists them as unsupported only "for fine-tuned models" (so the reading without false
//!   positives is that other models accept them): `minLength`, `maxLength`,
//!   `patternProperties`. Not flagged either, for want of a current statement: `default`,
//!   `title`, `examples` and other annotations.
//! - `format`: "Currently supported" formats are date-time, time, date, duration, email,
//!   hostname, ipv4, ipv6 and uuid; the API answers "'uri' is not a valid format" for others
//!   (can1357/oh-my-pi#206, 2026-02-28).
//! - `nesting-depth`: "up to 10 levels of nesting". The page does not say what a level is;
//!   counted here as object schemas on the way down (arrays and unions add none), the reading
//!   that flags least. Definitions count from their own level, since where they are used is
//!   not known.
//! - `size-limits`: "up to 5000 object properties total"; "total string length of all
//!   property names, definition names, enum values, and const values cannot exceed 120,000
//!   characters"; "up to 1000 enum values across all enum properties"; one string enum of more
//!   than 250 values may hold at most 15,000 characters.
//!
//! `$ref` and `$defs` need no rule: "Definitions are supported" and "Recursive schemas are
//! supported". Strict mode is opt-in (Chat Completions defaults to non-strict; the Responses
//! API falls back to non-strict when a schema cannot be made strict), hence not on by default.

use serde_json::{Map, Value};

use super::{Hit, Node, Scope, is_object, names, place, present, walk};

/// String formats strict mode accepts.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords strict mode refuses anywhere, with what to do instead.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("allOf", "merge the branches into one schema"),
    ("oneOf", "use `anyOf`"),
    ("not", "drop it and check the condition in the tool"),
    ("if", "drop the condition and check it in the tool"),
    ("then", "drop the condition and check it in the tool"),
    ("else", "drop the condition and check it in the tool"),
    ("dependentRequired", "drop it and check it in the tool"),
    ("dependentSchemas", "drop it and check it in the tool"),
    ("uniqueItems", "drop it and check it in the tool"),
    ("contains", "drop it and check it in the tool"),
    ("minContains", "drop it and check it in the tool"),
    ("maxContains", "drop it and check it in the tool"),
    ("unevaluatedItems", "drop it"),
    ("unevaluatedProperties", "use `additionalProperties: false`"),
    ("propertyNames", "drop it and check it in the tool"),
    ("minProperties", "drop it and check it in the tool"),
    ("maxProperties", "drop it and check it in the tool"),
];

/// Keywords the root may not have.
const NOT_AT_ROOT: &[&str] = &["anyOf", "oneOf", "allOf", "enum", "not"];

const MAX_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5000;
const MAX_STRING_CHARS: usize = 120_000;
const MAX_ENUM_VALUES: usize = 1000;
const BIG_ENUM: usize = 250;
const MAX_BIG_ENUM_CHARS: usize = 15_000;

/// Every place in `root` that strict mode refuses, in walk order; the totals last.
pub(super) fn rules(root: &Map<String, Value>) -> Vec<Hit> {
    let mut hits = Vec::new();
    root_object(root, &mut hits);
    let mut totals = Totals::default();
    walk(root, Scope::JsonSchema, &mut |node| {
        closed_object(node, &mut hits);
        all_required(node, &mut hits);
        unsupported(node, &mut hits);
        format(node, &mut hits);
        totals.add(node, &mut hits);
    });
    totals.finish(&mut hits);
    hits
}

fn root_object(root: &Map<String, Value>, hits: &mut Vec<Hit>) {
    let found = present(root, NOT_AT_ROOT);
    if found.is_empty() {
        return;
    }
    hits.push(Hit::new(
        "root-object",
        "",
        format!(
            "the root has {}; strict mode wants a plain object there",
            names(found, 5)
        ),
        "keep the root a plain object and move the alternatives into a property, \
         e.g. an `anyOf` under /properties/<name>",
    ));
}

fn closed_object(node: &Node, hits: &mut Vec<Hit>) {
    if !is_object(node.map) {
        return;
    }
    let at = place(&node.pointer);
    let (what, hint) = match node.map.get("additionalProperties") {
        Some(Value::Bool(false)) => return,
        None => (
            "the object does not set `additionalProperties: false`".to_owned(),
            format!("add `\"additionalProperties\": false` at {at}"),
        ),
        Some(Value::Object(_)) => (
            "`additionalProperties` is a schema (an open map), which strict mode cannot express"
                .to_owned(),
            format!(
                "replace the map at {at} with named properties (or an array of key/value \
                 objects) and set `\"additionalProperties\": false`"
            ),
        ),
        Some(_) => (
            "`additionalProperties` is not false".to_owned(),
            format!("set `\"additionalProperties\": false` at {at}"),
        ),
    };
    hits.push(Hit::new("additional-properties", &node.pointer, what, hint));
}

fn all_required(node: &Node, hits: &mut Vec<Hit>) {
    let Some(Value::Object(properties)) = node.map.get("properties") else {
        return;
    };
    let required: Vec<&str> = match node.map.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let missing: Vec<&str> = properties
        .keys()
        .map(String::as_str)
        .filter(|p| !required.contains(p))
        .collect();
    if missing.is_empty() {
        return;
    }
    let list = names(missing.iter().copied(), 5);
    hits.push(Hit::new(
        "all-required",
        &node.pointer,
        format!("{list} not in `required`; strict mode requires every property to be"),
        format!(
            "list {list} in `required` at {}; to keep one optional, let it be null, e.g. \
             `\"type\": [\"string\", \"null\"]`",
            place(&node.pointer)
        ),
    ));
}

fn unsupported(node: &Node, hits: &mut Vec<Hit>) {
    let root = node.pointer.is_empty();
    let found: Vec<(&str, &str)> = UNSUPPORTED
        .iter()
        .copied()
        .filter(|(k, _)| node.map.contains_key(*k))
        .filter(|(k, _)| !(root && NOT_AT_ROOT.contains(k)))
        .collect();
    if found.is_empty() {
        return;
    }
    let mut fixes: Vec<String> = Vec::new();
    for (keyword, fix) in &found {
        fixes.push(format!("`{keyword}`: {fix}"));
    }
    hits.push(Hit::new(
        "unsupported-keyword",
        &node.pointer,
        format!(
            "{} not in the subset strict mode supports",
            names(found.iter().map(|(k, _)| *k), 8)
        ),
        format!("at {}: {}", place(&node.pointer), fixes.join("; ")),
    ));
}

fn format(node: &Node, hits: &mut Vec<Hit>) {
    let Some(Value::String(format)) = node.map.get("format") else {
        return;
    };
    if FORMATS.contains(&format.as_str()) {
        return;
    }
    let shown = names([format.as_str()], 1);
    hits.push(Hit::new(
        "format",
        &node.pointer,
        format!("`format` {shown} is not one strict mode knows"),
        format!(
            "remove `format` {shown} at {} and say it in the description, or use one of {}",
            place(&node.pointer),
            FORMATS.join(", ")
        ),
    ));
}

/// The sizes the limits are about, summed over the walk.
#[derive(Default)]
struct Totals {
    properties: usize,
    chars: usize,
    enum_values: usize,
    too_deep: bool,
}

impl Totals {
    fn add(&mut self, node: &Node, hits: &mut Vec<Hit>) {
        if let Some(Value::Object(p)) = node.map.get("properties") {
            self.properties += p.len();
            self.chars += p.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        for defs in ["$defs", "definitions"] {
            if let Some(Value::Object(d)) = node.map.get(defs) {
                self.chars += d.keys().map(|k| k.chars().count()).sum::<usize>();
            }
        }
        if let Some(value) = node.map.get("const") {
            self.chars += text_chars(value);
        }
        if let Some(Value::Array(values)) = node.map.get("enum") {
            self.enum_values += values.len();
            let chars: usize = values.iter().map(text_chars).sum();
            self.chars += chars;
            if values.len() > BIG_ENUM
                && values.iter().all(Value::is_string)
                && chars > MAX_BIG_ENUM_CHARS
            {
                hits.push(Hit::new(
                    "size-limits",
                    &node.pointer,
                    format!(
                        "a string enum of {} values (more than {BIG_ENUM}) holds {chars} \
                         characters; strict mode allows {MAX_BIG_ENUM_CHARS}",
                        values.len()
                    ),
                    format!("shorten or split the enum at {}", place(&node.pointer)),
                ));
            }
        }
        if node.objects > MAX_DEPTH && !self.too_deep {
            self.too_deep = true;
            hits.push(Hit::new(
                "nesting-depth",
                &node.pointer,
                format!(
                    "objects are nested {} levels deep here; strict mode allows {MAX_DEPTH}",
                    node.objects
                ),
                format!("flatten the objects above {}", place(&node.pointer)),
            ));
        }
    }

    fn finish(self, hits: &mut Vec<Hit>) {
        let mut over = Vec::new();
        if self.properties > MAX_PROPERTIES {
            over.push(format!(
                "{} object properties (limit {MAX_PROPERTIES})",
                self.properties
            ));
        }
        if self.chars > MAX_STRING_CHARS {
            over.push(format!(
                "{} characters of property names, definition names, enum and const values \
                 (limit {MAX_STRING_CHARS})",
                self.chars
            ));
        }
        if self.enum_values > MAX_ENUM_VALUES {
            over.push(format!(
                "{} enum values (limit {MAX_ENUM_VALUES})",
                self.enum_values
            ));
        }
        if !over.is_empty() {
            hits.push(Hit::new(
                "size-limits",
                "",
                format!("the schema has {}", over.join(", ")),
                "split the tool, or move the long lists into the description",
            ));
        }
    }
}

/// Characters a value adds to the string-size limit: a string's own, another value's JSON.
fn text_chars(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The rules `schema` breaks, as `(rule, pointer)`.
    fn broken(schema: Value) -> Vec<(&'static str, String)> {
        super::super::broken_by(rules, &schema)
    }

    fn hit(rule: &'static str, pointer: &str) -> (&'static str, String) {
        (rule, pointer.to_owned())
    }

    /// A schema strict mode accepts: closed objects, everything required, optional values
    /// nullable, supported keywords and formats, definitions and a recursive reference.
    fn strict_ok() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "pattern": "^[A-Z]", "format": "hostname"},
                "unit": {"type": ["string", "null"], "enum": ["C", "F"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5},
                "filter": {
                    "type": "object",
                    "properties": {"near": {"anyOf": [{"$ref": "#/$defs/point"}, {"type": "null"}]}},
                    "required": ["near"],
                    "additionalProperties": false
                }
            },
            "required": ["city", "unit", "days", "tags", "filter"],
            "additionalProperties": false,
            "$defs": {
                "point": {
                    "type": "object",
                    "properties": {"lat": {"type": "number"}, "next": {"$ref": "#"}},
                    "required": ["lat", "next"],
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
    fn additional_properties_must_be_false_on_every_object() {
        let mut schema = strict_ok();
        schema["properties"]["filter"]
            .as_object_mut()
            .unwrap()
            .remove("additionalProperties");
        schema["additionalProperties"] = json!({"type": "string"});
        let hits = rules(schema.as_object().unwrap());
        let got: Vec<_> = hits.iter().map(|h| (h.rule, h.pointer.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("additional-properties", ""),
                ("additional-properties", "/properties/filter")
            ]
        );
        assert_eq!(
            hits[1].hint,
            "add `\"additionalProperties\": false` at /properties/filter"
        );
        assert!(hits[0].what.contains("open map"), "{}", hits[0].what);
    }

    #[test]
    fn all_required_names_the_optional_properties() {
        let mut schema = strict_ok();
        schema["required"] = json!(["city", "unit", "filter"]);
        let hits = rules(schema.as_object().unwrap());
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(
            (hits[0].rule, hits[0].pointer.as_str()),
            ("all-required", "")
        );
        assert!(
            hits[0].what.starts_with("`days`, `tags` not in `required`"),
            "{}",
            hits[0].what
        );
        assert!(hits[0].hint.contains("\"type\": [\"string\", \"null\"]"));
    }

    #[test]
    fn root_object_refuses_a_union_at_the_root() {
        let mut schema = strict_ok();
        schema["anyOf"] = json!([{"required": ["city"]}, {"required": ["unit"]}]);
        schema["oneOf"] = json!([{"required": ["city"]}]);
        assert_eq!(broken(schema), vec![hit("root-object", "")]);
    }

    #[test]
    fn unsupported_keywords_are_flagged_where_they_are() {
        let mut schema = strict_ok();
        schema["properties"]["tags"]["uniqueItems"] = json!(true);
        schema["properties"]["city"]["oneOf"] = json!([{"type": "string"}]);
        schema["properties"]["days"]["not"] = json!({"const": 3});
        schema["properties"]["city"]["minLength"] = json!(1); // fine except for fine-tuned models
        let hits = rules(schema.as_object().unwrap());
        let got: Vec<_> = hits.iter().map(|h| (h.rule, h.pointer.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("unsupported-keyword", "/properties/city"),
                ("unsupported-keyword", "/properties/days"),
                ("unsupported-keyword", "/properties/tags"),
            ]
        );
        assert!(
            hits[0].hint.contains("`oneOf`: use `anyOf`"),
            "{}",
            hits[0].hint
        );
    }

    #[test]
    fn format_accepts_only_the_documented_formats() {
        let mut schema = strict_ok();
        schema["properties"]["city"]["format"] = json!("uri");
        let hits = rules(schema.as_object().unwrap());
        assert_eq!(hits.len(), 1);
        assert_eq!(
            (hits[0].rule, hits[0].pointer.as_str()),
            ("format", "/properties/city")
        );
        assert!(
            hits[0]
                .hint
                .starts_with("remove `format` `uri` at /properties/city")
        );
    }

    /// An object `levels` objects deep, each closed and with its one property required.
    fn nested(levels: usize) -> Value {
        let mut schema = json!({"type": "string"});
        for _ in 0..levels {
            schema = json!({
                "type": "object",
                "properties": {"n": schema},
                "required": ["n"],
                "additionalProperties": false
            });
        }
        schema
    }

    #[test]
    fn nesting_depth_allows_ten_object_levels() {
        assert_eq!(broken(nested(10)), vec![]);
        let deep = "/properties/n".repeat(10);
        assert_eq!(broken(nested(11)), vec![hit("nesting-depth", &deep)]);
    }

    #[test]
    fn size_limits_count_properties_enum_values_and_characters() {
        let many: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
        let mut schema = strict_ok();
        schema["properties"]["unit"]["enum"] = json!(many);
        assert_eq!(broken(schema), vec![hit("size-limits", "")]);

        let long: Vec<String> = (0..251).map(|i| format!("{i:0>60}")).collect();
        let mut schema = strict_ok();
        schema["properties"]["unit"]["enum"] = json!(long);
        assert_eq!(broken(schema), vec![hit("size-limits", "/properties/unit")]);

        let mut props = Map::new();
        for i in 0..5001 {
            props.insert(format!("p{i}"), json!({"type": "null"}));
        }
        let names: Vec<String> = props.keys().cloned().collect();
        let schema = json!({"type": "object", "properties": props, "required": names, "additionalProperties": false});
        assert_eq!(broken(schema), vec![hit("size-limits", "")]);
    }
}
