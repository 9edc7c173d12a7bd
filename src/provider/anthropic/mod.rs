//! The Anthropic Messages API: the request mcp-toolproof sends (same keys, same order, same
//! override rules) and every `tool_use` block of the answer.
//!
//! Its batch API, Message Batches, is in `batch.rs`.

pub(crate) mod batch;

use serde_json::{Map, Value, json};

use super::{Auth, HttpApi};

use super::{
    Answer, Kind, Provider, ProviderError, RawArgs, RawCall, Request, Setup, ShapeError,
    missing_key,
};
use crate::config::ToolChoice;
use crate::provider::Stop;
use crate::provider::prices::{Price, price};
use crate::provider::usage::Usage;

/// The API version header every request carries.
pub(crate) const VERSION: &str = "2023-06-01";

/// The endpoint under `base` (which excludes `/v1`, as in the SDK).
pub(crate) fn api(base: &str, auth: Auth) -> HttpApi {
    let url = format!("{}/v1/messages", base.trim_end_matches('/'));
    let headers = vec![("anthropic-version".to_owned(), VERSION.to_owned())];
    HttpApi::new(
        "anthropic",
        url,
        auth,
        headers,
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    )
}

/// `model, max_tokens, messages, tools, tool_choice`, then every `params` key (overriding in
/// place), then `system` when set: the reference's `{**request, **params}` then
/// `request["system"] = system`. With no tools, `tools` and `tool_choice` are left out (the API
/// rejects a `tool_choice` without tools).
///
/// With [`Request::prompt_cache`], the last tool and the system prompt (then a list of one
/// text block) carry `cache_control: {"type": "ephemeral"}`, so later requests read the tool
/// list and system prompt from the prompt cache. The cache key hashes the tools without it.
pub(crate) fn body(req: &Request) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("max_tokens".into(), json!(req.max_tokens));
    body.insert(
        "messages".into(),
        super::context::anthropic_messages(req.context, req.prompt),
    );
    if !req.tools.is_empty() {
        let mut tools = json!(req.tools);
        if req.prompt_cache
            && let Some(last) = tools.as_array_mut().and_then(|t| t.last_mut())
            && let Some(last) = last.as_object_mut()
        {
            last.insert("cache_control".into(), ephemeral());
        }
        body.insert("tools".into(), tools);
        body.insert("tool_choice".into(), json!({"type": "auto"}));
    }
    super::merge_params(&mut body, req.params);
    if let Some(system) = req.system.filter(|s| !s.is_empty()) {
        let system = if req.prompt_cache {
            json!([{"type": "text", "text": system, "cache_control": ephemeral()}])
        } else {
            json!(system)
        };
        body.insert("system".into(), system);
    }
    Value::Object(body)
}

/// The prompt cache marker (the default five-minute lifetime).
fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// Every `tool_use` block in order, the text blocks joined with a space, and the stop reason.
pub(crate) fn read(v: &Value) -> Result<Answer, ShapeError> {
    let Some(content) = v.get("content").and_then(Value::as_array) else {
        return Err(match v.get("type").and_then(Value::as_str) {
            Some("error") => ShapeError::ErrorObject(
                v.pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
                    .to_owned(),
            ),
            _ => ShapeError::NoContent,
        });
    };
    let mut calls = Vec::new();
    let mut texts = Vec::new();
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    texts.push(t);
                }
            }
            Some("tool_use") => {
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or(ShapeError::UnnamedToolUse)?;
                let args = match block.get("input") {
                    None | Some(Value::Null) => Ok(json!({})),
                    Some(obj @ Value::Object(_)) => Ok(obj.clone()),
                    Some(Value::String(raw)) => Err(RawArgs(raw.clone())),
                    Some(other) => Err(RawArgs(other.to_string())),
                };
                calls.push(RawCall {
                    name: name.to_owned(),
                    args,
                });
            }
            _ => {}
        }
    }
    let stop = match v.get("stop_reason").and_then(Value::as_str) {
        Some("refusal") => Stop::Refusal,
        Some("max_tokens") => Stop::MaxTokens,
        Some("tool_use") => Stop::ToolUse,
        Some("end_turn") => Stop::EndTurn,
        Some(other) => Stop::Other(other.to_owned()),
        None if calls.is_empty() => Stop::EndTurn,
        None => Stop::ToolUse,
    };
    Ok(Answer {
        calls,
        text: texts.join(" "),
        stop,
        usage: Usage::from_anthropic(v),
        usage_unbelievable: Usage::anthropic_shape(v).is_some_and(|u| u.plausible().is_none()),
    })
}

/// The Anthropic Messages API.
pub(crate) static KIND: AnthropicKind = AnthropicKind;

/// What the Anthropic provider is: see [`Kind`].
#[derive(Debug)]
pub(crate) struct AnthropicKind;

/// The API's default base URL (without `/v1`, as `ANTHROPIC_BASE_URL` is written).
pub(crate) const DEFAULT_BASE: &str = "https://api.anthropic.com";

/// `max_tokens` the reference sends (the API requires one).
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 16000;

/// List prices from <https://platform.claude.com/docs/en/about-claude/pricing> ("Model
/// pricing": base input, 5-minute cache writes, cache hits, output).
const PRICES: &[(&str, Price)] = &[
    ("claude-opus-4-5", price(5.0, 6.25, 0.50, 25.0)),
    ("claude-sonnet-4-5", price(3.0, 3.75, 0.30, 15.0)),
    ("claude-sonnet-4", price(3.0, 3.75, 0.30, 15.0)),
    ("claude-haiku-4-5", price(1.0, 1.25, 0.10, 5.0)),
    ("claude-3-5-haiku", price(0.80, 1.0, 0.08, 4.0)),
];

/// `{"type": "auto"|"any"|"none"}` or `{"type": "tool", "name": N}` (also the command
/// provider's shape, which matches the tool definitions it is sent).
pub(crate) fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::Any => json!({"type": "any"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
    }
}

impl Kind for AnthropicKind {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn credentials(&self) -> &'static [&'static str] {
        &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]
    }

    fn default_max_tokens(&self) -> Option<u32> {
        Some(DEFAULT_MAX_TOKENS)
    }

    fn tool_choice_wire(&self, choice: &ToolChoice) -> Value {
        tool_choice(choice)
    }

    fn prices(&self) -> &'static [(&'static str, Price)] {
        PRICES
    }

    fn batches(&self) -> bool {
        true
    }

    /// Configured like the official SDK: `ANTHROPIC_API_KEY` (sent as `x-api-key`), else
    /// `ANTHROPIC_AUTH_TOKEN` (sent as a bearer token); `ANTHROPIC_BASE_URL` without `/v1`.
    fn connect(&self, setup: &Setup<'_>) -> Result<Box<dyn Provider>, ProviderError> {
        let auth = match (
            setup.var("ANTHROPIC_API_KEY"),
            setup.var("ANTHROPIC_AUTH_TOKEN"),
        ) {
            (Some(key), _) => Auth::Header("x-api-key", key),
            (None, Some(token)) => Auth::Bearer(token),
            (None, None) => return Err(missing_key("anthropic", "ANTHROPIC_API_KEY")),
        };
        let base = setup
            .var("ANTHROPIC_BASE_URL")
            .unwrap_or_else(|| DEFAULT_BASE.to_owned());
        Ok(Box::new(configured(api(&base, auth))))
    }
}

/// The Anthropic Messages API, configured.
pub(crate) fn configured(api: HttpApi) -> super::Posted {
    super::Posted {
        api,
        body,
        read,
        batch: |api| Box::new(batch::Batches::new(api)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ApiTool;

    fn tools() -> Vec<ApiTool> {
        vec![ApiTool {
            exact_numbers: Vec::new(),
            name: "math_add".into(),
            description: "Add a and b.".into(),
            input_schema: json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
        }]
    }

    fn req<'a>(
        tools: &'a [ApiTool],
        params: &'a Map<String, Value>,
        system: Option<&'a str>,
    ) -> Request<'a> {
        Request {
            model: "m1",
            system,
            prompt: "Please add 2 and 3",
            context: &[],
            tools,
            params,
            tool_choice: None,
            max_tokens: 16000,
            prompt_cache: false,
        }
    }

    #[test]
    fn body_has_the_reference_keys_in_order() {
        let tools = tools();
        let params = Map::new();
        let b = body(&req(&tools, &params, Some("You pick tools.")));
        assert_eq!(
            serde_json::to_string(&b).unwrap_or_default(),
            r#"{"model":"m1","max_tokens":16000,"messages":[{"role":"user","content":"Please add 2 and 3"}],"tools":[{"name":"math_add","description":"Add a and b.","input_schema":{"type":"object","properties":{"a":{"type":"integer"}}}}],"tool_choice":{"type":"auto"},"system":"You pick tools."}"#
        );
    }

    #[test]
    fn the_prompt_cache_marks_the_last_tool_and_the_system_prompt_only() {
        let mut tools = tools();
        tools.push(ApiTool {
            name: "echo".into(),
            ..tools[0].clone()
        });
        let params = Map::new();
        let cached = Request {
            prompt_cache: true,
            ..req(&tools, &params, Some("You pick tools."))
        };
        let b = body(&cached);
        assert_eq!(b["tools"][1]["cache_control"], json!({"type": "ephemeral"}));
        assert!(b["tools"][0].get("cache_control").is_none());
        assert_eq!(
            b["system"],
            json!([{"type": "text", "text": "You pick tools.", "cache_control": {"type": "ephemeral"}}])
        );
        // Everything else is the reference's request.
        let plain = body(&req(&tools, &params, Some("You pick tools.")));
        let mut unmarked = b.clone();
        if let Some(last) = unmarked["tools"][1].as_object_mut() {
            last.remove("cache_control");
        }
        unmarked["system"] = json!("You pick tools.");
        assert_eq!(unmarked, plain);
        // No system prompt, no tools: nothing to mark.
        let b = body(&Request {
            prompt_cache: true,
            ..req(&[], &params, None)
        });
        assert!(b.get("system").is_none() && b.get("tools").is_none());
    }

    #[test]
    fn params_override_in_place_and_the_yaml_system_wins() {
        let tools = tools();
        let params = json!({"max_tokens": 5, "stop_sequences": ["STOP"], "system": "from params", "tool_choice": {"type": "any"}});
        let params = params.as_object().cloned().unwrap_or_default();
        let b = body(&req(&tools, &params, Some("from yaml")));
        let keys: Vec<&str> = b
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [
                "model",
                "max_tokens",
                "messages",
                "tools",
                "tool_choice",
                "stop_sequences",
                "system"
            ]
        );
        assert_eq!(b["max_tokens"], 5);
        assert_eq!(b["tool_choice"], json!({"type": "any"}));
        assert_eq!(b["system"], "from yaml");
        // Without a YAML system (or with an empty one), params.system stays.
        let b = body(&req(&tools, &params, Some("")));
        assert_eq!(b["system"], "from params");
        let b = body(&req(&tools, &Map::new(), None));
        assert!(b.get("system").is_none());
        // No tools: no tools and no tool_choice.
        let b = body(&req(&[], &Map::new(), None));
        assert!(b.get("tools").is_none() && b.get("tool_choice").is_none());
    }

    #[test]
    fn every_tool_use_block_is_read_in_order_with_the_text() {
        let v = json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m1",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "text", "text": "I'll add."},
                {"type": "tool_use", "id": "toolu_1", "name": "math_add", "input": {"a": 2, "b": 3}},
                {"type": "text", "text": "And echo."},
                {"type": "tool_use", "id": "toolu_2", "name": "echo", "input": {"text": "hi"}}
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 5}
        });
        let a = read(&v).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.text, "I'll add. And echo.");
        assert_eq!(a.stop, Stop::ToolUse);
        assert_eq!(
            a.calls,
            [
                RawCall {
                    name: "math_add".into(),
                    args: Ok(json!({"a": 2, "b": 3}))
                },
                RawCall {
                    name: "echo".into(),
                    args: Ok(json!({"text": "hi"}))
                },
            ]
        );
    }

    #[test]
    fn stop_reasons_text_only_and_odd_inputs() {
        let stop = |reason: Value| {
            read(&json!({"content": [{"type": "text", "text": "no"}], "stop_reason": reason}))
                .map(|a| a.stop)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(stop(json!("refusal")), Stop::Refusal);
        assert_eq!(stop(json!("max_tokens")), Stop::MaxTokens);
        assert_eq!(stop(json!("end_turn")), Stop::EndTurn);
        assert_eq!(
            stop(json!("stop_sequence")),
            Stop::Other("stop_sequence".into())
        );
        assert_eq!(stop(Value::Null), Stop::EndTurn);
        let a = read(&json!({"content": [{"type": "tool_use", "name": "x", "input": "[1"}]}))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.calls[0].args, Err(RawArgs("[1".to_owned())));
        assert_eq!(a.stop, Stop::ToolUse);
        let a = read(
            &json!({"content": [{"type": "tool_use", "name": "x"}], "stop_reason": "max_tokens"}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.calls[0].args, Ok(json!({})));
        assert_eq!(a.stop, Stop::MaxTokens);
    }

    #[test]
    fn wrong_shapes_are_described() {
        assert_eq!(read(&json!({"choices": []})), Err(ShapeError::NoContent));
        assert_eq!(
            read(&json!({"type": "error", "error": {"message": "overloaded"}})),
            Err(ShapeError::ErrorObject("overloaded".into()))
        );
        assert!(read(&json!({"content": [{"type": "tool_use", "input": {}}]})).is_err());
    }
}
