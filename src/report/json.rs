//! The JSON report: the serde form of [`RunReport`] (schema documented in
//! `docs/json-report.md`), pretty-printed, UTF-8, with a trailing newline.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::outcome::RunReport;

/// The JSON report of `report`, secrets redacted: toolproof's members, then mcp-toolproof
/// 0.3.1's (`duration_s`, `checks`, `tests`, `bench`, `fuzz`, `evals`, `summary`; see
/// [`super::json_reference`]).
pub(crate) fn render(report: &RunReport) -> String {
    let report = report.redacted();
    let whole = WithReference {
        report: &report,
        reference: super::json_reference::members(&report),
    };
    // Serializing plain data cannot fail (no maps with non-string keys, no failing Serialize
    // impls); fall back to an explicit error object rather than panic.
    let mut text = serde_json::to_string_pretty(&whole).unwrap_or_else(|e| {
        serde_json::json!({ "schema_version": report.schema_version, "error": e.to_string() })
            .to_string()
    });
    text.push('\n');
    text
}

/// The report's members followed by the reference's, written in one pass (no `Value` tree of
/// the whole report in between: a run of a thousand eval cases is megabytes of it).
#[derive(Serialize)]
struct WithReference<'a> {
    #[serde(flatten)]
    report: &'a RunReport,
    #[serde(flatten)]
    reference: Map<String, Value>,
}

/// The server's tools as `inspect --save-tools` writes them: its `tools/list` result with its
/// name and version (`evals.neighbours[].tools_file` reads it back).
pub(crate) fn tool_snapshot(report: &RunReport) -> String {
    let report = report.redacted();
    let tools: Vec<Value> = report
        .inventory
        .as_ref()
        .map(|i| i.tools.iter().map(|t| t.definition.clone()).collect())
        .unwrap_or_default();
    let server = report.server.as_ref();
    let snapshot = serde_json::json!({
        "server": {
            "name": server.and_then(|s| s.name.clone()),
            "version": server.and_then(|s| s.version.clone()),
        },
        "tools": tools,
    });
    let mut text = serde_json::to_string_pretty(&snapshot).unwrap_or_else(|e| e.to_string());
    text.push('\n');
    text
}

/// The `inspect --json` output: the JSON report plus the four top-level keys mcp-toolproof's
/// `inspect --json` prints, so scripts written for it keep working: `tools` (every tool
/// definition exactly as the server sent it), `resources` and `prompts` (as sent, `[]` when
/// not offered) and `checks` (`{tool, check, severity, message}` per finding).
pub(crate) fn render_inspect(report: &RunReport) -> String {
    let report = report.redacted();
    let mut value = serde_json::to_value(&*report).unwrap_or(Value::Null);
    if let Value::Object(top) = &mut value {
        let inv = report.inventory.as_ref();
        let tools: Vec<Value> = inv
            .map(|i| i.tools.iter().map(|t| t.definition.clone()).collect())
            .unwrap_or_default();
        let listed = |items: Option<&Vec<Value>>| Value::Array(items.cloned().unwrap_or_default());
        // The findings in mcp-toolproof's shape, as `run --json` gives them too.
        let checks = super::json_reference::checks(&report);
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
