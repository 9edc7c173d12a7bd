//! The evals of the merged run: per model, the cases of every shard back in config order with
//! all their trials, scored again by the run's own scoring (`evals::judging::tally`: accuracy,
//! `min_accuracy`, critical rows, the Wilson lower bound), so the gates are those of the union.

use std::collections::BTreeMap;

use super::read::{MergeError, Part, duplicate};
use crate::evals::asking::engine;
use crate::evals::judging::tally::{self, LabelledCase, Rules};
use crate::outcome::{
    BudgetUse, CacheUse, ConcurrencyUse, EvalCaseResult, EvalPlan, EvalsResults, ModelCost,
    ModelEval, ModelPlan, Phase, Tokens, ToolsUnseen,
};
use crate::provider::prices::{dollars, picodollars};

/// A case's place in the config: inline cases (no `file`) come before those of `cases_file`,
/// each in line order.
pub(super) fn case_position(c: &EvalCaseResult) -> (bool, u32) {
    (c.file.is_some(), c.line.unwrap_or(u32::MAX))
}

/// One model's parts, in shard order, with the file of each.
struct ModelParts<'a> {
    name: &'a str,
    evals: Vec<(&'a ModelEval, String)>,
}

/// The merged evals phase. Every report's evals phase is given (in shard order); the models are
/// in the config's order (`config_models`), any other in the order it first appears.
pub(super) fn merge(parts: &[&Part]) -> Result<Phase<Option<EvalsResults>>, MergeError> {
    let ran: Vec<(&Part, &EvalsResults, &Phase<Option<EvalsResults>>)> = parts
        .iter()
        .filter_map(|p| {
            let phase = &p.report.phases.evals;
            phase.results.as_ref().map(|r| (*p, r, phase))
        })
        .collect();
    // A job whose evals could not start at all (no results): the run's evals could not either.
    if let Some(p) = parts.iter().find(|p| {
        let phase = &p.report.phases.evals;
        phase.status == crate::outcome::PhaseStatus::Error && phase.results.is_none()
    }) {
        return Ok(p.report.phases.evals.clone());
    }
    let Some((_, first, _)) = ran.first() else {
        return Ok(parts.first().map_or_else(
            || Phase::skipped("no report"),
            |p| p.report.phases.evals.clone(),
        ));
    };
    let mut by_model: Vec<ModelParts<'_>> = Vec::new();
    for (p, results, _) in &ran {
        for m in &results.models {
            let entry = match by_model.iter_mut().position(|e| e.name == m.model) {
                Some(i) => &mut by_model[i],
                None => {
                    by_model.push(ModelParts {
                        name: &m.model,
                        evals: Vec::new(),
                    });
                    by_model.last_mut().expect("just pushed")
                }
            };
            entry.evals.push((m, p.name()));
        }
    }
    let place = |name: &str| {
        first
            .config_models
            .iter()
            .position(|m| m == name)
            .unwrap_or(usize::MAX)
    };
    // A stable sort: models the config does not list stay in the order they appeared.
    by_model.sort_by_key(|m| place(m.name));
    let models = by_model
        .iter()
        .map(merge_model)
        .collect::<Result<Vec<_>, _>>()?;
    let results = EvalsResults {
        provider: first.provider.clone(),
        models,
        left_out_tools: first.left_out_tools.clone(),
        tool_list_hash: first.tool_list_hash.clone(),
        tool_tokens: first.tool_tokens.clone(),
        cache: ran.iter().fold(CacheUse::default(), |acc, (_, r, _)| {
            add_cache(acc, &r.cache)
        }),
        history: None,
        concurrency: ran
            .iter()
            .filter_map(|(_, r, _)| r.concurrency)
            .reduce(add_concurrency),
        config_models: first.config_models.clone(),
        fingerprint: first.fingerprint.clone(),
        plan: merge_plans(&ran, &place),
        tool_digests: first.tool_digests.clone(),
        overrides: first.overrides.clone(),
    };
    let duration = ran
        .iter()
        .map(|(_, _, ph)| ph.duration_ms)
        .fold(0.0, f64::max);
    Ok(tally::phase(results, duration))
}

/// The jobs' plans as the plan of the run: each model's counts, tokens and cost added up over
/// the jobs (costs in whole picodollars, so the sum is the unsharded run's), models in the
/// config's order; `None` when no job recorded a plan (reports of earlier versions).
fn merge_plans(
    ran: &[(&Part, &EvalsResults, &Phase<Option<EvalsResults>>)],
    place: &dyn Fn(&str) -> usize,
) -> Option<EvalPlan> {
    let plans: Vec<&EvalPlan> = ran.iter().filter_map(|(_, r, _)| r.plan.as_ref()).collect();
    if plans.is_empty() {
        return None;
    }
    let mut merged = EvalPlan {
        dry_run: plans.iter().any(|p| p.dry_run),
        models: Vec::new(),
        budget: None,
    };
    // Per model: its cost, the cost of every trial (picodollars), and whether a job was offline.
    let mut costs: Vec<(Option<u64>, Option<u64>, bool)> = Vec::new();
    for m in plans.iter().flat_map(|p| &p.models) {
        let i = match merged.models.iter().position(|e| e.model == m.model) {
            Some(i) => i,
            None => {
                merged.models.push(ModelPlan {
                    model: m.model.clone(),
                    ..ModelPlan::default()
                });
                costs.push((Some(0), Some(0), false));
                merged.models.len() - 1
            }
        };
        let e = &mut merged.models[i];
        e.cases += m.cases;
        e.trials += m.trials;
        e.cached += m.cached;
        e.requests += m.requests;
        e.batch |= m.batch;
        e.input_tokens = e.input_tokens.saturating_add(m.input_tokens);
        e.output_tokens = e.output_tokens.saturating_add(m.output_tokens);
        e.trials_per_row = m.trials_per_row;
        e.alpha = m.alpha;
        e.min_effect = m.min_effect;
        for row in &m.base_rows {
            match e.base_rows.iter_mut().find(|r| r[..2] == row[..2]) {
                Some(r) => r[2] += row[2],
                None => e.base_rows.push(*row),
            }
        }
        let (cost, every, offline) = &mut costs[i];
        *cost = match (*cost, m.cost_usd) {
            (Some(a), Some(b)) => Some(a.saturating_add(picodollars(b))),
            _ => None,
        };
        *every = match (*every, m.every_trial_usd) {
            (Some(a), Some(b)) => Some(a.saturating_add(picodollars(b))),
            _ => None,
        };
        *offline |= engine::hint_left_out(m);
    }
    for (m, (cost, every, offline)) in merged.models.iter_mut().zip(costs) {
        m.cost_usd = cost.map(dollars);
        m.every_trial_usd = every.map(dollars);
        m.base_rows.sort_unstable();
        engine::detectable(m, !offline);
    }
    merged.models.sort_by_key(|m| place(&m.model));
    let budgets: Vec<&BudgetUse> = plans.iter().filter_map(|p| p.budget.as_ref()).collect();
    if let Some(b) = budgets.first() {
        merged.budget = Some(BudgetUse {
            max_requests: b.max_requests,
            max_usd: b.max_usd,
            requests: budgets.iter().map(|b| b.requests).sum(),
            usd: dollars(budgets.iter().map(|b| picodollars(b.usd)).sum()),
            stopped: budgets.iter().find_map(|b| b.stopped.clone()),
            over_plan: budgets.iter().any(|b| b.over_plan),
        });
    }
    Some(merged)
}

/// One model over every shard: its cases in config order, scored again.
fn merge_model(parts: &ModelParts<'_>) -> Result<ModelEval, MergeError> {
    let mut cases: Vec<(EvalCaseResult, &str)> = Vec::new();
    let mut seen: BTreeMap<(Option<String>, Option<u32>, String), &str> = BTreeMap::new();
    for (m, file) in &parts.evals {
        for c in &m.cases {
            let key = (c.file.clone(), c.line, c.name.clone());
            if let Some(other) = seen.insert(key, file) {
                return Err(duplicate(format!(
                    "case `{}` of model `{}` is in {other} and in {file}",
                    c.name, parts.name
                )));
            }
            cases.push((c.clone(), file));
        }
    }
    cases.sort_by_key(|(c, _)| case_position(c));
    let first = parts.evals[0].0;
    let rules = Rules {
        min_accuracy: first.min_accuracy,
        min_wilson_lower: first.min_wilson_lower,
        // `uncached` lists the cases not asked under --offline, and only then.
        offline: parts.evals.iter().any(|(m, _)| !m.uncached.is_empty()),
        trials: parts.evals.iter().map(|(m, _)| m.trials).max().unwrap_or(1),
    };
    let error = parts.evals.iter().find_map(|(m, _)| m.error.clone());
    let contexts: Vec<_> = cases.iter().map(|(c, _)| c.context.clone()).collect();
    let labelled = cases.into_iter().map(|(c, _)| labelled(c)).collect();
    let mut eval = tally::score_model(parts.name, &rules, error, labelled);
    for (case, context) in eval.cases.iter_mut().zip(contexts) {
        case.context = context;
    }
    eval.batched = parts.evals.iter().map(|(m, _)| m.batched).sum();
    eval.cost = parts
        .evals
        .iter()
        .filter_map(|(m, _)| m.cost.clone())
        .reduce(add_cost);
    let unseen = parts
        .evals
        .iter()
        .filter_map(|(m, _)| m.tools_unseen)
        .reduce(add_unseen);
    tally::tools_unseen(&mut eval, unseen);
    Ok(eval)
}

/// Two shards' answers that never showed the model its tools, together.
fn add_unseen(a: ToolsUnseen, b: ToolsUnseen) -> ToolsUnseen {
    ToolsUnseen {
        answers: a.answers + b.answers,
        reported: a.reported + b.reported,
        min_prompt_tokens: a.min_prompt_tokens.min(b.min_prompt_tokens),
        max_prompt_tokens: a.max_prompt_tokens.max(b.max_prompt_tokens),
        tool_list_tokens: a.tool_list_tokens.max(b.tool_list_tokens),
    }
}

fn labelled(c: EvalCaseResult) -> LabelledCase {
    LabelledCase {
        name: c.name,
        prompt: c.prompt,
        why: c.why,
        critical: c.critical,
        line: c.line,
        file: c.file,
        expect_tool: c.expect_tool,
        expect_args: c.expect_args,
        trials: c.trials,
    }
}

fn add_cache(a: CacheUse, b: &CacheUse) -> CacheUse {
    CacheUse {
        read: a.read || b.read,
        write: a.write || b.write,
        dir: a.dir.or_else(|| b.dir.clone()),
        hits: a.hits.saturating_add(b.hits),
        asked: a.asked.saturating_add(b.asked),
        failed: a.failed.saturating_add(b.failed),
        requests: a.requests.saturating_add(b.requests),
        retries: a.retries.saturating_add(b.retries),
        corrupt: a.corrupt.saturating_add(b.corrupt),
        write_errors: a.write_errors.saturating_add(b.write_errors),
        write_error: a.write_error.or_else(|| b.write_error.clone()),
    }
}

fn add_concurrency(a: ConcurrencyUse, b: ConcurrencyUse) -> ConcurrencyUse {
    ConcurrencyUse {
        configured: a.configured.max(b.configured),
        adaptive: a.adaptive || b.adaptive,
        lowest: a.lowest.min(b.lowest),
        last: a.last.min(b.last),
        lowered: a.lowered.saturating_add(b.lowered),
        timeouts: a.timeouts.saturating_add(b.timeouts),
        answered: a.answered.saturating_add(b.answered),
    }
}

fn add_tokens(a: Tokens, b: Tokens) -> Tokens {
    Tokens {
        input: a.input.saturating_add(b.input),
        output: a.output.saturating_add(b.output),
        cache_write: a.cache_write.saturating_add(b.cache_write),
        cache_read: a.cache_read.saturating_add(b.cache_read),
    }
}

fn add_usd(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(dollars(picodollars(a).saturating_add(picodollars(b)))),
        (a, b) => a.or(b),
    }
}

fn add_cost(a: ModelCost, b: ModelCost) -> ModelCost {
    ModelCost {
        requests: a.requests.saturating_add(b.requests),
        reported: a.reported.saturating_add(b.reported),
        not_reported: a.not_reported.saturating_add(b.not_reported),
        unbelievable: a.unbelievable.saturating_add(b.unbelievable),
        tokens: add_tokens(a.tokens, b.tokens),
        cost_usd: add_usd(a.cost_usd, b.cost_usd),
        price: a.price.or(b.price),
        replayed: a.replayed.saturating_add(b.replayed),
        replayed_reported: a.replayed_reported.saturating_add(b.replayed_reported),
        replayed_tokens: add_tokens(a.replayed_tokens, b.replayed_tokens),
        replayed_cost_usd: add_usd(a.replayed_cost_usd, b.replayed_cost_usd),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::fixtures;
    use crate::outcome::PhaseStatus;

    fn part(file: &str, report: crate::outcome::RunReport) -> Part {
        Part {
            file: file.into(),
            report,
        }
    }

    #[test]
    fn a_job_whose_evals_could_not_start_makes_the_merged_evals_an_error() {
        let good = part("good.json", fixtures::evals_models());
        let mut report = fixtures::evals_models();
        report.phases.evals = Phase::error("ANTHROPIC_API_KEY is not set");
        let bad = part("bad.json", report);
        let merged = merge(&[&good, &bad]).ok();
        assert_eq!(merged.as_ref().map(|p| p.status), Some(PhaseStatus::Error));
        assert_eq!(
            merged.and_then(|p| p.reason).as_deref(),
            Some("ANTHROPIC_API_KEY is not set")
        );
    }

    #[test]
    fn one_report_merged_alone_keeps_its_verdict() {
        let only = part("only.json", fixtures::evals_models());
        let before = &only.report.phases.evals;
        let merged = merge(&[&only]).ok();
        let merged = merged.as_ref();
        assert_eq!(merged.map(|p| p.status), Some(before.status));
        assert_eq!(merged.and_then(|p| p.reason.clone()), before.reason.clone());
        let models = |p: &Phase<Option<EvalsResults>>| {
            p.results.as_ref().map(|r| {
                r.models
                    .iter()
                    .map(|m| (m.model.clone(), m.passed, m.correct, m.total))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(merged.and_then(models), models(before));
    }
}
