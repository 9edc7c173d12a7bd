//! The settings of `toolproof merge`: the report destinations of the merged run (the flags and
//! `TOOLPROOF_*` variables of `run`), the history file, the commit the CI environment names,
//! and the values to redact. There is no config file to read: the reports carry the run.

use std::path::PathBuf;

use super::resolve::command_of;
use super::{Env, Outputs, Revision};
use crate::cli::{Cli, Command};
use crate::config::ConfigError;

/// What `merge` writes, and where.
#[derive(Debug, Clone)]
pub(crate) struct MergeSettings {
    outputs: Outputs,
    revision: Revision,
    secrets: Vec<String>,
}

impl MergeSettings {
    /// Resolves the destinations of `merge` (flag > environment > default), as `run` does.
    pub(crate) fn resolve(cli: &Cli, env: &Env) -> Result<MergeSettings, ConfigError> {
        let (command, flags) = command_of(cli);
        let mut outputs = super::outputs::resolve_outputs(cli, command, &flags, env)?;
        if let Command::Merge(args) = &cli.command {
            outputs.history = args
                .history
                .clone()
                .or_else(|| env.get("TOOLPROOF_HISTORY").map(PathBuf::from));
        }
        Ok(MergeSettings {
            outputs,
            revision: Revision::from_env(env),
            secrets: super::secrets::resolve(env, &[]),
        })
    }

    /// Sets the repository paths of the files the merged report names (annotations, JUnit
    /// `file` attributes).
    pub(crate) fn locate(&mut self, files: &[String], env: &Env) {
        self.outputs.places = super::workspace::places_of(files, env, env.cwd());
    }

    /// The report destinations.
    pub(crate) fn outputs(&self) -> &Outputs {
        &self.outputs
    }

    /// Commit and ref from the CI environment.
    pub(crate) fn revision(&self) -> &Revision {
        &self.revision
    }

    /// Values never to be written anywhere (the provider credentials and the GitHub token of
    /// the environment).
    pub(crate) fn secrets(&self) -> &[String] {
        &self.secrets
    }
}
