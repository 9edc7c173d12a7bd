//! Model providers: ask a model (the Anthropic Messages API, OpenAI Chat Completions, or a
//! local command) which tool it would call for a prompt, and read back every call it made.
//!
//! Everything here speaks API-safe tool names ([`crate::evals::asking::tools`] maps them back). Errors
//! come in two kinds: [`ProviderError::Fatal`] when no case can be asked (a missing key, a
//! rejected request, an unknown model), [`ProviderError::Transient`] when this one case could
//! not be answered after the retries of [`Pacer`]; each carries a message and, apart, a hint.

pub(crate) mod anthropic;
pub mod batch;
pub(crate) mod command;
mod context;
mod error;
mod http;
pub(crate) mod openai;
pub(crate) mod presets;
mod program;
pub(crate) mod responses;
pub mod retry;
#[cfg(test)]
mod testserver;
pub mod window;
#[cfg(test)]
mod wire_tests;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::usage::Usage;
use crate::config::{OpenAiApi, Turn};
use crate::evals::ApiTool;
use crate::evals::Stop;
use command::CommandSpec;
pub use error::{Failure, ProviderError, ShapeError};
use http::{Auth, HttpApi};
pub use retry::{Pacer, RetryPolicy};

use crate::settings::{ANTHROPIC_DEFAULT_BASE, OPENAI_DEFAULT_BASE};

/// What to ask: one prompt, with the tool list and the request options of the eval section.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
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
pub struct Answer {
    /// Every tool call, in the order the model made them.
    pub calls: Vec<RawCall>,
    /// The text of the answer (Anthropic text blocks joined with a space).
    pub text: String,
    /// Why the model stopped.
    pub stop: Stop,
    /// The tokens it used, when the server said (`None`: not reported).
    pub usage: Option<Usage>,
    /// The server reported a usage past [`crate::evals::asking::usage::MAX_ANSWER_TOKENS`], taken as
    /// not reported (`usage` is `None`).
    pub usage_unbelievable: bool,
}

/// One tool call as the API returned it.
#[derive(Debug, Clone, PartialEq)]
pub struct RawCall {
    /// The API-safe tool name.
    pub name: String,
    /// The arguments object, or what the model sent when it was not a JSON object.
    pub args: Result<Value, RawArgs>,
}

/// Tool-call arguments that are not a JSON object, as the model sent them (a JSON string that
/// does not parse, or the JSON text of another value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawArgs(pub String);

/// A configured provider. Cheap to share between threads (`Sync`): HTTP connections are pooled.
#[derive(Debug)]
pub enum Provider {
    /// The Anthropic Messages API.
    Anthropic(HttpApi),
    /// OpenAI Chat Completions, or a compatible server (an OpenAI-compatible preset).
    OpenAi(HttpApi),
    /// The OpenAI Responses API, or a compatible server's.
    Responses(HttpApi),
    /// A local program: the request on stdin, its choice on stdout.
    Command(CommandSpec),
}

impl Provider {
    #[cfg(test)]
    /// Anthropic at `base_url` (without `/v1`) with an API key.
    pub fn anthropic(base_url: &str, api_key: &str) -> Provider {
        Provider::Anthropic(anthropic::api(base_url, Auth::ApiKey(api_key.to_owned())))
    }

    #[cfg(test)]
    /// OpenAI (or a compatible server) at `base_url` (with `/v1`) with an API key.
    pub fn openai(base_url: &str, api_key: &str) -> Provider {
        Provider::OpenAi(openai::api(base_url, Some(api_key), Vec::new()))
    }

    /// A command run without a shell, from `cwd`, with the environment less toolproof's
    /// credentials plus `env`, killed after `timeout`.
    pub fn command(
        argv: Vec<String>,
        cwd: PathBuf,
        timeout: Duration,
        env: BTreeMap<String, String>,
    ) -> Provider {
        Provider::Command(CommandSpec::new(argv, cwd, timeout).with_env(env))
    }

    #[cfg(test)]
    /// `anthropic`, `openai` or `command`.
    pub fn name(&self) -> &'static str {
        match self {
            Provider::Anthropic(_) => "anthropic",
            Provider::OpenAi(_) | Provider::Responses(_) => "openai",
            Provider::Command(_) => "command",
        }
    }

    #[cfg(test)]
    /// Asks which tool the model would call. HTTP providers retry as `pacer` says; the command
    /// provider runs once.
    pub fn ask(&self, req: &Request, pacer: &Pacer) -> Result<Answer, ProviderError> {
        self.ask_timed(req, pacer).0
    }

    /// [`Provider::ask`], with the time to answer: from sending the last attempt to its
    /// answer (or failure), without the waits before it (backoff, room in the window, earlier
    /// attempts). For the command provider, its run.
    pub fn ask_timed(
        &self,
        req: &Request,
        pacer: &Pacer,
    ) -> (Result<Answer, ProviderError>, Duration) {
        match self {
            Provider::Anthropic(api) => api.post(&anthropic::body(req), pacer, anthropic::read),
            Provider::OpenAi(api) => api.post(&openai::body(req), pacer, openai::read),
            Provider::Responses(api) => api.post(&responses::body(req), pacer, responses::read),
            Provider::Command(spec) => {
                let started = Instant::now();
                let answer = spec.ask(req);
                (answer, started.elapsed())
            }
        }
    }

    /// Anthropic, configured like the official SDK from the variables `env` looks up:
    /// `ANTHROPIC_API_KEY` (sent as `x-api-key`), else `ANTHROPIC_AUTH_TOKEN` (sent as a bearer
    /// token); `ANTHROPIC_BASE_URL` without `/v1`.
    pub fn anthropic_from(env: impl Fn(&str) -> Option<String>) -> Result<Provider, ProviderError> {
        let set = |k: &str| env(k).filter(|v| !v.is_empty());
        let auth = match (set("ANTHROPIC_API_KEY"), set("ANTHROPIC_AUTH_TOKEN")) {
            (Some(key), _) => Auth::ApiKey(key),
            (None, Some(token)) => Auth::Bearer(token),
            (None, None) => return Err(missing_key("anthropic", "ANTHROPIC_API_KEY")),
        };
        let base = set("ANTHROPIC_BASE_URL").unwrap_or_else(|| ANTHROPIC_DEFAULT_BASE.to_owned());
        Ok(Provider::Anthropic(anthropic::api(&base, auth)))
    }

    /// OpenAI, configured like the official SDK from the variables `env` looks up:
    /// `OPENAI_API_KEY`, `OPENAI_BASE_URL` with `/v1`, and `OPENAI_ORG_ID` /
    /// `OPENAI_PROJECT_ID` when set. The key is needed for OpenAI's own API only: a compatible
    /// server at another `OPENAI_BASE_URL` (llama.cpp, Ollama, vLLM) is sent none when it is
    /// not set (the SDK, and so the reference, refuses to send a request without one).
    pub fn openai_from(
        env: impl Fn(&str) -> Option<String>,
        which: OpenAiApi,
    ) -> Result<Provider, ProviderError> {
        let set = |k: &str| env(k).filter(|v| !v.is_empty());
        let base = set("OPENAI_BASE_URL").unwrap_or_else(|| OPENAI_DEFAULT_BASE.to_owned());
        let key = set("OPENAI_API_KEY");
        if key.is_none() && crate::config::is_openai_host(&base) {
            return Err(missing_key("openai", "OPENAI_API_KEY"));
        }
        let mut headers = Vec::new();
        if let Some(org) = set("OPENAI_ORG_ID") {
            headers.push(("openai-organization".to_owned(), org));
        }
        if let Some(project) = set("OPENAI_PROJECT_ID") {
            headers.push(("openai-project".to_owned(), project));
        }
        Ok(match which {
            OpenAiApi::Chat => Provider::OpenAi(openai::api(&base, key.as_deref(), headers)),
            OpenAiApi::Responses => {
                Provider::Responses(responses::api(&base, key.as_deref(), headers))
            }
        })
    }

    /// An OpenAI-compatible preset (`groq`, `ollama`…, see [`presets`]) from the variables
    /// `env` looks up: its `<NAME>_BASE_URL` or documented base URL, and its key variable.
    pub fn preset_from(
        name: &str,
        env: impl Fn(&str) -> Option<String>,
        which: OpenAiApi,
    ) -> Result<Provider, ProviderError> {
        let Some(preset) = presets::find(name) else {
            return Err(ProviderError::Fatal(
                format!("unknown eval provider `{name}`").into(),
            ));
        };
        let api = preset.endpoint(env, which)?;
        Ok(match which {
            OpenAiApi::Chat => Provider::OpenAi(api),
            OpenAiApi::Responses => Provider::Responses(api),
        })
    }
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

fn missing_key(provider: &str, var: &str) -> ProviderError {
    ProviderError::Fatal(Failure::with_hint(
        format!("the {provider} provider needs an API key: {var} is not set"),
        format!("export {var}=…, or run with a committed answer cache that covers every case"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn a_missing_key_is_fatal_and_names_the_variable() {
        let err = Provider::anthropic_from(env(&[("ANTHROPIC_API_KEY", "")])).unwrap_err();
        assert!(err.is_fatal());
        assert!(
            err.message().contains("ANTHROPIC_API_KEY is not set"),
            "{err}"
        );
        assert!(
            err.hint()
                .is_some_and(|h| h.starts_with("export ANTHROPIC_API_KEY=")),
            "{err}"
        );
        assert!(err.to_string().contains("\nhint: export"), "{err}");
        let err = Provider::openai_from(env(&[]), OpenAiApi::Chat).unwrap_err();
        assert!(err.message().contains("OPENAI_API_KEY is not set"), "{err}");
        let err = Provider::openai_from(
            env(&[("OPENAI_BASE_URL", "https://api.openai.com/v1")]),
            OpenAiApi::Chat,
        )
        .unwrap_err();
        assert!(err.is_fatal(), "{err}");
    }

    #[test]
    fn a_compatible_server_elsewhere_needs_no_key() {
        let p = Provider::openai_from(
            env(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]),
            OpenAiApi::Chat,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(endpoint(&p), "http://127.0.0.1:8080/v1/chat/completions");
    }

    #[test]
    fn base_urls_follow_the_sdk_conventions() {
        let p = Provider::anthropic_from(env(&[("ANTHROPIC_API_KEY", "k")])).unwrap();
        assert_eq!(endpoint(&p), "https://api.anthropic.com/v1/messages");
        let p = Provider::anthropic_from(env(&[
            ("ANTHROPIC_AUTH_TOKEN", "t"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
        ]))
        .unwrap();
        assert_eq!(endpoint(&p), "http://127.0.0.1:9/v1/messages");
        let p = Provider::openai_from(env(&[("OPENAI_API_KEY", "k")]), OpenAiApi::Chat).unwrap();
        assert_eq!(endpoint(&p), "https://api.openai.com/v1/chat/completions");
        let p = Provider::openai_from(
            env(&[
                ("OPENAI_API_KEY", "k"),
                ("OPENAI_BASE_URL", "http://localhost:11434/v1"),
            ]),
            OpenAiApi::Chat,
        )
        .unwrap();
        assert_eq!(endpoint(&p), "http://localhost:11434/v1/chat/completions");
        assert_eq!(p.name(), "openai");
    }

    fn endpoint(p: &Provider) -> &str {
        match p {
            Provider::Anthropic(api) | Provider::OpenAi(api) | Provider::Responses(api) => {
                api.url()
            }
            Provider::Command(_) => "",
        }
    }

    #[test]
    fn every_variable_the_providers_send_is_a_credential() {
        let asked = std::sync::Mutex::new(Vec::new());
        let look = |k: &str| {
            if let Ok(mut a) = asked.lock() {
                a.push(k.to_owned());
            }
            Some(format!("value-of-{k}"))
        };
        let _ = Provider::anthropic_from(look);
        let _ = Provider::anthropic_from(|k: &str| look(k).filter(|_| k != "ANTHROPIC_API_KEY"));
        let _ = Provider::openai_from(look, OpenAiApi::Responses);
        for preset in presets::PRESETS {
            let _ = Provider::preset_from(preset.name, look, OpenAiApi::Chat);
        }
        let asked = asked.into_inner().unwrap_or_default();
        let sent: Vec<&String> = asked.iter().filter(|k| !k.ends_with("_BASE_URL")).collect();
        assert!(sent.len() >= 5, "{asked:?}");
        // Each is withheld from children and masked in every output.
        for var in sent {
            assert!(
                crate::process::WITHHELD_VARS.contains(&var.as_str()),
                "{var} is sent but not withheld and masked"
            );
        }
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let p = Provider::anthropic("http://127.0.0.1:9", "sk-ant-very-secret");
        let shown = format!("{p:?}");
        assert!(!shown.contains("very-secret"), "{shown}");
        assert!(shown.contains("127.0.0.1:9"), "{shown}");
        let p = Provider::openai_from(
            env(&[("OPENAI_API_KEY", "sk-very-secret")]),
            OpenAiApi::Chat,
        )
        .unwrap();
        assert!(!format!("{p:?}").contains("very-secret"));
    }

    #[test]
    fn providers_are_shared_between_threads() {
        fn sync<T: Sync + Send>() {}
        sync::<Provider>();
        sync::<Pacer>();
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
