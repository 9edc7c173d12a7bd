//! `toolproof tune`: description rewrites proven on rows they were not written for.
//!
//! One straight line: resolve the settings as the `eval` it runs, connect and list the tools,
//! run (or replay) the evals, pick the tools to rewrite, split the labelled rows into those
//! the rewriter may see and those it never sees ([`split`]), ask the rewriter for candidates
//! ([`rewriter`]), judge each on the held-out rows of every model ([`judge`]), check the
//! accepted ones together, write the overrides file and the reports ([`report`]).
//! `docs/tuning.md` explains the method.

mod judge;
mod report;
mod rewriter;
mod run;
mod split;
mod stage;
mod suggest;

use std::ffi::OsString;

use crate::cli::{Cli, Command, TuneArgs};
use crate::config::ConfigError;
use crate::exit::{EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use crate::interrupt::Interrupt;
use crate::output::to_stderr;
use crate::settings::{Env, Settings};

/// A renderer of the tune's report.
type Render = fn(&report::TuneReport) -> String;

/// Why a tune stopped before its report.
#[derive(Debug)]
pub(crate) enum Stop {
    /// Bad config or usage (exit 2): the message and its hint.
    Usage(String, Option<String>),
    /// The server, the evals or the rewriter could not be used (exit 1).
    Failed(String),
}

/// Runs `toolproof tune` and returns the exit code.
pub(crate) fn main(args: &TuneArgs, env: &Env) -> i32 {
    let settings = match prepare(args, env) {
        Ok(s) => s,
        Err(e) => {
            to_stderr(&format!("error: {e}"));
            return EXIT_USAGE;
        }
    };
    let interrupt = Interrupt::new();
    let _ = interrupt.install();
    let secrets = crate::report::redact::Redactor::new(settings.secrets());
    let report = match run::tune(&settings, args, &interrupt) {
        Ok(r) => r,
        Err(stop) => {
            let (message, hint, code) = match stop {
                Stop::Usage(message, hint) => (message, hint, EXIT_USAGE),
                Stop::Failed(message) => (message, None, EXIT_FAILED),
            };
            // The reports are written all the same, saying why the tune stopped.
            let stopped = report::TuneReport {
                error: Some(message.clone()),
                ..report::TuneReport::default()
            };
            write_reports(args, &settings, &stopped, &secrets);
            to_stderr(&secrets.apply(&format!("error: {message}")));
            if let Some(hint) = hint {
                to_stderr(&format!("hint: {hint}"));
            }
            return code;
        }
    };
    let (mut code, stdout_taken) = write_reports(args, &settings, &report, &secrets);
    if args.suggest && report.dry_run.is_none() {
        let root = std::env::var_os("GITHUB_WORKSPACE").map_or_else(
            || settings.env().cwd().to_path_buf(),
            std::path::PathBuf::from,
        );
        suggest::post(
            &report,
            settings.outputs().github().pr_comment(),
            &root,
            &interrupt,
        );
    }
    let console = secrets.apply(&report::console(&report)).into_owned();
    if stdout_taken {
        eprint!("{console}");
    } else {
        print!("{console}");
    }
    // The rewriter could not be used for some tool: the run says so in its exit code too.
    if !report.errors().is_empty() {
        code = EXIT_FAILED;
    }
    code
}

/// Writes the report files (`--json`, `--html`, `--junit`, and the Markdown summary); returns
/// the exit code so far and whether a report took stdout (then the console goes to stderr).
fn write_reports(
    args: &TuneArgs,
    settings: &Settings,
    report: &report::TuneReport,
    secrets: &crate::report::redact::Redactor,
) -> (i32, bool) {
    let outputs: [(&Option<std::path::PathBuf>, Render); 3] = [
        (&args.json, |r| {
            serde_json::to_string_pretty(r).unwrap_or_default() + "\n"
        }),
        (&args.html, report::html),
        (&args.junit, report::junit),
    ];
    let mut code = EXIT_OK;
    let mut stdout_taken = false;
    // The Markdown report is appended, as a job summary is: to --summary, else to
    // $GITHUB_STEP_SUMMARY unless --no-summary.
    if let Some(target) = settings.outputs().summary() {
        let text = secrets.apply(&report::markdown(report)).into_owned();
        match target {
            crate::settings::Target::Stdout => {
                stdout_taken = true;
                print!("{text}");
            }
            crate::settings::Target::Path(path) => {
                if let Err(e) = crate::report::write::append_summary(path, &text) {
                    to_stderr(&format!("error: {e}"));
                    code = EXIT_FAILED;
                }
            }
        }
    }
    for (path, render) in outputs {
        let Some(path) = path else { continue };
        let text = secrets.apply(&render(report)).into_owned();
        if path.as_os_str() == "-" {
            stdout_taken = true;
            print!("{text}");
        } else if let Err(e) = crate::report::write::write_atomic(path, text.as_bytes()) {
            to_stderr(&format!("error: {e}"));
            code = EXIT_FAILED;
        }
    }
    (code, stdout_taken)
}

/// The settings of the `eval` the tune runs: the tune's server flags, its `--offline`,
/// `--dry-run`, budget and summary flags, no lint, no stress curve.
fn prepare(args: &TuneArgs, env: &Env) -> Result<Settings, ConfigError> {
    let argv: Vec<OsString> = ["toolproof", "eval", "--skip-lint", "--no-stress"]
        .into_iter()
        .map(OsString::from)
        .collect();
    let mut cli = <Cli as clap::Parser>::try_parse_from(argv)
        .map_err(|e| ConfigError::new(format!("internal error: {e}")))?;
    if let Command::Eval(e) = &mut cli.command {
        e.server.url = args.server.url.clone();
        e.server.config = args.server.config.clone();
        e.server.file = args.server.file.clone();
        e.server.protocol = args.server.protocol;
        e.server.transport = args.server.transport;
        e.server.command = args.server.command.clone();
        e.flags.offline = args.offline;
        e.flags.dry_run = args.dry_run;
        e.flags.max_requests = args.max_requests;
        e.flags.max_cost = args.max_cost;
        e.reports.summary = args.summary.clone();
        e.reports.no_summary = args.no_summary;
    }
    let source = crate::settings::config_source(&cli, env)?;
    let loaded = source.load(env)?;
    for warning in &loaded.warnings {
        to_stderr(&format!("warning: {warning}"));
    }
    Settings::resolve(&cli, env, loaded)
}
