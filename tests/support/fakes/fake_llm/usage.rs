//! Token usage as the real APIs report it, with their prompt caches: Anthropic caches the
//! prefix up to a `cache_control` marker (tools, then system), OpenAI caches any prefix it has
//! seen (tools and system prompt; for the Responses API, tools and `instructions`). A token is four bytes of the request's JSON, rounded up.
//!
//! The fake caches from the first request on, whatever the prefix's length (the real APIs
//! need 1,024 tokens or more), per model, for the server's lifetime.

use std::collections::HashSet;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::wire::Api;

/// The prefixes already cached, per API and model.
#[derive(Default)]
pub struct PromptCache {
    seen: Mutex<HashSet<String>>,
}

impl PromptCache {
    /// Whether `prefix` was cached before; caches it.
    pub fn hit(&self, key: String) -> bool {
        match self.seen.lock() {
            Ok(mut seen) => !seen.insert(key),
            Err(_) => false,
        }
    }
}

/// The input side of one request's usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Input {
    /// Input tokens at the base rate (Anthropic `input_tokens`; for OpenAI, the part of
    /// `prompt_tokens` that was not cached).
    pub fresh: u64,
    /// Tokens written to the cache (Anthropic only).
    pub cache_write: u64,
    /// Tokens read from the cache.
    pub cache_read: u64,
}

fn tokens(v: &Value) -> u64 {
    match v {
        Value::Null => 0,
        Value::String(s) => (s.len() as u64).div_ceil(4),
        other => (other.to_string().len() as u64).div_ceil(4),
    }
}

/// Whether a value carries a `cache_control` marker (a tool, or a system block).
fn marked(v: &Value) -> bool {
    v.get("cache_control").is_some()
}

/// What the request's input costs, and what it does to the prompt cache.
pub fn input(api: Api, model: &str, body: &Value, cache: &PromptCache) -> Input {
    let tools = body.get("tools").cloned().unwrap_or(Value::Null);
    let messages = body.get("messages").cloned().unwrap_or(Value::Null);
    match api {
        Api::Anthropic => {
            let system = body.get("system").cloned().unwrap_or(Value::Null);
            let tools_marked = tools
                .as_array()
                .is_some_and(|t| t.last().is_some_and(marked));
            let system_marked = system
                .as_array()
                .is_some_and(|b| b.last().is_some_and(marked));
            // The cached prefix ends at the last marker: tools come before system.
            let (prefix, rest) = if system_marked {
                (tokens(&tools) + tokens(&system), 0)
            } else if tools_marked {
                (tokens(&tools), tokens(&system))
            } else {
                (0, tokens(&tools) + tokens(&system))
            };
            let fresh = rest + tokens(&messages) + 10;
            if prefix == 0 {
                return Input {
                    fresh,
                    ..Input::default()
                };
            }
            let key = format!(
                "anthropic\n{model}\n{tools}\n{}",
                if system_marked {
                    system.to_string()
                } else {
                    String::new()
                }
            );
            if cache.hit(key) {
                Input {
                    fresh,
                    cache_read: prefix,
                    ..Input::default()
                }
            } else {
                Input {
                    fresh,
                    cache_write: prefix,
                    ..Input::default()
                }
            }
        }
        Api::Responses => {
            let instructions = body.get("instructions").cloned().unwrap_or(Value::Null);
            let input = body.get("input").cloned().unwrap_or(Value::Null);
            let prefix = tokens(&tools) + tokens(&instructions);
            let all = prefix + tokens(&input) + 10;
            let key = format!("responses\n{model}\n{tools}\n{instructions}");
            let cached = if prefix > 0 && cache.hit(key) {
                prefix
            } else {
                0
            };
            Input {
                fresh: all - cached,
                cache_read: cached,
                ..Input::default()
            }
        }
        Api::OpenAi => {
            let list = messages.as_array().cloned().unwrap_or_default();
            let system: Vec<&Value> = list
                .iter()
                .take_while(|m| m.get("role").and_then(Value::as_str) == Some("system"))
                .collect();
            let system = Value::Array(system.into_iter().cloned().collect());
            let prefix = tokens(&tools)
                + if system.as_array().is_some_and(|s| s.is_empty()) {
                    0
                } else {
                    tokens(&system)
                };
            let all = tokens(&tools) + tokens(&messages) + 10;
            let key = format!("openai\n{model}\n{tools}\n{system}");
            let cached = if prefix > 0 && cache.hit(key) {
                prefix
            } else {
                0
            };
            Input {
                fresh: all - cached,
                cache_read: cached,
                ..Input::default()
            }
        }
        Api::Gemini => crate::gemini::input(model, body, cache),
    }
}

/// The `usage` object of an answer with `output` tokens.
pub fn usage(api: Api, input: &Input, output: u64) -> Value {
    match api {
        Api::Anthropic => json!({
            "input_tokens": input.fresh,
            "cache_creation_input_tokens": input.cache_write,
            "cache_read_input_tokens": input.cache_read,
            "output_tokens": output,
            "service_tier": "standard"
        }),
        Api::OpenAi => {
            let prompt = input.fresh + input.cache_read;
            json!({
                "prompt_tokens": prompt,
                "completion_tokens": output,
                "total_tokens": prompt + output,
                "prompt_tokens_details": {"cached_tokens": input.cache_read, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                    "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
            })
        }
        // Gemini answers are written whole by `crate::gemini::answer`.
        Api::Gemini => Value::Null,
        Api::Responses => {
            let prompt = input.fresh + input.cache_read;
            json!({
                "input_tokens": prompt,
                "input_tokens_details": {"cached_tokens": input.cache_read},
                "output_tokens": output,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": prompt + output
            })
        }
    }
}
