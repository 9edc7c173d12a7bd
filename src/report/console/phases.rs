//! The static-checks and tests sections of the console report.

use super::{phase_line, push_gutter, test_counts_text};
use crate::outcome::{
    ChecksResults, PhaseOverview, PhaseStatus, Severity, TestCounts, TestResult, TestStatus,
};
use crate::report::escape::{clean, format_ms, plural};
use crate::report::table::{Cell, Column, Paint, Table};

/// Infos of one check shown before the rest are counted in one row.
const INFOS_SHOWN: usize = 3;

pub(super) fn checks_section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: &ChecksResults,
    width: usize,
    color: bool,
) {
    let detail = if phase.status == PhaseStatus::Passed || phase.status == PhaseStatus::Failed {
        let errors = results.count(Severity::Error);
        let warnings = results.count(Severity::Warning);
        let infos = results.count(Severity::Info);
        let tools = results.tools.len();
        let infos = if infos > 0 {
            format!(", {infos} info{}", plural(infos))
        } else {
            String::new()
        };
        let mut d = format!(
            "{errors} error{}, {warnings} warning{}{infos} in {tools} tool{}",
            plural(errors),
            plural(warnings),
            plural(tools)
        );
        if results.strict {
            d.push_str("; strict: warnings fail");
        }
        if !results.disabled.is_empty() {
            d.push_str("; disabled: ");
            d.push_str(&results.disabled.join(", "));
        }
        if let Some(reason) = phase.reason {
            d = format!("{reason}; {d}");
        }
        Some(clean(&d).into_owned())
    } else {
        phase.reason.map(|s| clean(s).into_owned())
    };
    phase_line(out, phase, detail.as_deref(), color);
    if !results.findings.is_empty() {
        let mut table = Table::new(vec![
            Column::fixed(""),
            Column::text("Tool"),
            Column::text("Check"),
            Column::text("Problem"),
        ]);
        let mut folded: Vec<&str> = Vec::new();
        for f in &results.findings {
            let mark = match (f.fails, f.severity) {
                (true, _) => Cell::painted("FAIL", Paint::Red),
                (false, Severity::Info) => Cell::painted("INFO", Paint::Dim),
                (false, _) => Cell::painted("WARN", Paint::Yellow),
            };
            // An info found on many tools shows its first ones, then a count.
            let alike = results
                .findings
                .iter()
                .filter(|g| g.check == f.check && g.severity == Severity::Info)
                .count();
            let shown = results.findings[..]
                .iter()
                .take_while(|g| !std::ptr::eq(*g, f))
                .filter(|g| g.check == f.check && g.severity == Severity::Info)
                .count();
            if f.severity == Severity::Info && alike > INFOS_SHOWN && shown >= INFOS_SHOWN {
                if !folded.contains(&f.check.as_str()) {
                    folded.push(&f.check);
                    table.row(vec![
                        mark,
                        Cell::new(format!("{} more", alike - INFOS_SHOWN)),
                        Cell::new(clean(&f.check)),
                        Cell::new(
                            "like the above (the JSON, JUnit and Markdown reports list each)",
                        ),
                    ]);
                }
                continue;
            }
            table.row(vec![
                mark,
                Cell::new(clean(&f.tool)),
                Cell::new(clean(&f.check)),
                Cell::new(clean(&f.text())),
            ]);
        }
        out.push_str(&table.render(width, color));
    }
    out.push('\n');
}

pub(super) fn tests_section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: &[TestResult],
    width: usize,
    color: bool,
) {
    let detail = if results.is_empty() {
        phase.reason.map(|s| clean(s).into_owned())
    } else {
        let mut d = test_counts_text(&TestCounts::of(results));
        if let Some(reason) = phase.reason {
            d = format!("{}; {d}", clean(reason));
        }
        Some(d)
    };
    phase_line(out, phase, detail.as_deref(), color);
    if results.is_empty() {
        out.push('\n');
        return;
    }
    let mut table = Table::new(vec![
        Column::fixed(""),
        Column::text("Test"),
        Column::text("Tool"),
        Column::fixed_right("Time"),
        Column::text("Details"),
    ]);
    for t in results {
        let (mark, paint) = test_mark(t.status);
        let mut details: Vec<String> = t.failures.iter().map(|f| clean(f).into_owned()).collect();
        match t.status {
            TestStatus::Flaky => details.push(format!("flaky: passed on attempt {}", t.attempts)),
            TestStatus::Failed | TestStatus::Error if t.attempts > 1 => {
                details.push(format!("(after {} attempts)", t.attempts));
            }
            TestStatus::NotRun if details.is_empty() => details.push("not run".into()),
            _ => {}
        }
        details.extend(t.warnings.iter().map(|w| format!("warning: {}", clean(w))));
        if matches!(t.status, TestStatus::Failed | TestStatus::Error)
            && !t.server_requests.is_empty()
        {
            let asked: Vec<String> = t
                .server_requests
                .iter()
                .map(|r| format!("{} → {}", r.method, r.answer))
                .collect();
            details.push(clean(&format!("server asked: {}", asked.join(", "))).into_owned());
        }
        let time = if t.status == TestStatus::NotRun {
            "-".to_string()
        } else {
            format_ms(t.latency_ms)
        };
        table.row(vec![
            Cell::painted(mark, paint),
            Cell::new(clean(&t.name)),
            Cell::new(clean(&t.tool)),
            Cell::new(time),
            Cell::new(details.join("\n")),
        ]);
    }
    out.push_str(&table.render(width, color));
    for t in results {
        if let Some(stderr) = t.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
            out.push_str(&Paint::Red.paint(
                &format!(
                    "Server stderr during '{}':",
                    clean(&t.name).replace('\n', " ")
                ),
                color,
            ));
            out.push('\n');
            push_gutter(out, stderr);
        }
    }
    out.push('\n');
}

fn test_mark(status: TestStatus) -> (&'static str, Paint) {
    match status {
        TestStatus::Passed => ("PASS", Paint::Green),
        TestStatus::Flaky => ("WARN", Paint::Yellow),
        TestStatus::Failed => ("FAIL", Paint::Red),
        TestStatus::Error => ("ERROR", Paint::RedBold),
        TestStatus::NotRun => ("SKIP", Paint::Dim),
    }
}
