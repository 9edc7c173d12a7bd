//! SARIF 2.1.0 for code scanning: every finding toolproof makes, as one run's results. Static
//! and `security-*` checks, protocol checks, the set lint, and breaking changes against
//! `toolproof.lock`. Each rule has its id, descriptions and a help link to the guide; levels
//! follow the severities (error, warning, info → note); each result has a physical location
//! (the config file and line where the finding has one, `toolproof.lock` where the lock holds
//! the definition, else the config file) and always a logical one (server, tool), and a
//! `partialFingerprints` value that stays the same across runs while the finding does.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::places::Places;
use crate::config::vocab::{CHECKS, LINT_RULES, PROTOCOL_CHECKS, surface::RULES};
use crate::outcome::{ChangeKind, RunReport, Severity};

/// Where the guide's pages are.
const GUIDE: &str = "https://github.com/toolproof-dev/toolproof/blob/main/docs/";

/// The key of toolproof's fingerprint in `partialFingerprints`.
const FINGERPRINT: &str = "toolproofFinding/v1";

/// One rule as SARIF lists it.
struct Rule {
    id: String,
    summary: &'static str,
    page: &'static str,
}

fn rules() -> Vec<Rule> {
    let mut out = Vec::new();
    for c in CHECKS {
        out.push(Rule {
            id: c.id.into(),
            summary: c.summary,
            page: "static-checks.md",
        });
    }
    for c in PROTOCOL_CHECKS {
        out.push(Rule {
            id: format!("protocol-{}", c.id),
            summary: c.summary,
            page: "protocol-checks.md",
        });
    }
    for c in LINT_RULES {
        out.push(Rule {
            id: format!("lint-{}", c.id),
            summary: c.summary,
            page: "set-lint.md",
        });
    }
    for r in RULES.iter().filter(|r| r.kind == "breaking") {
        out.push(Rule {
            id: format!("surface-{}", r.id),
            summary: r.when,
            page: "surface.md",
        });
    }
    out
}

/// `error: two tools…` → (`error`, `two tools…`); a summary without a severity is a warning.
fn split_summary(summary: &str) -> (&'static str, &str) {
    for (word, level) in [
        ("error:", "error"),
        ("warning:", "warning"),
        ("info:", "note"),
    ] {
        if let Some(rest) = summary.strip_prefix(word) {
            return (level, rest.trim());
        }
    }
    ("warning", summary)
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A summary up to its first `(`, `;` or `:` outside a code span: its gist.
fn short_of(text: &str) -> &str {
    let mut code = false;
    for (i, c) in text.char_indices() {
        match c {
            '`' => code = !code,
            '(' | ';' | ':' if !code => return text[..i].trim(),
            _ => {}
        }
    }
    text.trim()
}

fn rule_json(rule: &Rule) -> Value {
    let (level, text) = split_summary(rule.summary);
    let short = short_of(text);
    json!({
        "id": rule.id,
        "shortDescription": {"text": short},
        "fullDescription": {"text": text},
        "helpUri": format!("{GUIDE}{}", rule.page),
        "help": {"text": format!("See {GUIDE}{}", rule.page)},
        "defaultConfiguration": {"level": level},
    })
}

/// A finding before it is written: rule, level, text, where, and what identifies it.
struct Found {
    rule: String,
    level: &'static str,
    message: String,
    file: Option<(String, Option<u32>)>,
    logical: String,
    identity: String,
}

/// The SARIF log of `report`; file paths as the repository knows them (`places`).
pub(crate) fn render_with(report: &RunReport, places: &Places) -> String {
    let report = report.redacted();
    let r = &*report;
    let places = places.redacted(&r.secrets);
    let found = collect(r, &places);
    let rules = rules();
    let mut results = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for f in found {
        let index = rules.iter().position(|x| x.id == f.rule);
        let mut identity = format!("{}\0{}\0{}", f.rule, f.logical, f.identity);
        let repeats = seen.iter().filter(|s| **s == identity).count();
        seen.push(identity.clone());
        if repeats > 0 {
            identity.push_str(&format!("\0{repeats}"));
        }
        let mut result = json!({
            "ruleId": f.rule,
            "level": f.level,
            "message": {"text": f.message},
            "partialFingerprints": {
                FINGERPRINT: crate::outcome::hex(&Sha256::digest(identity.as_bytes())),
            },
        });
        if let Some(i) = index {
            result["ruleIndex"] = json!(i);
        }
        let mut location = json!({
            "logicalLocations": [{
                "name": f.logical.rsplit('/').next().unwrap_or(&f.logical),
                "fullyQualifiedName": f.logical,
                "kind": "function",
            }],
        });
        if let Some((uri, line)) = f.file {
            let mut physical = json!({"artifactLocation": {"uri": uri}});
            if let Some(line) = line.filter(|l| *l > 0) {
                physical["region"] = json!({"startLine": line});
            }
            location["physicalLocation"] = physical;
        }
        result["locations"] = json!([location]);
        results.push(result);
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolproof",
                "version": r.generator.version,
                "informationUri": "https://github.com/toolproof-dev/toolproof",
                "rules": rules.iter().map(rule_json).collect::<Vec<_>>(),
            }},
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

/// Where findings of one report point: the server's name, the config and the lock.
struct Where<'a> {
    server: String,
    config: Option<String>,
    lock: Option<(String, &'a std::collections::BTreeMap<String, u32>)>,
}

impl Where<'_> {
    fn config(&self, line: Option<u32>) -> Option<(String, Option<u32>)> {
        self.config.clone().map(|c| (c, line))
    }

    /// At the lock's line for the item when the lock holds it, else at the config.
    fn item(&self, item: &str) -> Option<(String, Option<u32>)> {
        self.lock
            .as_ref()
            .and_then(|(file, lines)| lines.get(item).map(|l| (file.clone(), Some(*l))))
            .or_else(|| self.config(None))
    }
}

/// Every finding of the report, in report order: checks, protocol, set lint, surface.
fn collect(r: &RunReport, places: &Places) -> Vec<Found> {
    let config = r.config_file.as_deref().map(|c| places.file(c).to_owned());
    let lock = r.phases.surface.as_ref().map(|p| {
        let file = config.as_deref().map_or_else(
            || p.results.lock_file.clone(),
            |c| match c.rsplit_once('/') {
                Some((dir, _)) => format!("{dir}/toolproof.lock"),
                None => "toolproof.lock".to_owned(),
            },
        );
        (file, &p.results.lock_lines)
    });
    let at = Where {
        server: r
            .server
            .as_ref()
            .and_then(|s| s.name.clone())
            .unwrap_or_else(|| r.target.clone()),
        config,
        lock,
    };
    let mut out = Vec::new();
    checks(r, &at, &mut out);
    protocol(r, &at, &mut out);
    lint(r, &at, places, &mut out);
    surface(r, &at, &mut out);
    out
}

fn checks(r: &RunReport, at: &Where, out: &mut Vec<Found>) {
    let server = &at.server;
    for f in &r.phases.checks.results.findings {
        let (file, logical) = if f.tool == "*" || f.tool.contains(" + ") {
            (at.config(None), server.clone())
        } else {
            (
                at.item(&format!("tool:{}", f.tool)),
                format!("{server}/{}", f.tool),
            )
        };
        out.push(Found {
            rule: f.check.clone(),
            level: level(f.severity),
            message: f.text().into_owned(),
            file,
            logical,
            identity: f.tool.clone(),
        });
    }
}

fn protocol(r: &RunReport, at: &Where, out: &mut Vec<Found>) {
    let Some(p) = &r.phases.protocol.results else {
        return;
    };
    for c in p.checks.iter().filter(|c| c.failed()) {
        out.push(Found {
            rule: format!("protocol-{}", c.id),
            level: level(c.severity),
            message: c
                .detail
                .clone()
                .unwrap_or_else(|| format!("{} failed", c.id)),
            file: at.config(None),
            logical: at.server.clone(),
            identity: String::new(),
        });
    }
}

fn lint(r: &RunReport, at: &Where, places: &Places, out: &mut Vec<Found>) {
    let Some(l) = &r.phases.lint.results else {
        return;
    };
    let server = &at.server;
    for f in &l.findings {
        let file = match &f.file {
            Some(file) => Some((places.file(file).to_owned(), f.line)),
            None => at.config(f.line),
        };
        let logical = match (&f.tool, &f.case) {
            (Some(t), _) => format!("{server}/{t}"),
            (None, Some(c)) => format!("{server}/cases/{c}"),
            (None, None) => server.clone(),
        };
        out.push(Found {
            rule: format!("lint-{}", f.id),
            level: level(f.severity),
            message: f.text().into_owned(),
            file,
            logical,
            identity: f.case.clone().unwrap_or_default(),
        });
    }
}

fn surface(r: &RunReport, at: &Where, out: &mut Vec<Found>) {
    let Some(p) = &r.phases.surface else {
        return;
    };
    let breaking = p
        .results
        .changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Breaking);
    for c in breaking {
        let name = c.item.split_once(':').map_or(c.item.as_str(), |(_, n)| n);
        out.push(Found {
            rule: format!("surface-{}", c.rule),
            level: "error",
            message: format!(
                "{} {} (breaking against {})",
                c.item, c.what, p.results.lock_file
            ),
            file: at
                .lock
                .as_ref()
                .map(|(file, _)| (file.clone(), c.lock_line))
                .or_else(|| at.config(None)),
            logical: format!("{}/{name}", at.server),
            identity: format!("{}\0{}", c.item, c.what),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::short_of;

    #[test]
    fn a_rule_s_gist_stops_at_its_first_clause_outside_code() {
        assert_eq!(
            short_of("a row with `reviewed: false` (proposed by a tool); strict fails"),
            "a row with `reviewed: false`"
        );
        assert_eq!(short_of("names clash: two tools"), "names clash");
        assert_eq!(short_of("plain"), "plain");
    }
}
