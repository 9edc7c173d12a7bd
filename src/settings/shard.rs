//! `--shard K/N` > `TOOLPROOF_SHARD`, and the part of the config that falls in the shard:
//! each eval case by its name (else its prompt and context), each bench target by its label
//! (fuzzed tools by their name, in the fuzz phase). A name used twice is told apart by its
//! occurrence (`name#2`), so the split never depends on an item's position.

use super::env::Env;
use super::resolve::env_value;
use super::{BenchSettings, FuzzSettings, Outputs, PrCommentMode};
use crate::cli::ShardArg;
use crate::config::{Config, ConfigError, EvalCase, EvalConfig, Turn};
use crate::shard::Shard;

/// The shard of this run: the flag, else the variable (on `run`, `eval`, `fuzz` and `bench`).
pub(super) fn resolve(flag: Option<&ShardArg>, env: &Env) -> Result<Option<Shard>, ConfigError> {
    let Some(flag) = flag else {
        return Ok(None);
    };
    if let Some(shard) = flag.shard {
        return Ok(Some(shard));
    }
    Ok(env_value(env, "TOOLPROOF_SHARD", Shard::parse)?.map(|(s, _, _)| s))
}

/// A shard of several writes no history line and posts no pull-request comment: a shard's
/// miss rate covers its own cases only, so both are the merged run's (`toolproof merge`).
pub(super) fn refuse_whole_run_outputs(
    shard: Shard,
    outputs: &Outputs,
    history_flag: bool,
) -> Result<(), ConfigError> {
    if shard.count < 2 {
        return Ok(());
    }
    let refuse = |what: &str, origin: String, flag: &str| {
        ConfigError::new(format!(
            "{origin} asks shard {shard} for {what}, which covers the whole run"
        ))
        .hint(format!(
            "drop it from the shard jobs and give `{flag}` to `toolproof merge`, which merges their JSON reports into the run's"
        ))
    };
    if outputs.history().is_some() {
        let origin = if history_flag {
            "--history".to_owned()
        } else {
            "TOOLPROOF_HISTORY".to_owned()
        };
        return Err(refuse("a history line", origin, "--history"));
    }
    let comment = outputs.github().pr_comment();
    if comment.wanted() {
        let origin = if comment.file().is_some() && comment.mode() == PrCommentMode::Off {
            "--pr-comment-file (or TOOLPROOF_PR_COMMENT_FILE)".to_owned()
        } else {
            comment.mode_origin().to_string()
        };
        return Err(refuse("a pull-request comment", origin, "--pr-comment"));
    }
    Ok(())
}

/// Keeps what falls in `shard`: its bench targets and eval cases (the fuzz phase picks its
/// tools by the shard it is given). Returns the whole `evals:` section, for the set lint.
pub(super) fn split(
    shard: Shard,
    bench: Option<&mut BenchSettings>,
    fuzz: Option<&mut FuzzSettings>,
    config: &mut Config,
) -> Option<EvalConfig> {
    if let Some(b) = bench {
        let names = identities(b.targets.iter().map(|t| t.name.as_str()));
        b.targets = keep(std::mem::take(&mut b.targets), &names, shard);
    }
    if let Some(f) = fuzz {
        f.shard = Some(shard);
    }
    let e = config.evals.as_mut()?;
    let whole = e.clone();
    let labels: Vec<String> = e.cases.iter().map(case_name).collect();
    let names = identities(labels.iter().map(String::as_str));
    e.cases = keep(std::mem::take(&mut e.cases), &names, shard);
    Some(whole)
}

/// The identity of each eval case, as sharding splits them (and history lines key them).
pub(crate) fn case_ids(cases: &[EvalCase]) -> Vec<String> {
    let labels: Vec<String> = cases.iter().map(case_name).collect();
    identities(labels.iter().map(String::as_str))
}

/// The identity of each item from its name: the name, and `name#N` for its N-th use.
pub(crate) fn identities<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    names
        .map(|name| {
            let n = seen.entry(name).or_insert(0);
            *n += 1;
            if *n == 1 {
                name.to_owned()
            } else {
                format!("{name}#{n}")
            }
        })
        .collect()
}

/// The name an eval case is split by: its `name`, else its prompt (with its context, when it
/// has one, so the same prompt after another conversation is another case).
pub(crate) fn case_name(case: &EvalCase) -> String {
    match &case.name {
        Some(name) => name.clone(),
        None if case.turns().is_empty() => case.prompt.clone(),
        None => {
            let mut id = case.prompt.clone();
            for turn in case.turns() {
                id.push('\n');
                match turn {
                    Turn::User(text) => id.push_str(&format!("user: {text}")),
                    Turn::Assistant(text) => id.push_str(&format!("assistant: {text}")),
                    Turn::Call { tool, args, result } => id.push_str(&format!(
                        "call: {tool} {} {result}",
                        serde_json::Value::Object(args)
                    )),
                }
            }
            id
        }
    }
}

/// Keeps the items of `shard`, by the identities of `names`.
pub(super) fn keep<T>(items: Vec<T>, names: &[String], shard: Shard) -> Vec<T> {
    items
        .into_iter()
        .zip(names)
        .filter(|(_, id)| shard.holds(id))
        .map(|(item, _)| item)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_used_twice_is_told_apart_by_its_occurrence() {
        assert_eq!(
            identities(["a", "b", "a", "a"].into_iter()),
            ["a", "b", "a#2", "a#3"]
        );
    }
}
