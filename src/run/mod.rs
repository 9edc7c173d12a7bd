//! Execution: connect, list the tools, run the phases the plan says, and return the one
//! [`RunReport`] of the invocation. The report is built here and never edited afterwards;
//! [`verdict`] is the only place the exit code is decided.

mod cache;
mod phases;

use std::path::Path;
use std::time::{Instant, SystemTime};

use crate::events::{Event, Events};
use crate::interrupt::Interrupt;
use crate::mcp::Client;
use crate::mcp::types::{Era, Tool};
use crate::outcome::{
    CacheAudit, ChecksResults, EvalsResults, FuzzResults, Generator, HistoryRecord, Inventory,
    Phase, PhaseStatus, Phases, RunReport, ServerError, ServerSummary, TestResult, ToolSummary,
};
use crate::plan::{PhaseKey, Plan, Step};
use crate::settings::Settings;

pub(crate) use crate::exit::EXIT_USAGE;

use crate::mcp::spec::server_spec;

/// What the phases produced, filled in as they finish (`None`: not run yet).
#[derive(Default)]
struct Outcome {
    server: Option<ServerSummary>,
    error: Option<ServerError>,
    inventory: Option<Inventory>,
    stdout_noise: Vec<String>,
    stdout_noise_total: usize,
    checks: Option<Phase<ChecksResults>>,
    tests: Option<Phase<Vec<TestResult>>>,
    evals: Option<Phase<Option<EvalsResults>>>,
    lint: Option<Phase<Option<crate::outcome::LintResults>>>,
    stress: Option<Phase<Option<crate::outcome::StressResults>>>,
    bench: Option<Phase<Option<crate::outcome::BenchResults>>>,
    fuzz: Option<Phase<Option<FuzzResults>>>,
    protocol: Option<Phase<Option<crate::outcome::ProtocolResults>>>,
    surface: Option<Phase<crate::outcome::SurfaceResults>>,
    cache: Option<CacheAudit>,
    history: Option<HistoryRecord>,
}

/// Everything a phase runner needs besides the server.
pub(crate) struct Ctx<'a> {
    pub(crate) settings: &'a Settings,
    pub(crate) plan: &'a Plan,
    pub(crate) events: &'a Events,
    pub(crate) interrupt: &'a Interrupt,
}

/// Runs `plan` and returns the report. Never prints: progress goes to `events`. Stops
/// starting work once `interrupt` fires; what did not run says so.
pub(crate) fn execute(
    settings: &Settings,
    plan: &Plan,
    events: &Events,
    interrupt: &Interrupt,
) -> RunReport {
    let started = Instant::now();
    let started_at = crate::outcome::rfc3339(SystemTime::now());
    let ctx = Ctx {
        settings,
        plan,
        events,
        interrupt,
    };
    let mut out = Outcome::default();
    // `run` compares the server with toolproof.lock even when no other phase needs it.
    let lock = settings.surface();
    let surface = settings.command() == crate::settings::CommandKind::Run
        && (lock.locked || lock.path.exists());
    if (plan.needs_server() || surface) && !interrupt.is_set() {
        events.emit(Event::Connecting {
            target: settings.loaded().target.clone(),
        });
        let (spec, opts) = server_spec(settings.loaded());
        match Client::connect(spec, opts) {
            Err(e) => {
                out.error = Some(ServerError {
                    message: format!("could not connect to the server: {}", e.error),
                    stderr: non_empty(e.stderr),
                });
            }
            Ok(mut client) => {
                client.stop_on(interrupt.clone());
                run_connected(&mut client, &ctx, &mut out);
                client.close();
                // Counted once the server is closed, so the banner and the finding agree.
                let (noise, total) = client.stdout_noise();
                phases::add_noise_finding(out.checks.as_mut(), &noise, total, settings);
                out.stdout_noise = noise;
                out.stdout_noise_total = total;
            }
        }
    }
    // On probe connections of its own: it runs even when listing the tools failed, but not
    // when the handshake did (each probe would wait out the same startup timeout again).
    if plan.protocol.runs() && !interrupt.is_set() {
        out.protocol = Some(match (&out.server, &out.error) {
            (None, Some(e)) => Phase::error(format!("the server could not be used: {}", e.message)),
            _ => phases::protocol(&ctx),
        });
    }
    let report = assemble(settings, plan, interrupt, out, started_at, started);
    events.emit(Event::Done);
    report
}

/// The server's summary, its tools and (when asked for) its resources and prompts; `None`
/// when the tools cannot be listed (the error is recorded).
fn list_connected(client: &mut Client, ctx: &Ctx<'_>, out: &mut Outcome) -> Option<Vec<Tool>> {
    out.server = Some(server_summary(client));
    let tools = match client.list_tools() {
        Ok(t) => t,
        Err(e) => {
            let stderr = client.stderr_since(0);
            out.error = Some(ServerError {
                message: format!("could not list the server's tools: {e}"),
                stderr: non_empty(stderr),
            });
            return None;
        }
    };
    let mut inventory = Inventory {
        tools: tools.iter().map(summarize).collect(),
        ..Inventory::default()
    };
    weigh(&mut inventory, &tools);
    if ctx.plan.inventory {
        // A broken optional listing is reported, not fatal: tools are what toolproof tests.
        match client.list_resources() {
            Ok(r) => inventory.resources = r,
            Err(e) => inventory.errors.push(format!("resources/list failed: {e}")),
        }
        match client.list_prompts() {
            Ok(p) => inventory.prompts = p,
            Err(e) => inventory.errors.push(format!("prompts/list failed: {e}")),
        }
    }
    out.inventory = Some(inventory);
    Some(tools)
}

fn run_connected(client: &mut Client, ctx: &Ctx<'_>, out: &mut Outcome) {
    let Some(tools) = list_connected(client, ctx, out) else {
        return;
    };
    let neighbours = (ctx.plan.evals.runs() || ctx.plan.stress.runs() || ctx.plan.cache.is_some())
        .then(|| phases::neighbours(ctx))
        .flatten();
    // The host knows the server by its name in the client's config; its own name stands in.
    let ours = out
        .server
        .as_ref()
        .and_then(|s| s.name.clone())
        .unwrap_or_else(|| "server".to_owned());
    // The models are sent the tool list with `evals.overrides` applied; the cache holds the
    // answers to that list.
    let patched = overridden(&tools, ctx);
    let eval_tools = match &patched {
        Ok(Some(list)) => list.as_slice(),
        _ => tools.as_slice(),
    };
    if let Some(action) = ctx.plan.cache {
        let crowd = (ours.as_str(), neighbours.as_ref());
        out.cache = Some(cache::audit(ctx.settings, eval_tools, action, crowd));
    }
    if ctx.settings.command() == crate::settings::CommandKind::Run {
        out.surface = crate::surface::run_phase(client, &tools, ctx.settings.surface());
    }
    if ctx.plan.checks.runs() {
        out.checks = Some(phases::checks(client, &tools, ctx));
    }
    if ctx.plan.tests.runs() && !ctx.interrupt.is_set() {
        out.tests = Some(phases::tests(client, &tools, ctx));
    }
    if ctx.plan.evals.runs() && !ctx.interrupt.is_set() {
        out.evals = Some(match &patched {
            Ok(_) => phases::evals(eval_tools, ctx, &ours, neighbours.as_ref()),
            Err(phase) => (**phase).clone(),
        });
    }
    if ctx.plan.lint.runs() && !ctx.interrupt.is_set() {
        out.lint = Some(phases::lint(&tools, ctx, out.evals.as_ref()));
    }
    if ctx.plan.stress.runs() && !ctx.interrupt.is_set() {
        let baseline = out.evals.as_ref().and_then(|p| p.results.as_ref());
        out.stress = Some(phases::stress(
            eval_tools,
            ctx,
            baseline,
            neighbours.as_ref(),
        ));
    }
    if ctx.plan.bench.runs() && !ctx.interrupt.is_set() {
        out.bench = Some(phases::bench(client, &tools, ctx));
    }
    if ctx.plan.fuzz.runs() && !ctx.interrupt.is_set() {
        out.fuzz = Some(phases::fuzz(client, &tools, ctx));
    }

    if let Some(path) = ctx.settings.outputs().history()
        && !ctx.interrupt.is_set()
    {
        out.history = Some(phases::history(
            path,
            out,
            ctx,
            &crate::outcome::rfc3339(SystemTime::now()),
        ));
    }
}

/// The tool list with `evals.overrides` applied (`None`: there are none); the
/// evals phase as a config error when an override names a tool or property the server lacks.
fn overridden(
    tools: &[Tool],
    ctx: &Ctx<'_>,
) -> Result<Option<Vec<Tool>>, Box<Phase<Option<EvalsResults>>>> {
    use crate::evals::asking::overrides;
    let Some(o) = ctx.settings.eval_config().map(|c| &c.overrides) else {
        return Ok(None);
    };
    if o.is_empty() {
        return Ok(None);
    }
    overrides::apply(tools, o).map(Some).map_err(|errors| {
        let mut stamp = overrides::stamp(o).unwrap_or_default();
        let reason = format!("config error: {}", errors.join("; "));
        stamp.errors = errors;
        Box::new(Phase {
            results: Some(EvalsResults {
                overrides: Some(stamp),
                ..EvalsResults::default()
            }),
            ..Phase::error(reason)
        })
    })
}

/// A phase the plan skipped, one that never got to run (and why), or its result.
fn settle<T: Default>(step: &Step, ran: Option<Phase<T>>, why_not: &Option<String>) -> Phase<T> {
    match (step, ran) {
        (Step::Skip(reason) | Step::Absent(reason), _) => Phase::skipped(reason.clone()),
        (Step::Run, Some(phase)) => phase,
        (Step::Run, None) => Phase::error(
            why_not
                .clone()
                .unwrap_or_else(|| "the server could not be used".into()),
        ),
    }
}

fn assemble(
    settings: &Settings,
    plan: &Plan,
    interrupt: &Interrupt,
    out: Outcome,
    started_at: String,
    started: Instant,
) -> RunReport {
    let signal = interrupt.signal();
    let why_not =
        signal.map(|s| format!("the run was interrupted by {} before this phase", s.name()));
    let phases = Phases {
        checks: settle(&plan.checks, out.checks, &why_not),
        tests: settle(&plan.tests, out.tests, &why_not),
        evals: settle(&plan.evals, out.evals, &why_not),
        lint: settle(&plan.lint, out.lint, &why_not),
        stress: settle(&plan.stress, out.stress, &why_not),
        bench: settle(&plan.bench, out.bench, &why_not),
        fuzz: settle(&plan.fuzz, out.fuzz, &why_not),
        protocol: settle(&plan.protocol, out.protocol, &why_not),
        surface: out.surface,
    };
    let mut phases = phases;
    if let Some(surface) = phases.surface.as_mut() {
        let evals = phases.evals.results.as_ref();
        crate::surface::attach_rows(&mut surface.results, evals);
    }
    let interrupted = signal.map(|s| s.name().to_owned());
    let (passed, exit_code) = crate::outcome::verdict(
        &phases,
        out.error.is_some(),
        out.cache.as_ref(),
        plan.cache == Some(crate::plan::CacheAction::Status),
        signal.map(crate::interrupt::Signal::exit_code),
    );
    let loaded = settings.loaded();
    RunReport {
        schema_version: crate::outcome::SCHEMA_VERSION,
        generator: Generator::default(),
        command: settings.command().name().into(),
        target: loaded.target.clone(),
        config_file: config_file_name(&loaded.path),
        server: out.server,
        started_at,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        passed,
        exit_code,
        error: out.error,
        inventory: out.inventory,
        stdout_noise: out.stdout_noise,
        stdout_noise_total: out.stdout_noise_total,
        interrupted,
        shard: settings.shard(),
        config_warnings: loaded.warnings.iter().map(|w| w.to_string()).collect(),
        phases,
        cache_audit: out.cache,
        history: out.history,
        config_digest: crate::outcome::config_digest(loaded),
        secrets: settings.secrets().to_vec(),
        absent: PhaseKey::ALL
            .iter()
            .filter(|p| matches!(plan.step(**p), Step::Absent(_)))
            .map(|p| p.key())
            .collect(),
    }
}

fn server_summary(client: &Client) -> ServerSummary {
    let info = client.info().clone();
    ServerSummary {
        name: info.name,
        version: info.version,
        title: info.title,
        protocol_version: info.protocol_version,
        era: match client.era() {
            Era::Legacy => "legacy".into(),
            Era::Modern => "modern".into(),
        },
        transport: client.transport_name().into(),
        capabilities: info.capabilities,
    }
}

/// Each tool's estimated tokens in the list a model is sent, and the list's (as the evals
/// send it: API-safe names, tools with an invalid input schema left out).
fn weigh(inventory: &mut Inventory, tools: &[Tool]) {
    let api = crate::evals::asking::tools::api_tools(tools);
    let weights = crate::evals::asking::engine::tool_tokens(&api);
    for t in &mut inventory.tools {
        t.tokens = weights
            .tools
            .iter()
            .find(|w| w.tool == t.name)
            .map(|w| w.tokens);
    }
    inventory.tool_list_tokens = Some(weights.total);
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
        summary: summary_line(t),
        annotations: t.annotations.clone(),
        has_output_schema: t.output_schema.is_some(),
        tokens: None,
        definition: t.raw.clone(),
    }
}

/// The description's first line, ending with ` …` when more lines follow, so a reader knows
/// the description goes on.
fn summary_line(t: &Tool) -> String {
    let first = t.summary();
    let more = t
        .description
        .as_deref()
        .is_some_and(|d| d.trim().lines().skip(1).any(|l| !l.trim().is_empty()));
    if more {
        format!("{first} …")
    } else {
        first.to_owned()
    }
}

/// The phase's status as the events and reports say it.
pub(crate) fn finished(
    events: &Events,
    phase: PhaseKey,
    status: PhaseStatus,
    summary: Option<String>,
) {
    events.emit(Event::PhaseFinished {
        phase,
        status,
        summary,
    });
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

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn a_multi_line_description_is_summarised_with_an_ellipsis() {
        let tool = |d: &str| Tool::from_wire(serde_json::json!({ "name": "t", "description": d }));
        assert_eq!(
            summarize(&tool("Finds files.\n\nArgs:\n  pattern: a glob")).summary,
            "Finds files. …"
        );
        assert_eq!(summarize(&tool("  One line.\n\n  ")).summary, "One line.");
        let t = tool("x");
        assert_eq!(summarize(&t).definition, t.raw);
    }
}
