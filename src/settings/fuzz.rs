//! The fuzz phase's settings: `toolproof fuzz` flags > `TOOLPROOF_FUZZ_SEED`,
//! `TOOLPROOF_FUZZ_INCLUDE_WRITES` and `TOOLPROOF_FUZZ_INCLUDE_DESTRUCTIVE` > the `fuzz:`
//! section > the defaults. A seed nobody set is drawn here, once, so the report can print it.

use std::time::Duration;

use super::resolve::{checked_timeout_ms, env_switch, env_value, pick};
use super::{CommandKind, Env, Resolved};
use crate::cli::{FuzzArgs, switch};
use crate::config::{ConfigError, FuzzConfig, limits};

/// Everything the fuzz phase needs, resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FuzzSettings {
    max_examples: u32,
    timeout: Duration,
    max_time: Duration,
    seed: Resolved<u64>,
    tools: Vec<String>,
    skip: Vec<String>,
    include_writes: bool,
    include_destructive: bool,
    valid_must_succeed: bool,
    invalid_must_fail: bool,
    nothing_fuzzed_fails: bool,
    /// The shard of this run: only its tools are fuzzed.
    pub(super) shard: Option<crate::shard::Shard>,
}

impl FuzzSettings {
    /// Valid (and invalid) inputs per tool.
    pub(crate) fn max_examples(&self) -> u32 {
        self.max_examples
    }
    /// Per-call timeout.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }
    /// Time budget per tool.
    pub(crate) fn max_time(&self) -> Duration {
        self.max_time
    }
    /// The seed.
    pub(crate) fn seed(&self) -> u64 {
        self.seed.value
    }
    /// Only these tools (empty: all).
    pub(crate) fn tools(&self) -> &[String] {
        &self.tools
    }
    /// Tools left out.
    pub(crate) fn skip(&self) -> &[String] {
        &self.skip
    }
    /// Fuzz the tools that change state but say they are not destructive
    /// (`destructiveHint: false`) too; implied by [`FuzzSettings::include_destructive`].
    pub(crate) fn include_writes(&self) -> bool {
        self.include_writes || self.include_destructive
    }
    /// Fuzz every tool: those that are, or may be, destructive too.
    pub(crate) fn include_destructive(&self) -> bool {
        self.include_destructive
    }
    /// An error result for a valid input is a finding.
    pub(crate) fn valid_must_succeed(&self) -> bool {
        self.valid_must_succeed
    }
    /// A success result for an invalid input is a finding.
    pub(crate) fn invalid_must_fail(&self) -> bool {
        self.invalid_must_fail
    }
    /// A phase that fuzzed no tool is an error (`toolproof fuzz`), not a skip with a warning
    /// (`run`).
    pub(crate) fn nothing_fuzzed_fails(&self) -> bool {
        self.nothing_fuzzed_fails
    }
    /// The shard of this run, when it is one of several: only its tools are fuzzed.
    pub(crate) fn shard(&self) -> Option<crate::shard::Shard> {
        self.shard
    }
}

/// The fuzz settings of `fuzz` (the section or its defaults) and of `run` (when the config
/// has a `fuzz:` section); `None` otherwise.
pub(super) fn resolve(
    command: CommandKind,
    flags: Option<&FuzzArgs>,
    env: &Env,
    section: Option<&FuzzConfig>,
) -> Result<Option<FuzzSettings>, ConfigError> {
    let cfg = match (command, section) {
        (CommandKind::Fuzz, s) => s.cloned().unwrap_or_default(),
        (CommandKind::Run, Some(s)) => s.clone(),
        _ => return Ok(None),
    };
    let max_examples = flags.and_then(|f| f.examples).unwrap_or(cfg.max_examples);
    let timeout_ms = flags.and_then(|f| f.timeout_ms).unwrap_or(cfg.timeout_ms);
    let max_time_s = flags.and_then(|f| f.max_time).unwrap_or(cfg.max_time_s);
    check(
        max_examples >= 1,
        "--examples / fuzz.max_examples must be at least 1",
    )?;
    let timeout_ms = checked_timeout_ms(timeout_ms, "--timeout-ms / fuzz.timeout_ms")?;
    check(
        max_time_s > 0.0 && max_time_s <= limits::MAX_DURATION_MS / 1000.0,
        &format!(
            "--max-time / fuzz.max_time_s must be a number of seconds above 0, got {max_time_s}"
        ),
    )?;
    let seed = pick(
        flags.and_then(|f| f.seed).map(|s| (s, "--seed")),
        env_value(env, "TOOLPROOF_FUZZ_SEED", |s| {
            s.parse::<u64>()
                .map_err(|_| format!("must be a whole number, got `{s}`"))
        })?,
        cfg.seed.map(|s| (s, "fuzz.seed")),
        fresh_seed(),
    );
    let tools = match flags.map(|f| &f.tools) {
        Some(t) if !t.is_empty() => t.clone(),
        _ => cfg.tools.clone(),
    };
    let f = flags;
    let include_writes = pick(
        f.and_then(|f| switch(f.include_writes, f.no_include_writes))
            .map(|v| (v, "--include-writes")),
        env_switch(env, "TOOLPROOF_FUZZ_INCLUDE_WRITES")?,
        Some((cfg.include_writes, "fuzz.include_writes")),
        false,
    )
    .value;
    let include_destructive = pick(
        f.and_then(|f| switch(f.include_destructive, f.no_include_destructive))
            .map(|v| (v, "--include-destructive")),
        env_switch(env, "TOOLPROOF_FUZZ_INCLUDE_DESTRUCTIVE")?,
        Some((cfg.include_destructive, "fuzz.include_destructive")),
        false,
    )
    .value;
    Ok(Some(FuzzSettings {
        max_examples,
        timeout: limits::millis(timeout_ms),
        max_time: limits::seconds(max_time_s),
        seed,
        tools,
        skip: cfg.skip.clone(),
        include_writes,
        include_destructive,
        valid_must_succeed: f
            .and_then(|f| switch(f.valid_must_succeed, f.no_valid_must_succeed))
            .unwrap_or(cfg.valid_must_succeed),
        invalid_must_fail: f
            .and_then(|f| switch(f.invalid_must_fail, f.no_invalid_must_fail))
            .unwrap_or(cfg.invalid_must_fail),
        nothing_fuzzed_fails: command == CommandKind::Fuzz,
        shard: None,
    }))
}

fn check(ok: bool, message: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::new(message.to_owned()))
    }
}

/// A seed below 1,000,000 (short enough to type back), from the clock and the process id.
fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut r = crate::rng::Rng::new(nanos ^ (u64::from(std::process::id()) << 32));
    r.below(1_000_000)
}
