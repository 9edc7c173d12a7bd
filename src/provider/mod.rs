//! Model providers: ask a model (the Anthropic Messages API, OpenAI Chat Completions, or a
//! local command) which tool it would call for a prompt, and read back every call it made.
//!
//! One module per provider (`anthropic/`, `openai/`, `google/`, `bedrock/`, `command/`), each
//! owning its wire format: request body, tool list, tool_choice shape, multi-turn context,
//! answer reading (calls, text, stop reasons, cut-offs), usage, default prices, credentials,
//! cache-key name, and its batch API when the vendor has one (`<provider>/batch.rs`, an
//! implementation of [`batch::BatchApi`]; `batch.rs` here holds what they share). Two traits split what a provider is from a configured one:
//! - [`Kind`]: static, one value per provider, listed in [`registry::KINDS`] (one line each).
//!   Engines, settings and reports ask it (`caches_answers`, `runs_command`,
//!   `tool_choice_wire`, `default_max_tokens`, `credentials`, `prices`, `batches`) instead of
//!   matching on a provider; [`Kind::connect`] builds the [`Provider`].
//! - [`Provider`]: object-safe and `Sync`, shared by the worker threads; `ask_timed` one
//!   request, `batch_api` when it has one. HTTP providers hold an [`HttpApi`] that owns retries,
//!   backoff and the window, sends to a URL that may depend on the request
//!   ([`HttpApi::post_at`]), authenticates with an [`Auth`] (a key header, a bearer token, or a
//!   [`Signer`] that sees method, URL, headers, the exact body bytes and the time), and reads
//!   refusals through a [`Dialect`] (message from the body, retry hints beyond `retry-after`).
//!
//! Everything here speaks API-safe tool names ([`crate::evals::asking::tools`] maps them back). Errors
//! come in two kinds: [`ProviderError::Fatal`] when no case can be asked (a missing key, a
//! rejected request, an unknown model), [`ProviderError::Transient`] when this one case could
//! not be answered after the retries of [`Pacer`]; each carries a message and, apart, a hint.

pub(crate) mod anthropic;
pub(crate) mod batch;
pub(crate) mod bedrock;
pub(crate) mod command;
pub(crate) mod context;
mod error;
pub(crate) mod google;
mod http;
pub(crate) mod openai;
pub(crate) mod presets;
pub(crate) mod prices;
mod program;
pub(crate) mod registry;
pub(crate) mod responses;
pub(crate) mod retry;
#[cfg(test)]
mod testserver;
pub(crate) mod usage;
pub(crate) mod window;
#[cfg(test)]
mod wire_tests;

use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::config::{EvalConfig, OpenAiApi, ToolChoice, Turn};
pub(crate) use batch::BatchApi;
pub(crate) use error::{Failure, ProviderError, ShapeError};
pub(crate) use http::{Auth, HttpApi};
#[allow(unused_imports)] // the extension points a provider module plugs into
pub(crate) use http::{Dialect, Signer, Signing, Standard};
use prices::Price;
pub(crate) use registry::{KINDS, find};
pub(crate) use retry::{Pacer, RetryPolicy};
use usage::Usage;

/// A tool as offered to a model API: an API-safe name, the description, the input schema.
/// Serializes to exactly `{"name", "description", "input_schema"}` (the cache key hashes it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ApiTool {
    /// Name matching `^[a-zA-Z0-9_-]{1,64}$`.
    pub name: String,
    /// The MCP description, or "".
    pub description: String,
    /// The MCP input schema as the server sent it.
    pub input_schema: Value,
    /// Numbers of the input schema a `Value` cannot hold as Python does: JSON pointer (within
    /// the schema) and Python's `json.dumps` text (see [`crate::mcp::types::Tool`]).
    #[serde(skip)]
    pub exact_numbers: Vec<(String, String)>,
}

/// Why a model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Stop {
    /// It asked for a tool (or tools).
    ToolUse,
    /// It finished its turn.
    EndTurn,
    /// It ran out of tokens (a call may be cut off).
    MaxTokens,
    /// It declined to answer.
    Refusal,
    /// Anything else the provider said.
    Other(String),
}

/// What to ask: one prompt, with the tool list and the request options of the eval section.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'a> {
    /// Model name (empty for a command that does not need one).
    pub model: &'a str,
    /// System prompt; `None` or empty sends none.
    pub system: Option<&'a str>,
    /// The user's prompt.
    pub prompt: &'a str,
    /// The earlier turns sent before the prompt (calls by their API-safe names); empty for a
    /// case without `context`, whose request is the reference's.
    pub context: &'a [Turn],
    /// The tools offered, with API-safe names.
    pub tools: &'a [ApiTool],
    /// Extra body fields, merged into the request as given (they override toolproof's own).
    /// The HTTP providers get `evals.tool_choice` here, as a `params.tool_choice` would be.
    pub params: &'a Map<String, Value>,
    /// `evals.tool_choice` for the command provider (Anthropic's shape), sent as the request's
    /// `tool_choice` member only when set.
    pub tool_choice: Option<&'a Value>,
    /// `max_tokens` for Anthropic (the reference sends 16000). OpenAI gets none unless `params`
    /// has one: reasoning models reject `max_tokens`.
    pub max_tokens: u32,
    /// Anthropic: mark the last tool and the system prompt with `cache_control` (the prompt
    /// cache). Never part of the cache key.
    pub prompt_cache: bool,
}

/// What the model answered, with API-safe tool names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    /// Every tool call, in the order the model made them.
    pub calls: Vec<RawCall>,
    /// The text of the answer (Anthropic text blocks joined with a space).
    pub text: String,
    /// Why the model stopped.
    pub stop: Stop,
    /// The tokens it used, when the server said (`None`: not reported).
    pub usage: Option<Usage>,
    /// The server reported a usage past [`crate::provider::usage::MAX_ANSWER_TOKENS`], taken as
    /// not reported (`usage` is `None`).
    pub usage_unbelievable: bool,
}

/// One tool call as the API returned it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawCall {
    /// The API-safe tool name.
    pub name: String,
    /// The arguments object, or what the model sent when it was not a JSON object.
    pub args: Result<Value, RawArgs>,
}

/// Tool-call arguments that are not a JSON object, as the model sent them (a JSON string that
/// does not parse, or the JSON text of another value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawArgs(pub String);

/// What a provider is, before it is configured: its name (in the config, on the command line,
/// in the cache key and the reports), the questions engines and settings ask of it, its wire
/// format's choices that do not need a connection, and how to connect it. One static value
/// per provider, listed once in [`registry::KINDS`].
///
/// A new provider is a module under `provider/` with a `Kind` (a unit struct, or a value of
/// a shared struct for presets such as OpenAI-compatible APIs), its [`Provider`], and one line
/// in [`registry::KINDS`]. Everything else (engines, cache, reports, merge, set lint, stress,
/// the withheld variables) asks these methods.
pub(crate) trait Kind: Sync + fmt::Debug {
    /// The name users write (`evals.provider`, `--provider`) and the cache key and reports
    /// spell. Never changes for a shipped provider: it is part of every cache key.
    fn name(&self) -> &'static str;

    /// Every variable the provider reads a credential or an account id from. They are
    /// withheld from the server under test and from child programs, and masked in every output.
    fn credentials(&self) -> &'static [&'static str];

    /// The model is asked over the network and its answers are cached (false for a local
    /// program, which is run every time and never cached nor offline).
    fn caches_answers(&self) -> bool {
        true
    }

    /// It runs `evals.command` (the command provider): the config must have one, and no
    /// model is needed.
    fn runs_command(&self) -> bool {
        false
    }

    /// `max_tokens` sent when neither `evals.max_tokens` nor `params` sets one: `Some` for
    /// APIs that require one (Anthropic: 16000, as the reference sends); `None` sends none
    /// unless the config sets it (reasoning models reject it).
    fn default_max_tokens(&self) -> Option<u32> {
        None
    }

    /// The `params` key `evals.max_tokens` travels under. `configured` is the settings' word
    /// for OpenAI-style APIs (`max_tokens` or `max_completion_tokens`).
    fn max_tokens_key<'a>(&self, configured: &'a str) -> &'a str {
        let _ = configured;
        "max_tokens"
    }

    /// `evals.tool_choice` (API-safe names) in this API's wire format.
    fn tool_choice_wire(&self, choice: &ToolChoice) -> Value;

    /// The tool choice travels in the request's `params` (and so in the cache key), as a
    /// `params.tool_choice` would; false: in [`Request::tool_choice`] (the command provider).
    fn tool_choice_in_params(&self) -> bool {
        true
    }

    /// The list prices of its models (USD per million tokens), checked on
    /// [`crate::provider::prices::TABLE_DATE`]; the built-in table is the registry's
    /// concatenation.
    fn prices(&self) -> &'static [(&'static str, Price)] {
        &[]
    }

    /// It has a batch API (`--batch`); the configured [`Provider::batch_api`] returns it.
    fn batches(&self) -> bool {
        false
    }

    /// It speaks OpenAI's wire format (`openai` and the OpenAI-compatible presets), so
    /// `evals.openai_api` chooses between Chat Completions and the Responses API.
    fn speaks_openai(&self) -> bool {
        false
    }

    /// Its name in the answer cache's keys and entries: [`Kind::name`], or `NAME/responses`
    /// when it speaks OpenAI's wire format and `evals.openai_api` is `responses`, so that the
    /// two APIs' answers never replay for each other (`openai` with Chat Completions keeps the
    /// reference's key, byte for byte).
    fn cache_name(&self, cfg: &EvalConfig) -> String {
        if self.speaks_openai() && cfg.openai_api == OpenAiApi::Responses {
            format!("{}/responses", self.name())
        } else {
            self.name().to_owned()
        }
    }

    /// Why it has no batch API when the vendor does offer batches (shown when `--batch
    /// always` is refused).
    fn no_batch_why(&self) -> Option<&'static str> {
        None
    }

    /// Under `tool_choice: none` the request still lists the tools (the model sees them and is
    /// told not to call one); `false` when the API has no such choice and the tools are left
    /// out, so a usage that shows no tools proves nothing.
    fn lists_tools_under_none(&self) -> bool {
        true
    }

    /// The provider configured from `setup` (credentials and endpoints from its
    /// environment), or a fatal error that says what is missing.
    fn connect(&self, setup: &Setup<'_>) -> Result<Box<dyn Provider>, ProviderError>;
}

/// What [`Kind::connect`] may read: the environment (as the run sees it), the eval section,
/// and the config file's folder.
pub(crate) struct Setup<'a> {
    /// Looks a variable up (unset and empty are both `None` for credentials: see [`Setup::var`]).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The eval section (`command`, `env`, `timeout_s`, provider options such as `openai_api`).
    pub cfg: Option<&'a EvalConfig>,
    /// The config file's folder (the command provider runs there).
    pub base_dir: &'a Path,
}

impl Setup<'_> {
    /// A set, non-empty variable.
    pub(crate) fn var(&self, name: &str) -> Option<String> {
        (self.env)(name).filter(|v| !v.is_empty())
    }
}

/// An HTTP API asked with one body posted to one URL, read by one function, with a batch API:
/// the shape of Anthropic's, OpenAI's Chat Completions and the Responses API.
#[derive(Debug)]
pub(crate) struct Posted {
    /// The endpoint and its credentials.
    pub(crate) api: HttpApi,
    /// The request body of one prompt.
    pub(crate) body: fn(&Request) -> Value,
    /// The answer, read.
    pub(crate) read: http::ReadAnswer,
    /// The API's batch API beside this endpoint (in the provider's own module).
    pub(crate) batch: for<'a> fn(&'a HttpApi) -> Box<dyn BatchApi + 'a>,
}

impl Provider for Posted {
    fn ask_timed(&self, req: &Request, pacer: &Pacer) -> (Result<Answer, ProviderError>, Duration) {
        self.api.post(&(self.body)(req), pacer, self.read)
    }

    fn batch_api(&self) -> Option<Box<dyn BatchApi + '_>> {
        Some((self.batch)(&self.api))
    }

    fn body(&self, req: &Request) -> Value {
        (self.body)(req)
    }

    #[cfg(test)]
    fn endpoint(&self, _: &Request) -> String {
        self.api.url().to_owned()
    }
}

/// A configured provider: asks one request at a time. Cheap to share between threads
/// (`Sync`): HTTP connections are pooled. HTTP providers post through [`HttpApi`], which owns
/// retries, backoff, the window, signing ([`Auth`]) and error reading ([`Dialect`]).
pub(crate) trait Provider: fmt::Debug + Send + Sync {
    /// Asks which tool the model would call, with the time to answer: from sending the last
    /// attempt to its answer (or failure), without the waits before it (backoff, room in the
    /// window, earlier attempts). HTTP providers retry as `pacer` says; the command provider
    /// runs once.
    fn ask_timed(&self, req: &Request, pacer: &Pacer) -> (Result<Answer, ProviderError>, Duration);

    #[cfg(test)]
    /// [`Provider::ask_timed`] without the time.
    fn ask(&self, req: &Request, pacer: &Pacer) -> Result<Answer, ProviderError> {
        self.ask_timed(req, pacer).0
    }

    /// Its batch API, when it has one (see [`Kind::batches`]): the provider module's own
    /// implementation of [`BatchApi`].
    fn batch_api(&self) -> Option<Box<dyn BatchApi + '_>> {
        None
    }

    /// Refuses a request the API could not tell the answer of apart (the live path refuses it
    /// the same way before sending); checked before a batch is submitted.
    fn check(&self, req: &Request) -> Result<(), ProviderError> {
        let _ = req;
        Ok(())
    }

    /// Puts the names `tools` were offered under back on the calls of an answer the API
    /// gave with the names it was sent (the live path does so itself); for batch answers.
    fn restore(&self, answer: &mut Answer, tools: &[ApiTool]) {
        let _ = (answer, tools);
    }

    /// The request body the live path sends for `req` (a batch carries the same).
    fn body(&self, req: &Request) -> Value {
        let _ = req;
        Value::Null
    }

    /// The endpoint a request goes to (empty for a local program); for tests and messages.
    #[cfg(test)]
    fn endpoint(&self, req: &Request) -> String {
        let _ = req;
        String::new()
    }
}

impl<P: Provider + ?Sized> Provider for Box<P> {
    fn ask_timed(&self, req: &Request, pacer: &Pacer) -> (Result<Answer, ProviderError>, Duration) {
        (**self).ask_timed(req, pacer)
    }

    fn batch_api(&self) -> Option<Box<dyn BatchApi + '_>> {
        (**self).batch_api()
    }

    fn check(&self, req: &Request) -> Result<(), ProviderError> {
        (**self).check(req)
    }

    fn restore(&self, answer: &mut Answer, tools: &[ApiTool]) {
        (**self).restore(answer, tools)
    }

    fn body(&self, req: &Request) -> Value {
        (**self).body(req)
    }

    #[cfg(test)]
    fn endpoint(&self, req: &Request) -> String {
        (**self).endpoint(req)
    }
}

#[cfg(test)]
/// Anthropic at `base_url` (without `/v1`) with an API key.
pub(crate) fn anthropic_at(base_url: &str, api_key: &str) -> Box<dyn Provider> {
    Box::new(anthropic::configured(anthropic::api(
        base_url,
        Auth::Header("x-api-key", api_key.to_owned()),
    )))
}

#[cfg(test)]
/// OpenAI (or a compatible server) at `base_url` (with `/v1`) with an API key.
pub(crate) fn openai_at(base_url: &str, api_key: &str) -> Box<dyn Provider> {
    Box::new(openai::configured(openai::api(
        base_url,
        Some(api_key),
        Vec::new(),
    )))
}

/// Puts `params` into a request body, each key replacing the body's. `extra_body` (the SDKs'
/// escape hatch, which mcp-toolproof users write for fields the SDK does not model) is merged
/// into the body itself, as the SDKs do, instead of being sent as a field.
pub(crate) fn merge_params(body: &mut Map<String, Value>, params: &Map<String, Value>) {
    for (k, v) in params {
        if k != "extra_body" || !v.is_object() {
            body.insert(k.clone(), v.clone());
        }
    }
    if let Some(Value::Object(extra)) = params.get("extra_body") {
        for (k, v) in extra {
            body.insert(k.clone(), v.clone());
        }
    }
}

pub(crate) fn missing_key(provider: &str, var: &str) -> ProviderError {
    ProviderError::Fatal(Failure::with_hint(
        format!("the {provider} provider needs an API key: {var} is not set"),
        format!("export {var}=…, or run with a committed answer cache that covers every case"),
    ))
}

/// What a provider-format `tool_choice` (from `params`) asks, in config terms: `auto`, `any`,
/// `none` or a named tool (its API name); `None` when the value is in no format known here.
pub(crate) fn choice_from_wire(value: &Value) -> Option<ToolChoice> {
    let simple = |word: &str| match word {
        "auto" => Some(ToolChoice::Auto),
        "any" | "required" => Some(ToolChoice::Any),
        "none" => Some(ToolChoice::None),
        _ => None,
    };
    match value {
        Value::String(word) => simple(word),
        Value::Object(map) => match map.get("type").and_then(Value::as_str)? {
            "tool" => map
                .get("name")
                .and_then(Value::as_str)
                .map(|n| ToolChoice::Tool(n.to_owned())),
            "function" => value
                .pointer("/function/name")
                .and_then(Value::as_str)
                .map(|n| ToolChoice::Tool(n.to_owned())),
            other => simple(other),
        },
        _ => None,
    }
}

#[cfg(test)]
mod merge_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extra_body_is_merged_into_the_body_not_sent_as_a_field() {
        let mut body = json!({"model": "m", "max_tokens": 16000})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let params = json!({"max_tokens": 5, "extra_body": {"temperature": 0.0, "model": "x"}});
        merge_params(&mut body, params.as_object().unwrap_or(&Map::new()));
        assert_eq!(
            Value::Object(body),
            json!({"model": "x", "max_tokens": 5, "temperature": 0.0})
        );
    }
}
