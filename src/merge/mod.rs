//! `toolproof merge`: the JSON reports of the jobs of one run split over a CI matrix (shards
//! with `--shard K/N`, a job per model with `--model`, or both) read back and merged into the
//! one report the run would have written unsharded. Every report format is written from it
//! by the run's own writer, the evals' gates are scored again over the union by the run's own
//! scoring, and the verdict and exit code are decided by the run's own [`crate::outcome::verdict`].
//! Reports that are not parts of one run are refused (exit 2), naming the files.

mod evals;
mod history;
mod phases;
mod read;

use std::time::SystemTime;

use crate::cli::{Cli, MergeArgs};
use crate::exit::EXIT_USAGE;
use crate::interrupt::Interrupt;
use crate::outcome::{Phases, RunReport};
use crate::output::{self, ReportWriter, to_stderr};
use crate::settings::{CommandKind, Env, MergeSettings};
use read::{MergeError, Part};

/// Runs `merge` and returns the exit code: the merged run's, or 2 when the reports cannot be
/// merged or a destination cannot be written.
pub(crate) fn main(cli: &Cli, args: &MergeArgs, env: &Env) -> i32 {
    let usage = |message: String, hint: Option<&str>| {
        to_stderr(&format!("error: {message}"));
        if let Some(hint) = hint {
            to_stderr(&format!("hint: {hint}"));
        }
        EXIT_USAGE
    };
    let mut settings = match MergeSettings::resolve(cli, env) {
        Ok(s) => s,
        Err(e) => return usage(e.to_string(), None),
    };
    let parts = match read::read_all(&args.inputs) {
        Ok(p) => p,
        Err(e) => return usage(e.to_string(), e.hint()),
    };
    let said = described(&parts);
    let mut report = match merge(parts) {
        Ok(r) => r,
        Err(e) => return usage(e.to_string(), e.hint()),
    };
    to_stderr(&said);
    settings.locate(&files_named(&report), env);
    let writer = match ReportWriter::prepare(CommandKind::Run, settings.outputs()) {
        Ok(w) => w,
        Err(e) => return usage(e.to_string(), Some(e.hint())),
    };
    report.secrets = settings.secrets().to_vec();
    if let Some(path) = settings.outputs().history() {
        report.history = Some(history::record(path, &mut report, &settings));
    }
    let interrupt = Interrupt::new();
    let mut delivered = writer.deliver(&report);
    if let Some(comment) = delivered.comment.take() {
        let said = output::post::comment(&comment, &report, delivered.code, &interrupt);
        delivered.say(said);
    }
    delivered.code
}

/// `merging 3 reports: s1.json (shard 1/3), …`: each file with its shard and models.
fn described(parts: &[Part]) -> String {
    let each: Vec<String> = parts
        .iter()
        .map(|p| {
            let mut facts: Vec<String> = p
                .report
                .shard
                .iter()
                .map(|s| format!("shard {s}"))
                .collect();
            let models = p.models();
            if !models.is_empty() && models.iter().any(|m| !m.is_empty()) {
                facts.push(models.join(", "));
            }
            if facts.is_empty() {
                p.name()
            } else {
                format!("{} ({})", p.name(), facts.join("; "))
            }
        })
        .collect();
    let reports = if parts.len() == 1 {
        "report"
    } else {
        "reports"
    };
    format!("merging {} {reports}: {}", parts.len(), each.join(", "))
}

/// The config file and the cases files the report names.
fn files_named(report: &RunReport) -> Vec<String> {
    let mut files: Vec<String> = report.config_file.iter().cloned().collect();
    let cases = report.phases.evals.results.iter().flat_map(|r| &r.models);
    for f in cases.flat_map(|m| &m.cases).filter_map(|c| c.file.clone()) {
        if !files.contains(&f) {
            files.push(f);
        }
    }
    files
}

/// The one report of the run the parts are jobs of.
fn merge(parts: Vec<Part>) -> Result<RunReport, MergeError> {
    read::check_same_run(&parts)?;
    let groups = read::group(parts)?;
    let all: Vec<&Part> = groups.iter().flatten().collect();
    // The first job of each shard: what a shard runs besides the evals is the same in each
    // of its per-model jobs.
    let bases: Vec<&Part> = groups.iter().filter_map(|g| g.first()).collect();
    let phases = Phases {
        checks: phases::first_run(&all, |p| &p.report.phases.checks),
        tests: phases::tests(&bases)?,
        evals: evals::merge(&all)?,
        lint: phases::first_run(&all, |p| &p.report.phases.lint),
        stress: phases::stress(&all),
        bench: phases::bench(&bases),
        fuzz: phases::fuzz(&bases)?,
        protocol: phases::first_run(&all, |p| &p.report.phases.protocol),
        surface: all.iter().find_map(|p| p.report.phases.surface.clone()),
    };
    let first = &all[0].report;
    let server_error = all.iter().find_map(|p| p.report.error.clone());
    let interrupted = all.iter().find_map(|p| p.report.interrupted.clone());
    let signal_code = all
        .iter()
        .find(|p| p.report.interrupted.is_some())
        .map(|p| p.report.exit_code);
    let (passed, exit_code) =
        crate::outcome::verdict(&phases, server_error.is_some(), None, false, signal_code);
    Ok(RunReport {
        schema_version: first.schema_version,
        generator: first.generator.clone(),
        command: first.command.clone(),
        target: first.target.clone(),
        config_file: first.config_file.clone(),
        server: all.iter().find_map(|p| p.report.server.clone()),
        started_at: all
            .iter()
            .map(|p| p.report.started_at.clone())
            .min()
            .unwrap_or_else(|| crate::outcome::rfc3339(SystemTime::now())),
        // The jobs ran side by side: the longest is the run's wall time.
        duration_ms: all.iter().map(|p| p.report.duration_ms).fold(0.0, f64::max),
        passed,
        exit_code,
        error: server_error,
        inventory: all.iter().find_map(|p| p.report.inventory.clone()),
        stdout_noise: first.stdout_noise.clone(),
        stdout_noise_total: first.stdout_noise_total,
        interrupted,
        config_warnings: first.config_warnings.clone(),
        phases,
        cache_audit: None,
        history: None,
        shard: None,
        config_digest: first.config_digest.clone(),
        secrets: Vec::new(),
        absent: first.absent.clone(),
    })
}
