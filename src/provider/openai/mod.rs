//! OpenAI Chat Completions, and the compatible servers (vLLM, Ollama, llama.cpp, LM Studio…):
//! the request mcp-toolproof sends and every function call of the answer, read leniently.
//!
//! Its Batch API (for Chat Completions and the Responses API) is in `batch.rs`.

pub(crate) mod batch;

use serde_json::{Map, Value, json};

use super::{Auth, HttpApi};

use super::{
    Answer, Kind, Provider, ProviderError, RawArgs, RawCall, Request, Setup, ShapeError,
    missing_key,
};
use crate::config::{OpenAiApi, ToolChoice};
use crate::provider::Stop;
use crate::provider::prices::{Price, price};
use crate::provider::usage::Usage;

/// The endpoint under `base` (which includes `/v1`, as in the SDK), with `key` as a bearer
/// token, or no `authorization` header without one.
pub(crate) fn api(base: &str, key: Option<&str>, headers: Vec<(String, String)>) -> HttpApi {
    let url = format!("{}/chat/completions", base.trim_end_matches('/'));
    HttpApi::new(
        "openai",
        url,
        key.map_or(Auth::None, |k| Auth::Bearer(k.to_owned())),
        headers,
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    )
}

/// `model, messages ([system], user), tools, tool_choice: auto`, then every `params` key
/// (overriding in place). No `max_tokens`: reasoning models reject it. With no tools, `tools`
/// and `tool_choice` are left out (the API rejects an empty `tools` list).
pub(crate) fn body(req: &Request) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = req.system.filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.extend(super::context::openai_messages(req.context, req.prompt));
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("messages".into(), Value::Array(messages));
    if !req.tools.is_empty() {
        let functions: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(functions));
        body.insert("tool_choice".into(), json!("auto"));
    }
    super::merge_params(&mut body, req.params);
    Value::Object(body)
}

/// The calls of `choices[0].message.tool_calls` (type `function`, or no type), the content, a
/// refusal, and the finish reason. Whether the model used a tool is decided from the calls, not
/// from `finish_reason`, which some servers set to `stop` alongside calls.
pub(crate) fn read(v: &Value) -> Result<Answer, ShapeError> {
    let Some(message) = v.pointer("/choices/0/message") else {
        return Err(match v.pointer("/error/message").and_then(Value::as_str) {
            Some(m) => ShapeError::ErrorObject(m.to_owned()),
            None => ShapeError::NoMessage,
        });
    };
    let mut calls = Vec::new();
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = call.get("type").and_then(Value::as_str);
        if kind.is_some_and(|k| k != "function") {
            continue;
        }
        let Some(function) = call.get("function") else {
            continue;
        };
        let name = function
            .get("name")
            .and_then(Value::as_str)
            .ok_or(ShapeError::UnnamedCall)?;
        calls.push(RawCall {
            name: name.to_owned(),
            args: arguments(function.get("arguments")),
        });
    }
    let text = content_text(message.get("content"));
    let refusal = message
        .get("refusal")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty());
    let finish = v
        .pointer("/choices/0/finish_reason")
        .and_then(Value::as_str);
    let stop = if refusal.is_some() {
        Stop::Refusal
    } else if finish == Some("length") {
        Stop::MaxTokens
    } else if !calls.is_empty() {
        Stop::ToolUse
    } else {
        match finish {
            None | Some("stop" | "tool_calls" | "function_call") => Stop::EndTurn,
            Some(other) => Stop::Other(other.to_owned()),
        }
    };
    let text = match refusal {
        Some(r) if text.is_empty() => r.to_owned(),
        _ => text,
    };
    Ok(Answer {
        calls,
        text,
        stop,
        usage: Usage::from_openai(v),
        usage_unbelievable: Usage::openai_shape(v).is_some_and(|u| u.plausible().is_none()),
    })
}

/// `arguments` as an object: a JSON string (the API), an object (some compatible servers), or
/// nothing (`{}`, like the reference's `or "{}"`); anything else is kept raw.
pub(super) fn arguments(raw: Option<&Value>) -> Result<Value, RawArgs> {
    match raw {
        None | Some(Value::Null) => Ok(json!({})),
        Some(obj @ Value::Object(_)) => Ok(obj.clone()),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(json!({})),
        Some(Value::String(s)) => match crate::pycompat::bigint::from_str(s) {
            Ok(obj @ Value::Object(_)) => Ok(obj),
            _ => Err(RawArgs(s.clone())),
        },
        Some(other) => Err(RawArgs(other.to_string())),
    }
}

/// `content` as text: a string, or the text parts of a list joined with a space.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// OpenAI Chat Completions, or a compatible server at `OPENAI_BASE_URL`.
pub(crate) static KIND: OpenAiKind = OpenAiKind;

/// What the OpenAI provider is: see [`Kind`].
#[derive(Debug)]
pub(crate) struct OpenAiKind;

/// The API's default base URL (with `/v1`, as `OPENAI_BASE_URL` is written).
pub(crate) const DEFAULT_BASE: &str = "https://api.openai.com/v1";

/// List prices from <https://developers.openai.com/api/docs/pricing> (input, cached input,
/// output; OpenAI charges no cache write, so it is the input price).
const PRICES: &[(&str, Price)] = &[
    ("gpt-5", price(1.25, 1.25, 0.125, 10.0)),
    ("gpt-5-mini", price(0.25, 0.25, 0.025, 2.0)),
    ("gpt-4.1", price(2.0, 2.0, 0.50, 8.0)),
    ("gpt-4.1-mini", price(0.40, 0.40, 0.10, 1.60)),
    ("gpt-4o", price(2.50, 2.50, 1.25, 10.0)),
    ("gpt-4o-mini", price(0.15, 0.15, 0.075, 0.60)),
];

/// Chat Completions' `"auto"|"required"|"none"` or `{"type": "function", "function": {"name": N}}`.
pub(crate) fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::Any => json!("required"),
        ToolChoice::None => json!("none"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
    }
}

impl Kind for OpenAiKind {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn credentials(&self) -> &'static [&'static str] {
        &["OPENAI_API_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"]
    }

    fn max_tokens_key<'a>(&self, configured: &'a str) -> &'a str {
        configured
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

    /// Configured like the official SDK: `OPENAI_API_KEY`, `OPENAI_BASE_URL` with `/v1`, and
    /// `OPENAI_ORG_ID` / `OPENAI_PROJECT_ID` when set. The key is needed for OpenAI's own API
    /// only: a compatible server at another `OPENAI_BASE_URL` (llama.cpp, Ollama, vLLM) is sent
    /// none when it is not set (the SDK, and so the reference, refuses to send a request
    /// without one).
    fn connect(&self, setup: &Setup<'_>) -> Result<Box<dyn Provider>, ProviderError> {
        let base = setup
            .var("OPENAI_BASE_URL")
            .unwrap_or_else(|| DEFAULT_BASE.to_owned());
        let key = setup.var("OPENAI_API_KEY");
        if key.is_none() && crate::config::is_openai_host(&base) {
            return Err(missing_key("openai", "OPENAI_API_KEY"));
        }
        let mut headers = Vec::new();
        if let Some(org) = setup.var("OPENAI_ORG_ID") {
            headers.push(("openai-organization".to_owned(), org));
        }
        if let Some(project) = setup.var("OPENAI_PROJECT_ID") {
            headers.push(("openai-project".to_owned(), project));
        }
        Ok(match setup.cfg.map(|c| c.openai_api) {
            Some(OpenAiApi::Responses) => Box::new(super::responses::configured(
                super::responses::api(&base, key.as_deref(), headers),
            )),
            _ => Box::new(configured(api(&base, key.as_deref(), headers))),
        })
    }

    fn speaks_openai(&self) -> bool {
        true
    }
}

/// OpenAI Chat Completions (or a compatible server), configured.
pub(crate) fn configured(api: HttpApi) -> super::Posted {
    super::Posted {
        api,
        body,
        read,
        batch: |api| Box::new(batch::Batches::chat(api)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ApiTool;

    fn completion(message: Value, finish: &str) -> Value {
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1764500000, "model": "m1",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 80, "completion_tokens": 18, "total_tokens": 98}
        })
    }

    fn call(name: &str, arguments: Value) -> Value {
        json!({"id": format!("call_{name}"), "type": "function", "function": {"name": name, "arguments": arguments}})
    }

    fn read_ok(v: &Value) -> Answer {
        read(v).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn body_matches_the_reference_and_params_override() {
        let tools = vec![ApiTool {
            exact_numbers: Vec::new(),
            name: "math_add".into(),
            description: "Add a and b.".into(),
            input_schema: json!({"type": "object"}),
        }];
        let params = json!({"seed": 1, "stop": ["STOP"], "tool_choice": "required"});
        let params = params.as_object().cloned().unwrap_or_default();
        let req = Request {
            model: "m1",
            system: Some("You pick tools."),
            prompt: "Please add 2 and 3",
            context: &[],
            tools: &tools,
            params: &params,
            tool_choice: None,
            max_tokens: 16000,
            prompt_cache: false,
        };
        assert_eq!(
            serde_json::to_string(&body(&req)).unwrap_or_default(),
            r#"{"model":"m1","messages":[{"role":"system","content":"You pick tools."},{"role":"user","content":"Please add 2 and 3"}],"tools":[{"type":"function","function":{"name":"math_add","description":"Add a and b.","parameters":{"type":"object"}}}],"tool_choice":"required","seed":1,"stop":["STOP"]}"#
        );
        let empty = Map::new();
        let req = Request {
            system: None,
            tools: &[],
            params: &empty,
            tool_choice: None,
            ..req
        };
        assert_eq!(
            serde_json::to_string(&body(&req)).unwrap_or_default(),
            r#"{"model":"m1","messages":[{"role":"user","content":"Please add 2 and 3"}]}"#
        );
    }

    #[test]
    fn every_function_call_is_read_with_its_arguments() {
        let msg = json!({"role": "assistant", "content": null, "refusal": null, "tool_calls": [
            call("math_add", json!("{\"a\": 2, \"b\": 3}")),
            {"id": "c", "type": "custom", "custom": {"name": "grep", "input": "x"}},
            call("echo", json!({"text": "hi"})),
            call("ping", json!("")),
            call("bad", json!("{oops")),
            call("list", json!("[1, 2]")),
            {"function": {"name": "untyped", "arguments": "{}"}},
        ]});
        let a = read_ok(&completion(msg, "tool_calls"));
        let got: Vec<(&str, Result<Value, RawArgs>)> = a
            .calls
            .iter()
            .map(|c| (c.name.as_str(), c.args.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("math_add", Ok(json!({"a": 2, "b": 3}))),
                ("echo", Ok(json!({"text": "hi"}))),
                ("ping", Ok(json!({}))),
                ("bad", Err(RawArgs("{oops".to_owned()))),
                ("list", Err(RawArgs("[1, 2]".to_owned()))),
                ("untyped", Ok(json!({}))),
            ]
        );
        assert_eq!(a.stop, Stop::ToolUse);
        assert_eq!(a.text, "");
    }

    #[test]
    fn tool_use_comes_from_the_calls_not_the_finish_reason() {
        let msg = json!({"role": "assistant", "content": "sure", "tool_calls": [call("echo", json!("{}"))]});
        let a = read_ok(&completion(msg, "stop"));
        assert_eq!((a.stop, a.text.as_str()), (Stop::ToolUse, "sure"));
        let msg = json!({"role": "assistant", "content": "no tool needed", "tool_calls": []});
        let a = read_ok(&completion(msg, "tool_calls"));
        assert_eq!(a.stop, Stop::EndTurn);
        assert!(a.calls.is_empty());
    }

    #[test]
    fn refusal_length_and_content_parts() {
        let msg =
            json!({"role": "assistant", "content": null, "refusal": "I can't help with that."});
        let a = read_ok(&completion(msg, "stop"));
        assert_eq!(a.stop, Stop::Refusal);
        assert_eq!(a.text, "I can't help with that.");
        let msg = json!({"role": "assistant", "content": "cut", "tool_calls": [call("echo", json!("{\"te"))]});
        let a = read_ok(&completion(msg, "length"));
        assert_eq!(a.stop, Stop::MaxTokens);
        assert_eq!(a.calls[0].args, Err(RawArgs("{\"te".to_owned())));
        let msg = json!({"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]});
        let a = read_ok(&completion(msg, "content_filter"));
        assert_eq!(a.text, "a b");
        assert_eq!(a.stop, Stop::Other("content_filter".into()));
    }

    #[test]
    fn wrong_shapes_are_described() {
        assert_eq!(read(&json!({"choices": []})), Err(ShapeError::NoMessage));
        assert_eq!(
            read(&json!({"error": {"message": "busy"}})),
            Err(ShapeError::ErrorObject("busy".into()))
        );
    }
}
