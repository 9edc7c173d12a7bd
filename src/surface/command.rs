//! `toolproof lock`: write `toolproof.lock` from the server, or (`--check`) compare the server
//! with it. Exit codes: 0 written or matching; 1 a difference, or the server could not be
//! used; 2 bad config or usage, or no readable lock to check.

use crate::cli::{Cli, LockArgs};
use crate::exit::{EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use crate::mcp::Client;
use crate::outcome::SurfaceChange;
use crate::output::to_stderr;
use crate::report::redact::Redactor;
use crate::settings::{self, Env, Settings};

use super::Surface;

/// Runs `toolproof lock` and returns the exit code.
pub(crate) fn main(cli: &Cli, args: &LockArgs, env: &Env) -> i32 {
    let settings = match prepare(cli, env) {
        Ok(s) => s,
        Err(e) => {
            to_stderr(&format!("error: {e}"));
            return EXIT_USAGE;
        }
    };
    let redact = Redactor::new(settings.secrets());
    let say_err = |m: &str| to_stderr(&redact.apply(&format!("error: {m}")));
    let now = match listed(&settings) {
        Ok(now) => now,
        Err(e) => {
            say_err(&e);
            return EXIT_FAILED;
        }
    };
    let lock = settings.surface();
    let found = match super::read_lock(&lock.path) {
        Ok(found) => found,
        Err(e) => {
            say_err(&e);
            return if args.check { EXIT_USAGE } else { EXIT_FAILED };
        }
    };
    let changes = found
        .as_ref()
        .map(|(text, locked)| super::compare(text, locked, &now))
        .unwrap_or_default();
    if args.check {
        let Some(_) = found else {
            say_err(&format!("there is no {}", lock.shown));
            to_stderr("hint: run `toolproof lock` to write it, and commit it");
            return EXIT_USAGE;
        };
        if changes.is_empty() {
            to_stdout(&format!(
                "{} matches the server ({})",
                lock.shown,
                counts(&now)
            ));
            return EXIT_OK;
        }
        to_stdout(&redact.apply(&describe(&lock.shown, &changes)));
        to_stdout("hint: review the changes, then run `toolproof lock` to accept them");
        return EXIT_FAILED;
    }
    if found.is_some() && changes.is_empty() {
        to_stdout(&format!("{} is up to date ({})", lock.shown, counts(&now)));
        return EXIT_OK;
    }
    if let Err(e) = crate::report::write::write_atomic(&lock.path, now.render().as_bytes()) {
        say_err(&format!("cannot write {}: {e}", lock.shown));
        return EXIT_FAILED;
    }
    if !changes.is_empty() {
        to_stdout(&redact.apply(&describe(&lock.shown, &changes)));
    }
    to_stdout(&format!("wrote {} ({})", lock.shown, counts(&now)));
    EXIT_OK
}

fn prepare(cli: &Cli, env: &Env) -> Result<Settings, crate::config::ConfigError> {
    let source = settings::config_source(cli, env)?;
    let loaded = source.load(env)?;
    for warning in &loaded.warnings {
        to_stderr(&format!("warning: {warning}"));
    }
    Settings::resolve(cli, env, loaded)
}

/// Connects, lists everything, and closes.
fn listed(settings: &Settings) -> Result<Surface, String> {
    let (spec, opts) = crate::mcp::spec::server_spec(settings.loaded());
    let mut client = Client::connect(spec, opts)
        .map_err(|e| format!("could not connect to the server: {}", e.error))?;
    let listed = client
        .list_tools()
        .map_err(|e| format!("could not list the server's tools: {e}"))
        .and_then(|tools| {
            super::snapshot(&mut client, &tools)
                .map_err(|e| format!("could not list the server's prompts or resources: {e}"))
        });
    client.close();
    listed
}

/// A line on stdout (a closed stdout is not an error worth more than the exit code).
fn to_stdout(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
}

/// `3 tools, 1 prompt, 2 resources`.
fn counts(s: &Surface) -> String {
    let n = |count: usize, word: &str| format!("{count} {word}{}", crate::outcome::plural(count));
    format!(
        "{}, {}, {}",
        n(s.tools.len(), "tool"),
        n(s.prompts.len(), "prompt"),
        n(s.resources.len() + s.templates.len(), "resource")
    )
}

/// The changes as `lock` prints them: a count line, then one line each.
pub(crate) fn describe(shown: &str, changes: &[SurfaceChange]) -> String {
    let results = crate::outcome::SurfaceResults {
        locked: true,
        lock_file: shown.to_owned(),
        changes: changes.to_vec(),
        lock_lines: std::collections::BTreeMap::new(),
    };
    let mut out = format!("the server differs from {shown}: {}", results.counts_text());
    for c in changes {
        out.push_str(&format!(
            "\n  {:<10} {} {}",
            c.kind.as_str(),
            c.item,
            c.what
        ));
        if !c.rug_pull.is_empty() {
            out.push_str(&format!(
                " — rug pull: the changed text now trips {}",
                c.rug_pull.join(", ")
            ));
        }
    }
    out
}
