//! json (stub)
#![allow(missing_docs)]
pub fn render(report: &super::model::RunReport) -> String { serde_json::to_string_pretty(report).unwrap_or_default() + "\n" }
