//! The providers toolproof knows: one line each. A name in the config or on the command line
//! is looked up here; the built-in price table, the withheld variables and `--provider`'s
//! values are derived from this list.

use super::presets::PRESETS;
use super::{Kind, anthropic, bedrock, command, google, openai};

/// Every provider, in the order help and errors list them. Adding a provider is one line here.
pub(crate) static KINDS: &[&dyn Kind] = &[
    &anthropic::KIND,
    &openai::KIND,
    &google::KIND,
    &bedrock::KIND,
    &command::KIND,
    // The OpenAI-compatible presets (`presets.rs`): one table row each.
    &PRESETS[0],
    &PRESETS[1],
    &PRESETS[2],
    &PRESETS[3],
    &PRESETS[4],
    &PRESETS[5],
    &PRESETS[6],
    &PRESETS[7],
    &PRESETS[8],
];

/// The provider called `name`.
pub(crate) fn find(name: &str) -> Option<&'static dyn Kind> {
    KINDS.iter().copied().find(|k| k.name() == name)
}

/// The names of every provider, as `--provider` accepts them.
pub(crate) fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name()).collect()
}

/// Every credential variable of every provider: withheld from every child
/// (`crate::process::withhold`, at start) and masked in every output (the settings' secrets).
pub(crate) fn credentials() -> impl Iterator<Item = &'static str> {
    KINDS.iter().flat_map(|k| k.credentials().iter().copied())
}

/// Why a name is not a provider: the list, and the nearest name when there is one.
pub(crate) fn unknown(name: &str) -> String {
    let names = names();
    let nearest = crate::config::nearest_word(name, &names)
        .map(|n| format!(", did you mean `{n}`?"))
        .unwrap_or_default();
    format!(
        "unknown eval provider `{name}`{nearest}\nhint: use one of: {}",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::super::{Pacer, Provider, Request, Setup};
    use super::*;
    use serde_json::Map;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    fn connect(
        name: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Box<dyn Provider>, super::super::ProviderError> {
        let kind = find(name).unwrap_or_else(|| panic!("{name}"));
        kind.connect(&Setup {
            env: &env,
            cfg: None,
            base_dir: std::path::Path::new("."),
        })
    }

    fn endpoint(p: &dyn Provider) -> String {
        let params = Map::new();
        p.endpoint(&Request {
            model: "m",
            system: None,
            prompt: "p",
            context: &[],
            tools: &[],
            params: &params,
            tool_choice: None,
            max_tokens: 1,
            prompt_cache: false,
        })
    }

    #[test]
    fn names_are_unique_and_unknown_ones_get_the_nearest() {
        let mut seen = names();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), KINDS.len());
        let e = unknown("antropic");
        assert!(e.contains("did you mean `anthropic`?"), "{e}");
        assert!(
            e.contains(&format!("hint: use one of: {}", names().join(", "))),
            "{e}"
        );
        assert!(e.contains("use one of: anthropic, openai, "), "{e}");
        assert!(!unknown("zzzzzzzzzz").contains("did you mean"));
    }

    #[test]
    fn a_missing_key_is_fatal_and_names_the_variable() {
        let err = connect("anthropic", env(&[("ANTHROPIC_API_KEY", "")])).unwrap_err();
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
        let err = connect("openai", env(&[])).unwrap_err();
        assert!(err.message().contains("OPENAI_API_KEY is not set"), "{err}");
        let err = connect(
            "openai",
            env(&[("OPENAI_BASE_URL", "https://api.openai.com/v1")]),
        )
        .unwrap_err();
        assert!(err.is_fatal(), "{err}");
    }

    #[test]
    fn a_compatible_server_elsewhere_needs_no_key() {
        let p = connect(
            "openai",
            env(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(endpoint(&*p), "http://127.0.0.1:8080/v1/chat/completions");
    }

    #[test]
    fn base_urls_follow_the_sdk_conventions() {
        let p = connect("anthropic", env(&[("ANTHROPIC_API_KEY", "k")])).unwrap();
        assert_eq!(endpoint(&*p), "https://api.anthropic.com/v1/messages");
        let p = connect(
            "anthropic",
            env(&[
                ("ANTHROPIC_AUTH_TOKEN", "t"),
                ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ]),
        )
        .unwrap();
        assert_eq!(endpoint(&*p), "http://127.0.0.1:9/v1/messages");
        let p = connect("openai", env(&[("OPENAI_API_KEY", "k")])).unwrap();
        assert_eq!(endpoint(&*p), "https://api.openai.com/v1/chat/completions");
        let p = connect(
            "openai",
            env(&[
                ("OPENAI_API_KEY", "k"),
                ("OPENAI_BASE_URL", "http://localhost:11434/v1"),
            ]),
        )
        .unwrap();
        assert_eq!(endpoint(&*p), "http://localhost:11434/v1/chat/completions");
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
        for kind in KINDS {
            let _ = connect(kind.name(), look);
            // Each fallback variable is read once the first is unset.
            for skip in kind.credentials() {
                let _ = connect(kind.name(), |k: &str| look(k).filter(|_| k != *skip));
            }
        }
        let asked = asked.into_inner().unwrap_or_default();
        // Endpoints and regions are not secrets.
        let sent: Vec<&String> = asked
            .iter()
            .filter(|k| {
                !k.ends_with("_BASE_URL")
                    && !k.ends_with("_REGION")
                    && !k.starts_with("AWS_ENDPOINT_URL")
            })
            .collect();
        assert!(sent.len() >= 5, "{asked:?}");
        let all: Vec<&str> = credentials().collect();
        // Each is withheld from children and masked in every output.
        for var in sent {
            assert!(
                all.contains(&var.as_str()),
                "{var} is read but not a credential"
            );
        }
        crate::process::withhold(credentials());
        let withheld = crate::process::withheld();
        for var in all {
            assert!(
                withheld.contains(&var),
                "{var} is a credential but not withheld"
            );
        }
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let p = super::super::anthropic_at("http://127.0.0.1:9", "sk-ant-very-secret");
        let shown = format!("{p:?}");
        assert!(!shown.contains("very-secret"), "{shown}");
        assert!(shown.contains("127.0.0.1:9"), "{shown}");
        let p = connect("openai", env(&[("OPENAI_API_KEY", "sk-very-secret")])).unwrap();
        assert!(!format!("{p:?}").contains("very-secret"));
    }

    #[test]
    fn providers_are_shared_between_threads() {
        fn sync<T: Sync + Send + ?Sized>() {}
        sync::<dyn Provider>();
        sync::<Pacer>();
    }
}
