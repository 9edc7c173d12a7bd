//! Asking the provider: a pool of worker threads that take pending (case, trial) items one by
//! one and send the answers back over a channel. The pool owns what it needs, so an
//! interrupted phase stops waiting at once and leaves requests in flight behind.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use serde_json::{Map, Value};

use super::progress::Progress;
use super::{Ctx, Got, Item, request_max_tokens};
use crate::config::{EvalConfig, Turn};
use crate::evals::asking::tools::ApiTools;
use crate::evals::{ApiTool, Call, Choice, Stop};
use crate::outcome::CacheUse;
use crate::provider::usage::Recorded;
use crate::provider::{Answer, Kind, Pacer, Provider, ProviderError, Request, Setup};
use crate::report::redact::Redactor;
use crate::settings::Env;

/// The provider for `provider`: API keys and endpoints from `env`, the command provider in
/// `base_dir`.
pub(super) fn build_client(
    cfg: &EvalConfig,
    kind: &dyn Kind,
    base_dir: &Path,
    env: &Env,
) -> Result<Box<dyn Provider>, ProviderError> {
    let var = |k: &str| env.raw(k).map(str::to_owned);
    kind.connect(&Setup {
        env: &var,
        cfg: Some(cfg),
        base_dir,
    })
}

/// An answer and its time, or a transient error and the time until it.
type Timed = Result<(Answer, Duration), (String, Duration)>;

/// What a worker sends back: an item's answer, or a fatal error that stops the phase.
enum Reply {
    Answer(usize, Timed),
    Fatal(String),
}

/// A pending item as a worker asks it: its index, prompt, context, and own tool list.
type Pending = (usize, String, Vec<Turn>, Option<Vec<ApiTool>>);

/// What the workers share. Owned, so that an interrupted phase can stop waiting for
/// requests in flight and leave them behind.
struct Shared {
    provider: Arc<dyn Provider>,
    pacer: Arc<Pacer>,
    model: String,
    system: Option<String>,
    tools: Vec<ApiTool>,
    params: Map<String, Value>,
    tool_choice: Option<Value>,
    max_tokens: u32,
    prompt_cache: bool,
    /// Each pending item: its index, prompt, context (API-safe tool names), and its own tool
    /// list when it is not `tools` (`tool_order: shuffled`).
    prompts: Vec<Pending>,
    /// The budget: a request is sent only when it can take one.
    spend: Arc<super::Spend>,
    /// The model's price, which the budget's dollars are counted at.
    price: Option<crate::provider::prices::Price>,
    next: AtomicUsize,
    stop: AtomicBool,
}

/// One model's pending items, asked of the provider.
pub(super) struct Asking<'a, 'c> {
    pub(super) ctx: &'a Ctx<'c>,
    pub(super) provider: Arc<dyn Provider>,
    pub(super) model: &'a str,
    pub(super) items: &'a [Item],
    pub(super) cache_use: &'a mut CacheUse,
}

impl Asking<'_, '_> {
    /// Asks for every pending item on `concurrency` workers and records the answers as they
    /// come. A fatal error stops every worker from taking new items; an interrupt stops the
    /// wait at once. Returns the fatal error, if any.
    pub(super) fn ask_all(
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
            tool_choice: self.ctx.tool_choice.clone(),
            max_tokens: request_max_tokens(cfg, self.ctx.kind),
            prompt_cache: self.ctx.run.settings.prompt_cache(),
            prompts: pending
                .iter()
                .map(|&idx| {
                    let case = &cfg.cases[self.items[idx].case];
                    let context = self.ctx.api.offered_turns(&case.turns());
                    let tools = self.items[idx].tools.clone();
                    (idx, case.prompt.clone(), context, tools)
                })
                .collect(),
            spend: Arc::clone(&self.ctx.spend),
            price: self.ctx.prices.lookup(self.model).map(|(p, _)| p),
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
                    // Asked and failed: the cache line adds up to the requests sent.
                    self.cache_use.failed += 1;
                    fatal.get_or_insert(m);
                    shared.stop.store(true, Ordering::SeqCst);
                }
            }
        }
        shared.stop.store(true, Ordering::SeqCst);
        fatal
    }

    /// Turns a reply into what scoring reads, writing fresh answers to the cache. The answer
    /// is masked first (see [`masked`]): scored and stored as it will replay.
    fn record(&mut self, idx: usize, timed: Timed) -> Got {
        let item = &self.items[idx];
        match timed {
            Ok((answer, took)) => {
                let unbelievable = answer.usage_unbelievable;
                let price = self.ctx.prices.lookup(self.model).map(|(p, _)| p);
                let recorded = answer.usage.map(|usage| Recorded {
                    usage,
                    cost_usd: price.map(|p| p.cost(&usage)),
                });

                let choice = masked(to_choice(answer, self.ctx.api), self.ctx.run.secrets);
                if let (true, Some(key)) = (self.cache_use.write, &item.key) {
                    // A failed write loses a cache entry, not the answer: it is counted and
                    // said, and the answer is scored all the same.
                    let written = self.ctx.cache.write_recorded(
                        key,
                        &choice,
                        recorded.as_ref(),
                        (
                            &self.ctx.kind.cache_name(self.ctx.cfg),
                            self.model,
                            &self.ctx.cfg.cases[item.case].prompt,
                        ),
                    );
                    if let Err(e) = written {
                        self.cache_use.write_failed(e.to_string());
                    }
                }
                self.cache_use.asked += 1;
                Got::Asked(choice, took, recorded, unbelievable)
            }
            Err((message, took)) => {
                self.cache_use.failed += 1;
                Got::Failed(message, took)
            }
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
        let Some((idx, prompt, context, own_tools)) = shared.prompts.get(n) else {
            return;
        };
        // Past the budget nothing new is sent; the answers in flight still come back.
        if !shared.spend.take() {
            shared.stop.store(true, Ordering::SeqCst);
            return;
        }
        let request = Request {
            model: &shared.model,
            system: shared.system.as_deref(),
            prompt,
            context,
            tools: own_tools.as_deref().unwrap_or(&shared.tools),
            params: &shared.params,
            tool_choice: shared.tool_choice.as_ref(),
            max_tokens: shared.max_tokens,
            prompt_cache: shared.prompt_cache,
        };
        let (answer, took) = shared.provider.ask_timed(&request, &shared.pacer);
        // Counted before the next item is taken, so one worker never asks past the budget.
        if let (Ok(a), Some(price)) = (&answer, shared.price)
            && let Some(usage) = &a.usage
        {
            shared.spend.spent(price.cost(usage));
        }
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

/// `choice` with every secret of the run (an API key the model echoed, a `${VAR}` value)
/// replaced by `***` in its text, tool names, arguments (values and keys), malformed raw
/// arguments and stop reason.
///
/// An answer that held a secret is therefore stored in the cache redacted, and replays
/// redacted: the committed cache never holds the key, and a replay scores exactly what the
/// live run scored. The cache key is not affected: it hashes the prompt and the tool list,
/// never the answer. An answer without a secret is stored byte for byte as before.
pub(super) fn masked(choice: Choice, secrets: &Redactor) -> Choice {
    if secrets.is_empty() {
        return choice;
    }
    let Choice {
        mut calls,
        mut text,
        mut stop,
    } = choice;
    secrets.apply_in_place(&mut text);
    for call in &mut calls {
        let Call {
            tool,
            args,
            malformed,
        } = call;
        secrets.apply_in_place(tool);
        secrets.value(args);
        if let Some(raw) = malformed {
            secrets.apply_in_place(raw);
        }
    }
    if let Stop::Other(reason) = &mut stop {
        secrets.apply_in_place(reason);
    }
    Choice { calls, text, stop }
}

/// An API answer in MCP terms: names mapped back, arguments parsed.
pub(super) fn to_choice(answer: Answer, api: &ApiTools) -> Choice {
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

/// A pacer's notices as the run's events.
pub(super) fn announce(events: crate::events::Events) -> crate::provider::retry::Notify {
    use crate::events::Event;
    use crate::provider::retry::Notice;
    Box::new(move |notice| {
        events.emit(match notice {
            Notice::Backoff { wait, reason } => Event::ProviderBackoff { wait, reason },
            Notice::ConcurrencyLowered { from, to } => Event::ConcurrencyLowered { from, to },
        });
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn choice(secret: &str) -> Choice {
        Choice {
            calls: vec![
                Call {
                    tool: format!("tool-{secret}"),
                    args: json!({"text": format!("k={secret}"), secret: [secret, 1]}),
                    malformed: None,
                },
                Call {
                    tool: "echo".into(),
                    args: json!({}),
                    malformed: Some(format!("{{\"text\": {secret}")),
                },
            ],
            text: format!("my key is {secret}"),
            stop: Stop::Other(format!("stopped by {secret}")),
        }
    }

    #[test]
    fn every_place_a_secret_can_hide_in_an_answer_is_masked() {
        let secret = "sk-live-0123456789";
        let masked = masked(choice(secret), &Redactor::new(&[secret.into()]));
        let shown = serde_json::to_string(&masked).unwrap_or_default();
        assert!(!shown.is_empty() && !shown.contains(secret), "{shown}");
        assert_eq!(masked, choice("***"));
    }

    #[test]
    fn an_answer_without_secrets_is_left_exactly_as_it_came() {
        let secrets = Redactor::new(&["sk-live-0123456789".into()]);
        assert_eq!(masked(choice("plain"), &secrets), choice("plain"));
        assert_eq!(
            masked(choice("plain"), &Redactor::new(&[])),
            choice("plain")
        );
    }
}
