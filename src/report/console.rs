//! The human report printed at the end of a run: a header, one section per phase (a table when
//! there is something to show), the connection error with the server's stderr, non-protocol
//! stdout, and a one-line summary. Also decides whether colour is used.

use std::ffi::OsString;

use super::escape::{clean, defuse_workflow_commands, format_ms, format_secs, plural, tail_lines};
use super::eval_view::{ARGS_CHARS, CONFUSION_SHOWN, pct};
use super::model::{
    CaseStatus, ChecksResults, EvalsResults, ModelEval, PhaseOverview, PhaseStatus, RunReport,
    TestCounts, TestResult, TestStatus,
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
    evals_section(
        &mut out,
        &evals,
        r.phases.evals.results.as_ref(),
        width,
        color,
    );
    for phase in [bench, fuzz] {
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
                Cell::new(clean(&f.text())),
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

/// The evals phase: its line, then (when it produced results) a side-by-side table of the
/// models when there are several, and per model its cases and verdict lines.
fn evals_section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: Option<&EvalsResults>,
    width: usize,
    color: bool,
) {
    let Some(ev) = results.filter(|ev| !ev.models.is_empty()) else {
        let detail = phase.reason.map(|s| clean(s).into_owned());
        phase_line(out, phase, detail.as_deref(), color);
        out.push('\n');
        return;
    };
    let several = ev.models.len() > 1;
    let mut detail = match ev.models.as_slice() {
        [m] => m.verdict_text(),
        models => {
            let failed = models.iter().filter(|m| m.fails()).count();
            format!(
                "{} models, {} passed, {failed} failed",
                models.len(),
                models.len() - failed
            )
        }
    };
    match phase.reason {
        // The engine's verdict already says what the models say, and more.
        Some(reason) if reason.starts_with(&detail) => detail = reason.to_owned(),
        Some(reason) if !detail.starts_with(reason) => detail = format!("{reason}; {detail}"),
        _ => {}
    }
    phase_line(out, phase, Some(&clean(&detail)), color);

    if several {
        let mut table = Table::new(vec![
            Column::text("Model"),
            Column::fixed_right("Accuracy"),
            Column::text("Correct"),
            Column::text("Critical misses"),
            Column::text("Provider errors"),
            Column::fixed("Verdict"),
        ]);
        for m in &ev.models {
            let (accuracy, correct) = if m.error.is_some() {
                ("-".to_string(), "-".to_string())
            } else {
                (pct(m.accuracy), format!("{}/{}", m.correct, m.total))
            };
            let verdict = if m.error.is_some() {
                Cell::painted("ERROR", Paint::RedBold)
            } else if m.fails() {
                Cell::painted("FAIL", Paint::Red)
            } else {
                Cell::painted("PASS", Paint::Green)
            };
            table.row(vec![
                Cell::new(clean(&m.model)),
                Cell::new(accuracy),
                Cell::new(correct),
                Cell::new(clean(&m.critical_misses.join(", "))),
                Cell::new(m.count(CaseStatus::ProviderError).to_string()),
                verdict,
            ]);
        }
        out.push_str(&table.render(width, color));
        if let Some(line) = ev.left_out_line() {
            push_indented(out, &clean(&line), "  ");
        }
    }

    for m in &ev.models {
        out.push('\n');
        model_block(out, ev, m, !several, width, color);
    }

    out.push_str(&clean(&ev.cache_line()));
    out.push('\n');
    if let Some(history) = &ev.history {
        for line in history.lines(" ") {
            push_indented(out, &clean(&line), "  ");
        }
        let passing = ev.models.iter().all(|m| !m.fails());
        for warning in [history.rising_warning(passing), history.skipped_warning()]
            .into_iter()
            .flatten()
        {
            out.push_str(&Paint::Yellow.paint("WARN", color));
            out.push(' ');
            push_indented(out, &clean(&warning), "     ");
        }
    }
    out.push('\n');
}

/// One model: title, the provider error when it could not be used, the cases table, accuracy,
/// trials, failed gates, critical misses, provider errors, uncached cases, confusion pairs.
fn model_block(
    out: &mut String,
    ev: &EvalsResults,
    m: &ModelEval,
    with_left_out: bool,
    width: usize,
    color: bool,
) {
    out.push_str(&Paint::Bold.paint(&clean(&m.title(&ev.provider)).replace('\n', " "), color));
    out.push('\n');
    if let Some(error) = &m.error {
        out.push_str(&Paint::RedBold.paint("ERROR", color));
        out.push(' ');
        push_indented(
            out,
            &clean(&format!("the provider could not be used: {error}")),
            "      ",
        );
        out.push_str(&format!(
            "      no case was scored: {} case{} not run\n",
            m.cases.len(),
            plural(m.cases.len())
        ));
    }
    if m.cases.is_empty() {
        out.push_str("no cases\n");
    } else {
        let mut table = Table::new(vec![
            Column::fixed(""),
            Column::text("Case"),
            Column::text("Expected"),
            Column::text("Picked"),
            Column::text("Details"),
        ]);
        for case in &m.cases {
            let (mark, paint) = match m.row_status(case) {
                CaseStatus::Correct => ("PASS", Paint::Green),
                CaseStatus::Miss => ("MISS", Paint::Red),
                CaseStatus::ProviderError => ("ERROR", Paint::RedBold),
                CaseStatus::NotRun => ("SKIP", Paint::Dim),
            };
            let mut name = clean(&case.name).into_owned();
            if case.critical {
                name.push_str("\n(critical)");
            }
            table.row(vec![
                Cell::painted(mark, paint),
                Cell::new(name),
                Cell::new(clean(&case.expected_text(ARGS_CHARS))),
                Cell::new(clean(&case.picked_lines(ARGS_CHARS).join("\n"))),
                Cell::new(clean(&m.case_details(case, true).join("\n"))),
            ]);
        }
        out.push_str(&table.render(width, color));
    }
    if with_left_out && let Some(line) = ev.left_out_line() {
        push_indented(out, &clean(&line), "  ");
    }
    out.push_str(&m.accuracy_line());
    out.push('\n');
    if let Some(line) = m.trials_line() {
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(line) = m.counts_line().filter(|_| m.error.is_none()) {
        out.push_str(&line);
        out.push('\n');
    }
    for gate in m.gates_to_list() {
        out.push_str(&Paint::Red.paint("FAIL", color));
        push_indented(
            out,
            &clean(&format!(" {}: {}", gate.name, gate.detail)),
            "     ",
        );
    }
    if !m.critical_misses.is_empty() {
        out.push_str(&Paint::Red.paint("Critical misses", color));
        push_indented(
            out,
            &clean(&format!(
                " (must be right on every trial): {}",
                m.critical_misses.join(", ")
            )),
            "  ",
        );
    }
    if !m.uncached.is_empty() {
        push_indented(
            out,
            &clean(&format!(
                "Not in the cache (--offline): {}\n{}",
                m.uncached.join(", "),
                ev.offline_hint()
            )),
            "",
        );
    }
    if !m.confusion.is_empty() {
        out.push_str("Confusion (expected → picked):\n");
        for pair in m.confusion.iter().take(CONFUSION_SHOWN) {
            push_indented(out, &format!("  {}", clean(&pair.describe())), "    ");
        }
        if m.confusion.len() > CONFUSION_SHOWN {
            out.push_str(&format!(
                "  … {} more pair{}\n",
                m.confusion.len() - CONFUSION_SHOWN,
                plural(m.confusion.len() - CONFUSION_SHOWN)
            ));
        }
    }
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
    let evals = &r.phases.evals;
    match evals.results.as_ref().filter(|ev| !ev.models.is_empty()) {
        Some(ev) => parts.push(format!("evals: {}", evals_summary(ev))),
        None if evals.status != PhaseStatus::Skipped => {
            parts.push(format!("evals: {}", evals.status.as_str()));
        }
        None => {}
    }
    for phase in &r.phases.overview()[3..] {
        if phase.status != PhaseStatus::Skipped {
            parts.push(format!("{}: {}", phase.key, phase.status.as_str()));
        }
    }
    parts.push(format_secs(r.duration_ms));
    out.push_str(&parts.join("  |  "));
    out.push('\n');
}

/// `90% accuracy (9/10)`; with several models `m1 90% (9/10), m2 error`.
fn evals_summary(ev: &EvalsResults) -> String {
    let one = |m: &ModelEval, word: &str| match m.error {
        Some(_) => "error".to_string(),
        None => format!("{}{word} ({}/{})", pct(m.accuracy), m.correct, m.total),
    };
    match ev.models.as_slice() {
        [m] => one(m, " accuracy"),
        models => models
            .iter()
            .map(|m| format!("{} {}", clean(&m.model).replace('\n', " "), one(m, "")))
            .collect::<Vec<_>>()
            .join(", "),
    }
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
            for report in [
                fixtures::failing(),
                fixtures::evals_failing(),
                fixtures::evals_models(),
                fixtures::hostile(),
            ] {
                let out = render(&report, &opts);
                for line in out.lines().filter(|l| l.starts_with(['┌', '│', '├', '└'])) {
                    assert!(line.width() <= width, "{width}: {line:?}");
                }
            }
        }
    }

    /// The evals section of a console report rendered wide enough that no cell wraps.
    fn evals_part(report: &RunReport) -> String {
        let out = render(
            report,
            &ConsoleOptions {
                color: false,
                width: 400,
            },
        );
        let start = out.find("Evals:").unwrap_or(0);
        let end = out.find("Bench:").unwrap_or(out.len());
        out[start..end].to_string()
    }

    #[test]
    fn every_miss_shows_its_why_and_failed_gates_are_listed() {
        let report = fixtures::evals_failing();
        let out = evals_part(&report);
        let Some(ev) = report.phases.evals.results.as_ref() else {
            panic!("fixture without evals");
        };
        let m = &ev.models[0];
        assert_eq!(m.misses().len(), 6);
        for case in m.misses() {
            let why = case.why.as_deref().unwrap_or_default();
            assert!(out.contains(&format!("why: {why}")), "{}: {out}", case.name);
        }
        for line in [
            "Evals: FAIL - 30% accuracy (3/10), minimum 90%",
            "Tool-selection evals (anthropic / claude-haiku-4-5)",
            "Accuracy 30% (3/10), minimum 90%",
            "Trials: up to 3 per case, 12/28 correct (42.8%), Wilson 95% lower bound 26.5%, minimum 60%",
            "6 misses (1 critical), 1 provider error (no usable answer after retries; not a model miss)",
            "FAIL min_accuracy: accuracy 30% (3/10) is below the minimum 90%",
            "FAIL critical: 1 critical case missed: ord-refund",
            "Critical misses (must be right on every trial): ord-refund",
            "  start_refund → get_order ×3",
            "Cache: 3 cached, 25 asked, 1 unreadable cache file asked again",
            "Miss rate over the last 5 runs: 2% 2% 3% 4% 70% (rising)",
            "Left out (invalid input schema): search",
        ] {
            assert!(out.lines().any(|l| l == line), "missing {line:?} in\n{out}");
        }
        assert!(out.contains("WARN the miss rate is rising: 2% → 70% over the last 5 runs"));
        // Marks: a provider error is not a miss, and the critical row is tagged.
        assert!(out.contains("│ ERROR │ wx-tomorrow"), "{out}");
        assert!(out.contains("│ MISS  │ ord-refund         │"), "{out}");
        assert!(out.contains("│       │ (critical)         │"), "{out}");
        assert!(
            out.contains("│ start_refund {\"order_id\": \"55219\"}"),
            "{out}"
        );
        assert!(out.contains("(refused)") && out.contains("(cut off)"));
        assert!(out.contains("2/3 trials, ambiguous"));
    }

    #[test]
    fn provider_abort_is_shown_and_no_case_passes() {
        let out = evals_part(&fixtures::evals_abort());
        assert!(out.starts_with("Evals: ERROR - the provider could not be used: the provider rejected the request: 401"), "{out}");
        assert!(out.contains("ERROR the provider could not be used: the provider rejected the request: 401 Unauthorized"));
        assert!(out.contains("      hint: set OPENAI_API_KEY to a valid key"));
        assert!(!out.contains("PASS"), "{out}");
        assert_eq!(out.matches("│ SKIP │").count(), 3, "{out}");
        assert!(out.contains("not counted: the provider could not be used"));
        assert!(out.contains("Accuracy not measured"));
        let all = plain(&fixtures::evals_abort());
        assert!(
            all.lines()
                .last()
                .unwrap_or_default()
                .contains("|  evals: error  |")
        );
    }

    #[test]
    fn evals_without_results_keep_one_line() {
        let mut report = fixtures::all_passed();
        report.phases.evals =
            crate::report::model::Phase::skipped("no evals section in toolproof.yaml");
        let out = plain(&report);
        assert!(out.contains("\nEvals: SKIP - no evals section in toolproof.yaml\n\nBench:"));
        assert!(
            !out.contains("evals:"),
            "a skipped phase is left out of the summary"
        );
        assert!(plain(&fixtures::failing()).contains(
            "\nEvals: ERROR - the server could not be restarted after it exited\n\nBench:"
        ));
    }

    #[test]
    fn several_models_get_a_side_by_side_table_and_the_offline_hint() {
        let report = fixtures::evals_models();
        let out = evals_part(&report);
        assert!(
            out.starts_with("Evals: FAIL - 2 models, 1 passed, 1 failed\n┌"),
            "{out}"
        );
        assert!(out.contains("│ claude-sonnet-4-5 │     100% │ 3/3     │                 │ 0               │ PASS    │"), "{out}");
        assert!(
            out.contains("│ claude-haiku-4-5  │    33.3% │ 1/3     │"),
            "{out}"
        );
        assert!(
            out.contains("Not in the cache (--offline): chit\nhint: run once without --offline")
        );
        assert!(out.contains("Miss rate over the last 3 runs (claude-haiku-4-5): 0% 33.3% 66.6%"));
        let last = plain(&report)
            .lines()
            .last()
            .unwrap_or_default()
            .to_string();
        assert!(
            last.contains("evals: claude-sonnet-4-5 100% (3/3), claude-haiku-4-5 33.3% (1/3)"),
            "{last}"
        );
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
        assert!(ok.ends_with("PASSED  |  checks: 0 errors, 0 warnings  |  tests: 3 passed (1 flaky), 0 failed  |  evals: 100% accuracy (3/3)  |  2.76s\n"));
    }
}
