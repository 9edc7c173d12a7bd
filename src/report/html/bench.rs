//! The bench section of the page: one row per target with its percentiles.

use super::marks::{
    TABLE_CLOSE, Tone, cell, not_run_line, ran, row_open, section_open, table_open,
};
use super::text::{esc, one_line, text};
use super::{CELL_CHARS, NAME_CHARS};
use crate::outcome::{BenchResults, PhaseOverview};

pub(super) fn section(out: &mut String, phase: &PhaseOverview<'_>, results: Option<&BenchResults>) {
    section_open(out, phase, "Bench");
    let Some(r) = results.filter(|_| ran(phase)) else {
        out.push_str(&not_run_line(phase));
        out.push_str("</section>\n");
        return;
    };
    out.push_str(&format!("<p>{}</p>\n", text(&r.counts_text(), CELL_CHARS)));
    out.push_str(&table_open(
        "bench",
        &[
            ("Target", ""),
            ("Calls", "num"),
            ("p50", "num"),
            ("p90", "num"),
            ("p95", "num"),
            ("p99", "num"),
            ("p99.9", "num"),
            ("Max", "num"),
            ("Calls/s", "num"),
            ("Errors", "num"),
            ("Details", ""),
        ],
    ));
    for t in &r.targets {
        let (tone, status, word) = if t.passed {
            (Tone::Pass, "passed", "PASS")
        } else {
            (Tone::Fail, "failed", "FAIL")
        };
        out.push_str(&row_open(tone, status, word));
        out.push_str(&format!(
            "<th scope=\"row\">{}<span class=\"sub\"><code>{}</code></span></th>",
            one_line(&t.name, NAME_CHARS),
            one_line(&t.tool, NAME_CHARS)
        ));
        let l = &t.latency;
        out.push_str(&cell("Calls", "num inl", &esc(&t.calls_text())));
        for (label, v) in [
            ("p50", l.p50_ms),
            ("p90", l.p90_ms),
            ("p95", l.p95_ms),
            ("p99", l.p99_ms),
            ("p99.9", l.p99_9_ms),
            ("Max", l.max_ms),
        ] {
            out.push_str(&cell(label, "num inl", &format!("{v:.1}ms")));
        }
        out.push_str(&cell("Calls/s", "num inl", &format!("{:.1}", t.throughput)));
        out.push_str(&cell(
            "Errors",
            "num inl",
            &format!("{:.1}%", t.error_rate * 100.0),
        ));
        out.push_str(&cell(
            "Details",
            "pre",
            &text(&t.details().join("\n"), CELL_CHARS),
        ));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
    out.push_str("</section>\n");
}
