//! The evals' plan, made before the first request: per model what will be asked, what the
//! cache already holds, and an estimate of the tokens and cost; whether the run was a dry run;
//! and the budget, with what the run spent against it.

use serde::{Deserialize, Serialize};

/// What the evals phase planned before asking anything.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalPlan {
    /// `--dry-run`: the plan was printed and nothing was asked.
    pub dry_run: bool,
    /// One per model, in the order they are asked.
    pub models: Vec<ModelPlan>,
    /// The budget and what the run spent against it, when one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetUse>,
}

impl EvalPlan {
    /// Requests the plan sends, over every model.
    pub fn requests(&self) -> u64 {
        self.models.iter().map(|m| m.requests).sum()
    }

    /// The estimated cost over every model; `None` when some model that sends requests has
    /// no price.
    pub fn cost_usd(&self) -> Option<f64> {
        self.models
            .iter()
            .filter(|m| m.requests > 0)
            .map(|m| m.cost_usd)
            .sum()
    }
}

/// One model's part of the plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelPlan {
    /// The model (empty for a command provider without one).
    pub model: String,
    /// Labelled cases.
    pub cases: usize,
    /// Trials over every case (`cases` × trials, with each case's own `trials`; under
    /// `trials: auto`, each case's first wave).
    pub trials: usize,
    /// Trials the cache already answers.
    pub cached: usize,
    /// Requests to send: the trials the cache does not answer.
    pub requests: u64,
    /// Whether the requests go through the provider's batch API (billed at its discount).
    pub batch: bool,
    /// Estimated input tokens of those requests (an estimate: 4 bytes a token).
    pub input_tokens: u64,
    /// Estimated output tokens of those requests (an estimate).
    pub output_tokens: u64,
    /// Estimated cost in USD at the model's price; `None` without a price.
    pub cost_usd: Option<f64>,
    /// The minimum detectable effect: the smallest drop in accuracy (0 to 1) a comparison of
    /// this set and trials detects at `alpha` with 80% power, on the base's rows (the cached
    /// answers where a row has them all, else a row right on every trial).
    pub mde: f64,
    /// The comparison's significance level the effect is read at (`evals.compare.alpha`).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// The smallest drop worth finding (`evals.compare.min_effect`).
    #[serde(default = "default_min_effect")]
    pub min_effect: f64,
    /// When `mde` is more than `min_effect`: how many trials or rows would make the set
    /// conclusive, and what they would cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The base's rows the effect was computed on, as `[correct, trials, rows]` (how many rows
    /// had that outcome), sorted: a merged plan computes its effect from the jobs' rows.
    #[serde(default)]
    pub base_rows: Vec<[u32; 3]>,
    /// The trials a row the comparison's head runs (`evals.trials`).
    #[serde(default)]
    pub trials_per_row: u32,
    /// The estimated cost of asking every trial, cached or not (`null` without a price): what
    /// the hint prices more rows and trials at.
    #[serde(default)]
    pub every_trial_usd: Option<f64>,
}

/// The budget and what the run spent against it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BudgetUse {
    /// The most requests allowed.
    pub max_requests: Option<u64>,
    /// The most dollars allowed.
    pub max_usd: Option<f64>,
    /// Requests sent.
    pub requests: u64,
    /// Dollars spent, at the model's price (answers without a price count nothing).
    pub usd: f64,
    /// Why the evals stopped before the plan's end: the plan was over the budget (nothing
    /// was asked), or the run reached it (`budget reached after N requests`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The plan was over the budget: nothing was asked, and the run exits with 2.
    #[serde(default)]
    pub over_plan: bool,
}

/// The power a plan's minimum detectable effect is read at.
pub(crate) const POWER: f64 = 0.8;

impl ModelPlan {
    /// `detects a drop of 9.3% (α 0.05, 80% power)`, or that it detects none.
    pub fn detects(&self) -> String {
        let alpha = self.alpha;
        let power = POWER * 100.0;
        if self.mde >= 1.0 {
            format!("detects no drop (α {alpha}, {power:.0}% power)")
        } else {
            format!(
                "detects a drop of {} (α {alpha}, {power:.0}% power)",
                pct(self.mde)
            )
        }
    }
}

/// `2%`, `9.3%`.
pub(crate) fn pct(share: f64) -> String {
    let p = (share * 1000.0).round() / 10.0;
    if p.fract() == 0.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// The comparison's defaults, for a plan written before it kept its own.
fn default_alpha() -> f64 {
    0.05
}
fn default_min_effect() -> f64 {
    0.02
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_effect_is_said_at_the_plan_s_level() {
        let mut plan = ModelPlan {
            mde: 1.0,
            alpha: 0.05,
            ..ModelPlan::default()
        };
        assert_eq!(plan.detects(), "detects no drop (α 0.05, 80% power)");
        plan.mde = 0.093;
        plan.alpha = 0.1;
        assert_eq!(plan.detects(), "detects a drop of 9.3% (α 0.1, 80% power)");
        assert_eq!(pct(0.175), "17.5%");
        assert_eq!(pct(0.02), "2%");
    }
}
