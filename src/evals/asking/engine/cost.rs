//! One model's requests, tokens and cost, added up from its answers for the report.

use super::Got;
use crate::outcome::{ModelCost, PriceUsed, Tokens, ToolsUnseen};
use crate::provider::prices::{Price, Source, dollars, picodollars};
use crate::provider::usage::Usage;

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
            Got::Asked(_, _, recorded, unbelievable) => {
                if *unbelievable {
                    c.unbelievable += 1;
                }
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

/// When some answer's server reported a prompt smaller than half the tool list sent with it
/// (`tool_list_tokens`, estimated), the tools never reached the model. Half: the estimate
/// (4 bytes per token) is within a factor of two of every current tokenizer, and a request
/// that carries the tools carries the prompt and the provider's framing besides. Fresh
/// answers and replayed ones whose entry recorded usage both count: a replayed answer was
/// given without the tools all the same. `None` when no answer says so.
pub(super) fn tools_unseen(got: &[Got], tool_list_tokens: u64) -> Option<ToolsUnseen> {
    let prompts: Vec<u64> = got
        .iter()
        .filter_map(|g| match g {
            Got::Asked(_, _, Some(r), _) | Got::Cached(_, Some(r)) => Some(prompt_tokens(&r.usage)),
            _ => None,
        })
        .collect();
    let small: Vec<u64> = prompts
        .iter()
        .copied()
        .filter(|p| p.saturating_mul(2) < tool_list_tokens)
        .collect();
    Some(ToolsUnseen {
        answers: small.len(),
        reported: prompts.len(),
        min_prompt_tokens: *small.iter().min()?,
        max_prompt_tokens: *small.iter().max()?,
        tool_list_tokens,
    })
}

/// Every prompt token the server reported: at the base rate, written to and read from the
/// prompt cache.
fn prompt_tokens(u: &Usage) -> u64 {
    u.input
        .saturating_add(u.cache_write)
        .saturating_add(u.cache_read)
}

fn tokens(u: &Usage) -> Tokens {
    Tokens {
        input: u.input,
        output: u.output,
        cache_write: u.cache_write,
        cache_read: u.cache_read,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::evals::{Choice, Stop};
    use crate::provider::usage::Recorded;

    fn answer(input: u64, cache_read: u64) -> Got {
        let choice = Choice {
            calls: Vec::new(),
            text: "hi".into(),
            stop: Stop::EndTurn,
        };
        let usage = Usage {
            input,
            output: 5,
            cache_write: 0,
            cache_read,
        };
        Got::Asked(
            choice,
            Duration::ZERO,
            Some(Recorded {
                usage,
                cost_usd: None,
            }),
            false,
        )
    }

    #[test]
    fn prompts_under_half_the_tool_list_mean_the_tools_never_arrived() {
        // 37 prompt tokens against a list of about 400: the local server.
        let unseen = tools_unseen(&[answer(37, 0), answer(41, 0)], 400).unwrap();
        assert_eq!(
            unseen,
            ToolsUnseen {
                answers: 2,
                reported: 2,
                min_prompt_tokens: 37,
                max_prompt_tokens: 41,
                tool_list_tokens: 400,
            }
        );
        // Cached input counts as prompt: 20 + 400 read from the prompt cache is no sign.
        assert_eq!(tools_unseen(&[answer(20, 400)], 400), None);
        // A prompt of at least half the estimate may carry the tools (the estimate errs high).
        assert_eq!(tools_unseen(&[answer(200, 0)], 400), None);
        // No usage reported: nothing to say.
        let quiet = Got::Asked(
            Choice {
                calls: Vec::new(),
                text: String::new(),
                stop: Stop::EndTurn,
            },
            Duration::ZERO,
            None,
            false,
        );
        assert_eq!(tools_unseen(&[quiet, Got::NotAsked], 400), None);
        // One small prompt among full ones is said, with the count.
        let some = tools_unseen(&[answer(600, 0), answer(30, 0)], 400).unwrap();
        assert_eq!((some.answers, some.reported), (1, 2));
    }
}
