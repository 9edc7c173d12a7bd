//! `toolproof inspect`: the human view of what a server offers (identity, protocol,
//! capabilities, tools, resources, prompts) followed by the static-check findings. Every piece
//! of server text is shown on one line of its own, cleaned of control characters, except the
//! server's stderr after a failed start, which keeps its lines as written.

use std::fmt::Write;

use serde_json::Value;

use super::console::push_gutter;
use super::escape::one_line;
use crate::config::vocab::STDOUT_NOISE;
use crate::outcome::cost::count;
use crate::outcome::{
    Finding, Inventory, PhaseStatus, RunReport, ServerError, ServerSummary, Severity, ToolSummary,
};

/// Longest piece of server text on one line, in characters.
const CHARS: usize = 300;
/// Longest hint shown: a hint may name every argument of a tool, and one cut short is no help.
const HINT_CHARS: usize = 600;

/// Renders the inspect view of a report.
pub(crate) fn render(report: &RunReport) -> String {
    let mut out = String::new();
    if let Some(err) = &report.error {
        connection_error(&mut out, err);
        return out;
    }
    if let Some(s) = &report.server {
        identity(&mut out, s);
    }
    if let Some(inv) = &report.inventory {
        inventory(&mut out, inv);
    }
    findings(&mut out, report);
    let noise_found = report
        .phases
        .checks
        .results
        .findings
        .iter()
        .any(|f| f.check == STDOUT_NOISE);
    // The `stdout-noise` finding already says it; without one (the check disabled), say it here.
    if let Some(first) = report.stdout_noise.first().filter(|_| !noise_found) {
        let _ = writeln!(
            out,
            "\nthe server printed {} non-protocol line(s) on stdout; first: {}",
            report.noise_count(),
            one_line(first, CHARS)
        );
    }
    let _ = writeln!(out, "\n{}", if report.passed { "PASSED" } else { "FAILED" });
    out
}

/// The error, then the server's stderr as it wrote it (indentation kept) behind a gutter, its
/// first and last lines when long. The writer sends this view to stderr.
fn connection_error(out: &mut String, err: &ServerError) {
    let _ = writeln!(out, "error: {}", one_line(&err.message, CHARS));
    if let Some(stderr) = err.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
        let _ = writeln!(out, "server stderr:");
        push_gutter(out, stderr);
    }
}

fn identity(out: &mut String, s: &ServerSummary) {
    let name = s.name.as_deref().unwrap_or("(unnamed server)");
    let version = s.version.as_deref().unwrap_or("");
    let _ = writeln!(
        out,
        "{} {}",
        one_line(name, CHARS),
        one_line(version, CHARS)
    );
    let _ = writeln!(
        out,
        "protocol {} ({}, {})",
        one_line(&s.protocol_version, CHARS),
        s.era,
        s.transport
    );
    let caps: Vec<String> = s
        .capabilities
        .as_object()
        .map(|m| m.keys().map(|k| one_line(k, CHARS)).collect())
        .unwrap_or_default();
    let caps = if caps.is_empty() {
        "(none)".to_owned()
    } else {
        caps.join(", ")
    };
    let _ = writeln!(out, "capabilities: {caps}");
}

fn inventory(out: &mut String, inv: &Inventory) {
    let _ = writeln!(
        out,
        "\ntools ({}; an argument marked ? is optional):",
        inv.tools.len()
    );
    for t in &inv.tools {
        tool_line(out, t);
    }
    if let Some(total) = inv.tool_list_tokens {
        let _ = writeln!(
            out,
            "tool list as a model is sent it: about {} tokens",
            count(total)
        );
    }
    for error in &inv.errors {
        let _ = writeln!(out, "\nwarning: {}", one_line(error, CHARS));
    }
    for (label, items, key) in [
        ("resources", &inv.resources, "uri"),
        ("prompts", &inv.prompts, "name"),
    ] {
        match items {
            None => {
                let _ = writeln!(out, "\n{label}: not offered");
            }
            Some(list) => {
                let _ = writeln!(out, "\n{label} ({}):", list.len());
                for item in list {
                    let id = item.get(key).and_then(Value::as_str).unwrap_or("?");
                    let _ = writeln!(out, "  {}", one_line(id, CHARS));
                }
            }
        }
    }
}

/// `name (title) [readOnly, output schema]`, then the first line of its description.
fn tool_line(out: &mut String, t: &ToolSummary) {
    let mut flags = Vec::new();
    if let Some(Value::Object(a)) = &t.annotations {
        for (k, v) in a {
            if v == &Value::Bool(true) {
                flags.push(one_line(k.trim_end_matches("Hint"), CHARS));
            }
        }
    }
    if t.has_output_schema {
        flags.push("output schema".into());
    }
    let title = t
        .title
        .as_deref()
        .map(|x| format!(" ({})", one_line(x, CHARS)))
        .unwrap_or_default();
    let flags = if flags.is_empty() {
        String::new()
    } else {
        format!(" [{}]", flags.join(", "))
    };
    let tokens = t
        .tokens
        .map(|n| format!(" ~{} tokens", count(n)))
        .unwrap_or_default();
    let _ = writeln!(out, "  {}{title}{flags}{tokens}", one_line(&t.name, CHARS));
    if !t.summary.is_empty() {
        let _ = writeln!(out, "      {}", one_line(&t.summary, CHARS));
    }
    if let Some(args) = arguments(t.definition.get("inputSchema")) {
        let _ = writeln!(out, "      arguments: {args}");
    }
}

/// `city: string, days?: integer` from an input schema (`?` marks an argument that is not
/// required), `(none)` for a schema without properties, `None` without a schema.
fn arguments(schema: Option<&Value>) -> Option<String> {
    let schema = schema?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(Value::Object(props)) = schema.get("properties") else {
        return Some("(none)".into());
    };
    if props.is_empty() {
        return Some("(none)".into());
    }
    let parts: Vec<String> = props
        .iter()
        .map(|(name, prop)| {
            let mark = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!(
                "{}{mark}: {}",
                one_line(name, CHARS),
                one_line(&type_of(prop), CHARS)
            )
        })
        .collect();
    Some(parts.join(", "))
}

/// The JSON type(s) a property schema allows, as a reader would say it.
fn type_of(prop: &Value) -> String {
    match prop.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .map(|t| t.as_str().map_or_else(|| t.to_string(), str::to_owned))
            .collect::<Vec<_>>()
            .join(" | "),
        _ => {
            if prop.get("enum").is_some() {
                return "enum".into();
            }
            if prop.get("const").is_some() {
                return "const".into();
            }
            let branches = ["anyOf", "oneOf"]
                .iter()
                .find_map(|k| prop.get(*k).and_then(Value::as_array));
            match branches {
                Some(bs) => bs.iter().map(type_of).collect::<Vec<_>>().join(" | "),
                None => "any".into(),
            }
        }
    }
}

/// Infos of one check listed before the rest are counted in one line.
const INFOS_SHOWN: usize = 3;

fn findings(out: &mut String, report: &RunReport) {
    let checks = &report.phases.checks;
    let _ = writeln!(out);
    match checks.status {
        PhaseStatus::Skipped | PhaseStatus::Error => {
            let _ = writeln!(
                out,
                "static checks: {}",
                checks.reason.as_deref().unwrap_or("not run")
            );
        }
        _ if checks.results.findings.is_empty() => {
            let _ = writeln!(out, "static checks: no problems found");
        }
        _ => {
            let _ = writeln!(out, "static checks:");
            let findings = &checks.results.findings;
            for (i, f) in findings.iter().enumerate() {
                let mark = match (f.fails, f.severity) {
                    (true, _) => "FAIL",
                    (false, Severity::Info) => "INFO",
                    (false, _) => "WARN",
                };
                // An info found on many tools shows its first ones, then a count.
                if f.severity == Severity::Info {
                    let alike = |g: &&Finding| g.check == f.check && g.severity == Severity::Info;
                    let before = findings[..i].iter().filter(alike).count();
                    let all = findings.iter().filter(alike).count();
                    if before == INFOS_SHOWN {
                        let _ = writeln!(
                            out,
                            "  {mark} … and {} more [{}] like the above (--json lists each)",
                            all - INFOS_SHOWN,
                            f.check
                        );
                    }
                    if before >= INFOS_SHOWN {
                        continue;
                    }
                }
                let _ = writeln!(
                    out,
                    "  {mark} {} [{}] {}",
                    one_line(&f.tool, CHARS),
                    f.check,
                    one_line(&f.message, CHARS)
                );
                if let Some(hint) = &f.hint {
                    let _ = writeln!(out, "       hint: {}", one_line(hint, HINT_CHARS));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_show_types_and_mark_the_optional_ones() {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": ["integer", "null"]},
                "unit": {"enum": ["c", "f"]},
                "when": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                "raw": {}
            },
            "required": ["city", "unit"]
        });
        assert_eq!(
            arguments(Some(&schema)).as_deref(),
            Some(
                "city: string, days?: integer | null, unit: enum, when?: string | number, raw?: any"
            )
        );
        assert_eq!(
            arguments(Some(&json!({"type": "object"}))).as_deref(),
            Some("(none)")
        );
        assert_eq!(arguments(None), None);
    }

    #[test]
    fn argument_names_from_the_server_are_escaped() {
        let schema = json!({
            "type": "object",
            "properties": {"a\u{1b}[31mred\nb": {"type": "str\u{7}ing"}}
        });
        let text = arguments(Some(&schema)).unwrap_or_default();
        assert!(!text.chars().any(char::is_control), "{text:?}");
        assert!(text.contains("red b"), "{text:?}");
    }
}
