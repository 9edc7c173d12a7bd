//! Under `--offline`, what the run can say about the prompts the cache had no answer for: the
//! answers recorded for them under another tool list, and which tools changed since.

use std::collections::HashSet;

use super::{Ctx, Got, Item};
use crate::evals::asking::cache::RecordedElsewhere;
use crate::evals::asking::tools::ApiTools;

/// Under `--offline`, why the cache had no answer for the items not asked: answers to their
/// prompts recorded for another tool list (see [`Cache::why_missed`]).
pub(super) fn why_missed(
    ctx: &Ctx<'_>,
    model: &str,
    items: &[Item],
    got: &[Got],
) -> Option<RecordedElsewhere> {
    let missed: HashSet<&str> = items
        .iter()
        .zip(got)
        .filter(|(item, g)| item.key.is_some() && matches!(g, Got::NotAsked))
        .map(|(item, _)| ctx.cfg.cases[item.case].prompt.as_str())
        .collect();
    if missed.is_empty() {
        return None;
    }
    let provider = &ctx.kind.cache_name(ctx.cfg);
    ctx.cache
        .why_missed(provider, model, &missed, &tool_digests(ctx.api))
}

/// Each tool of the list sent with its [`cache::tool_digest`], in list order.
pub(super) fn tool_digests(api: &ApiTools) -> Vec<(String, String)> {
    api.tools
        .iter()
        .map(|t| (t.name.clone(), crate::evals::asking::cache::tool_digest(t)))
        .collect()
}

/// `the cache holds answers to 8 of these prompts recorded for another tool list: changed
/// since: get_weather; added: find_city`, or what it can say when the files do not list tools.
pub(super) fn recorded_elsewhere(r: &RecordedElsewhere) -> String {
    let n = r.prompts;
    let head = format!(
        "the cache holds answers to {} recorded",
        if n == 1 {
            "one of these prompts".to_owned()
        } else {
            format!("{n} of these prompts")
        }
    );
    let mut diff = Vec::new();
    for (what, names) in [
        ("changed since", &r.changed),
        ("added since", &r.added),
        ("removed since", &r.removed),
    ] {
        if !names.is_empty() {
            diff.push(format!("{what}: {}", names.join(", ")));
        }
    }
    if !diff.is_empty() {
        let mut text = format!("{head} for another tool list ({})", diff.join("; "));
        if r.unlisted > 0 {
            text.push_str(&format!(
                ", and to {} more for a tool list their files do not name",
                r.unlisted
            ));
        }
        return text;
    }
    if r.unlisted == n {
        return format!(
            "{head} for another tool list, system prompt or request settings (the files, written by mcp-toolproof or an older toolproof, do not name the tools they were recorded for)"
        );
    }
    format!("{head} with the same tools but another system prompt or request settings")
}
