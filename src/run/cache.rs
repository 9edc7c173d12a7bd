//! The cache audit of `cache status` and `cache prune`: the answers the current cases,
//! models and trials need (and those of the stress curve, when it is on), compared with what
//! the committed cache holds.

use std::collections::HashSet;

use crate::evals::asking::cache::{Cache, Lookup};
use crate::evals::asking::engine;
use crate::evals::judging::crowd::{self, Neighbour};
use crate::mcp::types::Tool;
use crate::outcome::{CacheAudit, CachedAnswer, NotRemoved};
use crate::plan::CacheAction;
use crate::settings::Settings;

/// The resolver refuses cache commands without an `evals:` section and a provider.
fn no_provider() -> CacheAudit {
    CacheAudit {
        error: Some("no eval provider and model to compare the cache with".into()),
        ..CacheAudit::default()
    }
}

/// A needed cache key.
type NeededKey = (Option<String>, String, usize, u32, String);

/// The server under test's name and its neighbours, when the config names some.
pub(super) type CrowdOf<'a> = (&'a str, Option<&'a Result<Vec<Neighbour>, String>>);

/// The keys of the evals (list `None`), of the crowd's list and of the stress curve's lists,
/// when they are on.
fn needed_keys(
    tools: &[Tool],
    cfg: &crate::config::EvalConfig,
    target: &crate::settings::EvalTarget,
    evals: &crate::settings::EvalSettings,
    (ours, neighbours): CrowdOf<'_>,
) -> Result<Vec<NeededKey>, String> {
    let mut keys: Vec<NeededKey> = engine::all_keys(tools, cfg, target, evals)?
        .into_iter()
        .map(|(model, case, trial, key)| (None, model, case, trial, key))
        .collect();
    let neighbours: &[Neighbour] = match neighbours {
        Some(Ok(n)) => n,
        Some(Err(why)) => return Err(why.clone()),
        None => &[],
    };
    if !neighbours.is_empty() {
        let (list, crowded) = crowd::asked(cfg, ours, tools, neighbours);
        let label = format!("the crowd ({} tools)", list.tools.len());
        keys.extend(
            engine::all_keys(&list.tools, &crowded, target, evals)?
                .into_iter()
                .map(|(model, case, trial, key)| (Some(label.clone()), model, case, trial, key)),
        );
    }
    let real = crate::evals::judging::stress::real_distractors(cfg, neighbours);
    keys.extend(
        crate::evals::judging::stress::all_keys(tools, &real, cfg, target, evals)
            .into_iter()
            .map(|(list, model, case, trial, key)| (Some(list), model, case, trial, key)),
    );
    Ok(keys)
}

/// Looks every needed answer up; for a prune, lists (or removes) the files nothing needs.
pub(super) fn audit(
    settings: &Settings,
    tools: &[Tool],
    action: CacheAction,
    crowd: CrowdOf<'_>,
) -> CacheAudit {
    let (Some(cfg), Some(evals)) = (settings.eval_config(), settings.evals()) else {
        return no_provider();
    };
    let Ok(target) = evals.target() else {
        return no_provider();
    };
    let cache = Cache::new(&cfg.cache_dir);
    let keys = match needed_keys(tools, cfg, target, evals, crowd) {
        Ok(keys) => keys,
        Err(e) => {
            return CacheAudit {
                error: Some(e),
                ..CacheAudit::default()
            };
        }
    };
    let mut audit = CacheAudit {
        dir: cfg.cache_dir.join("evals").display().to_string(),
        ..CacheAudit::default()
    };
    match action {
        CacheAction::Status => {
            let several = target.models.len() > 1;
            for (list, model, case, trial, key) in keys {
                let state = match cache.read(&key) {
                    Lookup::Hit(_) => "cached",
                    Lookup::Miss => "missing",
                    Lookup::Corrupt(_) => "corrupt",
                };
                // Under `trials: auto` a case needs its `min_trials`; a later trial is asked
                // only while the case is undecided, so one never asked is not missing.
                if state == "missing" && trial > cfg.trials_of(&cfg.cases[case]).min {
                    continue;
                }
                let mut label = engine::case_name(&cfg.cases[case]);
                if several {
                    label.push_str(&format!(" [{model}]"));
                }
                if trial > 1 {
                    label.push_str(&format!(" (trial {trial})"));
                }
                if let Some(list) = list {
                    label.push_str(&format!(" [stress: {list}]"));
                }
                audit.answers.push(CachedAnswer {
                    label,
                    key,
                    state: state.into(),
                });
            }
        }
        CacheAction::Prune { apply } => {
            let keep: HashSet<String> = keys.into_iter().map(|(_, _, _, _, key)| key).collect();
            match cache.prune(&keep, apply) {
                Ok(pruned) => {
                    let shown = |f: &std::path::PathBuf| f.display().to_string();
                    audit.stale = pruned.stale.iter().map(shown).collect();
                    audit.not_removed = pruned
                        .failed
                        .iter()
                        .map(|(file, error)| NotRemoved {
                            file: shown(file),
                            error: error.clone(),
                        })
                        .collect();
                    audit.removed = apply;
                }
                Err(e) => {
                    audit.error = Some(format!("could not prune {}: {e}", cfg.cache_dir.display()));
                }
            }
        }
    }
    audit
}
