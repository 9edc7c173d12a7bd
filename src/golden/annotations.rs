//! Tests of the workflow annotations: order, limits, paths, escaping.

use super::fixtures;
use crate::outcome::RunReport;
use crate::outcome::{Finding, Severity};
use crate::report::annotations::*;
use crate::report::places::Places;

#[test]
fn snapshots() {
    fixtures::snapshot_settings().bind(|| {
        for (name, report) in fixtures::all() {
            insta::assert_snapshot!(format!("annotations_{name}"), render(&report));
        }
    });
}

/// Parses a workflow command line the way the runner does: after `::`, the command info
/// runs to the next `::`, properties are split at `,` and `=`.
type Parsed = (String, Vec<(String, String)>, String);

fn parse(line: &str) -> Option<Parsed> {
    let rest = line.trim_start().strip_prefix("::")?;
    let end = rest.find("::")?;
    let (info, message) = (&rest[..end], &rest[end + 2..]);
    let (command, props) = info.split_once(' ').unwrap_or((info, ""));
    let props = props
        .split(',')
        .filter(|p| !p.is_empty())
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Some((command.to_string(), props, message.to_string()))
}

#[test]
fn untrusted_text_cannot_inject_commands() {
    let out = render(&fixtures::hostile());
    for line in out.lines() {
        let (command, props, message) = parse(line).unwrap_or_default();
        assert!(
            ["error", "warning", "notice"].contains(&command.as_str()),
            "{line}"
        );
        for (key, _) in &props {
            assert!(["file", "line", "title"].contains(&key.as_str()), "{line}");
        }
        assert!(!message.contains('\n') && !message.contains('\r'));
        assert!(!line.contains('\x1b'));
    }
    // Each line of output is one annotation we made: the injected ones stayed data.
    assert_eq!(out.lines().count(), 9, "{out}");
    assert!(!out.contains("##[error]"));
    assert!(out.contains("%0A::set-output name=x::y"));
    assert!(out.contains("title=toolproof test ansi red test%2C with%3A comma::"));
    assert!(!out.contains("sk-live-123456"));
}

#[test]
fn message_starting_with_colons_stays_data() {
    let mut report = fixtures::all_passed();
    report.passed = false;
    report.config_file = None;
    report.phases.tests.results.retain(|t| t.attempts == 1);
    report.phases.checks.results.findings.push(Finding {
        tool: "::error::".into(),
        tool_index: None,
        check: "x::y".into(),
        severity: Severity::Error,
        message: "\n::set-output name=x::y".into(),
        hint: None,
        fails: true,
    });
    let out = render(&report);
    assert_eq!(
        out,
        "::error title=toolproof x%3A%3Ay::::error::: %0A::set-output name=x::y\n"
    );
    let (command, props, message) = parse(out.trim_end()).unwrap_or_default();
    assert_eq!(command, "error");
    assert_eq!(
        props,
        [("title".to_string(), "toolproof x%3A%3Ay".to_string())]
    );
    assert!(message.starts_with("::error:::"));
}

#[test]
fn at_most_ten_per_severity_then_a_notice() {
    let mut report = fixtures::all_passed();
    report.passed = false;
    report.phases.tests.results.retain(|t| t.attempts == 1);
    let finding = |i: usize, severity| Finding {
        tool: format!("t{i}"),
        tool_index: Some(i),
        check: "description".into(),
        severity,
        message: "no description".into(),
        hint: None,
        fails: severity == Severity::Error,
    };
    report.phases.checks.results.findings = (0..25)
        .map(|i| finding(i, Severity::Error))
        .chain((0..12).map(|i| finding(i, Severity::Warning)))
        .collect();
    let out = render(&report);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("::error ")).count(),
        10
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("::warning ")).count(),
        10
    );
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(
            "::notice title=toolproof::15 more errors and 2 more warnings are not annotated"
        ),
        "{last}"
    );
}

#[test]
fn phase_errors_caused_by_the_server_are_not_repeated() {
    let out = render(&fixtures::unreachable());
    assert_eq!(out.lines().count(), 1, "{out}");
    let mut report = fixtures::all_passed();
    report.passed = false;
    report.phases.evals = crate::outcome::Phase::error("provider unusable: 401");
    assert!(render(&report).contains("::error title=toolproof evals::provider unusable: 401\n"));
}

#[test]
fn tests_point_at_their_yaml_line() {
    let out = render(&fixtures::failing());
    assert!(out.contains(
        "::error file=toolproof.yaml,line=30,title=toolproof test wrong expectation retried::$.result: expected 3, got 2%0A(after 2 attempts) (tool add)\n"
    ), "{out}");
}

#[test]
fn eval_misses_point_at_their_case_critical_first() {
    let out = render(&fixtures::evals_failing());
    let evals: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("title=toolproof eval"))
        .collect();
    assert!(evals[0].starts_with("::error file=toolproof.yaml,title=toolproof evals::accuracy 25%25 (3/12) is below the minimum 90%25%0A1 critical case missed"), "{out}");
    assert_eq!(
        evals[1],
        "::error file=toolproof.yaml,line=60,title=toolproof eval ord-refund::expected start_refund, got get_order (why: complaint, not a lookup) [critical: must be right on every trial] [0/3 trials]"
    );
    assert!(evals[2].starts_with("::error file=toolproof.yaml,line=52,title=toolproof eval wx-past::expected get_weather_history, got get_weather (why: past tense must not hit the live tool)"));
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("::error file=toolproof.yaml,line="))
            .count(),
        7
    );
    assert!(out.contains(
        "::error file=toolproof.yaml,title=toolproof evals%3A provider errors::2 cases got no usable answer"
    ));
    assert!(out.contains(
        "::warning file=toolproof.yaml,title=toolproof eval miss rate::the miss rate is rising: 2%25 → 75%25"
    ));
    // The gates say why the phase failed: no extra phase-level annotation.
    assert!(!out.contains("title=toolproof evals::failed"));
}

#[test]
fn provider_abort_is_one_error_and_no_case() {
    let out = render(&fixtures::evals_abort());
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error")).collect();
    assert_eq!(errors.len(), 1, "{out}");
    assert!(errors[0].starts_with("::error file=toolproof.yaml,title=toolproof evals%3A the provider could not be used::the provider rejected the request: 401"), "{out}");
}

#[test]
fn misses_within_the_gates_are_warnings_and_cases_files_are_used() {
    let out = render(&fixtures::evals_within_gates());
    assert_eq!(
        out,
        "::warning file=evals/cases.yaml,line=44,title=toolproof eval ord-status::expected get_order, got get_order: argument `order_id` is \"55291\", expected \"55219\" (why: order number in the text)\n"
    );
}

#[test]
fn eval_misses_count_toward_the_cap() {
    let mut report = fixtures::evals_failing();
    if let Some(ev) = report.phases.evals.results.as_mut() {
        let m = &mut ev.models[0];
        let miss = m.cases[2].clone();
        m.cases = vec![miss; 30];
    }
    let out = render(&report);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("::error ")).count(),
        10
    );
    assert!(
        out.lines()
            .last()
            .unwrap_or_default()
            .starts_with("::notice title=toolproof::21 more errors"),
        "{out}"
    );
}

/// The report of a run where everything goes wrong at once: 25 failing findings, the failing
/// tests, and evals that fail their gates with a critical miss.
fn crowded() -> RunReport {
    let mut report = fixtures::failing();
    report.error = None;
    report.phases.evals = fixtures::evals_failing().phases.evals;
    report.phases.checks.results.findings = (0..25)
        .map(|i| {
            fixtures::tool_finding(
                i,
                &format!("t{i}"),
                "description",
                Severity::Error,
                "no description",
            )
        })
        .collect();
    report
}

#[test]
fn gates_and_critical_misses_come_first_then_broken_definitions_then_tests() {
    let out = render(&crowded());
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), MAX_PER_SEVERITY, "{out}");
    assert!(
        errors[0].contains("title=toolproof evals::accuracy 25%25"),
        "{out}"
    );
    assert!(
        errors[1].contains("title=toolproof eval ord-refund::"),
        "{out}"
    );
    assert!(errors[1].contains("[critical: must be right on every trial]"));
    // The definitions that fail the run, often why cases miss: half the cap at most.
    for (i, line) in errors[2..7].iter().enumerate() {
        assert!(
            line.contains(&format!(
                "title=toolproof description::t{i}: no description"
            )),
            "{out}"
        );
    }
    // The three failed tests come next, in YAML order; the other misses are counted.
    assert!(
        errors[7].contains("title=toolproof test wrong expectation retried::"),
        "{out}"
    );
    assert!(errors[8].contains("title=toolproof test echo contains and regex::"));
    assert!(errors[9].contains("title=toolproof test echo crash kills the server::"));
    let notice = out.lines().last().unwrap_or_default();
    assert!(
        notice.starts_with("::notice title=toolproof::2") && notice.contains(" more errors and "),
        "{notice}"
    );
}

#[test]
fn findings_fill_what_the_rest_leaves() {
    let mut report = crowded();
    report.phases.evals = fixtures::all_passed().phases.evals;
    let out = render(&report);
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    let kinds: Vec<&str> = errors
        .iter()
        .map(|l| {
            if l.contains("title=toolproof test ") {
                "test"
            } else if l.contains("title=toolproof description::") {
                "finding"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "finding", "finding", "finding", "finding", "finding", "test", "test", "test",
            "finding", "finding"
        ],
        "{out}"
    );
    assert!(errors[0].contains("::t0: no description"), "{out}");
    assert!(errors[8].contains("::t5: no description"), "{out}");
}

#[test]
fn files_are_the_repository_paths_settings_found() {
    let places = Places::new(
        vec![
            ("toolproof.yaml".into(), "ci/toolproof.yaml".into()),
            ("evals/cases.yaml".into(), "ci/evals/cases.yaml".into()),
        ],
        Some(5),
        Some(30),
    );
    let out = render_with(&crowded(), &places);
    for line in out.lines().filter(|l| !l.starts_with("::notice")) {
        assert!(line.contains(" file=ci/toolproof.yaml,line="), "{line}");
    }
    assert!(out.contains("::error file=ci/toolproof.yaml,line=30,title=toolproof evals::"));
    assert!(
        out.contains("::error file=ci/toolproof.yaml,line=60,title=toolproof eval ord-refund::")
    );
    assert!(out.contains(
        "::error file=ci/toolproof.yaml,line=30,title=toolproof test wrong expectation retried::"
    ));
    let mut report = fixtures::failing();
    report.error = None;
    let out = render_with(&report, &places);
    assert!(
        out.contains("::error file=ci/toolproof.yaml,line=5,title=toolproof duplicate-name::add: "),
        "{out}"
    );
    let within = render_with(&fixtures::evals_within_gates(), &places);
    assert!(
        within.starts_with("::warning file=ci/evals/cases.yaml,line=44,"),
        "{within}"
    );
    // Without a `checks:` key, a finding points at the file alone.
    let out = render_with(&report, &Places::new(places_paths(), None, None));
    assert!(
        out.contains("::error file=ci/toolproof.yaml,title=toolproof duplicate-name::"),
        "{out}"
    );
}

fn places_paths() -> Vec<(String, String)> {
    vec![("toolproof.yaml".into(), "ci/toolproof.yaml".into())]
}

#[test]
fn file_properties_are_escaped() {
    let places = Places::new(
        vec![("toolproof.yaml".into(), "a,b:c%d/toolproof.yaml".into())],
        None,
        None,
    );
    let out = render_with(&fixtures::failing(), &places);
    assert!(
        out.contains("::error file=a%2Cb%3Ac%25d/toolproof.yaml,line=30,title="),
        "{out}"
    );
    for line in out.lines() {
        let (_, props, _) = parse(line).unwrap_or_default();
        assert!(
            props
                .iter()
                .all(|(k, _)| ["file", "line", "title"].contains(&k.as_str())),
            "{line}"
        );
    }
}

#[test]
fn passing_run_without_warnings_prints_nothing() {
    let mut report = fixtures::all_passed();
    report.phases.tests.results.retain(|t| t.attempts == 1);
    assert_eq!(render(&report), "");
}
