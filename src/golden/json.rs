//! The JSON report of the fixtures: snapshots, valid UTF-8, the documented example and fields,
//! hostile text and secrets.
use super::fixtures;
use crate::report::json::*;
use serde_json::Value;

#[test]
fn snapshots() {
    fixtures::snapshot_settings().bind(|| {
        for (name, report) in fixtures::all() {
            insta::assert_snapshot!(format!("json_{name}"), render(&report));
        }
    });
}

#[test]
fn valid_utf8_json_with_a_trailing_newline() {
    let mut report = fixtures::all_passed();
    report.target = "сервер ✓".into();
    let text = render(&report);
    assert!(text.ends_with("}\n"));
    assert!(text.contains("сервер ✓"), "non-ASCII must not be escaped");
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    assert_eq!(value["schema_version"], 1);
    assert_eq!(value["phases"]["evals"]["status"], "passed");
    assert_eq!(value["phases"]["evals"]["results"]["provider"], "anthropic");
    assert_eq!(value["phases"]["bench"]["status"], "skipped");
    assert!(value.get("secrets").is_none());
}

#[test]
fn documented_example_is_current() {
    let doc = include_str!("../../docs/json-report.md");
    let example = doc
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_default();
    assert_eq!(example, render(&fixtures::unreachable()));
}

#[test]
fn every_field_is_documented() {
    let doc = include_str!("../../docs/json-report.md");
    let mut report = fixtures::failing();
    report.inventory = fixtures::all_passed().inventory;
    // The failing evals, with a regressed comparison and a fingerprint.
    report.phases.evals = fixtures::pull_request().phases.evals;
    report.phases.lint = fixtures::lint_findings().phases.lint;
    report.phases.stress = fixtures::stress().phases.stress;
    report.history = fixtures::pull_request().history;
    report.phases.surface = super::surface::with_surface().phases.surface;
    let value: Value = serde_json::from_str(&render(&report)).unwrap_or(Value::Null);
    let mut keys = Vec::new();
    collect_keys(&value, &mut keys);
    assert!(keys.len() > 40, "{keys:?}");
    for key in keys {
        assert!(
            doc.contains(&format!("`{key}`")),
            "`{key}` is not documented"
        );
    }
}

/// Every object key of the report, except inside server-provided values.
fn collect_keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                // Server-, model- and YAML-provided objects: their keys are data.
                let data = [
                    "capabilities",
                    "annotations",
                    "args",
                    "expect_args",
                    "picked_args",
                    "input",
                    "lock_lines",
                ];
                if !data.contains(&k.as_str()) {
                    collect_keys(v, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_keys(v, out)),
        _ => {}
    }
}

#[test]
fn hostile_text_round_trips_and_secrets_are_gone() {
    let text = render(&fixtures::hostile());
    assert!(!text.contains("sk-live-123456"));
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    assert_eq!(
        value["phases"]["tests"]["results"][0]["failures"][0],
        "::error file=x::owned"
    );
    assert_eq!(value["target"], "https://mcp.example/?token=***");
}

#[test]
fn every_fixture_reads_back_as_the_same_report() {
    // `merge` reads JSON reports back: what it reads must render exactly as written.
    for (name, mut report) in fixtures::all() {
        report.absent = vec!["bench", "fuzz"];
        let text = render(&report);
        let back: crate::outcome::RunReport = match serde_json::from_str(&text) {
            Ok(r) => r,
            Err(e) => panic!("{name}: {e}"),
        };
        assert_eq!(back.absent, vec!["bench", "fuzz"], "{name}");
        assert_eq!(render(&back), text, "{name}");
    }
}
