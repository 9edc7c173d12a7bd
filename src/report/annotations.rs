//! GitHub Actions annotations: workflow commands (`::error …::message`) printed to stdout when
//! `GITHUB_ACTIONS=true`. At most [`MAX_PER_SEVERITY`] errors and as many warnings (GitHub
//! shows no more per step), most important first, then one notice counting the rest.
//!
//! Escaping follows actions/toolkit: message data `%`→`%25`, `\r`→`%0D`, `\n`→`%0A`; property
//! values additionally `:`→`%3A`, `,`→`%2C`. So every annotation stays on one line and
//! untrusted text can never end a property or start a command of its own.

use super::escape::{clean, plural, truncate_chars};
use super::evals_view::EvalsView;
use super::model::{CaseStatus, PhaseStatus, RunReport, TestStatus};

/// Most annotations per severity; GitHub drops the rest silently.
pub const MAX_PER_SEVERITY: usize = 10;

/// Longest annotation message, in characters.
const MESSAGE_CHARS: usize = 4000;
/// Longest property value (title, file), in characters.
const PROPERTY_CHARS: usize = 200;

struct Annotation {
    file: Option<String>,
    line: Option<u32>,
    title: String,
    message: String,
}

impl Annotation {
    fn new(title: impl Into<String>, message: impl Into<String>) -> Self {
        Annotation {
            file: None,
            line: None,
            title: title.into(),
            message: message.into(),
        }
    }

    fn command(&self, kind: &str) -> String {
        let mut props = Vec::new();
        if let Some(file) = &self.file {
            props.push(format!("file={}", property(file)));
            if let Some(line) = self.line {
                props.push(format!("line={line}"));
            }
        }
        props.push(format!("title={}", property(&self.title)));
        format!("::{kind} {}::{}\n", props.join(","), data(&self.message))
    }
}

/// The workflow commands for `report`, secrets redacted, one per line.
pub fn render(report: &RunReport) -> String {
    let report = report.redacted();
    let r = &*report;
    let mut errors = Vec::new();
    let mut warnings = Vec::new();

    if let Some(err) = &r.error {
        errors.push(Annotation::new(
            "toolproof: the server could not be used",
            &err.message,
        ));
    }
    check_and_test_annotations(r, &mut errors, &mut warnings);
    let evals_itemised = match EvalsView::of(&r.phases.evals) {
        Some(view) => eval_annotations(&view, r.config_file.as_deref(), &mut errors, &mut warnings),
        None => false,
    };
    for (i, phase) in r.phases.overview().iter().enumerate() {
        // Checks, tests and evals failures are annotated item by item above; phases that
        // errored because the server could not be used add nothing to the connection error.
        let itemised = match i {
            0 | 1 => phase.status == PhaseStatus::Failed,
            2 => evals_itemised,
            _ => false,
        };
        let consequence = phase.status == PhaseStatus::Error && r.error.is_some();
        if !consequence
            && !itemised
            && matches!(phase.status, PhaseStatus::Error | PhaseStatus::Failed)
        {
            let fallback = if phase.status == PhaseStatus::Error {
                "could not run"
            } else {
                "failed"
            };
            errors.push(Annotation::new(
                format!("toolproof {}", phase.key),
                phase.reason.unwrap_or(fallback),
            ));
        }
    }

    let mut out = String::new();
    for a in errors.iter().take(MAX_PER_SEVERITY) {
        out.push_str(&a.command("error"));
    }
    for a in warnings.iter().take(MAX_PER_SEVERITY) {
        out.push_str(&a.command("warning"));
    }
    let more_errors = errors.len().saturating_sub(MAX_PER_SEVERITY);
    let more_warnings = warnings.len().saturating_sub(MAX_PER_SEVERITY);
    if more_errors + more_warnings > 0 {
        let message = format!(
            "{more_errors} more error{} and {more_warnings} more warning{} are not annotated (GitHub shows {MAX_PER_SEVERITY} of each per step): see the job summary, the JUnit report or the JSON report",
            plural(more_errors),
            plural(more_warnings),
        );
        out.push_str(&Annotation::new("toolproof", message).command("notice"));
    }
    out
}

/// One annotation per static-check finding, failed test and flaky test.
fn check_and_test_annotations(
    r: &RunReport,
    errors: &mut Vec<Annotation>,
    warnings: &mut Vec<Annotation>,
) {
    for f in &r.phases.checks.results.findings {
        let a = Annotation::new(
            format!("toolproof {}", f.check),
            format!("{}: {}", f.tool, f.text()),
        );
        if f.fails {
            errors.push(a);
        } else {
            warnings.push(a);
        }
    }
    for t in &r.phases.tests.results {
        let (list, message) = match t.status {
            TestStatus::Failed | TestStatus::Error => {
                let mut m = if t.failures.is_empty() {
                    "failed".to_string()
                } else {
                    t.failures.join("\n")
                };
                if t.attempts > 1 {
                    m.push_str(&format!("\n(after {} attempts)", t.attempts));
                }
                (&mut *errors, m)
            }
            TestStatus::Flaky => (
                &mut *warnings,
                format!("flaky: passed on attempt {}", t.attempts),
            ),
            TestStatus::Passed | TestStatus::NotRun => continue,
        };
        list.push(Annotation {
            file: r.config_file.clone(),
            line: t.line,
            title: format!("toolproof test {}", t.name),
            message: format!("{} (tool {})", message, t.tool),
        });
    }
}

/// The evals' annotations, per model: the provider error or the failed gates, then one per miss
/// (critical first) at the case's YAML line, then the provider errors in one. Misses of a model
/// that passed its gates are warnings. The trend's warnings are warnings. Returns whether a
/// model failed (so the phase needs no annotation of its own).
fn eval_annotations(
    view: &EvalsView<'_>,
    config_file: Option<&str>,
    errors: &mut Vec<Annotation>,
    warnings: &mut Vec<Annotation>,
) -> bool {
    for m in &view.models {
        let suffix = if view.several {
            format!(" ({})", m.model)
        } else {
            String::new()
        };
        let list = if m.outcome.fails() {
            &mut *errors
        } else {
            &mut *warnings
        };
        if let Some(error) = m.error {
            list.push(Annotation::new(
                format!("toolproof evals{suffix}: the provider could not be used"),
                format!("{error}\n{}", m.not_scored.as_deref().unwrap_or_default()),
            ));
            continue;
        }
        if !m.failed_gates.is_empty() {
            let mut lines: Vec<&str> = m.failed_gates.iter().map(|g| g.detail.as_str()).collect();
            if m.uncached.is_some() {
                lines.push(&view.offline_hint);
            }
            list.push(Annotation::new(
                format!("toolproof evals{suffix}"),
                lines.join("\n"),
            ));
        }
        for row in m.misses() {
            let mut message = row.message.clone();
            if let Some(why) = row.why {
                message.push_str(&format!(" (why: {why})"));
            }
            if row.critical {
                message.push_str(" [critical: must be right on every trial]");
            }
            if let Some(trials) = &row.trials_note {
                message.push_str(&format!(" [{trials}]"));
            }
            list.push(Annotation {
                file: row.file.or(config_file).map(str::to_owned),
                line: row.line,
                title: format!("toolproof eval {}{suffix}", row.name),
                message,
            });
        }
        let broken: Vec<_> = m.rows_with(CaseStatus::ProviderError).collect();
        if let Some(first) = broken.first() {
            let names: Vec<&str> = broken.iter().map(|r| r.name).collect();
            list.push(Annotation::new(
                format!("toolproof evals{suffix}: provider errors"),
                format!(
                    "{} case{} got no usable answer from the provider after retries (not counted as model misses): {}\nfirst: {}",
                    broken.len(),
                    plural(broken.len()),
                    names.join(", "),
                    first.message
                ),
            ));
        }
    }
    for w in view.history.iter().flat_map(|h| &h.warnings) {
        warnings.push(Annotation::new("toolproof eval miss rate", w.as_str()));
    }
    !view.passing
}

/// Escapes message data. `##[` also gets a zero-width space: the runner's legacy parser looks
/// for it anywhere in a line.
fn data(text: &str) -> String {
    let cleaned = clean(text).replace("##[", "##\u{200b}[");
    let cut = truncate_chars(&cleaned, MESSAGE_CHARS);
    let mut out = String::with_capacity(cut.len());
    for c in cut.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes a property value.
fn property(text: &str) -> String {
    let cleaned = clean(text).replace("##[", "##\u{200b}[");
    let cut = truncate_chars(&cleaned, PROPERTY_CHARS);
    let mut out = String::with_capacity(cut.len());
    for c in cut.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' => out.push_str("%3A"),
            ',' => out.push_str("%2C"),
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
                insta::assert_snapshot!(format!("annotations_{name}"), render(&report));
            }
        });
    }

    #[test]
    fn escaping_follows_the_toolkit() {
        assert_eq!(data("100% a\r\nb: c, d"), "100%25 a%0Ab: c, d");
        assert_eq!(property("a:b,c%\nd"), "a%3Ab%2Cc%25%0Ad");
    }

    /// Parses a workflow command line the way the runner does: after `::`, the command info
    /// runs to the next `::`, properties are split at `,` and `=`.
    type Parsed = (String, Vec<(String, String)>, String);

    fn parse(line: &str) -> Option<Parsed> {
        let rest = line.trim_start().strip_prefix("::")?;
        let end = rest.find("::")?;
        let (info, message) = (&rest[..end], &rest[end + 2..]);
        let (command, props) = info.split_once(' ').unwrap_or((info, ""));
        let props = props
            .split(',')
            .filter(|p| !p.is_empty())
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Some((command.to_string(), props, message.to_string()))
    }

    #[test]
    fn untrusted_text_cannot_inject_commands() {
        let out = render(&fixtures::hostile());
        for line in out.lines() {
            let (command, props, message) = parse(line).unwrap_or_default();
            assert!(
                ["error", "warning", "notice"].contains(&command.as_str()),
                "{line}"
            );
            for (key, _) in &props {
                assert!(["file", "line", "title"].contains(&key.as_str()), "{line}");
            }
            assert!(!message.contains('\n') && !message.contains('\r'));
            assert!(!line.contains('\x1b'));
        }
        // Each line of output is one annotation we made: the injected ones stayed data.
        assert_eq!(out.lines().count(), 9, "{out}");
        assert!(!out.contains("##[error]"));
        assert!(out.contains("%0A::set-output name=x::y"));
        assert!(out.contains("title=toolproof test ansi red test%2C with%3A comma::"));
        assert!(!out.contains("sk-live-123456"));
    }

    #[test]
    fn message_starting_with_colons_stays_data() {
        let mut report = fixtures::all_passed();
        report.passed = false;
        report.phases.tests.results.retain(|t| t.attempts == 1);
        report.phases.checks.results.findings.push(Finding {
            tool: "::error::".into(),
            check: "x::y".into(),
            severity: Severity::Error,
            message: "\n::set-output name=x::y".into(),
            hint: None,
            fails: true,
        });
        let out = render(&report);
        assert_eq!(
            out,
            "::error title=toolproof x%3A%3Ay::::error::: %0A::set-output name=x::y\n"
        );
        let (command, props, message) = parse(out.trim_end()).unwrap_or_default();
        assert_eq!(command, "error");
        assert_eq!(
            props,
            [("title".to_string(), "toolproof x%3A%3Ay".to_string())]
        );
        assert!(message.starts_with("::error:::"));
    }

    #[test]
    fn at_most_ten_per_severity_then_a_notice() {
        let mut report = fixtures::all_passed();
        report.passed = false;
        report.phases.tests.results.retain(|t| t.attempts == 1);
        let finding = |i: usize, severity| Finding {
            tool: format!("t{i}"),
            check: "description".into(),
            severity,
            message: "no description".into(),
            hint: None,
            fails: severity == Severity::Error,
        };
        report.phases.checks.results.findings = (0..25)
            .map(|i| finding(i, Severity::Error))
            .chain((0..12).map(|i| finding(i, Severity::Warning)))
            .collect();
        let out = render(&report);
        assert_eq!(
            out.lines().filter(|l| l.starts_with("::error ")).count(),
            10
        );
        assert_eq!(
            out.lines().filter(|l| l.starts_with("::warning ")).count(),
            10
        );
        let last = out.lines().last().unwrap_or_default();
        assert!(
            last.starts_with(
                "::notice title=toolproof::15 more errors and 2 more warnings are not annotated"
            ),
            "{last}"
        );
    }

    #[test]
    fn phase_errors_caused_by_the_server_are_not_repeated() {
        let out = render(&fixtures::unreachable());
        assert_eq!(out.lines().count(), 1, "{out}");
        let mut report = fixtures::all_passed();
        report.passed = false;
        report.phases.evals = crate::report::model::Phase::error("provider unusable: 401");
        assert!(
            render(&report).contains("::error title=toolproof evals::provider unusable: 401\n")
        );
    }

    #[test]
    fn tests_point_at_their_yaml_line() {
        let out = render(&fixtures::failing());
        assert!(out.contains(
            "::error file=toolproof.yaml,line=30,title=toolproof test wrong expectation retried::$.result: expected 3, got 2%0A(after 2 attempts) (tool add)\n"
        ), "{out}");
    }

    #[test]
    fn eval_misses_point_at_their_case_critical_first() {
        let out = render(&fixtures::evals_failing());
        let evals: Vec<&str> = out
            .lines()
            .filter(|l| l.contains("title=toolproof eval"))
            .collect();
        assert!(evals[0].starts_with("::error title=toolproof evals::accuracy 30%25 (3/10) is below the minimum 90%25%0A1 critical case missed"), "{out}");
        assert_eq!(
            evals[1],
            "::error file=toolproof.yaml,line=60,title=toolproof eval ord-refund::expected start_refund, got get_order (why: complaint, not a lookup) [critical: must be right on every trial] [0/3 trials]"
        );
        assert!(evals[2].starts_with("::error file=toolproof.yaml,line=52,title=toolproof eval wx-past::expected get_weather_history, got get_weather (why: past tense must not hit the live tool)"));
        assert_eq!(
            out.lines()
                .filter(|l| l.starts_with("::error file=toolproof.yaml,line="))
                .count(),
            6
        );
        assert!(out.contains(
            "::error title=toolproof evals%3A provider errors::1 case got no usable answer"
        ));
        assert!(out.contains(
            "::warning title=toolproof eval miss rate::the miss rate is rising: 2%25 → 70%25"
        ));
        // The gates say why the phase failed: no extra phase-level annotation.
        assert!(!out.contains("title=toolproof evals::failed"));
    }

    #[test]
    fn provider_abort_is_one_error_and_no_case() {
        let out = render(&fixtures::evals_abort());
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error")).collect();
        assert_eq!(errors.len(), 1, "{out}");
        assert!(errors[0].starts_with("::error title=toolproof evals%3A the provider could not be used::the provider rejected the request: 401"));
    }

    #[test]
    fn misses_within_the_gates_are_warnings_and_cases_files_are_used() {
        let out = render(&fixtures::evals_within_gates());
        assert_eq!(
            out,
            "::warning file=evals/cases.yaml,line=44,title=toolproof eval ord-status::expected get_order, got get_order: argument `order_id` is \"55291\", expected \"55219\" (why: order number in the text)\n"
        );
    }

    #[test]
    fn eval_misses_count_toward_the_cap() {
        let mut report = fixtures::evals_failing();
        if let Some(ev) = report.phases.evals.results.as_mut() {
            let m = &mut ev.models[0];
            let miss = m.cases[2].clone();
            m.cases = vec![miss; 30];
        }
        let out = render(&report);
        assert_eq!(
            out.lines().filter(|l| l.starts_with("::error ")).count(),
            10
        );
        assert!(
            out.lines()
                .last()
                .unwrap_or_default()
                .starts_with("::notice title=toolproof::21 more errors"),
            "{out}"
        );
    }

    #[test]
    fn passing_run_without_warnings_prints_nothing() {
        let mut report = fixtures::all_passed();
        report.phases.tests.results.retain(|t| t.attempts == 1);
        assert_eq!(render(&report), "");
    }
}
