//! The human report printed at the end of a run: a header, one section per phase (a table when
//! there is something to show), the connection error with the server's stderr, non-protocol
//! stdout, and a one-line summary. Also decides whether colour is used.

mod bench;
mod evals;
mod fuzz;
mod lint;
mod phases;
mod protocol;
mod stress;
mod surface;

pub(crate) use stress::order_header;
pub(crate) use surface::status_word;

use unicode_width::UnicodeWidthStr;

use super::escape::{clean, defuse_workflow_commands, format_secs, head_and_tail_lines, plural};
use super::evals_view::EvalsView;
use super::stress_view::StressView;
use super::table::Paint;
use crate::outcome::{PhaseOverview, PhaseStatus, RunReport, TestCounts};

/// How the console report is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ConsoleOptions {
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
pub(crate) enum ColorFlag {
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

/// The console report of `report`, every line ending with `\n`.
pub(crate) fn render(report: &RunReport, opts: &ConsoleOptions) -> String {
    let report = report.redacted();
    let r = &*report;
    let color = opts.color;
    let width = opts.width.max(MIN_WIDTH);
    let mut out = String::new();

    header(&mut out, r, color, width);

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
        noise(&mut out, r, width, color);
    }

    let [checks, tests, evals, lint, stress, bench, fuzz, proto] = r.phases.overview();
    surface::section(&mut out, &r.phases, color);
    phases::checks_section(&mut out, &checks, &r.phases.checks.results, width, color);
    phases::tests_section(&mut out, &tests, &r.phases.tests.results, width, color);
    match EvalsView::of(&r.phases.evals) {
        Some(view) => evals::section(&mut out, &evals, &view, width, color),
        None => {
            let detail = evals.reason.map(|s| clean(s).into_owned());
            phase_line(&mut out, &evals, detail.as_deref(), color);
            out.push('\n');
        }
    }
    lint::section(
        &mut out,
        &lint,
        r.phases.lint.results.as_ref(),
        width,
        color,
    );
    stress::section(
        &mut out,
        &stress,
        StressView::of(&r.phases.stress).as_ref(),
        width,
        color,
    );
    bench::section(
        &mut out,
        &bench,
        r.phases.bench.results.as_ref(),
        width,
        color,
    );
    fuzz::section(
        &mut out,
        &fuzz,
        r.phases.fuzz.results.as_ref(),
        width,
        color,
    );
    protocol::section(
        &mut out,
        &proto,
        r.phases.protocol.results.as_ref(),
        width,
        color,
    );

    summary_line(&mut out, r, color, width);
    defuse_workflow_commands(&out).into_owned()
}

fn header(out: &mut String, r: &RunReport, color: bool, width: usize) {
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
    let mut title = clean(&title).replace('\n', " ");
    if let Some(s) = r.shard {
        title.push_str(&format!(" (shard {} of {})", s.index, s.count));
    }
    out.push_str(&Paint::Bold.paint(&format!("toolproof - {title}"), color));
    out.push('\n');
    if let Some(s) = &r.server {
        let target = clean(&format!("server: {}", r.target)).replace('\n', " ");
        let how = format!("({}, protocol {})", s.transport, s.protocol_version);
        let how = clean(&how);
        // What the server speaks goes under a target too long to share its line.
        let sep = if target.width() + 1 + how.width() <= width {
            " "
        } else {
            "\n        "
        };
        out.push_str(&format!("{target}{sep}{how}\n"));
    }
    out.push('\n');
}

/// `Title: MARK - detail` for a phase.
pub(super) fn phase_line(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    detail: Option<&str>,
    color: bool,
) {
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

/// `5 passed (1 flaky), 3 failed, 1 error, 2 not run`: passed and failed always, the rest when
/// there are any.
pub(super) fn test_counts_text(c: &TestCounts) -> String {
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

fn summary_line(out: &mut String, r: &RunReport, color: bool, width: usize) {
    use crate::outcome::Severity;
    let (verdict, paint) = match (&r.interrupted, r.passed) {
        (Some(signal), _) => (format!("INTERRUPTED ({signal})"), Paint::RedBold),
        (None, true) => ("PASSED".to_owned(), Paint::GreenBold),
        (None, false) => ("FAILED".to_owned(), Paint::RedBold),
    };
    let mut parts = vec![verdict.clone()];
    parts.extend(surface_part(r));
    let checks = &r.phases.checks;
    parts.push(if checks.ran() {
        let e = checks.results.count(Severity::Error);
        let w = checks.results.count(Severity::Warning);
        let i = checks.results.count(Severity::Info);
        let infos = if i > 0 {
            format!(", {i} info{}", plural(i))
        } else {
            String::new()
        };
        format!(
            "checks: {e} error{}, {w} warning{}{infos}",
            plural(e),
            plural(w)
        )
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
    match EvalsView::of(evals) {
        Some(view) => parts.push(format!(
            "evals: {}",
            clean(&view.summary).replace('\n', " ")
        )),
        None if evals.status != PhaseStatus::Skipped => {
            parts.push(format!("evals: {}", evals.status.as_str()));
        }
        None => {}
    }
    for phase in &r.phases.overview()[3..] {
        if let (Some(l), "lint") = (&r.phases.lint.results, phase.key)
            && phase.status != PhaseStatus::Error
        {
            let e = l.count(Severity::Error);
            let w = l.count(Severity::Warning);
            parts.push(format!(
                "lint: {e} error{}, {w} warning{}",
                plural(e),
                plural(w)
            ));
        } else if let (Some(b), "bench") = (&r.phases.bench.results, phase.key) {
            let passed = b.passed();
            parts.push(format!(
                "bench: {passed} passed, {} failed",
                b.targets.len() - passed
            ));
        } else if phase.key == "fuzz"
            && let Some(part) = fuzz::summary_part(phase, r.phases.fuzz.results.as_ref())
        {
            parts.push(part);
        } else if phase.key == "stress"
            && let Some(view) = StressView::of(&r.phases.stress)
        {
            parts.push(format!(
                "stress: {}",
                clean(&view.summary).replace('\n', " ")
            ));
        } else if phase.status != PhaseStatus::Skipped {
            parts.push(format!("{}: {}", phase.key, phase.status.as_str()));
        }
    }
    parts.push(format_secs(r.duration_ms));
    push_parts(out, parts, (&verdict, paint), color, width);
}

/// `surface: 2 breaking, 1 selection-affecting` when the run compared the server with its lock.
fn surface_part(r: &RunReport) -> Option<String> {
    let phase = r.phases.surface.as_ref()?;
    Some(match phase.status {
        PhaseStatus::Error | PhaseStatus::Skipped => format!("surface: {}", phase.status.as_str()),
        _ => format!("surface: {}", phase.results.counts_text()),
    })
}

/// The verdict's parts, as many a line as fit the width, the verdict first and painted; lines
/// after the first are indented.
fn push_parts(
    out: &mut String,
    parts: Vec<String>,
    (verdict, paint): (&str, Paint),
    color: bool,
    width: usize,
) {
    let mut lines = vec![String::new()];
    for part in parts {
        let line = lines.last_mut().expect("one line at least");
        if line.trim().is_empty() {
            line.push_str(&part);
        } else if line.width() + 5 + part.width() <= width {
            line.push_str("  |  ");
            line.push_str(&part);
        } else {
            lines.push(format!("   {part}"));
        }
    }
    for (i, line) in lines.iter().enumerate() {
        match line.strip_prefix(verdict).filter(|_| i == 0) {
            Some(rest) => {
                out.push_str(&paint.paint(verdict, color));
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
}

/// The warning about non-protocol lines on stdout, wrapped to `width`, and the lines, each
/// distinct line once with how many times it came (a server restarted 50 times by the fuzzer
/// prints its banner 50 times), each cut to the width.
fn noise(out: &mut String, r: &RunReport, width: usize, color: bool) {
    let n = r.noise_count();
    let head = format!(
        "the server printed {n} non-protocol line{} on stdout (strict MCP clients fail on \
         them):",
        plural(n)
    );
    for (i, line) in super::table::wrap(&head, width.saturating_sub(5))
        .iter()
        .enumerate()
    {
        if i == 0 {
            out.push_str(&Paint::Yellow.paint("WARN", color));
            out.push(' ');
        } else {
            out.push_str("     ");
        }
        out.push_str(line);
        out.push('\n');
    }
    let mut distinct: Vec<(&str, usize)> = Vec::new();
    for line in &r.stdout_noise {
        match distinct.iter_mut().find(|(l, _)| l == line) {
            Some((_, count)) => *count += 1,
            None => distinct.push((line, 1)),
        }
    }
    let mut shown = 0;
    for (line, count) in distinct.iter().take(NOISE_LINES) {
        shown += count;
        let suffix = if *count > 1 {
            format!("  (×{count})")
        } else {
            String::new()
        };
        let cleaned = clean(line);
        let first = cleaned.lines().next().unwrap_or("").trim_end();
        let room = width.saturating_sub(4 + suffix.width()).max(10);
        out.push_str("  │ ");
        out.push_str(&fit(first, room));
        out.push_str(&suffix);
        out.push('\n');
    }
    if n > shown {
        out.push_str(&format!("  … {} more\n", n - shown));
    }
    out.push('\n');
}

/// `text` cut to `width` display columns, with `…` when cut.
fn fit(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

/// Appends `text` (already cleaned), continuing lines after the first with `indent`.
pub(super) fn push_indented(out: &mut String, text: &str, indent: &str) {
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
/// toolproof's own lines, indentation kept; at most [`STDERR_LINES`] lines, the first and the
/// last ones ([`head_and_tail_lines`]).
pub(crate) fn push_gutter(out: &mut String, text: &str) {
    let cleaned = clean(text);
    for line in head_and_tail_lines(&cleaned, STDERR_LINES).lines() {
        out.push_str("  │ ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
}
