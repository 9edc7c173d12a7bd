//! The phase runners: each takes the tool list (and the server when it needs one), runs its
//! engine with the resolved settings, announces its start and end as events, and returns its
//! phase for the report.

use std::time::Instant;

use std::collections::HashMap;
use std::path::Path;

use super::{Ctx, Outcome, finished};
use crate::checks::{self, CheckContext};
use crate::config::ChecksConfig;
use crate::evals::asking::engine::{self, EvalRun};
use crate::evals::judging::crowd::{self, Neighbour};
use crate::evals::judging::history;
use crate::evals::judging::set_lint::{self, History, LintInput};
use crate::events::Event;
use crate::mcp::Client;
use crate::mcp::types::Tool;
use crate::outcome::{
    ChecksResults, EvalsResults, FuzzResults, HistoryRecord, LintResults, Phase, PhaseStatus,
    TestCounts, TestResult,
};
use crate::plan::PhaseKey;
use crate::report::redact::Redactor;
use crate::suite::{self, Defaults, Selection};

/// Adds the `stdout-noise` finding to the checks that ran, counting every non-protocol line the
/// server printed in the whole session (`lines` kept, `total` in all).
pub(super) fn add_noise_finding(
    checks: Option<&mut Phase<ChecksResults>>,
    lines: &[String],
    total: usize,
    settings: &crate::settings::Settings,
) {
    let Some(phase) = checks else { return };
    let cfg = ChecksConfig {
        strict: settings.checks().strict(),
        ..settings.loaded().config.checks.clone()
    };
    if let Some(finding) = checks::stdout_noise_finding(lines, total, &cfg) {
        if finding.fails {
            phase.status = PhaseStatus::Failed;
        }
        phase.results.findings.push(finding);
    }
}

/// The static checks, over the tool list and what the server said about itself.
pub(super) fn checks(client: &Client, tools: &[Tool], ctx: &Ctx<'_>) -> Phase<ChecksResults> {
    ctx.events.emit(Event::PhaseStarted {
        phase: PhaseKey::Checks,
        total: tools.len(),
    });
    let started = Instant::now();
    let cfg = ChecksConfig {
        strict: ctx.settings.checks().strict(),
        ..ctx.settings.loaded().config.checks.clone()
    };
    let protocol_warnings = client.protocol_warnings();
    // Stdout noise is judged once the server is closed: see `add_noise_finding`.
    let check_ctx = CheckContext {
        server_name: client.info().name.as_deref(),
        protocol_version: Some(client.info().protocol_version.as_str()),
        stdout_noise: &[],
        stdout_noise_total: 0,
        protocol_warnings: &protocol_warnings,
    };
    let results = checks::run(tools, &cfg, &check_ctx);
    let failing = results.findings.iter().filter(|f| f.fails).count();
    let status = if failing > 0 {
        PhaseStatus::Failed
    } else {
        PhaseStatus::Passed
    };
    finished(
        ctx.events,
        PhaseKey::Checks,
        status,
        Some(results.counts_text()),
    );
    Phase {
        status,
        reason: None,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results,
    }
}

/// The YAML tool-call tests the filter selects, in order, on the server.
pub(super) fn tests(client: &mut Client, tools: &[Tool], ctx: &Ctx<'_>) -> Phase<Vec<TestResult>> {
    let t = ctx.settings.tests();
    ctx.events.emit(Event::PhaseStarted {
        phase: PhaseKey::Tests,
        total: t.selected().len(),
    });
    let selection = Selection {
        tests: ctx.settings.tests_list(),
        selected: t.selected(),
        defaults: Defaults {
            timeout: t.timeout(),
            retries: t.retries(),
            retry_delay: t.retry_delay(),
        },
    };
    let phase = suite::run(client, tools, selection, ctx.events, ctx.interrupt);
    let summary = phase
        .reason
        .clone()
        .unwrap_or_else(|| TestCounts::of(&phase.results).out_of_text());
    finished(ctx.events, PhaseKey::Tests, phase.status, Some(summary));
    phase
}

/// The evals engine's inputs for this run, or `None` without an `evals:` section: the evals
/// phase and the stress curve ask through the same engine.
fn eval_run<'a>(ctx: &Ctx<'a>, secrets: &'a Redactor, whole: bool) -> Option<EvalRun<'a>> {
    let cfg = if whole {
        ctx.settings.whole_eval_config()
    } else {
        ctx.settings.eval_config()
    };
    let (Some(cfg), Some(settings)) = (cfg, ctx.settings.evals()) else {
        return None;
    };
    Some(EvalRun {
        cfg,
        settings,
        base_dir: &ctx.settings.loaded().base_dir,
        env: ctx.settings.env(),
        events: ctx.events,
        interrupt: ctx.interrupt,
        secrets,
        base: None,
        plans: !whole,
    })
}

/// The neighbours of `evals.neighbours`, listed or read once for the run (`None` without
/// any).
pub(super) fn neighbours(ctx: &Ctx<'_>) -> Option<Result<Vec<Neighbour>, String>> {
    let cfg = ctx.settings.whole_eval_config()?;
    if cfg.neighbours.is_empty() {
        return None;
    }
    let base_dir = &ctx.settings.loaded().base_dir;
    Some(crowd::neighbours(cfg, base_dir, ctx.interrupt))
}

/// The tool-selection evals, then the same rows in the crowd of neighbours when there is one
/// (`ours` names the server under test as the host knows it).
pub(super) fn evals(
    tools: &[Tool],
    ctx: &Ctx<'_>,
    ours: &str,
    neighbours: Option<&Result<Vec<Neighbour>, String>>,
) -> Phase<Option<EvalsResults>> {
    let secrets = Redactor::new(ctx.settings.secrets());
    let Some(run) = eval_run(ctx, &secrets, false) else {
        return Phase::skipped("no `evals:` section in the config");
    };
    let total = run
        .settings
        .target()
        .map_or(0, |target| engine::planned_cases(run.cfg, target));
    ctx.events.emit(Event::PhaseStarted {
        phase: PhaseKey::Evals,
        total,
    });
    // The base is found first: adaptive trials ask again first where a row left the base's.
    let base = find_base(&run, ctx);
    let rows = base_rows(&run, base.as_ref(), tools);
    let run = EvalRun {
        base: (!rows.is_empty()).then_some(&rows),
        ..run
    };
    let mut phase = engine::run(tools, &run);
    compare_with_base(&mut phase, &run, base);
    // A dry run asks nothing, and a phase that stopped (budget, interrupt) asks no more.
    let asked = matches!(
        phase.status,
        crate::outcome::PhaseStatus::Passed | crate::outcome::PhaseStatus::Failed
    ) && !run.settings.dry_run();
    if let (Some(results), Some(n)) = (phase.results.as_mut(), neighbours)
        && asked
        && !ctx.interrupt.is_set()
        && results.models.iter().all(|m| m.error.is_none())
    {
        let n = n.as_ref().map(Vec::as_slice).map_err(String::as_str);
        crowd::apply(results, tools, &run, ours, n);
        retally(&mut phase);
    }
    finished(
        ctx.events,
        PhaseKey::Evals,
        phase.status,
        phase.reason.clone(),
    );
    phase
}

/// The base run to judge this one against (`--compare-to`, else the pull request's base
/// branch in the history file), with where it comes from; `None` when nothing names one.
fn find_base(run: &EvalRun<'_>, ctx: &Ctx<'_>) -> Option<history::verdict::Base> {
    use history::verdict;
    let history_file = ctx.settings.outputs().history();
    let source = verdict::source(
        run.settings.compare(),
        ctx.settings.revision().base_ref.as_deref(),
        history_file.is_some(),
    )?;
    let before = match (&source, history_file) {
        (verdict::Source::Branch(_), Some(path)) => history::read(path).map(|(e, _)| e),
        _ => Ok(Vec::new()),
    };
    Some(match before {
        // A report named on the command line is read from the working directory, as every
        // other path flag is.
        Ok(before) => verdict::base(&source, &before, Path::new(".")),
        Err(e) => Err(format!("the history file could not be read: {e}")),
    })
}

/// Each model's rows in the base run of this run's provider, for the engine's adaptive trials.
fn base_rows(
    run: &EvalRun<'_>,
    base: Option<&history::verdict::Base>,
    tools: &[Tool],
) -> HashMap<String, engine::Base> {
    let provider = run.settings.target().ok().map(|t| t.provider.name());
    let Some(Ok(models)) = base else {
        return HashMap::new();
    };
    let now = engine::digests_by_tool(&crate::evals::asking::tools::api_tools(tools));
    let mut out = HashMap::new();
    for m in models {
        let (p, model, rows) = m.rows();
        if Some(p) != provider || out.contains_key(model) {
            continue;
        }
        let rows = rows
            .iter()
            .map(|(id, [c, n])| (id.clone(), (*c, *n)))
            .collect();
        out.insert(
            model.to_owned(),
            engine::Base {
                rows,
                changed_tools: m.changed_tools(&now),
            },
        );
    }
    out
}

/// The phase's verdict again once a gate after the tally failed a model.
fn retally(phase: &mut Phase<Option<EvalsResults>>) {
    let Some(results) = phase.results.as_ref() else {
        return;
    };
    if phase.status == crate::outcome::PhaseStatus::Passed
        && !results.models.iter().all(|m| m.passed)
    {
        let again = crate::evals::judging::tally::phase(results.clone(), phase.duration_ms);
        phase.status = again.status;
        phase.reason = again.reason;
    }
}

/// Fingerprints the run and judges each model against its base run; a failing verdict fails
/// the phase.
fn compare_with_base(
    phase: &mut Phase<Option<EvalsResults>>,
    run: &EvalRun<'_>,
    base: Option<history::verdict::Base>,
) {
    use history::verdict;
    let Some(results) = phase.results.as_mut() else {
        return;
    };
    results.fingerprint = Some(verdict::fingerprint(
        run.cfg,
        run.settings,
        run.env,
        &results.tool_list_hash,
    ));
    let Some(base) = base else {
        return;
    };
    let settings = run.settings.compare();
    verdict::apply(results, &base, settings);
    if phase.status == crate::outcome::PhaseStatus::Passed
        && !results.models.iter().all(|m| m.passed)
    {
        let again = crate::evals::judging::tally::phase(results.clone(), phase.duration_ms);
        phase.status = again.status;
        phase.reason = again.reason;
    }
}

/// The stress curve, after the evals (whose answers are its list without distractors).
pub(super) fn stress(
    tools: &[Tool],
    ctx: &Ctx<'_>,
    baseline: Option<&EvalsResults>,
    neighbours: Option<&Result<Vec<Neighbour>, String>>,
) -> Phase<Option<crate::outcome::StressResults>> {
    use crate::evals::judging::stress;
    let secrets = Redactor::new(ctx.settings.secrets());
    // The stress curve runs in one shard (the first), over the whole set.
    let Some(eval) = eval_run(ctx, &secrets, true) else {
        return Phase::skipped("no `evals:` section in the config");
    };
    let Some(curve) = eval.settings.stress() else {
        return Phase::skipped(eval.settings.stress_off_reason());
    };
    // In a shard of several the evals phase asked this shard's cases only: the curve's first
    // point (the server's own list) is the whole set's, asked here first.
    let shard = ctx.settings.shard().filter(|s| s.count > 1);
    let total = eval.settings.target().map_or(0, |target| {
        let baseline = if shard.is_some() {
            crate::evals::asking::engine::planned_cases(eval.cfg, target)
        } else {
            0
        };
        stress::planned_cases(eval.cfg, target, curve) + baseline
    });
    ctx.events.emit(Event::PhaseStarted {
        phase: PhaseKey::Stress,
        total,
    });
    let whole;
    let baseline = if shard.is_some() {
        ctx.events.emit(Event::StressList {
            distractors: 0,
            order: crate::outcome::ToolOrder::Server,
            tools: tools.len(),
        });
        whole = crate::evals::asking::engine::run(tools, &eval);
        whole.results.as_ref()
    } else {
        baseline
    };
    let real = match neighbours {
        Some(Err(why)) => return Phase::error(why.clone()),
        Some(Ok(n)) => stress::real_distractors(eval.cfg, n),
        None => stress::real_distractors(eval.cfg, &[]),
    };
    let run = stress::StressRun {
        eval: &eval,
        settings: curve,
        baseline,
        real: &real,
    };
    let phase = stress::run(tools, &run);
    finished(
        ctx.events,
        PhaseKey::Stress,
        phase.status,
        phase.reason.clone(),
    );
    phase
}

/// The set lint of the eval cases, after the evals: their trials show the critical cases that
/// flipped (when they did not run, the committed answer cache does).
pub(super) fn lint(
    tools: &[Tool],
    ctx: &Ctx<'_>,
    evals: Option<&Phase<Option<EvalsResults>>>,
) -> Phase<Option<LintResults>> {
    let (Some(cfg), Some(settings)) = (ctx.settings.whole_eval_config(), ctx.settings.lint())
    else {
        return Phase::skipped("no `evals:` section in the config");
    };
    ctx.events.emit(Event::PhaseStarted {
        phase: PhaseKey::Lint,
        total: cfg.cases.len(),
    });
    let started = Instant::now();
    let history = match settings.history() {
        None => History::NotGiven,
        Some(path) => match history::last_run(path) {
            Ok(Some(run)) => History::Run(run),
            Ok(None) => History::Empty,
            Err(e) => History::Unreadable(format!("{}: {e}", path.display())),
        },
    };
    let outcomes = match evals.and_then(|p| p.results.as_ref()) {
        Some(results) if !results.models.is_empty() => set_lint::run_outcomes(results),
        _ => ctx
            .settings
            .evals()
            .map(|e| set_lint::cached_outcomes(cfg, e, tools))
            .unwrap_or_default(),
    };
    let loaded = ctx.settings.loaded();
    let input = LintInput {
        cases: &cfg.cases,
        tools,
        config_file: &loaded.path,
        evals_line: cfg.line,
        tool_choice: lint_tool_choice(ctx, cfg, tools),
        similarity_threshold: loaded.config.checks.similarity_threshold,
        history,
        outcomes,
        strict: settings.strict(),
        disable: settings.disable(),
    };
    let results = set_lint::run(&input);
    let status = if results.fails() {
        PhaseStatus::Failed
    } else {
        PhaseStatus::Passed
    };
    let summary = results.counts_text();
    finished(ctx.events, PhaseKey::Lint, status, Some(summary.clone()));
    Phase {
        status,
        reason: Some(summary),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results: Some(results),
    }
}

/// The tool choice the evals send (MCP names) and who set it: the resolved `tool_choice`, else
/// what `params.tool_choice` sends in a provider's format.
fn lint_tool_choice(
    ctx: &Ctx<'_>,
    cfg: &crate::config::EvalConfig,
    tools: &[Tool],
) -> Option<(crate::config::ToolChoice, String)> {
    if let Some(e) = ctx.settings.evals()
        && let (Some(choice), Some(origin)) = (e.tool_choice(), e.tool_choice_origin())
    {
        let origin = match origin {
            crate::settings::Origin::Yaml(key) => (*key).to_owned(),
            other => other.to_string(),
        };
        return Some((choice.clone(), origin));
    }
    let key = cfg.params_tool_choice()?;
    let choice = match crate::evals::asking::choice::from_wire(cfg.params_tool_choice_value()?)? {
        crate::config::ToolChoice::Tool(api) => crate::config::ToolChoice::Tool(
            crate::evals::asking::tools::api_tools(tools).map_back(&api),
        ),
        other => other,
    };
    Some((choice, format!("evals.{key}")))
}

/// The schema fuzzing.
pub(super) fn fuzz(
    client: &mut Client,
    tools: &[Tool],
    ctx: &Ctx<'_>,
) -> Phase<Option<FuzzResults>> {
    let Some(settings) = ctx.settings.fuzz() else {
        return Phase::skipped("no `fuzz:` section in the config");
    };
    let phase = crate::fuzz::run(client, tools, settings, ctx.events, ctx.interrupt);
    let summary = phase
        .reason
        .clone()
        .or_else(|| phase.results.as_ref().map(FuzzResults::counts_text));
    finished(ctx.events, PhaseKey::Fuzz, phase.status, summary);
    phase
}

/// Records the run in the history file (`--history`) after the phases: the eval results per
/// model (the trend goes into the evals' results), the failing findings and the failed tests,
/// and the comparison with the base branch. A file that cannot be written is noted on the evals
/// phase too, when it ran.
pub(super) fn history(path: &Path, out: &mut Outcome, ctx: &Ctx<'_>, now: &str) -> HistoryRecord {
    let gathered = history::Gathered::of(
        out.checks.as_ref(),
        out.tests.as_ref(),
        out.evals.as_ref(),
        out.inventory.as_ref(),
        &Redactor::new(ctx.settings.secrets()),
    );
    let loaded = ctx.settings.loaded();
    let recorded = history::record(
        path,
        gathered.facts(),
        now,
        &loaded.base_dir,
        ctx.settings.revision(),
    );
    history::outcome(path, recorded, out.evals.as_mut())
}

/// The latency benchmarks, on this session and as many more as `connections` asks.
pub(super) fn bench(
    client: &mut Client,
    tools: &[Tool],
    ctx: &Ctx<'_>,
) -> Phase<Option<crate::outcome::BenchResults>> {
    let Some(settings) = ctx.settings.bench() else {
        return Phase::skipped("no `bench:` section in the config");
    };
    ctx.events.emit(Event::PhaseStarted {
        phase: PhaseKey::Bench,
        total: settings.targets.len(),
    });
    let (spec, opts) = crate::mcp::spec::server_spec(ctx.settings.loaded());
    let run = crate::bench::BenchRun {
        settings,
        server: (&spec, &opts),
        interrupt: ctx.interrupt,
    };
    let phase = crate::bench::run(client, tools, &run);
    let summary = phase.results.as_ref().map_or_else(
        || phase.reason.clone().unwrap_or_default(),
        |r| format!("{}/{} within limits", r.passed(), r.targets.len()),
    );
    finished(ctx.events, PhaseKey::Bench, phase.status, Some(summary));
    phase
}

/// The protocol checks, on probe connections of their own.
pub(super) fn protocol(ctx: &Ctx<'_>) -> Phase<Option<crate::outcome::ProtocolResults>> {
    let Some(settings) = ctx.settings.protocol() else {
        return Phase::skipped("no `protocol:` section in the config");
    };
    let started = std::time::Instant::now();
    ctx.events.emit(Event::PhaseStarted {
        phase: PhaseKey::Protocol,
        total: crate::protocol::PROTOCOL_CHECK_IDS.len(),
    });
    let (spec, opts) = crate::mcp::spec::server_spec(ctx.settings.loaded());
    let run = crate::protocol::ProtocolRun {
        disabled: settings.disable(),
        strict: settings.strict(),
        timeout: settings.timeout(),
        startup: opts.startup_timeout,
        interrupt: ctx.interrupt,
    };
    let results = match crate::protocol::run(&spec, &run) {
        Ok(r) => r,
        Err(e) => {
            let reason = e.to_string();
            finished(
                ctx.events,
                PhaseKey::Protocol,
                PhaseStatus::Error,
                Some(reason.clone()),
            );
            return Phase {
                duration_ms: started.elapsed().as_secs_f64() * 1000.0,
                ..Phase::error(reason)
            };
        }
    };
    let status = if results.fails() {
        PhaseStatus::Failed
    } else {
        PhaseStatus::Passed
    };
    let summary = results.counts_text();
    finished(
        ctx.events,
        PhaseKey::Protocol,
        status,
        Some(summary.clone()),
    );
    Phase {
        status,
        reason: Some(summary),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results: Some(results),
    }
}
