//! Tests of the JUnit report: snapshots, verdicts that agree with the run, and the evals
//! suites.

use super::fixtures;
use crate::outcome::Phase;
use crate::report::junit::*;
use crate::report::places::Places;
use quick_junit::Report;

#[test]
fn snapshots() {
    fixtures::snapshot_settings().bind(|| {
        for (name, report) in fixtures::all() {
            insta::assert_snapshot!(format!("junit_{name}"), render(&report));
        }
    });
}

/// `(tests, failures, errors)` of the root element.
fn totals(xml: &str) -> (usize, usize, usize) {
    let root = xml
        .lines()
        .find(|l| l.trim_start().starts_with("<testsuites"))
        .unwrap_or_default();
    let get = |attr: &str| {
        let key = format!(" {attr}=\"");
        root.split(&key)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(usize::MAX)
    };
    (get("tests"), get("failures"), get("errors"))
}

#[test]
fn verdict_agrees_with_the_run() {
    for (name, report) in fixtures::all() {
        let (_, failures, errors) = totals(&render(&report));
        assert_eq!(
            failures + errors == 0,
            report.passed,
            "{name}: failures={failures} errors={errors}"
        );
    }
    let mut odd = fixtures::all_passed();
    odd.passed = false;
    odd.exit_code = 1;
    let xml = render(&odd);
    assert!(xml.contains("the run failed (exit code 1)"), "{xml}");
}

#[test]
fn skipped_phase_is_never_passing_testcases() {
    let mut report = fixtures::all_passed();
    report.phases.checks = Phase::skipped("disabled with --no-checks");
    let xml = render(&report);
    let suite = xml
        .split("<testsuite name=\"static checks\"")
        .nth(1)
        .and_then(|s| s.split("</testsuite>").next())
        .unwrap_or_default();
    assert!(suite.contains("tests=\"1\""), "{suite}");
    assert!(suite.contains("skipped=\"1\""), "{suite}");
    assert!(
        suite.contains("<skipped message=\"disabled with --no-checks\"/>"),
        "{suite}"
    );
    assert!(!suite.contains("name=\"add\""), "{suite}");
}

#[test]
fn duplicate_and_unnamed_tools_each_get_one_case() {
    let xml = render(&fixtures::failing());
    assert!(
        xml.contains("<testcase classname=\"toolproof.checks.add\" name=\"add\" time=\"0.000\"/>")
    );
    assert!(xml.contains(
        "<testcase classname=\"toolproof.checks.add\" name=\"add (#2)\" time=\"0.000\"/>"
    ));
    // The name used twice is the pair's finding, reported once (message and text).
    assert_eq!(xml.matches("[duplicate-name]").count(), 2, "{xml}");
    assert!(xml.contains("<testcase classname=\"toolproof.checks.add\" name=\"add + add (#2)\" time=\"0.000\">\n            <failure message=\"[duplicate-name] 2 tools are named 'add'"), "{xml}");
    assert_eq!(xml.matches("name=\"&lt;unnamed&gt;\"").count(), 1, "{xml}");
    assert!(xml.contains("name=\"search + search_docs\""));
    let hostile = render(&fixtures::hostile());
    assert_eq!(hostile.matches("name=\"&lt;unnamed&gt;\"").count(), 1);
    assert!(!hostile.contains(" name=\"\""), "{hostile}");
}

#[test]
fn a_finding_stays_with_the_tool_it_is_about() {
    let mut report = fixtures::failing();
    report
        .phases
        .checks
        .results
        .findings
        .push(fixtures::tool_finding(
            2,
            "add",
            "description-length",
            crate::outcome::Severity::Error,
            "description is 1400 characters, over the limit of 1024",
        ));
    let xml = render(&report);
    let case = |name: &str| {
        xml.split(&format!(" name=\"{name}\""))
            .nth(1)
            .and_then(|rest| rest.split("<testcase ").next())
            .unwrap_or_default()
            .to_string()
    };
    assert!(case("add (#2)").contains("[description-length]"), "{xml}");
    assert!(!case("add").contains("[description-length]"), "{xml}");
    assert_eq!(xml.matches("[description-length]").count(), 2, "{xml}");
}

#[test]
fn classnames_group_by_phase_and_tool_without_extra_dots() {
    let xml = render(&fixtures::hostile());
    assert!(
        xml.contains(
            "<testcase classname=\"toolproof.tests.a_b_c\" name=\"ansi red test, with: comma\""
        ),
        "{xml}"
    );
    assert!(xml.contains("<testcase classname=\"toolproof.checks.a_b_c\" name=\"a.b.c\""));
    assert!(xml.contains("classname=\"toolproof.evals.a_b_c\""));
    assert!(xml.contains("classname=\"toolproof.evals.(no tool)\""));
    let models = render(&fixtures::evals_models());
    assert!(
        models.contains(
            "<testcase classname=\"toolproof.evals.claude-haiku-4-5.get_order\" name=\"ord-status\""
        ),
        "{models}"
    );
    assert!(
        models
            .contains("<testcase classname=\"toolproof.evals.claude-haiku-4-5\" name=\"accuracy\"")
    );
    // Every classname is `toolproof.<phase>` or `toolproof.<phase>.<subject>`, where the phase
    // is `evals.<model>` with several models: no dot of a name opens a package.
    for (name, report) in fixtures::all() {
        let several = report
            .phases
            .evals
            .results
            .as_ref()
            .is_some_and(|e| e.models.len() > 1);
        let xml = render(&report);
        for class in xml
            .split("classname=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
        {
            let parts: Vec<&str> = class.split('.').collect();
            let phase = if several && parts.get(1) == Some(&"evals") {
                3
            } else {
                2
            };
            assert!(
                parts[0] == "toolproof" && (parts.len() == phase || parts.len() == phase + 1),
                "{name}: {class}"
            );
        }
    }
}

#[test]
fn every_testcase_has_a_time() {
    for (name, report) in fixtures::all() {
        let xml = render(&report);
        let cases = xml.split("<testcase ").skip(1);
        for tag in cases.map(|c| c.split('>').next().unwrap_or_default()) {
            assert!(tag.contains(" time=\""), "{name}: {tag}");
        }
    }
}

#[test]
fn hostile_text_stays_text() {
    let xml = render(&fixtures::hostile());
    assert!(!xml.contains("</testcase>]]>"));
    assert!(!xml.contains("<script>"));
    assert!(!xml.contains('\x1b'));
    assert!(!xml.contains("sk-live-123456"));
    // Every opened testcase is closed exactly once: the markup was not broken.
    let opened = xml.matches("<testcase ").count();
    let closed = xml.matches("</testcase>").count() + xml.matches("/>\n").count();
    assert!(opened >= 1 && closed >= opened, "{xml}");
    assert_eq!(xml.matches("</testsuites>").count(), 1);
}

#[test]
fn output_parses_back_with_hostile_names_intact() {
    for (name, report) in fixtures::all() {
        let xml = render(&report);
        let parsed = match Report::deserialize_from_str(&xml) {
            Ok(p) => p,
            Err(e) => panic!("{name}: {e}\n{xml}"),
        };
        assert_eq!(
            parsed.failures + parsed.errors == 0,
            report.passed,
            "{name}"
        );
    }
    let parsed = Report::deserialize_from_str(&render(&fixtures::hostile())).ok();
    let names: Vec<String> = parsed
        .iter()
        .flat_map(|r| &r.test_suites)
        .flat_map(|s| &s.test_cases)
        .map(|c| c.name.to_string())
        .collect();
    assert!(names.contains(&"evil</testcase>]]><script>alert(1)</script>".to_string()));
    assert!(names.contains(&"ansi red test, with: comma".to_string()));
}

/// The testsuites of `xml` whose name starts with `prefix`, each as its text.
fn suites<'a>(xml: &'a str, prefix: &str) -> Vec<&'a str> {
    xml.split("<testsuite name=\"")
        .skip(1)
        .filter(|s| s.starts_with(prefix))
        .map(|s| s.split("</testsuite>").next().unwrap_or_default())
        .collect()
}

/// `failures + errors` of a testsuite's opening tag.
fn suite_failures(suite: &str) -> usize {
    let tag = suite.lines().next().unwrap_or_default();
    ["failures", "errors"]
        .iter()
        .map(|attr| {
            tag.split(&format!(" {attr}=\""))
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(usize::MAX / 4)
        })
        .sum()
}

#[test]
fn evals_suites_fail_exactly_when_the_phase_fails() {
    for (name, report) in fixtures::all() {
        let xml = render(&report);
        let evals = suites(&xml, "evals");
        assert!(!evals.is_empty(), "{name}");
        let failures: usize = evals.iter().map(|s| suite_failures(s)).sum();
        assert_eq!(
            failures > 0,
            report.phases.evals.fails(),
            "{name}: {evals:?}"
        );
    }
}

#[test]
fn misses_are_failures_at_their_yaml_line_with_the_why() {
    let options = JunitOptions {
        file_attrs: true,
        places: Places::default(),
    };
    let xml = render_with(&fixtures::evals_failing(), &options);
    let case = xml
        .lines()
        .find(|l| l.contains(" name=\"ord-refund\""))
        .unwrap_or_default();
    assert!(
        case.starts_with("        <testcase classname=\"toolproof.evals.start_refund\""),
        "{case}"
    );
    assert!(
        case.ends_with("file=\"toolproof.yaml\" line=\"60\">"),
        "{case}"
    );
    // What were properties is in the text: why, critical, trials.
    assert!(xml.contains(
        "<failure message=\"expected start_refund, got get_order\" type=\"tool-selection\">expected start_refund, got get_order\nwhy: complaint, not a lookup\ncritical: must be right on every trial, fails the run\n0/3 trials: picked get_order ×3\nprompt: Order 55219 arrived smashed"
    ), "{xml}");
    assert!(xml.contains("trials, ambiguous"), "{xml}");
    assert!(xml.contains(
        "<error message=\"provider error: 529 overloaded: still failing after 4 attempts (last retry-after 2s)\" type=\"provider\">"
    ));
    assert!(xml.contains(
        "<failure message=\"accuracy 25% (3/12) is below the minimum 90%\" type=\"eval-gate\">FAIL min_accuracy"
    ));
    // Every eval testcase is in the evals package, whatever the tool names.
    for suite in suites(&xml, "evals") {
        for line in suite.lines().filter(|l| l.contains("<testcase ")) {
            assert!(line.contains("classname=\"toolproof.evals"), "{line}");
        }
    }
    let parsed = Report::deserialize_from_str(&xml).ok();
    let suite = parsed
        .iter()
        .flat_map(|r| &r.test_suites)
        .find(|s| s.name.as_str() == "evals");
    assert_eq!(
        suite.map(|s| (s.tests, s.failures, s.errors)),
        Some((13, 8, 2))
    );
}

#[test]
fn provider_abort_is_an_error_and_every_case_skipped() {
    let xml = render(&fixtures::evals_abort());
    let evals = suites(&xml, "evals\"");
    assert_eq!(evals.len(), 1);
    let suite = evals[0];
    assert!(
        suite.starts_with("evals\" tests=\"4\" failures=\"0\" errors=\"1\" skipped=\"3\""),
        "{suite}"
    );
    assert!(suite.contains(
        "<error message=\"the provider could not be used: the provider rejected the request: 401 Unauthorized: Incorrect API key provided\" type=\"provider\">"
    ), "{suite}");
    assert!(suite.contains(
        "<skipped message=\"not counted: the provider could not be used for every case\"/>"
    ));
    assert_eq!(suite.matches("<skipped ").count(), 3);
}

#[test]
fn misses_within_the_gates_stay_visible_without_failing() {
    let xml = render(&fixtures::evals_within_gates());
    assert_eq!(totals(&xml).1 + totals(&xml).2, 0, "{xml}");
    assert!(!xml.contains("<property name=\"outcome\""), "{xml}");
    assert!(xml.contains(
        "<system-out>MISS (within the gates: the model passed): expected get_order, got get_order: argument `order_id` is \"55291\", expected \"55219\"\nargument"
    ), "{xml}");
    assert!(xml.contains("misses within the gates: ord-status"));
}

#[test]
fn evals_without_results_keep_one_testcase() {
    let mut report = fixtures::all_passed();
    report.phases.evals = Phase::skipped("no evals section in toolproof.yaml");
    let xml = render(&report);
    let suite = suites(&xml, "evals\"");
    assert_eq!(suite.len(), 1);
    assert!(suite[0].contains("<testcase classname=\"toolproof.evals\" name=\"evals\" time=\"0.000\">\n            <skipped message=\"no evals section in toolproof.yaml\"/>"), "{xml}");
    let failing = render(&fixtures::failing());
    let suite = suites(&failing, "evals\"");
    assert!(
        suite[0].contains("<error message=\"the server could not be restarted after it exited\"/>"),
        "{failing}"
    );
}

#[test]
fn several_models_get_a_suite_each() {
    let xml = render(&fixtures::evals_models());
    let sonnet = suites(&xml, "evals (claude-sonnet-4-5)");
    let haiku = suites(&xml, "evals (claude-haiku-4-5)");
    assert_eq!((sonnet.len(), haiku.len()), (1, 1), "{xml}");
    assert_eq!(suite_failures(sonnet[0]), 0);
    assert_eq!(suite_failures(haiku[0]), 2);
    assert!(haiku[0].contains("<skipped message=\"not run: no cached answer and --offline\"/>"));
}

#[test]
fn flaky_is_success_that_says_so() {
    let xml = render(&fixtures::all_passed());
    assert!(xml.contains("<testcase classname=\"toolproof.tests.echo\" name=\"echo contains and regex\" time=\"0.012\">\n            <system-out>flaky: passed on attempt 2</system-out>"), "{xml}");
    assert_eq!(totals(&xml).1, 0);
    assert!(xml.ends_with("</testsuites>\n"));
}
