//! `toolproof.yaml`: its types ([`types`]) and the one function that loads them ([`load`]).

pub mod types;

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
}

impl ConfigError {
    /// An error with no location.
    pub fn new(message: impl Into<String>) -> Self {
        ConfigError {
            file: None,
            line: None,
            column: None,
            message: message.into(),
            hint: None,
        }
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
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// Loads, validates and resolves a `toolproof.yaml`.
pub fn load(path: &Path) -> Result<LoadedConfig, ConfigError> {
    let _ = path;
    Err(ConfigError::new("config loading is not built yet"))
}

/// A config with every default for `--url URL` or `-- COMMAND`, resolved from `cwd`.
pub fn from_target(url: Option<String>, command: Vec<String>, cwd: &Path) -> LoadedConfig {
    let mut c = unimplemented_config();
    c.base_dir = cwd.to_path_buf();
    c.target = url.clone().unwrap_or_else(|| command.join(" "));
    c.config.server.url = url;
    if !command.is_empty() {
        c.config.server.command = Some(command);
    }
    c
}

/// `./toolproof.yaml` when it exists.
pub fn find_default(cwd: &Path) -> Option<PathBuf> {
    let p = cwd.join("toolproof.yaml");
    p.is_file().then_some(p)
}

fn unimplemented_config() -> LoadedConfig {
    LoadedConfig {
        path: PathBuf::new(),
        base_dir: PathBuf::new(),
        config: Config {
            server: ServerConfig {
                command: None,
                url: None,
                env: Default::default(),
                headers: Default::default(),
                cwd: None,
                startup_timeout_s: 30.0,
                protocol: ProtocolPin::Auto,
            },
            timeout_ms: 10_000.0,
            retries: 0,
            checks: ChecksConfig::default(),
            tests: Vec::new(),
            fuzz: None,
            bench: None,
            evals: None,
        },
        target: String::new(),
        secrets: Vec::new(),
    }
}
