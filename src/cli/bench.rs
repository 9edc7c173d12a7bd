//! The flags of `toolproof bench`, and the baseline comparison `run` shares with it.

use std::path::PathBuf;

use clap::Args;

use super::{
    ReportArgs, ServerArgs, ShardArg, parse_args_object, parse_fraction, parse_non_negative,
    parse_positive,
};

/// `--baseline` and `--max-regression`, shared by `run` and `bench`.
#[derive(Debug, Args)]
pub(crate) struct BaselineArgs {
    /// Compare the bench with this earlier JSON report (`--json`) and fail a target whose p95
    /// grew by more than --max-regression [env: TOOLPROOF_BASELINE].
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Largest p95 increase over the baseline that still passes, in percent
    /// [env: TOOLPROOF_MAX_REGRESSION] [default: 10].
    #[arg(long, value_name = "PCT", value_parser = parse_non_negative)]
    pub max_regression: Option<f64>,
}

/// `toolproof bench`.
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Benchmark only this tool (replaces the config's targets).
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// Arguments for --tool, as a JSON object.
    #[arg(long, value_name = "JSON", value_parser = parse_args_object)]
    pub args: Option<serde_json::Map<String, serde_json::Value>>,
    /// Measured calls per target.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub calls: Option<u32>,
    /// Requests in flight at once on each connection (lowered to --calls when above it;
    /// concurrency × connections at most 1000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: Option<u32>,
    /// Separate sessions (server processes for stdio) to spread the calls over (lowered to
    /// --calls when above it; at most 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub connections: Option<u32>,
    /// Unmeasured calls before each target.
    #[arg(long, value_name = "N")]
    pub warmup: Option<u32>,
    /// Per-call timeout in milliseconds.
    #[arg(long, value_name = "MS", value_parser = parse_positive)]
    pub timeout_ms: Option<f64>,
    /// Fail a target whose p50 is over this many milliseconds.
    #[arg(long, value_name = "MS", value_parser = parse_positive)]
    pub p50_ms: Option<f64>,
    /// Fail a target whose p95 is over this many milliseconds.
    #[arg(long, value_name = "MS", value_parser = parse_positive)]
    pub p95_ms: Option<f64>,
    /// Fail a target whose p99 is over this many milliseconds.
    #[arg(long, value_name = "MS", value_parser = parse_positive)]
    pub p99_ms: Option<f64>,
    /// Fail a target whose share of failed calls is over this, 0 to 1 [default: 0].
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction)]
    pub max_error_rate: Option<f64>,
    /// Fail a target that completes fewer calls per second.
    #[arg(long, value_name = "CALLS_PER_S", value_parser = parse_non_negative)]
    pub min_throughput: Option<f64>,
    /// Comparison with an earlier report.
    #[command(flatten)]
    pub baseline: BaselineArgs,
    /// Which shard.
    #[command(flatten)]
    pub shard: ShardArg,
    /// Reports.
    #[command(flatten)]
    pub reports: ReportArgs,
}
