//! The gates a model is held to, each with a one-line detail: the provider, `--offline`, the
//! cases, the answers, `min_accuracy`, the critical cases and `min_wilson_lower`, in that
//! order.

use super::{Rules, Tally};
use crate::outcome::rates::{meets, percent_against};
use crate::outcome::{CaseStatus, EvalCaseResult, Gate, GateKind};
use crate::report::escape::{first_line, plural};

/// Every gate that applies, in the order checked.
pub(super) fn check(
    rules: &Rules,
    error: Option<&str>,
    tally: &Tally,
    cases: &[EvalCaseResult],
) -> Vec<Gate> {
    let mut gates = Vec::new();
    if let Some(e) = error {
        gates.push(gate(
            GateKind::Provider,
            false,
            format!("the provider could not be used: {e}"),
        ));
    }
    if !tally.uncached.is_empty() {
        gates.push(offline(&tally.uncached));
    }
    if cases.is_empty() {
        gates.push(gate(
            GateKind::Cases,
            false,
            "there are no eval cases".into(),
        ));
    }
    if error.is_none() && tally.nothing_answered() {
        gates.push(no_answers(tally));
    }
    gates.push(min_accuracy(rules.min_accuracy, error.is_some(), tally));
    if cases.iter().any(|c| c.critical) {
        gates.push(critical(cases));
    }
    if let Some(min) = rules.min_wilson_lower {
        gates.push(min_wilson_lower(min, error.is_some(), tally));
    }
    gates
}

fn gate(kind: GateKind, passed: bool, detail: String) -> Gate {
    Gate {
        kind,
        passed,
        detail,
    }
}

fn offline(uncached: &[String]) -> Gate {
    let n = uncached.len();
    gate(
        GateKind::Offline,
        false,
        format!(
            "{n} case{} no cached answer and --offline forbids asking: {}",
            if n == 1 { " has" } else { "s have" },
            uncached.join(", ")
        ),
    )
}

/// Every trial that was asked failed at the provider: nothing was measured.
fn no_answers(t: &Tally) -> Gate {
    let mut detail = format!(
        "no case got an answer from the provider: {} of {} trial{} failed",
        t.provider_failed,
        t.trials_run,
        plural(t.trials_run)
    );
    if let Some(first) = &t.first_provider_error {
        detail.push_str(&format!(", the first with: {}", first_line(first)));
    }
    gate(GateKind::Answers, false, detail)
}

fn min_accuracy(min: f64, unusable: bool, t: &Tally) -> Gate {
    let (value, bar) = percent_against(t.accuracy, min);
    let (passed, detail) = if unusable {
        (
            false,
            format!("accuracy not measured: the provider could not be used (minimum {bar})"),
        )
    } else if t.nothing_answered() {
        (
            false,
            format!("accuracy not measured: no case got an answer (minimum {bar})"),
        )
    } else if t.asked_nothing() {
        (
            false,
            format!("accuracy not measured: no case was asked (minimum {bar})"),
        )
    } else if t.total == 0 {
        (
            false,
            format!("accuracy not measured: there are no cases (minimum {bar})"),
        )
    } else {
        let passed = meets(t.accuracy, min);
        let verb = if passed { "meets" } else { "is below" };
        (
            passed,
            format!(
                "accuracy {value} ({}/{}) {verb} the minimum {bar}",
                t.correct, t.total
            ),
        )
    };
    gate(GateKind::MinAccuracy, passed, detail)
}

/// Every critical case must be right on every trial; a case that was never asked or got no
/// usable answer fails the gate too, but is not called a miss.
fn critical(cases: &[EvalCaseResult]) -> Gate {
    let named = |status: CaseStatus| -> Vec<&str> {
        cases
            .iter()
            .filter(|c| c.critical && c.status == status)
            .map(|c| c.name.as_str())
            .collect()
    };
    let mut parts = Vec::new();
    for (status, what) in [
        (CaseStatus::Miss, "missed"),
        (
            CaseStatus::ProviderError,
            "got no usable answer from the provider",
        ),
        (CaseStatus::NotRun, "not run"),
    ] {
        let names = named(status);
        if !names.is_empty() {
            parts.push(format!(
                "{} critical case{} {what}: {}",
                names.len(),
                plural(names.len()),
                names.join(", ")
            ));
        }
    }
    if parts.is_empty() {
        gate(
            GateKind::Critical,
            true,
            "every critical case is right on every trial".into(),
        )
    } else {
        gate(GateKind::Critical, false, parts.join("; "))
    }
}

fn min_wilson_lower(min: f64, unusable: bool, t: &Tally) -> Gate {
    let (value, bar) = percent_against(t.wilson_lower, min);
    if unusable {
        return gate(
            GateKind::MinWilsonLower,
            false,
            format!(
                "Wilson 95% lower bound not measured: the provider could not be used (minimum {bar})"
            ),
        );
    }
    let passed = meets(t.wilson_lower, min);
    let verb = if passed { "meets" } else { "is below" };
    gate(
        GateKind::MinWilsonLower,
        passed,
        format!(
            "Wilson 95% lower bound {value} ({}/{} trials) {verb} the minimum {bar}",
            t.trials_passed, t.trials_run
        ),
    )
}
