//! The phases of the merged run besides the evals. What runs once (static checks, set lint,
//! protocol, the stress curve) comes from the report that ran it; what is split (tool-call
//! tests, bench targets, fuzzed tools) is the union of the shards, in config (or server) order,
//! with its status recomputed over the union.

use std::collections::BTreeMap;

use super::read::{MergeError, Part, duplicate};
use crate::outcome::{
    BenchResults, FuzzResults, Phase, PhaseStatus, StressResults, TestResult, TestStatus,
};

/// The phase as the first report that ran it has it, else as the first report has it.
pub(super) fn first_run<T: Clone>(parts: &[&Part], phase: impl Fn(&Part) -> &Phase<T>) -> Phase<T> {
    // `merge` takes one report at least (clap requires it).
    parts
        .iter()
        .map(|p| phase(p))
        .find(|ph| ph.status != PhaseStatus::Skipped)
        .unwrap_or_else(|| phase(parts[0]))
        .clone()
}

/// The status of a split phase from its parts that ran: an error when one errored (its reason
/// kept), failed when one failed, else passed; skipped when none ran.
fn combined<T>(ran: &[&Phase<T>]) -> (PhaseStatus, Option<String>) {
    if let Some(e) = ran.iter().find(|p| p.status == PhaseStatus::Error) {
        return (PhaseStatus::Error, e.reason.clone());
    }
    if ran.iter().any(|p| p.status == PhaseStatus::Failed) {
        return (
            PhaseStatus::Failed,
            ran.iter().find_map(|p| p.reason.clone()),
        );
    }
    (
        PhaseStatus::Passed,
        ran.iter().find_map(|p| p.reason.clone()),
    )
}

/// The phase of each part that ran it (not skipped).
fn ran<'a, T>(parts: &[&'a Part], phase: impl Fn(&'a Part) -> &'a Phase<T>) -> Vec<&'a Phase<T>> {
    parts
        .iter()
        .map(|p| phase(p))
        .filter(|ph| ph.status != PhaseStatus::Skipped)
        .collect()
}

fn longest<T>(ran: &[&Phase<T>]) -> f64 {
    ran.iter().map(|p| p.duration_ms).fold(0.0, f64::max)
}

/// The tool-call tests of every shard, in config (line) order.
pub(super) fn tests(bases: &[&Part]) -> Result<Phase<Vec<TestResult>>, MergeError> {
    let ran = ran(bases, |p| &p.report.phases.tests);
    if ran.is_empty() {
        return Ok(first_run(bases, |p| &p.report.phases.tests));
    }
    let mut seen: BTreeMap<(Option<u32>, &str), String> = BTreeMap::new();
    let mut results = Vec::new();
    for p in bases {
        for t in &p.report.phases.tests.results {
            if let Some(other) = seen.insert((t.line, &t.name), p.name()) {
                return Err(duplicate(format!(
                    "test `{}` is in {other} and in {}",
                    t.name,
                    p.name()
                )));
            }
            results.push(t.clone());
        }
    }
    results.sort_by_key(|t| t.line.unwrap_or(u32::MAX));
    let (mut status, reason) = combined(&ran);
    let all_ok = results
        .iter()
        .all(|t| matches!(t.status, TestStatus::Passed | TestStatus::Flaky));
    if status == PhaseStatus::Passed && !all_ok {
        status = PhaseStatus::Failed;
    }
    Ok(Phase {
        status,
        reason,
        duration_ms: longest(&ran),
        results,
    })
}

/// The bench targets of every shard, in shard order.
pub(super) fn bench(bases: &[&Part]) -> Phase<Option<BenchResults>> {
    let ran = ran(bases, |p| &p.report.phases.bench);
    if ran.is_empty() {
        return first_run(bases, |p| &p.report.phases.bench);
    }
    let mut results: Option<BenchResults> = None;
    for r in ran.iter().filter_map(|ph| ph.results.as_ref()) {
        let merged = results.get_or_insert_with(|| BenchResults {
            targets: Vec::new(),
            baseline: r.baseline.clone(),
        });
        merged.targets.extend(r.targets.iter().cloned());
    }
    let (mut status, reason) = combined(&ran);
    if status == PhaseStatus::Passed
        && results
            .as_ref()
            .is_some_and(|r| r.targets.iter().any(|t| !t.passed))
    {
        status = PhaseStatus::Failed;
    }
    Phase {
        status,
        reason,
        duration_ms: longest(&ran),
        results,
    }
}

/// The fuzzed tools of every shard, in server order; a tool fuzzed in one shard and skipped in
/// another counts as fuzzed.
pub(super) fn fuzz(bases: &[&Part]) -> Result<Phase<Option<FuzzResults>>, MergeError> {
    let with_results: Vec<(&Part, &FuzzResults)> = bases
        .iter()
        .filter_map(|p| p.report.phases.fuzz.results.as_ref().map(|r| (*p, r)))
        .collect();
    let Some((_, first)) = with_results.first() else {
        return Ok(first_run(bases, |p| &p.report.phases.fuzz));
    };
    let mut merged = FuzzResults {
        tools: Vec::new(),
        warning: None,
        ..(*first).clone()
    };
    let mut fuzzed_in: BTreeMap<&str, String> = BTreeMap::new();
    for (p, r) in &with_results {
        for t in &r.tools {
            let at = merged.tools.iter().position(|m| m.tool == t.tool);
            match at {
                None => merged.tools.push(t.clone()),
                Some(i) if t.skipped.is_none() => {
                    if let Some(other) = fuzzed_in.get(t.tool.as_str()) {
                        return Err(duplicate(format!(
                            "tool `{}` was fuzzed in {other} and in {}",
                            t.tool,
                            p.name()
                        )));
                    }
                    merged.tools[i] = t.clone();
                }
                Some(_) => {}
            }
            if t.skipped.is_none() {
                fuzzed_in.insert(&t.tool, p.name());
            }
        }
    }
    let order = server_order(bases);
    merged.tools.sort_by_key(|t| {
        order
            .iter()
            .position(|n| *n == t.tool)
            .unwrap_or(usize::MAX)
    });
    let phases: Vec<&Phase<Option<FuzzResults>>> =
        bases.iter().map(|p| &p.report.phases.fuzz).collect();
    let (status, reason) = fuzz_status(&phases, &merged);
    if status == PhaseStatus::Skipped {
        merged.warning = with_results.iter().find_map(|(_, r)| r.warning.clone());
    }
    let ran = ran(bases, |p| &p.report.phases.fuzz);
    Ok(Phase {
        status,
        reason,
        duration_ms: longest(&ran),
        results: Some(merged),
    })
}

/// Findings fail it; a shard that fuzzed nothing does not make the union's error when another
/// shard fuzzed something; nothing fuzzed anywhere keeps the first shard's verdict.
fn fuzz_status(
    phases: &[&Phase<Option<FuzzResults>>],
    merged: &FuzzResults,
) -> (PhaseStatus, Option<String>) {
    let fuzzed_something = |p: &&Phase<Option<FuzzResults>>| {
        p.results.as_ref().is_some_and(|r| r.fuzzed() > 0) || merged.fuzzed() == 0
    };
    let errors: Vec<_> = phases
        .iter()
        .copied()
        .filter(|p| p.status == PhaseStatus::Error)
        .filter(fuzzed_something)
        .collect();
    if let Some(e) = errors.first() {
        return (PhaseStatus::Error, e.reason.clone());
    }
    if merged.findings() > 0 {
        return (PhaseStatus::Failed, None);
    }
    if merged.fuzzed() == 0 {
        let first = phases.first();
        return (
            first.map_or(PhaseStatus::Skipped, |p| p.status),
            first.and_then(|p| p.reason.clone()),
        );
    }
    (PhaseStatus::Passed, None)
}

/// The server's tools in its order, as the first report that listed them has them.
fn server_order<'a>(parts: &[&'a Part]) -> Vec<&'a str> {
    parts
        .iter()
        .find_map(|p| p.report.inventory.as_ref())
        .map(|i| i.tools.iter().map(|t| t.name.as_str()).collect())
        .unwrap_or_default()
}

/// The stress curve: each model's curve from the first report that measured it (shard 1 of
/// each per-model job measures its own model over the whole set).
pub(super) fn stress(parts: &[&Part]) -> Phase<Option<StressResults>> {
    let ran = ran(parts, |p| &p.report.phases.stress);
    let mut phase = first_run(parts, |p| &p.report.phases.stress);
    if ran.len() < 2 {
        return phase;
    }
    if let Some(merged) = phase.results.as_mut() {
        for r in ran.iter().skip(1).filter_map(|ph| ph.results.as_ref()) {
            for m in &r.models {
                if !merged.models.iter().any(|x| x.model == m.model) {
                    merged.models.push(m.clone());
                }
            }
        }
    }
    let (status, reason) = combined(&ran);
    phase.status = status;
    phase.reason = reason.or(phase.reason);
    phase.duration_ms = longest(&ran);
    phase
}
