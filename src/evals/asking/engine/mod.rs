//! The evals phase: resolve provider and models, look every (case, trial) up in the cache, ask
//! the provider for the rest on a pool of worker threads, score, and gate. Output order is
//! always the case order, whatever order the answers came in.

mod adaptive;
mod ask;
mod batch;
mod cached;
mod cost;
mod offline;
mod order;
mod planning;
mod progress;
mod spend;

pub(crate) use adaptive::Base;
use adaptive::RowState;
use ask::{Asking, announce, build_client};
use cached::read_cached;
use offline::{recorded_elsewhere, tool_digests, why_missed};
use progress::Progress;
use spend::Spend;

pub(crate) use planning::{detectable, hint_left_out};

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::cache::{Cache, Keyer, Lookup};
use super::choice;
use super::tools::{ApiTools, api_tools};
use crate::config::{CaseTrials, EvalCase, EvalConfig, OpenAiApi, ToolChoice, ToolOrderMode, Turn};
use crate::evals::judging::grade::{self, Label};
use crate::evals::judging::tally::{self, LabelledCase, Rules};
use crate::evals::{ApiTool, Choice};
use crate::events::Events;
use crate::interrupt::Interrupt;
use crate::mcp::types::Tool;
use crate::outcome::ContextEntry;
use crate::outcome::{
    AnswerKind, BudgetUse, CacheUse, ConcurrencyUse, EvalsResults, GateKind, ModelEval, Phase,
    PhaseStatus, ToolListTokens, ToolTokens, TrialResult,
};
use crate::provider::prices::PriceTable;
use crate::provider::usage::Recorded;
use crate::provider::window::WindowUse;
use crate::provider::{Kind, Pacer, Provider, ProviderError, RetryPolicy};
use crate::report::redact::Redactor;
use crate::settings::{Env, EvalSettings, EvalTarget};

/// `max_tokens` sent to Anthropic when the YAML sets none (the reference's value).
const DEFAULT_MAX_TOKENS: u32 = 16_000;

/// What one evals phase needs besides the tool list: the `evals:` section, the resolved
/// settings, where relative paths start, and the run's environment, events and interrupt.
pub(crate) struct EvalRun<'a> {
    /// The `evals:` section.
    pub cfg: &'a EvalConfig,
    /// Provider, models, gates and cache switches, resolved.
    pub settings: &'a EvalSettings,
    /// The config file's folder (the command provider runs there).
    pub base_dir: &'a Path,
    /// Where API keys and endpoints are read.
    pub env: &'a Env,
    /// Progress goes here.
    pub events: &'a Events,
    /// Stops the phase early.
    pub interrupt: &'a Interrupt,
    /// The run's secrets: masked in every answer before it is scored or stored.
    pub secrets: &'a Redactor,
    /// The base run, per model, when the run has one: `trials: auto` asks the rows unlike
    /// the base first, and weighs each row's answers against the base's.
    pub base: Option<&'a HashMap<String, Base>>,
    /// This is the evals phase: it prints its plan, honours `--dry-run` and keeps the budget
    /// (the stress curve's lists, asked through the same engine, do neither).
    pub plans: bool,
}

/// `max_tokens` of a request: the provider's own default when it has one (`evals.max_tokens`
/// then travels in `params`), else `evals.max_tokens`, else 16000.
fn request_max_tokens(cfg: &EvalConfig, kind: &dyn Kind) -> u32 {
    kind.default_max_tokens()
        .unwrap_or_else(|| cfg.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS))
}

/// The request parameters for a provider: `params`, plus `max_tokens` under the name the API
/// reads when the YAML sets it (an explicit `params` key wins): Anthropic's `max_tokens`, and
/// for OpenAI `openai_max_tokens_key` (see [`EvalSettings::openai_max_tokens_key`]), plus the
/// tool choice (API-safe names, see [`choice`]) in the provider's format for the HTTP
/// providers, exactly as a `params.tool_choice` would be sent and hashed. The command provider
/// is sent no `params`.
///
/// Whatever is sent is hashed: a `max_tokens: N` sent to a compatible server keys as the
/// reference keys `params: {max_tokens: N}`.
pub(crate) fn request_params(
    cfg: &EvalConfig,
    kind: &dyn Kind,
    tool_choice: Option<&ToolChoice>,
    openai_max_tokens_key: &str,
) -> Map<String, Value> {
    let mut params = cfg.params.clone();
    // `auto` is what the request carries anyway (and what keys the reference's cache); an
    // explicit one adds nothing, and must not be sent to a tool-less request.
    if let Some(c) = tool_choice.filter(|c| kind.tool_choice_in_params() && **c != ToolChoice::Auto)
    {
        params
            .entry("tool_choice")
            .or_insert_with(|| kind.tool_choice_wire(c));
    }
    if let Some(n) = cfg.max_tokens {
        let key = if kind.speaks_openai() && cfg.openai_api == OpenAiApi::Responses {
            "max_output_tokens"
        } else {
            kind.max_tokens_key(openai_max_tokens_key)
        };
        params.entry(key).or_insert_with(|| Value::from(n));
    }
    params
}

/// One (case, trial) of a model: which case, which trial (from 1), its cache key when the
/// cache is used, and the tool list it sends when it is not the server's order
/// (`tool_order: shuffled`).
#[derive(Clone)]
struct Item {
    case: usize,
    trial: u32,
    key: Option<String>,
    tools: Option<Vec<ApiTool>>,
}

/// The most times `case` is asked: its own `trials`, else the section's, at least once
/// (`max_trials` under `auto`).
fn trials_of(cfg: &EvalConfig, case: &EvalCase) -> u32 {
    cfg.trials_of(case).max
}

/// Cases the phase will report: every case, for every model.
pub(crate) fn planned_cases(cfg: &EvalConfig, target: &EvalTarget) -> usize {
    cfg.cases.len() * target.models.len()
}

/// What came back for one item: a cached answer with the usage its entry recorded, a fresh
/// one with the usage its server reported (and its cost, when the model has a price), and
/// whether that server reported a broken usage (past `MAX_ANSWER_TOKENS`, not counted).
enum Got {
    Cached(Choice, Option<Recorded>),
    Asked(Choice, Duration, Option<Recorded>, bool),
    Failed(String, Duration),
    NotAsked,
}

/// The name of a case: its `name`, or the prompt on one line, shortened.
pub(crate) fn case_name(case: &EvalCase) -> String {
    case.name.clone().unwrap_or_else(|| {
        let prompt = &case.prompt;
        // Most prompts are short and singly spaced already.
        if prompt.len() <= 60
            && !prompt.starts_with(' ')
            && !prompt.ends_with(' ')
            && !prompt.contains("  ")
            && !prompt.contains(|c: char| c.is_whitespace() && c != ' ')
        {
            return prompt.clone();
        }
        let flat = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
        if flat.chars().count() <= 60 {
            flat
        } else {
            flat.chars().take(59).collect::<String>() + "…"
        }
    })
}

/// The tool choice as the model is offered it (a named tool by its API-safe name), when one
/// is set; an error that says why when it names a tool the model is not offered.
pub(crate) fn offered_choice(
    settings: &EvalSettings,
    api: &ApiTools,
) -> Result<Option<ToolChoice>, String> {
    settings
        .tool_choice()
        .map(|c| choice::offered(c, api))
        .transpose()
}

/// Every cache key the current cases can hit (for `cache status` and `cache prune`), with
/// the tool choice the settings send; an error when it names a tool the model is not offered.
pub(crate) fn all_keys(
    tools: &[Tool],
    cfg: &EvalConfig,
    resolved: &EvalTarget,
    settings: &EvalSettings,
) -> Result<Vec<(String, usize, u32, String)>, String> {
    let api = api_tools(tools);
    let tool_choice = offered_choice(settings, &api)?;
    let kind = resolved.provider;
    let params = request_params(
        cfg,
        kind,
        tool_choice.as_ref(),
        settings.openai_max_tokens_key(),
    );
    let mut keys = Vec::new();
    for model in &resolved.models {
        let keyer = Keyer::new(
            &kind.cache_name(cfg),
            model,
            cfg.system.as_deref(),
            &api.tools,
            &params,
        );
        for (i, case) in cfg.cases.iter().enumerate() {
            for trial in 1..=trials_of(cfg, case) {
                let key = match sent_order(cfg, &api.tools, case, trial) {
                    Some(tools) => Keyer::new(
                        &kind.cache_name(cfg),
                        model,
                        cfg.system.as_deref(),
                        &tools,
                        &params,
                    )
                    .key_in(&case.turns(), &case.prompt, trial),
                    None => keyer.key_in(&case.turns(), &case.prompt, trial),
                };
                keys.push((model.clone(), i, trial, key));
            }
        }
    }
    Ok(keys)
}

/// Runs the evals phase: every model in turn, cached answers first, the rest asked on a pool
/// of workers. Stops early (what was not asked is "not run") when the run is interrupted.
pub(crate) fn run(tools: &[Tool], r: &EvalRun<'_>) -> Phase<Option<EvalsResults>> {
    let started = Instant::now();
    let target = match r.settings.target() {
        Ok(t) => t,
        Err(e) => return Phase::error(e.to_string()),
    };
    let cfg = r.cfg;
    let api = api_tools(tools);
    let kind = target.provider;
    let use_cache = cfg.cache && kind.caches_answers();
    let mut results = EvalsResults {
        provider: kind.name().into(),
        left_out_tools: api.left_out.clone(),
        tool_list_hash: tool_list_hash(&api),
        tool_tokens: Some(tool_tokens(&api)),
        cache: CacheUse {
            read: use_cache && !r.settings.no_cache(),
            write: use_cache,
            dir: use_cache.then(|| cfg.cache_dir.display().to_string()),
            ..CacheUse::default()
        },
        config_models: cfg.named_models(),
        ..EvalsResults::default()
    };
    let tool_choice = match offered_choice(r.settings, &api) {
        Ok(c) => c,
        Err(e) => return Phase::error(e),
    };
    let params = request_params(
        cfg,
        kind,
        tool_choice.as_ref(),
        r.settings.openai_max_tokens_key(),
    );
    let by_name: HashMap<&str, &Tool> = tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let pacer = Arc::new(
        Pacer::observed(
            RetryPolicy {
                max_retries: cfg.max_retries,
                base_delay: Duration::from_millis(500),
                max_delay: Duration::from_secs(8),
                request_timeout: crate::config::limits::seconds(cfg.request_timeout_s),
            },
            announce(r.events.clone()),
            r.interrupt.clone(),
        )
        .with_window(cfg.concurrency.max(1) as usize, cfg.adaptive_concurrency),
    );
    let ctx = Ctx {
        cfg,
        api: &api,
        params: &params,
        tool_choice: tool_choice
            .filter(|_| !kind.tool_choice_in_params())
            .map(|c| kind.tool_choice_wire(&c)),
        by_name: &by_name,
        kind,
        cache: Cache::new(&cfg.cache_dir).recording_tools(tool_digests(&api)),
        run: r,
        pacer,
        prices: PriceTable::new(&cfg.prices),
        started,
        spend: Arc::new(if r.plans {
            Spend::new(r.settings.budget())
        } else {
            Spend::unlimited()
        }),
    };
    // Every model's items and cached answers first: the plan is made before any request.
    let prepared: Vec<Prepared> = target
        .models
        .iter()
        .map(|model| prepare(&ctx, model, &mut results.cache))
        .collect();
    if !r.plans {
        return ask_models(&ctx, &target.models, prepared, results, started);
    }
    plan_then_ask(&ctx, &target.models, prepared, results)
}

/// The plan: printed, checked against the budget (over it, nothing is asked), and under
/// `--dry-run` the end of the phase; else every model is asked.
fn plan_then_ask(
    ctx: &Ctx<'_>,
    models: &[String],
    prepared: Vec<Prepared>,
    mut results: EvalsResults,
) -> Phase<Option<EvalsResults>> {
    let (r, started) = (ctx.run, ctx.started);
    let mut plan = plan_of(ctx, models, &prepared, results.cache.write);
    let budget = r.settings.budget();
    r.events.emit(crate::events::Event::Plan {
        lines: planning::lines(&plan, budget.is_set().then(|| budget.text()).as_deref()),
    });
    if let Some(why) = planning::over_budget(&plan, budget) {
        plan.budget = Some(planning::refused(budget, &why));
        results.plan = Some(plan);
        return over_budget_phase(results, started, why);
    }
    if plan.dry_run {
        let reason = format!(
            "dry run: {} request{} planned, nothing asked",
            plan.requests(),
            if plan.requests() == 1 { "" } else { "s" }
        );
        results.plan = Some(plan);
        let mut phase = Phase::skipped(reason);
        phase.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        phase.results = Some(results);
        return phase;
    }
    if budget.is_set() {
        // Filled in below, once asked: what the run spent.
        plan.budget = Some(BudgetUse::default());
    }
    results.plan = Some(plan);
    ask_models(ctx, models, prepared, results, started)
}

/// Asks every model its uncached items in turn, then scores the phase.
fn ask_models(
    ctx: &Ctx<'_>,
    models: &[String],
    prepared: Vec<Prepared>,
    mut results: EvalsResults,
    started: Instant,
) -> Phase<Option<EvalsResults>> {
    let r = ctx.run;
    let cfg = ctx.cfg;
    let kind = ctx.kind;
    // Built on first need: a fully cached run needs no key.
    let mut client: Option<Result<Arc<dyn Provider>, ProviderError>> = None;
    for (model, prepared) in models.iter().zip(prepared) {
        if r.interrupt.is_set() {
            break;
        }
        let eval = eval_model(ctx, model, prepared, &mut results.cache, &mut client);
        results.models.push(eval);
    }
    if let Some(budget) = results.plan.as_mut().and_then(|p| p.budget.as_mut()) {
        *budget = ctx.spend.used(r.settings.budget());
    }
    if kind.caches_answers() {
        let used = ctx.pacer.usage();
        results.cache.requests = used.requests;
        results.cache.retries = used.retries;
        results.concurrency = Some(concurrency_use(cfg, used.window));
    }
    finish_phase(results, started, r.interrupt)
}

/// One model's items, the answers the cache holds for them (counted in `cache_use`), and
/// those answers judged (once: progress and scoring reuse them).
type Prepared = (Vec<Item>, Vec<Got>, Vec<Option<TrialResult>>);

/// One model's items and cached answers, judged (see [`Prepared`]).
fn prepare(ctx: &Ctx<'_>, model: &str, cache_use: &mut CacheUse) -> Prepared {
    let items = items_of(ctx, model, cache_use.write);
    let mut got: Vec<Got> = items.iter().map(|_| Got::NotAsked).collect();
    if cache_use.read {
        for (idx, found) in read_cached(&ctx.cache, &items).into_iter().enumerate() {
            let Some(found) = found else { continue };
            match found {
                (Lookup::Hit(choice), recorded) => {
                    cache_use.hits += 1;
                    got[idx] = Got::Cached(choice, recorded);
                }
                (Lookup::Corrupt(_), _) => cache_use.corrupt += 1,
                (Lookup::Miss, _) => {}
            }
        }
    }
    let judged = items
        .iter()
        .zip(&got)
        .map(|(item, g)| {
            matches!(g, Got::Cached(..)).then(|| trial_of(ctx, &ctx.cfg.cases[item.case], g))
        })
        .collect();
    (items, got, judged)
}

/// The items not answered by the cache.
fn pending_of(got: &[Got]) -> Vec<usize> {
    (0..got.len())
        .filter(|i| matches!(got[*i], Got::NotAsked))
        .collect()
}

/// The plan of every model: what is cached, what will be sent (nothing offline), and the
/// estimate of its tokens and cost.
fn plan_of(
    ctx: &Ctx<'_>,
    models: &[String],
    prepared: &[Prepared],
    write: bool,
) -> crate::outcome::EvalPlan {
    let offline = offline_for(ctx.run.settings, ctx.kind);
    let list_tokens = if ctx.api.tools.is_empty() {
        0
    } else {
        tool_tokens(ctx.api).total
    };
    let cache_use = CacheUse {
        write,
        ..CacheUse::default()
    };
    let models = models
        .iter()
        .zip(prepared)
        .map(|(model, (items, got, judged))| {
            // Under `trials: auto` the plan counts a case's first wave: later trials are asked
            // only while the case is undecided (the budget still stops them mid-run).
            let first = |i: &usize| {
                let item = &items[*i];
                item.trial <= adaptive::first_wave(ctx.cfg.trials_of(&ctx.cfg.cases[item.case]))
            };
            let pending: Vec<usize> = if offline {
                Vec::new()
            } else {
                pending_of(got).into_iter().filter(first).collect()
            };
            let batch = batches(ctx, &cache_use, items, &pending);
            let base = base_rows(ctx, items, judged);
            planning::model_plan(
                ctx,
                model,
                (items, got, &base),
                (&pending, batch),
                list_tokens,
            )
        })
        .collect();
    crate::outcome::EvalPlan {
        dry_run: ctx.run.settings.dry_run(),
        models,
        budget: None,
    }
}

/// Each case's (correct, trials) as the plan reads the base: its cached answers when the
/// cache holds every trial, else right on every trial (the set at its most telling).
fn base_rows(ctx: &Ctx<'_>, items: &[Item], judged: &[Option<TrialResult>]) -> Vec<(u32, u32)> {
    let mut rows: Vec<(u32, u32, bool)> = vec![(0, 0, true); ctx.cfg.cases.len()];
    for (item, j) in items.iter().zip(judged) {
        let row = &mut rows[item.case];
        row.1 += 1;
        match j {
            Some(t) if t.passed => row.0 += 1,
            Some(_) => {}
            None => row.2 = false,
        }
    }
    rows.into_iter()
        .map(|(correct, trials, cached)| {
            if cached {
                (correct, trials)
            } else {
                (trials, trials)
            }
        })
        .collect()
}

/// A plan over the budget: nothing asked, the phase an error that says the plan and the
/// budget (the run exits with 2).
fn over_budget_phase(
    results: EvalsResults,
    started: Instant,
    why: String,
) -> Phase<Option<EvalsResults>> {
    Phase {
        status: PhaseStatus::Error,
        reason: Some(format!("over budget, nothing asked: {why}")),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results: Some(results),
    }
}

/// What the in-flight window did, as the report says it.
fn concurrency_use(cfg: &EvalConfig, w: WindowUse) -> ConcurrencyUse {
    ConcurrencyUse {
        configured: w.configured,
        adaptive: cfg.adaptive_concurrency,
        lowest: w.lowest,
        last: w.last,
        lowered: w.lowered,
        timeouts: w.timeouts,
        answered: w.answered,
    }
}

/// The phase's status and one-line verdict (see [`tally::phase`]); an interrupted phase
/// is an error that says so.
fn finish_phase(
    results: EvalsResults,
    started: Instant,
    interrupt: &Interrupt,
) -> Phase<Option<EvalsResults>> {
    let mut phase = tally::phase(results, started.elapsed().as_secs_f64() * 1000.0);
    if let Some(signal) = interrupt.signal() {
        phase.status = PhaseStatus::Error;
        let verdict = phase.reason.take().unwrap_or_default();
        phase.reason = Some(format!("interrupted by {}: {verdict}", signal.name()));
    }
    phase
}

struct Ctx<'a> {
    cfg: &'a EvalConfig,
    api: &'a ApiTools,
    params: &'a Map<String, Value>,
    /// The tool choice in the command provider's shape (the HTTP providers have it in `params`).
    tool_choice: Option<Value>,
    by_name: &'a HashMap<&'a str, &'a Tool>,
    kind: &'static dyn Kind,
    cache: Cache,
    run: &'a EvalRun<'a>,
    pacer: Arc<Pacer>,
    /// `evals.prices` over the built-in list prices.
    prices: PriceTable,
    /// When the phase started: the batch deadline counts from it, for every model's batches.
    started: Instant,
    /// The budget, as the requests draw on it.
    spend: Arc<Spend>,
}

/// One model: cached answers, then the provider for the rest, then the score. Under
/// `trials: auto` this goes in waves (see [`adaptive`]): every case's `min_trials`, then one
/// more trial of each undecided case, until none is undecided. Each wave reads the cache
/// first, so a re-run replays the same waves from it.
fn eval_model(
    ctx: &Ctx<'_>,
    model: &str,
    (items, got, judged): Prepared,
    cache_use: &mut CacheUse,
    client: &mut Option<Result<Arc<dyn Provider>, ProviderError>>,
) -> ModelEval {
    let cfg = ctx.cfg;
    let bounds: Vec<CaseTrials> = cfg.cases.iter().map(|c| cfg.trials_of(c)).collect();
    let wanted: Vec<bool> = items
        .iter()
        .map(|it| it.trial <= adaptive::first_wave(bounds[it.case]))
        .collect();
    let held = bounds.iter().map(|b| b.auto).collect();
    // `--offline` keeps model APIs from being called; a local command is no API.
    let offline = offline_for(ctx.run.settings, ctx.kind);
    let mut asker = Asker {
        ctx,
        model,
        items: &items,
        offline,
        cache_use: &mut *cache_use,
        client,
        got,
        progress: Progress::new(ctx, model, &items, &wanted, held).judged_before(judged),
        wanted,
        batched: 0,
    };
    let base = ctx.run.base.and_then(|b| b.get(model));
    let mut fatal = asker.waves(rows_of(ctx, base, &bounds), base);
    // Asking stopped at the budget: what was not asked is not run, and never a pass.
    if fatal.is_none() && ctx.spend.reached() {
        fatal = Some(ctx.spend.reached_text(ctx.run.settings.budget()));
    }
    let Asker {
        got,
        mut progress,
        wanted,
        batched,
        ..
    } = asker;
    progress.flush_not_asked(ctx, &items, &got);
    // Only the trials asked for are reported: the rest of `max_trials` never happened.
    let (mut asked, mut answers, mut judged) = (Vec::new(), Vec::new(), Vec::new());
    for (((item, g), j), _) in items
        .into_iter()
        .zip(got)
        .zip(progress.into_judged())
        .zip(wanted)
        .filter(|(_, w)| *w)
    {
        asked.push(item);
        answers.push(g);
        judged.push(j);
    }
    let elsewhere = (offline && cache_use.read && fatal.is_none())
        .then(|| why_missed(ctx, model, &asked, &answers))
        .flatten();
    let min_accuracy = ctx.run.settings.min_accuracy();
    let mut eval = score_model(
        ctx,
        model,
        &asked,
        (answers, judged),
        fatal,
        min_accuracy,
        offline,
    );
    eval.batched = batched;
    if let Some(elsewhere) = elsewhere {
        for gate in eval
            .gates
            .iter_mut()
            .filter(|g| g.kind == GateKind::Offline)
        {
            gate.detail
                .push_str(&format!("; {}", recorded_elsewhere(&elsewhere)));
        }
    }
    eval
}

/// Each case as the scheduler first sees it: its bounds, the base's row when the run has a
/// base that holds it, and whether its expected tool changed since the base.
fn rows_of(ctx: &Ctx<'_>, base: Option<&adaptive::Base>, bounds: &[CaseTrials]) -> Vec<RowState> {
    let ids = base.map(|_| crate::settings::case_ids(&ctx.cfg.cases));
    bounds
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let row = ids
                .as_ref()
                .zip(base)
                .and_then(|(ids, base)| base.rows.get(&ids[i]));
            let expected = ctx.cfg.cases[i].expect_tool.clone().flatten();
            let changed = base.is_some_and(|base| base.changed(expected.as_deref(), []));
            RowState::new(*b, row.copied(), changed)
        })
        .collect()
}

/// One model's items being asked: the answers so far, which items are asked for, progress.
struct Asker<'a, 'c> {
    ctx: &'a Ctx<'c>,
    model: &'a str,
    items: &'a [Item],
    offline: bool,
    cache_use: &'a mut CacheUse,
    client: &'a mut Option<Result<Arc<dyn Provider>, ProviderError>>,
    got: Vec<Got>,
    progress: Progress,
    /// The items asked for so far (every item of a fixed case from the start).
    wanted: Vec<bool>,
    /// Trials a batch answered.
    batched: usize,
}

impl Asker<'_, '_> {
    /// Asks the first wave (every wanted item), then the waves the scheduler asks for until
    /// every case is decided. Returns the fatal error that stopped it, if any.
    fn waves(&mut self, mut rows: Vec<RowState>, base: Option<&adaptive::Base>) -> Option<String> {
        let (ctx, items) = (self.ctx, self.items);
        let mut wave: Vec<usize> = (0..items.len()).filter(|&i| self.wanted[i]).collect();
        loop {
            let fatal = self.wave(&wave);
            if fatal.is_some() || ctx.run.interrupt.is_set() {
                return fatal;
            }
            for &idx in &wave {
                let row = &mut rows[items[idx].case];
                if !row.bounds.auto {
                    // A fixed case is decided by its count alone.
                    row.answered(false);
                    continue;
                }
                let trial = self.progress.judged(ctx, idx, items, &self.got);
                let picked = trial.calls.iter().map(|c| c.tool.as_str());
                row.changed |= base.is_some_and(|base| base.changed(None, picked));
                match trial.kind {
                    AnswerKind::ProviderError | AnswerKind::NotAsked => row.stuck = true,
                    _ => row.answered(trial.passed),
                }
            }
            let next = adaptive::next_wave(&rows);
            for (case, row) in rows.iter().enumerate() {
                if row.bounds.auto && adaptive::decided(row) {
                    self.progress.release(ctx, case, items, &self.got);
                }
            }
            if next.is_empty() {
                return None;
            }
            // A case's items are its trials in order, from its first.
            wave = next
                .into_iter()
                .map(|case| self.progress.first_item(case) + rows[case].trials as usize)
                .collect();
            for &idx in &wave {
                self.wanted[idx] = true;
                self.progress.want(idx, items);
            }
        }
    }

    /// One wave of items: their cached answers, then the provider (a batch or live) for the
    /// rest. Returns the fatal error that stopped it, if any.
    fn wave(&mut self, wave: &[usize]) -> Option<String> {
        let (ctx, items) = (self.ctx, self.items);
        let cfg = ctx.cfg;
        // The cache was read for every item before the plan: a cached answer arrives in the
        // wave that asks for it.
        for &idx in wave {
            if matches!(self.got[idx], Got::Cached(..)) {
                self.progress.arrived(ctx, idx, items, &self.got);
            }
        }
        let pending: Vec<usize> = wave
            .iter()
            .copied()
            .filter(|i| matches!(self.got[*i], Got::NotAsked))
            .collect();
        if pending.is_empty() || self.offline || ctx.run.interrupt.is_set() {
            return None;
        }
        let built = self.client.get_or_insert_with(|| {
            build_client(cfg, ctx.kind, ctx.run.base_dir, ctx.run.env).map(Arc::from)
        });
        match built {
            Err(e) => Some(e.to_string()),
            // A provider without a batch API cannot honour `always` (no live fallback).
            Ok(_) if ctx.run.settings.batch().always() && !ctx.kind.batches() => Some(format!(
                "batch mode is `always`, but the {} provider has no batch API\nhint: use `--batch auto` or `never` (evals.batch), which ask it live",
                ctx.kind.name()
            )),
            Ok(p) => {
                let p = Arc::clone(p);
                if batches(ctx, self.cache_use, items, &pending)
                    && ctx.spend.take_many(pending.len() as u64)
                {
                    let sent = batch::Batching {
                        ctx,
                        provider: Arc::clone(&p),
                        model: self.model,
                        items,
                        cache_use: &mut *self.cache_use,
                    }
                    .run(&pending, &mut self.got, &mut self.progress);
                    self.batched += sent.count;
                    if !sent.live {
                        return sent.fatal;
                    }
                }
                Asking {
                    ctx,
                    provider: p,
                    model: self.model,
                    items,
                    cache_use: &mut *self.cache_use,
                }
                .ask_all(&pending, &mut self.got, &mut self.progress)
            }
        }
    }
}

/// Every (case, trial) of one model in case order, with its cache key when the cache is used.
fn items_of(ctx: &Ctx<'_>, model: &str, keyed: bool) -> Vec<Item> {
    let cfg = ctx.cfg;
    let keyer = keyed.then(|| {
        Keyer::new(
            &ctx.kind.cache_name(ctx.cfg),
            model,
            cfg.system.as_deref(),
            &ctx.api.tools,
            ctx.params,
        )
    });
    let mut items = Vec::new();
    for (i, case) in cfg.cases.iter().enumerate() {
        let turns = case.turns();
        for trial in 1..=trials_of(cfg, case) {
            let tools = sent_order(cfg, &ctx.api.tools, case, trial);
            let key = match (&tools, keyed) {
                // The key follows the list as sent.
                (Some(tools), true) => Some(
                    Keyer::new(
                        &ctx.kind.cache_name(ctx.cfg),
                        model,
                        cfg.system.as_deref(),
                        tools,
                        ctx.params,
                    )
                    .key_in(&turns, &case.prompt, trial),
                ),
                _ => keyer
                    .as_ref()
                    .map(|k| k.key_in(&turns, &case.prompt, trial)),
            };
            items.push(Item {
                case: i,
                trial,
                key,
                tools,
            });
        }
    }
    items
}

/// The tool list trial `trial` of `case` sends when it is not the server's order: with
/// `tool_order: shuffled`, the order [`order::shuffled`] draws for the case and trial.
fn sent_order(
    cfg: &EvalConfig,
    tools: &[ApiTool],
    case: &EvalCase,
    trial: u32,
) -> Option<Vec<ApiTool>> {
    if cfg.tool_order != ToolOrderMode::Shuffled || tools.len() < 2 {
        return None;
    }
    let identity = crate::settings::case_identity(case);
    Some(
        order::shuffled(tools.len(), &identity, trial)
            .into_iter()
            .map(|i| tools[i].clone())
            .collect(),
    )
}

/// Whether the pending items go through a batch: the settings say so for this many distinct
/// requests, and every item has a cache key (results land in the cache, and a re-run finds
/// the batch by them).
fn batches(ctx: &Ctx<'_>, cache_use: &CacheUse, items: &[Item], pending: &[usize]) -> bool {
    let distinct: std::collections::HashSet<&str> = pending
        .iter()
        .filter_map(|&i| items[i].key.as_deref())
        .collect();
    // A batch request carries the one list of the phase: shuffled lists are asked live.
    cache_use.write
        && ctx.cfg.tool_order == ToolOrderMode::Server
        && distinct.len() == pending.len()
        && ctx
            .run
            .settings
            .batch()
            .batches(ctx.kind.batches(), distinct.len())
}

/// One trial as reported: the answer judged against the case's label, or why there is none.
fn trial_of(ctx: &Ctx<'_>, case: &EvalCase, got: &Got) -> TrialResult {
    let ms = |took: Duration| took.as_secs_f64() * 1000.0;
    let (choice, cached, took) = match got {
        Got::Cached(c, _) => (c, true, Duration::ZERO),
        Got::Asked(c, took, _, _) => (c, false, *took),
        Got::Failed(message, took) => return tally::provider_failed(message.clone(), ms(*took)),
        Got::NotAsked => return tally::not_asked(),
    };
    let expected = case.expect_tool.clone().flatten();
    let judged = grade::judge(
        Label {
            tool: expected.as_deref(),
            args: &case.expect_args,
        },
        choice,
        ctx.by_name,
        ctx.cfg.multiple_calls,
    );
    tally::answered(choice, judged, cached, ms(took))
}

/// `--offline` applies to model APIs only: a local command is no API.
fn offline_for(settings: &EvalSettings, kind: &dyn Kind) -> bool {
    settings.offline() && kind.caches_answers()
}

/// Scores one model's answers (see [`tally::score_model`]); `judged` holds the trials
/// progress already judged, and any other answer is judged here.
fn score_model(
    ctx: &Ctx<'_>,
    model: &str,
    items: &[Item],
    (got, judged): (Vec<Got>, Vec<Option<TrialResult>>),
    fatal: Option<String>,
    min_accuracy: f64,
    offline: bool,
) -> ModelEval {
    let cfg = ctx.cfg;
    let cost = cost::of_model(&got, ctx.prices.lookup(model));
    // A model API renders the tools into the prompt it counts; a command's usage is whatever
    // the command says, and proves nothing about a tool list.
    // An API without a `none` tool choice is sent no tools at all under it.
    let no_tools_sent = ctx.params.get("tool_choice").and_then(Value::as_str) == Some("none")
        && !ctx.kind.lists_tools_under_none();
    let unseen = (ctx.kind.caches_answers() && !ctx.api.tools.is_empty() && !no_tools_sent)
        .then(|| cost::tools_unseen(&got, tool_tokens(ctx.api).total))
        .flatten();
    let mut trials: Vec<Vec<TrialResult>> = cfg.cases.iter().map(|_| Vec::new()).collect();
    // Where each trial's list put the expected tool (shuffled lists only).
    let mut positions: Vec<Vec<Option<usize>>> = cfg.cases.iter().map(|_| Vec::new()).collect();
    for ((item, g), judged) in items.iter().zip(&got).zip(judged) {
        let case = &cfg.cases[item.case];
        trials[item.case].push(judged.unwrap_or_else(|| trial_of(ctx, case, g)));
        let expected = case.expect_tool.clone().flatten();
        positions[item.case].push(item.tools.as_ref().and_then(|tools| {
            let expected = expected.as_deref()?;
            tools
                .iter()
                .position(|t| ctx.api.map_back(&t.name) == expected)
        }));
    }
    if cfg.tool_order == ToolOrderMode::Shuffled {
        for ((case, trials), positions) in cfg.cases.iter().zip(&mut trials).zip(&positions) {
            let expected = case.expect_tool.clone().flatten();
            let note = order_note(expected.as_deref(), trials, positions, ctx.api.tools.len());
            if let (Some(note), Some(first)) = (note, trials.first_mut()) {
                first.notes.push(note);
            }
        }
    }
    let cases = cfg
        .cases
        .iter()
        .zip(trials)
        .map(|(case, trials)| LabelledCase {
            name: case_name(case),
            prompt: case.prompt.clone(),
            why: case.why.clone(),
            critical: case.critical,
            line: case.line,
            file: case.file.as_ref().map(|f| f.display().to_string()),
            expect_tool: case.expect_tool.clone().flatten(),
            expect_args: Value::Object(case.expect_args.clone()),
            trials,
        })
        .collect();
    let rules = Rules {
        min_accuracy,
        min_wilson_lower: cfg.min_wilson_lower,
        offline,
        trials: cfg.trials.at_most(cfg.max_trials),
    };
    let mut eval = tally::score_model(model, &rules, fatal, cases);
    for (result, case) in eval.cases.iter_mut().zip(&cfg.cases) {
        result.context = context_entries(&case.turns());
    }
    eval.cost = Some(cost);
    tally::tools_unseen(&mut eval, unseen);
    eval
}

/// With `tool_order: shuffled`, a case right under some orders and wrong under others says
/// so, with where the expected tool stood in the list each time: `right and wrong under
/// different tool orders: right with `add` at position 1, 1 of 5 in the list, wrong at 3, 5`.
/// `None` when every answered trial agrees.
fn order_note(
    expected: Option<&str>,
    trials: &[TrialResult],
    positions: &[Option<usize>],
    tools: usize,
) -> Option<String> {
    use crate::outcome::AnswerKind;
    let answered: Vec<(bool, Option<usize>)> = trials
        .iter()
        .zip(positions)
        .filter(|(t, _)| !matches!(t.kind, AnswerKind::ProviderError | AnswerKind::NotAsked))
        .map(|(t, p)| (t.passed, *p))
        .collect();
    let right = answered.iter().filter(|a| a.0).count();
    if right == 0 || right == answered.len() {
        return None;
    }
    let at = |ok: bool| {
        answered
            .iter()
            .filter(|a| a.0 == ok)
            .filter_map(|a| a.1.map(|p| (p + 1).to_string()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lead = "right and wrong under different tool orders";
    Some(match expected {
        Some(tool) if answered.iter().all(|a| a.1.is_some()) => format!(
            "{lead}: right with `{tool}` at position {} of {tools} in the list, wrong at {}",
            at(true),
            at(false)
        ),
        _ => format!(
            "{lead}: right under {right} of {} shuffled lists",
            answered.len()
        ),
    })
}

/// Each offered tool's estimated tokens in the list sent to the model, and the list's.
pub(crate) fn tool_tokens(api: &ApiTools) -> ToolListTokens {
    use crate::outcome::cost::{list_tokens, tool_bytes};
    let bytes: Vec<usize> = api
        .tools
        .iter()
        .map(|t| tool_bytes(&t.name, &t.description, &t.input_schema))
        .collect();
    ToolListTokens {
        total: list_tokens(bytes.iter().copied()),
        tools: api
            .tools
            .iter()
            .zip(&bytes)
            .map(|(t, b)| ToolTokens {
                tool: api.map_back(&t.name),
                tokens: b.div_ceil(4) as u64,
            })
            .collect(),
    }
}

/// A case's context as the report records it.
fn context_entries(turns: &[Turn]) -> Vec<ContextEntry> {
    turns
        .iter()
        .map(|turn| match turn {
            Turn::User(text) => ContextEntry {
                user: Some(text.clone()),
                ..ContextEntry::default()
            },
            Turn::Assistant(text) => ContextEntry {
                assistant: Some(text.clone()),
                ..ContextEntry::default()
            },
            Turn::Call { tool, args, result } => ContextEntry {
                call: Some(tool.clone()),
                args: Some(Value::Object(args.clone())),
                result: Some(result.clone()),
                ..ContextEntry::default()
            },
        })
        .collect()
}

/// sha256 of the tool list as sent to the model.
pub(crate) fn tool_list_hash(api: &ApiTools) -> String {
    use sha2::{Digest, Sha256};
    let bytes = serde_json::to_vec(&api.tools).unwrap_or_default();
    crate::outcome::hex(&Sha256::digest(&bytes))
}
