//! Live progress of the evals phase: a `CaseFinished` event as soon as every trial of a case
//! has its answer, whether it came from the cache or the provider. Each answer is judged once,
//! here, and the judged trials go on to scoring.

use super::{Ctx, Got, Item, case_name, trial_of};
use crate::events::Event;
use crate::outcome::{AnswerKind, CaseStatus, NO_TOOL, TrialResult};

/// Emits a `CaseFinished` event as each case's last trial comes in. Under `trials: auto` a
/// case's last trial is known only once the scheduler says the case is decided: such a case is
/// held until [`Progress::release`].
pub(super) struct Progress {
    model: String,
    remaining: Vec<usize>,
    sent: Vec<bool>,
    /// Cases whose number of trials is not known yet.
    held: Vec<bool>,
    /// Each case's items, by index (a case's trials are next to each other, in case order).
    spans: Vec<std::ops::Range<usize>>,
    /// The items asked for so far (every item, without `trials: auto`).
    wanted: Vec<bool>,
    /// Each item's trial, judged when its case was sent (an item's answer is final by then).
    judged: Vec<Option<TrialResult>>,
}

impl Progress {
    /// Progress over the `wanted` items; the `held` cases wait for [`Progress::release`].
    pub(super) fn new(
        ctx: &Ctx<'_>,
        model: &str,
        items: &[Item],
        wanted: &[bool],
        held: Vec<bool>,
    ) -> Self {
        let mut remaining = vec![0; ctx.cfg.cases.len()];
        let mut spans = vec![0..0; ctx.cfg.cases.len()];
        for (idx, item) in items.iter().enumerate() {
            if spans[item.case].is_empty() {
                spans[item.case] = idx..idx;
            }
            remaining[item.case] += usize::from(wanted[idx]);
            spans[item.case].end = idx + 1;
        }
        Progress {
            model: model.to_owned(),
            sent: vec![false; remaining.len()],
            held,
            remaining,
            spans,
            wanted: wanted.to_vec(),
            judged: items.iter().map(|_| None).collect(),
        }
    }

    /// The index of case `case`'s first item (its trial 1).
    pub(super) fn first_item(&self, case: usize) -> usize {
        self.spans[case].start
    }

    /// Item `idx` is asked for too (a later wave of `trials: auto`).
    pub(super) fn want(&mut self, idx: usize, items: &[Item]) {
        if !self.wanted[idx] {
            self.wanted[idx] = true;
            self.remaining[items[idx].case] += 1;
        }
    }

    /// Case `case` gets no more trials: it is sent once every trial it got has its answer.
    pub(super) fn release(&mut self, ctx: &Ctx<'_>, case: usize, items: &[Item], got: &[Got]) {
        if std::mem::take(&mut self.held[case]) && self.remaining[case] == 0 && !self.sent[case] {
            self.send(ctx, case, items, got);
        }
    }

    /// Item `idx`'s judged trial, judging it now when its case was not sent yet (the
    /// scheduler reads every answer of a held case as it comes).
    pub(super) fn judged(
        &mut self,
        ctx: &Ctx<'_>,
        idx: usize,
        items: &[Item],
        got: &[Got],
    ) -> &TrialResult {
        let spec = &ctx.cfg.cases[items[idx].case];
        self.judged[idx].get_or_insert_with(|| trial_of(ctx, spec, &got[idx]))
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
        if self.remaining[case] == 0 && !self.held[case] {
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
        for idx in span
            .clone()
            .filter(|&i| items[i].case == case && self.wanted[i])
        {
            if self.judged[idx].is_none() {
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
