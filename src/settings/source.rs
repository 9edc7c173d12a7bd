//! Where a command's config comes from: `CONFIG` or `-c FILE` (every command), `--url`,
//! `-- COMMAND`, `TOOLPROOF_CONFIG`, or `./toolproof.yaml`.

use std::path::PathBuf;

use super::Env;
use crate::cli::{CacheCommand, Cli, Command, ServerArgs};
use crate::config::{self, ConfigError, LoadedConfig};

/// Where the config of a command comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConfigSource {
    /// A `toolproof.yaml`.
    File(PathBuf),
    /// A server named on the command line: `--url URL` or `-- COMMAND…`, run from `cwd`.
    Target {
        /// `--url`.
        url: Option<String>,
        /// The command after `--`.
        command: Vec<String>,
        /// The folder relative paths resolve from.
        cwd: PathBuf,
    },
}

impl ConfigSource {
    /// Loads the config, expanding `${VAR}` from `env`.
    pub(crate) fn load(&self, env: &Env) -> Result<LoadedConfig, ConfigError> {
        match self {
            ConfigSource::File(path) => {
                let providers = crate::provider::registry::names();
                config::load_with(
                    path,
                    &|name: &str| env.raw(name).map(str::to_owned),
                    &providers,
                )
            }
            ConfigSource::Target { url, command, cwd } => {
                config::from_target(url.clone(), command.clone(), cwd)
            }
        }
    }
}

/// The config a command reads: `run [CONFIG]` (else `TOOLPROOF_CONFIG`, else
/// `toolproof.yaml`); the others take `--url`, `-c FILE` or `-- COMMAND`, else
/// `TOOLPROOF_CONFIG`, else `./toolproof.yaml` when it exists.
pub(crate) fn config_source(cli: &Cli, env: &Env) -> Result<ConfigSource, ConfigError> {
    let server = match &cli.command {
        Command::Run(args) => {
            let path = args
                .config
                .clone()
                .or_else(|| args.config_flag.clone())
                .or_else(|| env.get("TOOLPROOF_CONFIG").map(PathBuf::from))
                .unwrap_or_else(|| PathBuf::from("toolproof.yaml"));
            return Ok(ConfigSource::File(path));
        }
        Command::Inspect(args) => &args.server,
        Command::Session(args) => &args.server,
        Command::Lock(args) => &args.server,
        Command::Eval(args) => &args.server,
        Command::Lint(args) => &args.server,
        Command::Bench(args) => &args.server,
        Command::Fuzz(args) => &args.server,
        Command::Protocol(args) => &args.server,
        Command::Cache(CacheCommand::Status(args)) => &args.server,
        Command::Cache(CacheCommand::Prune(args)) => &args.cache.server,
        // `merge` reads reports, not a config (`crate::merge` runs before this).
        Command::Tune(args) => &args.server,
        Command::Merge(_) => {
            return Err(ConfigError::new("`merge` reads no config file"));
        }
        // `rows` finds its config itself (`crate::rows` runs before this).
        Command::Rows(_) => {
            return Err(ConfigError::new("`rows` finds its config itself"));
        }
    };
    server_source(server, env)
}

fn server_source(args: &ServerArgs, env: &Env) -> Result<ConfigSource, ConfigError> {
    let file = args.config.as_ref().or(args.file.as_ref());
    let given = usize::from(args.url.is_some())
        + usize::from(file.is_some())
        + usize::from(!args.command.is_empty());
    if given > 1 {
        return Err(ConfigError::new(
            "give only one of: a command after `--`, --url, a config file",
        )
        .hint("e.g. toolproof inspect -- node server.js"));
    }
    let cwd = env.cwd().to_path_buf();
    if let Some(path) = file {
        return Ok(ConfigSource::File(path.clone()));
    }
    if args.url.is_some() || !args.command.is_empty() {
        return Ok(ConfigSource::Target {
            url: args.url.clone(),
            command: args.command.clone(),
            cwd,
        });
    }
    if let Some(path) = env.get("TOOLPROOF_CONFIG") {
        return Ok(ConfigSource::File(PathBuf::from(path)));
    }
    config::find_default(&cwd).map(ConfigSource::File).ok_or_else(|| {
        ConfigError::new("no server given and no toolproof.yaml in this folder").hint(
            "give a command after `--`, --url, or --config, e.g. toolproof inspect -- python server.py",
        )
    })
}
