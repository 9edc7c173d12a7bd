//! Scoring the curve, pure: a scored model run becomes one point of the curve; the points
//! give each model's breaking point and `must_hold` verdict; the phase's status and one-line
//! verdict are worded here. The engine and the report fixtures both score here.

use std::collections::HashSet;

use crate::outcome::rates::percent_against;
use crate::outcome::{
    AnswerKind, CaseStatus, ModelEval, NO_TOOL, Phase, PhaseStatus, StressBreak, StressMiss,
    StressModel, StressPoint, StressResults, ToolOrder,
};

/// Where a point's tool list came from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListFacts<'a> {
    /// Distractors added.
    pub distractors: usize,
    /// Its order.
    pub order: ToolOrder,
    /// Tools offered in all.
    pub tools: usize,
    /// sha256 of the list as sent.
    pub hash: &'a str,
    /// Answered by the evals phase (the same list).
    pub from_evals: bool,
}

/// One point of the curve from a model's scored run on a tool list; `drawn` names the
/// distractors, so a miss says whether one of them stole the case.
pub(crate) fn point(m: &ModelEval, list: ListFacts<'_>, drawn: &HashSet<&str>) -> StressPoint {
    let misses = m
        .cases
        .iter()
        .filter(|c| c.status == CaseStatus::Miss)
        .map(|c| {
            let wrong = c.trials.iter().find(|t| !t.passed);
            let picked = wrong
                .and_then(|t| t.calls.first())
                .map_or_else(|| NO_TOOL.to_owned(), |call| call.tool.clone());
            StressMiss {
                case: c.name.clone(),
                expected: c.expect_tool.clone().unwrap_or_else(|| NO_TOOL.to_owned()),
                distractor: drawn.contains(picked.as_str()),
                picked,
            }
        })
        .collect();
    let not_run = m
        .cases
        .iter()
        .filter(|c| c.trials.iter().any(|t| t.kind == AnswerKind::NotAsked))
        .count();
    StressPoint {
        distractors: list.distractors,
        order: list.order,
        tools: list.tools,
        tool_list_hash: list.hash.to_owned(),
        total: m.total,
        correct: m.correct,
        accuracy: m.accuracy,
        trial_accuracy: m.trial_accuracy,
        wilson_lower: m.wilson_lower,
        below: m.accuracy < m.min_accuracy,
        not_run,
        provider_errors: m.provider_errors,
        from_evals: list.from_evals,
        misses,
    }
}

/// Whether a point can be read: every case got a usable answer on every trial.
fn readable(p: &StressPoint) -> bool {
    p.complete() && p.provider_errors == 0 && p.total > 0
}

/// Fills each model's breaking point (the smallest count whose accuracy fell below the
/// minimum in any order, among readable points) and its `must_hold` verdict.
pub(crate) fn finish(results: &mut StressResults) {
    let must_hold = results.must_hold;
    let min = results.min_accuracy;
    for m in &mut results.models {
        m.points.sort_by_key(|p| (p.distractors, p.order));
        m.breaks_at = m
            .points
            .iter()
            .find(|p| readable(p) && p.below)
            .map(|p| StressBreak {
                distractors: p.distractors,
                order: p.order,
                accuracy: p.accuracy,
            });
        m.holds = must_hold.map(|limit| {
            let unread = m
                .points
                .iter()
                .any(|p| p.distractors <= limit && !readable(p));
            !unread && m.breaks_at.is_none_or(|b| b.distractors > limit)
        });
    }
    results.headroom = results
        .models
        .iter()
        .filter_map(|m| super::headroom::of(m, min))
        .collect();
}

/// The phase for finished `results`: failed when a model broke `must_hold` or (under
/// `--offline`) answers were missing, passed otherwise. The reason is [`verdict`].
pub(crate) fn phase(
    results: StressResults,
    duration_ms: f64,
    offline: bool,
) -> Phase<Option<StressResults>> {
    let missing = results.not_run();
    let status = if results.gate_failed() || (offline && missing > 0) {
        PhaseStatus::Failed
    } else {
        PhaseStatus::Passed
    };
    let mut reason = verdict(&results);
    if offline && missing > 0 {
        reason.push_str(&format!(
            "; {missing} case{} had no cached answer (--offline)",
            crate::report::escape::plural(missing)
        ));
    }
    Phase {
        status,
        reason: Some(reason),
        duration_ms,
        results: Some(results),
    }
}

/// `selection breaks at 25 distractors: 67% (6/9) in server order, minimum 85%`, or
/// `selection holds up to 100 distractors: lowest 89% (8/9), minimum 85%`, per model when
/// there are several; then the `must_hold` verdict.
pub(crate) fn verdict(results: &StressResults) -> String {
    let each: Vec<String> = results
        .models
        .iter()
        .map(|m| {
            let line = model_line(m, results.min_accuracy);
            if results.models.len() > 1 {
                format!("{}: {line}", m.model)
            } else {
                line
            }
        })
        .collect();
    let mut out = if each.is_empty() {
        "no model was asked".to_owned()
    } else {
        each.join(" · ")
    };
    if let Some(limit) = results.must_hold {
        let held = results.models.iter().all(|m| m.holds == Some(true));
        out.push_str(&format!(
            "; must hold up to {limit} distractor{}: {}",
            crate::report::escape::plural(limit),
            if held { "held" } else { "failed" }
        ));
    }
    out
}

/// One model's line of the verdict.
pub(crate) fn model_line(m: &StressModel, min: f64) -> String {
    let readable: Vec<&StressPoint> = m.points.iter().filter(|p| readable(p)).collect();
    if let Some(b) = m.breaks_at {
        let p = m.point(b.distractors, b.order);
        let (value, bar) = percent_against(b.accuracy, min);
        let counts = p.map_or_else(String::new, |p| format!(" ({}/{})", p.correct, p.total));
        return format!(
            "selection breaks at {} distractor{}: {value}{counts} {}, minimum {bar}",
            b.distractors,
            crate::report::escape::plural(b.distractors),
            b.order.phrase()
        );
    }
    let Some(lowest) = readable
        .iter()
        .min_by(|a, b| a.accuracy.total_cmp(&b.accuracy))
    else {
        return "no tool list got an answer to every case".to_owned();
    };
    let largest = readable.iter().map(|p| p.distractors).max().unwrap_or(0);
    let (value, bar) = percent_against(lowest.accuracy, min);
    format!(
        "selection holds up to {largest} distractor{}: lowest {value} ({}/{}), minimum {bar}",
        crate::report::escape::plural(largest),
        lowest.correct,
        lowest.total
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(n: usize, order: ToolOrder, correct: usize, total: usize, min: f64) -> StressPoint {
        let accuracy = correct as f64 / total as f64;
        StressPoint {
            distractors: n,
            order,
            tools: 5 + n,
            tool_list_hash: String::new(),
            total,
            correct,
            accuracy,
            trial_accuracy: accuracy,
            wilson_lower: 0.0,
            below: accuracy < min,
            not_run: 0,
            provider_errors: 0,
            from_evals: false,
            misses: Vec::new(),
        }
    }

    fn results(points: Vec<StressPoint>, must_hold: Option<usize>) -> StressResults {
        let mut r = StressResults {
            min_accuracy: 0.8,
            must_hold,
            models: vec![StressModel {
                model: "m".into(),
                points,
                ..StressModel::default()
            }],
            ..StressResults::default()
        };
        finish(&mut r);
        r
    }

    #[test]
    fn the_breaking_point_is_the_smallest_count_below_the_minimum_in_any_order() {
        use ToolOrder::*;
        let r = results(
            vec![
                p(50, Server, 6, 10, 0.8),
                p(0, Server, 10, 10, 0.8),
                p(10, Server, 9, 10, 0.8),
                p(10, Reversed, 7, 10, 0.8),
                p(25, Server, 7, 10, 0.8),
            ],
            Some(10),
        );
        let m = &r.models[0];
        assert_eq!(
            m.breaks_at,
            Some(StressBreak {
                distractors: 10,
                order: Reversed,
                accuracy: 0.7
            })
        );
        assert_eq!(m.holds, Some(false));
        assert_eq!(m.points[0].distractors, 0, "sorted by count");
        assert_eq!(
            verdict(&r),
            "selection breaks at 10 distractors: 70% (7/10) reversed, minimum 80%; must hold up to 10 distractors: failed"
        );
        let gated = phase(r, 1.0, false);
        assert_eq!(gated.status, PhaseStatus::Failed);
    }

    #[test]
    fn a_curve_that_never_falls_below_holds_and_passes() {
        use ToolOrder::*;
        let r = results(
            vec![p(0, Server, 10, 10, 0.8), p(100, Server, 8, 10, 0.8)],
            Some(50),
        );
        assert_eq!(r.models[0].breaks_at, None);
        assert_eq!(r.models[0].holds, Some(true));
        assert_eq!(
            verdict(&r),
            "selection holds up to 100 distractors: lowest 80% (8/10), minimum 80%; must hold up to 50 distractors: held"
        );
        assert_eq!(phase(r, 1.0, false).status, PhaseStatus::Passed);
    }

    #[test]
    fn without_must_hold_a_break_is_measured_not_failed() {
        use ToolOrder::*;
        let r = results(vec![p(0, Server, 5, 10, 0.8)], None);
        assert_eq!(r.models[0].holds, None);
        let ph = phase(r, 1.0, false);
        assert_eq!(ph.status, PhaseStatus::Passed);
        assert_eq!(
            ph.reason.as_deref(),
            Some("selection breaks at 0 distractors: 50% (5/10) in server order, minimum 80%")
        );
    }

    #[test]
    fn lists_missing_answers_are_not_read_and_fail_offline() {
        use ToolOrder::*;
        let mut missing = p(25, Server, 2, 10, 0.8);
        missing.not_run = 8;
        let r = results(vec![p(0, Server, 10, 10, 0.8), missing], Some(25));
        assert_eq!(r.models[0].breaks_at, None, "an unread list does not break");
        assert_eq!(r.models[0].holds, Some(false), "nor can it hold");
        let ph = phase(r.clone(), 1.0, true);
        assert_eq!(ph.status, PhaseStatus::Failed);
        assert!(
            ph.reason
                .as_deref()
                .is_some_and(|r| r.ends_with("8 cases had no cached answer (--offline)")),
            "{:?}",
            ph.reason
        );
        let none = results(
            vec![StressPoint {
                not_run: 10,
                ..p(0, Server, 0, 10, 0.8)
            }],
            None,
        );
        assert_eq!(
            model_line(&none.models[0], 0.8),
            "no tool list got an answer to every case"
        );
    }
}
