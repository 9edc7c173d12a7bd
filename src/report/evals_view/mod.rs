//! The tool-selection evals as every report words them, computed once from the report model:
//! the phase's headline, per model its lines, gates and case rows, the cache and the trend.
//! Renderers only lay this out and escape it. Text here is raw (untrusted parts included), and
//! the statuses are the scored ones: no rule of the engine is applied again. Rates are written
//! by `evals::judging::tally`, the one place that words them.

mod answer;
mod case;
mod context;
mod crowd;
mod history;
mod model;
mod picks;

#[cfg(test)]
mod tests;

use crate::outcome::cost;
use crate::outcome::rates::percent_against;
use crate::outcome::{CacheUse, ConcurrencyUse, EvalsResults, Phase};
use crate::report::escape::plural;

pub(crate) use crate::outcome::NO_TOOL;
pub(crate) use case::CaseRow;
pub(crate) use history::HistoryView;
pub(crate) use model::{ModelOutcome, ModelView};

/// Longest argument JSON shown beside a tool name in a table, in characters.
pub(crate) const ARGS_CHARS: usize = 60;

/// Longest argument JSON shown in a report body (JUnit), in characters.
pub(crate) const LONG_ARGS_CHARS: usize = 300;

/// Most confusion pairs listed.
pub(crate) const CONFUSION_SHOWN: usize = 10;

/// The evals phase with results, worded.
#[derive(Debug, Clone)]
pub(crate) struct EvalsView<'a> {
    /// The provider's name from the registry (`anthropic`, `groq`…).
    pub provider: &'a str,
    /// The phase's one line: the engine's verdict as recorded in the phase (with any note the
    /// run added), else worded from the models the same way.
    pub headline: String,
    /// The result in a few words for a summary line: `90% accuracy (9/10)`, or
    /// `m1 90% (9/10), m2 error` with several models.
    pub summary: String,
    /// Whether more than one model was asked.
    pub several: bool,
    /// Whether every model passed.
    pub passing: bool,
    /// Every model, in the order asked.
    pub models: Vec<ModelView<'a>>,
    /// `Left out (invalid input schema): a, b`, when a tool was left out.
    pub left_out: Option<String>,
    /// `Overrides applied (not the server's own descriptions): a, b; overrides sha256 …`,
    /// when the run sent patched descriptions.
    pub overrides: Option<String>,
    /// `Cache: 12 cached, 3 asked`, with unreadable files and whether reading was off.
    pub cache: String,
    /// `Tokens and cost: 12 requests · 10,240 in / 380 out / 9,800 cached (96% of input) ·
    /// est. $0.0123 (list price 2026-12-04)`, one line per model that asked or replayed (its
    /// name after `cost` when there are several).
    pub cost: Vec<String>,
    /// The cache folder.
    pub cache_dir: Option<&'a str>,
    /// When fresh answers could not be saved: how many, the first reason, and what it means.
    pub cache_warning: Option<String>,
    /// The hint for `--offline` runs that lacked cached answers (shown when a model has
    /// uncached cases).
    pub offline_hint: String,
    /// The miss-rate trend, when `--history` was given.
    pub history: Option<HistoryView<'a>>,
    /// How timeouts lowered the requests in flight (or would have), with its `hint:` line,
    /// when requests timed out.
    pub concurrency: Option<String>,
    /// `Tool list sent on every request: about 412 tokens, 3 tools; heaviest: …`, when the
    /// report weighed the list.
    pub weights: Option<String>,
    /// Every tool's estimated tokens in the list, heaviest first (ties in list order), with
    /// its share of the whole list.
    pub tool_weights: Vec<(&'a str, u64, f64)>,
    /// `No base run: …`, said once for the run when a base was asked for and not found.
    pub no_base: Option<String>,
}

impl<'a> EvalsView<'a> {
    /// The view of the evals phase, when it has results for at least one model.
    pub(crate) fn of(phase: &'a Phase<Option<EvalsResults>>) -> Option<Self> {
        let results = phase.results.as_ref().filter(|ev| !ev.models.is_empty())?;
        Some(Self::new(results, phase.reason.as_deref()))
    }

    /// The view of `ev`; `reason` is the phase's recorded one-line verdict.
    pub(crate) fn new(ev: &'a EvalsResults, reason: Option<&str>) -> Self {
        let models: Vec<ModelView<'a>> = ev
            .models
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut view = ModelView::new(i, &ev.provider, m);
                let plan = ev
                    .plan
                    .as_ref()
                    .and_then(|p| p.models.iter().find(|p| p.model == m.model));
                view.detects_line = model::detects_line(plan, m.comparison.as_ref());
                view
            })
            .collect();
        let passing = models.iter().all(|m| !m.outcome.fails());
        EvalsView {
            provider: &ev.provider,
            headline: reason.unwrap_or_default().to_owned(),
            summary: summary(ev),
            several: models.len() > 1,
            passing,
            models,
            left_out: (!ev.left_out_tools.is_empty()).then(|| {
                format!(
                    "Left out (invalid input schema): {}",
                    ev.left_out_tools.join(", ")
                )
            }),
            overrides: ev.overrides.as_ref().map(|o| {
                format!(
                    "Overrides applied (not the server's own descriptions): {}; overrides sha256 {}",
                    o.tools.join(", "),
                    o.hash.get(..12).unwrap_or(&o.hash)
                )
            }),
            cache: cache_line(ev),
            cost: cost_lines(ev),
            cache_dir: ev.cache.dir.as_deref(),
            cache_warning: cache_warning(ev),
            offline_hint: format!(
                "hint: run once without --offline and with the provider's API key to record the answers in {}, then commit it",
                ev.cache.dir.as_deref().unwrap_or(".toolproof-cache")
            ),
            history: ev.history.as_ref().map(|h| HistoryView::new(h, passing)),
            concurrency: ev.concurrency.as_ref().and_then(concurrency_note),
            weights: ev.tool_tokens.as_ref().and_then(picks::weights_line),
            tool_weights: tool_weights(ev),
            no_base: ev
                .models
                .iter()
                .filter_map(|m| m.comparison.as_ref())
                .find(|c| c.verdict == crate::outcome::Verdict::NoBase)
                .and_then(|c| c.reason.as_deref())
                .map(capitalized),
        }
    }
}

/// Every tool's weight, heaviest first, with its share of the list.
fn tool_weights(ev: &EvalsResults) -> Vec<(&str, u64, f64)> {
    let Some(w) = &ev.tool_tokens else {
        return Vec::new();
    };
    let mut out: Vec<(&str, u64, f64)> = w
        .tools
        .iter()
        .map(|t| {
            let share = if w.total == 0 {
                0.0
            } else {
                t.tokens as f64 / w.total as f64
            };
            (t.tool.as_str(), t.tokens, share)
        })
        .collect();
    out.sort_by_key(|t| std::cmp::Reverse(t.1));
    out
}

/// `90% accuracy (9/10)`; with several models `m1 90% (9/10), m2 error`; `not asked (0/2)`
/// for a model no case was asked of.
fn summary(ev: &EvalsResults) -> String {
    let one = |m: &crate::outcome::ModelEval, word: &str| match m.error {
        Some(_) => "error".to_string(),
        None if m.tools_unseen.is_some() => "error: the tools never reached the model".to_string(),
        None if m.asked_nothing() => format!("not asked (0/{})", m.total),
        None => {
            let (accuracy, _) = percent_against(m.accuracy, m.min_accuracy);
            format!("{accuracy}{word} ({}/{})", m.correct, m.total)
        }
    };
    match ev.models.as_slice() {
        [m] => one(m, " accuracy"),
        models => models
            .iter()
            .map(|m| format!("{} {}", m.model, one(m, "")))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// One `Tokens and cost` line per model that asked or replayed something.
fn cost_lines(ev: &EvalsResults) -> Vec<String> {
    ev.models
        .iter()
        .filter_map(|m| {
            let c = m.cost.as_ref().filter(|c| !c.is_empty())?;
            let name = if ev.models.len() > 1 {
                format!(", {}", m.model)
            } else {
                String::new()
            };
            Some(format!("Tokens and cost{name}: {}", cost::line(c)))
        })
        .collect()
}

/// `Cache: 12 cached, 3 asked`, with corrupt files and whether the cache was off.
fn cache_line(ev: &EvalsResults) -> String {
    let c = &ev.cache;
    let mut s = if !c.read && !c.write {
        format!("Cache: not used, {}", asked_counts(c))
    } else {
        let mut s = format!("Cache: {} cached, {}", c.hits, asked_counts(c));
        if !c.read {
            s.push_str(" (not read: --no-cache)");
        }
        s
    };
    let batched: usize = ev.models.iter().map(|m| m.batched).sum();
    if batched > 0 {
        s.push_str(&format!(", {batched} through a batch"));
    }
    if c.corrupt > 0 {
        s.push_str(&format!(
            ", {} unreadable cache file{} asked again",
            c.corrupt,
            plural(c.corrupt)
        ));
    }
    if c.write_errors > 0 {
        s.push_str(&format!(
            ", {} answer{} not saved",
            c.write_errors,
            plural(c.write_errors)
        ));
    }
    s
}

/// `3 asked`; with failures `10 asked (3 answered, 7 failed)`; with retries `, 38 requests
/// (28 retries)`. Cached and asked add up to the trials asked for, answered and failed to the
/// asked, and asked and retries to the requests (a request cut short by an interrupt is
/// counted but answers nothing).
pub(crate) fn asked_counts(c: &CacheUse) -> String {
    let asked = c.asked + c.failed;
    let mut s = format!("{asked} asked");
    if c.failed > 0 {
        s.push_str(&format!(" ({} answered, {} failed)", c.asked, c.failed));
    }
    if c.requests > 0 && c.requests != asked {
        s.push_str(&format!(", {} request{}", c.requests, plural(c.requests)));
        if c.retries > 0 {
            let retries = if c.retries == 1 { "retry" } else { "retries" };
            s.push_str(&format!(" ({} {retries})", c.retries));
        }
    }
    s
}

/// `Concurrency lowered from 8 to 1 in flight: 7 requests timed out while others were
/// answered`, then a `hint:` line with the number to set; for a fixed window, what it would
/// have been lowered for. `None` when no request timed out with others in flight.
fn concurrency_note(c: &ConcurrencyUse) -> Option<String> {
    if c.timeouts == 0 || (c.lowered == 0 && (c.adaptive || c.configured < 2)) {
        return None;
    }
    let others = if c.answered > 0 {
        " while others were answered"
    } else {
        ", and none was answered in time"
    };
    let timed_out = format!(
        "{} request{} timed out{others}",
        c.timeouts,
        plural(c.timeouts)
    );
    // A server that answered nothing may be down or slower than the timeout even alone.
    let slow = if c.answered > 0 {
        ""
    } else {
        "; if it answers none even alone, check it, or raise `evals.request_timeout_s`"
    };
    if c.lowered > 0 {
        let end = if c.last == c.lowest {
            String::new()
        } else {
            format!(", back up to {} at the end", c.last)
        };
        Some(format!(
            "Concurrency lowered from {} to {} in flight: {timed_out}{end}\nhint: the server answers fewer requests at once than `concurrency` asks; set `evals.concurrency: {}` to start there{slow}",
            c.configured, c.lowest, c.lowest
        ))
    } else {
        Some(format!(
            "Concurrency {} in flight throughout: {timed_out}\nhint: a server that answers fewer at once queues the rest until they time out; lower `evals.concurrency` (1 for a server with one slot), or drop `adaptive_concurrency: false` so that toolproof lowers it{slow}",
            c.configured
        ))
    }
}

/// `2 answers not saved to the cache: cannot create cache folder …`, when a write failed.
fn cache_warning(ev: &EvalsResults) -> Option<String> {
    let c = &ev.cache;
    (c.write_errors > 0).then(|| {
        format!(
            "{} answer{} not saved to the cache: {}; {} for this run, but the next run asks again and an --offline run misses {}",
            c.write_errors,
            plural(c.write_errors),
            c.write_error.as_deref().unwrap_or("unknown error"),
            if c.write_errors == 1 { "it counts" } else { "they count" },
            if c.write_errors == 1 { "it" } else { "them" },
        )
    })
}

/// `text` with its first letter upper-case.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
