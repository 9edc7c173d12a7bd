//! Amazon Bedrock's Converse API: `POST /model/{modelId}/converse`, with the same directives
//! as the other APIs, answers in Converse's shape (`output.message.content[]` with `text` and
//! `toolUse` blocks, `stopReason`, `usage` with `cacheReadInputTokens` /
//! `cacheWriteInputTokens`), errors in AWS's shape (`x-amzn-errortype` header, `{"message"}`
//! body), and, with `--aws-secret`, a Signature Version 4 check of its own (`sigv4.rs`).
//!
//! Directives: `[[refuse]]` is a guardrail (`stopReason: guardrail_intervened` with the
//! guardrail's text); `[[max_tokens]]` is `stopReason: max_tokens`; `[[malformed NAME RAW]]`
//! sends `input` as a JSON string; `{{key}}` is the session token the request carried, else
//! its access key id. The prompt cache: the prefix up to a `cachePoint` block (the tools, then
//! the system prompt) is written by the first request with it and read by every later one.

use serde_json::{Map, Value, json};

use crate::script::{self, Call, Status};
use crate::sigv4;
use crate::wire::{self, Out};
use crate::{Server, context, usage};

/// Whether `path` is a Converse endpoint; the model id, decoded, when it is.
pub fn model_of(path: &str) -> Option<String> {
    let id = path.strip_prefix("/model/")?.strip_suffix("/converse")?;
    Some(decode(id))
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An error in AWS's shape: the type in `x-amzn-errortype`, `{"message": …}` in the body.
pub fn error(code: u16, kind: &str, message: &str) -> Out {
    Out {
        status: code,
        headers: vec![
            (
                "x-amzn-errortype".into(),
                format!("{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
            ),
            ("x-amzn-requestid".into(), wire::id("")),
        ],
        content_type: "application/json",
        body: json!({ "message": message }).to_string(),
    }
}

/// A scripted `[[status …]]` in AWS's shape, with its retry headers.
fn status_error(status: &Status) -> Out {
    let (kind, default) = match status.code {
        400 => ("ValidationException", "Malformed input request."),
        401 | 403 => (
            "AccessDeniedException",
            "You don't have access to the model with the specified model ID.",
        ),
        404 => (
            "ResourceNotFoundException",
            "The provided model identifier is invalid.",
        ),
        408 => ("ModelTimeoutException", "Model timed out."),
        424 => ("ModelErrorException", "The model returned an error."),
        429 => (
            "ThrottlingException",
            "Too many requests, please wait before trying again.",
        ),
        503 => ("ServiceUnavailableException", "Service unavailable."),
        _ => ("InternalServerException", "Internal server error."),
    };
    let message = status.msg.clone().unwrap_or_else(|| default.to_owned());
    let mut out = error(status.code, kind, &message);
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

/// The request's messages in the Anthropic shape the shared code reads (`text`, `tool_use`
/// and `tool_result` blocks), for `[[from-context]]`.
fn as_anthropic(body: &Value) -> Value {
    let messages: Vec<Value> = body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|m| {
            let blocks: Vec<Value> = m
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|b| {
                    if let Some(t) = b.get("text") {
                        Some(json!({"type": "text", "text": t}))
                    } else if let Some(u) = b.get("toolUse") {
                        Some(json!({"type": "tool_use", "input": u.get("input")}))
                    } else {
                        b.get("toolResult").map(|r| {
                            let text: Vec<&str> = r
                                .get("content")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                                .filter_map(|c| c.get("text").and_then(Value::as_str))
                                .collect();
                            json!({"type": "tool_result", "content": text.join(" ")})
                        })
                    }
                })
                .collect();
            json!({"role": m.get("role"), "content": blocks})
        })
        .collect();
    json!({ "messages": messages })
}

/// The text blocks of the last user message.
fn prompt(body: &Value) -> Option<String> {
    let last = body
        .get("messages")?
        .as_array()?
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
    let texts: Vec<&str> = last
        .get("content")?
        .as_array()?
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join(" "))
}

fn tokens(v: Option<&Value>) -> u64 {
    v.map_or(0, |v| (v.to_string().len() as u64).div_ceil(4))
}

/// The input side of the usage: the prefix up to the last `cachePoint` (tools, then system)
/// is written to the cache once and read after, per model.
fn input(model: &str, body: &Value, cache: &usage::PromptCache) -> usage::Input {
    let tools = body.pointer("/toolConfig/tools");
    let system = body.get("system");
    let point = |v: Option<&Value>| {
        v.and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|b| b.get("cachePoint").is_some()))
    };
    let (prefix, rest) = if point(system) {
        (tokens(tools) + tokens(system), 0)
    } else if point(tools) {
        (tokens(tools), tokens(system))
    } else {
        (0, tokens(tools) + tokens(system))
    };
    let fresh = rest + tokens(body.get("messages")) + 10;
    if prefix == 0 {
        return usage::Input {
            fresh,
            ..usage::Input::default()
        };
    }
    let key = format!(
        "bedrock\n{model}\n{}\n{}",
        tools.map(Value::to_string).unwrap_or_default(),
        system
            .filter(|_| point(system))
            .map(Value::to_string)
            .unwrap_or_default()
    );
    if cache.hit(key) {
        usage::Input {
            fresh,
            cache_read: prefix,
            ..usage::Input::default()
        }
    } else {
        usage::Input {
            fresh,
            cache_write: prefix,
            ..usage::Input::default()
        }
    }
}

impl Server {
    /// A Converse request: the signature (with `--aws-secret`), then the script.
    pub fn bedrock(
        &self,
        req: &crate::http::Request,
        model: &str,
    ) -> (Out, std::time::Duration, bool) {
        let none = std::time::Duration::ZERO;
        if let Some(secret) = &self.aws_secret {
            let header = |name: &str| req.header(name).map(str::to_owned);
            if let Err(why) = sigv4::check(
                &req.method,
                &req.path,
                &req.query,
                &header,
                &req.body,
                self.aws_key_id.as_deref(),
                secret,
            ) {
                return (error(403, why.kind, &why.message), none, false);
            }
        }
        let given = req
            .header("x-amz-security-token")
            .map(str::to_owned)
            .or_else(|| {
                let auth = req.header("authorization")?;
                let credential = auth.split("Credential=").nth(1)?;
                credential.split('/').next().map(str::to_owned)
            })
            .unwrap_or_default();
        let Ok(body) = serde_json::from_slice::<Value>(&req.body) else {
            return (
                error(400, "ValidationException", "the request body is not JSON"),
                none,
                false,
            );
        };
        let Some(prompt) = prompt(&body) else {
            return (
                error(
                    400,
                    "ValidationException",
                    "A conversation must end with a user message with text.",
                ),
                none,
                false,
            );
        };
        let mut script = match script::parse(&prompt) {
            Ok(s) => s,
            Err(e) => {
                return (
                    error(400, "ValidationException", &format!("fake_llm: {e}")),
                    none,
                    false,
                );
            }
        };
        script.echo_key(&given);
        let attempt = self.attempts.next(&format!("Bedrock\n{model}\n{prompt}"));
        let wait = std::time::Duration::from_millis(script.sleep_ms);
        if script.drops(attempt) {
            return (wire::nonsense(), wait, true);
        }
        if let Some(status) = script.status(attempt) {
            let mut status = status.clone();
            if status.echo_key {
                let said = status.msg.take().unwrap_or_else(|| "invalid key".into());
                status.msg = Some(format!("{said}: {given}"));
            }
            return (status_error(&status), wait, false);
        }
        if script.nonsense {
            return (wire::nonsense(), wait, false);
        }
        if script.empty {
            return (wire::empty(), wait, false);
        }
        if script.huge_mib > 0 {
            return (wire::huge(script.huge_mib), wait, false);
        }
        context::answer(&mut script, &as_anthropic(&body));
        if script.calls.is_empty() && script.text.is_empty() && !script.refuse {
            let names: Vec<String> = body
                .pointer("/toolConfig/tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| t.pointer("/toolSpec/name").and_then(Value::as_str))
                .map(str::to_owned)
                .collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            match script::keyword_pick(&prompt, &names) {
                Some(name) => script.calls.push(Call::Args {
                    name: name.to_owned(),
                    args: Value::Object(Map::new()),
                }),
                None => script
                    .text
                    .push("I can answer that without a tool.".to_owned()),
            }
        }
        let mut content = Vec::new();
        let text = script.text.join(" ");
        let stop = if script.refuse {
            content.push(json!({"text": "Sorry, the model cannot answer this question."}));
            "guardrail_intervened"
        } else {
            if !text.is_empty() {
                content.push(json!({ "text": text }));
            }
            for call in &script.calls {
                let (name, input) = match call {
                    Call::Args { name, args } => (name, args.clone()),
                    Call::Malformed { name, raw } => (name, Value::String(raw.clone())),
                };
                content.push(json!({"toolUse": {"toolUseId": wire::id("tooluse_"), "name": name, "input": input}}));
            }
            if script.max_tokens {
                "max_tokens"
            } else if script.calls.is_empty() {
                "end_turn"
            } else {
                "tool_use"
            }
        };
        let output = 5 + 10 * content.len() as u64;
        let usage = if script.no_usage {
            Value::Null
        } else if let Some(n) = script.usage_tokens {
            json!({"inputTokens": n, "outputTokens": n, "totalTokens": n})
        } else {
            let i = input(model, &body, &self.prompt_cache);
            json!({
                "inputTokens": i.fresh, "outputTokens": output,
                "totalTokens": i.fresh + output + i.cache_read + i.cache_write,
                "cacheReadInputTokens": i.cache_read, "cacheWriteInputTokens": i.cache_write
            })
        };
        let mut answer = json!({
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": stop,
            "usage": usage,
            "metrics": {"latencyMs": 42}
        });
        if script.no_usage
            && let Some(map) = answer.as_object_mut()
        {
            map.remove("usage");
        }
        let mut out = Out {
            status: 200,
            headers: vec![("x-amzn-requestid".into(), wire::id(""))],
            content_type: "application/json",
            body: answer.to_string(),
        };
        if script.truncated {
            let mut half = out.body.len() / 2;
            while !out.body.is_char_boundary(half) {
                half -= 1;
            }
            out.body.truncate(half);
        }
        (out, wait, false)
    }
}
