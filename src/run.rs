//! Orchestration: connect, list, run the phases, and turn the outcome into a report and an
//! exit code. This is the only place that decides the exit code.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::checks::{self, CheckContext};
use crate::config::{ConfigError, LoadedConfig};
use crate::mcp::http::HttpSpec;
use crate::mcp::stdio::StdioSpec;
use crate::mcp::types::{Era, Tool};
use crate::mcp::{Client, ClientOptions, ServerSpec};
use crate::report::console::{self, ColorFlag, ConsoleOptions};
use crate::report::model::{
    ChecksResults, Generator, Inventory, Phase, PhaseStatus, Phases, RunReport, ServerError,
    ServerSummary, ToolSummary,
};
use crate::report::{annotations, json, junit, markdown, write};

/// Exit code: everything passed.
pub const EXIT_OK: i32 = 0;
/// Exit code: a check, test or gate failed, or the server could not be used.
pub const EXIT_FAILED: i32 = 1;
/// Exit code: bad config or usage.
pub const EXIT_USAGE: i32 = 2;

/// What a command asked the engine to do.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Subcommand name, recorded in the report.
    pub command: String,
    /// Run the static checks.
    pub checks: bool,
    /// Warnings fail.
    pub strict: bool,
    /// List resources and prompts too.
    pub inventory: bool,
    /// `--skip-evals`.
    pub skip_evals: bool,
    /// `--skip-bench`.
    pub skip_bench: bool,
    /// `--skip-fuzz`.
    pub skip_fuzz: bool,
    /// What the command line adds to `evals:`.
    pub evals: crate::evals::engine::Overrides,
    /// `--history PATH`: append the eval miss rate and read the trend.
    pub history: Option<PathBuf>,
    /// `--filter`/`-k`: which tests run.
    pub filter: Option<String>,
}

/// Where the rendered reports go.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// Colour the console.
    pub color: bool,
    /// JUnit XML path.
    pub junit: Option<PathBuf>,
    /// JSON path.
    pub json: Option<PathBuf>,
    /// Markdown summary path (appended).
    pub summary: Option<PathBuf>,
    /// Emit GitHub workflow annotations on stdout.
    pub annotations: bool,
    /// HTML report path.
    pub html: Option<PathBuf>,
}

/// The connection settings a config implies.
pub fn server_spec(loaded: &LoadedConfig) -> (ServerSpec, ClientOptions) {
    let server = &loaded.config.server;
    let spec = match (&server.url, &server.command) {
        (Some(url), _) => ServerSpec::Http(HttpSpec {
            url: url.clone(),
            headers: server
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }),
        (None, command) => ServerSpec::Stdio(StdioSpec {
            command: command.clone().unwrap_or_default(),
            env: server.env.clone(),
            cwd: Some(
                server
                    .cwd
                    .clone()
                    .unwrap_or_else(|| loaded.base_dir.clone()),
            ),
        }),
    };
    let startup = Duration::from_secs_f64(server.startup_timeout_s.max(0.001));
    let opts = ClientOptions {
        pin: server.protocol,
        startup_timeout: startup,
        request_timeout: startup.max(Duration::from_secs(30)),
    };
    (spec, opts)
}

/// Connects, lists and runs the phases of `plan`; never prints.
pub fn execute(loaded: &LoadedConfig, plan: &Plan) -> RunReport {
    let started = Instant::now();
    let started_at = rfc3339(SystemTime::now());
    let cfg = &loaded.config;
    let mut report = RunReport {
        schema_version: crate::report::model::SCHEMA_VERSION,
        generator: Generator::default(),
        command: plan.command.clone(),
        target: loaded.target.clone(),
        config_file: config_file_name(&loaded.path),
        server: None,
        started_at,
        duration_ms: 0.0,
        passed: false,
        exit_code: EXIT_FAILED,
        error: None,
        inventory: None,
        stdout_noise: Vec::new(),
        phases: Phases {
            checks: if !plan.checks {
                Phase::skipped("turned off with --no-checks")
            } else if !cfg.checks.enabled {
                Phase::skipped("turned off with checks.enabled: false")
            } else {
                Phase::error("not run: the server could not be used")
            },
            tests: planned(
                !cfg.tests.is_empty(),
                "no `tests:` in the config",
                false,
                "",
            ),
            evals: planned(
                cfg.evals.as_ref().is_some_and(|e| e.enabled),
                "no `evals:` section (or evals.enabled: false)",
                plan.skip_evals,
                "--skip-evals",
            ),
            bench: planned(
                cfg.bench.as_ref().is_some_and(|b| b.enabled),
                "no `bench:` section (or bench.enabled: false)",
                plan.skip_bench,
                "--skip-bench",
            ),
            fuzz: planned(
                cfg.fuzz.as_ref().is_some_and(|f| f.enabled),
                "no `fuzz:` section (or fuzz.enabled: false)",
                plan.skip_fuzz,
                "--skip-fuzz",
            ),
        },
        secrets: loaded.secrets.clone(),
    };

    let (spec, opts) = server_spec(loaded);
    match Client::connect(spec, opts) {
        Err(e) => {
            report.error = Some(ServerError {
                message: format!("could not connect to the server: {}", e.error),
                stderr: non_empty(e.stderr),
            });
        }
        Ok(mut client) => {
            run_connected(&mut client, loaded, plan, &mut report);
            client.close();
            let (noise, _) = client.stdout_noise();
            report.stdout_noise = noise;
        }
    }

    report.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    let failed = report.error.is_some()
        || report.phases.checks.fails()
        || report.phases.tests.fails()
        || report.phases.evals.fails()
        || report.phases.bench.fails()
        || report.phases.fuzz.fails();
    report.passed = !failed;
    report.exit_code = if failed { EXIT_FAILED } else { EXIT_OK };
    report
}

/// A phase the engine will try, or a skipped one with its reason.
fn planned<T: Default>(configured: bool, absent: &str, skip: bool, flag: &str) -> Phase<T> {
    if skip {
        Phase::skipped(format!("turned off with {flag}"))
    } else if !configured {
        Phase::skipped(absent)
    } else {
        Phase::error("not run: the server could not be used")
    }
}

fn run_connected(client: &mut Client, loaded: &LoadedConfig, plan: &Plan, report: &mut RunReport) {
    let info = client.info().clone();
    report.server = Some(ServerSummary {
        name: info.name.clone(),
        version: info.version.clone(),
        title: info.title.clone(),
        protocol_version: info.protocol_version.clone(),
        era: match client.era() {
            Era::Legacy => "legacy".into(),
            Era::Modern => "modern".into(),
        },
        transport: client.transport_name().into(),
        capabilities: info.capabilities.clone(),
    });
    let tools = match client.list_tools() {
        Ok(t) => t,
        Err(e) => {
            let stderr = client.stderr_since(0);
            report.error = Some(ServerError {
                message: format!("could not list the server's tools: {e}"),
                stderr: non_empty(stderr),
            });
            return;
        }
    };
    let mut inventory = Inventory {
        tools: tools.iter().map(summarize).collect(),
        ..Inventory::default()
    };
    if plan.inventory {
        // A broken optional listing is reported, not fatal: tools are what toolproof tests.
        match client.list_resources() {
            Ok(r) => inventory.resources = r,
            Err(e) => report
                .stdout_noise
                .push(format!("resources/list failed: {e}")),
        }
        match client.list_prompts() {
            Ok(p) => inventory.prompts = p,
            Err(e) => report
                .stdout_noise
                .push(format!("prompts/list failed: {e}")),
        }
    }
    report.inventory = Some(inventory);

    if report.phases.checks.status == PhaseStatus::Error {
        report.phases.checks = run_checks(client, &tools, loaded, plan);
    }
    // Phases of later issues: configured ones are reported as skipped, never as passed.
    let later = "not run: this toolproof build does not run this phase yet";
    for phase in [&mut report.phases.bench, &mut report.phases.fuzz] {
        if phase.status == PhaseStatus::Error {
            phase.status = PhaseStatus::Skipped;
            phase.reason = Some(later.into());
        }
    }
    if report.phases.evals.status == PhaseStatus::Error
        && let Some(cfg) = &loaded.config.evals
    {
        let mut phase = crate::evals::engine::run(&tools, cfg, &loaded.base_dir, &plan.evals);
        if let (Some(path), Some(results)) = (&plan.history, phase.results.as_mut()) {
            match crate::evals::history::record(path, results, &report.started_at, &loaded.base_dir)
            {
                Ok(trend) => results.history = Some(trend),
                Err(e) => {
                    let note = format!("the history file {} was not written: {e}", path.display());
                    phase.reason = Some(match phase.reason.take() {
                        Some(r) => format!("{r}; {note}"),
                        None => note,
                    });
                }
            }
        }
        report.phases.evals = phase;
    }
    if report.phases.tests.status == PhaseStatus::Error {
        report.phases.tests =
            crate::suite::run(client, &tools, &loaded.config, plan.filter.as_deref());
    }
}

fn run_checks(
    client: &Client,
    tools: &[Tool],
    loaded: &LoadedConfig,
    plan: &Plan,
) -> Phase<ChecksResults> {
    let started = Instant::now();
    let mut cfg = loaded.config.checks.clone();
    cfg.strict |= plan.strict;
    let (noise, _) = client.stdout_noise();
    let ctx = CheckContext {
        server_name: client.info().name.as_deref(),
        protocol_version: Some(client.info().protocol_version.as_str()),
        stdout_noise: &noise,
    };
    let results = checks::run(tools, &cfg, &ctx);
    let failing = results.findings.iter().filter(|f| f.fails).count();
    Phase {
        status: if failing > 0 {
            PhaseStatus::Failed
        } else {
            PhaseStatus::Passed
        },
        reason: None,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results,
    }
}

fn summarize(t: &Tool) -> ToolSummary {
    ToolSummary {
        name: t.name.clone(),
        title: t.title.clone().or_else(|| {
            t.annotations
                .as_ref()
                .and_then(|a| a.get("title"))
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        }),
        summary: t.summary().to_owned(),
        annotations: t.annotations.clone(),
        has_output_schema: t.output_schema.is_some(),
    }
}

fn non_empty(s: String) -> Option<String> {
    if s.trim().is_empty() { None } else { Some(s) }
}

fn config_file_name(path: &Path) -> Option<String> {
    if path.as_os_str().is_empty() {
        None
    } else {
        Some(path.display().to_string())
    }
}

/// Renders and writes every report asked for, prints the console report, and returns the exit
/// code (the report's, or 1 when a report could not be written).
pub fn deliver(report: &RunReport, outputs: &Outputs) -> i32 {
    // Every renderer masks `report.secrets` itself (see `report::redact`).
    let mut code = report.exit_code;
    let width = terminal_width();
    let text = console::render(
        report,
        &ConsoleOptions {
            color: outputs.color,
            width,
        },
    );
    print!("{text}");
    type Renderer = fn(&RunReport) -> String;
    let files: [(&Option<PathBuf>, &str, Renderer); 3] = [
        (&outputs.junit, "JUnit report", junit::render),
        (&outputs.json, "JSON report", json::render),
        (&outputs.html, "HTML report", crate::report::html::render),
    ];
    for (path, what, render) in files {
        let Some(path) = path else { continue };
        match write::write_atomic(path, render(report).as_bytes()) {
            Ok(()) => println!("{what} written to {}", path.display()),
            Err(e) => {
                eprintln!(
                    "error: could not write the {what} to {}: {e}",
                    path.display()
                );
                code = code.max(EXIT_FAILED);
            }
        }
    }
    if let Some(path) = &outputs.summary
        && let Err(e) = write::append_summary(path, &markdown::render(report))
    {
        eprintln!(
            "error: could not append the Markdown summary to {}: {e}",
            path.display()
        );
        code = code.max(EXIT_FAILED);
    }
    if outputs.annotations {
        print!("{}", annotations::render(report));
    }
    code
}

/// The summary destination: the flag, else `$GITHUB_STEP_SUMMARY` unless turned off.
pub fn summary_path(flag: Option<PathBuf>, no_summary: bool) -> Option<PathBuf> {
    if flag.is_some() {
        return flag;
    }
    if no_summary {
        return None;
    }
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Whether to colour stdout.
pub fn use_color(flag: ColorFlag) -> bool {
    console::color_choice(flag, std::io::stdout().is_terminal())
}

/// Whether GitHub workflow commands should be printed.
pub fn in_github_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .filter(|w| *w >= 40)
        .unwrap_or(if std::io::stdout().is_terminal() {
            100
        } else {
            140
        })
}

/// Prints a config or usage error and returns [`EXIT_USAGE`].
pub fn usage_error(e: &ConfigError) -> i32 {
    eprintln!("error: {e}");
    EXIT_USAGE
}

/// RFC 3339 UTC time with second precision.
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_rfc3339() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_042_553);
        assert_eq!(rfc3339(t), "2026-11-30T12:42:33Z");
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }
}
