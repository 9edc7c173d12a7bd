//! What every stage of a tune shares: the settings, the evals it runs, and the budget it
//! keeps in requests and dollars.

use std::cell::Cell;

use super::Stop;
use crate::config::EvalConfig;
use crate::evals::asking::engine::{self, EvalRun};
use crate::events::Events;
use crate::interrupt::Interrupt;
use crate::mcp::types::Tool;
use crate::outcome::{EvalsResults, PhaseStatus};
use crate::report::redact::Redactor;
use crate::settings::{EvalSettings, Settings};

/// What every stage shares.
pub(super) struct Ctx<'a> {
    pub(super) s: &'a Settings,
    pub(super) es: &'a EvalSettings,
    pub(super) cfg: &'a EvalConfig,
    pub(super) interrupt: &'a Interrupt,
    pub(super) secrets: Redactor,
    pub(super) events: Events,
    /// The request budget, when one is set.
    pub(super) limit: Option<u64>,
    /// Requests sent so far.
    pub(super) spent: u64,
    /// The dollar budget, when one is set.
    pub(super) usd_limit: Option<f64>,
    /// Estimated dollars spent so far on the evals and the candidates.
    pub(super) spent_usd: f64,
    /// What the answers asked so far cost, from the usage the models reported: (USD, whether
    /// a model without a price was asked).
    pub(super) used: Cell<(f64, bool)>,
}

impl<'a> Ctx<'a> {
    /// A tune's state before its first stage: nothing spent, the budget of the settings.
    pub(super) fn new(
        s: &'a Settings,
        es: &'a EvalSettings,
        cfg: &'a EvalConfig,
        interrupt: &'a Interrupt,
    ) -> Self {
        Ctx {
            s,
            es,
            cfg,
            interrupt,
            secrets: Redactor::new(s.secrets()),
            // No live progress: the tune prints its own report at the end.
            events: Events::channel().0,
            limit: es.budget().requests.value,
            spent: 0,
            usd_limit: es.budget().usd.value,
            spent_usd: 0.0,
            used: Cell::new((0.0, false)),
        }
    }

    /// Runs the evals of `cfg` on `tools` (`plan`: honour `--dry-run` and the budget).
    pub(super) fn eval(
        &self,
        cfg: &EvalConfig,
        tools: &[Tool],
        settings: &EvalSettings,
        plans: bool,
    ) -> Result<EvalsResults, Stop> {
        let phase = engine::run(
            tools,
            &EvalRun {
                cfg,
                settings,
                base_dir: &self.s.loaded().base_dir,
                env: self.s.env(),
                events: &self.events,
                interrupt: self.interrupt,
                secrets: &self.secrets,
                base: None,
                plans,
            },
        );
        let over_budget = phase
            .results
            .as_ref()
            .and_then(|r| r.plan.as_ref())
            .and_then(|p| p.budget.as_ref())
            .is_some_and(|b| b.over_plan);
        if phase.status == PhaseStatus::Error {
            let why = format!(
                "the evals could not run: {}",
                phase.reason.unwrap_or_default()
            );
            // A plan over the budget is a usage error, as in `eval`.
            return Err(if over_budget {
                Stop::Usage(why, None)
            } else {
                Stop::Failed(why)
            });
        }
        let results = phase
            .results
            .ok_or_else(|| Stop::Failed("the evals returned no results".into()))?;
        let (mut usd, mut unpriced) = self.used.get();
        for cost in results.models.iter().filter_map(|m| m.cost.as_ref()) {
            match cost.cost_usd {
                _ if cost.requests == 0 => {}
                Some(c) => usd += c,
                None => unpriced = true,
            }
        }
        self.used.set((usd, unpriced));
        Ok(results)
    }

    /// What the answers asked so far cost, `None` when a model without a price was asked.
    pub(super) fn cost(&self) -> Option<f64> {
        let (usd, unpriced) = self.used.get();
        (!unpriced).then_some(usd)
    }

    /// The requests `cfg` on `tools` would send (cached answers are free), and their
    /// estimated cost (`None` without a price).
    pub(super) fn planned(
        &self,
        cfg: &EvalConfig,
        tools: &[Tool],
    ) -> Result<(u64, Option<f64>), Stop> {
        let results = self.eval(cfg, tools, &self.es.planning_only(), true)?;
        Ok(results.plan.map_or((0, Some(0.0)), |p| {
            let n = p.requests();
            (n, if n == 0 { Some(0.0) } else { p.cost_usd() })
        }))
    }

    /// Stops before a stage of `more` requests costing about `usd` that would go over the
    /// budget in requests or dollars; counts them when it fits.
    pub(super) fn spend(
        &mut self,
        (more, usd): (u64, Option<f64>),
        what: &str,
    ) -> Result<(), Stop> {
        self.afford(more, what)?;
        if let Some(limit) = self.usd_limit {
            let Some(usd) = usd else {
                return Err(Stop::Usage(
                    format!("a dollar budget is set, but {what} have no estimated cost (a model without a price)"),
                    Some("set the model's price under evals.prices (USD per million tokens), or use --max-requests".into()),
                ));
            };
            if self.spent_usd + usd > limit {
                return Err(Stop::Usage(
                    format!(
                        "{what} would cost about ${usd:.4} after about ${:.4} spent, over the budget of ${limit}; nothing more was asked",
                        self.spent_usd
                    ),
                    Some(
                        "raise --max-cost (or evals.budget.usd), or tune fewer tools or candidates"
                            .into(),
                    ),
                ));
            }
            self.spent_usd += usd;
        }
        self.spent += more;
        Ok(())
    }

    /// Stops before a stage of `more` requests that would go over the budget.
    pub(super) fn afford(&self, more: u64, what: &str) -> Result<(), Stop> {
        match self.limit {
            Some(limit) if self.spent + more > limit => Err(Stop::Usage(
                format!(
                    "the tune would send {more} more requests for {what} after {} sent, over the budget of {limit}; nothing more was asked",
                    self.spent
                ),
                Some("raise --max-requests (or evals.budget.requests), or tune fewer tools or candidates".into()),
            )),
            _ => Ok(()),
        }
    }
}
