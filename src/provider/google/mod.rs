//! The Gemini API (`models.generateContent`): the request body, the function names the API
//! accepts, every `functionCall` part of the answer, its `finishReason` and `usageMetadata`,
//! errors in Google's shape, and the key and base URL the way Google's SDKs read them.
//!
//! Wire facts, from the API reference (<https://ai.google.dev/api/generate-content>,
//! <https://ai.google.dev/api/caching#FunctionDeclaration>) and the google-genai SDKs:
//!
//! - `POST {base}/v1beta/models/{model}:generateContent`, the key in `x-goog-api-key`;
//! - `contents` alternate roles `user` and `model`; an earlier call is a `model` turn's
//!   `functionCall` part, its result a `user` turn's `functionResponse` part;
//! - the tools are one `{functionDeclarations: [...]}` entry, each schema sent as
//!   `parametersJsonSchema` (JSON Schema as MCP writes it; `parameters` takes only Google's
//!   OpenAPI subset);
//! - a function name must start with a letter or an underscore and hold only `a-z A-Z 0-9 _ . :
//!   -`, at most 64 characters (the API's 400 says so);
//! - Google's JSON leaves out fields whose value is zero: a missing count is 0.
//!
//! Its batch API, Gemini Batch Mode with inline requests, is in `batch.rs`.

pub(crate) mod batch;

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{
    Answer, Auth, BatchApi, Dialect, Failure, HttpApi, Kind, Pacer, Provider, ProviderError,
    RawArgs, RawCall, Request, Setup, ShapeError,
};
use crate::config::{ToolChoice, Turn};
use crate::provider::prices::Price;
use crate::provider::usage::Usage;
use crate::provider::{ApiTool, Stop};

/// The API's host, when `GOOGLE_GEMINI_BASE_URL` is not set.
pub(crate) const DEFAULT_BASE: &str = "https://generativelanguage.googleapis.com";
/// The variable that moves the base URL (read by the google-genai SDKs and the Gemini CLI).
pub(crate) const BASE_VAR: &str = "GOOGLE_GEMINI_BASE_URL";
/// The key variables, in the order the google-genai SDKs prefer them: when both are set,
/// `GOOGLE_API_KEY` wins.
pub(crate) const KEY_VARS: [&str; 2] = ["GOOGLE_API_KEY", "GEMINI_API_KEY"];
/// The header the key travels in.
pub(crate) const KEY_HEADER: &str = "x-goog-api-key";
/// The `params` key `evals.max_tokens` travels under (see [`body`]).
const MAX_TOKENS_PARAM: &str = "maxOutputTokens";
/// The longest function name the API accepts.
const MAX_NAME: usize = 64;

const fn price(input: f64, cache_read: f64, output: f64) -> Price {
    // Implicit caching bills no write; explicit caches bill storage by the hour, not per
    // token: a cache write costs the input price.
    Price {
        input,
        output,
        cache_write: input,
        cache_read,
    }
}

/// Standard-tier list prices from <https://ai.google.dev/gemini-api/docs/pricing> (checked
/// 2026-12-06), USD per million tokens (input, cached input, output; output
/// includes thinking tokens). Models priced by prompt size get the rate for prompts up to
/// 200k tokens, which covers a tool-selection case.
pub(crate) const PRICES: &[(&str, Price)] = &[
    ("gemini-3.1-pro-preview", price(2.00, 0.20, 12.00)),
    ("gemini-3-pro-preview", price(2.00, 0.20, 12.00)),
    ("gemini-3-flash-preview", price(0.50, 0.05, 3.00)),
    ("gemini-2.5-pro", price(1.25, 0.125, 10.00)),
    ("gemini-2.5-flash", price(0.30, 0.03, 2.50)),
    ("gemini-2.5-flash-lite", price(0.10, 0.01, 0.40)),
];

/// Where to send, and with which key: the key from [`KEY_VARS`] (the first set wins), the
/// base URL from [`BASE_VAR`] without the `/v1beta` part.
#[derive(Clone)]
pub(crate) struct Credentials {
    /// The API key.
    pub key: String,
    /// The base URL, without a trailing `/`.
    pub base: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

/// The credentials from the variables `env` looks up; a missing key is fatal and names the
/// variable to set.
pub(crate) fn credentials(
    env: impl Fn(&str) -> Option<String>,
) -> Result<Credentials, ProviderError> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty());
    let Some(key) = KEY_VARS.iter().find_map(|k| set(k)) else {
        return Err(ProviderError::Fatal(Failure::with_hint(
            "the google provider needs an API key: GEMINI_API_KEY (or GOOGLE_API_KEY) is not set",
            "export GEMINI_API_KEY=…, or run with a committed answer cache that covers every case",
        )));
    };
    let base = set(BASE_VAR).unwrap_or_else(|| DEFAULT_BASE.to_owned());
    Ok(Credentials {
        key,
        base: base.trim_end_matches('/').to_owned(),
    })
}

/// The endpoint for `model` under `base`. A model given as the API names it
/// (`models/gemini-2.5-flash`) is sent once, not twice.
pub(crate) fn endpoint(base: &str, model: &str) -> String {
    let model = model.strip_prefix("models/").unwrap_or(model);
    format!(
        "{}/v1beta/models/{model}:generateContent",
        base.trim_end_matches('/')
    )
}

/// Whether the API accepts `name` as a function name.
pub(crate) fn name_ok(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok
        && name.len() <= MAX_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

/// The name a tool is declared under: its API-safe name when the API accepts it; else (a name
/// that starts with a digit or a dash) the name behind a `_`, cut to 64 characters.
pub(crate) fn wire_name(name: &str) -> String {
    if name_ok(name) {
        return name.to_owned();
    }
    let mut wired = format!("_{name}");
    wired.truncate(MAX_NAME);
    wired
}

/// Refuses a tool list in which two tools would be declared under the same name (`1a` and
/// `_1a`), naming both: the answer could not say which one the model picked.
pub(crate) fn check_names(tools: &[ApiTool]) -> Result<(), ProviderError> {
    let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    for tool in tools {
        let wired = wire_name(&tool.name);
        if let Some(other) = seen.insert(wired.clone(), &tool.name) {
            return Err(ProviderError::Fatal(Failure::with_hint(
                format!(
                    "the google provider cannot offer both `{other}` and `{}`: the Gemini API needs \
                     function names that start with a letter or `_`, and both become `{wired}`",
                    tool.name
                ),
                "leave one of them out with evals.tools (or rename it on the server)",
            )));
        }
    }
    Ok(())
}

/// Puts the API-safe names back on the calls of `answer` (the names declared by
/// [`wire_name`]); a name never declared is kept as the model returned it.
pub(crate) fn restore_names(answer: &mut Answer, tools: &[ApiTool]) {
    for call in &mut answer.calls {
        if let Some(tool) = tools.iter().find(|t| wire_name(&t.name) == call.name) {
            call.name.clone_from(&tool.name);
        }
    }
}

/// `toolConfig.functionCallingConfig` for a tool choice (with API-safe names): `AUTO`, `ANY`,
/// `NONE`, or `ANY` limited to one function by `allowedFunctionNames`.
pub(crate) fn tool_config(choice: &ToolChoice) -> Value {
    let config = match choice {
        ToolChoice::Auto => json!({"mode": "AUTO"}),
        ToolChoice::Any => json!({"mode": "ANY"}),
        ToolChoice::None => json!({"mode": "NONE"}),
        ToolChoice::Tool(name) => {
            json!({"mode": "ANY", "allowedFunctionNames": [wire_name(name)]})
        }
    };
    json!({ "functionCallingConfig": config })
}

/// The request body: `contents` (the context's turns, then the prompt), `systemInstruction`,
/// `tools` (one `functionDeclarations` entry), `toolConfig` (mode `AUTO`, or the tool choice
/// the engine put in `params.tool_choice`, in any shape it knows), and
/// `generationConfig.maxOutputTokens`. Then every other `params` key, replacing the body's,
/// except `generationConfig`, whose keys are merged into toolproof's (so a `temperature`
/// there keeps the token limit), and `maxOutputTokens` (where `evals.max_tokens` travels),
/// which goes into `generationConfig`.
pub(crate) fn body(req: &Request) -> Value {
    let mut body = Map::new();
    body.insert("contents".into(), contents(req.context, req.prompt));
    if let Some(system) = req.system.filter(|s| !s.is_empty()) {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    if !req.tools.is_empty() {
        let declarations: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": wire_name(&t.name),
                    "description": t.description,
                    "parametersJsonSchema": t.input_schema,
                })
            })
            .collect();
        body.insert(
            "tools".into(),
            json!([{ "functionDeclarations": declarations }]),
        );
        body.insert("toolConfig".into(), tool_config(&ToolChoice::Auto));
    }
    let mut generation = Map::new();
    generation.insert("maxOutputTokens".into(), json!(req.max_tokens));
    body.insert("generationConfig".into(), Value::Object(generation));
    let mut params = req.params.clone();
    // A tool choice in a shape toolproof knows is sent as `toolConfig`; any other stays for
    // the API to judge.
    let choice = params
        .get("tool_choice")
        .and_then(crate::provider::choice_from_wire);
    if choice.is_some() {
        params.remove("tool_choice");
    }
    let mut generation = match params.remove("generationConfig") {
        Some(Value::Object(g)) => Some(g),
        Some(other) => {
            // Not an object: sent as given, for the API to judge.
            params.insert("generationConfig".into(), other);
            None
        }
        None => None,
    };
    if let Some(n) = params.remove(MAX_TOKENS_PARAM) {
        // `evals.max_tokens`; a `generationConfig.maxOutputTokens` of the user's own wins.
        generation
            .get_or_insert_with(Map::new)
            .entry(MAX_TOKENS_PARAM)
            .or_insert(n);
    }
    super::merge_params(&mut body, &params);
    if let (Some(choice), true) = (choice, body.contains_key("tools")) {
        body.insert("toolConfig".into(), tool_config(&choice));
    }
    if let Some(given) = generation
        && let Some(Value::Object(ours)) = body.get_mut("generationConfig")
    {
        ours.extend(given);
    }
    Value::Object(body)
}

/// The `contents`: the context's turns as `user` / `model` turns (an earlier call a `model`
/// turn's `functionCall`, its result a `user` turn's `functionResponse` with the result text
/// as `{"result": …}`), then the prompt. Turns of the same role in a row share one entry, so
/// the roles alternate.
pub(crate) fn contents(context: &[Turn], prompt: &str) -> Value {
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, part: Value| match turns.last_mut() {
        Some((last, parts)) if *last == role => parts.push(part),
        _ => turns.push((role, vec![part])),
    };
    for turn in context {
        match turn {
            Turn::User(t) => push("user", json!({"text": t})),
            Turn::Assistant(t) => push("model", json!({"text": t})),
            Turn::Call { tool, args, result } => {
                let name = wire_name(tool);
                push(
                    "model",
                    json!({"functionCall": {"name": name, "args": args}}),
                );
                push(
                    "user",
                    json!({"functionResponse": {"name": name, "response": {"result": result}}}),
                );
            }
        }
    }
    push("user", json!({"text": prompt}));
    Value::Array(
        turns
            .into_iter()
            .map(|(role, parts)| json!({"role": role, "parts": parts}))
            .collect(),
    )
}

/// Every `functionCall` part of `candidates[0]` in order (with the declared names: see
/// [`restore_names`]), its text parts (thought summaries left out) joined with a space, and
/// why it stopped. A prompt blocked before any answer (`promptFeedback.blockReason`, no
/// candidate) is a refusal whose text names the reason.
pub(crate) fn read(v: &Value) -> Result<Answer, ShapeError> {
    let usage = usage_shape(v);
    let answer = |calls, text, stop| Answer {
        calls,
        text,
        stop,
        usage: usage.and_then(Usage::plausible),
        usage_unbelievable: usage.is_some_and(|u| u.plausible().is_none()),
    };
    let Some(candidate) = v.pointer("/candidates/0") else {
        if let Some(reason) = v
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            let text = format!("the prompt was blocked ({reason})");
            return Ok(answer(Vec::new(), text, Stop::Refusal));
        }
        return Err(match v.pointer("/error/message").and_then(Value::as_str) {
            Some(m) => ShapeError::ErrorObject(m.to_owned()),
            None => ShapeError::NoContent,
        });
    };
    let mut calls = Vec::new();
    let mut texts = Vec::new();
    for part in candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(call) = part.get("functionCall") {
            let name = call
                .get("name")
                .and_then(Value::as_str)
                .ok_or(ShapeError::UnnamedCall)?;
            let args = match call.get("args") {
                None | Some(Value::Null) => Ok(json!({})),
                Some(obj @ Value::Object(_)) => Ok(obj.clone()),
                Some(other) => Err(RawArgs(other.to_string())),
            };
            calls.push(RawCall {
                name: name.to_owned(),
                args,
            });
        } else if let Some(text) = part.get("text").and_then(Value::as_str)
            && part.get("thought") != Some(&Value::Bool(true))
        {
            texts.push(text);
        }
    }
    let finish = candidate.get("finishReason").and_then(Value::as_str);
    let stop = stop(finish, !calls.is_empty());
    Ok(answer(calls, texts.join(" "), stop))
}

/// `finishReason` as a [`Stop`]: `MAX_TOKENS` a cut-off; the safety reasons a refusal; `STOP`
/// (or none) a tool use when there are calls, else the end of the turn; anything else
/// (`RECITATION`, `MALFORMED_FUNCTION_CALL`, `OTHER`, …) by its name.
fn stop(finish: Option<&str>, called: bool) -> Stop {
    match finish {
        Some("MAX_TOKENS") => Stop::MaxTokens,
        Some(
            "SAFETY"
            | "BLOCKLIST"
            | "PROHIBITED_CONTENT"
            | "SPII"
            | "IMAGE_SAFETY"
            | "IMAGE_PROHIBITED_CONTENT",
        ) => Stop::Refusal,
        None | Some("STOP" | "FINISH_REASON_UNSPECIFIED") if called => Stop::ToolUse,
        None | Some("STOP" | "FINISH_REASON_UNSPECIFIED") => Stop::EndTurn,
        Some(other) => Stop::Other(other.to_owned()),
    }
}

/// `usageMetadata` as a [`Usage`], however large its counts; `None` without it.
///
/// - input: `promptTokenCount` (which includes the cached tokens) less
///   `cachedContentTokenCount`, plus `toolUsePromptTokenCount`;
/// - cache read: `cachedContentTokenCount`; cache write: 0 (the API bills none per token);
/// - output: `candidatesTokenCount` plus `thoughtsTokenCount` (thinking is billed as output).
pub(crate) fn usage_shape(v: &Value) -> Option<Usage> {
    let u = v.get("usageMetadata")?.as_object()?;
    if !u.contains_key("promptTokenCount") && !u.contains_key("totalTokenCount") {
        return None;
    }
    let count = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let prompt = count("promptTokenCount");
    let cached = count("cachedContentTokenCount").min(prompt);
    Some(Usage {
        input: (prompt - cached).saturating_add(count("toolUsePromptTokenCount")),
        output: count("candidatesTokenCount").saturating_add(count("thoughtsTokenCount")),
        cache_write: 0,
        cache_read: cached,
    })
}

/// An error body in Google's shape as the reports quote it: `429 RESOURCE_EXHAUSTED: message`.
/// `None` when the body is not that shape.
pub(crate) fn describe_error(status: u16, body: &Value) -> Option<String> {
    let err = body.get("error")?;
    let message = err.get("message").and_then(Value::as_str)?;
    let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(match err.get("status").and_then(Value::as_str) {
        Some(s) => format!("{status} {s}: {message}"),
        None => format!("{status}: {message}"),
    })
}

/// What to check after an error whose `ErrorInfo` detail names a bad key: the API answers a
/// key that is not valid with a 400 (`API_KEY_INVALID`), and no key with a 403.
pub(crate) fn key_hint(body: &Value) -> Option<String> {
    let bad_key = body
        .pointer("/error/details")?
        .as_array()?
        .iter()
        .filter_map(|d| d.get("reason").and_then(Value::as_str))
        .any(|r| {
            matches!(
                r,
                "API_KEY_INVALID" | "API_KEY_EXPIRED" | "CONSUMER_INVALID"
            )
        });
    bad_key.then(|| {
        "check GEMINI_API_KEY (or GOOGLE_API_KEY, which wins when both are set)".to_owned()
    })
}

/// The wait a 429 asks for in its `google.rpc.RetryInfo` detail (`retryDelay`, a duration
/// like `"36s"` or `"0.5s"`). The `Retry-After` header, when present, is read as for every API.
pub(crate) fn retry_delay(body: &Value) -> Option<Duration> {
    body.pointer("/error/details")?
        .as_array()?
        .iter()
        .filter(|d| {
            d.get("@type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with("google.rpc.RetryInfo"))
        })
        .find_map(|d| d.get("retryDelay").and_then(Value::as_str))
        .and_then(|s| s.strip_suffix('s'))
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Duration::from_secs_f64(s.min(86_400.0)))
}

/// The Gemini API.
pub(crate) static KIND: GoogleKind = GoogleKind;

/// What the google provider is: see [`Kind`].
#[derive(Debug)]
pub(crate) struct GoogleKind;

impl Kind for GoogleKind {
    fn name(&self) -> &'static str {
        "google"
    }

    fn credentials(&self) -> &'static [&'static str] {
        &KEY_VARS
    }

    /// `evals.max_tokens` travels as `params.maxOutputTokens`; the body puts it in
    /// `generationConfig`.
    fn max_tokens_key<'a>(&self, _configured: &'a str) -> &'a str {
        MAX_TOKENS_PARAM
    }

    fn tool_choice_wire(&self, choice: &ToolChoice) -> Value {
        // Carried as `params.tool_choice` in the one shape every provider's params know;
        // the body turns it into `toolConfig`.
        crate::provider::anthropic::tool_choice(choice)
    }

    fn prices(&self) -> &'static [(&'static str, Price)] {
        PRICES
    }

    fn batches(&self) -> bool {
        true
    }

    fn connect(&self, setup: &Setup<'_>) -> Result<Box<dyn Provider>, ProviderError> {
        let c = credentials(|k| setup.var(k))?;
        let api = HttpApi::new(
            "google",
            c.base.clone(),
            Auth::Header(KEY_HEADER, c.key),
            Vec::new(),
            "GEMINI_API_KEY",
            BASE_VAR,
        )
        .with_dialect(&Google);
        Ok(Box::new(Gemini { api, base: c.base }))
    }
}

/// The Gemini API, configured: the key and the base URL the model's path goes under.
#[derive(Debug)]
pub(crate) struct Gemini {
    api: HttpApi,
    base: String,
}

impl Provider for Gemini {
    fn ask_timed(&self, req: &Request, pacer: &Pacer) -> (Result<Answer, ProviderError>, Duration) {
        if let Err(e) = check_names(req.tools) {
            return (Err(e), Duration::ZERO);
        }
        let (answer, took) =
            self.api
                .post_at(&endpoint(&self.base, req.model), &body(req), pacer, read);
        let answer = answer.map(|mut a| {
            restore_names(&mut a, req.tools);
            a
        });
        (answer, took)
    }

    fn batch_api(&self) -> Option<Box<dyn BatchApi + '_>> {
        Some(Box::new(batch::Batches::new(&self.api)))
    }

    fn check(&self, req: &Request) -> Result<(), ProviderError> {
        check_names(req.tools)
    }

    fn restore(&self, answer: &mut Answer, tools: &[ApiTool]) {
        restore_names(answer, tools);
    }

    fn body(&self, req: &Request) -> Value {
        body(req)
    }

    #[cfg(test)]
    fn endpoint(&self, req: &Request) -> String {
        endpoint(&self.base, req.model)
    }
}

/// Google's refusals: `429 RESOURCE_EXHAUSTED: …`, the `RetryInfo` wait, the bad-key hint.
struct Google;

impl Dialect for Google {
    fn describe(
        &self,
        status: u16,
        body: Option<&Value>,
        text: &str,
        _header: &dyn Fn(&str) -> Option<String>,
    ) -> String {
        body.and_then(|b| describe_error(status, b))
            .unwrap_or_else(|| super::http::describe(status, body, text))
    }

    fn retry_wait(&self, body: Option<&Value>) -> Option<Duration> {
        body.and_then(retry_delay)
    }

    fn hint(
        &self,
        _status: u16,
        body: Option<&Value>,
        _header: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        body.and_then(key_hint)
    }
}

#[cfg(test)]
mod tests;
