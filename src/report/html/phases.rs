//! The static-checks and tests sections of the page.

use super::marks::{
    TABLE_CLOSE, Tone, breakable, by_rank, cell, not_run_line, ran, row_open, section_open,
    table_open,
};
use super::text::{details_pre, esc, one_line, pre_block, text};
use super::{CELL_CHARS, NAME_CHARS, RESULT_CHARS, STDERR_CHARS, STDERR_LINES};
use crate::outcome::{
    ChecksResults, Inventory, PhaseOverview, Severity, TestCounts, TestResult, TestStatus,
};
use crate::report::escape::{clean, format_ms, plural, truncate_chars};

pub(super) fn checks_section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    c: &ChecksResults,
    inventory: Option<&Inventory>,
) {
    section_open(out, phase, "Static checks");
    if !ran(phase) {
        out.push_str(&not_run_line(phase));
    } else {
        let mut line = c.counts_text();
        if c.strict {
            line.push_str("; strict: warnings fail the run");
        }
        if !c.disabled.is_empty() {
            line.push_str("; turned off: ");
            line.push_str(&c.disabled.join(", "));
        }
        out.push_str(&format!("<p>{}</p>\n", text(&line, CELL_CHARS)));
        if let Some(reason) = phase.reason {
            out.push_str(&format!(
                "<p class=\"pre\">{}</p>\n",
                text(reason, CELL_CHARS)
            ));
        }
    }
    if c.findings.is_empty() {
        if ran(phase) {
            out.push_str("<p>No problems found.</p>\n");
        }
    } else {
        out.push_str(&table_open(
            "findings",
            &[("Tool", ""), ("Check", ""), ("Problem", "")],
        ));
        for f in by_rank(&c.findings, |f| if f.fails { 0 } else { 1 }) {
            let (tone, word) = match (f.severity, f.fails) {
                (Severity::Error, _) => (Tone::Fail, "ERROR"),
                (Severity::Warning, true) => (Tone::Fail, "WARNING"),
                (Severity::Warning, false) => (Tone::Warn, "WARNING"),
                (Severity::Info, _) => (Tone::Skip, "INFO"),
            };
            let status = f.severity.as_str();
            out.push_str(&row_open(tone, status, word));
            out.push_str(&format!(
                "<th scope=\"row\">{}</th>",
                breakable(&one_line(&f.tool, NAME_CHARS))
            ));
            out.push_str(&cell(
                "Check",
                "",
                &format!("<code>{}</code>", one_line(&f.check, NAME_CHARS)),
            ));
            out.push_str(&cell("Problem", "pre", &text(&f.text(), CELL_CHARS)));
            out.push_str("</tr>\n");
        }
        out.push_str(TABLE_CLOSE);
    }
    if let Some(inv) = inventory.filter(|inv| !inv.tools.is_empty()) {
        tools_list(out, inv);
    }
    out.push_str("</section>\n");
}

/// The tools the server listed, collapsed.
pub(super) fn tools_list(out: &mut String, inv: &Inventory) {
    let n = inv.tools.len();
    out.push_str(&format!(
        "<details class=\"tools\"><summary>{n} tool{} listed by the server</summary>\n",
        plural(n)
    ));
    out.push_str("<div class=\"table-wrap\"><table class=\"cards tools\"><thead><tr><th scope=\"col\">Tool</th><th scope=\"col\">Description</th><th scope=\"col\">Output schema</th></tr></thead>\n<tbody>\n");
    for t in &inv.tools {
        let mut name = breakable(&one_line(&t.name, NAME_CHARS));
        if let Some(title) = t.title.as_deref().filter(|s| !s.trim().is_empty()) {
            name.push_str(&format!(
                "<span class=\"sub\">{}</span>",
                one_line(title, NAME_CHARS)
            ));
        }
        out.push_str(&format!(
            "<tr><th scope=\"row\">{name}</th>{}{}</tr>\n",
            cell("Description", "pre", &text(&t.summary, CELL_CHARS)),
            cell(
                "Output schema",
                "",
                if t.has_output_schema { "yes" } else { "no" }
            )
        ));
    }
    out.push_str("</tbody></table></div></details>\n");
}

pub(super) fn test_mark(status: TestStatus) -> (Tone, &'static str, &'static str) {
    match status {
        TestStatus::Failed => (Tone::Fail, "failed", "FAIL"),
        TestStatus::Error => (Tone::Fail, "error", "ERROR"),
        TestStatus::NotRun => (Tone::Skip, "not_run", "NOT RUN"),
        TestStatus::Flaky => (Tone::Warn, "flaky", "FLAKY"),
        TestStatus::Passed => (Tone::Pass, "passed", "PASS"),
    }
}

pub(super) fn tests_section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    tests: &[TestResult],
    config: Option<&str>,
) {
    section_open(out, phase, "Tests");
    if !ran(phase) {
        out.push_str(&not_run_line(phase));
    } else {
        let mut line = esc(&TestCounts::of(tests).out_of_text()).into_owned();
        if let Some(reason) = phase.reason {
            line = format!("{}; {line}", text(reason, CELL_CHARS));
        }
        out.push_str(&format!("<p class=\"pre\">{line}</p>\n"));
    }
    if !tests.is_empty() {
        out.push_str(&table_open(
            "tests",
            &[("Test", ""), ("Tool", ""), ("Time", "num"), ("Details", "")],
        ));
        let rank = |t: &TestResult| match t.status {
            TestStatus::Failed | TestStatus::Error => 0,
            TestStatus::NotRun => 1,
            TestStatus::Flaky => 2,
            TestStatus::Passed => 3,
        };
        for t in by_rank(tests, rank) {
            test_row(out, t, config);
        }
        out.push_str(TABLE_CLOSE);
    }
    out.push_str("</section>\n");
}

pub(super) fn test_row(out: &mut String, t: &TestResult, config: Option<&str>) {
    let (tone, status, word) = test_mark(t.status);
    out.push_str(&row_open(tone, status, word));

    let mut name = one_line(&t.name, NAME_CHARS);
    let place = match (config, t.line) {
        (Some(file), Some(line)) => Some(format!("{file}:{line}")),
        (None, Some(line)) => Some(format!("line {line}")),
        _ => None,
    };
    if let Some(place) = place {
        name.push_str(&format!(
            "<span class=\"sub\"><code>{}</code></span>",
            one_line(&place, CELL_CHARS)
        ));
    }
    if !t.tags.is_empty() {
        name.push_str("<span class=\"sub\">");
        for tag in &t.tags {
            name.push_str(&format!(
                "<span class=\"tag\">{}</span>",
                one_line(tag, NAME_CHARS)
            ));
        }
        name.push_str("</span>");
    }
    out.push_str(&format!("<th scope=\"row\">{name}</th>"));
    out.push_str(&cell(
        "Tool",
        "inl",
        &format!("<code>{}</code>", breakable(&one_line(&t.tool, NAME_CHARS))),
    ));
    let time = if t.status == TestStatus::NotRun {
        "–".to_string()
    } else {
        format_ms(t.latency_ms)
    };
    out.push_str(&cell("Time", "num inl", &time));

    out.push_str(&cell("Details", "", &test_details(t)));
    out.push_str("</tr>\n");
}

/// A test's failures, attempts, result text and stderr.
fn test_details(t: &TestResult) -> String {
    let mut details = String::new();
    if !t.failures.is_empty() || !t.warnings.is_empty() {
        details.push_str("<ul class=\"lines pre\">");
        for f in &t.failures {
            details.push_str(&format!("<li>{}</li>", text(f, CELL_CHARS)));
        }
        for w in &t.warnings {
            details.push_str(&format!("<li>warning: {}</li>", text(w, CELL_CHARS)));
        }
        details.push_str("</ul>");
    }
    match t.status {
        TestStatus::Flaky => details.push_str(&format!(
            "<p>flaky: passed on attempt {} after failing</p>",
            t.attempts
        )),
        TestStatus::Failed | TestStatus::Error if t.attempts > 1 => {
            details.push_str(&format!("<p>after {} attempts</p>", t.attempts));
        }
        TestStatus::NotRun if t.failures.is_empty() => details.push_str("<p>not run</p>"),
        _ => {}
    }
    if let Some(result) = &t.text {
        let failing = matches!(t.status, TestStatus::Failed | TestStatus::Error);
        let rough = truncate_chars(result, RESULT_CHARS.saturating_mul(4));
        let cleaned = clean(&rough);
        let chars = cleaned.chars().take(RESULT_CHARS + 1).count();
        let size = if chars > RESULT_CHARS {
            format!("first {RESULT_CHARS} characters")
        } else {
            format!("{chars} character{}", plural(chars))
        };
        let flag = match t.is_error {
            Some(true) => ", isError: true",
            _ => "",
        };
        details.push_str(&details_pre(
            &format!("Result text ({size}{flag})"),
            &format!(
                "<pre>{}</pre>",
                esc(&truncate_chars(&cleaned, RESULT_CHARS))
            ),
            failing && chars <= 400,
        ));
    }
    if let Some(stderr) = t.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
        details.push_str(&details_pre(
            "Server stderr during the call",
            &pre_block(stderr, STDERR_LINES, STDERR_CHARS),
            t.status != TestStatus::Passed,
        ));
    }
    details
}
