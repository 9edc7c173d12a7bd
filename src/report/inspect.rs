//! `toolproof inspect`: the human view of what a server offers (identity, protocol,
//! capabilities, tools, resources, prompts) followed by the static-check findings.

use std::fmt::Write;

use serde_json::Value;

use crate::report::model::{PhaseStatus, RunReport};

/// Renders the inspect view of a report. Untrusted text is flattened to one line each.
pub fn render(report: &RunReport) -> String {
    let mut out = String::new();
    let clean = |s: &str| crate::mcp::error::shorten(s, 300);
    if let Some(err) = &report.error {
        let _ = writeln!(out, "error: {}", clean(&err.message));
        if let Some(stderr) = &err.stderr {
            let _ = writeln!(out, "server stderr:");
            for line in stderr
                .lines()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                let _ = writeln!(out, "  {}", clean(line));
            }
        }
        return out;
    }
    if let Some(s) = &report.server {
        let name = s.name.as_deref().unwrap_or("(unnamed server)");
        let version = s.version.as_deref().unwrap_or("");
        let _ = writeln!(out, "{} {}", clean(name), clean(version));
        let _ = writeln!(
            out,
            "protocol {} ({}, {})",
            s.protocol_version, s.era, s.transport
        );
        let caps: Vec<&str> = s
            .capabilities
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "capabilities: {}",
            if caps.is_empty() {
                "(none)".to_owned()
            } else {
                caps.join(", ")
            }
        );
    }
    if let Some(inv) = &report.inventory {
        let _ = writeln!(out, "\ntools ({}):", inv.tools.len());
        for t in &inv.tools {
            let mut flags = Vec::new();
            if let Some(Value::Object(a)) = &t.annotations {
                for (k, v) in a {
                    if v == &Value::Bool(true) {
                        flags.push(k.trim_end_matches("Hint").to_owned());
                    }
                }
            }
            if t.has_output_schema {
                flags.push("output schema".into());
            }
            let title = t
                .title
                .as_deref()
                .map(|x| format!(" ({})", clean(x)))
                .unwrap_or_default();
            let flags = if flags.is_empty() {
                String::new()
            } else {
                format!(" [{}]", flags.join(", "))
            };
            let _ = writeln!(out, "  {}{title}{flags}", clean(&t.name));
            if !t.summary.is_empty() {
                let _ = writeln!(out, "      {}", clean(&t.summary));
            }
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
                        let _ = writeln!(out, "  {}", clean(id));
                    }
                }
            }
        }
    }
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
            for f in &checks.results.findings {
                let mark = if f.fails { "FAIL" } else { "WARN" };
                let text = f.text();
                let mut lines = text.lines();
                let first = lines.next().unwrap_or("");
                let _ = writeln!(
                    out,
                    "  {mark} {} [{}] {}",
                    clean(&f.tool),
                    f.check,
                    clean(first)
                );
                for more in lines {
                    let _ = writeln!(out, "       {}", clean(more));
                }
            }
        }
    }
    if !report.stdout_noise.is_empty() {
        let _ = writeln!(
            out,
            "\nthe server printed {} non-protocol line(s) on stdout; first: {}",
            report.stdout_noise.len(),
            clean(&report.stdout_noise[0])
        );
    }
    let _ = writeln!(out, "\n{}", if report.passed { "PASSED" } else { "FAILED" });
    out
}
