//! One model's uncached requests through the provider's batch API instead of live requests:
//! pick up the batches an earlier run left (recorded under the cache folder, see [`state`]),
//! submit the rest as one batch, poll until it ends (an interruptible wait between looks),
//! and turn each result into what a live answer becomes: the same masking, the same cache
//! file, the same scoring. Expired requests are resubmitted once; an errored one is that
//! case's provider error. On an interrupt the batch keeps running for the next run to pick
//! up, or is cancelled when the settings say so.
//!
//! The engine knows no provider: it talks to the provider's [`BatchApi`] (each provider
//! module owns its batch wire format), which also says how much one batch holds and what a
//! batch answer costs against a live one.

pub(super) mod state;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::ask::{masked, to_choice};
use super::progress::Progress;
use super::{Ctx, Got, Item, request_max_tokens};
use crate::events::Event;
use crate::outcome::CacheUse;
use crate::provider::batch::{self, BatchApi, Entry, Poll};
use crate::provider::usage::Recorded;
use crate::provider::{Answer, Provider, ProviderError, Request};
use serde_json::Value;
use state::{Record, Records, shown};

/// One model's pending items, sent as a batch.
pub(super) struct Batching<'a, 'c> {
    pub(super) ctx: &'a Ctx<'c>,
    pub(super) provider: Arc<dyn Provider>,
    pub(super) model: &'a str,
    pub(super) items: &'a [Item],
    pub(super) cache_use: &'a mut CacheUse,
}

/// What a batch run came to: the error that stopped it, the trials a batch answered, and
/// whether the pending items are to be asked live instead (`auto` at a server without a
/// batch API).
pub(super) struct Batched {
    pub(super) fatal: Option<String>,
    pub(super) count: usize,
    pub(super) live: bool,
}

/// Where the answers go while the batches run.
struct Sink<'g> {
    got: &'g mut [Got],
    progress: &'g mut Progress,
    /// Cache key → the pending items it answers (removed once answered).
    by_key: BTreeMap<String, Vec<usize>>,
    count: usize,
}

impl Batching<'_, '_> {
    /// Sends every pending item (they all have cache keys) through batches and waits for
    /// their results.
    pub(super) fn run(
        mut self,
        pending: &[usize],
        got: &mut [Got],
        progress: &mut Progress,
    ) -> Batched {
        let provider = Arc::clone(&self.provider);
        let Some(api) = provider.batch_api() else {
            return Batched {
                fatal: None,
                count: 0,
                live: true,
            };
        };
        let mut by_key: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &idx in pending {
            if let Some(key) = &self.items[idx].key {
                by_key.entry(key.clone()).or_default().push(idx);
            }
        }
        let mut sink = Sink {
            got,
            progress,
            by_key,
            count: 0,
        };
        let records = Records::new(&self.ctx.cfg.cache_dir);
        let name = &self.ctx.kind.cache_name(self.ctx.cfg);
        let mut active = Vec::new();
        let mut covered = HashSet::new();
        for r in records.find(name, self.model, &api.host()) {
            if r.requests
                .values()
                .any(|k| sink.by_key.contains_key(k) && !covered.contains(k))
            {
                covered.extend(r.requests.values().cloned());
                self.say(format!(
                    "picked up batch {} ({} requests, submitted {} ago)",
                    shown(&r.id),
                    r.requests.len(),
                    ago(r.submitted)
                ));
                active.push(r);
            }
        }
        let fresh: Vec<String> = sink
            .by_key
            .keys()
            .filter(|k| !covered.contains(*k))
            .cloned()
            .collect();
        if !fresh.is_empty() {
            match self.submit(&*api, &records, &fresh, 1) {
                Ok(r) => active.extend(r),
                // `auto` asks live where there is no batch API (a local compatible server).
                Err(Refused::NoBatch(e))
                    if active.is_empty() && !self.ctx.run.settings.batch().always() =>
                {
                    let why = e.lines().next().unwrap_or_default();
                    self.say(format!("asking live instead: {why}"));
                    let mut done = sink.done(None);
                    done.live = true;
                    return done;
                }
                Err(Refused::NoBatch(e) | Refused::BadId(e) | Refused::Request(e)) => {
                    return sink.done(Some(e));
                }
            }
        }
        let fatal = self.wait(&*api, &records, active, &mut sink);
        sink.done(fatal)
    }

    /// Polls the batches until each has ended and its results are in; returns the error
    /// that stopped it early.
    fn wait(
        &mut self,
        api: &dyn BatchApi,
        records: &Records,
        mut active: Vec<Record>,
        sink: &mut Sink<'_>,
    ) -> Option<String> {
        let pacer = &self.ctx.pacer;
        let mut last: BTreeMap<String, (String, u64)> = BTreeMap::new();
        let deadline = self.ctx.run.settings.batch().deadline();
        let started = self.ctx.started;
        while !active.is_empty() {
            let mut next = Vec::new();
            for (i, record) in active.iter().enumerate() {
                let poll = match api.poll(&record.id, pacer) {
                    Ok(p) => p,
                    Err(e) if self.ctx.run.interrupt.is_set() => {
                        let _ = e;
                        next.extend(active[i..].iter().cloned());
                        break;
                    }
                    Err(e) if batch::gone(&e) => {
                        // Archived or deleted at the provider: the record can only mislead.
                        let _ = records.remove(&record.id);
                        return Some(format!(
                            "batch {} is no longer known to the provider ({e}); its record is removed\nhint: re-run the same command to submit its requests again",
                            shown(&record.id)
                        ));
                    }
                    Err(e) => {
                        return Some(format!(
                            "could not check batch {}: {e}\nhint: it keeps running; re-run the same command to pick it up",
                            shown(&record.id)
                        ));
                    }
                };
                let seen = (poll.status.clone(), poll.done);
                if last.get(&record.id) != Some(&seen) {
                    self.say(progress_line(&record.id, &poll));
                    last.insert(record.id.clone(), seen);
                }
                if !poll.ended {
                    next.push(record.clone());
                    continue;
                }
                match self.collect(api, records, record, &poll, sink) {
                    Ok(again) => next.extend(again),
                    Err(e) => return Some(e),
                }
            }
            active = next;
            if active.is_empty() {
                break;
            }
            let Some(left) = deadline
                .checked_sub(started.elapsed())
                .filter(|d| !d.is_zero())
            else {
                return Some(self.past_deadline(&active));
            };
            let interval = self.ctx.run.settings.batch().poll().min(left);
            if self.ctx.run.interrupt.is_set() || !self.ctx.run.interrupt.sleep(interval) {
                self.interrupted(api, records, &active);
                return None;
            }
        }
        None
    }

    /// The wait is over and `active` have not ended: they keep running at the provider and
    /// their records stay, so that a later run picks their results up without paying twice.
    fn past_deadline(&self, active: &[Record]) -> String {
        let ids: Vec<String> = active.iter().map(|r| shown(&r.id)).collect();
        let (word, verb, rest) = if ids.len() == 1 {
            ("batch", "has", "it keeps running and its record stays")
        } else {
            (
                "batches",
                "have",
                "they keep running and their records stay",
            )
        };
        let limit = self.ctx.run.settings.batch().deadline();
        format!(
            "{word} {} {verb} not ended within the batch deadline of {} (evals.batch_deadline_s); {rest} under the cache folder\nhint: re-run the same command later to pick up the results without a second batch, or wait longer with --batch-deadline-s",
            ids.join(", "),
            wait_words(limit)
        )
    }

    /// The results of an ended batch, into the cache and the scores. Returns the batches its
    /// expired requests were resubmitted as, if any.
    fn collect(
        &mut self,
        api: &dyn BatchApi,
        records: &Records,
        record: &Record,
        poll: &Poll,
        sink: &mut Sink<'_>,
    ) -> Result<Vec<Record>, String> {
        let mut entries: Vec<(String, Entry)> = if let Some(why) = poll.failure() {
            // The batch failed as a whole: every request of it gets the error.
            let m = format!("batch {} failed: {why}", shown(&record.id));
            record
                .requests
                .keys()
                .map(|id| (id.clone(), Entry::Errored(m.clone())))
                .collect()
        } else {
            // Results that could not be fetched are fetched again by the next run.
            api.results(&record.id, poll, &self.ctx.pacer).map_err(|e| {
                format!(
                    "could not fetch the results of batch {}: {e}\nhint: re-run the same command to fetch them",
                    shown(&record.id)
                )
            })?
        };
        // What the results leave out came to what the batch says (expired, cancelled).
        if let Some(left_out) = poll.left_out() {
            let given: HashSet<&String> = entries.iter().map(|(id, _)| id).collect();
            let missing: Vec<String> = record
                .requests
                .keys()
                .filter(|id| !given.contains(id))
                .cloned()
                .collect();
            entries.extend(missing.into_iter().map(|id| (id, left_out.clone())));
        }
        let writes_failed = self.cache_use.write_errors;
        let mut expired = Vec::new();
        let mut seen = HashSet::new();
        for (id, entry) in entries {
            let Some(key) = record.requests.get(&id) else {
                continue;
            };
            seen.insert(key.clone());
            match entry {
                Entry::Expired if record.round < 2 => {
                    if sink.by_key.contains_key(key) {
                        expired.push(key.clone());
                    }
                }
                Entry::Expired => {
                    self.fail(sink, key, "the batch expired twice before this request ran")
                }
                Entry::Canceled => {
                    self.fail(sink, key, "the batch was cancelled before this request ran")
                }
                Entry::Errored(m) => self.fail(sink, key, &m),
                Entry::Answer(a) => self.answer(sink, key, a, api.price_factor()),
            }
        }
        for key in record.requests.values() {
            if !seen.contains(key) {
                let m = format!("batch {} has no result for this request", shown(&record.id));
                self.fail(sink, key, &m);
            }
        }
        let again = if expired.is_empty() {
            Vec::new()
        } else {
            self.say(format!(
                "{} requests of batch {} expired: submitting them once more",
                expired.len(),
                shown(&record.id)
            ));
            self.submit(api, records, &expired, record.round + 1)
                .map_err(Refused::message)?
        };
        // Kept when an answer could not be cached: the next run fetches the results again.
        if self.cache_use.write_errors == writes_failed {
            let _ = records.remove(&record.id);
        }
        Ok(again)
    }

    /// Submits the requests of `keys` as batches within the API's [`BatchApi::limits`]
    /// (requests, bytes of JSON), and records each one.
    fn submit(
        &mut self,
        api: &dyn BatchApi,
        records: &Records,
        keys: &[String],
        round: u32,
    ) -> Result<Vec<Record>, Refused> {
        let limits = api.limits();
        let mut submitted = Vec::new();
        let mut group: Vec<(String, Value)> = Vec::new();
        let mut bytes = 0;
        let bodies = self
            .bodies(keys)
            .map_err(|e| Refused::Request(format!("could not submit a batch: {e}")))?;
        for (key, body) in bodies {
            let size = serde_json::to_vec(&body).map_or(0, |b| b.len());
            if !group.is_empty() && (group.len() >= limits.requests || bytes + size > limits.bytes)
            {
                submitted.push(self.submit_one(
                    api,
                    records,
                    &std::mem::take(&mut group),
                    round,
                )?);
                bytes = 0;
            }
            bytes += size;
            group.push((key, body));
        }
        if !group.is_empty() {
            submitted.push(self.submit_one(api, records, &group, round)?);
        }
        Ok(submitted)
    }

    /// The request body of each key, as the live path sends it; a request the provider
    /// refuses before sending (see [`Provider::check`]) refuses them all, as live.
    fn bodies(&self, keys: &[String]) -> Result<Vec<(String, Value)>, ProviderError> {
        let cfg = self.ctx.cfg;
        let max_tokens = request_max_tokens(cfg, self.ctx.kind);
        let case_of: HashMap<&str, usize> = self
            .items
            .iter()
            .filter_map(|i| i.key.as_deref().map(|k| (k, i.case)))
            .collect();
        let mut checked = false;
        let mut bodies = Vec::new();
        for key in keys {
            let Some(&case) = case_of.get(key.as_str()) else {
                continue;
            };
            let context = self.ctx.api.offered_turns(&cfg.cases[case].turns());
            let request = Request {
                model: self.model,
                system: cfg.system.as_deref(),
                prompt: &cfg.cases[case].prompt,
                context: &context,
                tools: &self.ctx.api.tools,
                params: self.ctx.params,
                tool_choice: self.ctx.tool_choice.as_ref(),
                max_tokens,
                prompt_cache: self.ctx.run.settings.prompt_cache(),
            };
            // The tools are the same for every request: one check is enough.
            if !checked {
                self.provider.check(&request)?;
                checked = true;
            }
            bodies.push((key.clone(), self.provider.body(&request)));
        }
        Ok(bodies)
    }

    /// Submits one batch and records it.
    fn submit_one(
        &mut self,
        api: &dyn BatchApi,
        records: &Records,
        requests: &[(String, Value)],
        round: u32,
    ) -> Result<Record, Refused> {
        let id = api
            .submit(self.model, requests, &self.ctx.pacer)
            .map_err(|e| Refused::NoBatch(format!("could not submit a batch: {e}")))?;
        let name = &self.ctx.kind.cache_name(self.ctx.cfg);
        // Checked before anything else: a batch that cannot be recorded cannot be picked up
        // by a later run, which would pay for it a second time.
        if let Err(why) = state::file_name(&id) {
            return Err(Refused::BadId(format!(
                "the {name} batch API gave the new batch the id {}, which cannot name its record: {why}\nhint: the batch was submitted but cannot be followed; ask the provider about it, or run with `--batch never`",
                shown(&id)
            )));
        }
        let map = requests
            .iter()
            .map(|(k, _)| (k.clone(), k.clone()))
            .collect();
        let record = Record::new(id, name, self.model, api.host(), round, map);
        if let Err(e) = records.write(&record) {
            self.say(format!(
                "could not record batch {} under the cache folder ({e}): a re-run will not pick it up",
                shown(&record.id)
            ));
        }
        self.say(format!(
            "submitted batch {} ({} requests); if this job stops, re-run the same command to pick it up",
            shown(&record.id),
            requests.len()
        ));
        Ok(record)
    }

    /// The run was interrupted while batches ran: each is left running (its record stays
    /// for the next run) or, when asked, cancelled.
    fn interrupted(&self, api: &dyn BatchApi, records: &Records, active: &[Record]) {
        for record in active {
            if self.ctx.run.settings.batch().cancel_on_interrupt() {
                // The pacer stops retrying once interrupted: one plain attempt.
                match api.cancel(&record.id, &self.ctx.pacer) {
                    Ok(()) => {
                        let _ = records.remove(&record.id);
                        self.say(format!("cancelled batch {}", shown(&record.id)));
                    }
                    Err(e) => {
                        self.say(format!("could not cancel batch {}: {e}", shown(&record.id)))
                    }
                }
            } else {
                self.say(format!(
                    "batch {} keeps running; re-run the same command to pick up its results (--cancel-batch cancels it instead)",
                    shown(&record.id)
                ));
            }
        }
    }

    /// `answer` to the request of `key`, billed at `price_factor` of the live price (the
    /// batch discount).
    fn answer(&mut self, sink: &mut Sink<'_>, key: &str, mut answer: Answer, price_factor: f64) {
        let Some(idxs) = sink.by_key.remove(key) else {
            return;
        };
        // The names the tools were offered under, as the live path restores them.
        self.provider.restore(&mut answer, &self.ctx.api.tools);
        let price = self.ctx.prices.lookup(self.model).map(|(p, _)| p);
        let unbelievable = answer.usage_unbelievable;
        let recorded = answer.usage.map(|usage| Recorded {
            usage,
            cost_usd: price.map(|p| p.cost(&usage) * price_factor),
        });
        let choice = masked(to_choice(answer, self.ctx.api), self.ctx.run.secrets);
        let prompt = &self.ctx.cfg.cases[self.items[idxs[0]].case].prompt;
        let name = &self.ctx.kind.cache_name(self.ctx.cfg);
        let written = self.ctx.cache.write_recorded(
            key,
            &choice,
            recorded.as_ref(),
            (name, self.model, prompt),
        );
        if let Err(e) = written {
            self.cache_use.write_failed(e.to_string());
        }
        for idx in idxs {
            self.cache_use.asked += 1;
            sink.got[idx] = Got::Asked(choice.clone(), Duration::ZERO, recorded, unbelievable);
            sink.arrived(self.ctx, idx, self.items);
        }
    }

    fn fail(&mut self, sink: &mut Sink<'_>, key: &str, message: &str) {
        let Some(idxs) = sink.by_key.remove(key) else {
            return;
        };
        for idx in idxs {
            self.cache_use.failed += 1;
            sink.got[idx] = Got::Failed(message.to_owned(), Duration::ZERO);
            sink.arrived(self.ctx, idx, self.items);
        }
    }

    fn say(&self, message: String) {
        self.ctx.run.events.emit(Event::Batch {
            model: self.model.to_owned(),
            message,
        });
    }
}

impl Sink<'_> {
    fn arrived(&mut self, ctx: &Ctx<'_>, idx: usize, items: &[Item]) {
        self.count += 1;
        self.progress.arrived(ctx, idx, items, self.got);
    }

    fn done(self, fatal: Option<String>) -> Batched {
        Batched {
            fatal,
            count: self.count,
            live: false,
        }
    }
}

/// Why a batch could not be submitted.
enum Refused {
    /// The batch API refused it or is not there (`auto` then asks live).
    NoBatch(String),
    /// It was submitted, but its id cannot name a record: a provider error.
    BadId(String),
    /// The provider refuses the requests themselves (as it would live): a provider error.
    Request(String),
}

impl Refused {
    fn message(self) -> String {
        match self {
            Refused::NoBatch(m) | Refused::BadId(m) | Refused::Request(m) => m,
        }
    }
}

/// `2h`, `90s`, `1.5s`: a deadline in words.
fn wait_words(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 3600.0 && s % 3600.0 == 0.0 {
        format!("{}h", s / 3600.0)
    } else if s >= 60.0 && s % 60.0 == 0.0 {
        format!("{}m", s / 60.0)
    } else {
        format!("{}s", crate::config::limits::number(s))
    }
}

/// `batch msgbatch_1: in_progress, 3/10 done`.
fn progress_line(id: &str, poll: &Poll) -> String {
    let id = shown(id);
    if poll.total > 0 {
        format!(
            "batch {id}: {}, {}/{} done",
            poll.status, poll.done, poll.total
        )
    } else {
        format!("batch {id}: {}", poll.status)
    }
}

/// `3m`, `2h`, `1d`: how long ago `since` (seconds since the epoch) was.
fn ago(since: u64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let s = now.saturating_sub(since);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}
