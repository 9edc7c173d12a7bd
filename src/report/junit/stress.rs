//! The `stress` suite: one testcase per tool list (`25 distractors, server order`, classname
//! `toolproof.stress`, or `toolproof.stress.<model>` with several models) whose
//! `<system-out>` holds its accuracy, starting with `BELOW` when it fell under the minimum. The
//! curve is a measurement: a list below the minimum is no failure. What fails the suite is what
//! fails the phase (`must_hold`, answers missing under `--offline`, an unusable provider): one
//! testcase for the phase carries it.

use quick_junit::{TestCase, TestCaseStatus, TestSuite};

use super::{body, classname, one_line, phase_case, secs};
use crate::outcome::rates::percent;
use crate::outcome::{PhaseOverview, PhaseStatus, StressResults};

pub(super) fn suite(phase: &PhaseOverview<'_>, results: Option<&StressResults>) -> TestSuite {
    let mut suite = TestSuite::new("stress");
    suite.set_time(secs(phase.duration_ms));
    let Some(r) = results.filter(|r| !r.models.is_empty()) else {
        suite.add_test_case(phase_case(phase));
        return suite;
    };
    if phase.status != PhaseStatus::Passed {
        suite.add_test_case(phase_case(phase));
    }
    let several = r.models.len() > 1;
    for m in &r.models {
        let class = if several {
            classname("stress", &m.model)
        } else {
            "toolproof.stress".to_owned()
        };
        for p in &m.points {
            let name = format!(
                "{} distractor{}, {}",
                p.distractors,
                if p.distractors == 1 { "" } else { "s" },
                p.order.label()
            );
            let mut text = format!(
                "{}accuracy {} ({}/{}), minimum {}, {} tools",
                if p.below { "BELOW " } else { "" },
                percent(p.accuracy),
                p.correct,
                p.total,
                percent(r.min_accuracy),
                p.tools
            );
            if p.not_run > 0 {
                text.push_str(&format!(", {} not answered", p.not_run));
            }
            for miss in &p.misses {
                text.push_str(&format!(
                    "\nmiss: {}: expected {}, picked {}{}",
                    one_line(&miss.case),
                    one_line(&miss.expected),
                    one_line(&miss.picked),
                    if miss.distractor {
                        " (a distractor)"
                    } else {
                        ""
                    }
                ));
            }
            let mut case = TestCase::new(name, TestCaseStatus::success());
            case.set_classname(class.clone())
                .set_time(std::time::Duration::ZERO);
            case.set_system_out(body(&text));
            suite.add_test_case(case);
        }
    }
    suite
}
