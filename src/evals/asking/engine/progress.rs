//! Live progress of the evals phase: a `CaseFinished` event as soon as every trial of a case
//! has its answer, whether it came from the cache or the provider. Each answer is judged once,
//! here, and the judged trials go on to scoring.

use super::{Ctx, Got, Item, case_name, trial_of};
use crate::events::Event;
use crate::outcome::{AnswerKind, CaseStatus, NO_TOOL, TrialResult};

/// Emits a `CaseFinished` event as each case's last trial comes in.
pub(super) struct Progress {
    model: String,
    remaining: Vec<usize>,
    sent: Vec<bool>,
    /// Each case's items, by index (a case's trials are next to each other, in case order).
    spans: Vec<std::ops::Range<usize>>,
    /// Each item's trial, judged when its case was sent (an item's answer is final by then).
    judged: Vec<Option<TrialResult>>,
}

impl Progress {
    pub(super) fn new(ctx: &Ctx<'_>, model: &str, items: &[Item]) -> Self {
        let mut remaining = vec![0; ctx.cfg.cases.len()];
        let mut spans = vec![0..0; ctx.cfg.cases.len()];
        for (idx, item) in items.iter().enumerate() {
            if remaining[item.case] == 0 {
                spans[item.case] = idx..idx;
            }
            remaining[item.case] += 1;
            spans[item.case].end = idx + 1;
        }
        Progress {
            model: model.to_owned(),
            sent: vec![false; remaining.len()],
            remaining,
            spans,
            judged: items.iter().map(|_| None).collect(),
        }
    }

    /// The cached answers the plan judged already, by item (`None`: not judged).
    pub(super) fn judged_before(mut self, judged: Vec<Option<TrialResult>>) -> Self {
        if judged.len() == self.judged.len() {
            self.judged = judged;
        }
        self
    }

    /// Item `idx` has its answer in `got`.
    pub(super) fn arrived(&mut self, ctx: &Ctx<'_>, idx: usize, items: &[Item], got: &[Got]) {
        let case = items[idx].case;
        self.remaining[case] = self.remaining[case].saturating_sub(1);
        if self.remaining[case] == 0 {
            self.send(ctx, case, items, got);
        }
    }

    /// Cases left without every answer (offline, interrupted, provider unusable).
    pub(super) fn flush_not_asked(&mut self, ctx: &Ctx<'_>, items: &[Item], got: &[Got]) {
        for case in 0..self.sent.len() {
            if !self.sent[case] {
                self.send(ctx, case, items, got);
            }
        }
    }

    fn send(&mut self, ctx: &Ctx<'_>, case: usize, items: &[Item], got: &[Got]) {
        self.sent[case] = true;
        let spec = &ctx.cfg.cases[case];
        let span = self.spans[case].clone();
        for idx in span.clone().filter(|&i| items[i].case == case) {
            // A cached answer the plan judged is final already.
            if self.judged[idx].is_none() || !matches!(got[idx], Got::Cached(..)) {
                self.judged[idx] = Some(trial_of(ctx, spec, &got[idx]));
            }
        }
        let trials: Vec<&TrialResult> = self.judged[span].iter().flatten().collect();
        let shown = trials.iter().find(|t| !t.passed).or(trials.first());
        ctx.run.events.emit(Event::CaseFinished {
            model: self.model.clone(),
            name: case_name(spec),
            status: case_status(&trials),
            trials: trials.len(),
            expected: spec
                .expect_tool
                .clone()
                .flatten()
                .unwrap_or_else(|| NO_TOOL.into()),
            picked: shown.map_or_else(|| "(not asked)".into(), |t| picked_names(t)),
            failure: shown.and_then(|t| t.failures.first().cloned()),
        });
    }

    /// Every item's judged trial, by index: `None` for an item whose case was never sent.
    pub(super) fn into_judged(self) -> Vec<Option<TrialResult>> {
        self.judged
    }
}

/// How a case ended over its trials.
fn case_status(trials: &[&TrialResult]) -> CaseStatus {
    if trials.iter().any(|t| t.kind == AnswerKind::NotAsked) {
        CaseStatus::NotRun
    } else if trials.iter().any(|t| t.kind == AnswerKind::ProviderError) {
        CaseStatus::ProviderError
    } else if trials.iter().all(|t| t.passed) {
        CaseStatus::Correct
    } else {
        CaseStatus::Miss
    }
}

/// The tools a trial picked, by name: `a, b`, `(no tool)`, `(provider error)`…
fn picked_names(t: &TrialResult) -> String {
    match t.kind {
        AnswerKind::ProviderError => "(provider error)".into(),
        AnswerKind::NotAsked => "(not asked)".into(),
        _ if t.calls.is_empty() => NO_TOOL.into(),
        _ => t
            .calls
            .iter()
            .map(|c| c.tool.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    }
}
