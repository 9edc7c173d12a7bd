//! The `bench` suite: one testcase per target, failing exactly when the target failed.

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::{body, classname, message, one_line, phase_case, secs};
use crate::outcome::{BenchResults, PhaseOverview};

pub(super) fn suite(phase: &PhaseOverview<'_>, results: Option<&BenchResults>) -> TestSuite {
    let mut suite = TestSuite::new("bench");
    suite.set_time(secs(phase.duration_ms));
    let Some(r) = results else {
        suite.add_test_case(phase_case(phase));
        return suite;
    };
    for t in &r.targets {
        let status = if t.passed {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(message(t.failures.first().map_or("failed", String::as_str)))
                .set_type("threshold")
                .set_description(body(&t.details().join("\n")));
            s
        };
        let mut case = TestCase::new(one_line(&t.name), status);
        case.set_classname(classname("bench", &t.tool))
            .set_time(secs(t.duration_ms));
        case.set_system_out(body(&t.figures()));
        suite.add_test_case(case);
    }
    suite
}
