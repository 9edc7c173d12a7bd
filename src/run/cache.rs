//! The cache audit of `cache status` and `cache prune`: the answers the current cases,
//! models and trials need, compared with what the committed cache holds.

use std::collections::HashSet;

use crate::evals::cache::{Cache, Lookup};
use crate::evals::engine;
use crate::mcp::types::Tool;
use crate::plan::CacheAction;
use crate::report::model::{CacheAudit, CachedAnswer, NotRemoved};
use crate::settings::Settings;

/// Looks every needed answer up; for a prune, lists (or removes) the files nothing needs.
pub(super) fn audit(settings: &Settings, tools: &[Tool], action: CacheAction) -> CacheAudit {
    let (Some(cfg), Some(Ok(target))) =
        (settings.eval_config(), settings.evals().map(|e| e.target()))
    else {
        // The resolver refuses cache commands without an `evals:` section and a provider.
        return CacheAudit {
            error: Some("no eval provider and model to compare the cache with".into()),
            ..CacheAudit::default()
        };
    };
    let cache = Cache::new(&cfg.cache_dir);
    let settings_evals = settings.evals();
    let keys = match settings_evals.map(|s| engine::all_keys(tools, cfg, target, s)) {
        Some(Ok(keys)) => keys,
        Some(Err(e)) => {
            return CacheAudit {
                error: Some(e),
                ..CacheAudit::default()
            };
        }
        None => Vec::new(),
    };
    let mut audit = CacheAudit {
        dir: cfg.cache_dir.join("evals").display().to_string(),
        ..CacheAudit::default()
    };
    match action {
        CacheAction::Status => {
            let several = target.models.len() > 1;
            for (model, case, trial, key) in keys {
                let state = match cache.read(&key) {
                    Lookup::Hit(_) => "cached",
                    Lookup::Miss => "missing",
                    Lookup::Corrupt(_) => "corrupt",
                };
                let mut label = engine::case_name(&cfg.cases[case]);
                if several {
                    label.push_str(&format!(" [{model}]"));
                }
                if trial > 1 {
                    label.push_str(&format!(" (trial {trial})"));
                }
                audit.answers.push(CachedAnswer {
                    label,
                    key,
                    state: state.into(),
                });
            }
        }
        CacheAction::Prune { apply } => {
            let keep: HashSet<String> = keys.into_iter().map(|(_, _, _, key)| key).collect();
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
