//! The plan of the evals phase made before the first request: printed, checked against the
//! budget, and under `--dry-run` the end of the phase.

use super::*;

/// The plan: printed, checked against the budget (over it, nothing is asked), and under
/// `--dry-run` the end of the phase; else every model is asked.
pub(super) fn plan_then_ask(
    ctx: &Ctx<'_>,
    models: &[String],
    prepared: Vec<Prepared>,
    mut results: EvalsResults,
) -> Phase<Option<EvalsResults>> {
    let (r, started) = (ctx.run, ctx.started);
    let mut plan = plan_of(ctx, models, &prepared, results.cache.write);
    let budget = r.settings.budget();
    r.events.emit(crate::events::Event::Plan {
        lines: planning::lines(&plan, budget.is_set().then(|| budget.text()).as_deref()),
    });
    if let Some(why) = planning::over_budget(&plan, budget) {
        plan.budget = Some(planning::refused(budget, &why));
        results.plan = Some(plan);
        return over_budget_phase(results, started, why);
    }
    if plan.dry_run {
        let reason = format!(
            "dry run: {} request{} planned, nothing asked",
            plan.requests(),
            if plan.requests() == 1 { "" } else { "s" }
        );
        results.plan = Some(plan);
        let mut phase = Phase::skipped(reason);
        phase.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        phase.results = Some(results);
        return phase;
    }
    if budget.is_set() {
        // Filled in below, once asked: what the run spent.
        plan.budget = Some(BudgetUse::default());
    }
    results.plan = Some(plan);
    ask_models(ctx, models, prepared, results, started)
}

/// The plan of every model: what is cached, what will be sent (nothing offline), and the
/// estimate of its tokens and cost.
pub(super) fn plan_of(
    ctx: &Ctx<'_>,
    models: &[String],
    prepared: &[Prepared],
    write: bool,
) -> crate::outcome::EvalPlan {
    let offline = offline_for(ctx.run.settings, ctx.kind);
    let list_tokens = if ctx.api.tools.is_empty() {
        0
    } else {
        tool_tokens(ctx.api).total
    };
    let cache_use = CacheUse {
        write,
        ..CacheUse::default()
    };
    let models = models
        .iter()
        .zip(prepared)
        .map(|(model, (items, got, judged))| {
            // Under `trials: auto` the plan counts a case's first wave: later trials are asked
            // only while the case is undecided (the budget still stops them mid-run).
            let first = |i: &usize| {
                let item = &items[*i];
                item.trial <= adaptive::first_wave(ctx.cfg.trials_of(&ctx.cfg.cases[item.case]))
            };
            let pending: Vec<usize> = if offline {
                Vec::new()
            } else {
                pending_of(got).into_iter().filter(first).collect()
            };
            let batch = batches(ctx, &cache_use, items, &pending);
            let base = base_rows(ctx, items, judged);
            planning::model_plan(
                ctx,
                model,
                (items, got, &base),
                (&pending, batch),
                list_tokens,
            )
        })
        .collect();
    crate::outcome::EvalPlan {
        dry_run: ctx.run.settings.dry_run(),
        models,
        budget: None,
    }
}

/// Each case's (correct, trials) as the plan reads the base: its cached answers when the
/// cache holds every trial, else right on every trial (the set at its most telling).
pub(super) fn base_rows(
    ctx: &Ctx<'_>,
    items: &[Item],
    judged: &[Option<TrialResult>],
) -> Vec<(u32, u32)> {
    let mut rows: Vec<(u32, u32, bool)> = vec![(0, 0, true); ctx.cfg.cases.len()];
    for (item, j) in items.iter().zip(judged) {
        let row = &mut rows[item.case];
        row.1 += 1;
        match j {
            Some(t) if t.passed => row.0 += 1,
            Some(_) => {}
            None => row.2 = false,
        }
    }
    rows.into_iter()
        .map(|(correct, trials, cached)| {
            if cached {
                (correct, trials)
            } else {
                (trials, trials)
            }
        })
        .collect()
}

/// A plan over the budget: nothing asked, the phase an error that says the plan and the
/// budget (the run exits with 2).
pub(super) fn over_budget_phase(
    results: EvalsResults,
    started: Instant,
    why: String,
) -> Phase<Option<EvalsResults>> {
    Phase {
        status: PhaseStatus::Error,
        reason: Some(format!("over budget, nothing asked: {why}")),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results: Some(results),
    }
}
