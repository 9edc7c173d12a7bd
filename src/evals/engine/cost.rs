//! One model's requests, tokens and cost, added up from its answers for the report.

use super::Got;
use crate::evals::prices::{Price, Source, dollars, picodollars};
use crate::evals::usage::Usage;
use crate::report::model::{ModelCost, PriceUsed, Tokens};

/// The cost record of one model's answers, priced with `price` (`None`: no price).
/// Replayed answers keep the cost recorded with them; one recorded without a cost is priced
/// at today's price.
pub(super) fn of_model(got: &[Got], price: Option<(Price, Source)>) -> ModelCost {
    let mut c = ModelCost {
        price: price.map(|(p, source)| PriceUsed {
            input: p.input,
            output: p.output,
            cache_write: p.cache_write,
            cache_read: p.cache_read,
            source: source.label(),
        }),
        ..ModelCost::default()
    };
    let mut fresh = Usage::default();
    // Whole picodollars: the sum is the same in any order (a merged run's is the run's).
    let mut fresh_cost = 0u64;
    let mut replayed = Usage::default();
    let mut replayed_cost: Option<u64> = None;
    for g in got {
        match g {
            Got::Asked(_, _, recorded) => {
                c.requests += 1;
                match recorded {
                    Some(r) => {
                        c.reported += 1;
                        fresh.add(&r.usage);
                        // A batch answer records its own (discounted) cost.
                        let cost = r.cost_usd.or_else(|| price.map(|(p, _)| p.cost(&r.usage)));
                        fresh_cost = fresh_cost.saturating_add(cost.map_or(0, picodollars));
                    }
                    None => c.not_reported += 1,
                }
            }
            Got::Failed(..) => c.requests += 1,
            Got::Cached(_, recorded) => {
                c.replayed += 1;
                if let Some(r) = recorded {
                    c.replayed_reported += 1;
                    replayed.add(&r.usage);
                    let cost = r.cost_usd.or_else(|| price.map(|(p, _)| p.cost(&r.usage)));
                    if let Some(cost) = cost {
                        let sum = replayed_cost.get_or_insert(0);
                        *sum = sum.saturating_add(picodollars(cost));
                    }
                }
            }
            Got::NotAsked => {}
        }
    }
    c.tokens = tokens(&fresh);
    c.cost_usd = price.map(|_| dollars(fresh_cost));
    c.replayed_tokens = tokens(&replayed);
    c.replayed_cost_usd = replayed_cost.map(dollars);
    c
}

fn tokens(u: &Usage) -> Tokens {
    Tokens {
        input: u.input,
        output: u.output,
        cache_write: u.cache_write,
        cache_read: u.cache_read,
    }
}
