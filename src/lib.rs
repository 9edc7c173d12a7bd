//! toolproof tests MCP servers in CI: static checks on tool definitions, YAML tool-call tests,
//! tool-selection evals, and the reports CI systems read.

pub mod cachecmd;
pub mod checks;
pub mod cli;
pub mod config;
pub mod evals;
pub mod inspect;
pub mod mcp;
pub mod report;
pub mod run;
pub mod suite;

use std::path::PathBuf;

use clap::Parser;

use cli::{Cli, Command, EvalArgs, InspectArgs, RunArgs, ServerArgs};
use config::{ConfigError, LoadedConfig};
use run::{EXIT_USAGE, Outputs, Plan};

/// Runs the command line and returns the process exit code.
pub fn main_entry<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { 0 };
        }
    };
    let color = run::use_color(cli.color);
    match cli.command {
        Command::Inspect(args) => inspect_cmd(args),
        Command::Run(args) => run_cmd(args, color),
        Command::Eval(args) => eval_cmd(args, color),
        Command::Cache(cmd) => cachecmd::run(cmd),
    }
}

/// Resolves `--url`, `-c` or `-- COMMAND` (or ./toolproof.yaml) into a config.
pub fn resolve_server(args: &ServerArgs) -> Result<LoadedConfig, ConfigError> {
    let given = usize::from(args.url.is_some())
        + usize::from(args.config.is_some())
        + usize::from(!args.command.is_empty());
    if given > 1 {
        return Err(
            ConfigError::new("give only one of: a command after `--`, --url, --config")
                .hint("e.g. toolproof inspect -- node server.js"),
        );
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let mut loaded = if let Some(path) = &args.config {
        config::load(path)?
    } else if args.url.is_some() || !args.command.is_empty() {
        config::from_target(args.url.clone(), args.command.clone(), &cwd)?
    } else if let Some(path) = config::find_default(&cwd) {
        config::load(&path)?
    } else {
        return Err(ConfigError::new(
            "no server given and no toolproof.yaml in this folder",
        )
        .hint("give a command after `--`, --url, or --config, e.g. toolproof inspect -- python server.py"));
    };
    if let Some(pin) = args.protocol {
        loaded.config.server.protocol = pin;
    }
    Ok(loaded)
}

fn inspect_cmd(args: InspectArgs) -> i32 {
    let loaded = match resolve_server(&args.server) {
        Ok(l) => l,
        Err(e) => return run::usage_error(&e),
    };
    let plan = Plan {
        command: "inspect".into(),
        checks: true,
        strict: false,
        inventory: true,
        skip_evals: true,
        skip_bench: true,
        skip_fuzz: true,
        evals: Default::default(),
        history: None,
        filter: None,
    };
    let mut report = run::execute(&loaded, &plan);
    // inspect runs no tests or evals: say so rather than echo the config's phases.
    let p = &mut report.phases;
    set_reasons(
        [
            &mut p.tests.reason,
            &mut p.evals.reason,
            &mut p.bench.reason,
            &mut p.fuzz.reason,
        ],
        "inspect runs only the static checks",
    );
    report.phases.tests.status = report::model::PhaseStatus::Skipped;
    let text = if args.json {
        report::json::render(&report)
    } else {
        inspect::render(&report.redacted())
    };
    print!("{text}");
    report.exit_code
}

fn run_cmd(args: RunArgs, color: bool) -> i32 {
    let mut loaded = match config::load(&args.config) {
        Ok(l) => l,
        Err(e) => return run::usage_error(&e),
    };
    if let Some(ms) = args.timeout_ms {
        if ms.is_nan() || ms <= 0.0 {
            return run::usage_error(&ConfigError::new(format!(
                "--timeout-ms must be above 0, got {ms}"
            )));
        }
        loaded.config.timeout_ms = ms;
    }
    if let Some(r) = args.retries {
        loaded.config.retries = r;
    }
    if let Some(filter) = &args.filter
        && suite::select(&loaded.config.tests, Some(filter)).is_empty()
    {
        return run::usage_error(
            &ConfigError::new(format!(
                "--filter `{filter}` selects none of the {} tests",
                loaded.config.tests.len()
            ))
            .hint("match part of a test name (case-insensitive) or `tag:NAME`; separate several with commas"),
        );
    }
    let plan = Plan {
        command: "run".into(),
        checks: !args.no_checks,
        strict: args.strict,
        inventory: false,
        skip_evals: args.skip_evals,
        skip_bench: args.skip_bench,
        skip_fuzz: args.skip_fuzz,
        evals: evals::engine::Overrides {
            no_cache: args.evals.no_cache,
            offline: args.evals.offline,
            ..Default::default()
        },
        history: args.evals.history,
        filter: args.filter,
    };
    let outputs = outputs(args.reports, color);
    let report = run::execute(&loaded, &plan);
    run::deliver(&report, &outputs)
}

fn eval_cmd(args: EvalArgs, color: bool) -> i32 {
    let mut loaded = match resolve_server(&args.server) {
        Ok(l) => l,
        Err(e) => return run::usage_error(&e),
    };
    let cases = loaded.config.evals.as_ref().map_or(0, |e| e.cases.len());
    if cases == 0 {
        return run::usage_error(
            &ConfigError::new("no eval cases").hint(
                "add an `evals:` section with `cases:` (or `cases_file:`) to the config, and pass it with -c",
            ),
        );
    }
    if let Some(evals) = &mut loaded.config.evals {
        // `eval` runs the section even when `enabled: false` keeps it out of `run`.
        evals.enabled = true;
    }
    loaded.config.tests.clear();
    loaded.config.bench = None;
    loaded.config.fuzz = None;
    let plan = Plan {
        command: "eval".into(),
        checks: false,
        strict: false,
        inventory: false,
        skip_evals: false,
        skip_bench: true,
        skip_fuzz: true,
        evals: evals::engine::Overrides {
            provider: args.provider,
            model: args.model,
            min_accuracy: args.min_accuracy,
            no_cache: args.flags.no_cache,
            offline: args.flags.offline,
        },
        history: args.flags.history,
        filter: None,
    };
    let outputs = outputs(args.reports, color);
    let mut report = run::execute(&loaded, &plan);
    let p = &mut report.phases;
    set_reasons(
        [
            &mut p.checks.reason,
            &mut p.tests.reason,
            &mut p.bench.reason,
            &mut p.fuzz.reason,
        ],
        "eval runs only the evals phase",
    );
    run::deliver(&report, &outputs)
}

/// Where the reports of `run` and `eval` go.
fn outputs(reports: cli::ReportArgs, color: bool) -> Outputs {
    Outputs {
        color,
        junit: reports.junit,
        json: reports.json,
        summary: run::summary_path(reports.summary, reports.no_summary),
        annotations: run::in_github_actions(),
        html: reports.html,
    }
}

/// Says why phases a command does not run were skipped.
fn set_reasons(reasons: [&mut Option<String>; 4], why: &str) {
    for reason in reasons {
        *reason = Some(why.to_owned());
    }
}
