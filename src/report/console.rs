//! The human report printed at the end of a run: a header, one section per phase (a table when
//! there is something to show), the connection error with the server's stderr, non-protocol
//! stdout, and a one-line summary. Also decides whether colour is used.

use std::ffi::OsString;

use super::escape::{clean, defuse_workflow_commands, format_ms, format_secs, plural, tail_lines};
use super::model::{
    ChecksResults, PhaseOverview, PhaseStatus, RunReport, TestCounts, TestResult, TestStatus,
};
use super::table::{Cell, Column, Paint, Table};

/// How the console report is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsoleOptions {
    /// Use ANSI colours.
    pub color: bool,
    /// Total width tables are wrapped to.
    pub width: usize,
}

impl Default for ConsoleOptions {
    fn default() -> Self {
        ConsoleOptions {
            color: false,
            width: 100,
        }
    }
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorFlag {
    /// Colour on a terminal, unless `NO_COLOR` or `CI` say otherwise (`CLICOLOR_FORCE` forces it).
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Narrowest width tables are drawn at, whatever the terminal says.
const MIN_WIDTH: usize = 40;

/// Most lines of server stderr shown per block.
const STDERR_LINES: usize = 40;

/// Most non-protocol stdout lines shown.
const NOISE_LINES: usize = 10;

/// Whether to colour the console report.
///
/// `--color always`/`never` win. Under `auto`: `NO_COLOR` (non-empty) means no colour;
/// `CLICOLOR_FORCE` (non-empty, not `0`) means colour; `CLICOLOR=0`, `TERM=dumb` or `CI` (set, not
/// `false`/`0`) mean no colour; otherwise colour exactly when the output is a terminal.
pub fn color_choice(flag: ColorFlag, is_tty: bool) -> bool {
    color_choice_from(flag, is_tty, |k| std::env::var_os(k))
}

fn color_choice_from(
    flag: ColorFlag,
    is_tty: bool,
    env: impl Fn(&str) -> Option<OsString>,
) -> bool {
    let set = |k: &str| env(k).filter(|v| !v.is_empty());
    let truthy = |k: &str| set(k).is_some_and(|v| v != "0" && v != "false");
    match flag {
        ColorFlag::Always => true,
        ColorFlag::Never => false,
        ColorFlag::Auto => {
            if set("NO_COLOR").is_some() {
                false
            } else if truthy("CLICOLOR_FORCE") {
                true
            } else if set("CLICOLOR").is_some_and(|v| v == "0")
                || set("TERM").is_some_and(|v| v == "dumb")
                || truthy("CI")
            {
                false
            } else {
                is_tty
            }
        }
    }
}

/// The console report of `report`, every line ending with `\n`.
pub fn render(report: &RunReport, opts: &ConsoleOptions) -> String {
    let report = report.redacted();
    let r = &*report;
    let color = opts.color;
    let width = opts.width.max(MIN_WIDTH);
    let mut out = String::new();

    header(&mut out, r, color);

    if let Some(err) = &r.error {
        out.push_str(&Paint::RedBold.paint("Error:", color));
        out.push(' ');
        push_indented(&mut out, &clean(&err.message), "       ");
        if let Some(stderr) = err.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
            out.push_str(&Paint::Red.paint("Server stderr:", color));
            out.push('\n');
            push_gutter(&mut out, stderr);
        }
        out.push('\n');
    }

    if !r.stdout_noise.is_empty() {
        let n = r.stdout_noise.len();
        out.push_str(&Paint::Yellow.paint("WARN", color));
        out.push_str(&format!(
            " the server printed {n} non-protocol line{} on stdout (strict MCP clients fail on them):\n",
            plural(n)
        ));
        let shown = r.stdout_noise.iter().take(NOISE_LINES);
        push_gutter(&mut out, &shown.cloned().collect::<Vec<_>>().join("\n"));
        if n > NOISE_LINES {
            out.push_str(&format!("  … {} more\n", n - NOISE_LINES));
        }
        out.push('\n');
    }

    let [checks, tests, evals, bench, fuzz] = r.phases.overview();
    checks_section(&mut out, &checks, &r.phases.checks.results, width, color);
    tests_section(&mut out, &tests, &r.phases.tests.results, width, color);
    for phase in [evals, bench, fuzz] {
        let detail = phase.reason.map(|s| clean(s).into_owned());
        phase_line(&mut out, &phase, detail.as_deref(), color);
        out.push('\n');
    }

    summary_line(&mut out, r, color);
    defuse_workflow_commands(&out).into_owned()
}

fn header(out: &mut String, r: &RunReport, color: bool) {
    let title = match &r.server {
        Some(s) => {
            let name = s.name.as_deref().unwrap_or(&r.target);
            match s.version.as_deref() {
                Some(v) => format!("{name} {v}"),
                None => name.to_string(),
            }
        }
        None => r.target.clone(),
    };
    let title = clean(&title).replace('\n', " ");
    out.push_str(&Paint::Bold.paint(&format!("toolproof - {title}"), color));
    out.push('\n');
    if let Some(s) = &r.server {
        let line = format!(
            "server: {} ({}, protocol {})",
            r.target, s.transport, s.protocol_version
        );
        out.push_str(&clean(&line).replace('\n', " "));
        out.push('\n');
    }
    out.push('\n');
}

/// `Title: MARK - detail` for a phase.
fn phase_line(out: &mut String, phase: &PhaseOverview<'_>, detail: Option<&str>, color: bool) {
    let (mark, paint) = match phase.status {
        PhaseStatus::Passed => ("PASS", Paint::Green),
        PhaseStatus::Failed => ("FAIL", Paint::Red),
        PhaseStatus::Skipped => ("SKIP", Paint::Dim),
        PhaseStatus::Error => ("ERROR", Paint::RedBold),
    };
    out.push_str(&Paint::Bold.paint(&format!("{}:", phase.title), color));
    out.push(' ');
    out.push_str(&paint.paint(mark, color));
    match detail.map(str::trim_end).filter(|d| !d.is_empty()) {
        Some(detail) => {
            out.push_str(" - ");
            push_indented(out, detail, "  ");
        }
        None => out.push('\n'),
    }
}

fn checks_section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: &ChecksResults,
    width: usize,
    color: bool,
) {
    use super::model::Severity;
    let detail = if phase.status == PhaseStatus::Passed || phase.status == PhaseStatus::Failed {
        let errors = results.count(Severity::Error);
        let warnings = results.count(Severity::Warning);
        let tools = results.tools.len();
        let mut d = format!(
            "{errors} error{}, {warnings} warning{} in {tools} tool{}",
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
        for f in &results.findings {
            let mark = if f.fails {
                Cell::painted("FAIL", Paint::Red)
            } else {
                Cell::painted("WARN", Paint::Yellow)
            };
            table.row(vec![
                mark,
                Cell::new(clean(&f.tool)),
                Cell::new(clean(&f.check)),
                Cell::new(clean(&f.message)),
            ]);
        }
        out.push_str(&table.render(width, color));
    }
    out.push('\n');
}

fn tests_section(
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

/// `5 passed (1 flaky), 3 failed, 1 error, 2 not run`: passed and failed always, the rest when
/// there are any.
fn test_counts_text(c: &TestCounts) -> String {
    let mut s = format!("{} passed", c.ok());
    if c.flaky > 0 {
        s.push_str(&format!(" ({} flaky)", c.flaky));
    }
    s.push_str(&format!(", {} failed", c.failed));
    if c.errors > 0 {
        s.push_str(&format!(", {} error{}", c.errors, plural(c.errors)));
    }
    if c.not_run > 0 {
        s.push_str(&format!(", {} not run", c.not_run));
    }
    s
}

fn summary_line(out: &mut String, r: &RunReport, color: bool) {
    use super::model::Severity;
    let mut parts = Vec::new();
    parts.push(if r.passed {
        Paint::GreenBold.paint("PASSED", color)
    } else {
        Paint::RedBold.paint("FAILED", color)
    });
    let checks = &r.phases.checks;
    parts.push(if checks.ran() {
        let e = checks.results.count(Severity::Error);
        let w = checks.results.count(Severity::Warning);
        format!("checks: {e} error{}, {w} warning{}", plural(e), plural(w))
    } else {
        format!("checks: {}", checks.status.as_str())
    });
    let tests = &r.phases.tests;
    parts.push(if tests.ran() {
        format!(
            "tests: {}",
            test_counts_text(&TestCounts::of(&tests.results))
        )
    } else {
        format!("tests: {}", tests.status.as_str())
    });
    for phase in &r.phases.overview()[2..] {
        if phase.status != PhaseStatus::Skipped {
            parts.push(format!("{}: {}", phase.key, phase.status.as_str()));
        }
    }
    parts.push(format_secs(r.duration_ms));
    out.push_str(&parts.join("  |  "));
    out.push('\n');
}

/// Appends `text` (already cleaned), continuing lines after the first with `indent`.
fn push_indented(out: &mut String, text: &str, indent: &str) {
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push_str(indent);
        }
        out.push_str(line);
        out.push('\n');
    }
    if text.is_empty() {
        out.push('\n');
    }
}

/// Appends untrusted multi-line text behind a `  │ ` gutter so it can never pass for
/// toolproof's own lines; at most [`STDERR_LINES`] lines, the last ones.
fn push_gutter(out: &mut String, text: &str) {
    let cleaned = clean(text);
    for line in tail_lines(&cleaned, STDERR_LINES).lines() {
        out.push_str("  │ ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |k| {
            pairs
                .iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn color_follows_the_flag_and_the_environment() {
        use ColorFlag::*;
        assert!(color_choice_from(Auto, true, env(&[])));
        assert!(!color_choice_from(Auto, false, env(&[])));
        assert!(!color_choice_from(Auto, true, env(&[("NO_COLOR", "1")])));
        assert!(color_choice_from(Auto, true, env(&[("NO_COLOR", "")])));
        assert!(!color_choice_from(Auto, true, env(&[("CI", "true")])));
        assert!(color_choice_from(Auto, true, env(&[("CI", "false")])));
        assert!(color_choice_from(
            Auto,
            false,
            env(&[("CLICOLOR_FORCE", "1")])
        ));
        assert!(color_choice_from(
            Auto,
            false,
            env(&[("CI", "1"), ("CLICOLOR_FORCE", "1")])
        ));
        assert!(!color_choice_from(
            Auto,
            false,
            env(&[("CLICOLOR_FORCE", "0")])
        ));
        assert!(!color_choice_from(
            Auto,
            false,
            env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")])
        ));
        assert!(!color_choice_from(Auto, true, env(&[("TERM", "dumb")])));
        assert!(color_choice_from(
            Always,
            false,
            env(&[("NO_COLOR", "1"), ("CI", "1")])
        ));
        assert!(!color_choice_from(
            Never,
            true,
            env(&[("CLICOLOR_FORCE", "1")])
        ));
    }

    fn plain(report: &RunReport) -> String {
        render(
            report,
            &ConsoleOptions {
                color: false,
                width: 80,
            },
        )
    }

    #[test]
    fn snapshots() {
        fixtures::snapshot_settings().bind(|| {
            for (name, report) in fixtures::all() {
                insta::assert_snapshot!(format!("console_{name}"), plain(&report));
            }
        });
    }

    #[test]
    fn colour_snapshot() {
        let out = render(
            &fixtures::failing(),
            &ConsoleOptions {
                color: true,
                width: 100,
            },
        );
        assert!(out.contains("\x1b[1;31mFAILED\x1b[0m"));
        fixtures::snapshot_settings().bind(|| {
            insta::assert_snapshot!("console_failing_color", out);
        });
    }

    #[test]
    fn no_escape_reaches_the_terminal_without_colour() {
        for (name, report) in fixtures::all() {
            let out = plain(&report);
            assert!(!out.contains('\x1b'), "{name}: escape in output");
            assert!(
                !out.chars().any(|c| c.is_control() && c != '\n'),
                "{name}: control character in output"
            );
        }
    }

    #[test]
    fn lines_fit_the_width_outside_gutters() {
        use unicode_width::UnicodeWidthStr;
        for width in [40, 60, 80, 120] {
            let opts = ConsoleOptions {
                color: false,
                width,
            };
            let out = render(&fixtures::failing(), &opts);
            for line in out.lines().filter(|l| l.starts_with(['┌', '│', '├', '└'])) {
                assert!(line.width() <= width, "{width}: {line:?}");
            }
        }
    }

    #[test]
    fn skipped_and_errored_phases_never_look_passed() {
        let out = plain(&fixtures::unreachable());
        assert!(out.contains("Static checks: ERROR - the server could not be reached"));
        assert!(out.contains("Tests: ERROR - the server could not be reached"));
        assert!(out.contains("Bench: SKIP - no bench section in toolproof.yaml"));
        assert!(!out.contains("PASS"));
        let last = out.lines().last().unwrap_or_default();
        assert!(last.starts_with("FAILED  |  checks: error  |  tests: error  |  evals: error"));
    }

    #[test]
    fn hostile_text_cannot_become_a_workflow_command() {
        let out = plain(&fixtures::hostile());
        for line in out.lines() {
            assert!(!line.trim_start().starts_with("::"), "{line:?}");
            assert!(!line.contains("##["), "{line:?}");
        }
    }

    #[test]
    fn secrets_are_redacted() {
        let out = plain(&fixtures::hostile());
        assert!(!out.contains("sk-live-123456"));
        assert!(out.contains("token=***"));
    }

    #[test]
    fn summary_counts() {
        let out = plain(&fixtures::failing());
        let last = out.lines().last().unwrap_or_default();
        assert_eq!(
            last,
            "FAILED  |  checks: 4 errors, 3 warnings  |  tests: 1 passed, 2 failed, 1 error, 1 not run  |  evals: error  |  2.76s"
        );
        let ok = plain(&fixtures::all_passed());
        assert!(ok.ends_with("PASSED  |  checks: 0 errors, 0 warnings  |  tests: 3 passed (1 flaky), 0 failed  |  2.76s\n"));
    }
}
