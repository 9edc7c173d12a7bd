//! The wire formats: reading the prompt and tools out of an Anthropic Messages, OpenAI Chat
//! Completions or OpenAI Responses request, and writing answers and errors in the exact shapes
//! the real APIs (and their SDKs) use.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::script::{Call, Script, Status};
use crate::usage::{self, Input};

/// Which API a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST /v1/messages`.
    Anthropic,
    /// `POST /v1/chat/completions` or `/chat/completions`.
    OpenAi,
    /// `POST /v1beta/models/{MODEL}:generateContent` (see `crate::gemini`).
    Gemini,
    /// `POST /v1/responses` or `/responses` (the OpenAI Responses API).
    Responses,
}

/// An HTTP answer: status, extra headers, content type, body.
#[derive(Debug)]
pub struct Out {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub content_type: &'static str,
    pub body: String,
}

impl Out {
    /// A JSON answer; a `usage: null` member is left out (`[[no-usage]]`: as servers that
    /// count nothing do).
    fn json(status: u16, mut body: Value) -> Out {
        if let Some(map) = body.as_object_mut()
            && map.get("usage") == Some(&Value::Null)
        {
            map.remove("usage");
        }
        Out {
            status,
            headers: Vec::new(),
            content_type: "application/json",
            body: body.to_string(),
        }
    }
}

static IDS: AtomicU64 = AtomicU64::new(1);

/// A fresh id like `msg_fake0000000000000001`.
pub fn id(prefix: &str) -> String {
    format!("{prefix}fake{:016x}", IDS.fetch_add(1, Ordering::Relaxed))
}

/// Seconds since the epoch (the `created` of an answer).
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The last user message's text (`messages[].content` for Anthropic and Chat Completions,
/// `input` items for Responses: a string, or messages whose content is a string or parts).
pub fn prompt(body: &Value) -> Option<String> {
    if let Some(Value::String(s)) = body.get("input") {
        return Some(s.clone());
    }
    let messages = body
        .get("messages")
        .or_else(|| body.get("input"))?
        .as_array()?;
    let last = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
    match last.get("content")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

/// The tool names offered.
pub fn tool_names(api: Api, body: &Value) -> Vec<String> {
    let pointer = match api {
        Api::Anthropic => "/name",
        Api::OpenAi => "/function/name",
        Api::Gemini => return crate::gemini::tool_names(body),
        Api::Responses => "/name",
    };
    body.get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t.pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect()
}

/// A complete answer for `script`: calls and text, a refusal, or a cut-off answer.
/// Its `usage` counts `input` and the output; `[[no-usage]]` leaves `usage` out.
pub fn answer(api: Api, model: &str, script: &Script, input: &Input) -> Out {
    if api == Api::Gemini {
        return crate::gemini::answer(model, script, input);
    }
    let text = script.text.join(" ");
    let usage = |output: u64| {
        if script.no_usage {
            Value::Null
        } else if let Some(n) = script.usage_tokens {
            match api {
                Api::Anthropic => json!({"input_tokens": n, "output_tokens": n}),
                Api::OpenAi | Api::Gemini => {
                    json!({"prompt_tokens": n, "completion_tokens": n, "total_tokens": n})
                }
                Api::Responses => {
                    json!({"input_tokens": n, "output_tokens": n, "total_tokens": n})
                }
            }
        } else {
            usage::usage(api, input, output)
        }
    };
    match api {
        Api::Anthropic => {
            let mut content = Vec::new();
            if script.refuse {
                return Out::json(
                    200,
                    json!({
                        "id": id("msg_"), "type": "message", "role": "assistant", "model": model,
                        "content": [], "stop_reason": "refusal", "stop_sequence": null,
                        "stop_details": {"type": "refusal", "category": null, "explanation": null},
                        "usage": usage(0)
                    }),
                );
            }
            if !text.is_empty() {
                content.push(json!({"type": "text", "text": text}));
            }
            for call in &script.calls {
                let (name, input) = match call {
                    Call::Args { name, args } => (name, args.clone()),
                    Call::Malformed { name, raw } => (name, Value::String(raw.clone())),
                };
                content.push(
                    json!({"type": "tool_use", "id": id("toolu_"), "name": name, "input": input}),
                );
            }
            let stop = if script.max_tokens {
                "max_tokens"
            } else if script.calls.is_empty() {
                "end_turn"
            } else {
                "tool_use"
            };
            let output_tokens = 5 + 10 * content.len();
            Out::json(
                200,
                json!({
                    "id": id("msg_"), "type": "message", "role": "assistant", "model": model,
                    "content": content, "stop_reason": stop, "stop_sequence": null,
                    "usage": usage(output_tokens as u64)
                }),
            )
        }
        Api::Responses => {
            let mut output = Vec::new();
            if script.refuse {
                output.push(json!({
                    "type": "message", "id": id("msg_"), "role": "assistant", "status": "completed",
                    "content": [{"type": "refusal", "refusal": "I'm sorry, I can't help with that."}]
                }));
            } else {
                // A reasoning model's summary item comes first; it is no answer of its own.
                output.push(json!({"type": "reasoning", "id": id("rs_"), "summary": []}));
                if !text.is_empty() {
                    output.push(json!({
                        "type": "message", "id": id("msg_"), "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]
                    }));
                }
                for call in &script.calls {
                    let (name, arguments) = match call {
                        Call::Args { name, args } => (name, args.to_string()),
                        Call::Malformed { name, raw } => (name, raw.clone()),
                    };
                    output.push(json!({
                        "type": "function_call", "id": id("fc_"), "call_id": id("call_"),
                        "name": name, "arguments": arguments, "status": "completed"
                    }));
                }
            }
            let (status, incomplete) = if script.max_tokens {
                ("incomplete", json!({"reason": "max_output_tokens"}))
            } else {
                ("completed", Value::Null)
            };
            Out::json(
                200,
                json!({
                    "id": id("resp_"), "object": "response", "created_at": now(),
                    "status": status, "error": null, "incomplete_details": incomplete,
                    "model": model, "output": output, "parallel_tool_calls": true,
                    "tool_choice": "auto", "tools": [],
                    "usage": usage(12)
                }),
            )
        }
        Api::OpenAi | Api::Gemini => {
            let mut message =
                json!({"role": "assistant", "content": null, "refusal": null, "annotations": []});
            let finish = if script.refuse {
                message["refusal"] = json!("I'm sorry, I can't help with that.");
                "stop"
            } else {
                if !text.is_empty() {
                    message["content"] = json!(text);
                }
                let calls: Vec<Value> = script
                    .calls
                    .iter()
                    .map(|call| {
                        let (name, arguments) = match call {
                            Call::Args { name, args } => (name, args.to_string()),
                            Call::Malformed { name, raw } => (name, raw.clone()),
                        };
                        json!({"id": id("call_"), "type": "function", "function": {"name": name, "arguments": arguments}})
                    })
                    .collect();
                let any = !calls.is_empty();
                if any {
                    message["tool_calls"] = Value::Array(calls);
                    if script.content_empty && text.is_empty() {
                        message["content"] = json!("");
                    }
                }
                if script.max_tokens {
                    "length"
                } else if any {
                    "tool_calls"
                } else {
                    "stop"
                }
            };
            let created = now();
            Out::json(
                200,
                json!({
                    "id": id("chatcmpl-"), "object": "chat.completion", "created": created,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
                    "usage": usage(12),
                    "system_fingerprint": "fp_fake"
                }),
            )
        }
    }
}

/// An error in the API's own shape, with the headers the directive asked for.
pub fn error(api: Api, model: &str, status: &Status) -> Out {
    if api == Api::Gemini {
        return crate::gemini::error(model, status);
    }
    let code = status.code;
    let (anthropic_type, openai_type, openai_code, default_msg) = match code {
        400 => (
            "invalid_request_error",
            "invalid_request_error",
            None,
            "bad request".to_owned(),
        ),
        401 => (
            "authentication_error",
            "invalid_request_error",
            Some("invalid_api_key"),
            match api {
                Api::Anthropic => "invalid x-api-key".to_owned(),
                Api::OpenAi | Api::Gemini | Api::Responses => {
                    "Incorrect API key provided.".to_owned()
                }
            },
        ),
        402 => (
            "billing_error",
            "invalid_request_error",
            None,
            "payment required".to_owned(),
        ),
        403 => (
            "permission_error",
            "invalid_request_error",
            None,
            "permission denied".to_owned(),
        ),
        404 => (
            "not_found_error",
            "invalid_request_error",
            Some("model_not_found"),
            match api {
                Api::Anthropic => format!("model: {model}"),
                Api::OpenAi | Api::Gemini | Api::Responses => {
                    format!("The model `{model}` does not exist or you do not have access to it.")
                }
            },
        ),
        413 => (
            "request_too_large",
            "invalid_request_error",
            None,
            "request too large".to_owned(),
        ),
        422 => (
            "invalid_request_error",
            "invalid_request_error",
            None,
            "unprocessable".to_owned(),
        ),
        429 if status.quota => (
            "rate_limit_error",
            "insufficient_quota",
            Some("insufficient_quota"),
            "You exceeded your current quota".to_owned(),
        ),
        429 => (
            "rate_limit_error",
            "requests",
            Some("rate_limit_exceeded"),
            "slow down".to_owned(),
        ),
        529 => (
            "overloaded_error",
            "server_error",
            None,
            "Overloaded".to_owned(),
        ),
        503 => (
            "overloaded_error",
            "server_error",
            None,
            "service unavailable".to_owned(),
        ),
        c if c >= 500 => (
            "api_error",
            "server_error",
            None,
            "internal server error".to_owned(),
        ),
        _ => (
            "invalid_request_error",
            "invalid_request_error",
            None,
            "error".to_owned(),
        ),
    };
    let message = status.msg.clone().unwrap_or(default_msg);
    let body = match api {
        Api::Anthropic => {
            let mut error = json!({"type": anthropic_type, "message": message});
            if status.quota {
                error["details"] = json!({"error_code": "enforced_spend_limit_reached"});
            }
            json!({"type": "error", "error": error, "request_id": id("req_")})
        }
        Api::OpenAi | Api::Gemini | Api::Responses => {
            json!({"error": {"message": message, "type": openai_type, "param": null, "code": openai_code}})
        }
    };
    let mut out = Out::json(code, body);
    for (name, value) in [
        ("retry-after", &status.retry_after),
        ("retry-after-ms", &status.retry_after_ms),
        ("x-should-retry", &status.should_retry),
    ] {
        if let Some(v) = value {
            out.headers.push((name.to_owned(), v.clone()));
        }
    }
    out
}

/// A 200 whose body is an HTML page, as a misrouted proxy would send.
pub fn nonsense() -> Out {
    Out {
        status: 200,
        headers: Vec::new(),
        content_type: "text/html; charset=utf-8",
        body:
            "<html><head><title>Welcome</title></head><body>This is not a model API.</body></html>"
                .to_owned(),
    }
}

/// A 200 with an empty body.
pub fn empty() -> Out {
    Out {
        status: 200,
        headers: Vec::new(),
        content_type: "application/json",
        body: String::new(),
    }
}

/// A 200 whose JSON body is `mib` MiB of padding.
pub fn huge(mib: u64) -> Out {
    let pad = "x".repeat(usize::try_from(mib << 20).unwrap_or(usize::MAX));
    Out {
        status: 200,
        headers: Vec::new(),
        content_type: "application/json",
        body: format!("{{\"padding\":\"{pad}\"}}"),
    }
}

/// A 4xx about the request itself (not scripted): a bad body, a missing field.
pub fn bad_request(api: Api, status: u16, message: &str) -> Out {
    error(
        api,
        "",
        &Status {
            code: status,
            msg: Some(message.to_owned()),
            ..Status::default()
        },
    )
}

/// `GET /v1/models`: one fake model, OpenAI shape.
pub fn models() -> Out {
    Out::json(
        200,
        json!({"object": "list", "data": [{"id": "fake-model-1", "object": "model", "created": 1764500000, "owned_by": "fake"}]}),
    )
}
