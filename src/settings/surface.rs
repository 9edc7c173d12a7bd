//! The surface phase's settings: where `toolproof.lock` is and whether drift from it fails
//! the run (`--locked`, `TOOLPROOF_LOCKED`).

use std::path::PathBuf;

use super::{Env, Settings};
use crate::config::{ConfigError, LoadedConfig};

/// The lock's file name, beside the config.
pub(crate) const LOCK_FILE: &str = "toolproof.lock";

/// Where the lock is and what drift does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SurfaceSettings {
    /// The lock file to read or write, absolute.
    pub(crate) path: PathBuf,
    /// The lock file as reports name it (beside the config as the user named it).
    pub(crate) shown: String,
    /// `--locked`: a difference from the lock (or no lock) fails the run.
    pub(crate) locked: bool,
}

/// The lock beside the config (in the working folder without one); `--locked` or
/// `TOOLPROOF_LOCKED`.
pub(super) fn resolve(
    locked_flag: bool,
    env: &Env,
    loaded: &LoadedConfig,
) -> Result<SurfaceSettings, ConfigError> {
    let name = LOCK_FILE;
    let shown = if loaded.path.as_os_str().is_empty() {
        PathBuf::from(name)
    } else {
        let beside = loaded.path.with_file_name(name);
        // A config found in the working folder is named from there.
        beside
            .strip_prefix(env.cwd())
            .map(std::path::Path::to_path_buf)
            .unwrap_or(beside)
    };
    Ok(SurfaceSettings {
        path: loaded.base_dir.join(name),
        shown: shown.display().to_string(),
        locked: locked_flag || env.switch("TOOLPROOF_LOCKED")?.unwrap_or(false),
    })
}

impl super::Outputs {
    /// `--sarif`.
    pub(crate) fn sarif(&self) -> Option<&super::Target> {
        self.sarif.as_ref()
    }
}

impl Settings {
    /// Where `toolproof.lock` is and whether drift fails the run.
    pub(crate) fn surface(&self) -> &SurfaceSettings {
        &self.surface
    }
}
