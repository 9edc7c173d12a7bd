//! `input-schema` and `output-schema`: whether a tool's schemas are valid JSON Schema in the
//! dialect they declare, compile, and describe an object (a usable input schema then goes to
//! `required-fields`, in [`super::required`]).
//!
//! The dialect comes from `$schema`: absent means 2020-12 (MCP's default); draft-04, draft-06,
//! draft-07 and 2019-09 are honoured when named; any other `$schema` is reported. A schema is
//! first validated against its dialect's meta-schema (every error counted, the first three shown
//! with their location), then compiled, which also catches what the meta-schema cannot see:
//! patterns that are not valid regular expressions and `$ref`s that do not resolve.

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, ReferencingError};
use serde_json::{Map, Value};

use crate::mcp::types::Tool;
use crate::outcome::Severity;

use super::{
    ARGUMENT_DESCRIPTION, DEFAULT_TYPE, INPUT_SCHEMA, OUTPUT_SCHEMA, PROSE_LIMITS, Problem,
    REQUIRED_DEFAULT, REQUIRED_FIELDS, Sink, arguments, kind, quote, required,
};

/// Meta-schema errors shown in one finding; the rest are counted.
const SHOWN_ERRORS: usize = 3;

/// The first revision that lets an output schema be something other than `type: object`.
const ANY_OUTPUT_SCHEMA_SINCE: &str = "2026-07-28";

/// Checks both schemas of a tool. An unusable input schema skips `required-fields` and the
/// argument checks; the output schema is checked either way.
pub(super) fn check(tool: &Tool, shown: &str, protocol: Option<&str>, out: &mut Sink) {
    let argument_checks = [
        DEFAULT_TYPE,
        REQUIRED_DEFAULT,
        PROSE_LIMITS,
        ARGUMENT_DESCRIPTION,
    ];
    if out.enabled(INPUT_SCHEMA)
        || out.enabled(REQUIRED_FIELDS)
        || argument_checks.iter().any(|id| out.enabled(id))
    {
        match usable(tool.input_schema.as_ref(), "input schema", true) {
            Ok(schema) => {
                required::check(schema, tool, shown, out);
                arguments::check(schema, tool, shown, out);
            }
            Err(problem) => out.add(shown, INPUT_SCHEMA, Severity::Error, problem),
        }
    }
    if out.enabled(OUTPUT_SCHEMA)
        && let Some(schema) = &tool.output_schema
    {
        let must_be_object = protocol.is_none_or(|p| p < ANY_OUTPUT_SCHEMA_SINCE);
        if let Err(problem) = usable(Some(schema), "output schema", must_be_object) {
            out.add(shown, OUTPUT_SCHEMA, Severity::Error, problem);
        }
    }
}

/// The schema as an object when it is valid, compiles and (if asked) has `type: object`;
/// otherwise what the finding says. `what` is `input schema` or `output schema`.
fn usable<'s>(
    schema: Option<&'s Value>,
    what: &str,
    must_be_object: bool,
) -> Result<&'s Map<String, Value>, Problem> {
    let Some(schema) = schema else {
        return Err(Problem::new(
            format!("tool has no {what}; MCP requires one"),
            "a tool without arguments declares {\"type\": \"object\"}",
        ));
    };
    let Some(map) = schema.as_object() else {
        return Err(Problem::new(
            format!("{what} is {}, not an object schema", kind(schema)),
            "declare {\"type\": \"object\", \"properties\": {…}}",
        ));
    };
    let (draft, dialect) = dialect(map).map_err(|uri| {
        Problem::new(
            format!(
                "{what} declares an unknown $schema {}; toolproof validates draft-04, draft-06, \
                 draft-07, 2019-09 and 2020-12, and clients know no more",
                quote(uri, 120)
            ),
            "remove $schema to use 2020-12, MCP's default",
        )
    })?;

    let meta = meta_errors(schema, draft);
    if !meta.is_empty() {
        let mut message = format!(
            "{what} is not valid JSON Schema ({dialect}): {}",
            meta.iter()
                .take(SHOWN_ERRORS)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        );
        if meta.len() > SHOWN_ERRORS {
            message.push_str(&format!(" (and {} more)", meta.len() - SHOWN_ERRORS));
        }
        return Err(message.into());
    }

    if must_be_object {
        match map.get("type") {
            Some(Value::String(t)) if t == "object" => {}
            got => {
                let got = match got {
                    None => "type is missing".to_owned(),
                    Some(v) => format!("got {}", compact(v, 60)),
                };
                return Err(format!(
                    "{what} must have type 'object' at the root ({got}); \
                     clients and model APIs expect an object of named arguments"
                )
                .into());
            }
        }
    }

    if let Err(error) = jsonschema::options().with_draft(draft).build(schema) {
        return Err(compile_problem(&error, what, dialect));
    }
    Ok(map)
}

/// What a schema that passes its meta-schema but does not compile gets as a finding.
fn compile_problem(error: &jsonschema::ValidationError<'_>, what: &str, dialect: &str) -> Problem {
    match error.kind() {
        ValidationErrorKind::Referencing(ReferencingError::Unretrievable { uri, .. }) => {
            Problem::new(
                format!(
                    "{what} refers to {}, which is not part of it; clients and toolproof do not \
                     fetch remote schemas, so a model never sees that definition",
                    quote(uri, 120)
                ),
                "copy the definition under $defs and refer to it as #/$defs/…",
            )
        }
        ValidationErrorKind::Referencing(ReferencingError::PointerToNowhere { pointer }) => {
            format!(
                "{what} has a $ref to {}, which does not exist in the schema",
                quote(&format!("#{pointer}"), 120)
            )
            .into()
        }
        _ => format!(
            "{what} cannot be compiled ({dialect}): {}{}",
            match error.instance_path().as_str() {
                "" => String::new(),
                path => format!("#{path}: "),
            },
            shorten(&error.to_string(), 240)
        )
        .into(),
    }
}

/// The draft a schema declares and its label, or the unknown `$schema` URI.
fn dialect(schema: &Map<String, Value>) -> Result<(Draft, &'static str), &str> {
    let Some(Value::String(uri)) = schema.get("$schema") else {
        // Absent, or not a string (which the 2020-12 meta-schema reports).
        return Ok((Draft::Draft202012, "2020-12"));
    };
    match Draft::from_schema_uri(uri) {
        Draft::Draft4 => Ok((Draft::Draft4, "draft-04")),
        Draft::Draft6 => Ok((Draft::Draft6, "draft-06")),
        Draft::Draft7 => Ok((Draft::Draft7, "draft-07")),
        Draft::Draft201909 => Ok((Draft::Draft201909, "2019-09")),
        Draft::Draft202012 => Ok((Draft::Draft202012, "2020-12")),
        _ => Err(uri),
    }
}

/// Every meta-schema violation, as `#/location: message`, without repeats.
fn meta_errors(schema: &Value, draft: Draft) -> Vec<String> {
    let validator = match draft {
        Draft::Draft4 => jsonschema::draft4::meta::validator(),
        Draft::Draft6 => jsonschema::draft6::meta::validator(),
        Draft::Draft7 => jsonschema::draft7::meta::validator(),
        Draft::Draft201909 => jsonschema::draft201909::meta::validator(),
        _ => jsonschema::draft202012::meta::validator(),
    };
    let mut errors: Vec<String> = Vec::new();
    for error in validator.iter_errors(schema) {
        let line = format!(
            "#{}: {}",
            error.instance_path().as_str(),
            shorten(&error.to_string(), 160)
        );
        if !errors.contains(&line) {
            errors.push(line);
        }
    }
    errors
}

/// A value as compact JSON, cut to `max` characters.
fn compact(value: &Value, max: usize) -> String {
    shorten(&value.to_string(), max)
}

/// Text cut to `max` characters, with `…` when cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::super::tests::{good, of, tools};
    use super::super::{CheckContext, run};
    use super::*;
    use crate::config::ChecksConfig;
    use serde_json::json;

    fn input(schema: Value) -> Vec<(Severity, String)> {
        let mut raw = good("t");
        raw["inputSchema"] = schema;
        findings_of(INPUT_SCHEMA, raw)
    }

    fn findings_of(id: &str, raw: Value) -> Vec<(Severity, String)> {
        of(id, vec![raw])
            .into_iter()
            .map(|(_, s, m)| (s, m))
            .collect()
    }

    fn only_message(got: Vec<(Severity, String)>) -> String {
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, Severity::Error);
        got.into_iter().next().map(|g| g.1).unwrap_or_default()
    }

    #[test]
    fn valid_schemas_pass_in_every_dialect() {
        for uri in [
            None,
            Some("https://json-schema.org/draft/2020-12/schema"),
            Some("https://json-schema.org/draft/2019-09/schema"),
            Some("http://json-schema.org/draft-07/schema#"),
            Some("http://json-schema.org/draft-06/schema#"),
            Some("http://json-schema.org/draft-04/schema#"),
        ] {
            let mut schema = json!({
                "type": "object",
                "properties": {"q": {"type": "string", "pattern": "^[a-z]+$"}},
                "required": ["q"]
            });
            if let Some(uri) = uri {
                schema["$schema"] = json!(uri);
            }
            assert!(input(schema).is_empty(), "{uri:?}");
        }
    }

    #[test]
    fn invalid_schema_shows_dialect_location_and_message() {
        let got = only_message(input(json!({
            "type": "object",
            "properties": {"q": {"type": "strng"}}
        })));
        assert!(
            got.starts_with(
                "input schema is not valid JSON Schema (2020-12): #/properties/q/type: "
            ),
            "{got}"
        );
        assert!(got.contains("\"strng\""), "{got}");
    }

    #[test]
    fn invalid_schema_shows_three_errors_and_counts_the_rest() {
        let got = only_message(input(json!({
            "type": "object",
            "properties": {
                "a": {"type": "strng"},
                "b": {"minLength": -1},
                "c": {"maxItems": "x"},
                "d": {"required": 5},
                "e": {"enum": 3}
            }
        })));
        assert_eq!(got.matches("#/properties/").count(), 3, "{got}");
        assert!(got.contains("(and "), "{got}");
    }

    #[test]
    fn dialect_follows_declared_schema() {
        // `exclusiveMinimum: true` is draft-04 syntax: valid there, invalid in 2020-12.
        let draft4 = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}
        });
        assert!(input(draft4.clone()).is_empty());
        let mut modern = draft4;
        modern.as_object_mut().map(|o| o.remove("$schema"));
        let got = only_message(input(modern));
        assert!(
            got.contains("(2020-12): #/properties/n/exclusiveMinimum"),
            "{got}"
        );

        let draft7 = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"n": {"type": "number", "exclusiveMinimum": true}}
        });
        let got = only_message(input(draft7));
        assert!(got.contains("(draft-07)"), "{got}");
    }

    #[test]
    fn unknown_schema_uri_is_reported() {
        let got = only_message(input(json!({
            "$schema": "https://example.com/my-meta",
            "type": "object"
        })));
        assert!(
            got.starts_with(
                "input schema declares an unknown $schema \"https://example.com/my-meta\""
            ),
            "{got}"
        );
    }

    #[test]
    fn root_must_be_an_object_schema() {
        let got = only_message(input(json!({"type": "array", "items": {}})));
        assert!(
            got.starts_with("input schema must have type 'object' at the root (got \"array\")")
        );
        let got = only_message(input(json!({"properties": {}})));
        assert!(got.contains("(type is missing)"), "{got}");
        let got = only_message(input(json!(true)));
        assert!(got.starts_with("input schema is a boolean, not an object schema"));
        let got = only_message(input(json!(null)));
        assert!(got.starts_with("input schema is null"), "{got}");
    }

    #[test]
    fn missing_input_schema_is_an_error() {
        let mut raw = good("t");
        raw.as_object_mut().map(|o| o.remove("inputSchema"));
        let got = only_message(findings_of(INPUT_SCHEMA, raw));
        assert!(got.starts_with("tool has no input schema"));
    }

    #[test]
    fn compile_catches_bad_patterns_and_dangling_refs() {
        let got = only_message(input(json!({
            "type": "object",
            "properties": {"q": {"type": "string", "pattern": "(unclosed"}}
        })));
        assert!(
            got.starts_with("input schema cannot be compiled (2020-12): #/properties/q/pattern: "),
            "{got}"
        );

        let got = only_message(input(json!({
            "type": "object",
            "properties": {"q": {"$ref": "#/$defs/missing"}}
        })));
        assert_eq!(
            got,
            "input schema has a $ref to \"#/$defs/missing\", which does not exist in the schema"
        );

        let got = only_message(input(json!({
            "type": "object",
            "properties": {"q": {"$ref": "https://example.com/q.json"}}
        })));
        assert!(
            got.starts_with(
                "input schema refers to \"https://example.com/q.json\", which is not part of it;"
            ),
            "{got}"
        );

        let defined = json!({
            "type": "object",
            "properties": {"q": {"$ref": "#/$defs/q"}},
            "required": ["q"],
            "$defs": {"q": {"type": "string"}}
        });
        assert!(input(defined).is_empty());
    }

    #[test]
    fn broken_input_schema_skips_required_fields_only() {
        let mut raw = good("t");
        raw["inputSchema"] =
            json!({"type": "object", "properties": {"a": {"type": 1}}, "required": ["zz"]});
        raw["outputSchema"] = json!({"type": "object", "properties": {"a": {"type": 1}}});
        let ids: Vec<String> = of("input-schema", vec![raw.clone()])
            .into_iter()
            .chain(of(REQUIRED_FIELDS, vec![raw.clone()]))
            .chain(of(OUTPUT_SCHEMA, vec![raw]))
            .map(|f| f.2)
            .collect();
        assert_eq!(ids.len(), 2, "{ids:?}");
        assert!(ids[0].starts_with("input schema"));
        assert!(ids[1].starts_with("output schema"));
    }

    #[test]
    fn output_schema_is_checked_when_present() {
        let mut raw = good("t");
        raw["outputSchema"] = json!({"type": "object", "properties": {"r": {"type": "integer"}}});
        assert!(findings_of(OUTPUT_SCHEMA, raw.clone()).is_empty());

        raw["outputSchema"] = json!({"type": "object", "properties": {"r": {"type": "int"}}});
        let got = only_message(findings_of(OUTPUT_SCHEMA, raw.clone()));
        assert!(
            got.starts_with(
                "output schema is not valid JSON Schema (2020-12): #/properties/r/type"
            )
        );

        raw["outputSchema"] = json!({"type": "array"});
        let got = only_message(findings_of(OUTPUT_SCHEMA, raw.clone()));
        assert!(got.starts_with("output schema must have type 'object' at the root"));
    }

    #[test]
    fn output_schema_may_be_any_schema_from_2026_07_28() {
        let mut raw = good("t");
        raw["outputSchema"] = json!({"type": "array", "items": {"type": "string"}});
        for (protocol, expected) in [(Some("2026-07-28"), 0), (Some("2025-11-25"), 1), (None, 1)] {
            let ctx = CheckContext {
                protocol_version: protocol,
                ..Default::default()
            };
            let got = run(&tools(vec![raw.clone()]), &ChecksConfig::default(), &ctx);
            assert_eq!(got.findings.len(), expected, "{protocol:?}");
        }
    }

    #[test]
    fn shorten_marks_the_cut() {
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("abcd", 4), "abcd");
    }
}
