//! `toolproof rows`: labelled rows proposed from real traffic and from near misses, never
//! typed from imagination. `import` reads conversation logs ([`traffic`]) and proposes each
//! request with the tool the model called ([`propose`]), the ones that went wrong first;
//! `suggest` asks a model for near-miss prompts between tools that are easily confused
//! ([`suggest`]). Both redact personal data and keys before writing ([`pii`]), drop what the
//! set already has ([`select`]), mark every row `reviewed: false` (the set lint's
//! `unreviewed-row` until someone reads it) and write YAML in the set's own format
//! ([`yaml`]); what the traffic covered goes to stderr ([`summary`]).

mod pii;
mod propose;
mod select;
mod suggest;
mod summary;
mod traffic;
mod yaml;

use std::path::{Path, PathBuf};

use crate::cli::{ImportArgs, RowsCommand, RowsOutput};
use crate::config::{ConfigError, EvalCase, LoadedConfig};
use crate::exit::{EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use crate::mcp::Client;
use crate::mcp::types::Tool;
use crate::output::to_stderr;
use crate::report::redact::Redactor;
use crate::settings::{ConfigSource, Env};

pub(crate) use traffic::Format;

/// Runs `toolproof rows …` and returns the exit code.
pub(crate) fn main(command: &RowsCommand, env: &Env) -> i32 {
    let result = match command {
        RowsCommand::Import(args) => import(args, env),
        RowsCommand::Suggest(args) => suggest::run(args, env),
    };
    match result {
        Ok(()) => EXIT_OK,
        Err(e) => {
            let redact = Redactor::new(&crate::settings::environment_secrets(env));
            to_stderr(&redact.apply(&format!("error: {}", e.message)));
            if let Some(hint) = e.hint {
                to_stderr(&format!("hint: {hint}"));
            }
            e.code
        }
    }
}

/// Why `rows` stopped: a message, a hint, and the exit code.
#[derive(Debug)]
pub(crate) struct Stop {
    message: String,
    hint: Option<String>,
    code: i32,
}

impl Stop {
    /// Bad usage or input: exit 2.
    pub(crate) fn usage(message: impl Into<String>, hint: Option<&str>) -> Stop {
        Stop {
            message: message.into(),
            hint: hint.map(str::to_owned),
            code: EXIT_USAGE,
        }
    }

    /// The server or the model could not be used: exit 1.
    pub(crate) fn failed(message: impl Into<String>, hint: Option<&str>) -> Stop {
        Stop {
            message: message.into(),
            hint: hint.map(str::to_owned),
            code: EXIT_FAILED,
        }
    }
}

impl From<ConfigError> for Stop {
    fn from(e: ConfigError) -> Stop {
        Stop::usage(e.to_string(), None)
    }
}

/// The config (`-c`, `TOOLPROOF_CONFIG`, `./toolproof.yaml`), loaded, with the run's secrets.
pub(crate) fn load(out: &RowsOutput, env: &Env) -> Result<(LoadedConfig, Vec<String>), Stop> {
    let path = out
        .config
        .clone()
        .or_else(|| env.get("TOOLPROOF_CONFIG").map(PathBuf::from))
        .or_else(|| crate::config::find_default(env.cwd()))
        .ok_or_else(|| {
            Stop::usage(
                "no toolproof.yaml in this folder",
                Some("give the config with -c: `rows` needs its server (the tool list) and its eval cases"),
            )
        })?;
    let loaded = ConfigSource::File(path).load(env)?;
    let mut secrets = crate::settings::environment_secrets(env);
    secrets.extend(loaded.secrets.iter().cloned());
    let redact = Redactor::new(&secrets);
    for warning in &loaded.warnings {
        to_stderr(&redact.apply(&format!("warning: {warning}")));
    }
    Ok((loaded, secrets))
}

/// The server's tools.
pub(crate) fn list_tools(loaded: &LoadedConfig, secrets: &[String]) -> Result<Vec<Tool>, Stop> {
    let redact = Redactor::new(secrets);
    let (spec, opts) = crate::mcp::spec::server_spec(loaded);
    let mut client = Client::connect(spec, opts).map_err(|e| {
        Stop::failed(
            redact.apply(&format!("could not connect to the server: {}", e.error)),
            None,
        )
    })?;
    let tools = client.list_tools().map_err(|e| {
        Stop::failed(
            redact.apply(&format!("could not list the server's tools: {e}")),
            None,
        )
    });
    client.close();
    tools
}

/// The set's cases, as (prompt, expected tool).
pub(crate) fn existing(loaded: &LoadedConfig) -> Vec<(String, Option<String>)> {
    let cases: &[EvalCase] = loaded.config.evals.as_ref().map_or(&[], |e| &e.cases);
    cases
        .iter()
        .map(|c| (c.prompt.clone(), c.expect_tool.clone().flatten()))
        .collect()
}

/// Where the rows go: `-o PATH`, the `cases_file` (`--append`), or stdout.
pub(crate) enum Destination {
    /// A file of its own.
    File(PathBuf),
    /// Appended to the config's `cases_file`.
    Append(PathBuf),
    /// Printed.
    Stdout,
}

impl Destination {
    /// The destination the flags ask for; `--append` needs `evals.cases_file`.
    pub(crate) fn of(out: &RowsOutput, loaded: &LoadedConfig) -> Result<Destination, Stop> {
        if out.append {
            let file = loaded
                .config
                .evals
                .as_ref()
                .and_then(|e| e.cases_file.clone());
            return file.map(Destination::Append).ok_or_else(|| {
                Stop::usage(
                    format!("--append: {} has no `evals.cases_file` to append to", loaded.path.display()),
                    Some("set `evals.cases_file: cases.yaml` in the config, or write the rows with -o rows.yaml"),
                )
            });
        }
        Ok(out
            .output
            .clone()
            .map_or(Destination::Stdout, Destination::File))
    }

    /// Writes `rows`; returns where, for the summary.
    pub(crate) fn write(&self, rows: &[yaml::Row], made_by: &str) -> Result<String, Stop> {
        let cannot = |path: &Path, e: &dyn std::fmt::Display| {
            Stop::usage(
                format!("cannot write the rows to {}: {e}", path.display()),
                None,
            )
        };
        match self {
            Destination::File(path) => {
                crate::report::write::write_atomic(path, yaml::file(rows, made_by).as_bytes())
                    .map_err(|e| cannot(path, &e))?;
                Ok(path.display().to_string())
            }
            Destination::Append(path) => {
                yaml::append(path, rows).map_err(|e| cannot(path, &e))?;
                Ok(format!("{} (appended)", path.display()))
            }
            Destination::Stdout => {
                print!("{}", yaml::file(rows, made_by));
                Ok("stdout".to_owned())
            }
        }
    }
}

/// `toolproof rows import`.
fn import(args: &ImportArgs, env: &Env) -> Result<(), Stop> {
    let (loaded, secrets) = load(&args.out, env)?;
    let destination = Destination::of(&args.out, &loaded)?;
    let files = read_files(args)?;
    let tools = list_tools(&loaded, &secrets)?;
    let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    let map = propose::ToolNames {
        names: &names,
        mcp_server: args.mcp_server.as_deref(),
    };
    let mut tally = propose::Tally::default();
    let mut proposals = Vec::new();
    let mut traffic = Vec::new();
    for (_, _, read) in &files {
        for conv in &read.conversations {
            proposals.extend(propose::propose(conv, &map, &mut tally));
        }
        traffic.extend(read.traffic.iter().cloned());
    }
    let existing = existing(&loaded);
    let (mut kept, dropped) = select::select(proposals, &existing, args.out.limit);
    // After selection, so that each row kept is redacted (and counted) once.
    let mut pii = pii::Pii::new(&secrets);
    if !args.out.no_redact {
        kept = kept.into_iter().map(|p| redact(p, &mut pii)).collect();
    }
    let rows: Vec<yaml::Row> = kept.iter().map(to_row).collect();
    let wrote = destination.write(&rows, "toolproof rows import")?;
    let report = summary::Import {
        files: files.iter().map(|(f, fmt, _)| (f.clone(), *fmt)).collect(),
        tally: &tally,
        traffic: &traffic,
        kept: &kept,
        dropped: &dropped,
        redacted: (!args.out.no_redact).then_some(&pii.counts),
        server_tools: &names,
        existing: &existing,
        wrote: &wrote,
    };
    to_stderr(summary::import(&report).trim_end());
    Ok(())
}

/// Every file, read, with its name and format; lines skipped are said on stderr.
fn read_files(args: &ImportArgs) -> Result<Vec<(String, Format, traffic::Read)>, Stop> {
    let mut out = Vec::new();
    for path in &args.files {
        let text = crate::evals::read_capped(path, 256 << 20, "a conversation log")
            .map_err(|e| Stop::usage(format!("cannot read {}: {e}", path.display()), None))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let format = match args.format.or_else(|| traffic::detect(&text)) {
            Some(f) => f,
            None => {
                return Err(Stop::usage(
                    format!("{}: cannot tell which kind of log this is", path.display()),
                    Some("pass --format claude-code, openai, anthropic, otel or mcp"),
                ));
            }
        };
        let read = traffic::read(format, &name, &text);
        for skipped in read.skipped.iter().take(5) {
            to_stderr(&format!("warning: {skipped}"));
        }
        if read.skipped.len() > 5 {
            to_stderr(&format!(
                "warning: {} more lines of {name} skipped",
                read.skipped.len() - 5
            ));
        }
        out.push((name, format, read));
    }
    Ok(out)
}

/// A proposal with its texts redacted.
fn redact(mut p: propose::Proposal, pii: &mut pii::Pii) -> propose::Proposal {
    p.prompt = pii.text(&p.prompt);
    for turn in &mut p.context {
        match turn {
            propose::Turn::User(t) | propose::Turn::Assistant(t) => *t = pii.text(t),
            propose::Turn::Call { args, result, .. } => {
                *args = pii.value(args);
                *result = pii.text(result);
            }
        }
    }
    p
}

fn to_row(p: &propose::Proposal) -> yaml::Row {
    yaml::Row {
        prompt: p.prompt.clone(),
        expect: p.expect.clone(),
        why: p.why.clone(),
        context: p.context.clone(),
    }
}
