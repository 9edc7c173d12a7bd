//! GitHub Actions annotations: workflow commands (`::error …::message`) printed to stdout when
//! `GITHUB_ACTIONS=true`. At most [`MAX_PER_SEVERITY`] errors and as many warnings (GitHub
//! shows no more per step), then one notice counting the rest.
//!
//! Most important first, so the cap never hides why the run failed: the server, phases that
//! could not run, each model's eval gates and its critical misses; then the YAML tests; then
//! the other eval misses and provider errors; then the static-check findings.
//!
//! Every annotation about the config points at it by its path from the repository root
//! ([`Places`]; GitHub attaches nothing to `../x/toolproof.yaml` or an absolute path): a test at
//! its entry, an eval case at its entry (in `cases_file` when it came from there), the eval gates
//! at the `evals:` key, and the static-check findings at the `checks:` key, or at the file
//! without a line when the config has no `checks:` section (a finding is about a tool the server
//! sent, which has no line in the YAML).
//!
//! Escaping follows actions/toolkit: message data `%`→`%25`, `\r`→`%0D`, `\n`→`%0A`; property
//! values additionally `:`→`%3A`, `,`→`%2C`. So every annotation stays on one line and
//! untrusted text can never end a property or start a command of its own.

use super::escape::{clean, plural, truncate_chars};
use super::evals_view::{EvalsView, ModelView};
use super::model::{CaseStatus, PhaseStatus, RunReport, TestStatus};
use super::places::Places;

/// Most annotations per severity; GitHub drops the rest silently.
pub const MAX_PER_SEVERITY: usize = 10;

/// Longest annotation message, in characters.
const MESSAGE_CHARS: usize = 4000;
/// Longest property value (title, file), in characters.
const PROPERTY_CHARS: usize = 200;

/// How early an annotation is printed; the cap keeps the first ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// Why the run failed as a whole: the server, a phase that could not run, an eval gate,
    /// a critical miss, a rising miss rate.
    Verdict,
    /// A YAML test that failed or was flaky.
    Test,
    /// An eval case that missed (not critical) or got no usable answer.
    Case,
    /// A static-check finding.
    Finding,
}

struct Annotation {
    rank: Rank,
    file: Option<String>,
    line: Option<u32>,
    title: String,
    message: String,
}

impl Annotation {
    fn new(rank: Rank, title: impl Into<String>, message: impl Into<String>) -> Self {
        Annotation {
            rank,
            file: None,
            line: None,
            title: title.into(),
            message: message.into(),
        }
    }

    /// The same annotation pointing at `file`, line `line`.
    fn at(mut self, file: Option<&str>, line: Option<u32>) -> Self {
        self.file = file.map(str::to_owned);
        self.line = line.filter(|_| file.is_some());
        self
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

/// Errors and warnings, in the order found; printed by rank.
#[derive(Default)]
struct Found {
    errors: Vec<Annotation>,
    warnings: Vec<Annotation>,
}

impl Found {
    /// The error list, or the warning list when `warning`.
    fn list(&mut self, warning: bool) -> &mut Vec<Annotation> {
        if warning {
            &mut self.warnings
        } else {
            &mut self.errors
        }
    }
}

/// The workflow commands for `report`, files as the report names them, secrets redacted, one
/// per line.
pub fn render(report: &RunReport) -> String {
    render_with(report, &Places::default())
}

/// The workflow commands for `report`, files as `places` knows them in the repository,
/// secrets redacted, one per line.
pub fn render_with(report: &RunReport, places: &Places) -> String {
    let places = &places.redacted(&report.secrets);
    let report = report.redacted();
    let r = &*report;
    let config = r.config_file.as_deref().map(|f| places.file(f));
    let mut found = Found::default();

    if let Some(err) = &r.error {
        found.errors.push(Annotation::new(
            Rank::Verdict,
            "toolproof: the server could not be used",
            &err.message,
        ));
    }
    finding_annotations(r, config, places.checks_line(), &mut found);
    test_annotations(r, config, &mut found);
    let evals_itemised = match EvalsView::of(&r.phases.evals) {
        Some(view) => eval_annotations(&view, config, places, &mut found),
        None => false,
    };
    phase_annotations(r, evals_itemised, &mut found);

    // Stable: within a rank, the order found.
    found.errors.sort_by_key(|a| a.rank);
    found.warnings.sort_by_key(|a| a.rank);
    let mut out = String::new();
    for a in found.errors.iter().take(MAX_PER_SEVERITY) {
        out.push_str(&a.command("error"));
    }
    for a in found.warnings.iter().take(MAX_PER_SEVERITY) {
        out.push_str(&a.command("warning"));
    }
    let more_errors = found.errors.len().saturating_sub(MAX_PER_SEVERITY);
    let more_warnings = found.warnings.len().saturating_sub(MAX_PER_SEVERITY);
    if more_errors + more_warnings > 0 {
        let message = format!(
            "{more_errors} more error{} and {more_warnings} more warning{} are not annotated (GitHub shows {MAX_PER_SEVERITY} of each per step): see the job summary, the JUnit report or the JSON report",
            plural(more_errors),
            plural(more_warnings),
        );
        out.push_str(&Annotation::new(Rank::Verdict, "toolproof", message).command("notice"));
    }
    out
}

/// A phase that failed or could not run and whose items say nothing about it: one error.
/// Phases that errored because the server could not be used add nothing to the connection
/// error.
fn phase_annotations(r: &RunReport, evals_itemised: bool, found: &mut Found) {
    for (i, phase) in r.phases.overview().iter().enumerate() {
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
            found.errors.push(Annotation::new(
                Rank::Verdict,
                format!("toolproof {}", phase.key),
                phase.reason.unwrap_or(fallback),
            ));
        }
    }
}

/// One annotation per static-check finding, at the `checks:` key of the config.
fn finding_annotations(
    r: &RunReport,
    config: Option<&str>,
    checks_line: Option<u32>,
    found: &mut Found,
) {
    for f in &r.phases.checks.results.findings {
        let a = Annotation::new(
            Rank::Finding,
            format!("toolproof {}", f.check),
            format!("{}: {}", f.tool, f.text()),
        );
        found.list(!f.fails).push(a.at(config, checks_line));
    }
}

/// One annotation per failed or flaky YAML test, at its entry in the config.
fn test_annotations(r: &RunReport, config: Option<&str>, found: &mut Found) {
    for t in &r.phases.tests.results {
        let (warning, message) = match t.status {
            TestStatus::Failed | TestStatus::Error => {
                let mut m = if t.failures.is_empty() {
                    "failed".to_string()
                } else {
                    t.failures.join("\n")
                };
                if t.attempts > 1 {
                    m.push_str(&format!("\n(after {} attempts)", t.attempts));
                }
                (false, m)
            }
            TestStatus::Flaky => (true, format!("flaky: passed on attempt {}", t.attempts)),
            TestStatus::Passed | TestStatus::NotRun => continue,
        };
        let a = Annotation::new(
            Rank::Test,
            format!("toolproof test {}", t.name),
            format!("{} (tool {})", message, t.tool),
        );
        found.list(warning).push(a.at(config, t.line));
    }
}

/// The evals' annotations, per model: the provider error or the failed gates (at the `evals:`
/// key), one per miss at the case's entry (critical misses rank with the gates), then the
/// provider errors in one. A model that passed its gates gives warnings only. The trend's
/// warnings are warnings. Returns whether a model failed (so the phase needs no annotation
/// of its own).
fn eval_annotations(
    view: &EvalsView<'_>,
    config: Option<&str>,
    places: &Places,
    found: &mut Found,
) -> bool {
    let gates_at = |a: Annotation| a.at(config, places.evals_line());
    for m in &view.models {
        let suffix = if view.several {
            format!(" ({})", m.model)
        } else {
            String::new()
        };
        let list = found.list(!m.outcome.fails());
        if let Some(error) = m.error {
            list.push(gates_at(Annotation::new(
                Rank::Verdict,
                format!("toolproof evals{suffix}: the provider could not be used"),
                format!("{error}\n{}", m.not_scored.as_deref().unwrap_or_default()),
            )));
            continue;
        }
        if !m.failed_gates.is_empty() {
            let mut lines: Vec<&str> = m.failed_gates.iter().map(|g| g.detail.as_str()).collect();
            if m.uncached.is_some() {
                lines.push(&view.offline_hint);
            }
            list.push(gates_at(Annotation::new(
                Rank::Verdict,
                format!("toolproof evals{suffix}"),
                lines.join("\n"),
            )));
        }
        miss_annotations(m, &suffix, config, places, list);
        let broken: Vec<_> = m.rows_with(CaseStatus::ProviderError).collect();
        if let Some(first) = broken.first() {
            let names: Vec<&str> = broken.iter().map(|r| r.name).collect();
            list.push(gates_at(Annotation::new(
                Rank::Case,
                format!("toolproof evals{suffix}: provider errors"),
                format!(
                    "{} case{} got no usable answer from the provider after retries (not counted as model misses): {}\nfirst: {}",
                    broken.len(),
                    plural(broken.len()),
                    names.join(", "),
                    first.message
                ),
            )));
        }
    }
    for w in view.history.iter().flat_map(|h| &h.warnings) {
        let a = Annotation::new(Rank::Verdict, "toolproof eval miss rate", w.as_str());
        found.warnings.push(gates_at(a));
    }
    !view.passing
}

/// One annotation per miss of `m`, critical ones first, at the case's entry.
fn miss_annotations(
    m: &ModelView<'_>,
    suffix: &str,
    config: Option<&str>,
    places: &Places,
    list: &mut Vec<Annotation>,
) {
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
        let rank = if row.critical {
            Rank::Verdict
        } else {
            Rank::Case
        };
        let file = row.file.map(|f| places.file(f)).or(config);
        let a = Annotation::new(
            rank,
            format!("toolproof eval {}{suffix}", row.name),
            message,
        );
        list.push(a.at(file, row.line));
    }
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
        report.config_file = None;
        report.phases.tests.results.retain(|t| t.attempts == 1);
        report.phases.checks.results.findings.push(Finding {
            tool: "::error::".into(),
            tool_index: None,
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
            tool_index: Some(i),
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
        assert!(evals[0].starts_with("::error file=toolproof.yaml,title=toolproof evals::accuracy 30%25 (3/10) is below the minimum 90%25%0A1 critical case missed"), "{out}");
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
            "::error file=toolproof.yaml,title=toolproof evals%3A provider errors::1 case got no usable answer"
        ));
        assert!(out.contains(
            "::warning file=toolproof.yaml,title=toolproof eval miss rate::the miss rate is rising: 2%25 → 70%25"
        ));
        // The gates say why the phase failed: no extra phase-level annotation.
        assert!(!out.contains("title=toolproof evals::failed"));
    }

    #[test]
    fn provider_abort_is_one_error_and_no_case() {
        let out = render(&fixtures::evals_abort());
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error")).collect();
        assert_eq!(errors.len(), 1, "{out}");
        assert!(errors[0].starts_with("::error file=toolproof.yaml,title=toolproof evals%3A the provider could not be used::the provider rejected the request: 401"), "{out}");
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

    /// The report of a run where everything goes wrong at once: 25 failing findings, the failing
    /// tests, and evals that fail their gates with a critical miss.
    fn crowded() -> RunReport {
        let mut report = fixtures::failing();
        report.error = None;
        report.phases.evals = fixtures::evals_failing().phases.evals;
        report.phases.checks.results.findings = (0..25)
            .map(|i| {
                fixtures::tool_finding(
                    i,
                    &format!("t{i}"),
                    "description",
                    Severity::Error,
                    "no description",
                )
            })
            .collect();
        report
    }

    #[test]
    fn gates_and_critical_misses_come_first_then_tests_then_findings() {
        let out = render(&crowded());
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
        assert_eq!(errors.len(), MAX_PER_SEVERITY, "{out}");
        assert!(
            errors[0].contains("title=toolproof evals::accuracy 30%25"),
            "{out}"
        );
        assert!(
            errors[1].contains("title=toolproof eval ord-refund::"),
            "{out}"
        );
        assert!(errors[1].contains("[critical: must be right on every trial]"));
        // The three failed tests come next, in YAML order, then the other misses.
        assert!(
            errors[2].contains("title=toolproof test wrong expectation retried::"),
            "{out}"
        );
        assert!(errors[3].contains("title=toolproof test echo contains and regex::"));
        assert!(errors[4].contains("title=toolproof test echo crash kills the server::"));
        assert!(
            errors[5].contains("title=toolproof eval wx-past::"),
            "{out}"
        );
        // No finding made it: they are last, and counted in the notice.
        assert!(!out.contains("title=toolproof description::"), "{out}");
        let notice = out.lines().last().unwrap_or_default();
        assert!(
            notice.starts_with("::notice title=toolproof::2")
                && notice.contains(" more errors and "),
            "{notice}"
        );
    }

    #[test]
    fn findings_fill_what_the_rest_leaves() {
        let mut report = crowded();
        report.phases.evals = fixtures::all_passed().phases.evals;
        let out = render(&report);
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
        assert!(
            errors[..3]
                .iter()
                .all(|l| l.contains("title=toolproof test ")),
            "{out}"
        );
        assert!(
            errors[3..]
                .iter()
                .all(|l| l.contains("title=toolproof description::"))
        );
        assert!(errors[3].contains("::t0: no description"), "{out}");
    }

    #[test]
    fn files_are_the_repository_paths_settings_found() {
        let places = Places::new(
            vec![
                ("toolproof.yaml".into(), "ci/toolproof.yaml".into()),
                ("evals/cases.yaml".into(), "ci/evals/cases.yaml".into()),
            ],
            Some(5),
            Some(30),
        );
        let out = render_with(&crowded(), &places);
        for line in out.lines().filter(|l| !l.starts_with("::notice")) {
            assert!(line.contains(" file=ci/toolproof.yaml,line="), "{line}");
        }
        assert!(out.contains("::error file=ci/toolproof.yaml,line=30,title=toolproof evals::"));
        assert!(
            out.contains(
                "::error file=ci/toolproof.yaml,line=60,title=toolproof eval ord-refund::"
            )
        );
        assert!(out.contains("::error file=ci/toolproof.yaml,line=30,title=toolproof test wrong expectation retried::"));
        let mut report = fixtures::failing();
        report.error = None;
        let out = render_with(&report, &places);
        assert!(
            out.contains(
                "::error file=ci/toolproof.yaml,line=5,title=toolproof duplicate-name::add: "
            ),
            "{out}"
        );
        let within = render_with(&fixtures::evals_within_gates(), &places);
        assert!(
            within.starts_with("::warning file=ci/evals/cases.yaml,line=44,"),
            "{within}"
        );
        // Without a `checks:` key, a finding points at the file alone.
        let out = render_with(&report, &Places::new(places_paths(), None, None));
        assert!(
            out.contains("::error file=ci/toolproof.yaml,title=toolproof duplicate-name::"),
            "{out}"
        );
    }

    fn places_paths() -> Vec<(String, String)> {
        vec![("toolproof.yaml".into(), "ci/toolproof.yaml".into())]
    }

    #[test]
    fn file_properties_are_escaped() {
        let places = Places::new(
            vec![("toolproof.yaml".into(), "a,b:c%d/toolproof.yaml".into())],
            None,
            None,
        );
        let out = render_with(&fixtures::failing(), &places);
        assert!(
            out.contains("::error file=a%2Cb%3Ac%25d/toolproof.yaml,line=30,title="),
            "{out}"
        );
        for line in out.lines() {
            let (_, props, _) = parse(line).unwrap_or_default();
            assert!(
                props
                    .iter()
                    .all(|(k, _)| ["file", "line", "title"].contains(&k.as_str())),
                "{line}"
            );
        }
    }

    #[test]
    fn passing_run_without_warnings_prints_nothing() {
        let mut report = fixtures::all_passed();
        report.phases.tests.results.retain(|t| t.attempts == 1);
        assert_eq!(render(&report), "");
    }
}
