//! toolproof tests MCP servers in CI: static checks on tool definitions, YAML tool-call tests,
//! tool-selection evals, and the reports CI systems read.
//!
//! One invocation is one straight line: parse the command line, resolve the settings once
//! ([`settings::Settings::resolve`]), decide the plan ([`plan::Plan`]), check the report
//! destinations ([`output::ReportWriter::prepare`]), execute ([`run::execute`], which
//! emits events to the live reporter and returns the report), and write the report once.

// Functions stay small enough to hold in one's head (the limit is in clippy.toml).
#![warn(clippy::too_many_lines)]
// Items are private to the crate unless the facade re-exports them.
#![warn(unreachable_pub)]

mod bench;
mod checks;
mod cli;
mod config;
mod evals;
mod events;
mod exit;
#[doc(hidden)]
pub mod facade;
mod fuzz;
mod github;
#[cfg(test)]
mod golden;
#[cfg(any(test, feature = "fuzzing"))]
mod hostile_input;
mod interrupt;
#[cfg(test)]
mod layering;
mod live;
mod mcp;
mod merge;
mod net;
mod outcome;
mod output;
mod plan;
mod process;
mod protocol;
mod provider;
mod pycompat;
mod report;
mod rng;
mod rows;
mod run;
mod session;
mod settings;
mod shard;
mod suite;
mod surface;
mod tune;

use clap::Parser;

use cli::Cli;
use config::ConfigError;
use events::Events;
use interrupt::Interrupt;
use output::{DestinationError, ReportWriter, to_stderr};
use plan::Plan;
use run::EXIT_USAGE;
use settings::{Env, Settings};

/// Runs the command line and returns the process exit code.
pub fn main_entry<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    process::withhold(provider::registry::credentials());
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            match cli::explain_unknown_flag(&e) {
                Some(text) => to_stderr(text.trim_end()),
                None => {
                    let _ = e.print();
                }
            }
            return if e.use_stderr() { EXIT_USAGE } else { 0 };
        }
    };
    let env = Env::from_process();
    if let cli::Command::Session(args) = &cli.command {
        return session::main(&cli, args, &env);
    }
    if let cli::Command::Tune(args) = &cli.command {
        return tune::main(args, &env);
    }
    if let cli::Command::Merge(args) = &cli.command {
        return merge::main(&cli, args, &env);
    }
    if let cli::Command::Lock(args) = &cli.command {
        return surface::command::main(&cli, args, &env);
    }
    if let cli::Command::Rows(command) = &cli.command {
        return rows::main(command, &env);
    }
    let (settings, writer) = match prepare(&cli, &env) {
        Ok(ready) => ready,
        Err(e) => {
            to_stderr(&format!("error: {e}"));
            if let Some(hint) = e.hint() {
                to_stderr(&format!("hint: {hint}"));
            }
            return EXIT_USAGE;
        }
    };
    let plan = Plan::new(&settings);
    let interrupt = Interrupt::new();
    if let Err(e) = interrupt.install() {
        to_stderr(&format!(
            "warning: SIGINT and SIGTERM will stop toolproof without a report: {e}"
        ));
    }
    let (events, received) = Events::channel();
    let secrets = report::redact::Redactor::new(settings.secrets());
    let live = live::Live::start(settings.outputs().live(), secrets, received);
    let report = run::execute(&settings, &plan, &events, &interrupt);
    live.finish();
    let mut delivered = writer.deliver(&report);
    if let Some(comment) = delivered.comment.take() {
        let said = output::post::comment(&comment, &report, delivered.code, &interrupt);
        delivered.say(said);
    }
    // The process exits next: freeing a report of thousands of eval cases piece by piece
    // would cost milliseconds for nothing.
    std::mem::forget(report);
    delivered.code
}

/// Why an invocation cannot start: a usage error, exit code 2.
#[derive(Debug, thiserror::Error)]
enum StartError {
    /// The command line, the environment or `toolproof.yaml` is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A report destination cannot be written.
    #[error(transparent)]
    Destination(#[from] DestinationError),
}

impl StartError {
    /// A hint printed on its own line (a [`ConfigError`] prints its own).
    fn hint(&self) -> Option<&str> {
        match self {
            StartError::Config(_) => None,
            StartError::Destination(e) => Some(e.hint()),
        }
    }
}

/// Resolves the settings and checks the report destinations: every usage error is found
/// here, before anything connects.
fn prepare(cli: &Cli, env: &Env) -> Result<(Settings, ReportWriter), StartError> {
    let source = settings::config_source(cli, env)?;
    let loaded = source.load(env)?;
    for warning in &loaded.warnings {
        to_stderr(&format!("warning: {warning}"));
    }
    let settings = Settings::resolve(cli, env, loaded)?;
    if let Some(note) = settings.bench().and_then(|b| b.note.as_deref()) {
        to_stderr(&format!("note: {note}"));
    }
    let writer = ReportWriter::prepare(settings.command(), settings.outputs())?;
    Ok((settings, writer))
}
