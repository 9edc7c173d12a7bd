//! Amazon Bedrock's Converse API: the request (`POST {endpoint}/model/{modelId}/converse`,
//! signed with Signature Version 4), every `toolUse` block of the answer, its stop reason and
//! usage, AWS's error shape, the variables the AWS SDKs read, and on-demand prices.
//!
//! Wire facts, from the Bedrock API reference
//! (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html> and the
//! types it links): `messages[].content[]` blocks `text` / `toolUse {toolUseId, name, input}` /
//! `toolResult {toolUseId, content: [{text}]}`; `system: [{text}]`; `toolConfig: {tools:
//! [{toolSpec: {name, description, inputSchema: {json}}}], toolChoice: {auto: {}} | {any: {}}
//! | {tool: {name}}}` (tool names `[a-zA-Z0-9_-]+`, 1 to 64 characters: the API-safe names
//! toolproof makes already); `inferenceConfig.maxTokens`; a `cachePoint` block after the
//! system prompt and after the tools marks the prompt-cache prefix. The answer:
//! `output.message.content[]`, `stopReason` (`end_turn`, `tool_use`, `max_tokens`,
//! `stop_sequence`, `guardrail_intervened`, `content_filtered`, `malformed_model_output`,
//! `malformed_tool_use`, `model_context_window_exceeded`), `usage {inputTokens, outputTokens,
//! totalTokens, cacheReadInputTokens, cacheWriteInputTokens}`. Errors carry their type in the
//! `x-amzn-errortype` header and `{"message": …}` in the body.
//!
//! Bedrock has no `none` tool choice: with `tool_choice: none` the request carries no
//! `toolConfig` at all, so the model is offered no tool (as the reference's other providers
//! would be told not to use one). Batch inference needs an S3 bucket and an IAM service role,
//! so `--batch always` is refused and `auto` never batches (`settings::batch`).

pub(crate) mod sigv4;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{
    Answer, Auth, Dialect, Failure, HttpApi, Kind, Pacer, Provider, ProviderError, RawArgs,
    RawCall, Request, Setup, ShapeError, Signer, Signing,
};
use crate::config::{ToolChoice, Turn};
use crate::provider::Stop;
use crate::provider::prices::{Price, price};
use crate::provider::usage::Usage;
use sigv4::Credentials;

/// The provider's one value, listed in [`super::registry::KINDS`].
pub(crate) static KIND: BedrockKind = BedrockKind;

/// Amazon Bedrock's Converse API.
#[derive(Debug)]
pub(crate) struct BedrockKind;

impl Kind for BedrockKind {
    fn name(&self) -> &'static str {
        "bedrock"
    }

    fn no_batch_why(&self) -> Option<&'static str> {
        Some(
            "Bedrock batch inference reads its requests from an S3 bucket, writes its results to one, and runs under an IAM service role, none of which toolproof creates",
        )
    }

    fn lists_tools_under_none(&self) -> bool {
        false
    }

    fn credentials(&self) -> &'static [&'static str] {
        &[
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
        ]
    }

    fn tool_choice_wire(&self, choice: &ToolChoice) -> Value {
        tool_choice(choice)
    }

    fn prices(&self) -> &'static [(&'static str, Price)] {
        PRICES
    }

    /// Configured like the AWS SDKs (see [`target_from`]); every request is signed with
    /// Signature Version 4 at the [`HttpApi`]'s clock.
    fn connect(&self, setup: &Setup<'_>) -> Result<Box<dyn Provider>, ProviderError> {
        let target = target_from(|k| setup.var(k))?;
        let signer = SigV4 {
            credentials: target.credentials,
            region: target.region,
        };
        let api = HttpApi::new(
            "bedrock",
            target.endpoint,
            Auth::Signed(Arc::new(signer)),
            Vec::new(),
            "AWS_SECRET_ACCESS_KEY",
            target.endpoint_var,
        )
        .with_dialect(&AWS);
        Ok(Box::new(Bedrock(api)))
    }
}

/// Bedrock configured: the endpoint (without the model's path) and the signer.
#[derive(Debug)]
pub(crate) struct Bedrock(pub HttpApi);

impl Provider for Bedrock {
    fn ask_timed(&self, req: &Request, pacer: &Pacer) -> (Result<Answer, ProviderError>, Duration) {
        self.0.post_at(
            &converse_url(self.0.url(), req.model),
            &body(req),
            pacer,
            read,
        )
    }

    fn body(&self, req: &Request) -> Value {
        body(req)
    }

    #[cfg(test)]
    fn endpoint(&self, req: &Request) -> String {
        converse_url(self.0.url(), req.model)
    }
}

/// Signs each request for the Bedrock runtime in the credentials' region.
struct SigV4 {
    credentials: Credentials,
    region: String,
}

impl Signer for SigV4 {
    fn sign(&self, req: &Signing<'_>) -> Vec<(String, String)> {
        let scope = sigv4::Scope {
            credentials: &self.credentials,
            region: &self.region,
            service: SERVICE,
        };
        sigv4::request_headers(&scope, req.method, req.url, req.body, req.now)
    }

    fn secret(&self) -> &str {
        &self.credentials.secret_access_key
    }
}

/// AWS's refusals: the type in `x-amzn-errortype` (or a body's `__type`), `{"message"}`.
struct Aws;

static AWS: Aws = Aws;

impl Dialect for Aws {
    fn describe(
        &self,
        status: u16,
        body: Option<&Value>,
        text: &str,
        header: &dyn Fn(&str) -> Option<String>,
    ) -> String {
        let said = super::http::describe(status, body, text);
        match (
            error_type(header("x-amzn-errortype").as_deref(), body),
            said.strip_prefix(&status.to_string()),
        ) {
            (Some(t), Some(rest)) => format!("{status} {t}{rest}"),
            _ => said,
        }
    }

    fn hint(
        &self,
        _status: u16,
        body: Option<&Value>,
        header: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        let t = error_type(header("x-amzn-errortype").as_deref(), body)?;
        hint_for(&t, "AWS_REGION")
    }
}

/// The signing name of the Bedrock runtime.
pub(crate) const SERVICE: &str = "bedrock";

/// Where and as whom to call Bedrock, read from the variables the AWS SDKs read.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The endpoint, without a trailing `/`.
    pub endpoint: String,
    /// The signing region.
    pub region: String,
    /// Who signs.
    pub credentials: Credentials,
    /// Which variable the endpoint came from (for hints).
    pub endpoint_var: &'static str,
}

/// The target from the environment `env` looks up:
/// - credentials from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, for temporary ones,
///   `AWS_SESSION_TOKEN` (sent as `x-amz-security-token`);
/// - the region from `AWS_REGION`, else `AWS_DEFAULT_REGION`;
/// - the endpoint from `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, else `AWS_ENDPOINT_URL` (the SDKs'
///   service-specific endpoint rule), else `https://bedrock-runtime.{region}.amazonaws.com`.
///
/// Shared config files (`~/.aws/config`, profiles, SSO) are not read.
pub(crate) fn target_from(env: impl Fn(&str) -> Option<String>) -> Result<Target, ProviderError> {
    let set = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let (Some(access_key_id), Some(secret_access_key)) =
        (set("AWS_ACCESS_KEY_ID"), set("AWS_SECRET_ACCESS_KEY"))
    else {
        let missing = if set("AWS_ACCESS_KEY_ID").is_none() {
            "AWS_ACCESS_KEY_ID"
        } else {
            "AWS_SECRET_ACCESS_KEY"
        };
        return Err(ProviderError::Fatal(Failure::with_hint(
            format!("the bedrock provider needs AWS credentials: {missing} is not set"),
            "export AWS_ACCESS_KEY_ID=… and AWS_SECRET_ACCESS_KEY=… (and AWS_SESSION_TOKEN=… for \
             temporary credentials), or run with a committed answer cache that covers every case",
        )));
    };
    let Some(region) = set("AWS_REGION").or_else(|| set("AWS_DEFAULT_REGION")) else {
        return Err(ProviderError::Fatal(Failure::with_hint(
            "the bedrock provider needs a region: AWS_REGION is not set",
            "export AWS_REGION=us-east-1 (or the region your model access is in)",
        )));
    };
    let region = region.trim().to_owned();
    let (endpoint, endpoint_var) = match (
        set("AWS_ENDPOINT_URL_BEDROCK_RUNTIME"),
        set("AWS_ENDPOINT_URL"),
    ) {
        (Some(url), _) => (url, "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"),
        (None, Some(url)) => (url, "AWS_ENDPOINT_URL"),
        (None, None) => (
            format!("https://bedrock-runtime.{region}.amazonaws.com"),
            "AWS_REGION",
        ),
    };
    Ok(Target {
        endpoint: endpoint.trim_end_matches('/').to_owned(),
        region,
        credentials: Credentials {
            access_key_id,
            secret_access_key,
            session_token: set("AWS_SESSION_TOKEN"),
        },
        endpoint_var,
    })
}

/// `{endpoint}/model/{modelId}/converse`, the model id URI-encoded (ARNs and inference
/// profiles hold `:` and `/`).
pub(crate) fn converse_url(endpoint: &str, model: &str) -> String {
    format!(
        "{}/model/{}/converse",
        endpoint.trim_end_matches('/'),
        sigv4::uri_encode(model.as_bytes())
    )
}

/// `evals.tool_choice` in Converse's shape; `None` for `none`, which Bedrock does not have
/// (the request then carries no `toolConfig`). Tool names are the API-safe ones.
pub(crate) fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"auto": {}}),
        ToolChoice::Any => json!({"any": {}}),
        ToolChoice::None => json!("none"),
        ToolChoice::Tool(name) => json!({"tool": {"name": name}}),
    }
}

/// The Converse body: `messages`, `system` when set, `inferenceConfig.maxTokens`, then
/// `toolConfig` with every tool and `toolChoice` (`auto` unless `params.tool_choice` says
/// otherwise; the string `"none"` leaves `toolConfig` out), then every other `params` key as
/// given (overriding toolproof's own). A `params.max_tokens` (the YAML's `max_tokens`) becomes
/// `inferenceConfig.maxTokens`. With [`Request::prompt_cache`], a `cachePoint` block follows
/// the system prompt and the last tool. The model id travels in the URL, not the body.
pub(crate) fn body(req: &Request) -> Value {
    let mut params = req.params.clone();
    let choice = params.remove("tool_choice");
    let max_tokens = params
        .remove("max_tokens")
        .unwrap_or_else(|| json!(req.max_tokens));
    let mut body = Map::new();
    body.insert("messages".into(), messages(req.context, req.prompt));
    if let Some(system) = req.system.filter(|s| !s.is_empty()) {
        let mut blocks = vec![json!({"text": system})];
        if req.prompt_cache {
            blocks.push(cache_point());
        }
        body.insert("system".into(), Value::Array(blocks));
    }
    body.insert("inferenceConfig".into(), json!({"maxTokens": max_tokens}));
    let offered = choice.as_ref().and_then(Value::as_str) != Some("none");
    if !req.tools.is_empty() && offered {
        let mut tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                let mut spec = Map::new();
                spec.insert("name".into(), json!(t.name));
                // Bedrock rejects an empty description (its minimum length is 1).
                if !t.description.is_empty() {
                    spec.insert("description".into(), json!(t.description));
                }
                spec.insert("inputSchema".into(), json!({"json": t.input_schema}));
                json!({"toolSpec": spec})
            })
            .collect();
        if req.prompt_cache {
            tools.push(cache_point());
        }
        let choice = choice.unwrap_or_else(|| json!({"auto": {}}));
        body.insert(
            "toolConfig".into(),
            json!({"tools": tools, "toolChoice": choice}),
        );
    }
    super::merge_params(&mut body, &params);
    Value::Object(body)
}

fn cache_point() -> Value {
    json!({"cachePoint": {"type": "default"}})
}

/// The Converse `messages`: the context's turns, then the prompt. An earlier call is an
/// assistant `toolUse` block (id `tooluse_ctx_N`) and a user `toolResult` block; turns of one
/// role in a row share a message, so the roles alternate as Bedrock requires.
pub(crate) fn messages(context: &[Turn], prompt: &str) -> Value {
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, block: Value| match messages.last_mut() {
        Some((last, blocks)) if *last == role => blocks.push(block),
        _ => messages.push((role, vec![block])),
    };
    let mut calls = 0;
    for turn in context {
        match turn {
            Turn::User(t) => push("user", json!({"text": t})),
            Turn::Assistant(t) => push("assistant", json!({"text": t})),
            Turn::Call { tool, args, result } => {
                calls += 1;
                let id = format!("tooluse_ctx_{calls}");
                push(
                    "assistant",
                    json!({"toolUse": {"toolUseId": id, "name": tool, "input": args}}),
                );
                push(
                    "user",
                    json!({"toolResult": {"toolUseId": id, "content": [{"text": result}]}}),
                );
            }
        }
    }
    push("user", json!({"text": prompt}));
    Value::Array(
        messages
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect(),
    )
}

/// Every `toolUse` block in order, the text blocks joined with a space, the stop reason and
/// the usage.
pub(crate) fn read(v: &Value) -> Result<Answer, ShapeError> {
    let Some(content) = v
        .pointer("/output/message/content")
        .and_then(Value::as_array)
    else {
        return Err(match v.get("message").and_then(Value::as_str) {
            Some(m) if v.get("output").is_none() => ShapeError::ErrorObject(m.to_owned()),
            _ => ShapeError::NoOutputMessage,
        });
    };
    let mut calls = Vec::new();
    let mut texts = Vec::new();
    for block in content {
        if let Some(t) = block.get("text").and_then(Value::as_str) {
            texts.push(t);
        }
        if let Some(tool_use) = block.get("toolUse") {
            let name = tool_use
                .get("name")
                .and_then(Value::as_str)
                .ok_or(ShapeError::UnnamedToolUse)?;
            let args = match tool_use.get("input") {
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
    }
    let stop = match v.get("stopReason").and_then(Value::as_str) {
        Some("end_turn") => Stop::EndTurn,
        Some("tool_use") => Stop::ToolUse,
        Some("max_tokens" | "model_context_window_exceeded") => Stop::MaxTokens,
        Some("guardrail_intervened" | "content_filtered") => Stop::Refusal,
        Some(other) => Stop::Other(other.to_owned()),
        None if calls.is_empty() => Stop::EndTurn,
        None => Stop::ToolUse,
    };
    let shape = usage_shape(v);
    Ok(Answer {
        calls,
        text: texts.join(" "),
        stop,
        usage: shape.and_then(Usage::plausible),
        usage_unbelievable: shape.is_some_and(|u| u.plausible().is_none()),
    })
}

/// Converse's `usage` as it is: `inputTokens` (which exclude the cached ones, as Anthropic's
/// `input_tokens` do), `outputTokens`, `cacheWriteInputTokens`, `cacheReadInputTokens`.
/// `None` without the two first.
fn usage_shape(answer: &Value) -> Option<Usage> {
    let u = answer.get("usage")?;
    let count = |k: &str| u.get(k).and_then(Value::as_u64);
    Some(Usage {
        input: count("inputTokens")?,
        output: count("outputTokens")?,
        cache_write: count("cacheWriteInputTokens").unwrap_or(0),
        cache_read: count("cacheReadInputTokens").unwrap_or(0),
    })
}

/// The error type of an `x-amzn-errortype` header (`ThrottlingException:http://…` →
/// `ThrottlingException`), or of a `__type` member in the body.
pub(crate) fn error_type(header: Option<&str>, body: Option<&Value>) -> Option<String> {
    let from_header = header
        .map(|h| h.split(':').next().unwrap_or(h).trim())
        .filter(|t| !t.is_empty());
    let from_body = body
        .and_then(|b| b.get("__type"))
        .and_then(Value::as_str)
        .map(|t| t.rsplit('#').next().unwrap_or(t).trim());
    from_header.or(from_body).map(str::to_owned)
}

/// What to check after an error retrying cannot fix, by its type; `None`: the generic hint
/// for the status.
pub(crate) fn hint_for(error_type: &str, endpoint_var: &str) -> Option<String> {
    let hint = match error_type {
        "UnrecognizedClientException" | "InvalidSignatureException" | "ExpiredTokenException" => {
            "check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (the request \
             signature was refused: a wrong or expired key)"
                .to_owned()
        }
        "AccessDeniedException" => "the credentials have no access to this model: enable it \
             under Model access in the Bedrock console, and allow bedrock:InvokeModel in IAM"
            .to_owned(),
        "ResourceNotFoundException" => {
            format!("check the model id (evals.model, --model) and the region ({endpoint_var})")
        }
        "ValidationException" => {
            "check evals.params and the model id: params are sent as given".to_owned()
        }
        _ => return None,
    };
    Some(hint)
}

/// On-demand prices in US East (N. Virginia), USD per million tokens: input, cache write,
/// cache read, output, from <https://aws.amazon.com/bedrock/pricing/> (checked on
/// 2026-12-06). Amazon Nova charges nothing extra to write the cache, so its cache write is
/// the input price. A model id is priced by the longest entry it starts with followed by `-`;
/// the US cross-region inference profiles (`us.…`) cost what their model does.
const PRICES: &[(&str, Price)] = &[
    ("anthropic.claude-sonnet-4-5", price(3.0, 3.75, 0.30, 15.0)),
    ("anthropic.claude-haiku-4-5", price(1.0, 1.25, 0.10, 5.0)),
    ("anthropic.claude-3-5-haiku", price(0.80, 1.0, 0.08, 4.0)),
    ("amazon.nova-pro", price(0.80, 0.80, 0.20, 3.20)),
    ("amazon.nova-lite", price(0.06, 0.06, 0.015, 0.24)),
    ("amazon.nova-micro", price(0.035, 0.035, 0.00875, 0.14)),
    (
        "us.anthropic.claude-sonnet-4-5",
        price(3.0, 3.75, 0.30, 15.0),
    ),
    ("us.anthropic.claude-haiku-4-5", price(1.0, 1.25, 0.10, 5.0)),
    ("us.anthropic.claude-3-5-haiku", price(0.80, 1.0, 0.08, 4.0)),
    ("us.amazon.nova-pro", price(0.80, 0.80, 0.20, 3.20)),
    ("us.amazon.nova-lite", price(0.06, 0.06, 0.015, 0.24)),
    ("us.amazon.nova-micro", price(0.035, 0.035, 0.00875, 0.14)),
];

#[cfg(test)]
mod tests;
