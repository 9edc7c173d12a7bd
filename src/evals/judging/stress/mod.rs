//! The stress curve: the labelled set asked again with the server's tools plus N distractor
//! tools from the bundled [`corpus`], and with the tool list in other orders ([`lists`]), on
//! the evals engine itself: every answer is looked up in and written to the answer cache as
//! any eval answer is (the tool list differs, so the keys do), so a committed stress run
//! replays offline. The list the evals phase asked (no distractors, server order) is read
//! from its results, not asked again. [`curve`] scores the points.

pub(crate) mod corpus;
pub(crate) mod curve;
pub(crate) mod headroom;
pub(crate) mod lists;

use std::collections::HashSet;
use std::time::Instant;

use curve::ListFacts;

use crate::config::EvalConfig;
use crate::evals::asking::engine::{self, EvalRun};
use crate::events::Event;
use crate::mcp::types::Tool;
use crate::outcome::{
    CacheUse, EvalsResults, ModelEval, Phase, PhaseStatus, StressModel, StressResults, ToolOrder,
};
use crate::settings::{EvalSettings, EvalTarget, StressSettings};

/// What the curve needs besides the server's tools.
pub(crate) struct StressRun<'a> {
    /// The evals phase's inputs (section, settings, environment, events, interrupt).
    pub eval: &'a EvalRun<'a>,
    /// Which tool lists to ask.
    pub settings: &'a StressSettings,
    /// The evals phase's results, whose answers are the list without distractors.
    pub baseline: Option<&'a EvalsResults>,
    /// Other servers' tools, drawn before the corpus.
    pub real: &'a [Tool],
}

/// The tool lists of the curve for the server's `tools`, each with its count and order; the
/// `real` tools (other servers') are drawn first.
pub(crate) fn tool_lists(
    tools: &[Tool],
    real: &[Tool],
    settings: &StressSettings,
) -> Vec<(usize, ToolOrder, Vec<Tool>)> {
    let drawn = draw(real, tools, settings);
    settings
        .points()
        .into_iter()
        .map(|(n, order)| {
            let list = lists::tool_list(tools, &drawn.picked, n, order, settings.seed());
            (n, order, list)
        })
        .collect()
}

/// The distractors of the curve: the `real` tools, then the corpus's.
fn draw<'a>(real: &'a [Tool], tools: &[Tool], settings: &StressSettings) -> lists::Draw<'a> {
    lists::draw_after(
        real,
        corpus::tools(),
        tools,
        settings.seed(),
        settings.largest(),
    )
}

/// Real tools to draw first: the neighbours' (in their order), then each snapshot of
/// `evals.stress.distractors_from`.
pub(crate) fn real_distractors(
    cfg: &EvalConfig,
    neighbours: &[crate::evals::judging::crowd::Neighbour],
) -> Vec<Tool> {
    let mut real: Vec<Tool> = neighbours.iter().flat_map(|n| n.tools.clone()).collect();
    if let Some(stress) = &cfg.stress {
        for snapshot in &stress.distractor_snapshots {
            real.extend(snapshot.tools.iter().cloned().map(Tool::from_wire));
        }
    }
    real
}

/// Whether the list at (`n`, `order`) is the one the evals phase asks.
fn is_baseline(n: usize, order: ToolOrder) -> bool {
    n == 0 && order == ToolOrder::Server
}

/// Answers the curve asks for beyond the evals phase: lists × (cases × trials) × models.
pub(crate) fn planned_answers(
    cfg: &EvalConfig,
    target: &EvalTarget,
    settings: &StressSettings,
) -> usize {
    let lists = settings
        .points()
        .iter()
        .filter(|(n, o)| !is_baseline(*n, *o))
        .count();
    let per_model: usize = cfg
        .cases
        .iter()
        .map(|c| cfg.trials_of(c).max as usize)
        .sum();
    lists * per_model * target.models.len()
}

/// Cases the phase will report as they finish (for progress): lists × cases × models.
pub(crate) fn planned_cases(
    cfg: &EvalConfig,
    target: &EvalTarget,
    settings: &StressSettings,
) -> usize {
    let lists = settings
        .points()
        .iter()
        .filter(|(n, o)| !is_baseline(*n, *o))
        .count();
    lists * engine::planned_cases(cfg, target)
}

/// Every cache key the curve can hit, labelled with its list (for `cache status` and
/// `cache prune`): the list without distractors is the evals phase's and left out. Empty when
/// the curve is off; a tool choice the lists cannot offer is the evals phase's error to say.
pub(crate) fn all_keys(
    tools: &[Tool],
    real: &[Tool],
    cfg: &EvalConfig,
    target: &EvalTarget,
    evals: &EvalSettings,
) -> Vec<(String, String, usize, u32, String)> {
    let mut keys = Vec::new();
    let Some(settings) = evals.stress() else {
        return keys;
    };
    for (n, order, list) in tool_lists(tools, real, settings) {
        if is_baseline(n, order) {
            continue;
        }
        let label = format!("{n} distractors, {}", order.label());
        let list_keys = engine::all_keys(&list, cfg, target, evals).unwrap_or_default();
        for (model, case, trial, key) in list_keys {
            keys.push((label.clone(), model, case, trial, key));
        }
    }
    keys
}

/// Runs the curve: each tool list through the evals engine, in count order. Stops at an
/// interrupt or once the provider cannot be used.
pub(crate) fn run(tools: &[Tool], r: &StressRun<'_>) -> Phase<Option<StressResults>> {
    let started = Instant::now();
    // What stops the evals phase is said there once; the curve builds on its results.
    let baseline = match r.baseline {
        Some(b) if b.models.iter().all(|m| m.error.is_none()) => b,
        Some(_) => return Phase::skipped("the evals phase could not use the provider"),
        None => return Phase::skipped("the evals phase has no results"),
    };
    let target = match r.eval.settings.target() {
        Ok(t) => t,
        Err(e) => return Phase::error(e.to_string()),
    };
    let settings = r.settings;
    let drawn = draw(r.real, tools, settings);
    let drawn_names: HashSet<&str> = drawn.picked.iter().map(|t| t.name.as_str()).collect();
    let mut results = empty_results(tools, r, target, baseline, &drawn);
    let mut fatal = None;
    for (n, order) in settings.points() {
        if r.eval.interrupt.is_set() {
            break;
        }
        if is_baseline(n, order) {
            let facts = ListFacts {
                distractors: n,
                order,
                tools: results.server_tools,
                hash: &baseline.tool_list_hash,
                from_evals: true,
            };
            add_points(&mut results, &baseline.models, facts, &drawn_names);
            continue;
        }
        let list = lists::tool_list(tools, &drawn.picked, n, order, settings.seed());
        r.eval.events.emit(Event::StressList {
            distractors: n,
            order,
            tools: list.len(),
        });
        let asked = engine::run(&list, r.eval);
        let got = match asked.results {
            Some(got) => got,
            None => {
                fatal = asked.reason;
                break;
            }
        };
        add_cache(&mut results.cache, &got.cache);
        if let Some(why) = unusable(&got, target.models.len() > 1) {
            fatal = Some(why);
            break;
        }
        let facts = ListFacts {
            distractors: n,
            order,
            tools: list.len() - got.left_out_tools.len(),
            hash: &got.tool_list_hash,
            from_evals: false,
        };
        add_points(&mut results, &got.models, facts, &drawn_names);
    }
    results.real_distractors = drawn.picked.len().min(
        r.real
            .iter()
            .filter(|t| drawn.picked.iter().any(|p| std::ptr::eq(*p, *t)))
            .count(),
    );
    curve::finish(&mut results);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let offline = r.eval.settings.offline() && target.provider.caches_answers();
    let mut phase = curve::phase(results, ms, offline);
    if let Some(signal) = r.eval.interrupt.signal() {
        phase.status = PhaseStatus::Error;
        let verdict = phase.reason.take().unwrap_or_default();
        phase.reason = Some(format!("interrupted by {}: {verdict}", signal.name()));
    } else if let Some(why) = fatal {
        phase.status = PhaseStatus::Error;
        phase.reason = Some(why);
    }
    phase
}

/// The results before any list is asked: what was drawn, and one empty curve per model.
fn empty_results(
    tools: &[Tool],
    r: &StressRun<'_>,
    target: &EvalTarget,
    baseline: &EvalsResults,
    drawn: &lists::Draw<'_>,
) -> StressResults {
    StressResults {
        seed: r.settings.seed(),
        corpus: corpus::tools().len(),
        server_tools: tools.len() - baseline.left_out_tools.len(),
        distractors: drawn.picked.iter().map(|t| t.name.clone()).collect(),
        skipped: drawn.skipped.clone(),
        min_accuracy: r.eval.settings.min_accuracy(),
        must_hold: r.settings.must_hold(),
        answers: planned_answers(r.eval.cfg, target, r.settings),
        models: target
            .models
            .iter()
            .map(|m| StressModel {
                model: m.clone(),
                ..StressModel::default()
            })
            .collect(),
        ..StressResults::default()
    }
}

/// Why a list's answers stop the curve: a model whose provider could not be used.
fn unusable(got: &EvalsResults, several: bool) -> Option<String> {
    let (model, error) = got
        .models
        .iter()
        .find_map(|m| m.error.as_ref().map(|e| (m.model.as_str(), e)))?;
    let why = crate::report::escape::first_line(error);
    Some(if several {
        format!("{model}: the provider could not be used: {why}")
    } else {
        format!("the provider could not be used: {why}")
    })
}

/// Adds each model's point for one list.
fn add_points(
    results: &mut StressResults,
    models: &[ModelEval],
    facts: ListFacts<'_>,
    drawn: &HashSet<&str>,
) {
    for (curve, eval) in results.models.iter_mut().zip(models) {
        curve.points.push(curve::point(eval, facts, drawn));
    }
}

/// Adds one list's cache use to the curve's.
fn add_cache(total: &mut CacheUse, one: &CacheUse) {
    total.read = one.read;
    total.write = one.write;
    total.dir.clone_from(&one.dir);
    total.hits += one.hits;
    total.asked += one.asked;
    total.failed += one.failed;
    total.requests += one.requests;
    total.retries += one.retries;
    total.corrupt += one.corrupt;
    total.write_errors += one.write_errors;
    if total.write_error.is_none() {
        total.write_error.clone_from(&one.write_error);
    }
}
