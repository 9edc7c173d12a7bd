//! `toolproof rows …`: proposed eval rows, from real traffic (`import`) or from a model
//! (`suggest`).

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// `toolproof rows …`.
#[derive(Debug, Subcommand)]
pub(crate) enum RowsCommand {
    /// Propose labelled rows from conversation logs: each request with the tool the model
    /// called (or none), the requests that went wrong first, with personal data redacted.
    #[command(after_help = "Examples:
  toolproof rows import ~/.claude/projects/app/*.jsonl -o rows.yaml
  toolproof rows import openai-log.jsonl --format openai --limit 50 --append
  toolproof rows import traces.json mcp-traffic.jsonl -c toolproof.yaml -o rows.yaml

Every row carries `reviewed: false`: the set lint warns on it (`unreviewed-row`) and `lint --strict` fails until someone reads it and sets `reviewed: true`.
Exit codes: 0 rows proposed (or none to propose); 1 the server could not be used; 2 bad usage, a file that cannot be read or whose format cannot be told.")]
    Import(ImportArgs),
    /// Ask a model for near-miss rows between tools that are easily confused: the
    /// similar-tools pairs, the pairs the history says the model confused, or --pair A,B.
    #[command(after_help = "Examples:
  toolproof rows suggest -o near-misses.yaml
  toolproof rows suggest --pair get_weather,get_forecast --count 5 --append
  toolproof rows suggest --history toolproof-history.jsonl --provider openai --model gpt-5-mini -o rows.yaml

The command provider is sent {\"task\": \"suggest_rows\", \"pair\": [A, B], \"tools\": [...], \"existing\": [prompts], \"n\": N} and answers {\"rows\": [{\"prompt\", \"expect_tool\", \"why\"}]}; the APIs' answers are cached in the eval cache folder.")]
    Suggest(SuggestArgs),
}

/// Where the rows go and what is done to them, shared by `import` and `suggest`.
#[derive(Debug, Args)]
pub(crate) struct RowsOutput {
    /// toolproof.yaml: the server, the existing set (`evals.cases`, `cases_file`) and the
    /// evals' provider (default: ./toolproof.yaml) [env: TOOLPROOF_CONFIG].
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Write the rows to this YAML file (default: stdout).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "PATH",
        conflicts_with = "append"
    )]
    pub output: Option<PathBuf>,
    /// Append the rows to the config's `evals.cases_file`.
    #[arg(long)]
    pub append: bool,
    /// Keep the N most useful rows: those that went wrong first, then those of the tools with
    /// the fewest rows.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Write prompts as they are, without replacing email addresses, phone and card numbers,
    /// keys and tokens.
    #[arg(long)]
    pub no_redact: bool,
}

/// `toolproof rows import`.
#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// Conversation logs: Claude Code transcripts, OpenAI or Anthropic request/response logs
    /// (JSONL), OpenTelemetry GenAI spans (OTLP JSON), MCP JSON-RPC traffic.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// The logs' format, when their content does not tell it.
    #[arg(long, value_enum)]
    pub format: Option<LogFormat>,
    /// Only `mcp__SERVER__tool` calls of this MCP server are the server's (Claude Code names
    /// tools that way); by default any name whose tool part the server lists.
    #[arg(long, value_name = "NAME")]
    pub mcp_server: Option<String>,
    /// Output, dedup and redaction.
    #[command(flatten)]
    pub out: RowsOutput,
}

/// `toolproof rows suggest`.
#[derive(Debug, Args)]
pub(crate) struct SuggestArgs {
    /// A pair of tools to ask about, `A,B` (repeatable; replaces the pairs found).
    #[arg(long, value_name = "A,B")]
    pub pair: Vec<String>,
    /// Rows asked for per pair (default 4).
    #[arg(long, value_name = "N")]
    pub count: Option<u32>,
    /// Read the confused pairs of the last run of this history file [env: TOOLPROOF_HISTORY].
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
    /// Provider [env: TOOLPROOF_EVAL_PROVIDER].
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(crate::provider::registry::names()))]
    pub provider: Option<String>,
    /// Model [env: TOOLPROOF_EVAL_MODEL].
    #[arg(long)]
    pub model: Option<String>,
    /// Ask again instead of reading the cached answer [env: TOOLPROOF_NO_CACHE].
    #[arg(long)]
    pub no_cache: bool,
    /// Never ask a provider: only cached answers [env: TOOLPROOF_OFFLINE].
    #[arg(long)]
    pub offline: bool,
    /// Output, dedup and redaction.
    #[command(flatten)]
    pub out: RowsOutput,
}

/// A log format `rows import` reads (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
    /// Claude Code session transcripts (JSONL, `~/.claude/projects/…/SESSION.jsonl`).
    ClaudeCode,
    /// OpenAI Chat Completions request/response logs (JSONL of `messages` with `tool_calls`).
    Openai,
    /// Anthropic Messages request/response logs (JSONL, `tool_use` blocks).
    Anthropic,
    /// OpenTelemetry GenAI spans exported as OTLP JSON (the `gen_ai.*` conventions).
    Otel,
    /// MCP JSON-RPC traffic (one message a line): tool calls for coverage only.
    Mcp,
}

impl LogFormat {
    /// Its name on the command line and in the summary.
    pub(crate) fn name(self) -> &'static str {
        match self {
            LogFormat::ClaudeCode => "claude-code",
            LogFormat::Openai => "openai",
            LogFormat::Anthropic => "anthropic",
            LogFormat::Otel => "otel",
            LogFormat::Mcp => "mcp",
        }
    }
}
