//! The `client-*` checks through [`crate::checks::run`]: which clients run, how findings read,
//! the cap per tool, and where the list-wide finding goes.

use serde_json::{Value, json};

use crate::checks::tests::{good, tools};
use crate::checks::{
    CLIENT_ANTHROPIC, CLIENT_ANTHROPIC_STRICT, CLIENT_GEMINI, CLIENT_OPENAI_STRICT, CheckContext,
    run,
};
use crate::config::ChecksConfig;
use crate::outcome::{Finding, Severity};

fn cfg(clients: &[&str]) -> ChecksConfig {
    ChecksConfig {
        clients: clients.iter().map(|c| (*c).to_owned()).collect(),
        ..Default::default()
    }
}

fn client_findings(raw: Vec<Value>, cfg: &ChecksConfig) -> Vec<Finding> {
    run(&tools(raw), cfg, &CheckContext::default())
        .findings
        .into_iter()
        .filter(|f| f.check.starts_with("client-"))
        .collect()
}

/// A tool every client refuses: a root `anyOf`, an open nested object, a type list.
fn troubled() -> Value {
    json!({
        "name": "search",
        "description": "Searches the catalogue",
        "inputSchema": {
            "type": "object",
            "properties": {
                "q": {"type": ["string", "null"]},
                "filter": {"type": "object", "properties": {"tag": {"type": "string"}}}
            },
            "required": ["q"],
            "anyOf": [{"required": ["q"]}, {"required": ["filter"]}]
        }
    })
}

fn checks_of(findings: &[Finding]) -> Vec<&str> {
    let mut checks: Vec<&str> = findings.iter().map(|f| f.check.as_str()).collect();
    checks.dedup();
    checks
}

#[test]
fn only_anthropic_runs_by_default() {
    let got = client_findings(vec![troubled()], &ChecksConfig::default());
    assert_eq!(checks_of(&got), vec![CLIENT_ANTHROPIC]);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].severity, Severity::Warning);
    assert!(!got[0].fails, "a warning fails only under strict");
    assert_eq!(got[0].tool_index, Some(0));
}

#[test]
fn selected_clients_run_in_order_and_the_rest_do_not() {
    let all = cfg(&["anthropic-strict", "gemini", "openai-strict", "anthropic"]);
    let got = client_findings(vec![troubled()], &all);
    assert_eq!(
        checks_of(&got),
        vec![
            CLIENT_OPENAI_STRICT,
            CLIENT_GEMINI,
            CLIENT_ANTHROPIC,
            CLIENT_ANTHROPIC_STRICT
        ]
    );
    let gemini = client_findings(vec![troubled()], &cfg(&["gemini"]));
    assert_eq!(checks_of(&gemini), vec![CLIENT_GEMINI]);
    assert!(client_findings(vec![troubled()], &cfg(&[])).is_empty());
    assert!(
        client_findings(vec![good("clean")], &all).len() == 2,
        "good() is not closed"
    );
}

#[test]
fn disable_beats_clients() {
    let mut both = cfg(&["gemini", "anthropic"]);
    both.disable = vec![CLIENT_GEMINI.to_owned()];
    let got = client_findings(vec![troubled()], &both);
    assert_eq!(checks_of(&got), vec![CLIENT_ANTHROPIC]);
}

#[test]
fn a_finding_names_client_rule_place_and_the_fix_there() {
    let got = client_findings(vec![troubled()], &cfg(&["openai-strict"]));
    let open = got
        .iter()
        .find(|f| f.message.contains("/properties/filter:"))
        .expect("the open nested object");
    assert_eq!(
        open.message,
        "OpenAI strict mode rule `additional-properties` at /properties/filter: the object does \
         not set `additionalProperties: false`; sent with `strict: true`, the whole request \
         fails (HTTP 400)"
    );
    assert_eq!(
        open.hint.as_deref(),
        Some("add `\"additionalProperties\": false` at /properties/filter")
    );
    assert!(
        got[0]
            .message
            .starts_with("OpenAI strict mode rule `root-object` at the root:")
    );
}

#[test]
fn at_most_six_places_per_tool_then_a_count() {
    let mut properties = serde_json::Map::new();
    for i in 0..10 {
        properties.insert(format!("p{i}"), json!({"type": "object", "properties": {}}));
    }
    let raw = json!({
        "name": "wide",
        "description": "Takes ten open objects",
        "inputSchema": {"type": "object", "properties": properties, "required": [], "additionalProperties": false}
    });
    let mut c = cfg(&["anthropic-strict"]);
    c.strict = true;
    let got = client_findings(vec![raw], &c);
    assert_eq!(got.len(), 7, "{got:#?}");
    assert!(
        got.iter().all(|f| f.fails),
        "strict makes the warnings fail"
    );
    assert!(
        got[6]
            .message
            .starts_with("4 more places in this input schema break Claude strict"),
        "{}",
        got[6].message
    );
}

#[test]
fn the_cap_shows_every_rule_before_repeating_one() {
    // Twelve open objects, one inside the other: `additional-properties` and `all-required`
    // at every level, `nesting-depth` only at the eleventh.
    let mut schema = json!({"type": "string"});
    for _ in 0..12 {
        schema = json!({"type": "object", "properties": {"n": schema}});
    }
    let raw = json!({"name": "deep", "description": "Takes a deep object", "inputSchema": schema});
    let got = client_findings(vec![raw], &cfg(&["openai-strict"]));
    let rules: Vec<&str> = got
        .iter()
        .take(6)
        .map(|f| f.message.split('`').nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        rules,
        [
            "additional-properties",
            "all-required",
            "nesting-depth",
            "additional-properties",
            "all-required",
            "additional-properties"
        ]
    );
    assert!(
        got[6].message.starts_with("19 more places"),
        "{}",
        got[6].message
    );
}

#[test]
fn schemas_the_input_schema_check_rejects_are_left_to_it() {
    let mut array = troubled();
    array["inputSchema"]["type"] = json!("array");
    let mut missing = troubled();
    missing.as_object_mut().unwrap().remove("inputSchema");
    let all = cfg(&["openai-strict", "gemini", "anthropic", "anthropic-strict"]);
    assert!(client_findings(vec![array, missing], &all).is_empty());
}

#[test]
fn request_limits_come_after_the_tools_and_before_similar_tools() {
    let many: Vec<Value> = (0..21)
        .map(|i| {
            json!({
                "name": format!("tool_{i}"),
                "description": format!("Does job number {i}"),
                "inputSchema": {"type": "object", "additionalProperties": false}
            })
        })
        .collect();
    let got = client_findings(many, &cfg(&["anthropic-strict"]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].tool, "*");
    assert_eq!(got[0].tool_index, None);
    assert!(
        got[0].message.contains("21 strict tools (limit 20)"),
        "{}",
        got[0].message
    );
}
