//! `--overrides FILE` (`TOOLPROOF_OVERRIDES`): the overrides file replaces `evals.overrides`.
//! The flag wins over the variable, which wins over the YAML. A path is read from the working
//! directory, as every other path flag is.

use std::path::PathBuf;

use crate::config::{ConfigError, LoadedConfig};

use super::Env;
use super::flags::Flags;

/// Reads the overrides file the flag or the variable names into `loaded`'s `evals:` section;
/// an error when it cannot be read, or when the config has no `evals:` section to apply it to.
pub(super) fn resolve(
    flags: &Flags<'_>,
    env: &Env,
    loaded: &mut LoadedConfig,
) -> Result<(), ConfigError> {
    let Some(eval) = flags.eval else {
        return Ok(());
    };
    let Some((path, from)) = eval
        .overrides
        .clone()
        .map(|p| (p, "--overrides"))
        .or_else(|| {
            env.get("TOOLPROOF_OVERRIDES")
                .filter(|v| !v.is_empty())
                .map(|v| (PathBuf::from(v), "TOOLPROOF_OVERRIDES"))
        })
    else {
        return Ok(());
    };
    let path = if path.is_relative() {
        env.cwd().join(path)
    } else {
        path
    };
    let overrides = crate::config::read_overrides(&path)?;
    match loaded.config.evals.as_mut() {
        Some(evals) => {
            evals.overrides = overrides;
            Ok(())
        }
        None => Err(ConfigError::new(format!(
            "{from} was given, but the config has no `evals:` section to apply it to"
        ))
        .hint("overrides change the tool list the evals send; add an `evals:` section")),
    }
}
