//! The evals phase: resolve provider and models, look every (case, trial) up in the cache, ask
//! the provider for the rest on a pool of worker threads, score, and gate. Output order is
//! always the case order, whatever order the answers came in.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::cache::{Cache, Keyer, Lookup};
use super::provider::{Answer, Pacer, Provider, ProviderError, Request, RetryPolicy};
use super::score::{self, Label};
use super::scoring::{self, LabelledCase, Rules};
use super::tools::{ApiTools, api_tools};
use super::{Call, Choice};
use crate::config::{EvalCase, EvalConfig, Provider as ProviderKind};
use crate::events::{Event, Events};
use crate::interrupt::Interrupt;
use crate::mcp::types::Tool;
use crate::report::model::{
    AnswerKind, CacheUse, CaseStatus, EvalsResults, ModelEval, Phase, PhaseStatus, TrialResult,
};
use crate::settings::{Env, EvalSettings, EvalTarget};

/// `max_tokens` sent to Anthropic when the YAML sets none (the reference's value).
const DEFAULT_MAX_TOKENS: u32 = 16_000;

/// What one evals phase needs besides the tool list: the `evals:` section, the resolved
/// settings, where relative paths start, and the run's environment, events and interrupt.
pub struct EvalRun<'a> {
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
}

/// The provider's name as the cache key and reports spell it.
pub fn provider_name(p: ProviderKind) -> &'static str {
    match p {
        ProviderKind::Anthropic => "anthropic",
        ProviderKind::Openai => "openai",
        ProviderKind::Command => "command",
    }
}

/// The request parameters for a provider: `params`, plus `max_tokens` under the name the API
/// knows when the YAML sets it (an explicit `params` key wins).
pub fn request_params(cfg: &EvalConfig, provider: ProviderKind) -> Map<String, Value> {
    let mut params = cfg.params.clone();
    if let Some(n) = cfg.max_tokens {
        let key = match provider {
            ProviderKind::Openai => "max_completion_tokens",
            _ => "max_tokens",
        };
        params.entry(key).or_insert_with(|| Value::from(n));
    }
    params
}

/// One (case, trial) of a model: which case, and its cache key when the cache is used.
struct Item {
    case: usize,
    key: Option<String>,
}

/// How many times `case` is asked: its own `trials`, else the section's, at least once.
fn trials_of(cfg: &EvalConfig, case: &EvalCase) -> u32 {
    case.trials.unwrap_or(cfg.trials).max(1)
}

/// Cases the phase will report: every case, for every model.
pub fn planned_cases(cfg: &EvalConfig, target: &EvalTarget) -> usize {
    cfg.cases.len() * target.models.len()
}

/// What came back for one item.
enum Got {
    Cached(Choice),
    Asked(Choice, Duration),
    Failed(String, Duration),
    NotAsked,
}

/// The name of a case: its `name`, or the prompt on one line, shortened.
pub fn case_name(case: &EvalCase) -> String {
    case.name.clone().unwrap_or_else(|| {
        let flat = case.prompt.split_whitespace().collect::<Vec<_>>().join(" ");
        if flat.chars().count() <= 60 {
            flat
        } else {
            flat.chars().take(59).collect::<String>() + "…"
        }
    })
}

/// Every cache key the current cases can hit (for `cache status` and `cache prune`).
pub fn all_keys(
    tools: &[Tool],
    cfg: &EvalConfig,
    resolved: &EvalTarget,
) -> Vec<(String, usize, u32, String)> {
    let api = api_tools(tools);
    let params = request_params(cfg, resolved.provider);
    let mut keys = Vec::new();
    for model in &resolved.models {
        let keyer = Keyer::new(
            provider_name(resolved.provider),
            model,
            cfg.system.as_deref(),
            &api.tools,
            &params,
        );
        for (i, case) in cfg.cases.iter().enumerate() {
            for trial in 1..=trials_of(cfg, case) {
                keys.push((model.clone(), i, trial, keyer.key(&case.prompt, trial)));
            }
        }
    }
    keys
}

/// Runs the evals phase: every model in turn, cached answers first, the rest asked on a pool
/// of workers. Stops early (what was not asked is "not run") when the run is interrupted.
pub fn run(tools: &[Tool], r: &EvalRun<'_>) -> Phase<Option<EvalsResults>> {
    let started = Instant::now();
    let target = match r.settings.target() {
        Ok(t) => t,
        Err(e) => return Phase::error(e.to_string()),
    };
    let cfg = r.cfg;
    let api = api_tools(tools);
    let provider = target.provider;
    let use_cache = cfg.cache && provider != ProviderKind::Command;
    let mut results = EvalsResults {
        provider: provider_name(provider).into(),
        left_out_tools: api.left_out.clone(),
        tool_list_hash: tool_list_hash(&api),
        cache: CacheUse {
            read: use_cache && !r.settings.no_cache(),
            write: use_cache,
            dir: use_cache.then(|| cfg.cache_dir.display().to_string()),
            ..CacheUse::default()
        },
        ..EvalsResults::default()
    };
    let params = request_params(cfg, provider);
    let by_name: HashMap<&str, &Tool> = tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let pacer = Arc::new(Pacer::observed(
        RetryPolicy {
            max_retries: cfg.max_retries,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            request_timeout: Duration::from_secs_f64(cfg.request_timeout_s),
        },
        r.events.clone(),
        r.interrupt.clone(),
    ));
    let ctx = Ctx {
        cfg,
        api: &api,
        params: &params,
        by_name: &by_name,
        provider,
        cache: Cache::new(&cfg.cache_dir),
        run: r,
        pacer,
    };
    // Built on first need: a fully cached run needs no key.
    let mut client: Option<Result<Arc<Provider>, String>> = None;
    for model in &target.models {
        if r.interrupt.is_set() {
            break;
        }
        let eval = eval_model(&ctx, model, &mut results.cache, &mut client);
        results.models.push(eval);
    }
    finish_phase(results, started, r.interrupt)
}

/// The phase's status and one-line verdict (see [`scoring::phase`]); an interrupted phase
/// is an error that says so.
fn finish_phase(
    results: EvalsResults,
    started: Instant,
    interrupt: &Interrupt,
) -> Phase<Option<EvalsResults>> {
    let mut phase = scoring::phase(results, started.elapsed().as_secs_f64() * 1000.0);
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
    by_name: &'a HashMap<&'a str, &'a Tool>,
    provider: ProviderKind,
    cache: Cache,
    run: &'a EvalRun<'a>,
    pacer: Arc<Pacer>,
}

/// One model: cached answers, then the provider for the rest, then the score.
fn eval_model(
    ctx: &Ctx<'_>,
    model: &str,
    cache_use: &mut CacheUse,
    client: &mut Option<Result<Arc<Provider>, String>>,
) -> ModelEval {
    let cfg = ctx.cfg;
    let keyer = cache_use.write.then(|| {
        Keyer::new(
            provider_name(ctx.provider),
            model,
            cfg.system.as_deref(),
            &ctx.api.tools,
            ctx.params,
        )
    });
    let mut items = Vec::new();
    for (i, case) in cfg.cases.iter().enumerate() {
        for trial in 1..=trials_of(cfg, case) {
            let key = keyer.as_ref().map(|k| k.key(&case.prompt, trial));
            items.push(Item { case: i, key });
        }
    }
    let mut progress = Progress::new(ctx, model, &items);
    let mut got: Vec<Got> = items.iter().map(|_| Got::NotAsked).collect();
    if cache_use.read {
        for (idx, item) in items.iter().enumerate() {
            let Some(key) = &item.key else { continue };
            match ctx.cache.read(key) {
                Lookup::Hit(choice) => {
                    cache_use.hits += 1;
                    got[idx] = Got::Cached(choice);
                    progress.arrived(ctx, idx, &items, &got);
                }
                Lookup::Corrupt(_) => cache_use.corrupt += 1,
                Lookup::Miss => {}
            }
        }
    }
    let pending: Vec<usize> = (0..items.len())
        .filter(|i| matches!(got[*i], Got::NotAsked))
        .collect();
    let mut fatal: Option<String> = None;
    // `--offline` keeps model APIs from being called; a local command is no API.
    let offline = offline_for(ctx.run.settings, ctx.provider);
    if !pending.is_empty() && !offline && !ctx.run.interrupt.is_set() {
        let built = client.get_or_insert_with(|| {
            build_client(cfg, ctx.provider, ctx.run.base_dir, ctx.run.env).map(Arc::new)
        });
        match built {
            Err(e) => fatal = Some(e.clone()),
            Ok(p) => {
                let asked = Asking {
                    ctx,
                    provider: Arc::clone(p),
                    model,
                    items: &items,
                    cache_use,
                };
                fatal = asked.ask_all(&pending, &mut got, &mut progress);
            }
        }
    }
    progress.flush_not_asked(ctx, &items, &got);
    let min_accuracy = ctx.run.settings.min_accuracy();
    score_model(ctx, model, &items, got, fatal, min_accuracy, offline)
}

/// Emits a `CaseFinished` event as each case's last trial comes in.
struct Progress {
    model: String,
    remaining: Vec<usize>,
    sent: Vec<bool>,
}

impl Progress {
    fn new(ctx: &Ctx<'_>, model: &str, items: &[Item]) -> Self {
        let mut remaining = vec![0; ctx.cfg.cases.len()];
        for item in items {
            remaining[item.case] += 1;
        }
        Progress {
            model: model.to_owned(),
            sent: vec![false; remaining.len()],
            remaining,
        }
    }

    /// Item `idx` has its answer in `got`.
    fn arrived(&mut self, ctx: &Ctx<'_>, idx: usize, items: &[Item], got: &[Got]) {
        let case = items[idx].case;
        self.remaining[case] = self.remaining[case].saturating_sub(1);
        if self.remaining[case] == 0 {
            self.send(ctx, case, items, got);
        }
    }

    /// Cases left without every answer (offline, interrupted, provider unusable).
    fn flush_not_asked(&mut self, ctx: &Ctx<'_>, items: &[Item], got: &[Got]) {
        for case in 0..self.sent.len() {
            if !self.sent[case] {
                self.send(ctx, case, items, got);
            }
        }
    }

    fn send(&mut self, ctx: &Ctx<'_>, case: usize, items: &[Item], got: &[Got]) {
        self.sent[case] = true;
        let spec = &ctx.cfg.cases[case];
        let trials: Vec<TrialResult> = items
            .iter()
            .zip(got)
            .filter(|(item, _)| item.case == case)
            .map(|(_, g)| trial_of(ctx, spec, g.peek()))
            .collect();
        let shown = trials.iter().find(|t| !t.passed).or(trials.first());
        ctx.run.events.emit(Event::CaseFinished {
            model: self.model.clone(),
            name: case_name(spec),
            status: case_status(&trials),
            trials: trials.len(),
            expected: spec
                .expect_tool
                .clone()
                .flatten()
                .unwrap_or_else(|| "(no tool)".into()),
            picked: shown.map_or_else(|| "(not asked)".into(), picked_names),
            failure: shown.and_then(|t| t.failures.first().cloned()),
        });
    }
}

/// How a case ended over its trials.
fn case_status(trials: &[TrialResult]) -> CaseStatus {
    if trials.iter().any(|t| t.kind == AnswerKind::NotAsked) {
        CaseStatus::NotRun
    } else if trials.iter().any(|t| t.kind == AnswerKind::ProviderError) {
        CaseStatus::ProviderError
    } else if trials.iter().all(|t| t.passed) {
        CaseStatus::Correct
    } else {
        CaseStatus::Miss
    }
}

/// The tools a trial picked, by name: `a, b`, `(no tool)`, `(provider error)`…
fn picked_names(t: &TrialResult) -> String {
    match t.kind {
        AnswerKind::ProviderError => "(provider error)".into(),
        AnswerKind::NotAsked => "(not asked)".into(),
        _ if t.calls.is_empty() => "(no tool)".into(),
        _ => t
            .calls
            .iter()
            .map(|c| c.tool.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

impl Got {
    /// A copy for a progress event (the original goes on to scoring).
    fn peek(&self) -> Got {
        match self {
            Got::Cached(c) => Got::Cached(c.clone()),
            Got::Asked(c, d) => Got::Asked(c.clone(), *d),
            Got::Failed(m, d) => Got::Failed(m.clone(), *d),
            Got::NotAsked => Got::NotAsked,
        }
    }
}

fn build_client(
    cfg: &EvalConfig,
    provider: ProviderKind,
    base_dir: &Path,
    env: &Env,
) -> Result<Provider, String> {
    let fatal = |e: ProviderError| match e {
        ProviderError::Fatal(m) | ProviderError::Transient(m) => m.to_string(),
    };
    let var = |k: &str| env.raw(k).map(str::to_owned);
    match provider {
        ProviderKind::Anthropic => Provider::anthropic_from(var).map_err(fatal),
        ProviderKind::Openai => Provider::openai_from(var).map_err(fatal),
        ProviderKind::Command => Ok(Provider::command(
            cfg.command.clone().unwrap_or_default(),
            PathBuf::from(base_dir),
            Duration::from_secs_f64(cfg.timeout_s),
        )),
    }
}

/// An answer and its time, or a transient error and the time until it.
type Timed = Result<(Answer, Duration), (String, Duration)>;

/// What a worker sends back: an item's answer, or a fatal error that stops the phase.
enum Reply {
    Answer(usize, Timed),
    Fatal(String),
}

/// What the workers share. Owned, so that an interrupted phase can stop waiting for
/// requests in flight and leave them behind.
struct Shared {
    provider: Arc<Provider>,
    pacer: Arc<Pacer>,
    model: String,
    system: Option<String>,
    tools: Vec<super::ApiTool>,
    params: Map<String, Value>,
    max_tokens: u32,
    prompts: Vec<(usize, String)>,
    next: AtomicUsize,
    stop: AtomicBool,
}

/// One model's pending items, asked of the provider.
struct Asking<'a, 'c> {
    ctx: &'a Ctx<'c>,
    provider: Arc<Provider>,
    model: &'a str,
    items: &'a [Item],
    cache_use: &'a mut CacheUse,
}

impl Asking<'_, '_> {
    /// Asks for every pending item on `concurrency` workers and records the answers as they
    /// come. A fatal error stops every worker from taking new items; an interrupt stops the
    /// wait at once. Returns the fatal error, if any.
    fn ask_all(
        mut self,
        pending: &[usize],
        got: &mut [Got],
        progress: &mut Progress,
    ) -> Option<String> {
        let cfg = self.ctx.cfg;
        let shared = Arc::new(Shared {
            provider: Arc::clone(&self.provider),
            pacer: Arc::clone(&self.ctx.pacer),
            model: self.model.to_owned(),
            system: cfg.system.clone(),
            tools: self.ctx.api.tools.clone(),
            params: self.ctx.params.clone(),
            max_tokens: match self.ctx.provider {
                ProviderKind::Anthropic => DEFAULT_MAX_TOKENS,
                _ => cfg.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            },
            prompts: pending
                .iter()
                .map(|&idx| (idx, cfg.cases[self.items[idx].case].prompt.clone()))
                .collect(),
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let (tx, rx) = mpsc::channel();
        let workers = (cfg.concurrency.max(1) as usize).min(pending.len());
        for _ in 0..workers {
            let shared = Arc::clone(&shared);
            let tx = tx.clone();
            std::thread::spawn(move || worker(&shared, &tx));
        }
        drop(tx);
        let mut fatal = None;
        let mut left = pending.len();
        while left > 0 {
            let reply = match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(reply) => reply,
                Err(RecvTimeoutError::Timeout) if !self.ctx.run.interrupt.is_set() => continue,
                Err(_) => break,
            };
            match reply {
                Reply::Answer(idx, timed) => {
                    left -= 1;
                    got[idx] = self.record(idx, timed);
                    progress.arrived(self.ctx, idx, self.items, got);
                }
                Reply::Fatal(m) => {
                    fatal.get_or_insert(m);
                    shared.stop.store(true, Ordering::SeqCst);
                }
            }
        }
        shared.stop.store(true, Ordering::SeqCst);
        fatal
    }

    /// Turns a reply into what scoring reads, writing fresh answers to the cache.
    fn record(&mut self, idx: usize, timed: Timed) -> Got {
        let item = &self.items[idx];
        match timed {
            Ok((answer, took)) => {
                let choice = to_choice(answer, self.ctx.api);
                if let (true, Some(key)) = (self.cache_use.write, &item.key) {
                    // A failed write loses a cache entry, not the answer.
                    let _ = self.ctx.cache.write(
                        key,
                        &choice,
                        provider_name(self.ctx.provider),
                        self.model,
                        &self.ctx.cfg.cases[item.case].prompt,
                    );
                }
                self.cache_use.asked += 1;
                Got::Asked(choice, took)
            }
            Err((message, took)) => Got::Failed(message, took),
        }
    }
}

/// A worker: takes the next pending item until there is none, a fatal error, or a stop.
fn worker(shared: &Shared, tx: &mpsc::Sender<Reply>) {
    loop {
        if shared.stop.load(Ordering::SeqCst) || shared.pacer.stopped() {
            return;
        }
        let n = shared.next.fetch_add(1, Ordering::SeqCst);
        let Some((idx, prompt)) = shared.prompts.get(n) else {
            return;
        };
        let request = Request {
            model: &shared.model,
            system: shared.system.as_deref(),
            prompt,
            tools: &shared.tools,
            params: &shared.params,
            max_tokens: shared.max_tokens,
        };
        let started = Instant::now();
        let answer = shared.provider.ask(&request, &shared.pacer);
        let took = started.elapsed();
        let reply = match answer {
            Ok(a) => Reply::Answer(*idx, Ok((a, took))),
            Err(ProviderError::Transient(m)) => Reply::Answer(*idx, Err((m.to_string(), took))),
            Err(ProviderError::Fatal(m)) => {
                let _ = tx.send(Reply::Fatal(m.to_string()));
                return;
            }
        };
        if tx.send(reply).is_err() {
            return;
        }
    }
}

/// An API answer in MCP terms: names mapped back, arguments parsed.
fn to_choice(answer: Answer, api: &ApiTools) -> Choice {
    Choice {
        calls: answer
            .calls
            .into_iter()
            .map(|c| match c.args {
                Ok(v) if v.is_object() => Call {
                    tool: api.map_back(&c.name),
                    args: v,
                    malformed: None,
                },
                Ok(v) => Call {
                    tool: api.map_back(&c.name),
                    args: Value::Object(Map::new()),
                    malformed: Some(match v {
                        Value::String(raw) => raw,
                        other => other.to_string(),
                    }),
                },
                Err(raw) => Call {
                    tool: api.map_back(&c.name),
                    args: Value::Object(Map::new()),
                    malformed: Some(raw.0),
                },
            })
            .collect(),
        text: answer.text,
        stop: answer.stop,
    }
}

/// One trial as reported: the answer judged against the case's label, or why there is none.
fn trial_of(ctx: &Ctx<'_>, case: &EvalCase, got: Got) -> TrialResult {
    let ms = |took: Duration| took.as_secs_f64() * 1000.0;
    let (choice, cached, took) = match got {
        Got::Cached(c) => (c, true, Duration::ZERO),
        Got::Asked(c, took) => (c, false, took),
        Got::Failed(message, took) => return scoring::provider_failed(message, ms(took)),
        Got::NotAsked => return scoring::not_asked(),
    };
    let expected = case.expect_tool.clone().flatten();
    let failures = score::judge(
        Label {
            tool: expected.as_deref(),
            args: &case.expect_args,
        },
        &choice,
        ctx.by_name,
        ctx.cfg.multiple_calls,
    );
    scoring::answered(&choice, failures, cached, ms(took))
}

/// `--offline` applies to model APIs only: a local command is no API.
fn offline_for(settings: &EvalSettings, provider: ProviderKind) -> bool {
    settings.offline() && provider != ProviderKind::Command
}

/// Judges every answer of one model and scores it (see [`scoring::score_model`]).
fn score_model(
    ctx: &Ctx<'_>,
    model: &str,
    items: &[Item],
    got: Vec<Got>,
    fatal: Option<String>,
    min_accuracy: f64,
    offline: bool,
) -> ModelEval {
    let cfg = ctx.cfg;
    let mut trials: Vec<Vec<TrialResult>> = cfg.cases.iter().map(|_| Vec::new()).collect();
    for (item, g) in items.iter().zip(got) {
        let case = &cfg.cases[item.case];
        trials[item.case].push(trial_of(ctx, case, g));
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
        trials: cfg.trials,
    };
    scoring::score_model(model, &rules, fatal, cases)
}

/// sha256 of the tool list as sent to the model.
pub fn tool_list_hash(api: &ApiTools) -> String {
    use sha2::{Digest, Sha256};
    let bytes = serde_json::to_vec(&api.tools).unwrap_or_default();
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
