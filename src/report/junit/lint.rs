//! The `lint` suite: per rule that ran, one testcase per finding (classname
//! `toolproof.lint.<rule>`, named after the case or tool it is about, with `file` and `line` of
//! the case when asked for), or one passing testcase for the rule when it found nothing, or a
//! skipped one when this run could not check it. A failing finding is a `<failure>`; a warning
//! or info that does not fail is a success whose `<system-out>` starts with its severity.

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::{body, classname, message, one_line, phase_case, secs};
use crate::outcome::{LintFinding, LintResults, PhaseOverview, PhaseStatus};
use crate::report::escape::clean;
use crate::report::places::Places;

/// Where the findings point: the config file as the repository knows it, and the paths.
pub(super) struct Place<'a> {
    pub(super) config_file: Option<&'a str>,
    pub(super) places: &'a Places,
}

pub(super) fn suite(
    phase: &PhaseOverview<'_>,
    results: Option<&LintResults>,
    place: &Place<'_>,
) -> TestSuite {
    let mut suite = TestSuite::new("lint");
    suite.set_time(secs(phase.duration_ms));
    let ran = matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed);
    let Some(r) = results.filter(|_| ran) else {
        suite.add_test_case(phase_case(phase));
        return suite;
    };
    for rule in &r.rules {
        let found: Vec<&LintFinding> = r.findings.iter().filter(|f| &f.id == rule).collect();
        if found.is_empty() {
            suite.add_test_case(quiet_rule(r, rule));
        }
        for f in found {
            suite.add_test_case(case(f, place));
        }
    }
    suite
}

/// A rule that found nothing: passed, or skipped with the reason it could not check.
fn quiet_rule(r: &LintResults, rule: &str) -> TestCase {
    let status = match r.not_checked.iter().find(|n| n.id == rule) {
        Some(n) => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(message(&n.reason));
            s
        }
        None => TestCaseStatus::success(),
    };
    let mut case = TestCase::new(one_line(rule), status);
    case.set_classname(classname("lint", rule));
    case
}

fn case(f: &LintFinding, place: &Place<'_>) -> TestCase {
    let text = clean(&f.text()).into_owned();
    let status = if f.fails {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_message(message(&f.message))
            .set_type("lint")
            .set_description(body(&text));
        s
    } else {
        TestCaseStatus::success()
    };
    let subject = f.case.as_deref().or(f.tool.as_deref()).unwrap_or("*");
    let mut case = TestCase::new(format!("{}: {}", f.id, one_line(subject)), status);
    case.set_classname(classname("lint", &f.id));
    if !f.fails {
        case.set_system_out(body(&format!("{}: {text}", f.severity.as_str())));
    }
    let file = f
        .file
        .as_deref()
        .map(|p| place.places.file(p))
        .or(place.config_file);
    if let Some(file) = file {
        case.extra.insert("file".into(), one_line(file).into());
        if let Some(line) = f.line {
            case.extra.insert("line".into(), line.to_string().into());
        }
    }
    case
}
