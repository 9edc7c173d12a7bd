//! The protocol phase's settings: `toolproof protocol` flags > the `protocol:` section > the
//! defaults. `run` has them only when the config has a `protocol:` section.

use std::time::Duration;

use super::CommandKind;
use super::resolve::checked_timeout_ms;
use crate::cli::{ProtocolArgs, switch};
use crate::config::{ConfigError, ProtocolConfig, limits};

/// Everything the protocol phase needs, resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProtocolSettings {
    strict: bool,
    disable: Vec<String>,
    timeout: Duration,
}

impl ProtocolSettings {
    /// Failed warnings fail the phase.
    pub(crate) fn strict(&self) -> bool {
        self.strict
    }
    /// Check ids turned off.
    pub(crate) fn disable(&self) -> &[String] {
        &self.disable
    }
    /// How long a probe waits for one answer.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// The settings of `protocol` (the section or its defaults) and of `run` (with a `protocol:`
/// section); `None` otherwise.
pub(super) fn resolve(
    command: CommandKind,
    flags: Option<&ProtocolArgs>,
    section: Option<&ProtocolConfig>,
) -> Result<Option<ProtocolSettings>, ConfigError> {
    let cfg = match (command, section) {
        (CommandKind::Protocol, s) => s.cloned().unwrap_or_default(),
        (CommandKind::Run, Some(s)) => s.clone(),
        _ => return Ok(None),
    };
    let timeout_ms = checked_timeout_ms(
        flags.and_then(|f| f.timeout_ms).unwrap_or(cfg.timeout_ms),
        "--timeout-ms / protocol.timeout_ms",
    )?;
    Ok(Some(ProtocolSettings {
        strict: flags
            .and_then(|f| switch(f.strict, f.no_strict))
            .unwrap_or(cfg.strict),
        disable: cfg.disable,
        timeout: limits::millis(timeout_ms),
    }))
}
