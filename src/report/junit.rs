//! The JUnit XML report (quick-junit): one suite per phase in run order, preceded by a `server`
//! suite when the server could not be used. Skipped phases are skipped testcases, errored phases
//! `<error>` testcases; the XML fails exactly when the run fails.
//!
//! Layout, chosen for the common consumers (Jenkins, GitLab, dorny/test-reporter,
//! mikepenz/action-junit-report):
//! - classnames are fixed (`toolproof.checks`, `toolproof.tests`, …) and never contain a tool
//!   name, because Jenkins splits classnames at dots; the tool goes in a `tool` property;
//! - YAML tests carry `file` and `line` attributes pointing at their entry in the config;
//! - a flaky test is a success with a `flaky` property.

use std::collections::HashMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::escape::{clean, first_line, tail_lines, truncate_chars};
use super::model::{ChecksResults, PhaseOverview, PhaseStatus, RunReport, TestResult, TestStatus};

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
    for phase in [evals, bench, fuzz] {
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
            |f: &super::model::Finding| format!("[{}] {}", clean(&f.check), clean(&f.message));
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

    #[test]
    fn flaky_is_success_with_a_property() {
        let xml = render(&fixtures::all_passed());
        assert!(xml.contains("<property name=\"flaky\" value=\"true\"/>"));
        assert_eq!(totals(&xml).1, 0);
        assert!(xml.ends_with("</testsuites>\n"));
    }
}
