//! `toolproof.yaml`: its types ([`types`]) and the one function that loads them ([`load`]),
//! plus the default config the command line builds for `--url` / `-- COMMAND`. The check ids
//! and the JSONPath parser it validates against live in [`vocab`], which engines import too.
//!
//! Loading reads YAML through serde-saphyr into a tree that remembers every line and column
//! (plain scalars take the YAML 1.1 meaning mcp-toolproof's PyYAML gives them: `yes` is true,
//! `0755` octal, `1e3` text), deserializes the typed [`Config`] from that tree (so every error names the key path,
//! the position and what was expected), then checks what types cannot say, expands `${VAR}`
//! in `server` and resolves relative paths from the file's folder. A YAML syntax error stops
//! at once; every other error is collected (unknown keys, wrong types, missing keys, values out
//! of range…) and they are reported together in document order, at most [`MAX_ERRORS`].

mod de;
pub(crate) mod limits;
mod load;
pub(crate) use load::read_overrides;
mod node;
mod suggest;
pub(crate) use suggest::nearest as nearest_word;
#[cfg(test)]
mod tests;
pub(crate) mod types;
pub(crate) mod vocab;
mod yaml11;

pub use types::*;

use std::fmt;
use std::path::{Path, PathBuf};

/// A config or usage problem: exit code 2. Rendered as
/// `file:line:column: message` and, when there is a fix, a `hint:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file it is about, if any.
    pub file: Option<PathBuf>,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// 1-based column, when known.
    pub column: Option<u64>,
    /// What is wrong (lowercase, no trailing period).
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// The other errors found in the same file, when there are any.
    pub others: Option<Box<Others>>,
}

/// The errors a [`ConfigError`] carries besides its own.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Others {
    /// In document order; with the first, at most [`MAX_ERRORS`].
    pub errors: Vec<ConfigError>,
    /// How many more were found than are kept.
    pub not_shown: usize,
}

/// The most config errors reported at once; the rest are counted.
pub(crate) const MAX_ERRORS: usize = 20;

impl ConfigError {
    /// An error with no location.
    pub fn new(message: impl Into<String>) -> Self {
        ConfigError {
            file: None,
            line: None,
            column: None,
            message: message.into(),
            hint: None,
            others: None,
        }
    }

    /// All of `errors` as one: sorted by position, the first carrying the others, at most
    /// [`MAX_ERRORS`] kept. `None` when there are none.
    pub fn all(mut errors: Vec<ConfigError>) -> Option<ConfigError> {
        errors.sort_by_key(|e| (e.line.unwrap_or(0), e.column.unwrap_or(0)));
        errors.dedup();
        let total = errors.len();
        let mut kept = errors.into_iter().take(MAX_ERRORS);
        let mut first = kept.next()?;
        let errors: Vec<ConfigError> = kept.collect();
        let not_shown = total - 1 - errors.len();
        if !errors.is_empty() {
            first.others = Some(Box::new(Others { errors, not_shown }));
        }
        Some(first)
    }

    /// The other errors this one carries, in order.
    pub fn also(&self) -> &[ConfigError] {
        self.others.as_ref().map_or(&[], |o| &o.errors)
    }

    /// The other errors this one carries, taken out of it.
    pub fn take_others(&mut self) -> Vec<ConfigError> {
        self.others.take().map(|o| o.errors).unwrap_or_default()
    }

    /// Adds a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Sets the file.
    pub fn in_file(mut self, file: &Path) -> Self {
        self.file = Some(file.to_path_buf());
        self
    }

    /// Sets line and column.
    pub fn at(mut self, line: u64, column: u64) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
                if let Some(column) = self.column {
                    write!(f, ":{column}")?;
                }
            }
            write!(f, ": ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\nhint: {hint}")?;
        }
        for other in self.also() {
            write!(f, "\nerror: {other}")?;
        }
        let not_shown = self.others.as_ref().map_or(0, |o| o.not_shown);
        if not_shown > 0 {
            let s = if not_shown == 1 { "" } else { "s" };
            write!(
                f,
                "\nerror: … and {not_shown} more error{s} (fix these and run again to see them)"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// Something the config says that loads but has no effect. Rendered like a [`ConfigError`];
/// printed on stderr as `warning: …` and listed in the JSON report's `config_warnings`.
pub(crate) type ConfigWarning = ConfigError;

#[cfg(test)]
/// Loads, validates and resolves a `toolproof.yaml`.
///
/// After loading: `${VAR}` references in `server` are replaced (their values are in
/// [`LoadedConfig::secrets`]); `base_dir` is the file's folder, absolute; a relative
/// `server.command[0]` containing `/` (`./server`), `server.cwd`, `evals.cache_dir` and a
/// relative `evals.command[0]` containing `/` are absolute, resolved from `base_dir`; a stdio
/// server without `cwd` gets `base_dir`; `tests[].line` and `evals.cases[].line` are set.
pub(crate) fn load(path: &Path) -> Result<LoadedConfig, ConfigError> {
    load::load_with_env(path, &|name: &str| std::env::var(name), None)
}

/// [`load`], with `${VAR}` looked up through `env` instead of the process environment, and
/// `evals.provider` checked against `providers` (the registry's names).
pub(crate) fn load_with(
    path: &Path,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    providers: &[&str],
) -> Result<LoadedConfig, ConfigError> {
    load::load_with_env(
        path,
        &|name: &str| env(name).ok_or(std::env::VarError::NotPresent),
        Some(providers),
    )
}

/// The config for a server given on the command line (`--url URL` or `-- COMMAND…`):
/// every key at its default, `base_dir` = `cwd`, no file (`path` is empty).
/// Exactly one of `url` and a non-empty `command` must be given.
pub(crate) fn from_target(
    url: Option<String>,
    command: Vec<String>,
    cwd: &Path,
) -> Result<LoadedConfig, ConfigError> {
    let hint = "give the server as `--url http://host:port/mcp` or as a command after `--`, e.g. `-- python server.py`";
    let mut server = ServerConfig::default();
    match (url, command.is_empty()) {
        (Some(_), false) => {
            return Err(ConfigError::new("give either --url or a command, not both").hint(hint));
        }
        (None, true) => return Err(ConfigError::new("no server given").hint(hint)),
        (Some(url), true) => {
            let lower = url.trim_start().to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                return Err(ConfigError::new(format!(
                    "--url must start with http:// or https://, got {url:?}"
                ))
                .hint(hint));
            }
            server.url = Some(url);
        }
        (None, false) => {
            if command
                .first()
                .is_none_or(|program| program.trim().is_empty())
            {
                return Err(ConfigError::new("the server command's program is empty").hint(hint));
            }
            server.command = Some(command);
        }
    }
    let target = load::target_of(&server);
    let mut config = Config {
        server,
        timeout_ms: 10_000.0,
        retries: 0,
        retry_delay_ms: 0.0,
        checks: ChecksConfig::default(),
        tests: Vec::new(),
        fuzz: None,
        bench: None,
        evals: None,
        elicitation: None,
        sampling: None,
        roots: None,
        protocol: None,
        tune: None,
    };
    let base_dir = load::absolute(cwd);
    load::resolve_paths(&mut config, &base_dir);
    Ok(LoadedConfig {
        path: PathBuf::new(),
        base_dir,
        config,
        secrets: Vec::new(),
        target,
        warnings: Vec::new(),
    })
}

/// `cwd/toolproof.yaml` when that file exists: the config used when none is named.
pub(crate) fn find_default(cwd: &Path) -> Option<PathBuf> {
    let path = cwd.join("toolproof.yaml");
    path.is_file().then_some(path)
}
