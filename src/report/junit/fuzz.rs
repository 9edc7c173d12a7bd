//! The `fuzz` suite: one testcase per tool (classname `toolproof.fuzz.<tool>`), failing with
//! every finding of the tool (the first as the message), skipped with the reason, and a
//! testcase for the phase itself when it could not finish. The seed is a suite property.

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::{body, classname, message, one_line, phase_case, secs, stderr_text};
use crate::outcome::{FuzzResults, FuzzTool, PhaseOverview, PhaseStatus};

pub(super) fn suite(phase: &PhaseOverview<'_>, results: Option<&FuzzResults>) -> TestSuite {
    let mut suite = TestSuite::new("fuzz");
    suite.set_time(secs(phase.duration_ms));
    let Some(r) = results else {
        suite.add_test_case(phase_case(phase));
        return suite;
    };
    suite.add_property(Property::new("seed", r.seed.to_string()));
    if phase.status == PhaseStatus::Error {
        suite.add_test_case(phase_case(phase));
    }
    if let Some(warning) = &r.warning {
        // Nothing fuzzed in `run`: skipped, and a reader shows why among the skips.
        suite.add_property(Property::new("warning", one_line(warning)));
        let mut status = TestCaseStatus::skipped();
        status.set_message(message(&format!(
            "warning: {}",
            phase.reason.unwrap_or(warning)
        )));
        let mut case = TestCase::new("fuzz", status);
        case.set_classname("toolproof.fuzz")
            .set_time(secs(phase.duration_ms));
        suite.add_test_case(case);
    }
    for t in &r.tools {
        suite.add_test_case(tool_case(t, r.seed));
    }
    if r.tools.is_empty() && phase.status != PhaseStatus::Error {
        suite.add_test_case(phase_case(phase));
    }
    suite
}

fn tool_case(t: &FuzzTool, seed: u64) -> TestCase {
    let status = if let Some(why) = &t.skipped {
        let mut s = TestCaseStatus::skipped();
        s.set_message(message(why));
        s
    } else if let Some(first) = t.findings.first() {
        let lines: Vec<String> = t
            .findings
            .iter()
            .map(|f| {
                let input = serde_json::to_string(&f.input).unwrap_or_default();
                let mut line = format!("[{}, {} input] {input}: {}", f.kind, f.mode, f.detail);
                if !f.test.is_empty() {
                    line.push_str("\nreproduce with this test:\n");
                    line.push_str(&f.test);
                }
                line
            })
            .collect();
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        let n = t.findings.len();
        let many = if n == 1 {
            String::new()
        } else {
            format!("{n} findings, first: ")
        };
        s.set_message(message(&format!(
            "{many}{} ({}): {}",
            first.kind, first.mode, first.detail
        )))
        .set_type(first.kind.as_str())
        .set_description(body(&format!("{}\n(seed {seed})", lines.join("\n"))));
        s
    } else {
        TestCaseStatus::success()
    };
    let mut case = TestCase::new(one_line(&t.tool), status);
    case.set_classname(classname("fuzz", &t.tool))
        .set_time(secs(t.duration_ms));
    if t.skipped.is_none() {
        case.set_system_out(format!(
            "calls={} valid_inputs={} invalid_inputs={}{}",
            t.calls,
            t.valid_inputs,
            t.invalid_inputs,
            t.stopped
                .as_deref()
                .map(|s| format!(" stopped: {}", one_line(s)))
                .unwrap_or_default()
        ));
    }
    let stderr: Vec<&str> = t
        .findings
        .iter()
        .filter_map(|f| f.stderr.as_deref())
        .collect();
    if !stderr.is_empty() {
        case.set_system_err(stderr_text(&stderr.join("\n")));
    }
    case
}
