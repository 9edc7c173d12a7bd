//! What the evals may spend and whether they spend anything: `--max-requests` >
//! `TOOLPROOF_MAX_REQUESTS` > `evals.budget.requests`, the same for `--max-cost`
//! (`TOOLPROOF_MAX_COST`, `evals.budget.usd`), and `--dry-run` / `TOOLPROOF_DRY_RUN`.

use super::resolve::{env_switch, env_value, pick};
use super::{Env, Resolved};
use crate::cli::{EvalFlags, parse_non_negative};
use crate::config::{ConfigError, EvalConfig};

/// The most one run's evals may spend; `None`: no limit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Budget {
    /// Requests sent to the provider (cached answers are free).
    pub requests: Resolved<Option<u64>>,
    /// US dollars at the model's price (batch answers at the batch price).
    pub usd: Resolved<Option<f64>>,
}

impl Budget {
    /// Whether any limit is set.
    pub(crate) fn is_set(&self) -> bool {
        self.requests.value.is_some() || self.usd.value.is_some()
    }

    /// `12 requests (--max-requests)` and/or `$0.50 (evals.budget.usd in the config)`.
    pub(crate) fn text(&self) -> String {
        let mut parts = Vec::new();
        if let Some(n) = self.requests.value {
            let s = if n == 1 { "" } else { "s" };
            parts.push(format!("{n} request{s} ({})", self.requests.origin));
        }
        if let Some(usd) = self.usd.value {
            parts.push(format!("${usd} ({})", self.usd.origin));
        }
        if parts.is_empty() {
            "no limit".into()
        } else {
            parts.join(" and ")
        }
    }
}

/// The budget: flag > variable > YAML > none. Only the commands that ask (`run`, `eval`)
/// read the flags and variables.
pub(super) fn budget(
    eval: Option<&EvalFlags>,
    env: &Env,
    e: &EvalConfig,
) -> Result<Budget, ConfigError> {
    let asks = eval.is_some();
    let requests = pick(
        eval.and_then(|f| f.max_requests)
            .map(|n| (Some(n), "--max-requests")),
        if asks {
            env_value(env, "TOOLPROOF_MAX_REQUESTS", |s| {
                s.parse::<u64>()
                    .map(Some)
                    .map_err(|_| format!("`{s}` is not a whole number of requests"))
            })?
        } else {
            None
        },
        e.budget
            .requests
            .map(|n| (Some(n), "evals.budget.requests")),
        None,
    );
    let usd = pick(
        eval.and_then(|f| f.max_cost)
            .map(|v| (Some(v), "--max-cost")),
        if asks {
            env_value(env, "TOOLPROOF_MAX_COST", |s| {
                parse_non_negative(s).map(Some)
            })?
        } else {
            None
        },
        e.budget.usd.map(|v| (Some(v), "evals.budget.usd")),
        None,
    );
    Ok(Budget { requests, usd })
}

/// `--dry-run` > `TOOLPROOF_DRY_RUN` > off.
pub(super) fn dry_run(eval: Option<&EvalFlags>, env: &Env) -> Result<bool, ConfigError> {
    let resolved = pick(
        eval.and_then(|f| f.dry_run.then_some((true, "--dry-run"))),
        if eval.is_some() {
            env_switch(env, "TOOLPROOF_DRY_RUN")?
        } else {
            None
        },
        None,
        false,
    );
    Ok(resolved.value)
}

impl super::EvalSettings {
    /// These settings with `--dry-run` on: the engine plans and asks nothing (`tune` plans
    /// each stage before it asks).
    pub(crate) fn planning_only(&self) -> super::EvalSettings {
        super::EvalSettings {
            dry_run: true,
            ..self.clone()
        }
    }
}
