//! The JSON report: the serde form of [`RunReport`] (schema documented in
//! `docs/json-report.md`), pretty-printed, UTF-8, with a trailing newline.

use serde_json::Value;

use super::model::RunReport;

/// The JSON report of `report`, secrets redacted.
pub fn render(report: &RunReport) -> String {
    let report = report.redacted();
    // Serializing plain data into a String cannot fail (no maps with non-string keys, no
    // failing Serialize impls); fall back to an explicit error object rather than panic.
    let mut text = serde_json::to_string_pretty(&*report).unwrap_or_else(|e| {
        serde_json::json!({ "schema_version": report.schema_version, "error": e.to_string() })
            .to_string()
    });
    text.push('\n');
    text
}

/// The `inspect --json` output: the JSON report plus the four top-level keys mcp-toolproof's
/// `inspect --json` prints, so scripts written for it keep working: `tools` (every tool
/// definition exactly as the server sent it), `resources` and `prompts` (as sent, `[]` when
/// not offered) and `checks` (`{tool, check, severity, message}` per finding).
pub fn render_inspect(report: &RunReport) -> String {
    let report = report.redacted();
    let mut value = serde_json::to_value(&*report).unwrap_or(Value::Null);
    if let Value::Object(top) = &mut value {
        let inv = report.inventory.as_ref();
        let tools: Vec<Value> = inv
            .map(|i| i.tools.iter().map(|t| t.definition.clone()).collect())
            .unwrap_or_default();
        let listed = |items: Option<&Vec<Value>>| Value::Array(items.cloned().unwrap_or_default());
        let checks: Vec<Value> = report
            .phases
            .checks
            .results
            .findings
            .iter()
            .map(|f| {
                serde_json::json!({
                    "tool": f.tool,
                    "check": f.check,
                    "severity": f.severity,
                    "message": f.message,
                })
            })
            .collect();
        top.insert("tools".into(), Value::Array(tools));
        top.insert(
            "resources".into(),
            listed(inv.and_then(|i| i.resources.as_ref())),
        );
        top.insert(
            "prompts".into(),
            listed(inv.and_then(|i| i.prompts.as_ref())),
        );
        top.insert("checks".into(), Value::Array(checks));
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_else(|e| e.to_string());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

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
        report.phases.evals = fixtures::evals_failing().phases.evals;
        report.phases.lint = fixtures::lint_findings().phases.lint;
        report.phases.stress = fixtures::stress().phases.stress;
        report.history = fixtures::pull_request().history;
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
                    let data = ["capabilities", "annotations", "args", "expect_args"];
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
}
