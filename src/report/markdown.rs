//! The Markdown job summary (GitHub-flavoured, appended to `$GITHUB_STEP_SUMMARY` or
//! `--summary`): verdict, server, one row per phase, then the static-check findings and the
//! failed tests in `<details>`, then the tool-selection evals per model (verdict, failed gates,
//! every miss with its `why`, confusion pairs, the miss-rate trend). Every untrusted string is escaped for Markdown and HTML, and the
//! whole text stays under [`SUMMARY_BUDGET`] bytes by cutting lists with a note.

use super::escape::{clean, format_secs, plural, tail_lines, truncate_chars};
use super::eval_view::{ARGS_CHARS, CONFUSION_SHOWN, pct};
use super::model::{
    CaseStatus, ChecksResults, EvalsResults, ModelEval, PhaseOverview, PhaseStatus, RunReport,
    TestCounts, TestStatus,
};

/// Largest summary in bytes. GitHub drops a step summary over 1 MiB entirely, and rejects some
/// slightly below that, so this leaves room.
pub const SUMMARY_BUDGET: usize = 900 * 1024;

/// Longest untrusted table cell, in characters.
const CELL_CHARS: usize = 300;
/// Longest connection error message, in characters.
const ERROR_CHARS: usize = 2000;
/// Most server stderr lines shown, and their longest total, in characters.
const STDERR_LINES: usize = 60;
const STDERR_CHARS: usize = 8000;
/// Bytes kept free for section headers, closing tags and "… more" notes.
const SECTION_OVERHEAD: usize = 1024;
/// Longest line of eval verdicts (gates, confusion pairs, trend), in characters.
const LINE_CHARS: usize = 2000;

/// The job summary of `report`, secrets redacted, at most [`SUMMARY_BUDGET`] bytes.
pub fn render(report: &RunReport) -> String {
    render_within(report, SUMMARY_BUDGET)
}

fn render_within(report: &RunReport, budget: usize) -> String {
    let report = report.redacted();
    let r = &*report;
    let mut out = String::new();

    let (icon, verdict) = if r.passed {
        ("✅", "passed")
    } else {
        ("❌", "failed")
    };
    out.push_str(&format!("## {icon} toolproof {verdict}\n\n"));
    out.push_str(&server_line(r));
    out.push_str("\n\n");

    if let Some(err) = &r.error {
        out.push_str("> [!CAUTION]\n> **The server could not be used:** ");
        out.push_str(&md(&err.message, ERROR_CHARS));
        out.push_str("\n\n");
        if let Some(stderr) = err.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
            out.push_str(&pre_details("Server stderr", stderr, false));
        }
    }
    if !r.stdout_noise.is_empty() {
        let n = r.stdout_noise.len();
        out.push_str(&format!(
            "> [!WARNING]\n> The server printed {n} non-protocol line{} on stdout; strict MCP clients fail on them. First: {}\n\n",
            plural(n),
            md(&r.stdout_noise[0], CELL_CHARS)
        ));
    }

    out.push_str("| Phase | Result |\n|---|---|\n");
    let [checks, tests, evals, bench, fuzz] = r.phases.overview();
    out.push_str(&phase_row(
        &checks,
        checks_result(&checks, &r.phases.checks.results),
    ));
    out.push_str(&phase_row(
        &tests,
        tests_result(&tests, &r.phases.tests.results),
    ));
    let eval_results = r
        .phases
        .evals
        .results
        .as_ref()
        .filter(|ev| !ev.models.is_empty());
    out.push_str(&match eval_results {
        Some(ev) => evals_row(&evals, ev),
        None => phase_row(&evals, None),
    });
    for phase in [bench, fuzz] {
        out.push_str(&phase_row(&phase, None));
    }
    out.push('\n');

    let findings = finding_rows(&r.phases.checks.results);
    let failed = failed_test_rows(r);
    let blocks = eval_results.map_or_else(Vec::new, eval_blocks);
    let fixed: usize = blocks.iter().map(|b| b.head.len() + b.tail.len()).sum();
    let mut lists = vec![&findings, &failed];
    lists.extend(blocks.iter().map(|b| &b.misses));
    let available = budget.saturating_sub(out.len() + fixed + lists.len() * SECTION_OVERHEAD);
    let allotments = share(
        &lists.iter().map(|l| l.bytes()).collect::<Vec<_>>(),
        available,
    );
    findings.render_into(&mut out, allotments[0]);
    failed.render_into(&mut out, allotments[1]);
    for (block, allotment) in blocks.iter().zip(&allotments[2..]) {
        out.push_str(&block.head);
        block.misses.render_into(&mut out, *allotment);
        out.push_str(&block.tail);
    }

    if out.len() > budget {
        // Only reachable with a budget smaller than the fixed parts; cut on a char boundary.
        let note = "\n\n… cut to fit the job summary (see the JSON/JUnit report)\n";
        let mut end = budget.saturating_sub(note.len());
        while end > 0 && !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push_str(note);
    }
    out
}

/// Splits `available` bytes between lists needing `needs` bytes: each gets what it needs when
/// that is below an equal share, the rest split what is left.
fn share(needs: &[usize], available: usize) -> Vec<usize> {
    let mut out = vec![0; needs.len()];
    let mut open: Vec<usize> = (0..needs.len()).collect();
    let mut left = available;
    while !open.is_empty() {
        let fair = left / open.len();
        let (small, big): (Vec<usize>, Vec<usize>) = open.iter().partition(|&&i| needs[i] <= fair);
        if small.is_empty() {
            for &i in &open {
                out[i] = fair;
            }
            break;
        }
        for &i in &small {
            out[i] = needs[i];
            left -= needs[i];
        }
        open = big;
    }
    out
}

/// A `<details>` section with a table whose rows may be cut.
struct List {
    summary: String,
    open: bool,
    header: &'static str,
    rows: Vec<String>,
}

impl List {
    fn bytes(&self) -> usize {
        self.rows.iter().map(String::len).sum()
    }

    fn render_into(&self, out: &mut String, allotment: usize) {
        if self.rows.is_empty() {
            return;
        }
        let open = if self.open { " open" } else { "" };
        out.push_str(&format!(
            "<details{open}><summary>{}</summary>\n\n{}",
            self.summary, self.header
        ));
        let mut used = 0;
        let mut shown = 0;
        for row in &self.rows {
            if used + row.len() > allotment {
                break;
            }
            out.push_str(row);
            used += row.len();
            shown += 1;
        }
        let more = self.rows.len() - shown;
        if more > 0 {
            out.push_str(&format!("\n… {more} more (see the JSON/JUnit report)\n"));
        }
        out.push_str("\n</details>\n\n");
    }
}

fn server_line(r: &RunReport) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &r.server {
        let name = s.name.as_deref().unwrap_or("unnamed server");
        let who = match s.version.as_deref() {
            Some(v) => format!("{name} {v}"),
            None => name.to_string(),
        };
        let who = md(&who, CELL_CHARS);
        if !who.is_empty() {
            parts.push(format!("**{who}**"));
        }
    }
    parts.push(md(&r.target, CELL_CHARS));
    if let Some(s) = &r.server {
        parts.push(format!(
            "{} · protocol {}",
            md(&s.transport, 40),
            md(&s.protocol_version, 40)
        ));
    }
    parts.push(format_secs(r.duration_ms));
    parts.join(" · ")
}

fn phase_row(phase: &PhaseOverview<'_>, ran: Option<String>) -> String {
    let reason = phase.reason.map(|s| md(s, CELL_CHARS));
    let result = match phase.status {
        PhaseStatus::Skipped => {
            format!("⏭️ skipped: {}", reason.unwrap_or_else(|| "not run".into()))
        }
        PhaseStatus::Error => format!("❌ {}", reason.unwrap_or_else(|| "could not run".into())),
        PhaseStatus::Passed | PhaseStatus::Failed => {
            let icon = if phase.status == PhaseStatus::Passed {
                "✅"
            } else {
                "❌"
            };
            let what = ran.unwrap_or_else(|| phase.status.as_str().to_string());
            match reason {
                Some(reason) => format!("{icon} {what}: {reason}"),
                None => format!("{icon} {what}"),
            }
        }
    };
    format!("| {} | {result} |\n", phase.title)
}

/// The Evals row of the phase table when the phase produced results.
fn evals_row(phase: &PhaseOverview<'_>, ev: &EvalsResults) -> String {
    let icon = |fails: bool| if fails { "❌" } else { "✅" };
    let what = match ev.models.as_slice() {
        [m] => md(&m.verdict_text(), CELL_CHARS),
        models => {
            let each: Vec<String> = models
                .iter()
                .map(|m| {
                    let result = match &m.error {
                        Some(_) => "provider error".to_string(),
                        None => format!("{} ({}/{})", pct(m.accuracy), m.correct, m.total),
                    };
                    format!("{} {} {result}", icon(m.fails()), md(&m.model, 100))
                })
                .collect();
            let failed = models.iter().filter(|m| m.fails()).count();
            format!(
                "{failed} of {} models failed: {}",
                models.len(),
                each.join(" · ")
            )
        }
    };
    let phase_icon = match phase.status {
        PhaseStatus::Passed => "✅",
        PhaseStatus::Skipped => "⏭️",
        PhaseStatus::Failed | PhaseStatus::Error => "❌",
    };
    match phase.reason.map(|s| md(s, CELL_CHARS)) {
        Some(reason) if !what.starts_with(&reason) => {
            format!("| {} | {phase_icon} {what}: {reason} |\n", phase.title)
        }
        _ => format!("| {} | {phase_icon} {what} |\n", phase.title),
    }
}

/// One model's part of the summary: fixed text before and after its misses table.
struct EvalBlock {
    head: String,
    misses: List,
    tail: String,
}

/// The evals sections: a side-by-side table when there are several models, then per model its
/// verdict, gates and misses; left-out tools, cache use and the trend after the last model.
fn eval_blocks(ev: &EvalsResults) -> Vec<EvalBlock> {
    let several = ev.models.len() > 1;
    let mut blocks: Vec<EvalBlock> = ev
        .models
        .iter()
        .map(|m| {
            let mut head = String::new();
            let title = if several {
                format!("#### {}\n\n", md(&m.model.replace('\n', " "), CELL_CHARS))
            } else {
                let title = m.title(&ev.provider).replace('\n', " ");
                format!("### {}\n\n", md(&title, CELL_CHARS))
            };
            head.push_str(&title);
            if let Some(error) = &m.error {
                head.push_str("> [!CAUTION]\n> **The provider could not be used:** ");
                head.push_str(&md(error, ERROR_CHARS));
                head.push_str(&format!(
                    "<br>No case was scored: {} case{} not run.\n\n",
                    m.cases.len(),
                    plural(m.cases.len())
                ));
            }
            let icon = if m.fails() { "❌" } else { "✅" };
            let mut lines = vec![format!("{icon} **{}**", md(&m.accuracy_line(), LINE_CHARS))];
            lines.extend(m.trials_line().map(|l| md(&l, LINE_CHARS)));
            lines.extend(
                m.counts_line()
                    .filter(|_| m.error.is_none())
                    .map(|l| md(&l, LINE_CHARS)),
            );
            head.push_str(&lines.join("<br>\n"));
            head.push_str("\n\n");
            let gates: Vec<String> = m
                .gates_to_list()
                .map(|g| format!("- ❌ {}: {}\n", md(&g.name, 80), md(&g.detail, LINE_CHARS)))
                .collect();
            if !gates.is_empty() {
                head.push_str(&gates.concat());
                head.push('\n');
            }
            let mut tail = String::new();
            if !m.uncached.is_empty() {
                tail.push_str(&format!(
                    "> [!IMPORTANT]\n> **Not in the cache (--offline):** {}<br>{}\n\n",
                    md(&m.uncached.join(", "), LINE_CHARS),
                    md(&ev.offline_hint(), LINE_CHARS)
                ));
            }
            if !m.confusion.is_empty() {
                let pairs: Vec<String> = m
                    .confusion
                    .iter()
                    .take(CONFUSION_SHOWN)
                    .map(|p| md(&p.describe(), CELL_CHARS))
                    .collect();
                tail.push_str(&format!(
                    "**Confusion pairs** (expected → picked): {}",
                    pairs.join(" · ")
                ));
                if m.confusion.len() > CONFUSION_SHOWN {
                    tail.push_str(&format!(
                        " · … {} more",
                        m.confusion.len() - CONFUSION_SHOWN
                    ));
                }
                tail.push_str("\n\n");
            }
            EvalBlock {
                head,
                misses: miss_rows(m),
                tail,
            }
        })
        .collect();

    if several && let Some(first) = blocks.first_mut() {
        let mut table = format!(
            "### {}\n\n| Model | Accuracy | Correct | Critical misses | Provider errors | Verdict |\n|---|---|---|---|---|---|\n",
            md(
                &format!("Tool-selection evals ({})", ev.provider),
                CELL_CHARS
            )
        );
        for m in &ev.models {
            let (accuracy, correct) = match m.error {
                Some(_) => ("–".to_string(), "–".to_string()),
                None => (pct(m.accuracy), format!("{}/{}", m.correct, m.total)),
            };
            let verdict = match (&m.error, m.fails()) {
                (Some(_), _) => "❌ provider error",
                (None, true) => "❌ failed",
                (None, false) => "✅ passed",
            };
            table.push_str(&format!(
                "| {} | {accuracy} | {correct} | {} | {} | {verdict} |\n",
                md(&m.model, CELL_CHARS),
                md(&m.critical_misses.join(", "), CELL_CHARS),
                m.count(CaseStatus::ProviderError)
            ));
        }
        table.push('\n');
        first.head.insert_str(0, &table);
    }

    let mut shared = Vec::new();
    shared.extend(ev.left_out_line());
    shared.push(ev.cache_line());
    let mut warnings = Vec::new();
    if let Some(h) = &ev.history {
        let one_model = h.by_model().len() == 1;
        for line in h.lines(" → ") {
            let mark = if h.rising && one_model { " ⚠️" } else { "" };
            shared.push(format!("{line}{mark}"));
        }
        let passing = ev.models.iter().all(|m| !m.fails());
        warnings.extend(h.rising_warning(passing));
        warnings.extend(h.skipped_warning());
    }
    if let Some(last) = blocks.last_mut() {
        for line in shared {
            last.tail
                .push_str(&format!("- {}\n", md(&line, LINE_CHARS)));
        }
        last.tail.push('\n');
        for w in warnings {
            last.tail
                .push_str(&format!("> [!WARNING]\n> {}\n\n", md(&w, LINE_CHARS)));
        }
    }
    blocks
}

/// The misses table of a model: every miss with its why (critical ones first), then the cases
/// that got no usable answer from the provider.
fn miss_rows(m: &ModelEval) -> List {
    let mut cases = m.misses();
    let critical = cases.iter().filter(|c| c.critical).count();
    let misses = cases.len();
    cases.extend(m.provider_error_cases());
    let rows: Vec<String> = cases
        .iter()
        .map(|c| {
            let (icon, name) = match (m.row_status(c), c.critical) {
                (CaseStatus::ProviderError, _) => ("⚠️", md(&c.name, CELL_CHARS)),
                (_, true) => ("🚨", format!("{} **(critical)**", md(&c.name, CELL_CHARS))),
                _ => ("❌", md(&c.name, CELL_CHARS)),
            };
            format!(
                "| {icon} | {name} | {} | {} | {} | {} |\n",
                md(&c.expected_text(ARGS_CHARS), CELL_CHARS),
                md(&c.picked_lines(ARGS_CHARS).join("\n"), CELL_CHARS * 2),
                md(c.why.as_deref().unwrap_or(""), CELL_CHARS),
                md(&m.case_details(c, false).join("\n"), CELL_CHARS * 2)
            )
        })
        .collect();
    let mut summary = format!("Misses ({misses}");
    if critical > 0 {
        summary.push_str(&format!(", {critical} critical"));
    }
    summary.push(')');
    if cases.len() > misses {
        let n = cases.len() - misses;
        summary.push_str(&format!(" and provider errors ({n})"));
    }
    if !m.fails() {
        summary.push_str(" within the gates");
    }
    List {
        summary,
        open: m.fails(),
        header: "| | Case | Expected | Picked | Why | Details |\n|---|---|---|---|---|---|\n",
        rows,
    }
}

fn checks_result(phase: &PhaseOverview<'_>, c: &ChecksResults) -> Option<String> {
    matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed).then(|| c.counts_text())
}

fn tests_result(phase: &PhaseOverview<'_>, tests: &[super::model::TestResult]) -> Option<String> {
    matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed)
        .then(|| TestCounts::of(tests).out_of_text())
}

fn finding_rows(c: &ChecksResults) -> List {
    use super::model::Severity;
    let rows = c
        .findings
        .iter()
        .map(|f| {
            let icon = if f.fails { "❌" } else { "⚠️" };
            format!(
                "| {icon} | {} | {} | {} |\n",
                md(&f.tool, CELL_CHARS),
                md(&f.check, 80),
                md(&f.text(), CELL_CHARS)
            )
        })
        .collect();
    let (e, w) = (c.count(Severity::Error), c.count(Severity::Warning));
    List {
        summary: format!(
            "Static-check findings: {e} error{}, {w} warning{}",
            plural(e),
            plural(w)
        ),
        open: c.findings.iter().any(|f| f.fails),
        header: "| | Tool | Check | Problem |\n|---|---|---|---|\n",
        rows,
    }
}

fn failed_test_rows(r: &RunReport) -> List {
    let tests = &r.phases.tests.results;
    let rows: Vec<String> = tests
        .iter()
        .filter(|t| {
            matches!(
                t.status,
                TestStatus::Failed | TestStatus::Error | TestStatus::NotRun
            )
        })
        .map(|t| {
            let icon = match t.status {
                TestStatus::NotRun => "⏭️",
                _ => "❌",
            };
            let place = match (r.config_file.as_deref(), t.line) {
                (Some(file), Some(line)) => md(&format!("{file}:{line}"), CELL_CHARS),
                (Some(file), None) => md(file, CELL_CHARS),
                _ => String::new(),
            };
            let mut failure = t.failures.join("\n");
            if t.attempts > 1 && t.status != TestStatus::NotRun {
                failure.push_str(&format!("\n(after {} attempts)", t.attempts));
            }
            format!(
                "| {icon} | {} | {} | {place} | {} |\n",
                md(&t.name, CELL_CHARS),
                md(&t.tool, CELL_CHARS),
                md(&failure, CELL_CHARS * 2)
            )
        })
        .collect();
    List {
        summary: format!("Failed tests ({})", rows.len()),
        open: true,
        header: "| | Test | Tool | Where | Failure |\n|---|---|---|---|---|\n",
        rows,
    }
}

/// A collapsed `<details>` block showing `text` in `<pre>`.
fn pre_details(title: &str, text: &str, open: bool) -> String {
    let tail = tail_lines(text, STDERR_LINES);
    let rough = truncate_chars(&tail, STDERR_CHARS.saturating_mul(4));
    let cleaned = clean(&rough);
    let shown = truncate_chars(&cleaned, STDERR_CHARS);
    let open = if open { " open" } else { "" };
    format!(
        "<details{open}><summary>{title}</summary>\n\n<pre>\n{}\n</pre>\n\n</details>\n\n",
        html(&shown)
    )
}

/// Escapes for HTML text: `&`, `<`, `>`; `@` gets a zero-width space so it cannot mention.
fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => out.push_str("@\u{200b}"),
            c => out.push(c),
        }
    }
    out
}

/// Untrusted text made safe for one Markdown table cell or inline run: control characters and
/// escapes removed, cut to `max_chars`, newlines as `<br>`, HTML special characters as entities,
/// Markdown punctuation (`|`, `` ` ``, `*`, `_`, `~`, `[`, `]`, `\`, `#`) backslash-escaped, and
/// `@` followed by a zero-width space so `@someone` never notifies anyone.
fn md(text: &str, max_chars: usize) -> String {
    // Cutting before cleaning keeps megabyte-long strings cheap; escapes only shrink text.
    let rough = truncate_chars(text, max_chars.saturating_mul(4));
    let cleaned = clean(&rough);
    let cut = truncate_chars(cleaned.trim(), max_chars);
    let mut out = String::with_capacity(cut.len() + 8);
    for c in cut.chars() {
        match c {
            '\n' => out.push_str("<br>"),
            '\t' => out.push(' '),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => out.push_str("@\u{200b}"),
            '|' | '`' | '*' | '_' | '~' | '[' | ']' | '\\' | '#' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;
    use crate::report::model::{Finding, Severity};

    #[test]
    fn snapshots() {
        fixtures::snapshot_settings().bind(|| {
            for (name, report) in fixtures::all() {
                insta::assert_snapshot!(format!("markdown_{name}"), render(&report));
            }
        });
    }

    #[test]
    fn cells_are_escaped() {
        assert_eq!(
            md("a|b\nc <x> & `y` [l](u) *s* @all \\", 100),
            "a\\|b<br>c &lt;x&gt; &amp; \\`y\\` \\[l\\](u) \\*s\\* @\u{200b}all \\\\"
        );
        assert_eq!(md("\x1b[31mred\x1b[0m", 100), "red");
        assert_eq!(md("abcdef", 4), "abc…");
    }

    #[test]
    fn hostile_report_has_no_live_markup() {
        let out = render(&fixtures::hostile());
        assert!(!out.contains("<script>"));
        assert!(!out.contains("<img"));
        assert!(!out.contains("@everyone"));
        assert!(out.contains("\\[click\\](https://evil.example)"));
        assert!(!out.contains("sk-live-123456"));
        assert!(!out.contains('\x1b'));
        // Every table row has exactly the columns of its header.
        for line in out.lines().filter(|l| l.starts_with("| ")) {
            let cells = line.replace("\\|", "").matches('|').count();
            assert!(
                cells == 3 || cells == 5 || cells == 6 || cells == 7,
                "{line}"
            );
        }
    }

    #[test]
    fn skipped_and_errored_phases_say_so() {
        let out = render(&fixtures::unreachable());
        assert!(out.contains("| Static checks | ❌ the server could not be reached |"));
        assert!(out.contains("| Bench | ⏭️ skipped: no bench section in toolproof.yaml |"));
        assert!(!out.contains('✅'));
    }

    #[test]
    fn fifty_thousand_findings_fit_the_budget() {
        let mut report = fixtures::failing();
        let finding = |i: usize| Finding {
            tool: format!("tool_{i}"),
            check: "description".into(),
            severity: Severity::Error,
            message: format!("tool number {i} has a description that says nothing useful at all"),
            hint: None,
            fails: true,
        };
        report.phases.checks.results.findings = (0..50_000).map(finding).collect();
        let out = render(&report);
        assert!(out.len() <= SUMMARY_BUDGET, "{} bytes", out.len());
        assert!(out.len() > SUMMARY_BUDGET / 2, "the budget should be used");
        assert!(out.contains(" more (see the JSON/JUnit report)"));
        // The failed tests still have their room.
        assert!(out.contains("wrong expectation retried"));
        assert!(out.ends_with("</details>\n\n"));
    }

    #[test]
    fn huge_strings_are_cut() {
        let mut report = fixtures::failing();
        let huge = "x".repeat(5_000_000);
        report.target = huge.clone();
        if let Some(e) = report.error.as_mut() {
            e.message = huge.clone();
            e.stderr = Some(format!("{huge}\n").repeat(3));
        }
        report.phases.evals.reason = Some(huge);
        let out = render(&report);
        assert!(out.len() < 64 * 1024, "{} bytes", out.len());
    }

    #[test]
    fn tiny_budget_still_bounded() {
        let out = render_within(&fixtures::failing(), 500);
        assert!(out.len() <= 500, "{}", out.len());
    }

    #[test]
    fn every_miss_is_listed_with_its_why() {
        let report = fixtures::evals_failing();
        let out = render(&report);
        let Some(ev) = report.phases.evals.results.as_ref() else {
            panic!("fixture without evals");
        };
        let m = &ev.models[0];
        for case in m.misses() {
            let why = md(case.why.as_deref().unwrap_or_default(), CELL_CHARS);
            let row = out
                .lines()
                .find(|l| {
                    l.contains(&format!(" {} ", md(&case.name, CELL_CHARS))) && l.starts_with("| ")
                })
                .unwrap_or_default();
            assert!(row.contains(&format!("| {why} |")), "{}: {row}", case.name);
        }
        assert!(out.contains("| Evals | ❌ 30% accuracy (3/10), minimum 90% |"));
        assert!(out.contains(
            "<details open><summary>Misses (6, 1 critical) and provider errors (1)</summary>"
        ));
        assert!(out.contains("| 🚨 | ord-refund **(critical)** | start\\_refund {\"order\\_id\": \"55219\"} | get\\_order"), "{out}");
        assert!(out.contains("- ❌ critical: 1 critical case missed: ord-refund\n"));
        assert!(out.contains(
            "**Confusion pairs** (expected → picked): start\\_refund → get\\_order ×3 · "
        ));
        assert!(
            out.contains("- Miss rate over the last 5 runs: 2% → 2% → 3% → 4% → 70% (rising) ⚠️\n")
        );
        assert!(
            out.contains("> [!WARNING]\n> the miss rate is rising: 2% → 70% over the last 5 runs")
        );
        assert!(out.contains("- Left out (invalid input schema): search\n"));
        assert!(out.contains("- Cache: 3 cached, 25 asked, 1 unreadable cache file asked again\n"));
    }

    #[test]
    fn provider_abort_is_a_caution_and_no_case_passes() {
        let out = render(&fixtures::evals_abort());
        assert!(out.contains("| Evals | ❌ the provider could not be used: the provider rejected the request: 401 Unauthorized: Incorrect API key provided |"), "{out}");
        assert!(out.contains("> [!CAUTION]\n> **The provider could not be used:** the provider rejected the request: 401 Unauthorized"));
        let evals = out
            .split("### Tool-selection evals")
            .nth(1)
            .unwrap_or_default();
        assert!(!evals.contains('✅'), "{evals}");
        assert!(evals.contains("❌ **Accuracy not measured"));
    }

    #[test]
    fn several_models_side_by_side() {
        let out = render(&fixtures::evals_models());
        assert!(out.contains("| Evals | ❌ 1 of 2 models failed: ✅ claude-sonnet-4-5 100% (3/3) · ❌ claude-haiku-4-5 33.3% (1/3) |"), "{out}");
        assert!(out.contains("| claude-haiku-4-5 | 33.3% | 1/3 |  | 0 | ❌ failed |"));
        assert!(out.contains("#### claude-haiku-4-5\n"));
        assert!(out.contains("> [!IMPORTANT]\n> **Not in the cache (--offline):** chit<br>hint: run once without --offline"));
        // Several models share one history: no line claims the rise for itself.
        assert!(!out.contains("⚠️\n- Miss rate"), "{out}");
        assert!(
            out.contains(
                "the miss rate is rising: claude-haiku-4-5 0% → 66.6% over the last 3 runs"
            )
        );
    }

    #[test]
    fn twenty_thousand_misses_fit_the_budget() {
        let mut report = fixtures::evals_failing();
        if let Some(ev) = report.phases.evals.results.as_mut() {
            let m = &mut ev.models[0];
            let miss = m.cases[2].clone();
            m.cases = (0..20_000)
                .map(|i| {
                    let mut c = miss.clone();
                    c.name = format!("case number {i} with a name long enough to matter");
                    c
                })
                .collect();
        }
        let out = render(&report);
        assert!(out.len() <= SUMMARY_BUDGET, "{} bytes", out.len());
        assert!(out.len() > SUMMARY_BUDGET / 2, "the budget should be used");
        assert!(out.contains(" more (see the JSON/JUnit report)"));
        assert!(
            out.contains("- Miss rate over the last 5 runs"),
            "the tail survives"
        );
    }

    #[test]
    fn sharing_gives_small_lists_what_they_need() {
        assert_eq!(share(&[10, 1000], 100), [10, 90]);
        assert_eq!(share(&[1000, 1000], 100), [50, 50]);
        assert_eq!(share(&[10, 20], 100), [10, 20]);
    }
}
