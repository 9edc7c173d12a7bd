//! Token usage of one answer: read from each provider's answer (Anthropic `usage`, OpenAI
//! `usage`, the command provider's optional `usage` member), kept beside the answer in its
//! cache entry, and priced by [`crate::provider::prices`].
//!
//! One provider-neutral shape, which is also the cache entry's `usage` member and the command
//! provider's:
//!
//! ```json
//! {"input_tokens": 412, "output_tokens": 38, "cache_write_tokens": 0, "cache_read_tokens": 1650}
//! ```
//!
//! `input_tokens` are the input tokens billed at the base rate (neither written to nor read
//! from the prompt cache), as Anthropic counts them; OpenAI's `prompt_tokens` include the
//! cached ones, which are taken out here. An answer whose server sent no usage has none
//! ("not reported"), which is not zero. Nor has one whose server reported more than
//! [`MAX_ANSWER_TOKENS`] of a kind: no model reads or writes that many in one answer, so the
//! number is broken, and counting it would swamp every total (two answers of 2^64 − 1 tokens
//! would wrap around). Totals add with saturation all the same.

use serde_json::{Map, Value, json};

pub(crate) use crate::outcome::cost::MAX_ANSWER_TOKENS;

/// The tokens one answer used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// Input tokens at the base input rate.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens written to the prompt cache (Anthropic `cache_creation_input_tokens`).
    pub cache_write: u64,
    /// Input tokens read from the prompt cache (Anthropic `cache_read_input_tokens`, OpenAI
    /// `prompt_tokens_details.cached_tokens`).
    pub cache_read: u64,
}

impl Usage {
    /// Adds `other` in.
    pub(crate) fn add(&mut self, other: &Usage) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
    }

    /// `self` when every count is at most [`MAX_ANSWER_TOKENS`]; `None` (not reported)
    /// when one is past it.
    pub(crate) fn plausible(self) -> Option<Usage> {
        [self.input, self.output, self.cache_write, self.cache_read]
            .iter()
            .all(|&n| n <= MAX_ANSWER_TOKENS)
            .then_some(self)
    }

    /// Anthropic's `usage`: `input_tokens` (which exclude cached ones), `output_tokens`,
    /// `cache_creation_input_tokens`, `cache_read_input_tokens`. `None` without the two first.
    pub(crate) fn from_anthropic(answer: &Value) -> Option<Usage> {
        Usage::anthropic_shape(answer)?.plausible()
    }

    /// Anthropic's `usage` as it is, however large its counts.
    pub(crate) fn anthropic_shape(answer: &Value) -> Option<Usage> {
        let u = answer.get("usage")?;
        Some(Usage {
            input: count(u.get("input_tokens"))?,
            output: count(u.get("output_tokens"))?,
            cache_write: count(u.get("cache_creation_input_tokens")).unwrap_or(0),
            cache_read: count(u.get("cache_read_input_tokens")).unwrap_or(0),
        })
    }

    /// OpenAI's `usage`: `prompt_tokens` (which include the cached ones),
    /// `completion_tokens`, `prompt_tokens_details.cached_tokens`. `None` without the two
    /// first (many local servers send no usage).
    pub(crate) fn from_openai(answer: &Value) -> Option<Usage> {
        Usage::openai_shape(answer)?.plausible()
    }

    /// OpenAI's `usage` as it is, however large its counts.
    pub(crate) fn openai_shape(answer: &Value) -> Option<Usage> {
        let u = answer.get("usage")?;
        let prompt = count(u.get("prompt_tokens"))?;
        let output = count(u.get("completion_tokens"))?;
        let cached = count(u.pointer("/prompt_tokens_details/cached_tokens"))
            .unwrap_or(0)
            .min(prompt);
        Some(Usage {
            input: prompt - cached,
            output,
            cache_write: 0,
            cache_read: cached,
        })
    }

    /// The OpenAI Responses API's `usage`: `input_tokens` (which include the cached ones),
    /// `output_tokens`, `input_tokens_details.cached_tokens`. `None` without the two first.
    pub(crate) fn from_responses(answer: &Value) -> Option<Usage> {
        Usage::responses_shape(answer)?.plausible()
    }

    /// The Responses API's `usage` as it is, however large its counts.
    pub(crate) fn responses_shape(answer: &Value) -> Option<Usage> {
        let u = answer.get("usage")?;
        let input = count(u.get("input_tokens"))?;
        let output = count(u.get("output_tokens"))?;
        let cached = count(u.pointer("/input_tokens_details/cached_tokens"))
            .unwrap_or(0)
            .min(input);
        Some(Usage {
            input: input - cached,
            output,
            cache_write: 0,
            cache_read: cached,
        })
    }

    /// The neutral shape (the cache entry's and the command provider's `usage` member):
    /// `input_tokens` and `output_tokens`, the cache counts optional. `None` when it is not
    /// that shape.
    pub(crate) fn from_neutral(u: &Value) -> Option<Usage> {
        Usage::neutral_shape(u)?.plausible()
    }

    /// The neutral shape as it is, however large its counts (`None` when it is not that
    /// shape): the command provider tells a usage that is not the shape (its error) from an
    /// absurd one (not reported).
    pub(crate) fn neutral_shape(u: &Value) -> Option<Usage> {
        Some(Usage {
            input: count(u.get("input_tokens"))?,
            output: count(u.get("output_tokens"))?,
            cache_write: count(u.get("cache_write_tokens")).unwrap_or(0),
            cache_read: count(u.get("cache_read_tokens")).unwrap_or(0),
        })
    }

    /// The neutral shape, with the cost at recording when there was a price for the model.
    pub(crate) fn to_neutral(self, cost_usd: Option<f64>) -> Value {
        let mut map = Map::new();
        map.insert("input_tokens".into(), json!(self.input));
        map.insert("output_tokens".into(), json!(self.output));
        map.insert("cache_write_tokens".into(), json!(self.cache_write));
        map.insert("cache_read_tokens".into(), json!(self.cache_read));
        if let Some(cost) = cost_usd.filter(|c| c.is_finite()) {
            map.insert("cost_usd".into(), json!(round_usd(cost)));
        }
        Value::Object(map)
    }
}

/// What a cache entry records beside the answer: the tokens it used and, when the model had
/// a price then, what they cost. The entry's `usage` member; mcp-toolproof 0.3.1 reads only
/// `tool`, `args` and `text`, so it ignores it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Recorded {
    /// The tokens.
    pub usage: Usage,
    /// Their cost in USD at recording.
    pub cost_usd: Option<f64>,
}

impl Recorded {
    /// The entry's `usage` member.
    pub(crate) fn to_value(self) -> Value {
        self.usage.to_neutral(self.cost_usd)
    }

    /// Reads an entry's `usage` member; `None` when it is not one (an entry is still usable
    /// without it).
    pub(crate) fn from_value(v: &Value) -> Option<Recorded> {
        Some(Recorded {
            usage: Usage::from_neutral(v)?,
            cost_usd: v
                .get("cost_usd")
                .and_then(Value::as_f64)
                .filter(|c| c.is_finite() && *c >= 0.0),
        })
    }
}

/// A cost rounded to a millionth of a dollar (what a cache entry stores).
pub(crate) fn round_usd(cost: f64) -> f64 {
    (cost * 1e6).round() / 1e6
}

/// A token count: a non-negative integer (a float with no fraction is taken too, as some
/// compatible servers send one).
fn count(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0 && *f < 9.0e15)
            .map(|f| f as u64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_usage_keeps_the_cache_counts_apart() {
        let v = json!({"usage": {"input_tokens": 12, "output_tokens": 40,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1650,
            "service_tier": "standard"}});
        let u = Usage::from_anthropic(&v);
        assert_eq!(
            u,
            Some(Usage {
                input: 12,
                output: 40,
                cache_write: 0,
                cache_read: 1650
            })
        );
        let v = json!({"usage": {"input_tokens": 10, "output_tokens": 5}});
        assert_eq!(
            Usage::from_anthropic(&v),
            Some(Usage {
                input: 10,
                output: 5,
                ..Usage::default()
            })
        );
        assert_eq!(Usage::from_anthropic(&json!({"content": []})), None);
        assert_eq!(
            Usage::from_anthropic(&json!({"usage": {"input_tokens": 1}})),
            None
        );
    }

    #[test]
    fn openai_prompt_tokens_include_the_cached_ones() {
        let v = json!({"usage": {"prompt_tokens": 2006, "completion_tokens": 300,
            "total_tokens": 2306, "prompt_tokens_details": {"cached_tokens": 1920}}});
        assert_eq!(
            Usage::from_openai(&v),
            Some(Usage {
                input: 86,
                output: 300,
                cache_write: 0,
                cache_read: 1920
            })
        );
        let v = json!({"usage": {"prompt_tokens": 80, "completion_tokens": 18,
            "prompt_tokens_details": null}});
        assert_eq!(Usage::from_openai(&v).map(|u| u.input), Some(80));
        let v = json!({"usage": {"prompt_tokens": 80.0, "completion_tokens": 18}});
        assert_eq!(Usage::from_openai(&v).map(|u| u.input), Some(80));
        assert_eq!(Usage::from_openai(&json!({"choices": []})), None);
        assert_eq!(
            Usage::from_openai(&json!({"usage": {"prompt_tokens": -1, "completion_tokens": 1}})),
            None
        );
    }

    #[test]
    fn the_neutral_shape_round_trips_with_a_cost() {
        let u = Usage {
            input: 1,
            output: 2,
            cache_write: 3,
            cache_read: 4,
        };
        let v = u.to_neutral(Some(0.000_123_456_7));
        assert_eq!(
            v,
            json!({"input_tokens": 1, "output_tokens": 2, "cache_write_tokens": 3,
                "cache_read_tokens": 4, "cost_usd": 0.000123})
        );
        assert_eq!(Usage::from_neutral(&v), Some(u));
        assert!(u.to_neutral(None).get("cost_usd").is_none());
        assert_eq!(
            Usage::from_neutral(&json!({"input_tokens": 7, "output_tokens": 1})),
            Some(Usage {
                input: 7,
                output: 1,
                ..Usage::default()
            })
        );
        assert_eq!(Usage::from_neutral(&json!({"input": 7})), None);
    }

    #[test]
    fn an_absurd_count_is_not_reported_and_totals_never_wrap() {
        let most = u64::MAX;
        for answer in [
            json!({"usage": {"input_tokens": most, "output_tokens": 1}}),
            json!({"usage": {"input_tokens": 1, "output_tokens": 1, "cache_read_input_tokens": most}}),
        ] {
            assert_eq!(Usage::from_anthropic(&answer), None, "{answer}");
        }
        let openai = json!({"usage": {"prompt_tokens": most, "completion_tokens": most}});
        assert_eq!(Usage::from_openai(&openai), None);
        let neutral = json!({"input_tokens": 1, "output_tokens": MAX_ANSWER_TOKENS + 1});
        assert_eq!(Usage::from_neutral(&neutral), None);
        let edge = json!({"input_tokens": MAX_ANSWER_TOKENS, "output_tokens": 0});
        assert_eq!(
            Usage::from_neutral(&edge).map(|u| u.input),
            Some(MAX_ANSWER_TOKENS)
        );
        let mut total = Usage {
            input: most,
            ..Usage::default()
        };
        total.add(&Usage {
            input: most,
            output: 1,
            ..Usage::default()
        });
        assert_eq!((total.input, total.output), (most, 1));
    }
}
