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

mod evals;
mod phases;

#[cfg(test)]
mod tests;

use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::escape::{clean, first_line, tail_lines, truncate_chars};
use super::evals_view::EvalsView;
use super::model::{PhaseOverview, PhaseStatus, RunReport};

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

    suites.extend(server_suite(r));

    let [checks, tests, evals, bench, fuzz] = r.phases.overview();
    suites.push(phases::checks_suite(&checks, &r.phases.checks.results));
    suites.push(phases::tests_suite(
        &tests,
        &r.phases.tests.results,
        r.config_file.as_deref(),
    ));
    match EvalsView::of(&r.phases.evals) {
        Some(view) => suites.extend(evals::suites(&evals, &view, r.config_file.as_deref())),
        None => {
            let mut suite = TestSuite::new("evals");
            suite.set_time(secs(evals.duration_ms));
            suite.add_test_case(phase_case(&evals));
            suites.push(suite);
        }
    }
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

/// The `server` suite, when the server could not be used.
fn server_suite(r: &RunReport) -> Option<TestSuite> {
    let err = r.error.as_ref()?;
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
    Some(suite)
}

pub(super) fn secs(ms: f64) -> Duration {
    Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::ZERO)
}

/// Cleaned, on one line.
pub(super) fn one_line(text: &str) -> String {
    clean(text).replace('\n', " ")
}

/// A failure/error `message` attribute: the first line, cleaned and shortened.
pub(super) fn message(text: &str) -> String {
    let cleaned = clean(text);
    truncate_chars(first_line(&cleaned), MESSAGE_CHARS).into_owned()
}

/// Element text: cleaned and shortened.
pub(super) fn body(text: &str) -> String {
    truncate_chars(&clean(text), BODY_CHARS).into_owned()
}

pub(super) fn stderr_text(text: &str) -> String {
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
pub(super) fn phase_case(phase: &PhaseOverview<'_>) -> TestCase {
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
