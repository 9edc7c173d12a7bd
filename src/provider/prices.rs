//! What tokens cost: the user's `evals.prices` over a dated built-in table of list prices, in
//! USD per million tokens, and the cost of a [`Usage`] under a price.
//!
//! A model is looked up by its exact id, then by the longest table entry it starts with
//! followed by `-` (so `claude-sonnet-4-5-20250929` is priced as `claude-sonnet-4-5`). A model
//! in neither table has "no price": its tokens are reported, its cost is not.

use std::collections::BTreeMap;

use super::usage::Usage;
use crate::config::PriceConfig;

/// The date the built-in table was checked against the providers' pricing pages.
pub(crate) const TABLE_DATE: &str = "2026-12-04";

/// USD per million tokens of one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Price {
    /// Input at the base rate.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Input written to the prompt cache.
    pub cache_write: f64,
    /// Input read from the prompt cache.
    pub cache_read: f64,
}

impl Price {
    /// The cost of `usage` in USD.
    pub(crate) fn cost(&self, usage: &Usage) -> f64 {
        let per = |tokens: u64, rate: f64| tokens as f64 * rate / 1_000_000.0;
        per(usage.input, self.input)
            + per(usage.output, self.output)
            + per(usage.cache_write, self.cache_write)
            + per(usage.cache_read, self.cache_read)
    }
}

/// Dollars as whole picodollars (10⁻¹² USD). Costs are added up in them, so a sum does not
/// depend on the order of its terms: a run split over shards and merged back costs, to the last
/// digit, what it costs unsharded.
pub(crate) fn picodollars(usd: f64) -> u64 {
    (usd * 1e12).round().max(0.0) as u64
}

/// Whole picodollars as dollars.
pub(crate) fn dollars(picodollars: u64) -> f64 {
    picodollars as f64 / 1e12
}

/// A price from the four rates in the order pricing pages list them: input, cache write,
/// cache read, output. Each provider's table is written with it.
pub(crate) const fn price(input: f64, cache_write: f64, cache_read: f64, output: f64) -> Price {
    Price {
        input,
        output,
        cache_write,
        cache_read,
    }
}

/// The built-in list prices, USD per million tokens: every provider's own table
/// ([`super::Kind::prices`]), in registry order. Each table names its source; all
/// were checked on [`TABLE_DATE`]. Keep docs/cost.md in step.
pub(crate) fn built_in() -> impl Iterator<Item = (&'static str, Price)> {
    super::KINDS.iter().flat_map(|k| k.prices().iter().copied())
}

/// Where a price came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `evals.prices`.
    Config,
    /// The built-in table of [`TABLE_DATE`].
    BuiltIn,
}

impl Source {
    /// How reports name it: `evals.prices`, or `list price <date>`.
    pub(crate) fn label(self) -> String {
        match self {
            Source::Config => "evals.prices".to_owned(),
            Source::BuiltIn => format!("list price {TABLE_DATE}"),
        }
    }
}

/// The user's prices over the built-in ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PriceTable {
    user: BTreeMap<String, Price>,
}

impl PriceTable {
    /// The table of `evals.prices`: a cache price left out is the input price (no discount
    /// assumed).
    pub(crate) fn new(prices: &BTreeMap<String, PriceConfig>) -> PriceTable {
        let user = prices
            .iter()
            .map(|(model, p)| {
                let price = Price {
                    input: p.input,
                    output: p.output,
                    cache_write: p.cache_write.unwrap_or(p.input),
                    cache_read: p.cache_read.unwrap_or(p.input),
                };
                (model.clone(), price)
            })
            .collect();
        PriceTable { user }
    }

    /// The price of `model`, and where it came from; `None`: no price.
    pub(crate) fn lookup(&self, model: &str) -> Option<(Price, Source)> {
        let user = self.user.iter().map(|(m, p)| (m.as_str(), *p));
        if let Some(p) = best(model, user) {
            return Some((p, Source::Config));
        }
        best(model, built_in()).map(|p| (p, Source::BuiltIn))
    }
}

/// The exact entry, else the longest one `model` starts with followed by `-`.
fn best<'a>(model: &str, table: impl Iterator<Item = (&'a str, Price)>) -> Option<Price> {
    let mut found: Option<(usize, Price)> = None;
    for (name, price) in table {
        if name == model {
            return Some(price);
        }
        let prefix = model
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('-'));
        if prefix && found.is_none_or(|(len, _)| name.len() > len) {
            found = Some((name.len(), price));
        }
    }
    found.map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_are_found_exactly_then_by_their_longest_family() {
        let t = PriceTable::default();
        let (p, src) = t
            .lookup("claude-sonnet-4-5-20250929")
            .unwrap_or_else(|| panic!());
        assert_eq!((p.input, p.cache_read, src), (3.0, 0.30, Source::BuiltIn));
        // gpt-4o-mini-2024-07-18 is the mini, not gpt-4o.
        let (p, _) = t
            .lookup("gpt-4o-mini-2024-07-18")
            .unwrap_or_else(|| panic!());
        assert_eq!(p.input, 0.15);
        assert!(t.lookup("gpt-4oops").is_none());
        assert!(t.lookup("qwen2.5").is_none());
    }

    #[test]
    fn the_users_prices_win_and_cache_prices_default_to_the_input_price() {
        let mut prices = BTreeMap::new();
        prices.insert(
            "claude-sonnet-4-5".to_owned(),
            PriceConfig {
                input: 1.0,
                output: 2.0,
                cache_write: None,
                cache_read: Some(0.5),
            },
        );
        let t = PriceTable::new(&prices);
        let (p, src) = t.lookup("claude-sonnet-4-5").unwrap_or_else(|| panic!());
        assert_eq!(src, Source::Config);
        assert_eq!((p.cache_write, p.cache_read), (1.0, 0.5));
        assert_eq!(src.label(), "evals.prices");
        assert!(Source::BuiltIn.label().contains(TABLE_DATE));
    }

    #[test]
    fn a_cost_adds_every_kind_of_token_at_its_rate() {
        let p = price(3.0, 3.75, 0.30, 15.0);
        let u = Usage {
            input: 1_000_000,
            output: 100_000,
            cache_write: 200_000,
            cache_read: 2_000_000,
        };
        // 3.00 + 1.50 + 0.75 + 0.60
        assert!((p.cost(&u) - 5.85).abs() < 1e-9, "{}", p.cost(&u));
    }
}
