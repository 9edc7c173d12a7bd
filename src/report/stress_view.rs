//! The stress curve as every report words it, computed once from the report model: the
//! headline, per model a table (one row per distractor count, one column per order), the
//! breaking point, the misses there, and what the lists were and how their answers were found.
//! Text here is raw (untrusted parts included); renderers lay it out and escape it. The verdict
//! is the one `evals::judging::stress::curve` recorded in the phase.

use crate::outcome::rates::{percent, percent_against};
use crate::outcome::{Phase, StressModel, StressPoint, StressResults, ToolOrder};
use crate::report::escape::plural;
use crate::report::evals_view::asked_counts;

/// Most misses listed under a model.
pub(super) const MISSES_SHOWN: usize = 20;

/// The stress phase with results, worded.
#[derive(Debug, Clone)]
pub(super) struct StressView<'a> {
    /// The phase's one-line verdict.
    pub headline: String,
    /// The result in a few words for a summary line: `breaks at 25 distractors`.
    pub summary: String,
    /// The orders measured, in column order.
    pub orders: Vec<ToolOrder>,
    /// Whether more than one model was asked.
    pub several: bool,
    /// The minimum accuracy the curve is read against.
    pub min_accuracy: f64,
    /// `minimum 85%`.
    pub minimum: String,
    /// Every model, in the order asked.
    pub models: Vec<StressModelView<'a>>,
    /// What the lists were: the server's tools, the distractors, the seed, the orders.
    pub lists: String,
    /// `Answers: 64 beyond the evals phase, 60 cached, 4 asked`.
    pub answers: String,
    /// `Passed over (named like a server tool): a, b`, when any was.
    pub skipped: Option<String>,
}

/// One model's curve, worded.
#[derive(Debug, Clone)]
pub(super) struct StressModelView<'a> {
    /// Model id (empty for a command provider without one).
    pub model: &'a str,
    /// One row per distractor count, ascending.
    pub rows: Vec<StressRow>,
    /// `Selection breaks at 25 distractors (…)` or `Selection holds up to 100 distractors (…)`.
    pub breaking: String,
    /// Whether accuracy fell below the minimum anywhere.
    pub broke: bool,
    /// The list where it first did: distractors and order.
    pub breaks_at: Option<(usize, ToolOrder)>,
    /// `Misses at 25 distractors, in server order:` when there are misses to show there.
    pub misses_title: Option<String>,
    /// `save a note: expected add_note, picked notes_create (a distractor)`, at most
    /// [`MISSES_SHOWN`].
    pub misses: Vec<String>,
    /// `… and 3 more`, when more were cut.
    pub misses_more: Option<String>,
    /// `must_hold: 25 distractors: held` or `…: failed`, when set.
    pub gate: Option<(bool, String)>,
    /// The points, for charts.
    pub points: &'a [StressPoint],
    /// `headroom: about 35 more tools (25–50) before accuracy falls under 90% on …`.
    pub headroom: Option<String>,
    /// The headroom, for charts: (estimate, low, high) when it was reached.
    pub headroom_at: Option<(usize, usize, usize)>,
}

/// One distractor count.
#[derive(Debug, Clone)]
pub(super) struct StressRow {
    /// Distractors added.
    pub distractors: usize,
    /// Tools offered.
    pub tools: usize,
    /// One per measured order (in [`StressView::orders`] order); `None` where not measured.
    pub cells: Vec<Option<StressCell>>,
}

/// One measured list.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct StressCell {
    /// `89% (8/9)`, with `, 2 not answered` or `, 1 provider error` when so.
    pub text: String,
    /// Below the minimum.
    pub below: bool,
    /// The first point where it broke.
    pub breaks: bool,
}

impl<'a> StressView<'a> {
    /// The view of the stress phase, when it has results with at least one model.
    pub(super) fn of(phase: &'a Phase<Option<StressResults>>) -> Option<Self> {
        let results = phase.results.as_ref().filter(|r| !r.models.is_empty())?;
        Some(Self::new(results, phase.reason.as_deref()))
    }

    /// The view of `r`; `reason` is the phase's recorded verdict.
    pub(super) fn new(r: &'a StressResults, reason: Option<&str>) -> Self {
        let orders = r.orders();
        let counts = r.counts();
        let models: Vec<StressModelView<'a>> = r
            .models
            .iter()
            .map(|m| model_view(m, r, &orders, &counts))
            .collect();
        StressView {
            headline: reason.unwrap_or_default().to_owned(),
            summary: summary(r),
            several: models.len() > 1,
            min_accuracy: r.min_accuracy,
            minimum: format!("minimum {}", percent(r.min_accuracy)),
            models,
            lists: lists_line(r, &orders, &counts),
            answers: answers_line(r),
            skipped: (!r.skipped.is_empty()).then(|| {
                format!(
                    "Passed over (named like a server tool): {}",
                    r.skipped.join(", ")
                )
            }),
            orders,
        }
    }
}

/// `breaks at 25 distractors`, `holds up to 100 distractors`; per model with several.
fn summary(r: &StressResults) -> String {
    let one = |m: &StressModel| match m.breaks_at {
        Some(b) => format!("breaks at {}", b.distractors),
        None => format!("holds to {}", largest_read(m)),
    };
    match r.models.as_slice() {
        [m] => format!("{} distractors", one(m)),
        models => models
            .iter()
            .map(|m| format!("{} {}", m.model, one(m)))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The largest count measured with every answer.
fn largest_read(m: &StressModel) -> usize {
    m.points
        .iter()
        .filter(|p| p.complete() && p.provider_errors == 0)
        .map(|p| p.distractors)
        .max()
        .unwrap_or(0)
}

fn model_view<'a>(
    m: &'a StressModel,
    r: &StressResults,
    orders: &[ToolOrder],
    counts: &[usize],
) -> StressModelView<'a> {
    let rows = counts
        .iter()
        .map(|n| StressRow {
            distractors: *n,
            tools: m
                .points
                .iter()
                .find(|p| p.distractors == *n)
                .map_or(r.server_tools + n, |p| p.tools),
            cells: orders
                .iter()
                .map(|o| m.point(*n, *o).map(|p| cell(p, m)))
                .collect(),
        })
        .collect();
    let shown = m
        .breaks_at
        .and_then(|b| m.point(b.distractors, b.order))
        .or_else(|| {
            m.points
                .iter()
                .filter(|p| !p.misses.is_empty())
                .min_by(|a, b| a.accuracy.total_cmp(&b.accuracy))
        });
    let misses: Vec<String> = shown
        .map(|p| p.misses.iter().map(miss_line).collect())
        .unwrap_or_default();
    let headroom = r.headroom.iter().find(|h| h.model == m.model);
    StressModelView {
        headroom: headroom.map(|h| h.line(r.min_accuracy)),
        headroom_at: headroom
            .filter(|h| h.reached && h.high > 0)
            .map(|h| (h.tools, h.low, h.high)),
        model: &m.model,
        rows,
        breaking: breaking_line(m, r.min_accuracy),
        broke: m.breaks_at.is_some(),
        breaks_at: m.breaks_at.map(|b| (b.distractors, b.order)),
        misses_title: shown.filter(|p| !p.misses.is_empty()).map(|p| {
            format!(
                "Misses at {} distractor{}, {}:",
                p.distractors,
                plural(p.distractors),
                p.order.label()
            )
        }),
        misses_more: (misses.len() > MISSES_SHOWN)
            .then(|| format!("… and {} more", misses.len() - MISSES_SHOWN)),
        misses: misses.into_iter().take(MISSES_SHOWN).collect(),
        gate: r.must_hold.zip(m.holds).map(|(limit, held)| {
            let word = if held { "held" } else { "failed" };
            (
                held,
                format!(
                    "must_hold: selection must hold up to {limit} distractor{}: {word}",
                    plural(limit)
                ),
            )
        }),
        points: &m.points,
    }
}

fn cell(p: &StressPoint, m: &StressModel) -> StressCell {
    let mut text = format!("{} ({}/{})", percent(p.accuracy), p.correct, p.total);
    if p.not_run > 0 {
        text.push_str(&format!(", {} not answered", p.not_run));
    }
    if p.provider_errors > 0 {
        text.push_str(&format!(
            ", {} provider error{}",
            p.provider_errors,
            plural(p.provider_errors)
        ));
    }
    StressCell {
        text,
        below: p.below,
        breaks: m
            .breaks_at
            .is_some_and(|b| b.distractors == p.distractors && b.order == p.order),
    }
}

fn breaking_line(m: &StressModel, min: f64) -> String {
    match m.breaks_at {
        Some(b) => {
            let (value, bar) = percent_against(b.accuracy, min);
            format!(
                "Selection breaks at {} distractor{}: {value} {}, minimum {bar}",
                b.distractors,
                plural(b.distractors),
                b.order.phrase()
            )
        }
        None if m
            .points
            .iter()
            .all(|p| !p.complete() || p.provider_errors > 0) =>
        {
            "No tool list got an answer to every case".to_owned()
        }
        None => format!(
            "Selection never fell below the minimum {} (up to {} distractors)",
            percent(min),
            largest_read(m)
        ),
    }
}

fn miss_line(miss: &crate::outcome::StressMiss) -> String {
    format!(
        "{}: expected {}, picked {}{}",
        miss.case,
        miss.expected,
        miss.picked,
        if miss.distractor {
            " (a distractor)"
        } else {
            ""
        }
    )
}

/// `12 tool lists: the server's 5 tools plus 0 to 100 of 380 distractors (seed 0); server
/// order at every count, shuffled and reversed at 0 and 100`.
fn lists_line(r: &StressResults, orders: &[ToolOrder], counts: &[usize]) -> String {
    let lists = r.models.first().map_or(0, |m| m.points.len());
    let (low, high) = (
        counts.first().copied().unwrap_or(0),
        counts.last().copied().unwrap_or(0),
    );
    let span = if low == high {
        format!("{low}")
    } else {
        format!("{low} to {high}")
    };
    let mut out = format!(
        "{lists} tool list{}: the server's {} tool{} plus {span} of {} distractors (seed {})",
        plural(lists),
        r.server_tools,
        plural(r.server_tools),
        r.corpus,
        r.seed
    );
    let others: Vec<&str> = orders
        .iter()
        .filter(|o| **o != ToolOrder::Server)
        .map(|o| o.label())
        .collect();
    if !others.is_empty() {
        let at: Vec<String> = r
            .models
            .first()
            .map(|m| {
                let mut at: Vec<usize> = m
                    .points
                    .iter()
                    .filter(|p| p.order != ToolOrder::Server)
                    .map(|p| p.distractors)
                    .collect();
                at.dedup();
                at.iter().map(usize::to_string).collect()
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "; server order at every count, {} at {}",
            others.join(" and "),
            and_list(&at)
        ));
    }
    out
}

/// `0`, `0 and 100`, `0, 50 and 100`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `Answers: 64 beyond the evals phase: 60 cached, 4 asked`.
fn answers_line(r: &StressResults) -> String {
    let c = &r.cache;
    let mut out = format!("Answers: {} beyond the evals phase", r.answers);
    if c.read || c.write {
        out.push_str(&format!(": {} cached, {}", c.hits, asked_counts(c)));
        if !c.read {
            out.push_str(" (not read: --no-cache)");
        }
    } else {
        out.push_str(&format!(": cache not used, {}", asked_counts(c)));
    }
    if c.corrupt > 0 {
        out.push_str(&format!(
            ", {} unreadable cache file{} asked again",
            c.corrupt,
            plural(c.corrupt)
        ));
    }
    if c.write_errors > 0 {
        out.push_str(&format!(
            ", {} answer{} not saved{}",
            c.write_errors,
            plural(c.write_errors),
            c.write_error
                .as_deref()
                .map_or_else(String::new, |e| format!(" ({e})"))
        ));
    }
    out
}
