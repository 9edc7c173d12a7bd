//! The flags of `toolproof fuzz` and `toolproof protocol`.

use clap::Args;

use super::{ReportArgs, ServerArgs, ShardArg};

/// `toolproof fuzz`: the flags of mcp-toolproof's `fuzz`, each `--no-…` form a real override.
#[derive(Debug, Args)]
pub(crate) struct FuzzArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Valid and invalid inputs per tool, each (fuzz.max_examples, default 50).
    #[arg(long, value_name = "N")]
    pub examples: Option<u32>,
    /// Per-call timeout in milliseconds (fuzz.timeout_ms, default 2000).
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<f64>,
    /// Time budget per tool in seconds, shrinking included (fuzz.max_time_s, default 60).
    #[arg(long, value_name = "SECONDS")]
    pub max_time: Option<f64>,
    /// Seed of the inputs; the same seed gives the same inputs and calls (fuzz.seed, default
    /// random, printed) [env: TOOLPROOF_FUZZ_SEED].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Fuzz only this tool (repeatable; replaces fuzz.tools).
    #[arg(long = "tool", value_name = "NAME")]
    pub tools: Vec<String>,
    /// Fuzz tools that change state but say destructiveHint: false too; by default only
    /// tools marked readOnlyHint: true are fuzzed (fuzz.include_writes) [env:
    /// TOOLPROOF_FUZZ_INCLUDE_WRITES].
    #[arg(long, overrides_with = "no_include_writes")]
    pub include_writes: bool,
    /// Leave the writes alone, even if fuzz.include_writes says otherwise.
    #[arg(long, overrides_with = "include_writes")]
    pub no_include_writes: bool,
    /// Fuzz every tool: writes and those that are, or may be, destructive too
    /// (fuzz.include_destructive) [env: TOOLPROOF_FUZZ_INCLUDE_DESTRUCTIVE].
    #[arg(long, overrides_with = "no_include_destructive")]
    pub include_destructive: bool,
    /// Leave destructive tools alone, even if fuzz.include_destructive says otherwise.
    #[arg(long, overrides_with = "include_destructive")]
    pub no_include_destructive: bool,
    /// An error result for a valid input is a finding.
    #[arg(long, overrides_with = "no_valid_must_succeed")]
    pub valid_must_succeed: bool,
    /// An error result for a valid input is not a finding, even if the config says it is.
    #[arg(long, overrides_with = "valid_must_succeed")]
    pub no_valid_must_succeed: bool,
    /// A success result for an invalid input is a finding (the default).
    #[arg(long, overrides_with = "no_invalid_must_fail")]
    pub invalid_must_fail: bool,
    /// A success result for an invalid input is not a finding.
    #[arg(long, overrides_with = "invalid_must_fail")]
    pub no_invalid_must_fail: bool,
    /// Which shard.
    #[command(flatten)]
    pub shard: ShardArg,
    /// Reports.
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// `toolproof protocol`: the protocol checks, with the `protocol:` section or its defaults.
#[derive(Debug, Args)]
pub(crate) struct ProtocolArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Failed warnings fail the run too (protocol.strict).
    #[arg(long, overrides_with = "no_strict")]
    pub strict: bool,
    /// Failed warnings do not fail the run, even if protocol.strict says so.
    #[arg(long, overrides_with = "strict", hide_short_help = true)]
    pub no_strict: bool,
    /// How long a probe waits for one answer, in milliseconds (protocol.timeout_ms, default 5000).
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<f64>,
    /// Reports.
    #[command(flatten)]
    pub reports: ReportArgs,
}
