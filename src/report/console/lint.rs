//! The set lint's section of the console report: the counts, one row per finding (failing
//! ones first; more than [`INFOS_SHOWN`] infos of one rule fold into one row, since a set
//! written for mcp-toolproof has no `why` anywhere), the coverage in one line, and the rules
//! this run could not check.

use std::collections::HashMap;

use super::phase_line;
use crate::outcome::{LintFinding, LintResults, PhaseOverview, PhaseStatus, Severity};
use crate::report::escape::clean;
use crate::report::table::{Cell, Column, Paint, Table};

pub(super) fn section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: Option<&LintResults>,
    width: usize,
    color: bool,
) {
    let ran = matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed);
    let detail = match results.filter(|_| ran) {
        Some(r) => {
            let mut d = r.counts_text();
            if r.strict {
                d.push_str("; strict: warnings fail");
            }
            if !r.disabled.is_empty() {
                d.push_str("; disabled: ");
                d.push_str(&r.disabled.join(", "));
            }
            Some(clean(&d).into_owned())
        }
        None => phase.reason.map(|s| clean(s).into_owned()),
    };
    phase_line(out, phase, detail.as_deref(), color);
    let Some(r) = results.filter(|_| ran) else {
        out.push('\n');
        return;
    };
    if !r.findings.is_empty() {
        out.push_str(&table(r).render(width, color));
    }
    let coverage = format!("coverage: {}", clean(&r.coverage.summary()));
    push_wrapped(out, &coverage, width);
    for n in &r.not_checked {
        let line = format!(
            "not checked: {}: {}",
            clean(&n.id),
            clean(&n.reason).replace('\n', " ")
        );
        push_wrapped(out, &line, width);
    }
    out.push('\n');
}

/// Infos of one rule shown one by one; more fold into one row.
const INFOS_SHOWN: usize = 3;

fn table(r: &LintResults) -> Table {
    let mut table = Table::new(vec![
        Column::fixed(""),
        Column::text("Rule"),
        Column::text("Problem"),
    ]);
    let mut findings: Vec<&LintFinding> = r.findings.iter().collect();
    findings.sort_by_key(|f| !f.fails);
    // Infos per rule, counted once (a set of a thousand cases without `why` has as many).
    let mut infos: HashMap<&str, usize> = HashMap::new();
    for g in r.findings.iter().filter(|g| g.severity == Severity::Info) {
        *infos.entry(g.id.as_str()).or_default() += 1;
    }
    let mut folded: Vec<&str> = Vec::new();
    for f in findings {
        let mark = match (f.fails, f.severity) {
            (true, _) => Cell::painted("FAIL", Paint::Red),
            (false, Severity::Info) => Cell::painted("INFO", Paint::Dim),
            (false, _) => Cell::painted("WARN", Paint::Yellow),
        };
        let alike = infos.get(f.id.as_str()).copied().unwrap_or(0);
        let text = if f.severity == Severity::Info && alike > INFOS_SHOWN {
            if folded.contains(&f.id.as_str()) {
                continue;
            }
            folded.push(&f.id);
            format!(
                "{}\n… and {} more like it (the JSON, JUnit and Markdown reports list each)",
                f.text(),
                alike - 1
            )
        } else {
            f.text().into_owned()
        };
        table.row(vec![mark, Cell::new(clean(&f.id)), Cell::new(clean(&text))]);
    }
    table
}

/// `text` indented by two, wrapped to `width`, the lines after the first by four.
fn push_wrapped(out: &mut String, text: &str, width: usize) {
    for (i, line) in crate::report::table::wrap(text, width.saturating_sub(4))
        .iter()
        .enumerate()
    {
        out.push_str(if i == 0 { "  " } else { "    " });
        out.push_str(line);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(id: &str, severity: Severity, n: usize) -> LintFinding {
        LintFinding {
            id: id.into(),
            severity,
            message: format!("{id} number {n}"),
            hint: None,
            fails: false,
            case: None,
            tool: None,
            file: None,
            line: None,
        }
    }

    #[test]
    fn many_infos_of_one_rule_fold_into_one_row_and_few_are_listed() {
        let mut findings = Vec::new();
        for n in 0..1000 {
            findings.push(finding("missing-why", Severity::Info, n));
        }
        for n in 0..INFOS_SHOWN {
            findings.push(finding("few-infos", Severity::Info, n));
        }
        for n in 0..5 {
            findings.push(finding("a-warning", Severity::Warning, n));
        }
        let r = LintResults {
            findings,
            ..LintResults::default()
        };
        let text = table(&r).render(200, false);
        let rows = |needle: &str| text.lines().filter(|l| l.contains(needle)).count();
        assert_eq!(rows("missing-why number"), 1, "{text}");
        assert_eq!(rows("… and 999 more like it"), 1, "{text}");
        assert_eq!(rows("few-infos number"), INFOS_SHOWN, "{text}");
        assert_eq!(rows("a-warning number"), 5, "{text}");
        assert_eq!(rows("more like it"), 1, "{text}");
    }
}
