//! The OpenAI Responses API (`POST {base}/responses`, `evals.openai_api: responses`): the
//! request body and every function call of the answer, read leniently.
//!
//! Wire facts, from the API reference (<https://platform.openai.com/docs/api-reference/responses>)
//! and the types of the official Python SDK (`openai/types/responses/`):
//! - the request takes `input` items (messages, `function_call`, `function_call_output`), the
//!   system prompt as `instructions`, flat function tools (`{"type": "function", "name",
//!   "description", "parameters"}`), `tool_choice` as `"auto" | "required" | "none"` or
//!   `{"type": "function", "name": N}`, `max_output_tokens`, and `reasoning` for reasoning
//!   models;
//! - the answer's `output` is a list of items: `function_call` (`name`, `call_id`, `arguments`
//!   a JSON string), `message` (`content` parts `output_text` or `refusal`), `reasoning` (no
//!   answer of its own); `status` is `completed`, `incomplete` (with
//!   `incomplete_details.reason`: `max_output_tokens` or `content_filter`), `failed` or
//!   `in_progress`; `usage` holds `input_tokens` (cached ones included), `output_tokens` and
//!   `input_tokens_details.cached_tokens`.

use serde_json::{Map, Value, json};

use super::openai::arguments;
use super::{Answer, Auth, HttpApi, RawCall, Request, ShapeError};
use crate::provider::Stop;
use crate::provider::usage::Usage;

/// The endpoint under `base` (which includes `/v1`, as in the SDK), with `key` as a bearer
/// token, or no `authorization` header without one.
pub(crate) fn api(base: &str, key: Option<&str>, headers: Vec<(String, String)>) -> HttpApi {
    let url = format!("{}/responses", base.trim_end_matches('/'));
    HttpApi::new(
        "openai",
        url,
        key.map_or(Auth::None, |k| Auth::Bearer(k.to_owned())),
        headers,
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    )
}

/// The Responses API (of OpenAI, or of a compatible server), configured.
pub(crate) fn configured(api: HttpApi) -> super::Posted {
    super::Posted {
        api,
        body,
        read,
        batch: |api| Box::new(super::openai::batch::Batches::responses(api)),
    }
}

/// `model, [instructions], input, tools, tool_choice: auto`, then every `params` key
/// (overriding in place; `reasoning`, `max_output_tokens` and the rest pass through as given).
/// A `tool_choice` in the Chat Completions shape (`{"type": "function", "function": {"name":
/// N}}`, which `evals.tool_choice` becomes for the `openai` provider) is sent in the Responses
/// shape (`{"type": "function", "name": N}`). With no tools, `tools` and `tool_choice` are left
/// out.
pub(crate) fn body(req: &Request) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    if let Some(system) = req.system.filter(|s| !s.is_empty()) {
        body.insert("instructions".into(), json!(system));
    }
    body.insert(
        "input".into(),
        Value::Array(super::context::responses_input(req.context, req.prompt)),
    );
    if !req.tools.is_empty() {
        let functions: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function", "name": t.name, "description": t.description,
                    "parameters": t.input_schema,
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(functions));
        body.insert("tool_choice".into(), json!("auto"));
    }
    super::merge_params(&mut body, req.params);
    if let Some(choice) = body.get_mut("tool_choice") {
        *choice = tool_choice(choice);
    }
    Value::Object(body)
}

/// A `tool_choice` in the Responses shape: a named function in the Chat Completions shape is
/// flattened; anything else is sent as given.
pub(crate) fn tool_choice(choice: &Value) -> Value {
    match (
        choice.get("type").and_then(Value::as_str),
        choice.pointer("/function/name").and_then(Value::as_str),
    ) {
        (Some("function"), Some(name)) if choice.get("name").is_none() => {
            json!({"type": "function", "name": name})
        }
        _ => choice.clone(),
    }
}

/// Every `function_call` item of `output`, the `output_text` parts of its messages (joined with
/// a space), a refusal, and why it stopped. An `error` object without output is the API's
/// error. Whether the model used a tool is decided from the calls.
pub(crate) fn read(v: &Value) -> Result<Answer, ShapeError> {
    let Some(output) = v.get("output").and_then(Value::as_array) else {
        return Err(match v.pointer("/error/message").and_then(Value::as_str) {
            Some(m) => ShapeError::ErrorObject(m.to_owned()),
            None => ShapeError::NoOutput,
        });
    };
    let mut calls = Vec::new();
    let mut texts = Vec::new();
    let mut refusals = Vec::new();
    for item in output {
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                let name = item
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or(ShapeError::UnnamedCall)?;
                calls.push(RawCall {
                    name: name.to_owned(),
                    args: arguments(item.get("arguments")),
                });
            }
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let text = |key| part.get(key).and_then(Value::as_str);
                    match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => texts.extend(text("text")),
                        Some("refusal") => refusals.extend(text("refusal")),
                        _ => {}
                    }
                }
            }
            // Reasoning summaries and built-in tools' items are no answer of their own.
            _ => {}
        }
    }
    let refusal = refusals.join(" ");
    let status = v.get("status").and_then(Value::as_str);
    let incomplete = v
        .pointer("/incomplete_details/reason")
        .and_then(Value::as_str);
    let stop = if !refusal.is_empty() {
        Stop::Refusal
    } else if incomplete == Some("max_output_tokens") {
        Stop::MaxTokens
    } else if !calls.is_empty() {
        Stop::ToolUse
    } else {
        match (status, incomplete) {
            (_, Some(reason)) => Stop::Other(reason.to_owned()),
            (None | Some("completed"), None) => Stop::EndTurn,
            (Some(other), None) => Stop::Other(other.to_owned()),
        }
    };
    let text = texts.join(" ");
    let text = if text.is_empty() { refusal } else { text };
    Ok(Answer {
        calls,
        text,
        stop,
        usage: Usage::from_responses(v),
        usage_unbelievable: Usage::responses_shape(v).is_some_and(|u| u.plausible().is_none()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Turn;
    use crate::provider::ApiTool;
    use crate::provider::RawArgs;

    fn response(output: Value) -> Value {
        json!({
            "id": "resp_1", "object": "response", "created_at": 1764500000, "model": "m1",
            "status": "completed", "error": null, "incomplete_details": null,
            "output": output,
            "usage": {"input_tokens": 80, "input_tokens_details": {"cached_tokens": 64},
                      "output_tokens": 18, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 98}
        })
    }

    fn call(name: &str, arguments: Value) -> Value {
        json!({"type": "function_call", "id": format!("fc_{name}"), "call_id": format!("call_{name}"),
               "name": name, "arguments": arguments, "status": "completed"})
    }

    fn message(parts: Value) -> Value {
        json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": parts})
    }

    fn read_ok(v: &Value) -> Answer {
        read(v).unwrap_or_else(|e| panic!("{e}"))
    }

    fn tools() -> Vec<ApiTool> {
        vec![ApiTool {
            exact_numbers: Vec::new(),
            name: "math_add".into(),
            description: "Add a and b.".into(),
            input_schema: json!({"type": "object"}),
        }]
    }

    #[test]
    fn body_has_instructions_input_items_and_flat_tools() {
        let tools = tools();
        let params = json!({"reasoning": {"effort": "low"}, "max_output_tokens": 300});
        let params = params.as_object().cloned().unwrap_or_default();
        let mut args = Map::new();
        args.insert("a".into(), json!(1));
        let context = [
            Turn::User("add 1".into()),
            Turn::Call {
                tool: "math_add".into(),
                args,
                result: "1".into(),
            },
        ];
        let req = Request {
            model: "o4-mini",
            system: Some("You pick tools."),
            prompt: "Please add 2 and 3",
            context: &context,
            tools: &tools,
            params: &params,
            tool_choice: None,
            max_tokens: 16000,
            prompt_cache: false,
        };
        assert_eq!(
            serde_json::to_string(&body(&req)).unwrap_or_default(),
            r#"{"model":"o4-mini","instructions":"You pick tools.","input":[{"role":"user","content":"add 1"},{"type":"function_call","call_id":"call_ctx_1","name":"math_add","arguments":"{\"a\":1}"},{"type":"function_call_output","call_id":"call_ctx_1","output":"1"},{"role":"user","content":"Please add 2 and 3"}],"tools":[{"type":"function","name":"math_add","description":"Add a and b.","parameters":{"type":"object"}}],"tool_choice":"auto","reasoning":{"effort":"low"},"max_output_tokens":300}"#
        );
        let empty = Map::new();
        let req = Request {
            system: None,
            context: &[],
            tools: &[],
            params: &empty,
            ..req
        };
        assert_eq!(
            serde_json::to_string(&body(&req)).unwrap_or_default(),
            r#"{"model":"o4-mini","input":[{"role":"user","content":"Please add 2 and 3"}]}"#
        );
    }

    #[test]
    fn tool_choice_is_sent_in_the_responses_shape() {
        let tools = tools();
        for (given, sent) in [
            (json!("required"), json!("required")),
            (json!("none"), json!("none")),
            (
                json!({"type": "function", "function": {"name": "math_add"}}),
                json!({"type": "function", "name": "math_add"}),
            ),
            (
                json!({"type": "function", "name": "math_add"}),
                json!({"type": "function", "name": "math_add"}),
            ),
        ] {
            let mut params = Map::new();
            params.insert("tool_choice".into(), given);
            let req = Request {
                model: "m",
                system: None,
                prompt: "p",
                context: &[],
                tools: &tools,
                params: &params,
                tool_choice: None,
                max_tokens: 16000,
                prompt_cache: false,
            };
            assert_eq!(body(&req)["tool_choice"], sent);
        }
    }

    #[test]
    fn every_function_call_item_is_read_and_reasoning_is_skipped() {
        let v = response(json!([
            {"type": "reasoning", "id": "rs_1", "summary": []},
            call("math_add", json!("{\"a\": 2, \"b\": 3}")),
            call("ping", json!("")),
            call("bad", json!("{oops")),
            {"type": "web_search_call", "id": "ws_1", "status": "completed"},
            call("echo", json!({"text": "hi"})),
        ]));
        let a = read_ok(&v);
        let got: Vec<(&str, Result<Value, RawArgs>)> = a
            .calls
            .iter()
            .map(|c| (c.name.as_str(), c.args.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("math_add", Ok(json!({"a": 2, "b": 3}))),
                ("ping", Ok(json!({}))),
                ("bad", Err(RawArgs("{oops".to_owned()))),
                ("echo", Ok(json!({"text": "hi"}))),
            ]
        );
        assert_eq!((a.stop, a.text.as_str()), (Stop::ToolUse, ""));
        assert_eq!(
            a.usage,
            Some(Usage {
                input: 16,
                output: 18,
                cache_write: 0,
                cache_read: 64
            })
        );
    }

    #[test]
    fn text_refusal_and_the_reasons_an_answer_is_incomplete() {
        let text = message(json!([
            {"type": "output_text", "text": "no tool", "annotations": []},
            {"type": "output_text", "text": "needed", "annotations": []}
        ]));
        let a = read_ok(&response(json!([text])));
        assert_eq!((a.stop, a.text.as_str()), (Stop::EndTurn, "no tool needed"));
        let refused = message(json!([{"type": "refusal", "refusal": "I can't help with that."}]));
        let a = read_ok(&response(json!([refused])));
        assert_eq!(
            (a.stop, a.text.as_str()),
            (Stop::Refusal, "I can't help with that.")
        );
        let mut cut = response(json!([call("echo", json!("{\"te"))]));
        cut["status"] = json!("incomplete");
        cut["incomplete_details"] = json!({"reason": "max_output_tokens"});
        let a = read_ok(&cut);
        assert_eq!(a.stop, Stop::MaxTokens);
        assert_eq!(a.calls[0].args, Err(RawArgs("{\"te".to_owned())));
        let mut filtered = response(json!([]));
        filtered["status"] = json!("incomplete");
        filtered["incomplete_details"] = json!({"reason": "content_filter"});
        assert_eq!(
            read_ok(&filtered).stop,
            Stop::Other("content_filter".into())
        );
    }

    #[test]
    fn usage_is_optional_and_absurd_counts_are_not_reported() {
        let mut v = response(json!([]));
        v.as_object_mut().map(|m| m.remove("usage"));
        assert_eq!(read_ok(&v).usage, None);
        v["usage"] = json!({"input_tokens": u64::MAX, "output_tokens": 1});
        let a = read_ok(&v);
        assert_eq!(a.usage, None);
        assert!(a.usage_unbelievable);
    }

    #[test]
    fn wrong_shapes_are_described() {
        assert_eq!(read(&json!({"id": "resp_1"})), Err(ShapeError::NoOutput));
        assert_eq!(
            read(&json!({"error": {"message": "busy", "type": "server_error"}})),
            Err(ShapeError::ErrorObject("busy".into()))
        );
        assert_eq!(
            read(&response(
                json!([{"type": "function_call", "arguments": "{}"}])
            )),
            Err(ShapeError::UnnamedCall)
        );
    }
}
