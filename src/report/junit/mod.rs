//! The JUnit XML report: one suite per phase in run order, preceded by a `server` suite when
//! the server could not be used. Phases that are no part of the run (no section in the config,
//! not a phase of the command) have no suite; skipped phases (turned off, nothing to run) are
//! skipped testcases, errored phases `<error>` testcases; the XML fails exactly when the run
//! fails.
//!
//! Shape: what pytest writes by default (`xunit2`), which validates against the Jenkins xUnit
//! plugin's `junit-10.xsd`, the strictest common reader (`xml.rs` says which attributes). So a
//! testcase carries no `<properties>` (facts about a suite sit on the suite, facts about a case
//! in its text), and no `file`/`line` unless [`JunitOptions::file_attrs`] asks for them
//! (mikepenz/action-junit-report reads them; Jenkins xUnit rejects them). Every testcase has a
//! `time`, `0.000` when nothing was measured.
//!
//! Classnames: Jenkins splits a classname at its last `.` into package and class. A testcase
//! about one subject is `toolproof.<phase>.<subject>`, so each phase is a package and each
//! subject a class in it:
//! - static checks: the tool checked (`toolproof.checks.get_weather`); a finding about a pair,
//!   a name used several times or the whole list is a subject of its own (`search + search_docs`,
//!   `add + add (#2)`, `*`);
//! - tests: the tool the test calls (`toolproof.tests.get_weather`);
//! - evals: the tool the case expects, `(no tool)` when it expects none
//!   (`toolproof.evals.get_weather`). With several models the phase is `evals.<model>`
//!   (`toolproof.evals.claude-haiku-4-5.get_weather`), so one case under two models stays two
//!   tests;
//! - set lint: the rule (`toolproof.lint.unknown-tool`), one testcase per finding, named after
//!   the case or tool it is about.
//!
//! A `.` inside a tool or model name becomes `_` (`admin.tools.list` → `admin_tools_list`), so it
//! cannot open packages of its own; the testcase name keeps the name as it is. Testcases about a
//! whole phase or the run (a skipped or errored phase, a model's gates, the server connection)
//! are `toolproof.<phase>`: classes of the package `toolproof`.
//!
//! The stress curve is a suite of its own, one testcase per tool list (see `stress`).
//!
//! A flaky test is a success whose `<system-out>` says so. Evals get one suite per model
//! (`evals`, or `evals (<model>)` with several): a testcase `accuracy` carrying the gates, then
//! one testcase per case. A miss is a `<failure>` and a provider error an `<error>` when the
//! model failed its gates; when the gates held despite misses, those cases are successes whose
//! `<system-out>` starts with `MISS`, so the XML never fails a passing run.

mod bench;
mod evals;
mod fuzz;
mod lint;
mod phases;
mod protocol;
mod stress;
mod surface;
mod xml;

use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::escape::{clean, first_line, tail_lines, truncate_chars};
use super::evals_view::EvalsView;
use super::places::Places;
use crate::outcome::{PhaseOverview, PhaseStatus, RunReport};

/// Longest failure message attribute, in characters.
const MESSAGE_CHARS: usize = 1000;
/// Longest body text (failure details, result text), in characters.
const BODY_CHARS: usize = 20_000;
/// Most lines of server stderr kept per testcase.
const STDERR_LINES: usize = 200;

/// What the JUnit report holds beyond what every reader accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct JunitOptions {
    /// Put `file` and `line` attributes on the testcases of YAML tests and eval cases
    /// (`--junit-file-attrs`). mikepenz/action-junit-report places its annotations with them;
    /// the Jenkins xUnit plugin rejects a file that has them, so they are off by default.
    pub file_attrs: bool,
    /// Where the files the report names are in the repository (for `file`).
    pub places: Places,
}

/// The JUnit XML report of `report` in the shape every reader accepts, secrets redacted, with a
/// trailing newline.
#[cfg(test)]
pub(crate) fn render(report: &RunReport) -> String {
    render_with(report, &JunitOptions::default())
}

/// The JUnit XML report of `report` as `options` ask, secrets redacted, with a trailing newline.
pub(crate) fn render_with(report: &RunReport, options: &JunitOptions) -> String {
    let places = options.places.redacted(&report.secrets);
    let report = report.redacted();
    let r = &*report;
    let mut xml = Report::new("toolproof");
    xml.set_time(secs(r.duration_ms));
    let started = chrono::DateTime::parse_from_rfc3339(&r.started_at).ok();
    let config_file = r.config_file.as_deref().map(|f| places.file(f));
    let mut suites = Vec::new();

    suites.extend(server_suite(r));
    suites.extend(r.phases.surface.as_ref().map(surface::suite));

    // A phase that is no part of the run (not configured, or not the command's) has no
    // testcase: readers count a skipped testcase as a test, some as a passed one.
    let phases = r.phases.overview();
    let part = |i: usize| !r.absent.contains(&phases[i].key);
    let [checks, tests, evals, lint, stress, bench, fuzz, proto] = &phases;
    if part(0) {
        suites.push(phases::checks_suite(checks, &r.phases.checks.results));
    }
    if part(1) {
        suites.push(phases::tests_suite(
            tests,
            &r.phases.tests.results,
            config_file,
        ));
    }
    if part(2) {
        match EvalsView::of(&r.phases.evals) {
            Some(view) => suites.extend(evals::suites(evals, &view, config_file, &places)),
            None => suites.push(phase_suite(evals)),
        }
    }
    if part(3) {
        suites.push(lint::suite(
            lint,
            r.phases.lint.results.as_ref(),
            &lint::Place {
                config_file,
                places: &places,
            },
        ));
    }
    if part(4) {
        suites.push(stress::suite(stress, r.phases.stress.results.as_ref()));
    }
    if part(5) {
        suites.push(bench::suite(bench, r.phases.bench.results.as_ref()));
    }
    if part(6) {
        suites.push(fuzz::suite(fuzz, r.phases.fuzz.results.as_ref()));
    }
    if part(7) {
        suites.push(protocol::suite(proto, r.phases.protocol.results.as_ref()));
    }
    for mut suite in suites {
        if let Some(t) = started {
            suite.set_timestamp(t);
        }
        // A shard's suites say which part of the run they are.
        if let Some(s) = r.shard {
            suite.add_property(Property::new("shard", s.to_string()));
        }
        xml.add_test_suite(suite);
    }

    // The XML must not pass a run that failed, even when no phase explains why.
    if !r.passed && xml.failures + xml.errors == 0 {
        let mut suite = TestSuite::new("run");
        suite.set_time(Duration::ZERO);
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(format!("the run failed (exit code {})", r.exit_code));
        let mut case = TestCase::new("result", status);
        case.set_classname("toolproof.run").set_time(Duration::ZERO);
        suite.add_test_case(case);
        xml.add_test_suite(suite);
    }
    xml::write(&xml, options.file_attrs)
}

/// `report` as JUnit XML, for reports built outside a run (`toolproof tune`).
pub(crate) fn xml_of(report: &Report) -> String {
    xml::write(report, false)
}

/// A suite holding only the testcase that stands for its phase.
fn phase_suite(phase: &PhaseOverview<'_>) -> TestSuite {
    let mut suite = TestSuite::new(phase.key);
    suite.set_time(secs(phase.duration_ms));
    suite.add_test_case(phase_case(phase));
    suite
}

/// `toolproof.<phase>.<subject>` (see the module documentation).
pub(super) fn classname(phase: &str, subject: &str) -> String {
    format!("toolproof.{phase}.{}", segment(subject))
}

/// One segment of a classname: on one line, its dots turned into `_`, `<unnamed>` when empty.
pub(super) fn segment(name: &str) -> String {
    let flat = one_line(name).replace('.', "_");
    if flat.trim().is_empty() {
        "<unnamed>".to_string()
    } else {
        flat
    }
}

/// The `server` suite, when the server could not be used.
fn server_suite(r: &RunReport) -> Option<TestSuite> {
    let err = r.error.as_ref()?;
    let mut suite = TestSuite::new("server");
    suite.set_time(Duration::ZERO);
    suite.add_property(Property::new("target", one_line(&r.target)));
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
    status
        .set_message(message(&err.message))
        .set_type("server")
        .set_description(body(&err.message));
    let mut case = TestCase::new("connect", status);
    case.set_classname("toolproof.server")
        .set_time(Duration::ZERO);
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
    case.set_classname(format!("toolproof.{}", phase.key))
        .set_time(secs(phase.duration_ms));
    if phase.status == PhaseStatus::Passed
        && let Some(reason) = reason
    {
        case.set_system_out(body(&reason));
    }
    case
}
