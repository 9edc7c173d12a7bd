//! The `protocol` suite: one testcase per protocol check (classname `toolproof.protocol.<id>`);
//! a failed error (or a failed warning under `strict`) is a `<failure>`, a failed warning
//! otherwise (and a failed info always) a success whose `<system-out>` starts with `warning:`
//! (`info:`), a skipped check skipped.

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::{body, classname, message, phase_case, secs};
use crate::outcome::ProtocolResults;
use crate::outcome::{PhaseOverview, PhaseStatus, ProtocolCheck, Severity};
use crate::report::escape::clean;

pub(super) fn suite(phase: &PhaseOverview<'_>, results: Option<&ProtocolResults>) -> TestSuite {
    let mut suite = TestSuite::new("protocol");
    suite.set_time(secs(phase.duration_ms));
    let Some(r) = results.filter(|r| !r.checks.is_empty()) else {
        suite.add_test_case(phase_case(phase));
        return suite;
    };
    if phase.status == PhaseStatus::Error {
        suite.add_test_case(phase_case(phase));
    }
    for c in &r.checks {
        suite.add_test_case(case(c, r.strict));
    }
    suite
}

fn case(c: &ProtocolCheck, strict: bool) -> TestCase {
    let detail = clean(c.detail.as_deref().unwrap_or_default()).into_owned();
    // An info is advice: it never fails, strict or not.
    let fails = c.failed()
        && (c.severity == Severity::Error || (strict && c.severity == Severity::Warning));
    let status = if c.status == "skipped" {
        let mut s = TestCaseStatus::skipped();
        s.set_message(message(&detail));
        s
    } else if fails {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_message(message(&detail))
            .set_type("protocol-check")
            .set_description(body(&detail));
        s
    } else {
        TestCaseStatus::success()
    };
    let mut case = TestCase::new(c.id.as_str(), status);
    case.set_classname(classname("protocol", &c.id));
    if c.failed() && !fails {
        case.set_system_out(body(&format!("{}: {detail}", c.severity.as_str())));
    }
    case
}
