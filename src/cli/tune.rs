//! The flags of `toolproof tune`.

use std::path::PathBuf;

use clap::Args;

use super::{ServerArgs, parse_fraction, parse_non_negative};

/// `toolproof tune`: rewrite descriptions and keep only what held-out rows prove.
#[derive(Debug, Args)]
pub(crate) struct TuneArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Rewrite this tool (repeatable); default: the expected and picked tools of the missed
    /// rows.
    #[arg(long = "tool", value_name = "NAME")]
    pub tools: Vec<String>,
    /// Share of each expected tool's rows held out from the rewriter (every `critical` row
    /// is held out too).
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction, default_value = "0.4")]
    pub holdout: f64,
    /// New descriptions asked of the rewriter per tool.
    #[arg(long, value_name = "K", default_value = "3", value_parser = clap::value_parser!(u32).range(1..=20))]
    pub candidates: u32,
    /// Seed of the split into seen and held-out rows.
    #[arg(long, value_name = "N", default_value = "0")]
    pub seed: u64,
    /// Where to write the accepted overrides (replay them with `eval --overrides FILE`).
    #[arg(long, value_name = "FILE", default_value = "toolproof-tune.yaml")]
    pub out: PathBuf,
    /// Write the tune's JSON report here, `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Append the tune's Markdown report here, `-` for stdout (default: $GITHUB_STEP_SUMMARY
    /// when set), as `run` and `eval` do with theirs [env: TOOLPROOF_SUMMARY].
    #[arg(long, visible_alias = "markdown", value_name = "PATH")]
    pub summary: Option<PathBuf>,
    /// Do not write the Markdown report to $GITHUB_STEP_SUMMARY [env: TOOLPROOF_NO_SUMMARY].
    #[arg(long)]
    pub no_summary: bool,
    /// Write the tune's HTML report here, `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// Write the tune's JUnit XML report here, `-` for stdout: a testcase per candidate,
    /// accepted ones passed, rejected ones skipped with the reason.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Never call a model API: the evals and the rewriter are replayed from the cache (a
    /// `command` provider, whose answers are not cached, still runs).
    #[arg(long)]
    pub offline: bool,
    /// Print what the tune would ask (the evals' plan and the most the candidates need) and
    /// ask nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Send at most N requests in all (evals, rewriter and candidates); a stage whose plan
    /// goes over it stops before its first request.
    #[arg(long, value_name = "N")]
    pub max_requests: Option<u64>,
    /// Spend at most USD in all on the evals and the candidates, at the models' prices
    /// (`evals.prices`); a stage estimated over it stops before its first request. The
    /// rewriter's answers count against --max-requests only.
    #[arg(long, value_name = "USD", value_parser = parse_non_negative)]
    pub max_cost: Option<f64>,
    /// In a pull request under GitHub Actions, post each accepted rewrite as a review comment
    /// with a suggestion on the line that holds the old description (found verbatim once;
    /// else a pull-request comment with the diff). Needs GITHUB_TOKEN, as --pr-comment does.
    #[arg(long)]
    pub suggest: bool,
}
