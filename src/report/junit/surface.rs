//! The `surface` suite, when the run compared the server with `toolproof.lock`: one testcase,
//! `lock` (classname `toolproof.surface.lock`), a `<failure>` when drift fails the run
//! (`--locked`) or an error when the lock could not be used; the changes, one a line, in its
//! body or, when they do not fail the run, in its `<system-out>`.

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::{body, classname, message, secs};
use crate::outcome::{Phase, PhaseStatus, SurfaceResults};
use crate::report::escape::clean;

pub(super) fn suite(phase: &Phase<SurfaceResults>) -> TestSuite {
    let mut suite = TestSuite::new("surface");
    suite.set_time(secs(phase.duration_ms));
    let reason = clean(phase.reason.as_deref().unwrap_or_default()).into_owned();
    let lines: Vec<String> = phase
        .results
        .changes
        .iter()
        .map(|c| {
            let rug = if c.rug_pull.is_empty() {
                String::new()
            } else {
                format!(" (rug pull: now trips {})", c.rug_pull.join(", "))
            };
            clean(&format!("{} {} {}{rug}", c.kind.as_str(), c.item, c.what)).into_owned()
        })
        .collect();
    let text = lines.join("\n");
    let status = match phase.status {
        PhaseStatus::Failed | PhaseStatus::Error => {
            let kind = if phase.status == PhaseStatus::Error {
                NonSuccessKind::Error
            } else {
                NonSuccessKind::Failure
            };
            let mut s = TestCaseStatus::non_success(kind);
            s.set_message(message(&reason))
                .set_type("surface")
                .set_description(body(&text));
            s
        }
        PhaseStatus::Skipped => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(message(&reason));
            s
        }
        PhaseStatus::Passed => TestCaseStatus::success(),
    };
    let mut case = TestCase::new("lock", status);
    case.set_classname(classname("surface", "lock"))
        .set_time(secs(phase.duration_ms));
    if phase.status == PhaseStatus::Passed && !lines.is_empty() {
        case.set_system_out(body(&format!("{reason}\n{text}")));
    }
    suite.add_test_case(case);
    suite
}
