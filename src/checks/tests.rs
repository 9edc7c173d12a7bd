//! Tests of the checks as a whole (order, disabling, strict) and the helpers the per-check
//! tests share.

use super::*;
use serde_json::json;

/// A tool that passes every check.
pub(crate) fn good(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("Looks up {name} records by id"),
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string", "description": "The record's id."}},
            "required": ["id"]
        },
        "annotations": {"readOnlyHint": true}
    })
}

pub(crate) fn tools(raw: Vec<Value>) -> Vec<Tool> {
    raw.into_iter().map(Tool::from_wire).collect()
}

pub(crate) fn findings(raw: Vec<Value>) -> Vec<Finding> {
    run(
        &tools(raw),
        &ChecksConfig::default(),
        &CheckContext::default(),
    )
    .findings
}

/// Findings of one check, as `(tool, severity, message)`.
pub(crate) fn of(check: &str, raw: Vec<Value>) -> Vec<(String, Severity, String)> {
    findings(raw)
        .into_iter()
        .filter(|f| f.check == check)
        .map(|f| (f.tool, f.severity, f.message))
        .collect()
}

#[test]
fn good_tools_have_no_findings() {
    assert_eq!(findings(vec![good("alpha"), good("beta")]), vec![]);
}

#[test]
fn duplicate_name_trips_once_per_name() {
    let got = of(
        DUPLICATE_NAME,
        vec![good("a"), good("b"), good("a"), good("a")],
    );
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, "a");
    assert_eq!(got[0].1, Severity::Error);
    assert!(got[0].2.starts_with("tool name is used 3 times"));
    assert!(of(DUPLICATE_NAME, vec![good("a"), good("b")]).is_empty());
}

#[test]
fn duplicates_come_first_then_tools_then_list_wide() {
    let weather = |name: &str, verb: &str| {
        json!({
            "name": name,
            "description": format!("{verb} the current weather for a city"),
            "inputSchema": {"type": "object"}
        })
    };
    let raw = vec![
        json!({"name": "x", "description": "", "inputSchema": {"type": "object"}}),
        weather("get_weather", "Get"),
        json!({"name": "y", "inputSchema": {"type": "object"}}),
        weather("fetch_weather", "Fetch"),
        json!({"name": "y", "inputSchema": {"type": "object"}}),
    ];
    let noise = vec!["hello".to_owned()];
    let ctx = CheckContext {
        stdout_noise: &noise,
        ..Default::default()
    };
    let cfg = ChecksConfig {
        max_tool_list_tokens: 10,
        ..Default::default()
    };
    let got = run(&tools(raw), &cfg, &ctx);
    let order: Vec<(&str, &str)> = got
        .findings
        .iter()
        .map(|f| (f.tool.as_str(), f.check.as_str()))
        .collect();
    assert_eq!(
        order,
        vec![
            ("y", DUPLICATE_NAME),
            ("x", DESCRIPTION),
            ("x", ANNOTATIONS_MISSING),
            ("get_weather", ANNOTATIONS_MISSING),
            ("y", DESCRIPTION),
            ("y", ANNOTATIONS_MISSING),
            ("fetch_weather", ANNOTATIONS_MISSING),
            ("y", DESCRIPTION),
            ("y", ANNOTATIONS_MISSING),
            ("get_weather + fetch_weather", SIMILAR_TOOLS),
            ("*", TOOL_LIST_SIZE),
            ("*", STDOUT_NOISE),
        ]
    );
    assert_eq!(
        got.tools,
        vec!["x", "get_weather", "y", "fetch_weather", "y"]
    );
}

#[test]
fn name_trips_on_empty_whitespace_and_missing() {
    let mut blank = good("x");
    blank["name"] = json!("  ");
    let mut missing = good("x");
    missing.as_object_mut().map(|o| o.remove("name"));
    let mut number = good("x");
    number["name"] = json!(7);
    let got = of(NAME, vec![blank, missing, number, good("ok")]);
    assert_eq!(got.len(), 3);
    assert!(got.iter().all(|f| f.0 == "<unnamed>"));
    assert_eq!(got[0].2, "tool has no name");
    assert!(got[2].2.contains("a number"), "{}", got[2].2);
}

#[test]
fn description_trips_on_missing_or_blank() {
    let mut blank = good("a");
    blank["description"] = json!(" \n ");
    let mut missing = good("b");
    missing.as_object_mut().map(|o| o.remove("description"));
    let got = of(DESCRIPTION, vec![blank, missing, good("c")]);
    let tools: Vec<&str> = got.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(tools, vec!["a", "b"]);
    assert!(got[0].2.starts_with("tool has no description"));
}

#[test]
fn description_length_counts_characters_after_trim() {
    let cfg = ChecksConfig {
        max_description_length: 5,
        ..Default::default()
    };
    let mut long = good("a");
    long["description"] = json!("  éééééé  ");
    let mut fits = good("b");
    fits["description"] = json!("  ééééé  ");
    let got = run(&tools(vec![long, fits]), &cfg, &CheckContext::default());
    let got: Vec<_> = got
        .findings
        .iter()
        .filter(|f| f.check == DESCRIPTION_LENGTH)
        .collect();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].tool, "a");
    assert_eq!(got[0].severity, Severity::Warning);
    assert!(!got[0].fails);
    assert_eq!(got[0].message, "description is 6 characters (limit 5)");
}

#[test]
fn tool_list_size_trips_over_budget_and_names_the_largest() {
    let mut big = good("big");
    big["description"] = json!("word ".repeat(400));
    let list = tools(vec![good("a"), big, good("b")]);
    let cfg = ChecksConfig {
        max_tool_list_tokens: 500,
        ..Default::default()
    };
    let got = run(&list, &cfg, &CheckContext::default());
    let size: Vec<_> = got
        .findings
        .iter()
        .filter(|f| f.check == TOOL_LIST_SIZE)
        .collect();
    assert_eq!(size.len(), 1);
    assert_eq!(size[0].tool, "*");
    assert!(
        size[0]
            .message
            .starts_with("tool list is about 627 tokens (limit 500): 3 tools,"),
        "{}",
        size[0].message
    );
    assert!(size[0].message.contains("largest: \"big\" (5"));
    let roomy = ChecksConfig {
        max_tool_list_tokens: 10_000,
        ..Default::default()
    };
    let got = run(&list, &roomy, &CheckContext::default());
    assert!(got.findings.iter().all(|f| f.check != TOOL_LIST_SIZE));
}

#[test]
fn tool_list_size_estimate_is_bytes_over_four() {
    let list = tools(vec![good("a")]);
    let entry = json!({
        "name": "a",
        "description": "Looks up a records by id",
        "input_schema": list[0].input_schema,
    });
    let bytes = serde_json::to_string(&entry).map(|s| s.len()).unwrap_or(0) + 2;
    let just_under = ChecksConfig {
        max_tool_list_tokens: bytes.div_ceil(4) - 1,
        ..Default::default()
    };
    let exact = ChecksConfig {
        max_tool_list_tokens: bytes.div_ceil(4),
        ..Default::default()
    };
    let ctx = CheckContext::default();
    assert_eq!(run(&list, &just_under, &ctx).findings.len(), 1);
    assert_eq!(run(&list, &exact, &ctx).findings.len(), 0);
}

#[test]
fn stdout_noise_counts_lines_and_quotes_the_first_shortened() {
    let long = format!("Server listening {}", "x".repeat(300));
    let noise = vec![long, "second".to_owned()];
    let ctx = CheckContext {
        stdout_noise: &noise,
        ..Default::default()
    };
    let got = run(&tools(vec![good("a")]), &ChecksConfig::default(), &ctx);
    assert_eq!(got.findings.len(), 1);
    let f = &got.findings[0];
    assert_eq!(
        (f.tool.as_str(), f.severity, f.fails),
        ("*", Severity::Error, true)
    );
    assert!(f.message.starts_with(
        "server printed 2 non-protocol lines on stdout, first: \"Server listening xxx"
    ));
    let quoted = f.message.split("first: ").nth(1).unwrap_or("");
    let quoted = &quoted[..quoted.find('…').map_or(0, |i| i + '…'.len_utf8() + 1)];
    assert_eq!(quoted.chars().count(), 122, "{quoted}");

    let quiet = run(
        &tools(vec![good("a")]),
        &ChecksConfig::default(),
        &CheckContext::default(),
    );
    assert!(quiet.findings.is_empty());
}

#[test]
fn findings_about_one_tool_say_which_of_the_same_name() {
    let mut second = good("a");
    second["description"] = json!("");
    let weather = |name: &str, verb: &str| {
        json!({
            "name": name,
            "description": format!("{verb} the current weather for a city"),
            "inputSchema": {"type": "object"}
        })
    };
    let raw = vec![
        good("a"),
        weather("get_weather", "Get"),
        second,
        weather("fetch_weather", "Fetch"),
    ];
    let got = findings(raw);
    let at = |check: &str| {
        got.iter()
            .filter(|f| f.check == check)
            .map(|f| (f.tool.as_str(), f.tool_index))
            .collect::<Vec<_>>()
    };
    // The name is the pair's, not one tool's; the missing description is the second `a`'s.
    assert_eq!(at(DUPLICATE_NAME), [("a", None)]);
    assert_eq!(at(DESCRIPTION), [("a", Some(2))]);
    let pairs = at(SIMILAR_TOOLS);
    assert!(!pairs.is_empty(), "{got:?}");
    assert!(pairs.iter().all(|(_, index)| index.is_none()), "{pairs:?}");
}

#[test]
fn disabling_an_id_removes_its_findings_only() {
    let raw = vec![
        json!({"name": "a", "inputSchema": {"type": "object"}}),
        json!({"name": "a", "inputSchema": {"type": "object"}}),
    ];
    let all = run(
        &tools(raw.clone()),
        &ChecksConfig::default(),
        &CheckContext::default(),
    );
    assert!(all.findings.iter().any(|f| f.check == DESCRIPTION));
    assert!(all.findings.iter().any(|f| f.check == DUPLICATE_NAME));
    for id in crate::config::vocab::CHECK_IDS {
        let cfg = ChecksConfig {
            disable: vec![(*id).to_owned()],
            ..Default::default()
        };
        let got = run(&tools(raw.clone()), &cfg, &CheckContext::default());
        assert!(got.findings.iter().all(|f| f.check != *id), "{id}");
        assert_eq!(got.disabled, vec![(*id).to_owned()]);
        let kept = all.findings.iter().filter(|f| f.check != *id).count();
        assert_eq!(got.findings.len(), kept, "{id}");
    }
}

#[test]
fn strict_makes_warnings_fail() {
    let raw = vec![json!({
        "name": "a",
        "description": "x".repeat(2000),
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": true}
    })];
    let lax = run(
        &tools(raw.clone()),
        &ChecksConfig::default(),
        &CheckContext::default(),
    );
    assert_eq!(lax.findings.len(), 1);
    assert_eq!(lax.findings[0].severity, Severity::Warning);
    assert!(!lax.findings[0].fails);
    assert!(!lax.strict);
    let cfg = ChecksConfig {
        strict: true,
        ..Default::default()
    };
    let strict = run(&tools(raw), &cfg, &CheckContext::default());
    assert!(strict.strict);
    assert!(strict.findings[0].fails);
}

#[test]
fn errors_always_fail() {
    let got = findings(vec![
        json!({"name": "a", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}),
    ]);
    assert_eq!(got.len(), 1);
    assert!(got[0].fails);
}

#[test]
fn quote_escapes_and_shortens() {
    assert_eq!(quote("a\nb\"c", 10), "\"a\\nb\\\"c\"");
    assert_eq!(quote("abcdef", 4), "\"abc…\"");
    assert_eq!(quote("abcd", 4), "\"abcd\"");
    assert_eq!(thousands(1234567), "1,234,567");
    assert_eq!(thousands(999), "999");
}

#[test]
fn hints_travel_apart_from_messages() {
    let mut no_schema = good("a");
    no_schema.as_object_mut().map(|o| o.remove("inputSchema"));
    let raw = vec![
        no_schema,
        json!({"name": "b", "inputSchema": {"type": "object"}}),
        json!({"name": "b", "description": "B things", "inputSchema": {"type": "object"}}),
    ];
    let got = findings(raw);
    let hint_of = |check: &str| {
        got.iter()
            .find(|f| f.check == check)
            .and_then(|f| f.hint.clone())
    };
    assert_eq!(
        hint_of(DUPLICATE_NAME).as_deref(),
        Some("give every tool its own name")
    );
    assert_eq!(
        hint_of(DESCRIPTION).as_deref(),
        Some("say what the tool does and when to use it")
    );
    assert_eq!(
        hint_of(INPUT_SCHEMA).as_deref(),
        Some("a tool without arguments declares {\"type\": \"object\"}")
    );
    for f in &got {
        assert!(!f.message.contains("hint:"), "{}", f.message);
    }
    let described = got.iter().find(|f| f.check == DESCRIPTION);
    assert_eq!(
        described.map(|f| f.text().into_owned()).unwrap_or_default(),
        "tool has no description; a model picks tools by their description\n\
         hint: say what the tool does and when to use it"
    );
}

#[test]
fn protocol_warnings_become_warnings_that_fail_only_under_strict() {
    let warnings = vec!["2 responses without `\"jsonrpc\": \"2.0\"`".to_owned()];
    let ctx = CheckContext {
        protocol_warnings: &warnings,
        ..Default::default()
    };
    let got = run(&tools(vec![good("a")]), &ChecksConfig::default(), &ctx);
    assert_eq!(got.findings.len(), 1);
    let f = &got.findings[0];
    assert_eq!(
        (f.tool.as_str(), f.check.as_str(), f.severity, f.fails),
        ("*", "protocol", Severity::Warning, false)
    );
    assert_eq!(
        f.message,
        "the server sent 2 responses without `\"jsonrpc\": \"2.0\"`"
    );
    let strict = ChecksConfig {
        strict: true,
        ..Default::default()
    };
    assert!(run(&tools(vec![good("a")]), &strict, &ctx).findings[0].fails);
    let off = ChecksConfig {
        disable: vec!["protocol".into()],
        ..Default::default()
    };
    assert!(run(&tools(vec![good("a")]), &off, &ctx).findings.is_empty());
}
