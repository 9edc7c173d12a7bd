use serde_json::{Value, json};

use super::super::tests::{good, of};
use super::*;

/// A tool with these arguments (all described unless the test says otherwise) and annotations.
fn tool(properties: Value, required: &[&str]) -> Value {
    let mut raw = good("t");
    raw["inputSchema"] = json!({"type": "object", "properties": properties, "required": required});
    raw
}

fn found(check: &str, raw: Value) -> Vec<(Severity, String)> {
    of(check, vec![raw])
        .into_iter()
        .map(|(_, s, m)| (s, m))
        .collect()
}

// ---- default-type ----

#[test]
fn a_null_default_on_a_typed_argument_is_a_warning() {
    let got = found(
        DEFAULT_TYPE,
        tool(
            json!({"path": {"type": "string", "default": null, "description": "Where."},
                   "n": {"type": "integer", "default": 5.0, "description": "How many."}}),
            &[],
        ),
    );
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, Severity::Warning);
    assert!(
        got[0]
            .1
            .starts_with("`path` defaults to null but is typed string;"),
        "{}",
        got[0].1
    );
}

#[test]
fn defaults_their_schema_allows_pass() {
    for p in [
        json!({"type": ["string", "null"], "default": null}),
        json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}),
        json!({"type": "string", "nullable": true, "default": null}),
        json!({"type": "integer", "default": 3}),
        json!({"type": "number", "default": 2}),
        json!({"type": "string", "enum": ["a", "b"], "default": "b"}),
        json!({"$ref": "#/$defs/x", "default": null}),
        json!({"anyOf": [{"type": "string"}, {"$ref": "#/$defs/x"}], "default": null}),
        json!({"default": null}),
    ] {
        let mut p = p;
        p["description"] = json!("Something.");
        let got = found(DEFAULT_TYPE, tool(json!({ "a": p.clone() }), &[]));
        assert!(got.is_empty(), "{p}: {got:?}");
    }
}

#[test]
fn a_default_outside_the_enum_is_named() {
    let got = found(
        DEFAULT_TYPE,
        tool(
            json!({"mode": {"type": "string", "enum": ["a", "b"], "default": "c", "description": "Mode."}}),
            &[],
        ),
    );
    assert_eq!(got.len(), 1);
    assert!(
        got[0]
            .1
            .starts_with("`mode` defaults to \"c\", which is not in its enum")
    );
}

// ---- required-default ----

#[test]
fn a_required_argument_with_a_default_is_an_info_naming_it() {
    // playwright-mcp's browser_console_messages, as listed.
    let got = found(
        REQUIRED_DEFAULT,
        tool(
            json!({"level": {"default": "info", "type": "string", "enum": ["error", "info"],
                             "description": "Level. Defaults to \"info\"."},
                   "all": {"type": "boolean", "description": "All of them."}}),
            &["level"],
        ),
    );
    assert_eq!(
        got,
        vec![(
            Severity::Info,
            "required argument is given a default: `level` (default \"info\"); the default \
             never applies, so a model must choose a value on every call"
                .to_owned()
        )]
    );
    let optional = tool(
        json!({"level": {"default": "info", "type": "string", "description": "Level."}}),
        &[],
    );
    assert!(found(REQUIRED_DEFAULT, optional).is_empty());
}

// ---- prose-limits ----

fn prose(properties: Value) -> Vec<String> {
    found(PROSE_LIMITS, tool(properties, &[]))
        .into_iter()
        .map(|(s, m)| {
            assert_eq!(s, Severity::Info);
            m
        })
        .collect()
}

#[test]
fn defaults_and_limits_stated_only_in_prose_are_named_with_their_text() {
    let got = prose(json!({
        "limit": {"type": "integer", "description": "Results to return (default: 5, max: 50)."},
        "page_size": {"type": "integer", "default": 100,
                      "description": "The number of items desired in the response. Maximum: `100`."},
        "range_limit": {"type": "integer", "default": 10,
                        "description": "Maximum number of results to return (1-500)."},
        "verbose": {"type": "boolean", "description": "Whether to include everything. Default is false."},
        "format": {"type": "string", "enum": ["png", "jpeg"], "description": "Format. Default is png."},
        "background": {"type": "boolean", "description": "Open in the background. Default is false (foreground)."},
    }));
    assert_eq!(got.len(), 1, "{got:?}");
    let m = &got[0];
    for part in [
        "`limit` says \"default: 5\" but no `default`, \"max: 50\" but no `maximum`",
        "`page_size` says \"Maximum: `100`\" but no `maximum`",
        "`range_limit` says \"(1-500)\" but no `minimum` nor `maximum`",
        "`verbose` says \"Default is false\" but no `default`",
        "`format` says \"Default is png\" but no `default`",
        "`background` says \"Default is false\" but no `default`",
    ] {
        assert!(m.contains(part), "{part} not in {m}");
    }
}

#[test]
fn prose_the_schema_already_says_or_cannot_say_is_not_flagged() {
    // Texts from the real-server corpus that must stay quiet.
    let got = prose(json!({
        // Already in the schema.
        "a": {"type": "integer", "default": 10, "maximum": 100, "minimum": 1,
              "description": "Maximum recent commits to fetch (1-1000). Defaults to 10."},
        // A default that is no single value of the type.
        "b": {"type": "number", "maximum": 50, "description": "Default: 5.1 (timeline: 9.3)."},
        "c": {"type": "string", "description": "e.g. 'A1:D20'. Default: the used range."},
        "d": {"type": "array", "items": {"type": "string"}, "description": "Default: ['Sheet1']."},
        "e": {"type": "integer", "description": "1-based. Default: last."},
        "f": {"type": "string", "description": "Remote name (default: origin)."},
        // A limit on another argument's kind of value, or no number.
        "g": {"type": "string", "description": "Latitude between -90 and 90."},
        "h": {"type": "integer", "maximum": 60000, "minimum": 0,
              "description": "Maximum wait time in milliseconds. If set to 0, the default timeout will be used."},
        "i": {"type": "integer", "description": "Each page holds up to 10 results."},
        "j": {"type": "string", "description": "Create a tag with a default \"Tag <name>\" message."},
        "k": {"type": "integer", "description": "Max number of links to follow per level."},
        "l": {"$ref": "#/$defs/x", "description": "Default: 5."},
    }));
    assert!(got.is_empty(), "{got:?}");
}

// ---- argument-description ----

#[test]
fn arguments_without_a_description_make_one_info_per_tool() {
    let got = found(
        ARGUMENT_DESCRIPTION,
        tool(
            json!({"path": {"type": "string"}, "sheet": {"type": "string", "title": "Sheet"},
                   "range": {"type": "string", "description": "Cells, e.g. A1:B2."}}),
            &["path"],
        ),
    );
    assert_eq!(
        got,
        vec![(
            Severity::Info,
            "2 of its 3 arguments have no description: `path`, `sheet`; a model guesses what \
             to pass from the name alone"
                .to_owned()
        )]
    );
    let one = found(
        ARGUMENT_DESCRIPTION,
        tool(
            json!({"path": {"type": "string", "description": " "}}),
            &["path"],
        ),
    );
    assert!(
        one[0]
            .1
            .starts_with("its one argument has no description: `path`")
    );
    let none = found(
        ARGUMENT_DESCRIPTION,
        tool(
            json!({"a": {"type": "string"}, "b": {"type": "string"}}),
            &[],
        ),
    );
    assert!(
        none[0]
            .1
            .starts_with("none of its 2 arguments has a description: `a`, `b`;"),
        "{}",
        none[0].1
    );
}

#[test]
fn arguments_the_tool_description_documents_count_as_described() {
    // FastMCP puts a docstring's `Args:` section in the tool's description.
    let mut raw = tool(
        json!({"query": {"type": "string", "title": "Query"},
               "max_results": {"type": "integer", "default": 10},
               "region": {"type": "string"},
               "node": {"$ref": "#/$defs/node"},
               "sort": {"anyOf": [{"type": "object", "description": "How to order."}, {"type": "null"}]}}),
        &["query"],
    );
    raw["inputSchema"]["$defs"] = json!({"node": {"type": "object", "description": "A node."}});
    raw["description"] = json!(
        "Search the web.\n\n    Args:\n        query: The search query string.\n        \
         max_results (int): Maximum number of results.\n        - `region` - where\n"
    );
    assert!(found(ARGUMENT_DESCRIPTION, raw).is_empty());
}

#[test]
fn each_argument_check_can_be_disabled_and_infos_never_fail() {
    let raw = tool(
        json!({"a": {"type": "string", "default": null}, "b": {"type": "integer", "default": 1}}),
        &["b"],
    );
    let cfg = crate::config::ChecksConfig {
        strict: true,
        ..crate::config::ChecksConfig::default()
    };
    let all = crate::checks::run(
        &super::super::tests::tools(vec![raw.clone()]),
        &cfg,
        &crate::checks::CheckContext::default(),
    )
    .findings;
    let ids: Vec<(&str, bool)> = all.iter().map(|f| (f.check.as_str(), f.fails)).collect();
    assert_eq!(
        ids,
        vec![
            (DEFAULT_TYPE, true),
            (REQUIRED_DEFAULT, false),
            (ARGUMENT_DESCRIPTION, false)
        ]
    );
    for id in [DEFAULT_TYPE, REQUIRED_DEFAULT, ARGUMENT_DESCRIPTION] {
        let cfg = crate::config::ChecksConfig {
            disable: vec![id.to_owned()],
            ..crate::config::ChecksConfig::default()
        };
        let left = crate::checks::run(
            &super::super::tests::tools(vec![raw.clone()]),
            &cfg,
            &crate::checks::CheckContext::default(),
        )
        .findings;
        assert!(left.iter().all(|f| f.check != id), "{id}");
        assert_eq!(left.len(), 2, "{id}");
    }
}
