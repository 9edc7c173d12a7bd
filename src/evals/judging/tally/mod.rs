//! Scoring a model's eval run: labelled cases and the trials they got go in, a [`ModelEval`]
//! comes out (case statuses, accuracy, trial accuracy, the Wilson lower bound, critical misses,
//! uncached cases, provider errors, confusion pairs, per-tool recall and precision, the
//! abstention and over-trigger rates, and gates), and the phase's verdict is worded from it. Pure and synchronous: the engine and the report fixtures both score here.
//!
//! Rates are written by [`percent`] and [`percent_against`] wherever a report shows one.

mod confusion;
mod gates;
mod picks;
mod trials;
mod verdict;

#[cfg(test)]
mod tests;

use serde_json::Value;

use super::stats;
use crate::outcome::{
    AnswerKind, CaseStatus, EvalCaseResult, Gate, GateKind, ModelEval, ToolsUnseen, TrialResult,
};

pub(crate) use crate::outcome::NO_TOOL;
pub(crate) use trials::{answered, not_asked, provider_failed};
pub(crate) use verdict::phase;

/// One labelled case and the trials it got, in trial order.
#[derive(Debug, Clone)]
pub(crate) struct LabelledCase {
    /// Name (or the prompt, shortened).
    pub name: String,
    /// The prompt.
    pub prompt: String,
    /// Why the case exists.
    pub why: Option<String>,
    /// Must be right on every trial whatever the accuracy.
    pub critical: bool,
    /// YAML line.
    pub line: Option<u32>,
    /// File holding the case, when not the main config.
    pub file: Option<String>,
    /// Expected tool; `None` means no tool.
    pub expect_tool: Option<String>,
    /// Expected arguments (a subset), as a JSON object.
    pub expect_args: Value,
    /// Every trial.
    pub trials: Vec<TrialResult>,
}

/// What a model is held to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rules {
    /// The accuracy gate.
    pub min_accuracy: f64,
    /// The optional gate on the Wilson 95% lower bound of the trial accuracy.
    pub min_wilson_lower: Option<f64>,
    /// `--offline`: cases without a cached answer were not asked and fail the run.
    pub offline: bool,
    /// Trials per case as configured (reported when there are no cases).
    pub trials: u32,
}

/// The counts the gates and the report are made of.
#[derive(Debug, Clone, Default)]
struct Tally {
    total: usize,
    correct: usize,
    accuracy: f64,
    trials_run: usize,
    trials_passed: usize,
    wilson_lower: f64,
    uncached: Vec<String>,
    /// Trials that got no usable answer from the provider.
    provider_failed: usize,
    /// The first of their errors, in case order.
    first_provider_error: Option<String>,
    /// Trials the provider (or the cache) answered.
    answered: usize,
}

impl Tally {
    /// Whether the provider was asked and answered nothing at all: then no accuracy means
    /// anything, whatever the minimum.
    fn nothing_answered(&self) -> bool {
        self.answered == 0 && self.provider_failed > 0
    }

    /// Whether no trial of any case was asked at all (under `--offline`, none had a cached
    /// answer): nothing was measured, so there is no accuracy to report.
    fn asked_nothing(&self) -> bool {
        self.total > 0 && self.answered == 0 && self.provider_failed == 0
    }
}

/// Scores one model. `error` is why the provider could not be used: then nothing the model
/// answered counts, and every case is not run.
pub(crate) fn score_model(
    model: &str,
    rules: &Rules,
    error: Option<String>,
    cases: Vec<LabelledCase>,
) -> ModelEval {
    let trials = cases
        .iter()
        .map(|c| c.trials.len() as u32)
        .max()
        .unwrap_or(rules.trials);
    let mut cases: Vec<EvalCaseResult> = cases.into_iter().map(case_result).collect();
    if error.is_some() {
        for case in &mut cases {
            case.status = CaseStatus::NotRun;
        }
    }
    let tally = tally(rules, error.is_some(), &cases);
    let gates = gates::check(rules, error.as_deref(), &tally, &cases);
    let picks = if error.is_some() {
        picks::Picks::default()
    } else {
        picks::count(&cases)
    };
    ModelEval {
        model: model.to_owned(),
        passed: gates.iter().all(|g| g.passed),
        error,
        total: tally.total,
        correct: tally.correct,
        accuracy: tally.accuracy,
        min_accuracy: rules.min_accuracy,
        trials,
        trial_accuracy: ratio(tally.trials_passed, tally.trials_run),
        wilson_lower: tally.wilson_lower,
        min_wilson_lower: rules.min_wilson_lower,
        critical_misses: names(&cases, |c| c.critical && c.status == CaseStatus::Miss),
        provider_errors: cases
            .iter()
            .filter(|c| c.status == CaseStatus::ProviderError)
            .count(),
        uncached: tally.uncached,
        batched: 0,
        gates,
        confusion: confusion::pairs(&cases),
        cases,
        cost: None,
        per_tool: picks.per_tool,
        abstention: picks.abstention,
        over_trigger: picks.over_trigger,
        tools_unseen: None,
        comparison: None,
        crowd: None,
    }
}

/// Marks a model whose tools never reached it (see [`ToolsUnseen`]): a failed `tools_shown`
/// gate that says so, and the model no longer passes; its accuracy measures a model without
/// tools. Nothing changes when `unseen` is `None`.
pub(crate) fn tools_unseen(eval: &mut ModelEval, unseen: Option<ToolsUnseen>) {
    let Some(u) = unseen else { return };
    eval.gates.retain(|g| g.kind != GateKind::ToolsShown);
    eval.gates.insert(
        0,
        Gate {
            kind: GateKind::ToolsShown,
            passed: false,
            detail: u.text(),
        },
    );
    eval.passed = false;
    eval.tools_unseen = Some(u);
}

/// A case's status over its trials: not run when a trial was not asked, a provider error when
/// one got no usable answer, correct when every trial was right, else a miss.
fn case_result(case: LabelledCase) -> EvalCaseResult {
    let trials = case.trials;
    let asked = trials
        .iter()
        .filter(|t| t.kind != AnswerKind::NotAsked)
        .count();
    let passed = trials.iter().filter(|t| t.passed).count();
    let status = if trials.iter().any(|t| t.kind == AnswerKind::NotAsked) {
        CaseStatus::NotRun
    } else if trials.iter().any(|t| t.kind == AnswerKind::ProviderError) {
        CaseStatus::ProviderError
    } else if passed == trials.len() {
        CaseStatus::Correct
    } else {
        CaseStatus::Miss
    };
    EvalCaseResult {
        name: case.name,
        prompt: case.prompt,
        why: case.why,
        critical: case.critical,
        line: case.line,
        file: case.file,
        expect_tool: case.expect_tool,
        expect_args: case.expect_args,
        context: Vec::new(),
        status,
        pass_rate: ratio(passed, trials.len()),
        ambiguous: asked > 1 && passed > 0 && passed < asked,
        trials,
    }
}

fn tally(rules: &Rules, unusable: bool, cases: &[EvalCaseResult]) -> Tally {
    let total = cases.len();
    let correct = cases
        .iter()
        .filter(|c| c.status == CaseStatus::Correct)
        .count();
    let trials_run: usize = cases.iter().map(|c| c.trials.len()).sum();
    // Nothing counts when the provider could not be used, answers before it failed included.
    let trials_passed: usize = cases
        .iter()
        .filter(|_| !unusable)
        .map(|c| c.trials.iter().filter(|t| t.passed).count())
        .sum();
    let uncached = if rules.offline && !unusable {
        names(cases, |c| c.status == CaseStatus::NotRun)
    } else {
        Vec::new()
    };
    let all_trials = || cases.iter().flat_map(|c| &c.trials);
    let failed = || all_trials().filter(|t| t.kind == AnswerKind::ProviderError);
    Tally {
        total,
        correct,
        accuracy: ratio(correct, total),
        trials_run,
        trials_passed,
        wilson_lower: stats::wilson_lower(trials_passed, trials_run),
        uncached,
        provider_failed: failed().count(),
        first_provider_error: failed().find_map(|t| t.provider_error.clone()),
        answered: all_trials()
            .filter(|t| !matches!(t.kind, AnswerKind::ProviderError | AnswerKind::NotAsked))
            .count(),
    }
}

fn names(cases: &[EvalCaseResult], keep: impl Fn(&EvalCaseResult) -> bool) -> Vec<String> {
    cases
        .iter()
        .filter(|c| keep(c))
        .map(|c| c.name.clone())
        .collect()
}

/// `part / whole`, 0 when `whole` is 0.
fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
