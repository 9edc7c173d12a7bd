//! The static-checks and tests suites of the JUnit report.

use std::collections::HashMap;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::{body, message, one_line, phase_case, secs, stderr_text};
use crate::report::escape::clean;
use crate::report::model::{
    ChecksResults, Finding, PhaseOverview, PhaseStatus, Severity, TestResult, TestStatus,
};

pub(super) fn checks_suite(phase: &PhaseOverview<'_>, results: &ChecksResults) -> TestSuite {
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

    let mut by_subject: HashMap<&str, Vec<&Finding>> = HashMap::new();
    for f in &results.findings {
        by_subject.entry(f.tool.as_str()).or_default().push(f);
    }
    for (key, name) in &subjects {
        let findings = by_subject.get(key.as_str()).map_or(&[][..], Vec::as_slice);
        let line = |f: &Finding| format!("[{}] {}", clean(&f.check), clean(&f.text()));
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

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

pub(super) fn tests_suite(
    phase: &PhaseOverview<'_>,
    results: &[TestResult],
    config_file: Option<&str>,
) -> TestSuite {
    let mut suite = TestSuite::new("tests");
    suite.set_time(secs(phase.duration_ms));
    let ran = matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed);
    if !ran {
        // Why the phase stopped (an interrupt, a server that could not be restarted)…
        suite.add_test_case(phase_case(phase));
        if phase.status != PhaseStatus::Error {
            return suite;
        }
    }
    // …and every test it got to, so a partial run keeps what it found.
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
