//! The evals phase: resolve provider and models, look every (case, trial) up in the cache, ask
//! the provider for the rest on a pool of worker threads, score, and gate. Output order is
//! always the case order, whatever order the answers came in.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::cache::{Cache, Keyer, Lookup};
use super::provider::{Answer, Pacer, Provider, ProviderError, Request, RetryPolicy};
use super::score::{self, Label};
use super::tools::{ApiTools, api_tools};
use super::{Call, Choice, Stop, stats};
use crate::config::{EvalCase, EvalConfig, Provider as ProviderKind};
use crate::mcp::types::Tool;
use crate::report::model::{
    AnswerKind, CacheUse, CaseStatus, Confusion, EvalCaseResult, EvalsResults, Gate, ModelEval,
    Phase, PhaseStatus, PickedCall, TrialResult,
};

/// `max_tokens` sent to Anthropic when the YAML sets none (the reference's value).
const DEFAULT_MAX_TOKENS: u32 = 16_000;

/// What the command line adds to the `evals:` section.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--provider` (beats `TOOLPROOF_EVAL_PROVIDER`, which beats the YAML).
    pub provider: Option<String>,
    /// `--model` (beats `TOOLPROOF_EVAL_MODEL`, which beats the YAML).
    pub model: Option<String>,
    /// `--min-accuracy`.
    pub min_accuracy: Option<f64>,
    /// `--no-cache`: ask again (answers are still written).
    pub no_cache: bool,
    /// `--offline`: never call a provider.
    pub offline: bool,
}

/// Provider and models after flag > environment > YAML.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The provider.
    pub provider: ProviderKind,
    /// Models to ask, in order (one empty id for a command provider without a model).
    pub models: Vec<String>,
}

/// The provider's name as the cache key and reports spell it.
pub fn provider_name(p: ProviderKind) -> &'static str {
    match p {
        ProviderKind::Anthropic => "anthropic",
        ProviderKind::Openai => "openai",
        ProviderKind::Command => "command",
    }
}

fn env_value(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Applies flag > `TOOLPROOF_EVAL_*` > YAML; the error says what to set.
pub fn resolve(cfg: &EvalConfig, o: &Overrides) -> Result<Resolved, String> {
    let provider = match o
        .provider
        .clone()
        .or_else(|| env_value("TOOLPROOF_EVAL_PROVIDER"))
    {
        Some(name) => match name.trim() {
            "anthropic" => ProviderKind::Anthropic,
            "openai" => ProviderKind::Openai,
            "command" => ProviderKind::Command,
            other => {
                return Err(format!(
                    "unknown eval provider `{other}`: use anthropic, openai or command"
                ));
            }
        },
        None => cfg.provider.ok_or_else(|| {
            "no eval provider: set evals.provider (anthropic, openai or command), TOOLPROOF_EVAL_PROVIDER or --provider".to_owned()
        })?,
    };
    if provider == ProviderKind::Command && cfg.command.is_none() {
        return Err("the command provider needs evals.command".into());
    }
    let models = if let Some(m) = o
        .model
        .clone()
        .or_else(|| env_value("TOOLPROOF_EVAL_MODEL"))
    {
        vec![m]
    } else if !cfg.models.is_empty() {
        cfg.models.clone()
    } else if let Some(m) = &cfg.model {
        vec![m.clone()]
    } else if provider == ProviderKind::Command {
        vec![String::new()]
    } else {
        return Err(
            "no eval model: set evals.model (or evals.models), TOOLPROOF_EVAL_MODEL or --model"
                .into(),
        );
    };
    Ok(Resolved { provider, models })
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

/// Everything about one (model, case, trial) the pool needs.
struct Item {
    case: usize,
    key: Option<String>,
}

/// How many times `case` is asked: its own `trials`, else the section's, at least once.
fn trials_of(cfg: &EvalConfig, case: &EvalCase) -> u32 {
    case.trials.unwrap_or(cfg.trials).max(1)
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
    resolved: &Resolved,
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

/// Runs the evals phase.
pub fn run(
    tools: &[Tool],
    cfg: &EvalConfig,
    base_dir: &Path,
    o: &Overrides,
) -> Phase<Option<EvalsResults>> {
    let started = Instant::now();
    let resolved = match resolve(cfg, o) {
        Ok(r) => r,
        Err(e) => return Phase::error(e),
    };
    let api = api_tools(tools);
    let provider = resolved.provider;
    let use_cache = cfg.cache && provider != ProviderKind::Command;
    let mut results = EvalsResults {
        provider: provider_name(provider).into(),
        left_out_tools: api.left_out.clone(),
        tool_list_hash: tool_list_hash(&api),
        cache: CacheUse {
            read: use_cache && !o.no_cache,
            write: use_cache,
            dir: use_cache.then(|| cfg.cache_dir.display().to_string()),
            ..CacheUse::default()
        },
        ..EvalsResults::default()
    };
    let cache = Cache::new(&cfg.cache_dir);
    let params = request_params(cfg, provider);
    let by_name: HashMap<&str, &Tool> = tools.iter().map(|t| (t.name.as_str(), t)).collect();
    // Built on first need: a fully cached run needs no key.
    let mut client: Option<Result<Provider, String>> = None;
    let pacer = Pacer::new(RetryPolicy {
        max_retries: cfg.max_retries,
        base_delay: Duration::from_millis(500),
        max_delay: Duration::from_secs(8),
        request_timeout: Duration::from_secs_f64(cfg.request_timeout_s),
    });
    let ctx = Ctx {
        cfg,
        api: &api,
        params: &params,
        by_name: &by_name,
        provider,
    };

    for model in &resolved.models {
        let keyer = use_cache.then(|| {
            Keyer::new(
                provider_name(provider),
                model,
                cfg.system.as_deref(),
                &api.tools,
                &params,
            )
        });
        let mut items = Vec::new();
        for (i, case) in cfg.cases.iter().enumerate() {
            for trial in 1..=trials_of(cfg, case) {
                let key = keyer.as_ref().map(|k| k.key(&case.prompt, trial));
                items.push(Item { case: i, key });
            }
        }
        let mut got: Vec<Got> = items.iter().map(|_| Got::NotAsked).collect();
        if results.cache.read {
            for (slot, item) in got.iter_mut().zip(&items) {
                let Some(key) = &item.key else { continue };
                match cache.read(key) {
                    Lookup::Hit(choice) => {
                        results.cache.hits += 1;
                        *slot = Got::Cached(choice);
                    }
                    Lookup::Corrupt(_) => results.cache.corrupt += 1,
                    Lookup::Miss => {}
                }
            }
        }
        let pending: Vec<usize> = (0..items.len())
            .filter(|i| matches!(got[*i], Got::NotAsked))
            .collect();
        let mut fatal: Option<String> = None;
        // `--offline` keeps model APIs from being called; a local command is no API.
        let offline = o.offline && provider != ProviderKind::Command;
        if !pending.is_empty() && !offline {
            let provider_client =
                client.get_or_insert_with(|| build_client(cfg, provider, base_dir));
            match provider_client {
                Err(e) => fatal = Some(e.clone()),
                Ok(p) => {
                    let outcome = ask_all(&ctx, p, &pacer, model, &items, &pending);
                    fatal = outcome.fatal;
                    for (idx, answer) in outcome.answers {
                        let item = &items[idx];
                        got[idx] = match answer {
                            Ok((answer, took)) => {
                                let choice = to_choice(answer, &api);
                                if let (true, Some(key)) = (results.cache.write, &item.key) {
                                    // A failed write loses a cache entry, not the answer.
                                    let _ = cache.write(
                                        key,
                                        &choice,
                                        provider_name(provider),
                                        model,
                                        &cfg.cases[item.case].prompt,
                                    );
                                }
                                results.cache.asked += 1;
                                Got::Asked(choice, took)
                            }
                            Err((message, took)) => Got::Failed(message, took),
                        };
                    }
                }
            }
        }
        results.models.push(score_model(
            &ctx,
            model,
            &items,
            got,
            fatal,
            offline_for(o, provider),
        ));
    }

    let passed = results.models.iter().all(|m| m.passed);
    let all_unusable = results.models.iter().all(|m| m.error.is_some());
    let reason = results
        .models
        .iter()
        .map(|m| {
            let mut line = m.verdict_text();
            if resolved.models.len() > 1 {
                line = format!("{}: {line}", m.model);
            }
            for gate in m
                .gates
                .iter()
                .filter(|g| !g.passed && g.name != "min_accuracy")
            {
                line.push_str("; ");
                line.push_str(&gate.detail);
            }
            line
        })
        .collect::<Vec<_>>()
        .join("; ");
    Phase {
        status: if all_unusable && !results.models.is_empty() {
            PhaseStatus::Error
        } else if passed {
            PhaseStatus::Passed
        } else {
            PhaseStatus::Failed
        },
        reason: Some(reason),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results: Some(results),
    }
}

struct Ctx<'a> {
    cfg: &'a EvalConfig,
    api: &'a ApiTools,
    params: &'a Map<String, Value>,
    by_name: &'a HashMap<&'a str, &'a Tool>,
    provider: ProviderKind,
}

fn build_client(
    cfg: &EvalConfig,
    provider: ProviderKind,
    base_dir: &Path,
) -> Result<Provider, String> {
    let fatal = |e: ProviderError| match e {
        ProviderError::Fatal(m) | ProviderError::Transient(m) => m.to_string(),
    };
    match provider {
        ProviderKind::Anthropic => Provider::anthropic_from_env().map_err(fatal),
        ProviderKind::Openai => Provider::openai_from_env().map_err(fatal),
        ProviderKind::Command => Ok(Provider::command(
            cfg.command.clone().unwrap_or_default(),
            PathBuf::from(base_dir),
            Duration::from_secs_f64(cfg.timeout_s),
        )),
    }
}

/// An answer and its time, or a transient error and the time until it.
type Timed = Result<(Answer, Duration), (String, Duration)>;

struct Asked {
    /// (item index, what came back).
    answers: Vec<(usize, Timed)>,
    fatal: Option<String>,
}

/// Asks the provider for every pending item on `concurrency` threads. A fatal error stops
/// every worker from taking new items.
fn ask_all(
    ctx: &Ctx<'_>,
    provider: &Provider,
    pacer: &Pacer,
    model: &str,
    items: &[Item],
    pending: &[usize],
) -> Asked {
    let next = AtomicUsize::new(0);
    let fatal: Mutex<Option<String>> = Mutex::new(None);
    let answers = Mutex::new(Vec::with_capacity(pending.len()));
    let workers = (ctx.cfg.concurrency.max(1) as usize).min(pending.len());
    let max_tokens = match ctx.provider {
        ProviderKind::Anthropic => DEFAULT_MAX_TOKENS,
        _ => ctx.cfg.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
    };
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    if lock(&fatal).is_some() {
                        return;
                    }
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&idx) = pending.get(n) else { return };
                    let case = &ctx.cfg.cases[items[idx].case];
                    let request = Request {
                        model,
                        system: ctx.cfg.system.as_deref(),
                        prompt: &case.prompt,
                        tools: &ctx.api.tools,
                        params: ctx.params,
                        max_tokens,
                    };
                    let started = Instant::now();
                    let answer = provider.ask(&request, pacer);
                    let took = started.elapsed();
                    match answer {
                        Ok(a) => lock(&answers).push((idx, Ok((a, took)))),
                        Err(ProviderError::Transient(m)) => {
                            lock(&answers).push((idx, Err((m.to_string(), took))));
                        }
                        Err(ProviderError::Fatal(m)) => {
                            let mut f = lock(&fatal);
                            if f.is_none() {
                                *f = Some(m.to_string());
                            }
                            return;
                        }
                    }
                }
            });
        }
    });
    Asked {
        answers: answers.into_inner().unwrap_or_else(|p| p.into_inner()),
        fatal: fatal.into_inner().unwrap_or_else(|p| p.into_inner()),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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

fn kind_of(choice: &Choice) -> AnswerKind {
    if !choice.calls.is_empty() {
        AnswerKind::ToolCall
    } else if choice.stop == Stop::Refusal {
        AnswerKind::Refusal
    } else if choice.stop == Stop::MaxTokens {
        AnswerKind::Truncated
    } else if !choice.text.trim().is_empty() {
        AnswerKind::TextOnly
    } else {
        AnswerKind::NoTool
    }
}

fn trial_of(ctx: &Ctx<'_>, case: &EvalCase, got: Got) -> TrialResult {
    let (choice, cached, took) = match got {
        Got::Cached(c) => (c, true, Duration::ZERO),
        Got::Asked(c, took) => (c, false, took),
        Got::Failed(message, took) => {
            return TrialResult {
                passed: false,
                kind: AnswerKind::ProviderError,
                calls: Vec::new(),
                text: None,
                failures: vec![format!("provider error: {message}")],
                cached: false,
                provider_error: Some(message),
                latency_ms: took.as_secs_f64() * 1000.0,
            };
        }
        Got::NotAsked => {
            return TrialResult {
                passed: false,
                kind: AnswerKind::NotAsked,
                calls: Vec::new(),
                text: None,
                failures: Vec::new(),
                cached: false,
                provider_error: None,
                latency_ms: 0.0,
            };
        }
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
    TrialResult {
        passed: failures.is_empty(),
        kind: kind_of(&choice),
        calls: choice
            .calls
            .iter()
            .map(|c| PickedCall {
                tool: c.tool.clone(),
                args: c.args.clone(),
                malformed_args: c.malformed.clone(),
            })
            .collect(),
        text: (!choice.text.is_empty()).then(|| choice.text.clone()),
        failures,
        cached,
        provider_error: None,
        latency_ms: took.as_secs_f64() * 1000.0,
    }
}

fn offline_for(o: &Overrides, provider: ProviderKind) -> Overrides {
    Overrides {
        offline: o.offline && provider != ProviderKind::Command,
        ..o.clone()
    }
}

fn score_model(
    ctx: &Ctx<'_>,
    model: &str,
    items: &[Item],
    got: Vec<Got>,
    fatal: Option<String>,
    o: Overrides,
) -> ModelEval {
    let cfg = ctx.cfg;
    let mut trials: Vec<Vec<TrialResult>> = cfg.cases.iter().map(|_| Vec::new()).collect();
    for (item, g) in items.iter().zip(got) {
        let case = &cfg.cases[item.case];
        trials[item.case].push(trial_of(ctx, case, g));
    }
    let mut cases = Vec::with_capacity(cfg.cases.len());
    let mut confusion: BTreeMap<(String, String), (usize, Vec<String>)> = BTreeMap::new();
    let (mut trial_total, mut trial_passed) = (0usize, 0usize);
    for (case, trials) in cfg.cases.iter().zip(trials) {
        let name = case_name(case);
        let asked = trials
            .iter()
            .filter(|t| t.kind != AnswerKind::NotAsked)
            .count();
        let passed = trials.iter().filter(|t| t.passed).count();
        trial_total += trials.len();
        trial_passed += passed;
        let status = if trials.iter().any(|t| t.kind == AnswerKind::NotAsked) {
            CaseStatus::NotRun
        } else if trials.iter().any(|t| t.kind == AnswerKind::ProviderError) {
            CaseStatus::ProviderError
        } else if passed == trials.len() {
            CaseStatus::Correct
        } else {
            CaseStatus::Miss
        };
        let expected = case.expect_tool.clone().flatten();
        for t in trials.iter().filter(|t| {
            !t.passed && t.kind != AnswerKind::NotAsked && t.kind != AnswerKind::ProviderError
        }) {
            let picked = t
                .calls
                .first()
                .map_or_else(|| "(no tool)".to_owned(), |c| c.tool.clone());
            let want = expected.clone().unwrap_or_else(|| "(no tool)".into());
            if picked != want {
                let entry = confusion.entry((want, picked)).or_default();
                entry.0 += 1;
                if !entry.1.contains(&name) {
                    entry.1.push(name.clone());
                }
            }
        }
        cases.push(EvalCaseResult {
            name,
            prompt: case.prompt.clone(),
            why: case.why.clone(),
            critical: case.critical,
            line: case.line,
            file: case.file.as_ref().map(|f| f.display().to_string()),
            expect_tool: expected,
            expect_args: Value::Object(case.expect_args.clone()),
            status,
            pass_rate: if trials.is_empty() {
                0.0
            } else {
                passed as f64 / trials.len() as f64
            },
            ambiguous: asked > 1 && passed > 0 && passed < asked,
            trials,
        });
    }
    if fatal.is_some() {
        // The provider could not be used: the phase stopped, and nothing it did counts.
        for case in &mut cases {
            case.status = CaseStatus::NotRun;
        }
    }
    let total = cases.len();
    let correct = cases
        .iter()
        .filter(|c| c.status == CaseStatus::Correct)
        .count();
    let accuracy = if total == 0 {
        0.0
    } else {
        correct as f64 / total as f64
    };
    let min_accuracy = o.min_accuracy.unwrap_or(cfg.min_accuracy);
    let critical_misses: Vec<String> = cases
        .iter()
        .filter(|c| c.critical && c.status != CaseStatus::Correct)
        .map(|c| c.name.clone())
        .collect();
    let uncached: Vec<String> = if o.offline {
        cases
            .iter()
            .filter(|c| c.status == CaseStatus::NotRun)
            .map(|c| c.name.clone())
            .collect()
    } else {
        Vec::new()
    };
    let provider_errors = cases
        .iter()
        .filter(|c| c.status == CaseStatus::ProviderError)
        .count();
    let wilson = stats::wilson_lower(trial_passed, trial_total);
    let mut gates = Vec::new();
    if let Some(e) = &fatal {
        gates.push(Gate {
            name: "provider".into(),
            passed: false,
            detail: format!("the provider could not be used: {e}"),
        });
    }
    if !uncached.is_empty() {
        gates.push(Gate {
            name: "offline".into(),
            passed: false,
            detail: format!(
                "{} case(s) have no cached answer and --offline forbids asking: {}; hint: run once with the provider's API key to record the cache, then commit {}",
                uncached.len(),
                uncached.join(", "),
                cfg.cache_dir.display()
            ),
        });
    }
    if total == 0 {
        gates.push(Gate {
            name: "cases".into(),
            passed: false,
            detail: "there are no eval cases".into(),
        });
    }
    gates.push(Gate {
        name: "min_accuracy".into(),
        passed: total > 0 && accuracy + 1e-12 >= min_accuracy,
        detail: format!(
            "accuracy {:.0}% ({correct}/{total}) against the minimum {:.0}%",
            accuracy * 100.0,
            min_accuracy * 100.0
        ),
    });
    if cases.iter().any(|c| c.critical) {
        gates.push(Gate {
            name: "critical".into(),
            passed: critical_misses.is_empty(),
            detail: if critical_misses.is_empty() {
                "every critical case is right on every trial".into()
            } else {
                format!("critical case(s) missed: {}", critical_misses.join(", "))
            },
        });
    }
    if let Some(min) = cfg.min_wilson_lower {
        gates.push(Gate {
            name: "min_wilson_lower".into(),
            passed: wilson + 1e-12 >= min,
            detail: format!(
                "Wilson 95% lower bound {:.1}% ({trial_passed}/{trial_total} trials) against the minimum {:.1}%",
                wilson * 100.0,
                min * 100.0
            ),
        });
    }
    let mut confusion: Vec<Confusion> = confusion
        .into_iter()
        .map(|((expected, picked), (count, cases))| Confusion {
            expected,
            picked,
            count,
            cases,
        })
        .collect();
    confusion.sort_by_key(|c| std::cmp::Reverse(c.count));
    ModelEval {
        model: model.to_owned(),
        passed: gates.iter().all(|g| g.passed),
        error: fatal,
        total,
        correct,
        accuracy,
        min_accuracy,
        trials: cfg
            .cases
            .iter()
            .map(|c| trials_of(cfg, c))
            .max()
            .unwrap_or(cfg.trials),
        trial_accuracy: if trial_total == 0 {
            0.0
        } else {
            trial_passed as f64 / trial_total as f64
        },
        wilson_lower: wilson,
        min_wilson_lower: cfg.min_wilson_lower,
        critical_misses,
        provider_errors,
        uncached,
        gates,
        confusion,
        cases,
    }
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
