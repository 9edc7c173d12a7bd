//! The Fuzz section: the seed, one row per tool and one per finding, with the shrunk input,
//! the server's stderr and the `tests:` entry that reproduces it.

use super::marks::{
    TABLE_CLOSE, Tone, cell, not_run_line, ran, row_open, section_open, table_open,
};
use super::text::{details_pre, duration, esc, pre_block, text};
use super::{CELL_CHARS, NAME_CHARS, STDERR_CHARS, STDERR_LINES};
use crate::outcome::{FuzzResults, FuzzTool, PhaseOverview};

/// Longest input shown, in characters.
const INPUT_CHARS: usize = 2000;

pub(super) fn section(out: &mut String, phase: &PhaseOverview<'_>, results: Option<&FuzzResults>) {
    section_open(out, phase, phase.title);
    if ran(phase) {
        let counts = results.map_or_else(
            || phase.status.as_str().to_owned(),
            FuzzResults::counts_text,
        );
        out.push_str(&format!(
            "<p class=\"pre\">{}</p>\n",
            text(&counts, CELL_CHARS)
        ));
    } else {
        out.push_str(&not_run_line(phase));
    }
    if let Some(r) = results.filter(|r| !r.tools.is_empty()) {
        out.push_str(&table_open(
            "fuzz",
            &[
                ("Tool", ""),
                ("Calls", "num"),
                ("Finding", ""),
                ("Smallest input", ""),
                ("Details", ""),
            ],
        ));
        let mut tools: Vec<&FuzzTool> = r.tools.iter().collect();
        tools.sort_by_key(|t| match t.status.as_str() {
            "failed" => 0,
            "skipped" => 2,
            _ => 1,
        });
        for t in tools {
            tool_rows(out, t);
        }
        out.push_str(TABLE_CLOSE);
        out.push_str(&format!(
            "<p>Repeat with <code>--seed {}</code>.</p>\n",
            r.seed
        ));
    }
    out.push_str("</section>\n");
}

fn tool_rows(out: &mut String, t: &FuzzTool) {
    let name = text(&t.tool, NAME_CHARS);
    if let Some(why) = &t.skipped {
        out.push_str(&row_open(Tone::Skip, "skipped", "SKIP"));
        out.push_str(&cell("Tool", "", &name));
        out.push_str(&cell("Calls", "num", "0"));
        out.push_str(&cell("Finding", "", ""));
        out.push_str(&cell("Smallest input", "", ""));
        out.push_str(&cell("Details", "pre", &text(why, CELL_CHARS)));
        out.push_str("</tr>\n");
        return;
    }
    if t.findings.is_empty() {
        out.push_str(&row_open(Tone::Pass, "passed", "PASS"));
        out.push_str(&cell("Tool", "", &name));
        out.push_str(&cell("Calls", "num", &t.calls.to_string()));
        out.push_str(&cell("Finding", "", ""));
        out.push_str(&cell("Smallest input", "", ""));
        let mut detail = format!(
            "{} valid, {} invalid inputs in {}",
            t.valid_inputs,
            t.invalid_inputs,
            duration(t.duration_ms)
        );
        if let Some(s) = &t.stopped {
            detail.push_str(&format!("; {}", text(s, CELL_CHARS)));
        }
        out.push_str(&cell("Details", "pre", &detail));
        out.push_str("</tr>\n");
        return;
    }
    for f in &t.findings {
        out.push_str(&row_open(Tone::Fail, "failed", "FAIL"));
        out.push_str(&cell("Tool", "", &name));
        out.push_str(&cell("Calls", "num", &t.calls.to_string()));
        out.push_str(&cell(
            "Finding",
            "",
            &format!(
                "{} <span class=\"sub\">({})</span>",
                esc(&f.kind),
                esc(&f.mode)
            ),
        ));
        let input = serde_json::to_string(&f.input).unwrap_or_default();
        out.push_str(&cell(
            "Smallest input",
            "",
            &format!("<code>{}</code>", text(&input, INPUT_CHARS)),
        ));
        let mut detail = text(&f.detail, CELL_CHARS);
        if let Some(d) = &f.defect {
            detail.push_str(&format!("\nschema: {}", text(d, CELL_CHARS)));
        }
        let mut html = format!("<span class=\"pre\">{detail}</span>");
        if let Some(stderr) = &f.stderr {
            html.push_str(&details_pre(
                "Server stderr",
                &pre_block(stderr, STDERR_LINES, STDERR_CHARS),
                true,
            ));
        }
        if !f.test.is_empty() {
            html.push_str(&details_pre(
                "Test that reproduces it",
                &format!("<pre>{}</pre>", esc(&f.test)),
                false,
            ));
        }
        out.push_str(&cell("Details", "", &html));
        out.push_str("</tr>\n");
    }
}
