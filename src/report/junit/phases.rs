//! The static-checks and tests suites of the JUnit report.

use std::collections::HashMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::{body, classname, message, one_line, phase_case, secs, stderr_text};
use crate::outcome::{
    ChecksResults, Finding, PhaseOverview, PhaseStatus, Severity, TestResult, TestStatus,
};
use crate::report::escape::clean;

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

    for (subject, findings) in subjects(results) {
        let mut case = check_case(&subject.name, &findings);
        case.set_classname(classname("checks", &subject.key))
            .set_time(Duration::ZERO);
        suite.add_test_case(case);
    }
    suite
}

/// What a checks testcase is about: the finding key it stands for and its testcase name.
struct Subject {
    key: String,
    name: String,
}

/// One subject per tool in server order (a repeated name gets ` (#2)`, ` (#3)` so no tool
/// disappears into another; an empty name is `<unnamed>` like in the findings), then one per
/// finding subject that is not a single tool, in the order of the findings: a pair (`a + b`),
/// the whole list (`*`), or a name used several times (`add + add (#2)`). Each finding lands in
/// exactly one subject: its tool's by `tool_index`, else the only tool of that name, else the
/// subject named after it.
fn subjects(results: &ChecksResults) -> Vec<(Subject, Vec<&Finding>)> {
    let key = |tool: &str| {
        if tool.is_empty() {
            "<unnamed>".to_string()
        } else {
            tool.to_string()
        }
    };
    let mut seen: HashMap<String, Vec<usize>> = HashMap::new();
    let mut out: Vec<(Subject, Vec<&Finding>)> = Vec::new();
    for (i, tool) in results.tools.iter().enumerate() {
        let k = key(tool);
        let positions = seen.entry(k.clone()).or_default();
        positions.push(i);
        let name = match positions.len() {
            1 => one_line(&k),
            n => format!("{} (#{n})", one_line(&k)),
        };
        out.push((Subject { key: k, name }, Vec::new()));
    }
    let tools = out.len();
    for f in &results.findings {
        let k = key(&f.tool);
        let own = seen.get(&k).map_or(&[][..], Vec::as_slice);
        let slot = match (f.tool_index, own) {
            (Some(i), _) if i < tools && out[i].0.key == k => Some(i),
            (_, [only]) => Some(*only),
            _ => None,
        };
        let slot = slot.or_else(|| (tools..out.len()).find(|&j| out[j].0.key == k));
        match slot {
            Some(j) => out[j].1.push(f),
            None => {
                let name = if own.len() > 1 {
                    own.iter()
                        .map(|&i| out[i].0.name.clone())
                        .collect::<Vec<_>>()
                        .join(" + ")
                } else {
                    one_line(&k)
                };
                out.push((Subject { key: k, name }, vec![f]));
            }
        }
    }
    out
}

/// The testcase of one subject: failing findings make it a `<failure>`, the others are
/// listed in its `<system-out>`.
fn check_case(name: &str, findings: &[&Finding]) -> TestCase {
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
    let mut case = TestCase::new(name, status);
    if !other.is_empty() {
        case.set_system_out(body(&other.join("\n")));
    }
    case
}

fn severity_word(s: Severity) -> &'static str {
    s.as_str()
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
    case.set_classname(classname("tests", &t.tool));
    if let Some(file) = config_file {
        case.extra.insert("file".into(), one_line(file).into());
        if let Some(line) = t.line {
            case.extra.insert("line".into(), line.to_string().into());
        }
    }
    let ran = t.status != TestStatus::NotRun;
    case.set_time(if ran {
        secs(t.latency_ms)
    } else {
        Duration::ZERO
    });
    if !t.warnings.is_empty() && !matches!(t.status, TestStatus::Failed | TestStatus::Error) {
        let lines: Vec<String> = t
            .warnings
            .iter()
            .map(|w| format!("warning: {}", clean(w)))
            .collect();
        case.set_system_out(body(&lines.join("\n")));
    }
    match t.status {
        TestStatus::Failed | TestStatus::Error => {
            if let Some(text) = t.text.as_deref() {
                case.set_system_out(body(text));
            }
            if let Some(stderr) = t.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
                case.set_system_err(stderr_text(stderr));
            }
        }
        TestStatus::Flaky => {
            case.set_system_out(format!("flaky: passed on attempt {}", t.attempts));
        }
        TestStatus::Passed | TestStatus::NotRun => {}
    }
    case
}
