//! The plan made before the first request: per model the cases, trials, cached answers and
//! requests, and an estimate of their tokens and cost; then whether it fits the budget.
//!
//! The estimate: each request's input is the tool list sent (4 bytes a token, as the
//! tool-list weight is estimated), the system prompt, the case's prompt and context at 4
//! bytes a token plus a small framing; its output is [`OUTPUT_TOKENS`]. Priced at the model's
//! price (`evals.prices` over the built-in list), at half of it for batched requests.

use super::{Ctx, Got, Item, context_entries};
use crate::outcome::{BudgetUse, EvalPlan, ModelPlan};
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
    items: &[Item],
    got: &[Got],
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
    for &idx in requests {
        let case = &cfg.cases[items[idx].case];
        let context =
            serde_json::to_string(&context_entries(&case.turns())).map_or(0, |s| s.len()) as u64;
        let text = (system + case.prompt.len() as u64 + context).div_ceil(4);
        let tokens = tool_list_tokens + text + FRAMING_TOKENS;
        input = input.saturating_add(tokens);
        if let Some(p) = price {
            let one = p.cost(&Usage {
                input: tokens,
                output: OUTPUT_TOKENS,
                ..Usage::default()
            }) * factor;
            cost = cost.saturating_add(picodollars(one));
        }
    }
    let n = requests.len() as u64;
    let output = n.saturating_mul(OUTPUT_TOKENS);
    let cost_usd = price.map(|_| dollars(cost));
    ModelPlan {
        model: model.to_owned(),
        cases: cfg.cases.len(),
        trials: items.len(),
        cached: got.iter().filter(|g| matches!(g, Got::Cached(..))).count(),
        requests: n,
        batch,
        input_tokens: input,
        output_tokens: output,
        cost_usd: if n == 0 { Some(0.0) } else { cost_usd },
    }
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
