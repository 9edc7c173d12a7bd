//! One model's evals: the answers the cache holds, then waves of requests (every case's first
//! trials, then more of the cases `trials: auto` leaves undecided), then the score.

use super::*;

/// One model: cached answers, then the provider for the rest, then the score. Under
/// `trials: auto` this goes in waves (see [`adaptive`]): every case's `min_trials`, then one
/// more trial of each undecided case, until none is undecided. Each wave reads the cache
/// first, so a re-run replays the same waves from it.
pub(super) fn eval_model(
    ctx: &Ctx<'_>,
    model: &str,
    (items, got, judged): Prepared,
    cache_use: &mut CacheUse,
    client: &mut Option<Result<Arc<dyn Provider>, ProviderError>>,
) -> ModelEval {
    let cfg = ctx.cfg;
    let bounds: Vec<CaseTrials> = cfg.cases.iter().map(|c| cfg.trials_of(c)).collect();
    let wanted: Vec<bool> = items
        .iter()
        .map(|it| it.trial <= adaptive::first_wave(bounds[it.case]))
        .collect();
    let held = bounds.iter().map(|b| b.auto).collect();
    // `--offline` keeps model APIs from being called; a local command is no API.
    let offline = offline_for(ctx.run.settings, ctx.kind);
    let mut asker = Asker {
        ctx,
        model,
        items: &items,
        offline,
        cache_use: &mut *cache_use,
        client,
        got,
        progress: Progress::new(ctx, model, &items, &wanted, held).judged_before(judged),
        wanted,
        batched: 0,
    };
    let base = ctx.run.base.and_then(|b| b.get(model));
    let mut fatal = asker.waves(rows_of(ctx, base, &bounds), base);
    // Asking stopped at the budget: what was not asked is not run, and never a pass.
    if fatal.is_none() && ctx.spend.reached() {
        fatal = Some(ctx.spend.reached_text(ctx.run.settings.budget()));
    }
    let Asker {
        got,
        mut progress,
        wanted,
        batched,
        ..
    } = asker;
    progress.flush_not_asked(ctx, &items, &got);
    // Only the trials asked for are reported: the rest of `max_trials` never happened.
    let (mut asked, mut answers, mut judged) = (Vec::new(), Vec::new(), Vec::new());
    for (((item, g), j), _) in items
        .into_iter()
        .zip(got)
        .zip(progress.into_judged())
        .zip(wanted)
        .filter(|(_, w)| *w)
    {
        asked.push(item);
        answers.push(g);
        judged.push(j);
    }
    let elsewhere = (offline && cache_use.read && fatal.is_none())
        .then(|| why_missed(ctx, model, &asked, &answers))
        .flatten();
    let min_accuracy = ctx.run.settings.min_accuracy();
    let mut eval = score_model(
        ctx,
        model,
        &asked,
        (answers, judged),
        fatal,
        min_accuracy,
        offline,
    );
    eval.batched = batched;
    if let Some(elsewhere) = elsewhere {
        for gate in eval
            .gates
            .iter_mut()
            .filter(|g| g.kind == GateKind::Offline)
        {
            gate.detail
                .push_str(&format!("; {}", recorded_elsewhere(&elsewhere)));
        }
    }
    eval
}

/// Each case as the scheduler first sees it: its bounds, the base's row when the run has a
/// base that holds it, and whether its expected tool changed since the base.
pub(super) fn rows_of(
    ctx: &Ctx<'_>,
    base: Option<&adaptive::Base>,
    bounds: &[CaseTrials],
) -> Vec<RowState> {
    let ids = base.map(|_| crate::settings::case_ids(&ctx.cfg.cases));
    bounds
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let row = ids
                .as_ref()
                .zip(base)
                .and_then(|(ids, base)| base.rows.get(&ids[i]));
            let expected = ctx.cfg.cases[i].expect_tool.clone().flatten();
            let changed = base.is_some_and(|base| base.changed(expected.as_deref(), []));
            RowState::new(*b, row.copied(), changed)
        })
        .collect()
}

/// One model's items being asked: the answers so far, which items are asked for, progress.
pub(super) struct Asker<'a, 'c> {
    ctx: &'a Ctx<'c>,
    model: &'a str,
    items: &'a [Item],
    offline: bool,
    cache_use: &'a mut CacheUse,
    client: &'a mut Option<Result<Arc<dyn Provider>, ProviderError>>,
    got: Vec<Got>,
    progress: Progress,
    /// The items asked for so far (every item of a fixed case from the start).
    wanted: Vec<bool>,
    /// Trials a batch answered.
    batched: usize,
}

impl Asker<'_, '_> {
    /// Asks the first wave (every wanted item), then the waves the scheduler asks for until
    /// every case is decided. Returns the fatal error that stopped it, if any.
    fn waves(&mut self, mut rows: Vec<RowState>, base: Option<&adaptive::Base>) -> Option<String> {
        let (ctx, items) = (self.ctx, self.items);
        let mut wave: Vec<usize> = (0..items.len()).filter(|&i| self.wanted[i]).collect();
        loop {
            let fatal = self.wave(&wave);
            if fatal.is_some() || ctx.run.interrupt.is_set() {
                return fatal;
            }
            for &idx in &wave {
                let row = &mut rows[items[idx].case];
                if !row.bounds.auto {
                    // A fixed case is decided by its count alone.
                    row.answered(false);
                    continue;
                }
                let trial = self.progress.judged(ctx, idx, items, &self.got);
                let picked = trial.calls.iter().map(|c| c.tool.as_str());
                row.changed |= base.is_some_and(|base| base.changed(None, picked));
                match trial.kind {
                    AnswerKind::ProviderError | AnswerKind::NotAsked => row.stuck = true,
                    _ => row.answered(trial.passed),
                }
            }
            let next = adaptive::next_wave(&rows);
            for (case, row) in rows.iter().enumerate() {
                if row.bounds.auto && adaptive::decided(row) {
                    self.progress.release(ctx, case, items, &self.got);
                }
            }
            if next.is_empty() {
                return None;
            }
            // A case's items are its trials in order, from its first.
            wave = next
                .into_iter()
                .map(|case| self.progress.first_item(case) + rows[case].trials as usize)
                .collect();
            for &idx in &wave {
                self.wanted[idx] = true;
                self.progress.want(idx, items);
            }
        }
    }

    /// One wave of items: their cached answers, then the provider (a batch or live) for the
    /// rest. Returns the fatal error that stopped it, if any.
    fn wave(&mut self, wave: &[usize]) -> Option<String> {
        let (ctx, items) = (self.ctx, self.items);
        let cfg = ctx.cfg;
        // The cache was read for every item before the plan: a cached answer arrives in the
        // wave that asks for it.
        for &idx in wave {
            if matches!(self.got[idx], Got::Cached(..)) {
                self.progress.arrived(ctx, idx, items, &self.got);
            }
        }
        let pending: Vec<usize> = wave
            .iter()
            .copied()
            .filter(|i| matches!(self.got[*i], Got::NotAsked))
            .collect();
        if pending.is_empty() || self.offline || ctx.run.interrupt.is_set() {
            return None;
        }
        let built = self.client.get_or_insert_with(|| {
            build_client(cfg, ctx.kind, ctx.run.base_dir, ctx.run.env).map(Arc::from)
        });
        match built {
            Err(e) => Some(e.to_string()),
            // A provider without a batch API cannot honour `always` (no live fallback).
            Ok(_) if ctx.run.settings.batch().always() && !ctx.kind.batches() => Some(format!(
                "batch mode is `always`, but the {} provider has no batch API\nhint: use `--batch auto` or `never` (evals.batch), which ask it live",
                ctx.kind.name()
            )),
            Ok(p) => {
                let p = Arc::clone(p);
                if batches(ctx, self.cache_use, items, &pending)
                    && ctx.spend.take_many(pending.len() as u64)
                {
                    let sent = batch::Batching {
                        ctx,
                        provider: Arc::clone(&p),
                        model: self.model,
                        items,
                        cache_use: &mut *self.cache_use,
                    }
                    .run(&pending, &mut self.got, &mut self.progress);
                    self.batched += sent.count;
                    if !sent.live {
                        return sent.fatal;
                    }
                }
                Asking {
                    ctx,
                    provider: p,
                    model: self.model,
                    items,
                    cache_use: &mut *self.cache_use,
                }
                .ask_all(&pending, &mut self.got, &mut self.progress)
            }
        }
    }
}
