//! Named presets of the OpenAI-compatible API: a provider name (`groq`, `ollama`…) that stands
//! for the `openai` wire format at the vendor's documented base URL, with the vendor's key
//! variable. Each answers under its own name in the cache key and the reports, so a preset's
//! answers never replay as `openai`'s (or another preset's).
//!
//! The base URL is overridden by the preset's own `<NAME>_BASE_URL` variable (with the API's
//! path, as `OPENAI_BASE_URL` is written), never by `OPENAI_BASE_URL`: a proxy set up for
//! OpenAI must not receive another vendor's key. The local servers (Ollama, vLLM, llama.cpp)
//! need no key; one is sent when their variable is set (a server started with `--api-key`).

use serde_json::Value;

use super::{Auth, Failure, HttpApi, Kind, Provider, ProviderError, Setup, openai};
use crate::config::{OpenAiApi, ToolChoice};

/// One OpenAI-compatible vendor, as its documentation gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Preset {
    /// The provider name (`evals.provider`, `--provider`).
    pub name: &'static str,
    /// The vendor's name, for messages and the guide.
    pub vendor: &'static str,
    /// The documented base URL, with the API's path (the `base_url` of the OpenAI SDKs).
    pub base_url: &'static str,
    /// The variable that overrides the base URL.
    pub base_var: &'static str,
    /// The variable holding the API key.
    pub key_var: &'static str,
    /// The same, as the one credential the registry withholds and masks.
    pub credentials: &'static [&'static str],
    /// Whether a request without a key is refused before it is sent (hosted APIs).
    pub key_required: bool,
    /// Whether the vendor offers OpenAI's Batch API (`/files` with purpose `batch`, then
    /// `/batches`) under the same base URL.
    pub batch: bool,
    /// Where the base URL and key variable are documented.
    pub source: &'static str,
}

/// Every preset, in the order the guide lists them.
pub(crate) static PRESETS: [Preset; 9] = [
    Preset {
        name: "ollama",
        vendor: "Ollama",
        base_url: "http://127.0.0.1:11434/v1",
        base_var: "OLLAMA_BASE_URL",
        key_var: "OLLAMA_API_KEY",
        credentials: &["OLLAMA_API_KEY"],
        key_required: false,
        batch: false,
        source: "https://docs.ollama.com/api/openai-compatibility",
    },
    Preset {
        name: "vllm",
        vendor: "vLLM",
        base_url: "http://127.0.0.1:8000/v1",
        base_var: "VLLM_BASE_URL",
        key_var: "VLLM_API_KEY",
        credentials: &["VLLM_API_KEY"],
        key_required: false,
        batch: false,
        source: "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html",
    },
    Preset {
        name: "llamacpp",
        vendor: "llama.cpp (llama-server)",
        base_url: "http://127.0.0.1:8080/v1",
        base_var: "LLAMACPP_BASE_URL",
        key_var: "LLAMA_API_KEY",
        credentials: &["LLAMA_API_KEY"],
        key_required: false,
        batch: false,
        source: "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md",
    },
    Preset {
        name: "openrouter",
        vendor: "OpenRouter",
        base_url: "https://openrouter.ai/api/v1",
        base_var: "OPENROUTER_BASE_URL",
        key_var: "OPENROUTER_API_KEY",
        credentials: &["OPENROUTER_API_KEY"],
        key_required: true,
        batch: false,
        source: "https://openrouter.ai/docs/quickstart",
    },
    Preset {
        name: "together",
        vendor: "Together AI",
        base_url: "https://api.together.ai/v1",
        base_var: "TOGETHER_BASE_URL",
        key_var: "TOGETHER_API_KEY",
        credentials: &["TOGETHER_API_KEY"],
        key_required: true,
        batch: false,
        source: "https://docs.together.ai/docs/inference/openai-compatibility",
    },
    Preset {
        name: "groq",
        vendor: "Groq",
        base_url: "https://api.groq.com/openai/v1",
        base_var: "GROQ_BASE_URL",
        key_var: "GROQ_API_KEY",
        credentials: &["GROQ_API_KEY"],
        key_required: true,
        batch: true,
        source: "https://console.groq.com/docs/openai",
    },
    Preset {
        name: "deepseek",
        vendor: "DeepSeek",
        base_url: "https://api.deepseek.com",
        base_var: "DEEPSEEK_BASE_URL",
        key_var: "DEEPSEEK_API_KEY",
        credentials: &["DEEPSEEK_API_KEY"],
        key_required: true,
        batch: false,
        source: "https://api-docs.deepseek.com/",
    },
    Preset {
        name: "mistral",
        vendor: "Mistral AI",
        base_url: "https://api.mistral.ai/v1",
        base_var: "MISTRAL_BASE_URL",
        key_var: "MISTRAL_API_KEY",
        credentials: &["MISTRAL_API_KEY"],
        key_required: true,
        batch: false,
        source: "https://docs.mistral.ai/api/",
    },
    Preset {
        name: "xai",
        vendor: "xAI",
        base_url: "https://api.x.ai/v1",
        base_var: "XAI_BASE_URL",
        key_var: "XAI_API_KEY",
        credentials: &["XAI_API_KEY"],
        key_required: true,
        batch: false,
        source: "https://docs.x.ai/developers/rest-api-reference",
    },
];

/// The preset called `name`.
#[cfg(test)]
pub(crate) fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The path of a documented base URL (`/openai/v1`), or nothing.
fn api_path(base_url: &str) -> &str {
    let after_scheme = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    after_scheme.find('/').map_or("", |i| &after_scheme[i..])
}

impl Preset {
    /// The base URL: `<NAME>_BASE_URL` when set, else the documented one. An override that
    /// is a bare origin (`https://api.groq.com`, as the Groq SDK reads `GROQ_BASE_URL`) gets
    /// the documented API path (`/openai/v1`).
    pub(crate) fn base(&self, env: &dyn Fn(&str) -> Option<String>) -> String {
        let Some(given) = env(self.base_var).filter(|v| !v.is_empty()) else {
            return self.base_url.to_owned();
        };
        let given = given.trim_end_matches('/');
        let after_scheme = given.split_once("://").map_or(given, |(_, rest)| rest);
        if after_scheme.contains('/') {
            return given.to_owned();
        }
        format!("{given}{}", api_path(self.base_url))
    }

    /// The endpoint of `api` (Chat Completions or Responses) with the key from the
    /// environment; a hosted vendor without its key is refused here.
    pub(crate) fn endpoint(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
        api: OpenAiApi,
    ) -> Result<HttpApi, ProviderError> {
        let base = self.base(env);
        let key = env(self.key_var).filter(|v| !v.is_empty());
        if key.is_none() && self.key_required {
            return Err(ProviderError::Fatal(Failure::with_hint(
                format!(
                    "the {} provider needs an API key: {} is not set",
                    self.name, self.key_var
                ),
                format!(
                    "export {}=… (see {}), or run with a committed answer cache that covers every case",
                    self.key_var, self.source
                ),
            )));
        }
        let path = match api {
            OpenAiApi::Chat => "chat/completions",
            OpenAiApi::Responses => "responses",
        };
        Ok(HttpApi::new(
            self.name,
            format!("{}/{path}", base.trim_end_matches('/')),
            key.map_or(Auth::None, Auth::Bearer),
            Vec::new(),
            self.key_var,
            self.base_var,
        ))
    }
}

impl Kind for Preset {
    fn name(&self) -> &'static str {
        self.name
    }

    fn credentials(&self) -> &'static [&'static str] {
        self.credentials
    }

    fn tool_choice_wire(&self, choice: &ToolChoice) -> Value {
        openai::tool_choice(choice)
    }

    fn batches(&self) -> bool {
        self.batch
    }

    fn speaks_openai(&self) -> bool {
        true
    }

    /// The preset's endpoint of the API `evals.openai_api` names, with its key.
    fn connect(&self, setup: &Setup<'_>) -> Result<Box<dyn Provider>, ProviderError> {
        let which = setup.cfg.map_or(OpenAiApi::Chat, |c| c.openai_api);
        let api = self.endpoint(setup.env, which)?;
        Ok(match which {
            OpenAiApi::Chat => Box::new(openai::configured(api)),
            OpenAiApi::Responses => Box::new(super::responses::configured(api)),
        })
    }
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
    fn names_and_variables_are_distinct_and_not_openai() {
        let mut names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PRESETS.len());
        for p in &PRESETS {
            assert!(
                !["openai", "anthropic", "command"].contains(&p.name),
                "{}",
                p.name
            );
            assert!(p.key_var.ends_with("_API_KEY"), "{}", p.key_var);
            assert!(p.base_var.ends_with("_BASE_URL"), "{}", p.base_var);
            assert!(!p.base_var.starts_with("OPENAI"), "{}", p.base_var);
            assert!(p.source.starts_with("https://"), "{}", p.source);
            // Hosted vendors are reached over TLS, local servers on loopback.
            let local = p.base_url.starts_with("http://127.0.0.1:");
            assert_eq!(local, !p.key_required, "{}", p.name);
        }
    }

    #[test]
    fn the_documented_base_url_and_key_are_used_unless_overridden() {
        let groq = find("groq").expect("groq");
        let api = groq
            .endpoint(&env(&[("GROQ_API_KEY", "gsk")]), OpenAiApi::Chat)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(api.url(), "https://api.groq.com/openai/v1/chat/completions");
        let api = groq
            .endpoint(
                &env(&[
                    ("GROQ_API_KEY", "gsk"),
                    ("GROQ_BASE_URL", "http://127.0.0.1:9/v1/"),
                    ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"),
                ]),
                OpenAiApi::Responses,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(api.url(), "http://127.0.0.1:9/v1/responses");
        // A bare origin gets the API's path, as the vendor SDKs read it.
        let api = groq
            .endpoint(
                &env(&[
                    ("GROQ_API_KEY", "gsk"),
                    ("GROQ_BASE_URL", "http://127.0.0.1:9/"),
                ]),
                OpenAiApi::Chat,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(api.url(), "http://127.0.0.1:9/openai/v1/chat/completions");
        let deepseek = find("deepseek").expect("deepseek");
        let api = deepseek
            .endpoint(&env(&[("DEEPSEEK_API_KEY", "k")]), OpenAiApi::Chat)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(api.url(), "https://api.deepseek.com/chat/completions");
    }

    #[test]
    fn the_registry_knows_each_preset() {
        for p in &PRESETS {
            let registered =
                super::super::registry::find(p.name).unwrap_or_else(|| panic!("{}", p.name));
            assert!(registered.speaks_openai(), "{}", p.name);
            assert_eq!(registered.batches(), p.batch, "{}", p.name);
            assert_eq!(registered.credentials(), [p.key_var]);
        }
    }

    #[test]
    fn hosted_vendors_need_their_key_and_local_servers_do_not() {
        let err = find("xai")
            .expect("xai")
            .endpoint(&env(&[("OPENAI_API_KEY", "sk")]), OpenAiApi::Chat)
            .expect_err("no key");
        assert!(err.is_fatal());
        assert!(err.message().contains("XAI_API_KEY is not set"), "{err}");
        assert!(
            err.hint().is_some_and(|h| h.contains("https://docs.x.ai")),
            "{err}"
        );
        let api = find("ollama")
            .expect("ollama")
            .endpoint(&env(&[]), OpenAiApi::Chat)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(api.url(), "http://127.0.0.1:11434/v1/chat/completions");
        assert!(!format!("{api:?}").contains("Bearer"));
    }
}
