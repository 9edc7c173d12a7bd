//! The set lint in the Markdown summary: its row in the phase table, a list of its findings
//! (failing ones first, each with the case's place), and the coverage table: tool → cases,
//! the no-tool cases, and the contrastive pairs with whether each side is covered. The lists
//! share the summary's byte budget like every other list.

use super::CELL_CHARS;
use super::list::List;
use super::text::md;
use crate::outcome::{LintFinding, LintResults, PhaseOverview, PhaseStatus, Severity};
use crate::report::escape::plural;

/// Longest list of case names in one cell, in characters.
const NAMES_CHARS: usize = 600;

/// The counts, when the phase ran.
pub(super) fn result(phase: &PhaseOverview<'_>, results: Option<&LintResults>) -> Option<String> {
    let r = results?;
    matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed).then(|| r.counts_text())
}

/// One row per finding, failing ones first, then the rules this run could not check.
pub(super) fn findings(results: Option<&LintResults>, config_file: Option<&str>) -> List {
    let mut rows = Vec::new();
    let mut open = false;
    if let Some(r) = results {
        let mut found: Vec<&LintFinding> = r.findings.iter().collect();
        found.sort_by_key(|f| !f.fails);
        open = r.fails();
        for f in found {
            let mark = match (f.fails, f.severity) {
                (true, _) => "❌",
                (false, Severity::Info) => "ℹ️",
                (false, _) => "⚠️",
            };
            let file = f.file.as_deref().or(config_file).unwrap_or_default();
            let place = match f.line {
                Some(line) if !file.is_empty() => format!("{file}:{line}"),
                _ => file.to_owned(),
            };
            rows.push(format!(
                "| {mark} | {} | {} | {} |\n",
                md(&f.id, 60),
                md(&place, CELL_CHARS),
                md(&f.text(), CELL_CHARS)
            ));
        }
        for n in &r.not_checked {
            rows.push(format!(
                "| ⏭️ | {} | | not checked: {} |\n",
                md(&n.id, 60),
                md(&n.reason, CELL_CHARS)
            ));
        }
    }
    let summary = results.map_or_else(
        || "Set lint".to_owned(),
        |r| {
            let (e, w, i) = (
                r.count(Severity::Error),
                r.count(Severity::Warning),
                r.count(Severity::Info),
            );
            format!(
                "Set lint findings: {e} error{}, {w} warning{}, {i} info{}",
                plural(e),
                plural(w),
                plural(i)
            )
        },
    );
    List {
        summary,
        open,
        header: "| | Rule | Where | Problem |\n|---|---|---|---|\n",
        rows,
    }
}

/// The coverage table: one row per tool (cases, how many quote it, which), then the no-tool
/// cases (the ambiguous ones marked).
pub(super) fn coverage(results: Option<&LintResults>) -> List {
    let mut rows = Vec::new();
    let mut summary = "Eval set coverage".to_owned();
    if let Some(c) = results.map(|r| &r.coverage) {
        summary = format!("Eval set coverage: {}", c.summary());
        for t in &c.tools {
            let count = match t.quoting.len() {
                0 => t.cases.len().to_string(),
                q => format!("{} ({q} quoting)", t.cases.len()),
            };
            let mark = if t.cases.is_empty() || t.genuine() == 0 {
                "⚠️"
            } else {
                "✅"
            };
            rows.push(format!(
                "| {mark} | {} | {count} | {} |\n",
                md(&t.tool, CELL_CHARS),
                md(&t.cases.join(", "), NAMES_CHARS)
            ));
        }
        let names = c.no_tool_labels();
        let mark = if c.no_tool.is_empty() {
            "⚠️"
        } else {
            "✅"
        };
        rows.push(format!(
            "| {mark} | (no tool) | {} | {} |\n",
            c.no_tool.len(),
            md(&names.join(", "), NAMES_CHARS)
        ));
    }
    List {
        summary,
        open: false,
        header: "| | Tool | Cases | Which |\n|---|---|---|---|\n",
        rows,
    }
}

/// The contrastive pairs: why each is listed, the genuine cases on each side, and whether
/// both sides have one.
pub(super) fn pairs(results: Option<&LintResults>) -> List {
    let mut rows = Vec::new();
    let pairs = results.map_or(&[][..], |r| r.coverage.pairs.as_slice());
    for p in pairs {
        let mark = if p.contrasted { "✅" } else { "⚠️" };
        rows.push(format!(
            "| {mark} | {} | {} | {} | {} | {} |\n",
            md(&p.a, CELL_CHARS),
            md(&p.b, CELL_CHARS),
            md(&p.why, CELL_CHARS),
            p.a_cases,
            p.b_cases
        ));
    }
    let contrasted = pairs.iter().filter(|p| p.contrasted).count();
    List {
        summary: format!(
            "Contrastive pairs: {contrasted} of {} contrasted",
            pairs.len()
        ),
        open: false,
        header: "| | Tool A | Tool B | Why | Cases of A | Cases of B |\n|---|---|---|---|---|---|\n",
        rows,
    }
}
