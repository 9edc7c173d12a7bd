//! The Set lint section: the counts, one row per finding (failing ones first) with the case's
//! place, the rules this run could not check, then the coverage table (one row per tool with
//! its cases, one for the no-tool cases) and the contrastive pairs.

use super::marks::{
    TABLE_CLOSE, Tone, by_rank, cell, not_run_line, ran, row_open, section_open, table_open,
};
use super::text::{esc, one_line, text};
use super::{CELL_CHARS, NAME_CHARS};
use crate::outcome::{Coverage, LintFinding, LintResults, PhaseOverview, Severity};

pub(super) fn section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: Option<&LintResults>,
    config_file: Option<&str>,
) {
    section_open(out, phase, phase.title);
    let Some(r) = results.filter(|_| ran(phase)) else {
        out.push_str(&not_run_line(phase));
        out.push_str("</section>\n");
        return;
    };
    let mut counts = r.counts_text();
    if r.strict {
        counts.push_str("; strict: warnings fail");
    }
    out.push_str(&format!(
        "<p class=\"pre\">{}</p>\n",
        text(&counts, CELL_CHARS)
    ));
    if r.findings.is_empty() && r.not_checked.is_empty() {
        out.push_str("<p>No problems found.</p>\n");
    } else {
        findings(out, r, config_file);
    }
    coverage(out, &r.coverage);
    out.push_str("</section>\n");
}

fn findings(out: &mut String, r: &LintResults, config_file: Option<&str>) {
    out.push_str(&table_open(
        "lint",
        &[("Rule", ""), ("Where", ""), ("Problem", "")],
    ));
    let rank = |f: &LintFinding| match (f.fails, f.severity) {
        (true, _) => 0,
        (false, Severity::Info) => 2,
        (false, _) => 1,
    };
    for f in by_rank(&r.findings, rank) {
        let (tone, word) = match (f.fails, f.severity) {
            (true, Severity::Error) => (Tone::Fail, "ERROR"),
            (true, _) => (Tone::Fail, "WARNING"),
            (false, Severity::Info) => (Tone::Skip, "INFO"),
            (false, _) => (Tone::Warn, "WARNING"),
        };
        let file = f.file.as_deref().or(config_file).unwrap_or_default();
        let place = match f.line {
            Some(line) if !file.is_empty() => format!("{file}:{line}"),
            _ => file.to_owned(),
        };
        out.push_str(&row_open(tone, f.severity.as_str(), word));
        out.push_str(&cell(
            "Rule",
            "",
            &format!("<code>{}</code>", one_line(&f.id, NAME_CHARS)),
        ));
        out.push_str(&cell("Where", "", &one_line(&place, NAME_CHARS)));
        out.push_str(&cell("Problem", "pre", &text(&f.text(), CELL_CHARS)));
        out.push_str("</tr>\n");
    }
    for n in &r.not_checked {
        out.push_str(&row_open(Tone::Skip, "not_checked", "NOT CHECKED"));
        out.push_str(&cell(
            "Rule",
            "",
            &format!("<code>{}</code>", one_line(&n.id, NAME_CHARS)),
        ));
        out.push_str(&cell("Where", "", ""));
        out.push_str(&cell("Problem", "pre", &text(&n.reason, CELL_CHARS)));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
}

/// The coverage table and the contrastive pairs.
fn coverage(out: &mut String, c: &Coverage) {
    out.push_str(&format!(
        "<h3 id=\"coverage\">Coverage</h3>\n<p>{}</p>\n",
        esc(&c.summary())
    ));
    out.push_str(&table_open(
        "coverage",
        &[("Tool", ""), ("Cases", "num"), ("Which", "")],
    ));
    let mut rows: Vec<(Tone, &str, &str, String, String, String)> = c
        .tools
        .iter()
        .map(|t| {
            let (tone, status, word) = match (t.cases.is_empty(), t.genuine()) {
                (true, _) => (Tone::Warn, "uncovered", "NONE"),
                (false, 0) => (Tone::Warn, "quoted_only", "QUOTED"),
                _ => (Tone::Pass, "covered", "COVERED"),
            };
            let count = match t.quoting.len() {
                0 => t.cases.len().to_string(),
                q => format!("{} ({q} quoting)", t.cases.len()),
            };
            let name = one_line(&t.tool, NAME_CHARS);
            (tone, status, word, name, count, t.cases.join(", "))
        })
        .collect();
    let names = c.no_tool_labels();
    let (tone, status, word) = if c.no_tool.is_empty() {
        (Tone::Warn, "uncovered", "NONE")
    } else {
        (Tone::Pass, "covered", "COVERED")
    };
    rows.push((
        tone,
        status,
        word,
        "<em>(no tool)</em>".to_owned(),
        c.no_tool.len().to_string(),
        names.join(", "),
    ));
    for (tone, status, word, name, count, which) in by_rank(&rows, |r| u8::from(r.0 == Tone::Pass))
    {
        out.push_str(&row_open(*tone, status, word));
        out.push_str(&format!("<th scope=\"row\">{name}</th>"));
        out.push_str(&cell("Cases", "num", count));
        out.push_str(&cell("Which", "", &text(which, CELL_CHARS)));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
    pairs(out, c);
}

/// The contrastive pairs, those without a genuine case on a side first.
fn pairs(out: &mut String, c: &Coverage) {
    if c.pairs.is_empty() {
        return;
    }
    out.push_str("<h3 id=\"contrastive-pairs\">Contrastive pairs</h3>\n");
    out.push_str(&table_open(
        "pairs",
        &[
            ("Tool A", ""),
            ("Tool B", ""),
            ("Why", ""),
            ("Cases of A", "num"),
            ("Cases of B", "num"),
        ],
    ));
    for p in by_rank(&c.pairs, |p| u8::from(p.contrasted)) {
        let (tone, status, word) = if p.contrasted {
            (Tone::Pass, "contrasted", "CONTRASTED")
        } else {
            (Tone::Warn, "not_contrasted", "MISSING")
        };
        out.push_str(&row_open(tone, status, word));
        out.push_str(&format!(
            "<th scope=\"row\">{}</th>",
            one_line(&p.a, NAME_CHARS)
        ));
        out.push_str(&cell("Tool B", "", &one_line(&p.b, NAME_CHARS)));
        out.push_str(&cell("Why", "", &text(&p.why, CELL_CHARS)));
        out.push_str(&cell("Cases of A", "num", &p.a_cases.to_string()));
        out.push_str(&cell("Cases of B", "num", &p.b_cases.to_string()));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
}
