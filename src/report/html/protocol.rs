//! The Protocol section: the counts, then one row per check with its severity and what the
//! server did (or why it was skipped), failures first.

use super::CELL_CHARS;
use super::marks::{
    TABLE_CLOSE, Tone, cell, not_run_line, ran, row_open, section_open, table_open,
};
use super::text::text;
use crate::outcome::{PhaseOverview, ProtocolCheck, ProtocolResults, Severity};

pub(super) fn section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: Option<&ProtocolResults>,
) {
    section_open(out, phase, phase.title);
    if ran(phase) {
        let counts = results.map_or_else(
            || phase.status.as_str().to_owned(),
            ProtocolResults::counts_text,
        );
        out.push_str(&format!(
            "<p class=\"pre\">{}</p>\n",
            text(&counts, CELL_CHARS)
        ));
    } else {
        out.push_str(&not_run_line(phase));
    }
    if let Some(r) = results.filter(|r| !r.checks.is_empty()) {
        out.push_str(&table_open(
            "protocol",
            &[("Check", ""), ("Severity", ""), ("Details", "")],
        ));
        let mut checks: Vec<&ProtocolCheck> = r.checks.iter().collect();
        checks.sort_by_key(|c| match c.status.as_str() {
            "failed" => 0,
            "skipped" => 2,
            _ => 1,
        });
        for c in checks {
            row(out, c, r.strict);
        }
        out.push_str(TABLE_CLOSE);
    }
    out.push_str("</section>\n");
}

fn row(out: &mut String, c: &ProtocolCheck, strict: bool) {
    let (tone, word) = match (c.status.as_str(), c.severity) {
        ("passed", _) => (Tone::Pass, "PASS"),
        ("skipped", _) => (Tone::Skip, "SKIP"),
        (_, Severity::Error) => (Tone::Fail, "FAIL"),
        (_, Severity::Warning) if strict => (Tone::Fail, "FAIL"),
        (_, Severity::Warning) => (Tone::Warn, "WARN"),
        (_, Severity::Info) => (Tone::Skip, "INFO"),
    };
    let severity = c.severity.as_str();
    out.push_str(&row_open(tone, &c.status, word));
    out.push_str(&cell("Check", "", &text(&c.id, CELL_CHARS)));
    out.push_str(&cell("Severity", "", severity));
    let detail = c.detail.as_deref().unwrap_or_default();
    out.push_str(&cell("Details", "pre", &text(detail, CELL_CHARS)));
    out.push_str("</tr>\n");
}
