//! The evals suites of the JUnit report: one per model (`evals`, or `evals (<model>)` with
//! several), a testcase `accuracy` carrying the gates, then one testcase per case at its YAML
//! line. Every word comes from the [`EvalsView`]; this file lays it out as JUnit.

use std::collections::HashMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::{body, classname, message, one_line, phase_case, secs, segment};
use crate::outcome::{CaseStatus, NO_TOOL, PhaseOverview, PhaseStatus};
use crate::report::evals_view::{CaseRow, EvalsView, ModelOutcome, ModelView};
use crate::report::places::Places;

/// Where the cases of one model are: the phase segment of their classnames, and the files.
struct Place<'a> {
    /// `evals`, or `evals.<model>` with several models.
    phase: String,
    /// The config file as the repository knows it.
    config_file: Option<&'a str>,
    places: &'a Places,
}

/// One suite per model; the phase's own testcase is added when the phase failed for a reason
/// no model carries.
pub(super) fn suites(
    phase: &PhaseOverview<'_>,
    view: &EvalsView<'_>,
    config_file: Option<&str>,
    places: &Places,
) -> Vec<TestSuite> {
    let mut suites: Vec<TestSuite> = view
        .models
        .iter()
        .map(|m| {
            let (name, place) = if view.several {
                let model = segment(m.model);
                (
                    format!("evals ({})", one_line(m.model)),
                    format!("evals.{model}"),
                )
            } else {
                ("evals".to_string(), "evals".to_string())
            };
            let place = Place {
                phase: place,
                config_file,
                places,
            };
            let mut suite = TestSuite::new(name);
            suite.set_time(if view.several {
                secs(m.rows.iter().map(|r| r.latency_ms).sum())
            } else {
                secs(phase.duration_ms)
            });
            suite.add_property(Property::new("provider", one_line(view.provider)));
            suite.add_property(Property::new("model", one_line(m.model)));
            suite.add_test_case(accuracy_case(view, m, &place));
            let mut seen: HashMap<String, usize> = HashMap::new();
            for row in &m.rows {
                let n = seen.entry(one_line(row.name)).or_insert(0);
                *n += 1;
                suite.add_test_case(case(m, row, *n, &place));
            }
            suite
        })
        .collect();
    if matches!(phase.status, PhaseStatus::Failed | PhaseStatus::Error)
        && view.passing
        && let Some(first) = suites.first_mut()
    {
        first.add_test_case(phase_case(phase));
    }
    suites
}

/// The testcase standing for a model's gates: an `<error>` when the provider could not be used,
/// a `<failure>` when a gate did not hold.
fn accuracy_case(view: &EvalsView<'_>, m: &ModelView<'_>, place: &Place<'_>) -> TestCase {
    let gates: Vec<String> = m
        .gates
        .iter()
        .map(|g| {
            let mark = if g.passed { "PASS" } else { "FAIL" };
            format!("{mark} {}: {}", g.kind.as_str(), g.detail)
        })
        .collect();
    let status = match m.outcome {
        ModelOutcome::Unusable => {
            let error = format!(
                "the provider could not be used: {}",
                m.error.unwrap_or_default()
            );
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_message(message(&error)).set_type("provider");
            let not_scored = m.not_scored.as_deref().unwrap_or_default();
            s.set_description(body(&format!("{error}\n{not_scored}")));
            s
        }
        ModelOutcome::ToolsUnseen => {
            let error = format!(
                "the tools never reached the model: {}",
                m.tools_unseen.as_deref().unwrap_or_default()
            );
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_message(message(&error))
                .set_type("tools-not-shown")
                .set_description(body(&error));
            s
        }
        ModelOutcome::Failed => {
            let first = m
                .failed_gates
                .first()
                .map_or("the evals failed", |g| g.detail.as_str());
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(message(first))
                .set_type("eval-gate")
                .set_description(body(&gates.join("\n")));
            s
        }
        ModelOutcome::Passed => TestCaseStatus::success(),
    };
    let mut case = TestCase::new("accuracy", status);
    case.set_classname(format!("toolproof.{}", place.phase))
        .set_time(Duration::ZERO);
    case.set_system_out(body(&accuracy_out(view, m, gates).join("\n")));
    case
}

/// The lines of the `accuracy` testcase's `<system-out>`.
fn accuracy_out(view: &EvalsView<'_>, m: &ModelView<'_>, gates: Vec<String>) -> Vec<String> {
    let accuracy = match (&m.accuracy, &m.correct) {
        (Some(accuracy), Some(correct)) => format!("{accuracy} ({correct})"),
        _ => "n/a".to_string(),
    };
    let mut out = vec![format!(
        "provider={} model={} accuracy={accuracy} minimum={}",
        one_line(view.provider),
        one_line(m.model),
        m.minimum
    )];
    out.extend(m.trials_line.clone());
    out.extend(m.counts_line.clone());
    out.extend(m.detects_line.clone());
    out.extend(m.rates_lines.iter().cloned());
    out.extend(m.shared_errors.iter().cloned());
    if !m.outcome.fails() {
        out.extend(gates);
        let tolerated = m.tolerated();
        if !tolerated.is_empty() {
            out.push(format!("misses within the gates: {}", tolerated.join(", ")));
        }
    }
    if let Some(names) = &m.critical_misses {
        out.push(format!("critical misses: {names}"));
    }
    if let Some(names) = &m.uncached {
        out.push(format!(
            "not in the cache (--offline): {names}\n{}",
            view.offline_hint
        ));
    }
    if !m.confusion_lines.is_empty() {
        out.push(format!("confusion: {}", m.confusion_lines.join(", ")));
    }
    out.extend(m.dominant.iter().map(|l| format!("warning: {l}")));
    let with_ci = |share: &str, ci: &str| {
        if ci == "–" {
            share.to_owned()
        } else {
            format!("{share}, 95% CI {ci}")
        }
    };
    out.extend(m.tools.iter().map(|t| {
        format!(
            "tool {}: recall {}; precision {}",
            one_line(t.tool),
            with_ci(&t.recall, &t.recall_ci),
            with_ci(&t.precision, &t.precision_ci)
        )
    }));
    out.extend(view.left_out.clone());
    out.extend(view.overrides.clone());
    out.push(view.cache.clone());
    out.extend(view.weights.clone());
    out.extend(view.concurrency.clone());
    out.extend(view.cache_warning.iter().map(|w| format!("warning: {w}")));
    if let Some(history) = &view.history {
        out.extend(history.lines.iter().map(|l| l.text()));
        out.extend(history.warnings.iter().cloned());
    }
    out
}

/// One labelled case. A miss is a `<failure>` and a provider error an `<error>` when the model
/// failed its gates; within the gates they are successes whose `<system-out>` says `MISS`.
fn case(m: &ModelView<'_>, row: &CaseRow<'_>, nth: usize, place: &Place<'_>) -> TestCase {
    let mut text = vec![
        format!("prompt: {}", row.prompt),
        format!("expected: {}", row.expected_long),
        format!("picked: {}", row.picked_long.join("\n")),
    ];
    if let Some(summary) = &row.context_summary {
        let turns = row.context.iter().map(|t| format!("  {t}"));
        let lines = std::iter::once(format!("context: {summary}")).chain(turns);
        text.splice(1..1, lines);
    }
    let fails = m.outcome.fails();
    let tolerated = !fails && matches!(row.status, CaseStatus::Miss | CaseStatus::ProviderError);
    let status = match row.status {
        CaseStatus::Correct => TestCaseStatus::success(),
        CaseStatus::NotRun => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(message(&row.message));
            s
        }
        _ if tolerated => TestCaseStatus::success(),
        CaseStatus::Miss | CaseStatus::ProviderError => {
            let (kind, ty) = if row.status == CaseStatus::Miss {
                (NonSuccessKind::Failure, "tool-selection")
            } else {
                (NonSuccessKind::Error, "provider")
            };
            let all: Vec<String> = row.details_with_why.iter().chain(&text).cloned().collect();
            let mut s = TestCaseStatus::non_success(kind);
            s.set_message(message(&row.message))
                .set_type(ty)
                .set_description(body(&all.join("\n")));
            s
        }
    };
    let name = if nth == 1 {
        one_line(row.name)
    } else {
        format!("{} (#{nth})", one_line(row.name))
    };
    let mut tc = TestCase::new(name, status);
    tc.set_classname(classname(&place.phase, row.expect_tool.unwrap_or(NO_TOOL)));
    case_attributes(&mut tc, row, place);
    let out: Option<Vec<String>> = match row.status {
        CaseStatus::Correct => Some(
            text.into_iter()
                .chain(row.details_with_why.clone())
                .chain(row.why.map(|why| format!("why: {why}")))
                .chain(
                    row.critical
                        .then(|| "critical: must be right on every trial".into()),
                )
                .collect(),
        ),
        _ if tolerated => {
            let lead = format!("MISS (within the gates: the model passed): {}", row.message);
            let rest = row.details_with_why.iter().cloned().chain(text);
            Some(std::iter::once(lead).chain(rest).collect())
        }
        CaseStatus::NotRun => row.asked.then_some(text),
        CaseStatus::Miss | CaseStatus::ProviderError => None,
    };
    if let Some(out) = out {
        tc.set_system_out(body(&out.join("\n")));
    }
    tc
}

/// Where the case is (its file as the repository knows it, and its line) and its time.
fn case_attributes(tc: &mut TestCase, row: &CaseRow<'_>, place: &Place<'_>) {
    let file = row.file.map(|f| place.places.file(f)).or(place.config_file);
    if let Some(file) = file {
        tc.extra.insert("file".into(), one_line(file).into());
        if let Some(line) = row.line {
            tc.extra.insert("line".into(), line.to_string().into());
        }
    }
    let asked = row.status != CaseStatus::NotRun;
    tc.set_time(if asked {
        secs(row.latency_ms)
    } else {
        Duration::ZERO
    });
}
