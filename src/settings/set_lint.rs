//! The set lint's settings: `toolproof lint --strict/--no-strict` > `TOOLPROOF_LINT_STRICT` >
//! `evals.lint.strict` > off; the rules `evals.lint.disable` turns off; and the history file
//! the lint reads the last recorded run from (`lint --history`, `run`/`eval --history`, else
//! `TOOLPROOF_HISTORY`).

use std::path::{Path, PathBuf};

use super::resolve::{env_switch, pick};
use super::{CommandKind, Env, Resolved};
use crate::cli::{LintArgs, switch};
use crate::config::{ConfigError, EvalConfig};

/// Everything the set lint needs besides the cases and the tool list, resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LintSettings {
    strict: Resolved<bool>,
    disable: Vec<String>,
    history: Option<PathBuf>,
}

impl LintSettings {
    /// Warnings fail the phase, and the advice rules are warnings.
    pub(crate) fn strict(&self) -> bool {
        self.strict.value
    }
    /// Rule ids turned off.
    pub(crate) fn disable(&self) -> &[String] {
        &self.disable
    }
    /// The history file to read the last recorded run from.
    pub(crate) fn history(&self) -> Option<&Path> {
        self.history.as_deref()
    }
}

/// The lint's settings for `lint`, `run` and `eval` with an `evals:` section; `None` otherwise.
/// `history` is the file `run` and `eval` record to (`--history`, `TOOLPROOF_HISTORY`).
pub(super) fn resolve(
    command: CommandKind,
    flags: Option<&LintArgs>,
    history: Option<&Path>,
    env: &Env,
    section: Option<&EvalConfig>,
) -> Result<Option<LintSettings>, ConfigError> {
    let Some(evals) = section else {
        return Ok(None);
    };
    let history = match command {
        CommandKind::Lint => flags
            .and_then(|f| f.history.clone())
            .or_else(|| env.get("TOOLPROOF_HISTORY").map(PathBuf::from)),
        CommandKind::Run | CommandKind::Eval => history.map(Path::to_path_buf),
        _ => return Ok(None),
    };
    let strict = pick(
        flags
            .and_then(|f| switch(f.strict, f.no_strict))
            .map(|on| (on, if on { "--strict" } else { "--no-strict" })),
        env_switch(env, "TOOLPROOF_LINT_STRICT")?,
        evals
            .lint
            .strict
            .then_some((true, "evals.lint.strict: true")),
        false,
    );
    Ok(Some(LintSettings {
        strict,
        disable: evals.lint.disable.clone(),
        history,
    }))
}
