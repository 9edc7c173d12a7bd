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
mod planned;
mod planning;
mod progress;
mod scoring;
mod spend;
mod waves;

pub(crate) use adaptive::Base;
use adaptive::RowState;
use ask::{Asking, announce, build_client};
use cached::read_cached;
use offline::{recorded_elsewhere, tool_digests, why_missed};
use planned::plan_then_ask;
use progress::Progress;
use scoring::{context_entries, score_model, trial_of};
use spend::Spend;
use waves::eval_model;

pub(crate) use planning::{Level, conclusive_hint, detectable, hint_left_out};

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
        tool_digests: digests_by_tool(&api),
        tool_tokens: Some(tool_tokens(&api)),
        cache: CacheUse {
            read: use_cache && !r.settings.no_cache(),
            write: use_cache,
            dir: use_cache.then(|| cfg.cache_dir.display().to_string()),
            ..CacheUse::default()
        },
        config_models: cfg.named_models(),
        overrides: super::overrides::stamp(&cfg.overrides),
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

/// `--offline` applies to model APIs only: a local command is no API.
fn offline_for(settings: &EvalSettings, kind: &dyn Kind) -> bool {
    settings.offline() && kind.caches_answers()
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

/// Each tool's digest as sent to the model, by MCP name.
pub(crate) fn digests_by_tool(api: &ApiTools) -> std::collections::BTreeMap<String, String> {
    tool_digests(api)
        .into_iter()
        .map(|(name, digest)| (api.map_back(&name), digest))
        .collect()
}

/// sha256 of the tool list as sent to the model.
pub(crate) fn tool_list_hash(api: &ApiTools) -> String {
    use sha2::{Digest, Sha256};
    let bytes = serde_json::to_vec(&api.tools).unwrap_or_default();
    crate::outcome::hex(&Sha256::digest(&bytes))
}
