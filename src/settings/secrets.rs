//! The run's secrets: every value that must never be written anywhere. The `${VAR}` values the
//! config expanded, and toolproof's own credentials in the environment (the providers' keys
//! and the CI tokens, which a child gets only when its `env` names them, and may then echo).

use super::Env;

/// The secrets of one invocation, longest first, each once. A value with surrounding blanks
/// is listed as given and trimmed, since either form may be what travels.
/// `expanded`: the values `${VAR}` expansion put into the config.
pub(super) fn resolve(env: &Env, expanded: &[String]) -> Vec<String> {
    let mut secrets = expanded.to_vec();
    let credentials = crate::provider::registry::credentials();
    for var in crate::process::RUNNER_VARS.into_iter().chain(credentials) {
        if let Some(value) = env.get(var) {
            secrets.push(value.to_owned());
            secrets.push(value.trim().to_owned());
        }
    }
    secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    secrets.dedup();
    secrets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_keys_tokens_and_config_secrets_are_all_listed() {
        let env = Env::from_pairs([
            ("ANTHROPIC_API_KEY", "sk-ant-1234"),
            ("OPENAI_API_KEY", " sk-oai-5678\n"),
            ("GITHUB_TOKEN", "ghs_abcdef"),
            ("OPENAI_ORG_ID", ""),
            ("HOME", "/root"),
        ]);
        let secrets = resolve(&env, &["from-yaml-var".into()]);
        for want in [
            "sk-ant-1234",
            " sk-oai-5678\n",
            "sk-oai-5678",
            "ghs_abcdef",
            "from-yaml-var",
        ] {
            assert!(secrets.iter().any(|s| s == want), "{want:?}: {secrets:?}");
        }
        assert!(
            !secrets.iter().any(|s| s.is_empty() || s == "/root"),
            "{secrets:?}"
        );
        assert!(secrets.windows(2).all(|w| w[0].len() >= w[1].len()));
    }
}
