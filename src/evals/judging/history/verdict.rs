//! The verdict on each model against its base run: the base found (the newest history line of
//! a branch, or a base run's JSON report), whether the two runs measured the same thing (the
//! fingerprint), and the exact paired test over the rows both have.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::Entry;
use crate::config::{ComparePolicy, EvalConfig};
use crate::evals::judging::stats;
use crate::outcome::{
    BaseRef, ComparedRow, Comparison, EvalsResults, Fingerprint, Gate, GateKind, ModelEval, Verdict,
};
use crate::settings::{CompareSettings, Env, EvalSettings};

/// The power the minimum detectable effect is computed at.
pub(crate) const POWER: f64 = 0.8;

/// Where the base comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// The newest line of this branch in the history file.
    Branch(String),
    /// A base run's JSON report.
    Report(String),
    /// No base: why.
    Nothing(String),
}

/// `--compare-to` (a file ending in `.json`, else a branch), else the pull request's base
/// branch; `None` when neither names a base (then no comparison is made or shown).
pub(crate) fn source(
    settings: &CompareSettings,
    base_ref: Option<&str>,
    history: bool,
) -> Option<Source> {
    let branch = |b: &str| {
        if history {
            Source::Branch(b.to_owned())
        } else {
            Source::Nothing(format!(
                "no base run: the base is the newest line of `{b}` in the history file, and no --history file (TOOLPROOF_HISTORY) was given"
            ))
        }
    };
    match (settings.to.as_deref(), base_ref) {
        (Some(to), _) if to.ends_with(".json") => Some(Source::Report(to.to_owned())),
        (Some(to), _) => Some(branch(to)),
        (None, Some(b)) => Some(branch(b)),
        (None, None) => None,
    }
}

/// One model's outcome in a base run.
#[derive(Debug, Clone, Default)]
pub(crate) struct BaseModel {
    provider: String,
    model: String,
    fingerprint: Option<Fingerprint>,
    rows: Vec<(String, [u32; 2])>,
    base: BaseRef,
    /// Each tool's digest in the base run (empty when it did not keep them).
    tool_digests: BTreeMap<String, String>,
}

impl BaseModel {
    /// The provider and model it ran, and each row's `(correct, trials)` by case identity.
    pub(crate) fn rows(&self) -> (&str, &str, &[(String, [u32; 2])]) {
        (&self.provider, &self.model, &self.rows)
    }

    /// The tools of `now` (MCP name → digest) whose definition differs from the base's, or
    /// that the base did not list; none when the base kept no digests.
    pub(crate) fn changed_tools(&self, now: &BTreeMap<String, String>) -> HashSet<String> {
        if self.tool_digests.is_empty() {
            return HashSet::new();
        }
        now.iter()
            .filter(|(name, digest)| self.tool_digests.get(*name) != Some(*digest))
            .map(|(name, _)| name.clone())
            .collect()
    }
}

/// A base: its models, or why there is none.
pub(crate) type Base = Result<Vec<BaseModel>, String>;

/// The base models of `source`: from the history lines `before` (read before this run's lines
/// are appended), or from a JSON report (a relative path is read under `dir`).
pub(crate) fn base(source: &Source, before: &[Entry], dir: &Path) -> Base {
    match source {
        Source::Nothing(why) => Err(why.clone()),
        Source::Branch(b) => {
            let lines: Vec<&Entry> = before
                .iter()
                .filter(|e| e.is_eval() && e.git_ref.as_deref() == Some(b.as_str()))
                .collect();
            if lines.is_empty() {
                return Err(format!(
                    "no base run: the history file holds no eval run of `{b}`"
                ));
            }
            let with_rows: Vec<BaseModel> = lines
                .iter()
                .rev()
                .filter_map(|e| {
                    Some(BaseModel {
                        provider: e.provider.clone(),
                        model: e.model.clone(),
                        fingerprint: e.fingerprint.clone(),
                        rows: e
                            .rows
                            .as_ref()?
                            .iter()
                            .map(|(k, v)| (k.clone(), *v))
                            .collect(),
                        base: BaseRef {
                            git_ref: b.clone(),
                            commit: e.commit.clone(),
                            time: Some(e.time.clone()),
                        },
                        tool_digests: e.tool_digests.clone().unwrap_or_default(),
                    })
                })
                .collect();
            if with_rows.is_empty() {
                return Err(format!(
                    "no base run: the history lines of `{b}` predate per-row outcomes"
                ));
            }
            Ok(with_rows)
        }
        Source::Report(path) => report(path, dir),
    }
}

/// The models of a base run's JSON report.
fn report(path: &str, dir: &Path) -> Base {
    let full = dir.join(path);
    let text = crate::evals::read_capped(&full, super::HISTORY_LIMIT, "a JSON report")
        .map_err(|e| format!("no base run: the base report {path} could not be read: {e}"))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("the base report {path} is not a JSON report: {e}"))?;
    let results = &value["phases"]["evals"]["results"];
    let Some(models) = results["models"].as_array() else {
        return Err(format!(
            "no base run: the base report {path} has no eval results"
        ));
    };
    let results: EvalsResults = serde_json::from_value(serde_json::json!({
        "provider": results["provider"],
        "models": [],
        "left_out_tools": [],
        "tool_list_hash": results["tool_list_hash"],
        "cache": {"read": false, "write": false, "dir": null, "hits": 0, "asked": 0, "corrupt": 0},
        "history": null,
        "fingerprint": results.get("fingerprint"),
        "tool_digests": results.get("tool_digests").cloned().unwrap_or_default(),
    }))
    .map_err(|e| format!("the base report {path} cannot be read: {e}"))?;
    let mut out = Vec::new();
    for m in models {
        let Ok(model) = serde_json::from_value::<ModelEval>(m.clone()) else {
            return Err(format!(
                "the base report {path} has a model result this version cannot read"
            ));
        };
        out.push(BaseModel {
            provider: results.provider.clone(),
            model: model.model.clone(),
            fingerprint: results.fingerprint.clone(),
            rows: rows(&model),
            base: BaseRef {
                git_ref: path.to_owned(),
                commit: None,
                time: value["started_at"].as_str().map(str::to_owned),
            },
            tool_digests: results.tool_digests.clone(),
        });
    }
    Ok(out)
}

/// Each asked case's `[correct, trials]` by its identity (the name sharding splits by), in
/// order; trials without a usable answer are left out, and so are cases never asked.
pub(crate) fn rows(m: &ModelEval) -> Vec<(String, [u32; 2])> {
    let ids = crate::settings::case_identities(m.cases.iter().map(|c| c.name.as_str()));
    m.cases
        .iter()
        .zip(ids)
        .filter_map(|(c, id)| c.scored().map(|(correct, n)| (id, [correct, n])))
        .collect()
}

/// The rows as a history line keeps them.
pub(crate) fn row_map(m: &ModelEval) -> BTreeMap<String, [u32; 2]> {
    rows(m).into_iter().collect()
}

/// What this run measured beyond the tool list.
pub(crate) fn fingerprint(
    cfg: &EvalConfig,
    settings: &EvalSettings,
    env: &Env,
    tool_list_hash: &str,
) -> Fingerprint {
    let provider = settings
        .target()
        .map_or_else(|_| String::new(), |t| t.provider.name().to_owned());
    let endpoint = if provider == "command" {
        cfg.command
            .as_ref()
            .and_then(|c| c.first())
            .map(|c| {
                Path::new(c)
                    .file_name()
                    .map_or(c.clone(), |f| f.to_string_lossy().into_owned())
            })
            .unwrap_or_default()
    } else {
        let upper = provider.to_ascii_uppercase().replace('-', "_");
        [
            format!("{upper}_BASE_URL"),
            "GOOGLE_GEMINI_BASE_URL".to_owned(),
        ]
        .iter()
        .filter(|v| v.starts_with(&upper) || provider == "google")
        .find_map(|v| env.get(v))
        .map_or_else(|| "default".to_owned(), without_credentials)
    };
    let param = |k: &str| cfg.params.get(k);
    // `5`, or `auto 1-10` (the bounds are part of the policy: they change what a row can get).
    let trials = match cfg.trials.fixed() {
        Some(n) => n.to_string(),
        None => format!("auto {}-{}", cfg.min_trials, cfg.max_trials),
    };
    Fingerprint {
        provider,
        endpoint,
        temperature: param("temperature").and_then(serde_json::Value::as_f64),
        seed: param("seed").and_then(serde_json::Value::as_i64),
        max_tokens: cfg.max_tokens,
        tool_choice: settings.tool_choice().map(|c| format!("{c:?}")),
        system: cfg.system.as_deref().map(short_sha),
        tools: tool_list_hash.chars().take(16).collect(),
        trials,
    }
}

/// A URL without user, password and query.
fn without_credentials(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or("");
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
            format!("{scheme}://{}", rest.trim_end_matches('/'))
        }
        None => url.trim_end_matches('/').to_owned(),
    }
}

fn short_sha(text: &str) -> String {
    use sha2::{Digest, Sha256};
    crate::outcome::hex(&Sha256::digest(text.as_bytes()))
        .chars()
        .take(16)
        .collect()
}

/// Why a comparison is inconclusive: what the set detects, and how many rows or trials would
/// detect `min_effect`, priced at what one request cost in this run.
fn inconclusive(
    now: &ModelEval,
    base_counts: &[(u32, u32)],
    mde: f64,
    settings: &CompareSettings,
) -> String {
    let per_request = now
        .cost
        .as_ref()
        .filter(|c| c.requests > 0)
        .and_then(|c| c.cost_usd.map(|usd| usd / c.requests as f64));
    let level = crate::evals::asking::engine::Level {
        alpha: settings.alpha,
        min_effect: settings.min_effect,
    };
    let what_would = crate::evals::asking::engine::conclusive_hint(
        base_counts,
        now.trials.max(1),
        per_request,
        level,
    )
    .unwrap_or_else(|| "more rows or trials per row would make it conclusive".into());
    format!(
        "the set detects a drop of {} or more at {:.0}% power, not the {} of evals.compare.min_effect; {what_would}",
        pct(mde),
        POWER * 100.0,
        pct(settings.min_effect)
    )
}

/// The comparison of `now` (of `provider`, measured as `print` says) with `base`.
pub(crate) fn judge(
    now: &ModelEval,
    provider: &str,
    print: &Fingerprint,
    base: &Base,
    settings: &CompareSettings,
) -> Comparison {
    let models = match base {
        Err(why) => {
            return Comparison {
                verdict: Verdict::NoBase,
                reason: Some(why.clone()),
                ..Comparison::default()
            };
        }
        Ok(models) => models,
    };
    let same = models
        .iter()
        .find(|b| b.provider == provider && b.model == now.model);
    let Some(then) = same.or_else(|| models.first()) else {
        return Comparison {
            verdict: Verdict::NoBase,
            reason: Some("no base run: the base has no eval result".into()),
            ..Comparison::default()
        };
    };
    let differs = differences(then, &now.model, provider, print);
    if !differs.is_empty() {
        return Comparison {
            verdict: Verdict::NotComparable,
            base: Some(then.base.clone()),
            reason: Some(format!("the runs differ: {}", differs.join(", "))),
            ..Comparison::default()
        };
    }
    let (shared, added, removed) = pair_rows(&rows(now), &then.rows);
    if shared.is_empty() {
        return Comparison {
            verdict: Verdict::NoBase,
            base: Some(then.base.clone()),
            added,
            removed,
            reason: Some("no base run: the base has none of this run's cases".into()),
            ..Comparison::default()
        };
    }
    let test_rows: Vec<stats::Row> = shared
        .iter()
        .map(|r| stats::Row {
            before: (r.before[0], r.before[1]),
            after: (r.after[0], r.after[1]),
        })
        .collect();
    let p = stats::paired(&test_rows);
    let base_counts: Vec<(u32, u32)> = test_rows.iter().map(|r| r.before).collect();
    let mde = stats::mde(&base_counts, now.trials.max(1), settings.alpha, POWER);
    let drop = p.accuracy_before - p.accuracy_after;
    let effect = settings.min_effect - 1e-9;
    let (verdict, p_value, reason) =
        if stats::significant(p.p_worse, settings.alpha) && drop >= effect {
            (Verdict::Regressed, p.p_worse, None)
        } else if stats::significant(p.p_better, settings.alpha) && -drop >= effect {
            (Verdict::Improved, p.p_better, None)
        } else if mde > settings.min_effect {
            let reason = inconclusive(now, &base_counts, mde, settings);
            (Verdict::Inconclusive, p.p_worse, Some(reason))
        } else {
            (Verdict::NoChange, p.p_worse, None)
        };
    Comparison {
        verdict,
        base: Some(then.base.clone()),
        p_value: Some(p_value),
        accuracy_before: Some(p.accuracy_before),
        accuracy_after: Some(p.accuracy_after),
        mde: Some(mde),
        rows: shared,
        added,
        removed,
        reason,
    }
}

/// What differs between the base model `then` and this run (`model` of `provider`, measured
/// as `print` says), the tool list aside.
fn differences(then: &BaseModel, model: &str, provider: &str, print: &Fingerprint) -> Vec<String> {
    let mut differs = Vec::new();
    if then.provider != provider {
        differs.push(format!("provider {} → {provider}", then.provider));
    }
    if then.model != model {
        differs.push(format!("model {} → {}", show(&then.model), show(model)));
    }
    if let Some(fp) = &then.fingerprint {
        differs.extend(
            print
                .differences(fp)
                .into_iter()
                .filter(|d| !d.starts_with("provider ")),
        );
    }
    differs
}

/// The rows both runs have (in this run's order), those only this run has, and those only the
/// base has.
fn pair_rows(
    after: &[(String, [u32; 2])],
    before: &[(String, [u32; 2])],
) -> (Vec<ComparedRow>, Vec<String>, Vec<String>) {
    let then: BTreeMap<&str, [u32; 2]> = before.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let mut shared = Vec::new();
    let mut added = Vec::new();
    for (case, a) in after {
        match then.get(case.as_str()) {
            Some(b) => shared.push(ComparedRow {
                case: case.clone(),
                before: *b,
                after: *a,
            }),
            None => added.push(case.clone()),
        }
    }
    let removed = before
        .iter()
        .filter(|(k, _)| !after.iter().any(|(a, _)| a == k))
        .map(|(k, _)| k.clone())
        .collect();
    (shared, added, removed)
}

fn show(model: &str) -> &str {
    if model.is_empty() { "(none)" } else { model }
}

fn pct(v: f64) -> String {
    let p = v * 100.0;
    if p < 10.0 && (p - p.round()).abs() > 1e-9 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// Judges every model of `results` against `base` and adds each verdict's gate: a regression
/// fails under `on_regression: fail`, an inconclusive set under `on_inconclusive: fail`; no
/// base adds no gate (the run gates as it would without a base).
pub(crate) fn apply(results: &mut EvalsResults, base: &Base, settings: &CompareSettings) {
    let Some(print) = results.fingerprint.clone() else {
        return;
    };
    let provider = results.provider.clone();
    for m in &mut results.models {
        if m.error.is_some() || m.tools_unseen.is_some() || m.total == 0 || m.asked_nothing() {
            continue;
        }
        let c = judge(m, &provider, &print, base, settings);
        let policy = match c.verdict {
            Verdict::Regressed => Some(settings.on_regression),
            Verdict::Inconclusive => Some(settings.on_inconclusive),
            Verdict::NoBase => None,
            _ => Some(ComparePolicy::Warn),
        };
        if let Some(policy) = policy {
            let passed = policy == ComparePolicy::Warn
                || !matches!(c.verdict, Verdict::Regressed | Verdict::Inconclusive);
            let mut detail = c.headline();
            if !passed {
                let key = if c.verdict == Verdict::Regressed {
                    "on_regression"
                } else {
                    "on_inconclusive"
                };
                detail.push_str(&format!(" (evals.compare.{key}: fail)"));
            }
            m.gates.push(Gate {
                kind: GateKind::Comparison,
                passed,
                detail,
            });
            m.passed &= passed;
        }
        m.comparison = Some(c);
    }
}

#[cfg(test)]
mod tests;
