//! The flags of each command, gathered into one [`Flags`] whatever the command, for the
//! resolver (`super::resolve`).

use crate::cli::{CacheCommand, Cli, Command, EvalArgs, EvalFlags, ReportArgs, ServerArgs};

use super::CommandKind;

/// The flags of one command, as the resolver needs them whatever the command.
#[derive(Default)]
pub(super) struct Flags<'a> {
    pub(super) reports: Option<&'a ReportArgs>,
    pub(super) eval: Option<&'a EvalFlags>,
    pub(super) eval_args: Option<&'a EvalArgs>,
    pub(super) server: Option<&'a ServerArgs>,
    pub(super) model: Option<&'a str>,
    pub(super) run: Option<&'a crate::cli::RunArgs>,
    pub(super) bench: Option<&'a crate::cli::BenchArgs>,
    pub(super) baseline: Option<&'a crate::cli::BaselineArgs>,
    pub(super) fuzz: Option<&'a crate::cli::FuzzArgs>,
    pub(super) protocol: Option<&'a crate::cli::ProtocolArgs>,
    /// A cache command: `Some(--stress)`.
    pub(super) cache_stress: Option<bool>,
    pub(super) lint: Option<&'a crate::cli::LintArgs>,
    pub(super) shard: Option<&'a crate::cli::ShardArg>,
    /// `inspect --save-tools FILE`.
    pub(super) save_tools: Option<&'a std::path::Path>,
}

/// The flags of a command that has only the server's.
fn server_only(server: &ServerArgs) -> Flags<'_> {
    Flags {
        server: Some(server),
        ..Flags::default()
    }
}

/// The command and its flags. A session connects as `inspect` does and runs no phase (see
/// `crate::session`).
pub(super) fn command_of(cli: &Cli) -> (CommandKind, Flags<'_>) {
    match &cli.command {
        Command::Inspect(a) => (
            CommandKind::Inspect { json: a.json },
            Flags {
                save_tools: a.save_tools.as_deref(),
                ..server_only(&a.server)
            },
        ),
        Command::Session(a) => (CommandKind::Inspect { json: false }, server_only(&a.server)),
        Command::Lock(a) => (CommandKind::Inspect { json: false }, server_only(&a.server)),
        Command::Run(a) => (
            CommandKind::Run,
            Flags {
                reports: Some(&a.reports),
                eval: Some(&a.evals),
                run: Some(a),
                model: a.model.as_deref(),
                baseline: Some(&a.baseline),
                shard: Some(&a.shard),
                ..Flags::default()
            },
        ),
        Command::Bench(a) => (
            CommandKind::Bench,
            Flags {
                reports: Some(&a.reports),
                server: Some(&a.server),
                bench: Some(a),
                baseline: Some(&a.baseline),
                shard: Some(&a.shard),
                ..Flags::default()
            },
        ),
        Command::Eval(a) => (
            CommandKind::Eval,
            Flags {
                reports: Some(&a.reports),
                eval: Some(&a.flags),
                eval_args: Some(a),
                server: Some(&a.server),
                model: a.model.as_deref(),
                shard: Some(&a.shard),
                ..Flags::default()
            },
        ),
        Command::Lint(a) => (
            CommandKind::Lint,
            Flags {
                reports: Some(&a.reports),
                server: Some(&a.server),
                model: a.model.as_deref(),
                lint: Some(a),
                ..Flags::default()
            },
        ),
        Command::Fuzz(a) => (
            CommandKind::Fuzz,
            Flags {
                reports: Some(&a.reports),
                server: Some(&a.server),
                fuzz: Some(a),
                shard: Some(&a.shard),
                ..Flags::default()
            },
        ),
        Command::Protocol(a) => (
            CommandKind::Protocol,
            Flags {
                reports: Some(&a.reports),
                server: Some(&a.server),
                protocol: Some(a),
                ..Flags::default()
            },
        ),
        Command::Cache(c) => cache_command(c),
        Command::Merge(a) => merge_command(a),
        // `tune` resolves its settings as the `eval` it runs (`crate::tune`).
        Command::Tune(a) => (CommandKind::Eval, server_only(&a.server)),
        // `rows` resolves no settings (see `crate::rows`).
        Command::Rows(_) => (CommandKind::Inspect { json: false }, Flags::default()),
    }
}

/// `merge` runs no phase: only its report destinations are resolved (`MergeSettings`), as
/// those of `run`.
fn merge_command(a: &crate::cli::MergeArgs) -> (CommandKind, Flags<'_>) {
    (
        CommandKind::Run,
        Flags {
            reports: Some(&a.reports),
            ..Flags::default()
        },
    )
}

fn cache_command(c: &CacheCommand) -> (CommandKind, Flags<'_>) {
    match c {
        CacheCommand::Status(a) => (
            CommandKind::CacheStatus,
            Flags {
                server: Some(&a.server),
                model: a.model.as_deref(),
                cache_stress: Some(a.stress),
                ..Flags::default()
            },
        ),
        CacheCommand::Prune(a) => (
            CommandKind::CachePrune { apply: a.apply },
            Flags {
                server: Some(&a.cache.server),
                model: a.cache.model.as_deref(),
                cache_stress: Some(a.cache.stress),
                ..Flags::default()
            },
        ),
    }
}
