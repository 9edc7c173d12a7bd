//! What one model's evals cost: requests, tokens and an estimated price for this run's fresh
//! answers, and what the answers replayed from the cache cost when they were recorded. Plain
//! data; the evals engine fills it.

use serde::{Deserialize, Serialize};

/// Token counts, split as the providers bill them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Input tokens at the base input rate.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
}

impl Tokens {
    /// Every input token (base rate, cache writes, cache reads).
    pub fn all_input(&self) -> u64 {
        self.input
            .saturating_add(self.cache_write)
            .saturating_add(self.cache_read)
    }

    /// The share of input tokens read from the prompt cache (0 with no input).
    pub fn cached_share(&self) -> f64 {
        match self.all_input() {
            0 => 0.0,
            all => self.cache_read as f64 / all as f64,
        }
    }

    /// Whether there is no token at all.
    pub fn is_empty(&self) -> bool {
        self.all_input() == 0 && self.output == 0
    }
}

/// The price a model was billed at, USD per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceUsed {
    /// Input tokens at the base rate.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Prompt-cache writes.
    pub cache_write: f64,
    /// Prompt-cache reads.
    pub cache_read: f64,
    /// Where it came from: `evals.prices`, or `list price <date>`.
    pub source: String,
}

/// The most tokens of one kind an answer is believed to have used: a thousand times the
/// largest context window offered today. A server that reports more is taken as not reporting
/// (its number is broken), and the reports say how many did.
pub const MAX_ANSWER_TOKENS: u64 = 1_000_000_000;

/// Tokens and cost of one model in one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelCost {
    /// Requests made for this model in this run (fresh answers and failed asks; retries
    /// are counted in `cache.retries`).
    pub requests: usize,
    /// Fresh answers whose server reported usage.
    pub reported: usize,
    /// Fresh answers whose server sent no usage ("not reported"; not counted as zero).
    pub not_reported: usize,
    /// Of those, answers whose server reported more than [`MAX_ANSWER_TOKENS`] of a kind: a
    /// broken count, not counted.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unbelievable: usize,
    /// Tokens of this run's fresh answers that reported usage.
    pub tokens: Tokens,
    /// Their estimated cost in USD under `price`; `None`: no price for the model.
    pub cost_usd: Option<f64>,
    /// The price used, when the model has one.
    pub price: Option<PriceUsed>,
    /// Answers replayed from the cache.
    pub replayed: usize,
    /// Of those, answers whose entry recorded usage.
    pub replayed_reported: usize,
    /// Tokens the replayed answers used when they were recorded.
    pub replayed_tokens: Tokens,
    /// What the replayed answers cost when recorded (the price then; else today's price);
    /// `None` when no replayed answer could be priced.
    pub replayed_cost_usd: Option<f64>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl ModelCost {
    /// Whether anything was asked or replayed.
    pub fn is_empty(&self) -> bool {
        self.requests == 0 && self.replayed == 0
    }
}

/// The estimated tokens of one tool as a client sends it to a model: the length in bytes of
/// the compact JSON `{"name", "description", "input_schema"}`, divided by 4 and rounded up.
/// About 4 bytes per token holds for English prose and JSON with current tokenizers, and it
/// errs high on short words. The `tool-list-size` check and the evals' tool weights use it.
pub fn estimate_tokens(name: &str, description: &str, input_schema: &serde_json::Value) -> u64 {
    tool_bytes(name, description, input_schema).div_ceil(4) as u64
}

/// The length in bytes of one tool's compact JSON as [`estimate_tokens`] weighs it.
pub fn tool_bytes(name: &str, description: &str, input_schema: &serde_json::Value) -> usize {
    let entry = serde_json::json!({
        "name": name,
        "description": description,
        "input_schema": input_schema,
    });
    serde_json::to_string(&entry).map_or(0, |s| s.len())
}

/// The estimated tokens of a whole list whose tools are `bytes` long each: the tools, the
/// brackets and the commas, at 4 bytes per token, rounded up.
pub fn list_tokens(bytes: impl IntoIterator<Item = usize>) -> u64 {
    let mut n = 0usize;
    let mut total = 2usize; // `[` and `]`
    for b in bytes {
        total += b;
        n += 1;
    }
    total += n.saturating_sub(1);
    total.div_ceil(4) as u64
}

/// A dollar amount as reports write it: `$0.0123` under a dollar (4 decimals), `$12.34`
/// above.
pub fn usd(cost: f64) -> String {
    if cost.abs() < 1.0 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.2}")
    }
}

/// A token count with thousands separators: `12,345`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One line for a model: `12 requests · 10,240 in / 380 out / 9,800 cached (96% of input) ·
/// est. $0.0123 (list price 2026-12-04) · 4 replayed answers cost $0.0040 when recorded`.
pub fn line(c: &ModelCost) -> String {
    let mut parts = vec![format!(
        "{} request{}",
        c.requests,
        if c.requests == 1 { "" } else { "s" }
    )];
    if c.requests > 0 {
        parts.push(if c.reported == 0 {
            "tokens not reported".to_owned()
        } else {
            let mut t = tokens(&c.tokens);
            if c.not_reported > 0 {
                let answers = if c.not_reported == 1 {
                    "answer"
                } else {
                    "answers"
                };
                t.push_str(&format!(", {} {answers} not reported", c.not_reported));
            }
            t
        });
        if c.unbelievable > 0 {
            parts.push(format!(
                "{} {} over {} tokens, a broken count not added in",
                c.unbelievable,
                if c.unbelievable == 1 {
                    "answer reported"
                } else {
                    "answers reported"
                },
                count(MAX_ANSWER_TOKENS)
            ));
        }
        parts.push(match (&c.price, c.cost_usd) {
            (Some(p), Some(cost)) if c.reported > 0 => format!("est. {} ({})", usd(cost), p.source),
            (None, _) => "no price".to_owned(),
            _ => "cost not known".to_owned(),
        });
    }
    if c.replayed > 0 {
        let answers = if c.replayed == 1 { "answer" } else { "answers" };
        parts.push(match c.replayed_cost_usd {
            Some(cost) => format!(
                "{} replayed {answers} cost {} when recorded",
                c.replayed,
                usd(cost)
            ),
            None => format!("{} replayed {answers} (cost not recorded)", c.replayed),
        });
    }
    parts.join(" · ")
}

/// `10,240 in / 380 out / 9,800 cached (96% of input)`.
pub fn tokens(t: &Tokens) -> String {
    let mut s = format!("{} in / {} out", count(t.all_input()), count(t.output));
    if t.cache_read > 0 || t.cache_write > 0 {
        s.push_str(&format!(
            " / {} cached ({:.0}% of input)",
            count(t.cache_read),
            t.cached_share() * 100.0
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_dollars_read_well() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(12_345_678), "12,345,678");
        assert_eq!(usd(0.012_34), "$0.0123");
        assert_eq!(usd(12.345), "$12.35");
    }

    #[test]
    fn the_line_says_not_reported_and_no_price_rather_than_zero() {
        let c = ModelCost {
            requests: 3,
            not_reported: 3,
            ..ModelCost::default()
        };
        assert_eq!(line(&c), "3 requests · tokens not reported · no price");
        let c = ModelCost {
            requests: 3,
            not_reported: 3,
            unbelievable: 1,
            ..ModelCost::default()
        };
        assert_eq!(
            line(&c),
            "3 requests · tokens not reported · 1 answer reported over 1,000,000,000 tokens, a broken count not added in · no price"
        );
        let c = ModelCost {
            requests: 2,
            reported: 2,
            tokens: Tokens {
                input: 200,
                output: 40,
                cache_write: 0,
                cache_read: 1800,
            },
            cost_usd: Some(0.0012),
            price: Some(PriceUsed {
                input: 3.0,
                output: 15.0,
                cache_write: 3.75,
                cache_read: 0.3,
                source: "evals.prices".into(),
            }),
            replayed: 1,
            replayed_cost_usd: Some(0.5),
            ..ModelCost::default()
        };
        assert_eq!(
            line(&c),
            "2 requests · 2,000 in / 40 out / 1,800 cached (90% of input) · est. $0.0012 (evals.prices) · 1 replayed answer cost $0.5000 when recorded"
        );
    }
}
