//! The process environment, read once at start-up. Everything after [`Env::from_process`]
//! looks variables up here, so tests can hand the resolver any environment they like.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::ConfigError;

/// The OpenAI API when `OPENAI_BASE_URL` is not set (the SDK convention: with `/v1`), for
/// the `max_tokens` key's choice (the provider module has its own copy: settings sit below it).
const OPENAI_DEFAULT_BASE: &str = "https://api.openai.com/v1";

/// A snapshot of the environment variables (those that are valid UTF-8).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Env {
    vars: BTreeMap<String, String>,
    stdout_tty: bool,
    stderr_tty: bool,
    /// Columns of the terminals stdout and stderr are, when they are and say.
    stdout_columns: Option<usize>,
    stderr_columns: Option<usize>,
    cwd: PathBuf,
}

impl Env {
    /// The environment of this process, now.
    pub(crate) fn from_process() -> Self {
        use std::io::IsTerminal;
        Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
            stdout_tty: std::io::stdout().is_terminal(),
            stderr_tty: std::io::stderr().is_terminal(),
            stdout_columns: terminal_size::terminal_size_of(std::io::stdout())
                .map(|(w, _)| usize::from(w.0)),
            stderr_columns: terminal_size::terminal_size_of(std::io::stderr())
                .map(|(w, _)| usize::from(w.0)),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        }
    }

    /// Columns of the terminal stdout is, when it is one and says.
    pub(crate) fn stdout_columns(&self) -> Option<usize> {
        self.stdout_columns
    }

    /// Columns of the terminal stderr is, when it is one and says.
    pub(crate) fn stderr_columns(&self) -> Option<usize> {
        self.stderr_columns
    }

    #[cfg(test)]
    /// The same variables, with stdout and stderr said to be terminals or not.
    pub(crate) fn with_terminals(mut self, stdout: bool, stderr: bool) -> Self {
        self.stdout_tty = stdout;
        self.stderr_tty = stderr;
        self
    }

    /// The working folder toolproof was started in.
    pub(crate) fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Whether stdout is a terminal.
    pub(crate) fn stdout_tty(&self) -> bool {
        self.stdout_tty
    }

    /// Whether stderr is a terminal.
    pub(crate) fn stderr_tty(&self) -> bool {
        self.stderr_tty
    }

    #[cfg(test)]
    /// An environment holding exactly `pairs`.
    pub(crate) fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Env {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            stdout_tty: false,
            stderr_tty: false,
            stdout_columns: None,
            stderr_columns: None,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        }
    }

    /// The value of `name`, when set (possibly empty).
    pub(crate) fn raw(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// The value of `name`, when set and not blank.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.raw(name).filter(|v| !v.trim().is_empty())
    }

    /// Where the OpenAI provider sends requests: `OPENAI_BASE_URL`, else OpenAI's own API.
    pub(crate) fn openai_base(&self) -> &str {
        self.get("OPENAI_BASE_URL").unwrap_or(OPENAI_DEFAULT_BASE)
    }

    /// A boolean switch: `1/0`, `true/false`, `yes/no`, `on/off` (any case); unset or blank is
    /// `None`; anything else is a usage error naming the variable.
    pub(crate) fn switch(&self, name: &str) -> Result<Option<bool>, ConfigError> {
        let Some(value) = self.get(name) else {
            return Ok(None);
        };
        parse_switch(value).map(Some).ok_or_else(|| {
            ConfigError::new(format!(
                "environment variable {name}={value:?} is not a boolean"
            ))
            .hint("use 1 or 0, true or false, yes or no, on or off; or unset it")
        })
    }

    /// Whether `name` is set to something that does not mean "off" (`CI=true`, `CI=1`).
    pub(crate) fn truthy(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|v| parse_switch(v).unwrap_or(true))
    }
}

/// `1/0`, `true/false`, `yes/no`, `on/off`, ignoring case and surrounding spaces.
pub(super) fn parse_switch(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_accept_the_usual_spellings() {
        for (v, want) in [
            ("1", true),
            ("TRUE", true),
            ("yes", true),
            (" on ", true),
            ("0", false),
            ("False", false),
            ("no", false),
            ("OFF", false),
        ] {
            let env = Env::from_pairs([("X", v)]);
            assert_eq!(env.switch("X").ok().flatten(), Some(want), "{v}");
        }
        let env = Env::from_pairs([("X", "maybe"), ("E", " ")]);
        let err = env.switch("X").err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "environment variable X=\"maybe\" is not a boolean\nhint: use 1 or 0, true or false, yes or no, on or off; or unset it"
            )
        );
        assert_eq!(env.switch("E").ok(), Some(None));
        assert_eq!(env.switch("UNSET").ok(), Some(None));
    }

    #[test]
    fn truthy_means_set_and_not_off() {
        let env = Env::from_pairs([("A", "true"), ("B", "0"), ("C", "whatever"), ("D", "")]);
        assert!(env.truthy("A"));
        assert!(!env.truthy("B"));
        assert!(env.truthy("C"));
        assert!(!env.truthy("D"));
        assert!(!env.truthy("E"));
    }
}
