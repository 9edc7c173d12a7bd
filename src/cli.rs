//! Command-line types (clap only). Every flag that matters in CI also has a `TOOLPROOF_*`
//! environment variable; [`crate::settings::Settings::resolve`] applies flag > environment >
//! YAML > default, so clap itself reads no environment.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

mod bench;
mod fuzz;
mod lock;
mod parse;
mod rows;
mod tune;
mod unknown;

pub(crate) use bench::{BaselineArgs, BenchArgs};
pub(crate) use fuzz::{FuzzArgs, ProtocolArgs};
pub(crate) use lock::LockArgs;
pub(crate) use parse::{
    parse_args_object, parse_fraction, parse_non_negative, parse_pin, parse_positive,
    parse_seconds, parse_transport, switch,
};
pub(crate) use rows::{ImportArgs, LogFormat, RowsCommand, RowsOutput, SuggestArgs};
pub(crate) use tune::TuneArgs;
pub(crate) use unknown::explain as explain_unknown_flag;

use crate::config::{ProtocolPin, ToolChoice, TransportPref};
use crate::report::console::ColorFlag;

/// Tests MCP servers in CI: static checks, tool-call tests, tool-selection evals.
#[derive(Debug, Parser)]
#[command(
    name = "toolproof",
    version,
    about,
    after_help = "Examples:
  toolproof inspect -- node dist/index.js      what a server offers, with the static checks
  toolproof run                                every phase of ./toolproof.yaml
  toolproof run --junit junit.xml --html report.html --offline
  toolproof eval -c toolproof.yaml --model claude-haiku-4-5

Exit codes: 0 everything passed; 1 a check, test or gate failed, or the server could not be used; 2 bad config or usage; 130 interrupted (SIGINT); 143 terminated (SIGTERM)."
)]
pub(crate) struct Cli {
    /// When to colour output [env: TOOLPROOF_COLOR] [default: auto].
    #[arg(long, value_enum, global = true)]
    pub color: Option<ColorFlag>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Connect to a server and show what it offers, with the static-check findings.
    #[command(after_help = "Examples:
  toolproof inspect -- node dist/index.js
  toolproof inspect --url http://127.0.0.1:3000/mcp
  toolproof inspect -c toolproof.yaml --json > tools.json")]
    Inspect(InspectArgs),
    /// Run every phase configured in toolproof.yaml and write the reports.
    #[command(
        after_help = "Examples:
  toolproof run                                 ./toolproof.yaml, console report only
  toolproof run ci.yaml --junit junit.xml --html report.html
  toolproof run --offline --min-accuracy 0.9    replay the committed answer cache, no key
  toolproof run --skip-evals -k weather         only the tests whose name has `weather`",
        mut_arg("baseline", |a| a.hide_short_help(true)),
        mut_arg("max_regression", |a| a.hide_short_help(true)),
        mut_arg("junit_file_attrs", |a| a.hide_short_help(true)),
        mut_arg("pr_comment_file", |a| a.hide_short_help(true)),
        mut_arg("shard", |a| a.hide_short_help(true))
    )]
    Run(RunArgs),
    /// Run only the tool-selection evals (and the set lint of their cases).
    #[command(after_help = "Examples:
  toolproof eval                                the evals of ./toolproof.yaml
  toolproof eval --offline                      replay .toolproof-cache/ with no API key
  toolproof eval --provider openai --model gpt-5-mini --json evals.json
  toolproof eval --stress --html stress.html    accuracy as distractor tools are added")]
    Eval(EvalArgs),
    /// Lint the labelled eval cases against the server's tool list, with no model.
    #[command(after_help = "Examples:
  toolproof lint                                the cases of ./toolproof.yaml
  toolproof lint -c toolproof.yaml --json lint.json")]
    Lint(LintArgs),
    /// Propose new tool descriptions and keep those that improve held-out rows on every model.
    #[command(after_help = "Examples:
  toolproof tune                                rewrite the tools of the missed rows
  toolproof tune --tool get_order --candidates 5 --json tune.json
  toolproof eval --overrides toolproof-tune.yaml   replay the accepted rewrites

Exit codes: 0 the tune ran (whether or not a rewrite was accepted); 1 the evals or the rewriter could not be used; 2 bad config or usage, or a plan over --max-requests.")]
    Tune(TuneArgs),
    /// Run only the latency benchmarks.
    #[command(after_help = "Examples:
  toolproof bench --json bench.json
  toolproof bench --baseline main-bench.json --max-regression 20")]
    Bench(BenchArgs),
    /// Fuzz the server's tools with inputs generated from their input schemas.
    #[command(after_help = "Examples:
  toolproof fuzz -- node dist/index.js          inputs generated from the input schemas
  toolproof fuzz --tool search --examples 200 --seed 7

Exit codes: 0 every tool fuzzed passed; 1 a finding, the server could not be used, or nothing was fuzzed (only tools marked readOnlyHint: true are fuzzed by default: pass --include-writes or --include-destructive to fuzz the others); 2 bad config or usage; 130 interrupted (SIGINT); 143 terminated (SIGTERM).")]
    Fuzz(FuzzArgs),
    /// Check the server's protocol behaviour: lifecycle, JSON-RPC, capabilities, pagination.
    #[command(after_help = "Examples:
  toolproof protocol -- node dist/index.js
  toolproof protocol --url http://127.0.0.1:3000/mcp --junit protocol.xml")]
    Protocol(ProtocolArgs),
    /// Pin the server's tools, prompts and resources in toolproof.lock, or check it.
    #[command(after_help = "Examples:
  toolproof lock                                write ./toolproof.lock beside ./toolproof.yaml
  toolproof lock --check                        fail when the server differs from the lock

Exit codes: 0 written, or (--check) the server matches the lock; 1 the server differs (each change is listed, breaking first) or could not be used; 2 bad config or usage, or (--check) no readable lock.")]
    Lock(LockArgs),
    /// Inspect or clean the committed eval answer cache.
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Merge the JSON reports of a sharded or per-model CI matrix into one run's reports.
    #[command(after_help = "Examples:
  toolproof merge reports/*.json --junit junit.xml --html report.html
  toolproof merge shard-1.json shard-2.json --history toolproof-history.jsonl

Exit codes: 0 the merged run passed; 1 it failed (the same verdict as the run unsharded); 2 bad usage, or reports that cannot be merged (not a toolproof JSON report, different configs, versions or commands, missing or duplicated shards).")]
    Merge(MergeArgs),
    /// Propose eval rows from real traffic (import) or near misses from a model (suggest).
    #[command(
        subcommand,
        after_help = "Examples:
  toolproof rows import session.jsonl -o rows.yaml      rows from a Claude Code transcript
  toolproof rows suggest --pair get_weather,get_forecast -o near-misses.yaml"
    )]
    Rows(RowsCommand),
    /// Hold one server connection and answer tool calls as JSON lines on stdin and stdout: the
    /// client of the pytest plugin that the PyPI package ships, not a command to run by hand.
    #[command(
        hide = true,
        after_help = "The conversation: a first line {\"ready\": true, \"server\": …} (or \"ready\": false with the error, then exit 1, or 2 for a bad config), then one reply per request line, in order:
  {\"id\": 1, \"op\": \"call\", \"tool\": \"add\", \"arguments\": {\"a\": 1}, \"timeout_s\": 30}
  {\"id\": 2, \"op\": \"list_tools\"}
  {\"id\": 3, \"op\": \"close\"}      (or the end of stdin)"
    )]
    Session(SessionArgs),
}

/// Eval flags shared by `run` and `eval`.
#[derive(Debug, Args)]
pub(crate) struct EvalFlags {
    /// Ask the provider again and rewrite the cache [env: TOOLPROOF_NO_CACHE].
    #[arg(long)]
    pub no_cache: bool,
    /// Never call a model API: uncached cases are reported and fail the run (a `command`
    /// provider still runs) [env: TOOLPROOF_OFFLINE].
    #[arg(long)]
    pub offline: bool,
    /// Append this run (eval miss rates, failing checks, failed tests) to this JSON-lines file,
    /// show the trend and compare with the base branch [env: TOOLPROOF_HISTORY].
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
    /// Also run the stress curve: the cases again with distractor tools added (0, 10, 25, 50,
    /// 100) and the tool list shuffled and reversed; `evals.stress` sets the counts
    /// [env: TOOLPROOF_EVAL_STRESS].
    #[arg(long, overrides_with = "no_stress")]
    pub stress: bool,
    /// Do not run the stress curve, even if `evals.stress` or TOOLPROOF_EVAL_STRESS says to.
    #[arg(long, overrides_with = "stress", hide_short_help = true)]
    pub no_stress: bool,
    /// Send uncached requests through the provider's batch API (half the price): auto (above
    /// --batch-min requests of a model), always or never (evals.batch) [env: TOOLPROOF_BATCH].
    #[arg(long, value_name = "WHEN", value_parser = crate::config::BatchMode::parse)]
    pub batch: Option<crate::config::BatchMode>,
    /// Uncached requests of one model above which `--batch auto` batches them
    /// (evals.batch_min) [env: TOOLPROOF_BATCH_MIN].
    #[arg(long, value_name = "N", hide_short_help = true)]
    pub batch_min: Option<u32>,
    /// Seconds between two looks at a batch in progress (evals.batch_poll_s)
    /// [env: TOOLPROOF_BATCH_POLL_S].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, hide_short_help = true)]
    pub batch_poll_s: Option<f64>,
    /// Seconds to wait for the batches to end (default 7200); past it the evals end as an
    /// error and the batch keeps running for the next run to pick up (evals.batch_deadline_s)
    /// [env: TOOLPROOF_BATCH_DEADLINE_S].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, hide_short_help = true)]
    pub batch_deadline_s: Option<f64>,
    /// On SIGINT or SIGTERM, cancel the batch in progress instead of leaving it running for the
    /// next run to pick up [env: TOOLPROOF_CANCEL_BATCH].
    #[arg(long, hide_short_help = true)]
    pub cancel_batch: bool,
    /// Anthropic: send the tool list and system prompt without `cache_control`, so every
    /// request pays the full input price (evals.prompt_cache: false) [env: TOOLPROOF_PROMPT_CACHE].
    #[arg(long, overrides_with = "prompt_cache", hide_short_help = true)]
    pub no_prompt_cache: bool,
    /// Mark the tool list and system prompt for Anthropic's prompt cache (the default), even if
    /// `evals.prompt_cache: false` or TOOLPROOF_PROMPT_CACHE says not to.
    #[arg(long, overrides_with = "no_prompt_cache", hide_short_help = true)]
    pub prompt_cache: bool,
    /// Judge the evals against a base: a branch in the history file or a base run's JSON
    /// report (default: a pull request's base branch) [env: TOOLPROOF_COMPARE_TO].
    #[arg(long, value_name = "BASE")]
    pub compare_to: Option<String>,
    /// Significance level of the comparison with the base (evals.compare.alpha)
    /// [env: TOOLPROOF_COMPARE_ALPHA].
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction, hide_short_help = true)]
    pub compare_alpha: Option<f64>,
    /// The smallest accuracy drop that counts as a regression (evals.compare.min_effect)
    /// [env: TOOLPROOF_COMPARE_MIN_EFFECT].
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction, hide_short_help = true)]
    pub compare_min_effect: Option<f64>,
    /// What a regression against the base does: fail or warn (evals.compare.on_regression)
    /// [env: TOOLPROOF_ON_REGRESSION].
    #[arg(long, value_name = "POLICY", value_parser = crate::config::ComparePolicy::parse, hide_short_help = true)]
    pub on_regression: Option<crate::config::ComparePolicy>,
    /// What an inconclusive comparison does: warn or fail (evals.compare.on_inconclusive)
    /// [env: TOOLPROOF_ON_INCONCLUSIVE].
    #[arg(long, value_name = "POLICY", value_parser = crate::config::ComparePolicy::parse, hide_short_help = true)]
    pub on_inconclusive: Option<crate::config::ComparePolicy>,
    /// Send the models these descriptions instead of the server's: a YAML file holding
    /// `overrides:` as `evals.overrides` does (which it replaces), e.g. the one `toolproof tune`
    /// writes [env: TOOLPROOF_OVERRIDES].
    #[arg(long, value_name = "FILE", hide_short_help = true)]
    pub overrides: Option<PathBuf>,
    /// Print the evals' plan (cases, trials, requests, cached answers, estimated tokens and
    /// cost per model) and ask nothing [env: TOOLPROOF_DRY_RUN].
    #[arg(long)]
    pub dry_run: bool,
    /// Send at most N requests to the provider in this run; a plan over it stops before the
    /// first (evals.budget.requests) [env: TOOLPROOF_MAX_REQUESTS].
    #[arg(long, value_name = "N", hide_short_help = true)]
    pub max_requests: Option<u64>,
    /// Spend at most USD on the provider in this run, at the model's price; a plan estimated
    /// over it stops before the first request (evals.budget.usd) [env: TOOLPROOF_MAX_COST].
    #[arg(long, value_name = "USD", value_parser = parse_non_negative, hide_short_help = true)]
    pub max_cost: Option<f64>,
}

/// `--shard K/N`, on the commands whose work can be split over CI jobs.
#[derive(Debug, Args, Default)]
pub(crate) struct ShardArg {
    /// Run shard K of N: the eval cases, fuzzed tools and bench targets whose stable hash falls
    /// in it; the static checks, tool-call tests, set lint and protocol checks run in shard 1.
    /// The history and the PR comment are left to `toolproof merge` [env: TOOLPROOF_SHARD].
    #[arg(long, value_name = "K/N", value_parser = crate::shard::Shard::parse)]
    pub shard: Option<crate::shard::Shard>,
}

/// `toolproof eval`.
#[derive(Debug, Args)]
pub(crate) struct EvalArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Provider [env: TOOLPROOF_EVAL_PROVIDER].
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(crate::provider::registry::names()))]
    pub provider: Option<String>,
    /// Model [env: TOOLPROOF_EVAL_MODEL].
    #[arg(long)]
    pub model: Option<String>,
    /// Fail below this share of correct cases, 0 to 1 [env: TOOLPROOF_MIN_ACCURACY].
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction)]
    pub min_accuracy: Option<f64>,
    /// Whether the model must call a tool: auto, any (or required), none, or tool:NAME
    /// (evals.tool_choice) [env: TOOLPROOF_EVAL_TOOL_CHOICE].
    #[arg(long, value_name = "CHOICE", value_parser = ToolChoice::parse)]
    pub tool_choice: Option<ToolChoice>,
    /// Skip the set lint of the eval cases [env: TOOLPROOF_SKIP_LINT].
    #[arg(long, overrides_with = "no_skip_lint")]
    pub skip_lint: bool,
    /// Lint the eval cases even if TOOLPROOF_SKIP_LINT or `evals.lint.enabled: false` says not to.
    #[arg(long, overrides_with = "skip_lint", hide_short_help = true)]
    pub no_skip_lint: bool,
    /// Cache and history.
    #[command(flatten)]
    pub flags: EvalFlags,
    /// Which shard.
    #[command(flatten)]
    pub shard: ShardArg,
    /// Reports.
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// `toolproof lint`: the set lint of the `evals:` cases against the server's tool list.
#[derive(Debug, Args)]
pub(crate) struct LintArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Warnings fail the run too, and `missing-why` and `no-ambiguous-cases` become warnings
    /// (evals.lint.strict) [env: TOOLPROOF_LINT_STRICT].
    #[arg(long, overrides_with = "no_strict")]
    pub strict: bool,
    /// Warnings do not fail the run, even if TOOLPROOF_LINT_STRICT or evals.lint.strict says so.
    #[arg(long, overrides_with = "strict", hide_short_help = true)]
    pub no_strict: bool,
    /// Read the last recorded run from this history file (tools renamed since, pairs the model
    /// confused); lint writes nothing to it [env: TOOLPROOF_HISTORY].
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
    /// Model whose cached answers show flipped critical cases [env: TOOLPROOF_EVAL_MODEL].
    #[arg(long)]
    pub model: Option<String>,
    /// The tool choice the evals send: auto, any (or required), none, or tool:NAME
    /// (evals.tool_choice) [env: TOOLPROOF_EVAL_TOOL_CHOICE].
    #[arg(long, value_name = "CHOICE", value_parser = ToolChoice::parse)]
    pub tool_choice: Option<ToolChoice>,
    /// Reports.
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// `toolproof cache …`.
#[derive(Debug, Subcommand)]
pub(crate) enum CacheCommand {
    /// Show which eval cases have a cached answer.
    Status(CacheArgs),
    /// Remove cache files no current case can hit (shows them; --apply removes them).
    Prune(PruneArgs),
}

/// `toolproof cache status`.
#[derive(Debug, Args)]
pub(crate) struct CacheArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Model [env: TOOLPROOF_EVAL_MODEL].
    #[arg(long)]
    pub model: Option<String>,
    /// Count the stress curve's answers too (they are counted whenever `evals.stress` is on)
    /// [env: TOOLPROOF_EVAL_STRESS].
    #[arg(long)]
    pub stress: bool,
}

/// `toolproof cache prune`.
#[derive(Debug, Args)]
pub(crate) struct PruneArgs {
    /// What to compare against.
    #[command(flatten)]
    pub cache: CacheArgs,
    /// Remove the files (without it, only list them).
    #[arg(long)]
    pub apply: bool,
}

/// Which server to talk to, for commands that take one without a config file.
#[derive(Debug, Args)]
pub(crate) struct ServerArgs {
    /// Streamable HTTP endpoint of the server.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// toolproof.yaml to read the server from (default: ./toolproof.yaml when nothing else is given).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The config file, as `run` takes it (the same as -c).
    #[arg(value_name = "CONFIG", conflicts_with = "config")]
    pub file: Option<PathBuf>,
    /// Pin the protocol revision instead of detecting it [env: TOOLPROOF_PROTOCOL].
    #[arg(long, value_name = "REVISION", value_parser = parse_pin)]
    pub protocol: Option<ProtocolPin>,
    /// HTTP transport: auto, streamable-http or sse (the 2024-11-05 HTTP+SSE transport)
    /// [env: TOOLPROOF_TRANSPORT].
    #[arg(long, value_name = "TRANSPORT", value_parser = parse_transport)]
    pub transport: Option<TransportPref>,
    /// The stdio server's command line, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `toolproof inspect`.
#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print the report as JSON instead of text: the shape of `run --json`, plus `tools` (every
    /// definition as the server sent it), `resources`, `prompts` and `checks`.
    #[arg(long)]
    pub json: bool,
    /// Write the server's tools to FILE as a snapshot (its `tools/list` result with its name
    /// and version), for `evals.neighbours[].tools_file` and `evals.stress.distractors_from`.
    #[arg(long, value_name = "FILE")]
    pub save_tools: Option<PathBuf>,
}

/// `toolproof session` (hidden): the server as `inspect` takes it, or as a JSON line on stdin.
#[derive(Debug, Args)]
pub(crate) struct SessionArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Read the server from the first line of stdin instead: a JSON object with the fields of
    /// mcp-toolproof's `ServerConfig` (command or url, env, headers, cwd, startup_timeout_s).
    #[arg(long, conflicts_with_all = ["url", "config", "file", "command"])]
    pub server_on_stdin: bool,
}

/// Report destinations shared by the commands that run phases.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// Write a JUnit XML report here, `-` for stdout [env: TOOLPROOF_JUNIT].
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Add `file` and `line` to the JUnit testcases, for readers that place annotations with
    /// them (mikepenz/action-junit-report); the Jenkins xUnit plugin rejects them
    /// [env: TOOLPROOF_JUNIT_FILE_ATTRS].
    #[arg(long)]
    pub junit_file_attrs: bool,
    /// Write the JSON report here, `-` for stdout [env: TOOLPROOF_JSON].
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Append a Markdown summary here, `-` for stdout (default: $GITHUB_STEP_SUMMARY when set)
    /// [env: TOOLPROOF_SUMMARY].
    #[arg(long, alias = "markdown", value_name = "PATH")]
    pub summary: Option<PathBuf>,
    /// Do not write the Markdown summary to $GITHUB_STEP_SUMMARY [env: TOOLPROOF_NO_SUMMARY].
    #[arg(long)]
    pub no_summary: bool,
    /// Write a single-file HTML report here, `-` for stdout [env: TOOLPROOF_HTML].
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// Write a badge of the evals' accuracy here, for a README: a shields.io-style SVG
    /// (`.svg`) or a shields.io endpoint JSON (`.json`) [env: TOOLPROOF_BADGE].
    #[arg(long, value_name = "PATH")]
    pub badge: Option<PathBuf>,
    /// Post or update one comment on the pull request: off, always, on-failure, or on-change
    /// (something changed against the base branch, or the run failed); an existing comment is
    /// always updated [env: TOOLPROOF_PR_COMMENT] [default: off].
    #[arg(long, value_name = "MODE", value_parser = ["off", "always", "on-failure", "on-change"])]
    pub pr_comment: Option<String>,
    /// Write the pull-request comment's body here instead of calling the GitHub API
    /// [env: TOOLPROOF_PR_COMMENT_FILE].
    #[arg(long, value_name = "PATH")]
    pub pr_comment_file: Option<PathBuf>,
    /// Write every finding as SARIF 2.1.0 for code scanning [env: TOOLPROOF_SARIF].
    #[arg(long, value_name = "PATH")]
    pub sarif: Option<PathBuf>,
}

/// `toolproof merge`: the JSON reports of the jobs of one sharded run.
#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The JSON reports (`--json`) of the shards or per-model jobs, in any order.
    #[arg(value_name = "REPORT.json", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Append the merged run (eval miss rates, failing checks, failed tests) to this JSON-lines
    /// file, show the trend and compare with the base branch [env: TOOLPROOF_HISTORY].
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
    /// Reports of the merged run.
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// `toolproof run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The config file [env: TOOLPROOF_CONFIG] [default: toolproof.yaml].
    #[arg(conflicts_with = "config_flag")]
    pub config: Option<PathBuf>,
    /// The config file, as the other commands take it (the same as CONFIG).
    #[arg(short = 'c', long = "config", value_name = "FILE", id = "config_flag")]
    pub config_flag: Option<PathBuf>,
    /// Skip the static checks [env: TOOLPROOF_NO_CHECKS].
    #[arg(long, overrides_with = "checks")]
    pub no_checks: bool,
    /// Run the static checks even if TOOLPROOF_NO_CHECKS or `checks.enabled: false` says not to.
    #[arg(long, overrides_with = "no_checks", hide_short_help = true)]
    pub checks: bool,
    /// Warnings fail the run too [env: TOOLPROOF_STRICT].
    #[arg(long, overrides_with = "no_strict")]
    pub strict: bool,
    /// Warnings do not fail the run, even if TOOLPROOF_STRICT or `checks.strict: true` says so.
    #[arg(long, overrides_with = "strict", hide_short_help = true)]
    pub no_strict: bool,
    /// Default per-test timeout in milliseconds; a test's own `timeout_ms` still wins
    /// [env: TOOLPROOF_TIMEOUT_MS].
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<f64>,
    /// Default per-test retries; a test's own `retries` still wins [env: TOOLPROOF_RETRIES].
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
    /// Run only the tests whose name contains TEXT (case-insensitive), or `tag:NAME`;
    /// several terms separated by commas select any of them [env: TOOLPROOF_FILTER].
    #[arg(short = 'k', long = "filter", value_name = "TEXT")]
    pub filter: Option<String>,
    /// Ask only this model in the evals, whatever `evals.models` lists (a CI matrix's job per
    /// model) [env: TOOLPROOF_EVAL_MODEL].
    #[arg(long)]
    pub model: Option<String>,
    /// Fail the evals below this share of correct cases, 0 to 1 (evals.min_accuracy)
    /// [env: TOOLPROOF_MIN_ACCURACY].
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction)]
    pub min_accuracy: Option<f64>,
    /// Skip the evals phase [env: TOOLPROOF_SKIP_EVALS].
    #[arg(long, overrides_with = "no_skip_evals")]
    pub skip_evals: bool,
    /// Run the evals phase even if TOOLPROOF_SKIP_EVALS or `evals.enabled: false` says not to.
    #[arg(long, overrides_with = "skip_evals", hide_short_help = true)]
    pub no_skip_evals: bool,
    /// Skip the set lint of the eval cases [env: TOOLPROOF_SKIP_LINT].
    #[arg(long, overrides_with = "no_skip_lint")]
    pub skip_lint: bool,
    /// Lint the eval cases even if TOOLPROOF_SKIP_LINT or `evals.lint.enabled: false` says not to.
    #[arg(long, overrides_with = "skip_lint", hide_short_help = true)]
    pub no_skip_lint: bool,
    /// Skip the bench phase [env: TOOLPROOF_SKIP_BENCH].
    #[arg(long, overrides_with = "no_skip_bench")]
    pub skip_bench: bool,
    /// Run the bench phase even if TOOLPROOF_SKIP_BENCH or `bench.enabled: false` says not to.
    #[arg(long, overrides_with = "skip_bench", hide_short_help = true)]
    pub no_skip_bench: bool,
    /// Skip the fuzz phase [env: TOOLPROOF_SKIP_FUZZ].
    #[arg(long, overrides_with = "no_skip_fuzz")]
    pub skip_fuzz: bool,
    /// Run the fuzz phase even if TOOLPROOF_SKIP_FUZZ or `fuzz.enabled: false` says not to.
    #[arg(long, overrides_with = "skip_fuzz", hide_short_help = true)]
    pub no_skip_fuzz: bool,
    /// Skip the protocol phase [env: TOOLPROOF_SKIP_PROTOCOL].
    #[arg(long, overrides_with = "no_skip_protocol")]
    pub skip_protocol: bool,
    /// Run the protocol phase even if TOOLPROOF_SKIP_PROTOCOL or `protocol.enabled: false` says
    /// not to.
    #[arg(long, overrides_with = "skip_protocol", hide_short_help = true)]
    pub no_skip_protocol: bool,
    /// Fail when the server's tools, prompts or resources differ from toolproof.lock
    /// [env: TOOLPROOF_LOCKED].
    #[arg(long)]
    pub locked: bool,
    /// Cache and history of the evals.
    #[command(flatten)]
    pub evals: EvalFlags,
    /// Comparison of the bench with an earlier report.
    #[command(flatten)]
    pub baseline: BaselineArgs,
    /// Which shard.
    #[command(flatten)]
    pub shard: ShardArg,
    /// Reports.
    #[command(flatten)]
    pub reports: ReportArgs,
}

#[cfg(test)]
mod tests;
