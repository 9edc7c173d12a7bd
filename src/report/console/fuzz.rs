//! The fuzz section of the console report: one row per tool (and per finding), the seed to
//! repeat the run, then each finding's server stderr and the `tests:` entry that reproduces it.

use super::{phase_line, push_gutter};
use crate::outcome::{FuzzResults, PhaseOverview, PhaseStatus};
use crate::report::escape::clean;
use crate::report::table::{Cell, Column, Paint, Table};

/// Longest input shown in the table, in characters.
const INPUT_CHARS: usize = 60;

pub(super) fn section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: Option<&FuzzResults>,
    width: usize,
    color: bool,
) {
    // Counts only when something was fuzzed: `0 findings in 0 tools` reads like a pass.
    let counts = results
        .filter(|r| r.fuzzed() > 0)
        .map(FuzzResults::counts_text);
    let reason = phase
        .reason
        .map(|reason| match results.and_then(|r| r.warning.as_ref()) {
            Some(_) => format!(
                "{} {}",
                Paint::Yellow.paint("warning:", color),
                clean(reason)
            ),
            None => clean(reason).into_owned(),
        });
    let detail = match (reason, counts) {
        (Some(reason), Some(counts)) => Some(format!("{reason}; {counts}")),
        (reason, counts) => reason.or(counts),
    };
    phase_line(out, phase, detail.as_deref(), color);
    let Some(r) = results.filter(|r| !r.tools.is_empty()) else {
        out.push('\n');
        return;
    };
    out.push_str(&table(r).render(width, color));
    if r.fuzzed() > 0 {
        out.push_str(&format!("Repeat this run with --seed {}\n", r.seed));
    }
    for t in &r.tools {
        for f in &t.findings {
            if let Some(stderr) = &f.stderr {
                let line = format!(
                    "Server stderr during fuzz {} {} ({}):",
                    clean(&t.tool),
                    f.kind,
                    f.mode
                );
                out.push_str(&Paint::Red.paint(&line.replace('\n', " "), color));
                out.push('\n');
                push_gutter(out, stderr);
            }
            if !f.test.is_empty() {
                let line = format!(
                    "Reproduce fuzz {} {} ({}) with this test:",
                    clean(&t.tool),
                    f.kind,
                    f.mode
                );
                out.push_str(&line.replace('\n', " "));
                out.push('\n');
                push_gutter(out, &f.test);
            }
        }
    }
    out.push('\n');
}

/// The fuzz part of the summary line: the counts when the phase ran, `nothing fuzzed` when
/// it fuzzed no tool, else nothing (the status says it).
pub(super) fn summary_part(
    phase: &PhaseOverview<'_>,
    results: Option<&FuzzResults>,
) -> Option<String> {
    let r = results?;
    if r.warning.is_some() {
        return Some("fuzz: skipped, nothing fuzzed".into());
    }
    if !matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed) {
        return None;
    }
    let counts = r.counts_text();
    let counts = counts.split(" (seed").next().unwrap_or_default();
    Some(format!("fuzz: {counts}"))
}

fn table(r: &FuzzResults) -> Table {
    // Without a finding the Finding and Smallest input columns would be empty in every row:
    // they are left out, and the details (why a tool was skipped) get their width.
    let findings = r.tools.iter().any(|t| !t.findings.is_empty());
    let mut columns = vec![
        Column::fixed(""),
        Column::text("Tool"),
        Column::fixed_right("Calls"),
    ];
    if findings {
        columns.push(Column::text("Finding"));
        columns.push(Column::text("Smallest input"));
    }
    columns.push(Column::text("Details"));
    let mut table = Table::new(columns);
    let mut row = |mut cells: Vec<Cell>| {
        if !findings {
            cells.drain(3..5);
        }
        table.row(cells);
    };
    for t in &r.tools {
        if let Some(why) = &t.skipped {
            row(vec![
                Cell::painted("SKIP", Paint::Dim),
                Cell::new(clean(&t.tool)),
                Cell::new("0"),
                Cell::new(""),
                Cell::new(""),
                Cell::new(clean(why)),
            ]);
            continue;
        }
        if t.findings.is_empty() {
            row(vec![
                Cell::painted("PASS", Paint::Green),
                Cell::new(clean(&t.tool)),
                Cell::new(t.calls.to_string()),
                Cell::new(""),
                Cell::new(""),
                Cell::new(
                    t.stopped
                        .as_deref()
                        .map(|s| clean(s).into_owned())
                        .unwrap_or_default(),
                ),
            ]);
            continue;
        }
        for (i, f) in t.findings.iter().enumerate() {
            let first = i == 0;
            let input = serde_json::to_string(&f.input).unwrap_or_default();
            row(vec![
                if first {
                    Cell::painted("FAIL", Paint::Red)
                } else {
                    Cell::new("")
                },
                Cell::new(if first {
                    clean(&t.tool).into_owned()
                } else {
                    String::new()
                }),
                Cell::new(if first {
                    t.calls.to_string()
                } else {
                    String::new()
                }),
                Cell::new(format!("{} ({})", f.kind, f.mode)),
                Cell::new(short(&clean(&input), INPUT_CHARS)),
                Cell::new(clean(f.detail.lines().next().unwrap_or("")).into_owned()),
            ]);
        }
    }
    table
}

/// `text` cut to `max` characters, with `...` when cut.
fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(max).collect();
    s.push_str("...");
    s
}
