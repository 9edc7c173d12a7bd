//! The JUnit XML report (quick-junit): one suite per phase in run order, preceded by a `server`
//! suite when the server could not be used. Skipped phases are skipped testcases, errored phases
//! `<error>` testcases; the XML fails exactly when the run fails.
//!
//! Layout, chosen for the common consumers (Jenkins, GitLab, dorny/test-reporter,
//! mikepenz/action-junit-report):
//! - classnames are fixed (`toolproof.checks`, `toolproof.tests`, …) and never contain a tool
//!   name, because Jenkins splits classnames at dots; the tool goes in a `tool` property;
//! - YAML tests carry `file` and `line` attributes pointing at their entry in the config;
//! - a flaky test is a success with a `flaky` property;
//! - evals get one suite per model (`evals`, or `evals (<model>)` with several): a testcase
//!   `accuracy` carrying the gates, then one testcase per case at its YAML line. A miss is a
//!   `<failure>` and a provider error an `<error>` when the model failed its gates; when the
//!   gates held despite misses, those cases are successes whose `<system-out>` starts with
//!   `MISS` (and an `outcome` property says so), so the XML never fails a passing run.

use std::collections::HashMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::escape::{clean, first_line, tail_lines, truncate_chars};
use super::eval_view::{CONFUSION_SHOWN, pct};
use super::model::{
    CaseStatus, ChecksResults, EvalCaseResult, EvalsResults, ModelEval, PhaseOverview, PhaseStatus,
    RunReport, TestResult, TestStatus,
};

/// Longest failure message attribute, in characters.
const MESSAGE_CHARS: usize = 1000;
/// Longest body text (failure details, result text), in characters.
const BODY_CHARS: usize = 20_000;
/// Most lines of server stderr kept per testcase.
const STDERR_LINES: usize = 200;

/// The JUnit XML report of `report`, secrets redacted, with a trailing newline.
pub fn render(report: &RunReport) -> String {
    let report = report.redacted();
    let r = &*report;
    let mut xml = Report::new("toolproof");
    xml.set_time(secs(r.duration_ms));
    let started = chrono::DateTime::parse_from_rfc3339(&r.started_at).ok();
    if let Some(t) = started {
        xml.set_timestamp(t);
    }
    let mut suites = Vec::new();

    if let Some(err) = &r.error {
        let mut suite = TestSuite::new("server");
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_message(message(&err.message))
            .set_type("server")
            .set_description(body(&err.message));
        let mut case = TestCase::new("connect", status);
        case.set_classname("toolproof.server");
        case.add_property(Property::new("target", one_line(&r.target)));
        if let Some(stderr) = err.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
            case.set_system_err(stderr_text(stderr));
        }
        suite.add_test_case(case);
        suites.push(suite);
    }

    let [checks, tests, evals, bench, fuzz] = r.phases.overview();
    suites.push(checks_suite(&checks, &r.phases.checks.results));
    suites.push(tests_suite(
        &tests,
        &r.phases.tests.results,
        r.config_file.as_deref(),
    ));
    suites.extend(evals_suites(
        &evals,
        r.phases.evals.results.as_ref(),
        r.config_file.as_deref(),
    ));
    for phase in [bench, fuzz] {
        let mut suite = TestSuite::new(phase.key);
        suite.set_time(secs(phase.duration_ms));
        suite.add_test_case(phase_case(&phase));
        suites.push(suite);
    }
    for mut suite in suites {
        if let Some(t) = started {
            suite.set_timestamp(t);
        }
        xml.add_test_suite(suite);
    }

    // The XML must not pass a run that failed, even when no phase explains why.
    if !r.passed && xml.failures + xml.errors == 0 {
        let mut suite = TestSuite::new("run");
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(format!("the run failed (exit code {})", r.exit_code));
        let mut case = TestCase::new("result", status);
        case.set_classname("toolproof.run");
        suite.add_test_case(case);
        xml.add_test_suite(suite);
    }

    match xml.to_string() {
        Ok(mut text) => {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
        // Writing XML into memory only fails on a quick-junit bug; still produce a failing,
        // well-formed report instead of panicking.
        Err(e) => format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"toolproof\" tests=\"1\" failures=\"0\" errors=\"1\"><testsuite name=\"run\" tests=\"1\" failures=\"0\" errors=\"1\"><testcase name=\"junit\" classname=\"toolproof.run\"><error message=\"cannot render the JUnit report: {}\"/></testcase></testsuite></testsuites>\n",
            xml_attr(&e.to_string())
        ),
    }
}

fn secs(ms: f64) -> Duration {
    Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::ZERO)
}

/// Cleaned, on one line.
fn one_line(text: &str) -> String {
    clean(text).replace('\n', " ")
}

/// A failure/error `message` attribute: the first line, cleaned and shortened.
fn message(text: &str) -> String {
    let cleaned = clean(text);
    truncate_chars(first_line(&cleaned), MESSAGE_CHARS).into_owned()
}

/// Element text: cleaned and shortened.
fn body(text: &str) -> String {
    truncate_chars(&clean(text), BODY_CHARS).into_owned()
}

fn stderr_text(text: &str) -> String {
    let cleaned = clean(text);
    body(&tail_lines(&cleaned, STDERR_LINES))
}

fn xml_attr(text: &str) -> String {
    one_line(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The one testcase standing for a whole phase that did not run normally (or whose results
/// have no JUnit shape yet).
fn phase_case(phase: &PhaseOverview<'_>) -> TestCase {
    let reason = phase.reason.map(|r| clean(r).into_owned());
    let status = match phase.status {
        PhaseStatus::Passed => TestCaseStatus::success(),
        PhaseStatus::Skipped => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(message(reason.as_deref().unwrap_or("skipped")));
            s
        }
        PhaseStatus::Failed | PhaseStatus::Error => {
            let (kind, fallback) = if phase.status == PhaseStatus::Failed {
                (NonSuccessKind::Failure, "failed")
            } else {
                (NonSuccessKind::Error, "could not run")
            };
            let text = reason.as_deref().unwrap_or(fallback);
            let mut s = TestCaseStatus::non_success(kind);
            s.set_message(message(text));
            if text.contains('\n') {
                s.set_description(body(text));
            }
            s
        }
    };
    let mut case = TestCase::new(phase.title.to_lowercase(), status);
    case.set_classname(format!("toolproof.{}", phase.key));
    if phase.status == PhaseStatus::Passed
        && let Some(reason) = reason
    {
        case.set_system_out(body(&reason));
    }
    case
}

/// Longest arguments JSON in a testcase body, in characters.
const ARGS_CHARS: usize = 300;

/// The evals suites: the phase's one testcase when it has no results, else one suite per model.
fn evals_suites(
    phase: &PhaseOverview<'_>,
    results: Option<&EvalsResults>,
    config_file: Option<&str>,
) -> Vec<TestSuite> {
    let Some(ev) = results.filter(|ev| !ev.models.is_empty()) else {
        let mut suite = TestSuite::new("evals");
        suite.set_time(secs(phase.duration_ms));
        suite.add_test_case(phase_case(phase));
        return vec![suite];
    };
    let several = ev.models.len() > 1;
    let mut suites: Vec<TestSuite> = ev
        .models
        .iter()
        .map(|m| {
            let name = if several {
                format!("evals ({})", one_line(&m.model))
            } else {
                "evals".to_string()
            };
            let mut suite = TestSuite::new(name);
            if !several {
                suite.set_time(secs(phase.duration_ms));
            }
            suite.add_property(Property::new("provider", one_line(&ev.provider)));
            suite.add_property(Property::new("model", one_line(&m.model)));
            suite.add_test_case(accuracy_case(ev, m));
            let mut seen: HashMap<String, usize> = HashMap::new();
            for case in &m.cases {
                let n = seen.entry(one_line(&case.name)).or_insert(0);
                *n += 1;
                suite.add_test_case(eval_case(m, case, *n, config_file));
            }
            suite
        })
        .collect();
    // The phase failed for a reason no model carries: say so rather than pass.
    if matches!(phase.status, PhaseStatus::Failed | PhaseStatus::Error)
        && !ev.models.iter().any(ModelEval::fails)
        && let Some(first) = suites.first_mut()
    {
        first.add_test_case(phase_case(phase));
    }
    suites
}

/// The testcase standing for a model's gates: an `<error>` when the provider could not be used,
/// a `<failure>` when a gate did not hold.
fn accuracy_case(ev: &EvalsResults, m: &ModelEval) -> TestCase {
    let gates: Vec<String> = m
        .gates
        .iter()
        .map(|g| {
            let mark = if g.passed { "PASS" } else { "FAIL" };
            format!("{mark} {}: {}", g.name, g.detail)
        })
        .collect();
    let status = if let Some(error) = &m.error {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
        s.set_message(message(&format!("the provider could not be used: {error}")))
            .set_type("provider")
            .set_description(body(&format!(
                "the provider could not be used: {error}\nno case was scored: {} case{} not run",
                m.cases.len(),
                super::escape::plural(m.cases.len())
            )));
        s
    } else if m.fails() {
        let first = m
            .failed_gates()
            .next()
            .map_or_else(|| "the evals failed".to_string(), |g| g.detail.clone());
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_message(message(&first))
            .set_type("eval-gate")
            .set_description(body(&gates.join("\n")));
        s
    } else {
        TestCaseStatus::success()
    };
    let mut case = TestCase::new("accuracy", status);
    case.set_classname("toolproof.evals");

    let accuracy = if m.error.is_some() {
        "n/a".to_string()
    } else {
        format!("{} ({}/{})", pct(m.accuracy), m.correct, m.total)
    };
    let mut out = vec![format!(
        "provider={} model={} accuracy={accuracy} minimum={}",
        one_line(&ev.provider),
        one_line(&m.model),
        pct(m.min_accuracy)
    )];
    out.extend(m.trials_line());
    out.extend(m.counts_line().filter(|_| m.error.is_none()));
    if !m.fails() {
        out.extend(gates.iter().cloned());
        let tolerated: Vec<&str> = m
            .cases
            .iter()
            .filter(|c| {
                matches!(
                    m.row_status(c),
                    CaseStatus::Miss | CaseStatus::ProviderError
                )
            })
            .map(|c| c.name.as_str())
            .collect();
        if !tolerated.is_empty() {
            out.push(format!("misses within the gates: {}", tolerated.join(", ")));
        }
    }
    if !m.critical_misses.is_empty() {
        out.push(format!("critical misses: {}", m.critical_misses.join(", ")));
    }
    if !m.uncached.is_empty() {
        out.push(format!(
            "not in the cache (--offline): {}\n{}",
            m.uncached.join(", "),
            ev.offline_hint()
        ));
    }
    if !m.confusion.is_empty() {
        let pairs: Vec<String> = m
            .confusion
            .iter()
            .take(CONFUSION_SHOWN)
            .map(|p| p.describe())
            .collect();
        out.push(format!("confusion: {}", pairs.join(", ")));
    }
    out.extend(ev.left_out_line());
    out.push(ev.cache_line());
    if let Some(history) = &ev.history {
        out.extend(history.lines(" "));
        out.extend(history.rising_warning(!m.fails()));
    }
    case.set_system_out(body(&out.join("\n")));
    case
}

/// One labelled case.
fn eval_case(
    m: &ModelEval,
    case: &EvalCaseResult,
    nth: usize,
    config_file: Option<&str>,
) -> TestCase {
    let row = m.row_status(case);
    let picked = case.picked_lines(ARGS_CHARS).join("\n");
    let mut text = vec![format!("prompt: {}", case.prompt)];
    text.push(format!("expected: {}", case.expected_text(ARGS_CHARS)));
    text.push(format!("picked: {picked}"));
    let details = m.case_details(case, true);
    let fails = m.fails();
    let status = match row {
        CaseStatus::Correct => TestCaseStatus::success(),
        CaseStatus::NotRun => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(message(&m.not_run_reason(case)));
            s
        }
        CaseStatus::Miss | CaseStatus::ProviderError if fails => {
            let (kind, ty) = if row == CaseStatus::Miss {
                (NonSuccessKind::Failure, "tool-selection")
            } else {
                (NonSuccessKind::Error, "provider")
            };
            let mut all = details.clone();
            all.extend(text.iter().cloned());
            let mut s = TestCaseStatus::non_success(kind);
            s.set_message(message(&m.miss_message(case)))
                .set_type(ty)
                .set_description(body(&all.join("\n")));
            s
        }
        CaseStatus::Miss | CaseStatus::ProviderError => TestCaseStatus::success(),
    };
    let name = if nth == 1 {
        one_line(&case.name)
    } else {
        format!("{} (#{nth})", one_line(&case.name))
    };
    let mut tc = TestCase::new(name, status);
    tc.set_classname("toolproof.evals");
    if let Some(file) = case.file.as_deref().or(config_file) {
        tc.extra.insert("file".into(), one_line(file).into());
        if let Some(line) = case.line {
            tc.extra.insert("line".into(), line.to_string().into());
        }
    }
    if row != CaseStatus::NotRun {
        let ms: f64 = case.trials.iter().map(|t| t.latency_ms).sum();
        tc.set_time(secs(ms));
    }
    if case.critical {
        tc.add_property(Property::new("critical", "true"));
    }
    if case.trials.len() > 1 {
        tc.add_property(Property::new("trials", case.trials.len().to_string()));
        tc.add_property(Property::new("pass_rate", format!("{:.4}", case.pass_rate)));
    }
    if case.ambiguous {
        tc.add_property(Property::new("ambiguous", "true"));
    }
    let tolerated = !fails && matches!(row, CaseStatus::Miss | CaseStatus::ProviderError);
    if tolerated {
        let outcome = if row == CaseStatus::Miss {
            "miss"
        } else {
            "provider_error"
        };
        tc.add_property(Property::new("outcome", outcome));
    }
    if let Some(why) = &case.why {
        tc.add_property(Property::new("why", one_line(why)));
    }
    match row {
        CaseStatus::Correct => {
            text.extend(details);
            tc.set_system_out(body(&text.join("\n")));
        }
        _ if tolerated => {
            let mut out = vec![format!(
                "MISS (within the gates: the model passed): {}",
                m.miss_message(case)
            )];
            out.extend(details);
            out.extend(text);
            tc.set_system_out(body(&out.join("\n")));
        }
        CaseStatus::NotRun => {
            if !case.trials.is_empty() {
                tc.set_system_out(body(&text.join("\n")));
            }
        }
        CaseStatus::Miss | CaseStatus::ProviderError => {}
    }
    tc
}

fn checks_suite(phase: &PhaseOverview<'_>, results: &ChecksResults) -> TestSuite {
    let mut suite = TestSuite::new("static checks");
    suite.set_time(secs(phase.duration_ms));
    if !matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed) {
        suite.add_test_case(phase_case(phase));
        return suite;
    }
    suite.add_property(Property::new("strict", results.strict.to_string()));
    if !results.disabled.is_empty() {
        suite.add_property(Property::new(
            "disabled",
            one_line(&results.disabled.join(",")),
        ));
    }

    // One testcase per tool in server order; a repeated name gets ` (#2)`, ` (#3)` so no tool
    // disappears into another, and an empty name is `<unnamed>` like in the findings. Findings
    // about something that is not a tool name (`*`, `a + b`) get a testcase of their own.
    let mut subjects: Vec<(String, String)> = Vec::new(); // (finding key, testcase name)
    let mut seen: HashMap<String, usize> = HashMap::new();
    for tool in &results.tools {
        let key = if tool.is_empty() {
            "<unnamed>".to_string()
        } else {
            tool.clone()
        };
        let n = seen.entry(key.clone()).or_insert(0);
        *n += 1;
        let name = if *n == 1 {
            one_line(&key)
        } else {
            format!("{} (#{n})", one_line(&key))
        };
        subjects.push((key, name));
    }
    for f in &results.findings {
        if !seen.contains_key(&f.tool) {
            seen.insert(f.tool.clone(), 1);
            subjects.push((f.tool.clone(), one_line(&f.tool)));
        }
    }

    let mut by_subject: HashMap<&str, Vec<&super::model::Finding>> = HashMap::new();
    for f in &results.findings {
        by_subject.entry(f.tool.as_str()).or_default().push(f);
    }
    for (key, name) in &subjects {
        let findings = by_subject.get(key.as_str()).map_or(&[][..], Vec::as_slice);
        let line =
            |f: &super::model::Finding| format!("[{}] {}", clean(&f.check), clean(&f.text()));
        let failing: Vec<String> = findings
            .iter()
            .filter(|f| f.fails)
            .map(|f| line(f))
            .collect();
        let other: Vec<String> = findings
            .iter()
            .filter(|f| !f.fails)
            .map(|f| format!("{}: {}", severity_word(f.severity), line(f)))
            .collect();
        let status = match failing.first() {
            None => TestCaseStatus::success(),
            Some(first) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(message(first))
                    .set_type("static-check")
                    .set_description(body(&failing.join("\n")));
                s
            }
        };
        let mut case = TestCase::new(name.as_str(), status);
        case.set_classname("toolproof.checks");
        if !other.is_empty() {
            case.set_system_out(body(&other.join("\n")));
        }
        suite.add_test_case(case);
    }
    suite
}

fn severity_word(s: super::model::Severity) -> &'static str {
    match s {
        super::model::Severity::Error => "error",
        super::model::Severity::Warning => "warning",
    }
}

fn tests_suite(
    phase: &PhaseOverview<'_>,
    results: &[TestResult],
    config_file: Option<&str>,
) -> TestSuite {
    let mut suite = TestSuite::new("tests");
    suite.set_time(secs(phase.duration_ms));
    if !matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed) {
        suite.add_test_case(phase_case(phase));
        return suite;
    }
    for t in results {
        suite.add_test_case(test_case(t, config_file));
    }
    suite
}

fn test_case(t: &TestResult, config_file: Option<&str>) -> TestCase {
    let failures: Vec<String> = t.failures.iter().map(|f| clean(f).into_owned()).collect();
    let mut details = failures.join("\n");
    if t.attempts > 1 && matches!(t.status, TestStatus::Failed | TestStatus::Error) {
        details.push_str(&format!("\n(after {} attempts)", t.attempts));
    }
    let status = match t.status {
        TestStatus::Passed | TestStatus::Flaky => TestCaseStatus::success(),
        TestStatus::NotRun => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(message(failures.first().map_or("not run", String::as_str)));
            s
        }
        TestStatus::Failed | TestStatus::Error => {
            let (kind, ty, fallback) = if t.status == TestStatus::Failed {
                (NonSuccessKind::Failure, "assertion", "failed")
            } else {
                (NonSuccessKind::Error, "no-result", "no result")
            };
            let mut s = TestCaseStatus::non_success(kind);
            s.set_message(message(failures.first().map_or(fallback, String::as_str)))
                .set_type(ty)
                .set_description(body(details.trim_start()));
            s
        }
    };
    let mut case = TestCase::new(one_line(&t.name), status);
    case.set_classname("toolproof.tests");
    if let Some(file) = config_file {
        case.extra.insert("file".into(), one_line(file).into());
        if let Some(line) = t.line {
            case.extra.insert("line".into(), line.to_string().into());
        }
    }
    if t.status != TestStatus::NotRun {
        case.set_time(secs(t.latency_ms));
    }
    case.add_property(Property::new("tool", one_line(&t.tool)));
    if t.attempts > 1 {
        case.add_property(Property::new("attempts", t.attempts.to_string()));
    }
    if t.status == TestStatus::Flaky {
        case.add_property(Property::new("flaky", "true"));
    }
    if !t.tags.is_empty() {
        case.add_property(Property::new("tags", one_line(&t.tags.join(","))));
    }
    if matches!(t.status, TestStatus::Failed | TestStatus::Error) {
        if let Some(text) = t.text.as_deref() {
            case.set_system_out(body(text));
        }
        if let Some(stderr) = t.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
            case.set_system_err(stderr_text(stderr));
        }
    }
    case
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;
    use crate::report::model::Phase;

    #[test]
    fn snapshots() {
        fixtures::snapshot_settings().bind(|| {
            for (name, report) in fixtures::all() {
                insta::assert_snapshot!(format!("junit_{name}"), render(&report));
            }
        });
    }

    /// `(tests, failures, errors, skipped)` of the root element.
    fn totals(xml: &str) -> (usize, usize, usize, usize) {
        let root = xml
            .lines()
            .find(|l| l.trim_start().starts_with("<testsuites"))
            .unwrap_or_default();
        let get = |attr: &str| {
            let key = format!(" {attr}=\"");
            root.split(&key)
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(usize::MAX)
        };
        (get("tests"), get("failures"), get("errors"), get("skipped"))
    }

    #[test]
    fn verdict_agrees_with_the_run() {
        for (name, report) in fixtures::all() {
            let (_, failures, errors, _) = totals(&render(&report));
            assert_eq!(
                failures + errors == 0,
                report.passed,
                "{name}: failures={failures} errors={errors}"
            );
        }
        let mut odd = fixtures::all_passed();
        odd.passed = false;
        odd.exit_code = 1;
        let xml = render(&odd);
        assert!(xml.contains("the run failed (exit code 1)"), "{xml}");
    }

    #[test]
    fn skipped_phase_is_never_passing_testcases() {
        let mut report = fixtures::all_passed();
        report.phases.checks = Phase::skipped("disabled with --no-checks");
        let xml = render(&report);
        let suite = xml
            .split("<testsuite name=\"static checks\"")
            .nth(1)
            .and_then(|s| s.split("</testsuite>").next())
            .unwrap_or_default();
        assert!(suite.contains("tests=\"1\""), "{suite}");
        assert!(suite.contains("skipped=\"1\""), "{suite}");
        assert!(
            suite.contains("<skipped message=\"disabled with --no-checks\"/>"),
            "{suite}"
        );
        assert!(!suite.contains("name=\"add\""), "{suite}");
    }

    #[test]
    fn duplicate_and_unnamed_tools_each_get_one_case() {
        let xml = render(&fixtures::failing());
        assert!(xml.contains("<testcase name=\"add\" classname=\"toolproof.checks\">"));
        assert!(xml.contains("<testcase name=\"add (#2)\" classname=\"toolproof.checks\">"));
        assert_eq!(xml.matches("name=\"&lt;unnamed&gt;\"").count(), 1, "{xml}");
        assert!(xml.contains("name=\"search + search_docs\""));
        let hostile = render(&fixtures::hostile());
        assert_eq!(hostile.matches("name=\"&lt;unnamed&gt;\"").count(), 1);
        assert!(!hostile.contains("<testcase name=\"\""), "{hostile}");
    }

    #[test]
    fn tests_point_at_the_yaml_and_keep_tools_out_of_classnames() {
        let xml = render(&fixtures::hostile());
        assert!(xml.contains("classname=\"toolproof.tests\""), "{xml}");
        assert!(xml.contains("file=\"toolproof.yaml\" line=\"7\""), "{xml}");
        assert!(!xml.contains("classname=\"toolproof.a.b.c\""));
        assert!(xml.contains("<property name=\"tool\" value=\"a.b.c\"/>"));
    }

    #[test]
    fn hostile_text_stays_text() {
        let xml = render(&fixtures::hostile());
        assert!(!xml.contains("</testcase>]]>"));
        assert!(!xml.contains("<script>"));
        assert!(!xml.contains('\x1b'));
        assert!(!xml.contains("sk-live-123456"));
        // Every opened testcase is closed exactly once: the markup was not broken.
        let opened = xml.matches("<testcase ").count();
        let closed = xml.matches("</testcase>").count() + xml.matches("/>\n").count();
        assert!(opened >= 1 && closed >= opened, "{xml}");
        assert_eq!(xml.matches("</testsuites>").count(), 1);
    }

    #[test]
    fn output_parses_back_with_hostile_names_intact() {
        for (name, report) in fixtures::all() {
            let xml = render(&report);
            let parsed = match Report::deserialize_from_str(&xml) {
                Ok(p) => p,
                Err(e) => panic!("{name}: {e}\n{xml}"),
            };
            assert_eq!(
                parsed.failures + parsed.errors == 0,
                report.passed,
                "{name}"
            );
        }
        let parsed = Report::deserialize_from_str(&render(&fixtures::hostile())).ok();
        let names: Vec<String> = parsed
            .iter()
            .flat_map(|r| &r.test_suites)
            .flat_map(|s| &s.test_cases)
            .map(|c| c.name.to_string())
            .collect();
        assert!(names.contains(&"evil</testcase>]]><script>alert(1)</script>".to_string()));
        assert!(names.contains(&"ansi red test, with: comma".to_string()));
    }

    /// The testsuites of `xml` whose name starts with `prefix`, each as its text.
    fn suites<'a>(xml: &'a str, prefix: &str) -> Vec<&'a str> {
        xml.split("<testsuite name=\"")
            .skip(1)
            .filter(|s| s.starts_with(prefix))
            .map(|s| s.split("</testsuite>").next().unwrap_or_default())
            .collect()
    }

    /// `failures + errors` of a testsuite's opening tag.
    fn suite_failures(suite: &str) -> usize {
        let tag = suite.lines().next().unwrap_or_default();
        ["failures", "errors"]
            .iter()
            .map(|attr| {
                tag.split(&format!(" {attr}=\""))
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .and_then(|n| n.parse::<usize>().ok())
                    .unwrap_or(usize::MAX / 4)
            })
            .sum()
    }

    #[test]
    fn evals_suites_fail_exactly_when_the_phase_fails() {
        for (name, report) in fixtures::all() {
            let xml = render(&report);
            let evals = suites(&xml, "evals");
            assert!(!evals.is_empty(), "{name}");
            let failures: usize = evals.iter().map(|s| suite_failures(s)).sum();
            assert_eq!(
                failures > 0,
                report.phases.evals.fails(),
                "{name}: {evals:?}"
            );
        }
    }

    #[test]
    fn misses_are_failures_at_their_yaml_line_with_the_why() {
        let xml = render(&fixtures::evals_failing());
        let case = xml
            .lines()
            .find(|l| l.contains("<testcase name=\"ord-refund\""))
            .unwrap_or_default();
        assert!(case.contains("classname=\"toolproof.evals\""), "{case}");
        assert!(
            case.ends_with("file=\"toolproof.yaml\" line=\"60\">"),
            "{case}"
        );
        assert!(xml.contains(
            "<failure message=\"expected start_refund, got get_order\" type=\"tool-selection\">expected start_refund, got get_order\nwhy: complaint, not a lookup\ncritical: must be right on every trial, fails the run\n0/3 trials\nprompt: Order 55219 arrived smashed"
        ), "{xml}");
        assert!(xml.contains("<property name=\"critical\" value=\"true\"/>"));
        assert!(xml.contains("<property name=\"ambiguous\" value=\"true\"/>"));
        assert!(xml.contains(
            "<error message=\"provider error: 529 overloaded: still failing after 4 attempts (last retry-after 2s)\" type=\"provider\">"
        ));
        assert!(xml.contains(
            "<failure message=\"accuracy 30% (3/10) is below the minimum 90%\" type=\"eval-gate\">FAIL min_accuracy"
        ));
        // Every eval testcase has the fixed classname, whatever the tool names.
        for suite in suites(&xml, "evals") {
            for line in suite.lines().filter(|l| l.contains("<testcase ")) {
                assert!(line.contains("classname=\"toolproof.evals\""), "{line}");
            }
        }
        let parsed = Report::deserialize_from_str(&xml).ok();
        let suite = parsed
            .iter()
            .flat_map(|r| &r.test_suites)
            .find(|s| s.name.as_str() == "evals");
        assert_eq!(
            suite.map(|s| (s.tests, s.failures, s.errors)),
            Some((11, 7, 1))
        );
    }

    #[test]
    fn provider_abort_is_an_error_and_every_case_skipped() {
        let xml = render(&fixtures::evals_abort());
        let evals = suites(&xml, "evals\"");
        assert_eq!(evals.len(), 1);
        let suite = evals[0];
        assert!(
            suite.starts_with("evals\" tests=\"4\" skipped=\"3\" errors=\"1\" failures=\"0\""),
            "{suite}"
        );
        assert!(suite.contains(
            "<error message=\"the provider could not be used: the provider rejected the request: 401 Unauthorized: Incorrect API key provided\" type=\"provider\">"
        ), "{suite}");
        assert!(suite.contains(
            "<skipped message=\"not counted: the provider could not be used for every case\"/>"
        ));
        assert_eq!(suite.matches("<skipped ").count(), 3);
    }

    #[test]
    fn misses_within_the_gates_stay_visible_without_failing() {
        let mut report = fixtures::evals_models();
        report.passed = true;
        report.exit_code = 0;
        report.phases.evals.status = PhaseStatus::Passed;
        if let Some(ev) = report.phases.evals.results.as_mut() {
            ev.models.truncate(1);
            let m = &mut ev.models[0];
            m.min_accuracy = 0.5;
            m.correct = 2;
            m.accuracy = 2.0 / 3.0;
            m.cases[1].status = CaseStatus::Miss;
            m.cases[1].trials[0].passed = false;
            m.cases[1].trials[0].failures = vec!["argument 'order_id' is \"1\"".into()];
        }
        let xml = render(&report);
        assert_eq!(totals(&xml).1 + totals(&xml).2, 0, "{xml}");
        assert!(
            xml.contains("<property name=\"outcome\" value=\"miss\"/>"),
            "{xml}"
        );
        assert!(xml.contains(
            "<system-out>MISS (within the gates: the model passed): expected get_order, got get_order: argument &apos;order_id&apos; is &quot;1&quot;\nargument"
        ), "{xml}");
        assert!(xml.contains("misses within the gates: ord-status"));
    }

    #[test]
    fn evals_without_results_keep_one_testcase() {
        let mut report = fixtures::all_passed();
        report.phases.evals = Phase::skipped("no evals section in toolproof.yaml");
        let xml = render(&report);
        let suite = suites(&xml, "evals\"");
        assert_eq!(suite.len(), 1);
        assert!(suite[0].contains("<testcase name=\"evals\" classname=\"toolproof.evals\">\n            <skipped message=\"no evals section in toolproof.yaml\"/>"), "{xml}");
        let failing = render(&fixtures::failing());
        let suite = suites(&failing, "evals\"");
        assert!(
            suite[0]
                .contains("<error message=\"the server could not be restarted after it exited\"/>"),
            "{failing}"
        );
    }

    #[test]
    fn several_models_get_a_suite_each() {
        let xml = render(&fixtures::evals_models());
        let sonnet = suites(&xml, "evals (claude-sonnet-4-5)");
        let haiku = suites(&xml, "evals (claude-haiku-4-5)");
        assert_eq!((sonnet.len(), haiku.len()), (1, 1), "{xml}");
        assert_eq!(suite_failures(sonnet[0]), 0);
        assert_eq!(suite_failures(haiku[0]), 2);
        assert!(
            haiku[0].contains("<skipped message=\"not run: no cached answer and --offline\"/>")
        );
    }

    #[test]
    fn flaky_is_success_with_a_property() {
        let xml = render(&fixtures::all_passed());
        assert!(xml.contains("<property name=\"flaky\" value=\"true\"/>"));
        assert_eq!(totals(&xml).1, 0);
        assert!(xml.ends_with("</testsuites>\n"));
    }
}
