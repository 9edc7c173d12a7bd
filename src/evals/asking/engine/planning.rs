//! The plan made before the first request: per model the cases, trials, cached answers and
//! requests, and an estimate of their tokens and cost; then whether it fits the budget.
//!
//! The estimate: each request's input is the tool list sent (4 bytes a token, as the
//! tool-list weight is estimated), the system prompt, the case's prompt and context at 4
//! bytes a token plus a small framing; its output is [`OUTPUT_TOKENS`]. Priced at the model's
//! price (`evals.prices` over the built-in list), at half of it for batched requests.

use super::{Ctx, Got, Item, context_entries};
use crate::evals::judging::stats;
use crate::outcome::{BudgetUse, EvalPlan, ModelPlan};
use crate::outcome::{POWER, pct};
use crate::provider::prices::{dollars, picodollars};
use crate::provider::usage::Usage;
use crate::settings::Budget;

/// Output tokens assumed per answer: a tool call with a few arguments, or a short reply.
pub(super) const OUTPUT_TOKENS: u64 = 100;

/// Tokens a request carries besides the tool list and the texts (roles, message framing).
const FRAMING_TOKENS: u64 = 20;

/// What the batch APIs charge against the live price (every batch API toolproof uses).
const BATCH_PRICE: f64 = 0.5;

/// One model's plan from its items, what the cache answered, the requests to send and
/// whether they are batched.
pub(super) fn model_plan(
    ctx: &Ctx<'_>,
    model: &str,
    (items, got, base): (&[Item], &[Got], &[(u32, u32)]),
    (requests, batch): (&[usize], bool),
    tool_list_tokens: u64,
) -> ModelPlan {
    let cfg = ctx.cfg;
    let system = cfg.system.as_deref().map_or(0, str::len) as u64;
    let price = ctx.prices.lookup(model).map(|(p, _)| p);
    let factor = if batch { BATCH_PRICE } else { 1.0 };
    let mut input = 0u64;
    // Each request priced on its own, in whole picodollars: the sum is the same however the
    // set is split over shards (a merged plan is the unsharded one).
    let mut cost = 0u64;
    // Every trial priced, asked or not: what one more request costs, for the hint.
    let mut every = 0u64;
    let mut pending = requests.iter().peekable();
    for (idx, item) in items.iter().enumerate() {
        let case = &cfg.cases[item.case];
        let context =
            serde_json::to_string(&context_entries(&case.turns())).map_or(0, |s| s.len()) as u64;
        let text = (system + case.prompt.len() as u64 + context).div_ceil(4);
        let tokens = tool_list_tokens + text + FRAMING_TOKENS;
        let one = price.map_or(0, |p| {
            picodollars(
                p.cost(&Usage {
                    input: tokens,
                    output: OUTPUT_TOKENS,
                    ..Usage::default()
                }) * factor,
            )
        });
        every = every.saturating_add(one);
        if pending.next_if(|&&i| i == idx).is_some() {
            input = input.saturating_add(tokens);
            cost = cost.saturating_add(one);
        }
    }
    let mut histogram: std::collections::BTreeMap<(u32, u32), u32> = Default::default();
    for &row in base {
        *histogram.entry(row).or_default() += 1;
    }
    let n = requests.len() as u64;
    let output = n.saturating_mul(OUTPUT_TOKENS);
    let cost_usd = price.map(|_| dollars(cost));
    let mut plan = ModelPlan {
        model: model.to_owned(),
        cases: cfg.cases.len(),
        // Under `trials: auto` a case's first wave: the rest is asked only while it is undecided.
        trials: items
            .iter()
            .filter(|it| {
                it.trial <= super::adaptive::first_wave(cfg.trials_of(&cfg.cases[it.case]))
            })
            .count(),
        cached: got.iter().filter(|g| matches!(g, Got::Cached(..))).count(),
        requests: n,
        batch,
        input_tokens: input,
        output_tokens: output,
        cost_usd: if n == 0 { Some(0.0) } else { cost_usd },
        mde: 1.0,
        alpha: ctx.run.settings.compare().alpha,
        min_effect: ctx.run.settings.compare().min_effect,
        hint: None,
        base_rows: histogram.into_iter().map(|((c, t), n)| [c, t, n]).collect(),
        // Under `auto`, the first wave's: a row gets at least that many.
        trials_per_row: cfg.trials.fixed().unwrap_or(cfg.min_trials).max(1),
        every_trial_usd: price.map(|_| dollars(every)),
    };
    // Offline nothing can be asked: no hint to spend on (and a replay stays quick).
    detectable(&mut plan, !super::offline_for(ctx.run.settings, ctx.kind));
    plan
}

/// Fills in `mde`, and `hint` when `hint` is asked for and the set is too small, from the
/// plan's base rows, trials a row and cost of every trial.
pub(crate) fn detectable(plan: &mut ModelPlan, hint: bool) {
    let base: Vec<(u32, u32)> = plan
        .base_rows
        .iter()
        .flat_map(|&[c, t, n]| std::iter::repeat_n((c, t), n as usize))
        .collect();
    let trials = plan.trials_per_row.max(1);
    let level = Level {
        alpha: plan.alpha,
        min_effect: plan.min_effect,
    };
    plan.mde = stats::mde(&base, trials, level.alpha, POWER);
    let per_request = plan
        .every_trial_usd
        .filter(|_| plan.trials > 0)
        .map(|usd| usd / plan.trials as f64);
    plan.hint = (hint && plan.mde > level.min_effect)
        .then(|| conclusive_hint(&base, trials, per_request, level))
        .flatten();
}

/// Whether a plan left out its hint because it was made offline (its set too small all the
/// same).
pub(crate) fn hint_left_out(plan: &ModelPlan) -> bool {
    plan.mde > plan.min_effect && plan.hint.is_none()
}

/// The comparison's significance level and the smallest drop worth finding
/// (`evals.compare`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Level {
    pub alpha: f64,
    pub min_effect: f64,
}

/// The most trials a row, and rows as a multiple of the set, the hint looks at.
const MAX_TRIALS: u32 = 100;
const ROW_FACTORS: [usize; 14] = [2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 75, 100, 200];

/// For a set that cannot detect a drop of `level.min_effect`: the fewest trials a row, and the
/// fewest rows like these, that would, with their requests and cost. `None` when neither does
/// within [`MAX_TRIALS`] trials or 200 times the rows.
pub(crate) fn conclusive_hint(
    base: &[(u32, u32)],
    trials: u32,
    per_request: Option<f64>,
    level: Level,
) -> Option<String> {
    let Level { alpha, min_effect } = level;
    let rows = base.len();
    if rows == 0 {
        return None;
    }
    let cost = |requests: usize| {
        per_request.map_or(String::new(), |usd| {
            format!(", about ${:.2}", usd * requests as f64)
        })
    };
    let mut ways = Vec::new();
    // The effect only shrinks with more trials and more rows: the first that does is found by
    // halving.
    let trials_needed = first_true(trials + 1, MAX_TRIALS, |t| {
        stats::mde(base, t, alpha, POWER) <= min_effect
    });
    if let Some(t) = trials_needed {
        let requests = rows * t as usize;
        ways.push(format!(
            "{t} trials a row ({requests} requests{})",
            cost(requests)
        ));
    }
    let grown = first_true(0, ROW_FACTORS.len() as u32 - 1, |i| {
        let more: Vec<(u32, u32)> = base
            .iter()
            .copied()
            .cycle()
            .take(rows * ROW_FACTORS[i as usize])
            .collect();
        stats::mde(&more, trials, alpha, POWER) <= min_effect
    })
    .map(|i| rows * ROW_FACTORS[i as usize]);
    if let Some(n) = grown {
        let requests = n * trials as usize;
        ways.push(format!(
            "about {n} rows like these at {trials} trial{} ({requests} requests{})",
            if trials == 1 { "" } else { "s" },
            cost(requests)
        ));
    }
    let head = format!("to detect a drop of {}", pct(min_effect));
    Some(if ways.is_empty() {
        format!(
            "{head}, add both rows and trials: neither {MAX_TRIALS} trials a row nor 200 times these rows alone would be enough"
        )
    } else {
        format!("{head}: {}", ways.join(", or "))
    })
}

/// The least `n` in `lo..=hi` for which `holds` (false below it, true from it on).
fn first_true(lo: u32, hi: u32, holds: impl Fn(u32) -> bool) -> Option<u32> {
    if lo > hi || !holds(hi) {
        return None;
    }
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if holds(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// Why the plan does not fit the budget, or `None` when it does.
pub(super) fn over_budget(plan: &EvalPlan, budget: &Budget) -> Option<String> {
    let requests = plan.requests();
    if let Some(max) = budget.requests.value.filter(|max| requests > *max) {
        return Some(format!(
            "the plan sends {requests} requests, more than the budget of {max} ({})",
            budget.requests.origin
        ));
    }
    let max = budget.usd.value?;
    if requests == 0 {
        return None;
    }
    match plan.cost_usd() {
        Some(cost) if cost > max => Some(format!(
            "the plan's {requests} requests cost about ${cost:.4} (an estimate), more than the budget of ${max} ({})",
            budget.usd.origin
        )),
        Some(_) => None,
        None => Some(format!(
            "a dollar budget is set ({}), but a model the plan asks has no price\nhint: set its price under evals.prices (USD per million tokens), or use a budget of requests (--max-requests)",
            budget.usd.origin
        )),
    }
}

/// The budget's line in a plan over it: nothing spent.
pub(super) fn refused(budget: &Budget, why: &str) -> BudgetUse {
    BudgetUse {
        max_requests: budget.requests.value,
        max_usd: budget.usd.value,
        requests: 0,
        usd: 0.0,
        stopped: Some(why.to_owned()),
        over_plan: true,
    }
}

/// The plan as the live view prints it, a line per model, then the total and the budget.
pub(crate) fn lines(plan: &EvalPlan, budget: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for m in &plan.models {
        let who = if m.model.is_empty() {
            "the command".to_owned()
        } else {
            m.model.clone()
        };
        let plural = |n: usize, one: &str| {
            if n == 1 {
                format!("{n} {one}")
            } else {
                format!("{n} {one}s")
            }
        };
        let mut line = format!(
            "plan: {who}: {}, {}, {} cached, {} to send{}",
            plural(m.cases, "case"),
            plural(m.trials, "trial"),
            m.cached,
            plural(m.requests as usize, "request"),
            if m.batch && m.requests > 0 {
                " as a batch"
            } else {
                ""
            },
        );
        if m.requests > 0 {
            line.push_str(&format!(
                "; about {} input and {} output tokens",
                m.input_tokens, m.output_tokens
            ));
            match m.cost_usd {
                Some(c) => line.push_str(&format!(", about ${c:.4}")),
                None => line.push_str(", cost unknown (no price for the model)"),
            }
        }
        out.push(line);
        out.push(format!(
            "plan: {who}: a comparison with the base {}",
            m.detects()
        ));
        if let Some(hint) = &m.hint {
            out.push(format!("plan: {who}: {hint}"));
        }
    }
    let mut total = format!(
        "plan: {} request{} in all",
        plan.requests(),
        if plan.requests() == 1 { "" } else { "s" }
    );
    if let Some(c) = plan.cost_usd().filter(|_| plan.requests() > 0) {
        total.push_str(&format!(", about ${c:.4}"));
    }
    total.push_str(" (tokens and cost are estimates)");
    if let Some(b) = budget {
        total.push_str(&format!("; budget: {b}"));
    }
    out.push(total);
    if plan.dry_run {
        out.push("plan: dry run, nothing asked".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_too_small_for_the_effect_is_told_what_would_do_and_its_cost() {
        let level = Level {
            alpha: 0.05,
            min_effect: 0.02,
        };
        let base = vec![(3, 3); 100];
        let mde = stats::mde(&base, 3, 0.05, POWER);
        assert!(mde > 0.02, "{mde}");
        let hint = conclusive_hint(&base, 3, Some(0.001), level).unwrap_or_default();
        assert!(hint.starts_with("to detect a drop of 2%: "), "{hint}");
        // The rows it names do detect 2%, and a step fewer do not.
        let rows: usize = hint
            .split("about ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let at = |n: usize| {
            let more: Vec<(u32, u32)> = base.iter().copied().cycle().take(n).collect();
            stats::mde(&more, 3, 0.05, POWER)
        };
        assert!(at(rows) <= 0.02, "{hint}");
        assert!(at(rows * 2 / 3) > 0.02, "{hint}");
        let requests = rows * 3;
        assert!(
            hint.contains(&format!(
                "rows like these at 3 trials ({requests} requests, about ${:.2})",
                requests as f64 * 0.001
            )),
            "{hint}"
        );
        // Without a price the requests are said, not a cost.
        let unpriced = conclusive_hint(&base, 3, None, level).unwrap_or_default();
        assert!(!unpriced.contains('$'), "{unpriced}");
        // Three rows, one of them wrong every time: neither lever alone gets there.
        let tiny = conclusive_hint(&[(3, 3), (3, 3), (0, 3)], 3, None, level).unwrap_or_default();
        assert!(
            tiny.ends_with("add both rows and trials: neither 100 trials a row nor 200 times these rows alone would be enough"),
            "{tiny}"
        );
        // The level and the effect are the configured ones, not the defaults.
        let loose = conclusive_hint(
            &base,
            3,
            None,
            Level {
                alpha: 0.1,
                min_effect: 0.05,
            },
        )
        .unwrap_or_default();
        assert!(loose.starts_with("to detect a drop of 5%: "), "{loose}");
        let fewer: usize = loose
            .split("about ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(usize::MAX);
        assert!(fewer < rows, "{loose} vs {hint}");
    }
}
