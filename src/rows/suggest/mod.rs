//! `toolproof rows suggest`: for each pair of tools a model may take for each other (the
//! `similar-tools` pairs at `checks.similarity_threshold`, the pairs the last run of the
//! history file confused, or `--pair A,B`), asks a model for near-miss prompts on each side,
//! plus no-tool filler and ambiguous rows for the pair's verbs. The model's rows are checked
//! (a prompt, a tool of the pair or no tool), redacted, deduplicated against the set and each
//! other, and written with `reviewed: false` and `why: "near miss between A and B…"`.

mod ask;

use serde_json::{Value, json};

use super::propose::{Kind, Proposal};
use super::{Destination, Stop, existing, list_tools, load, pii, select, yaml};
use crate::checks::similarity::similar_pairs;
use crate::cli::SuggestArgs;
use crate::mcp::types::Tool;
use crate::output::to_stderr;
use crate::settings::Env;

/// Rows asked for per pair when `--count` is not given.
const DEFAULT_COUNT: u32 = 4;

/// Runs `rows suggest`.
pub(crate) fn run(args: &SuggestArgs, env: &Env) -> Result<(), Stop> {
    let (loaded, secrets) = load(&args.out, env)?;
    let destination = Destination::of(&args.out, &loaded)?;
    let asker = ask::Asker::new(args, &loaded, env)?;
    let tools = list_tools(&loaded, &secrets)?;
    let pairs = pairs(args, &loaded, &tools, env)?;
    if pairs.is_empty() {
        to_stderr(
            "rows suggest: no pair of tools to ask about: no two tools are similar enough and the history names no confused pair\nhint: name one with --pair A,B",
        );
        return Ok(());
    }
    let existing = existing(&loaded);
    let prompts: Vec<&str> = existing.iter().map(|(p, _)| p.as_str()).collect();
    let defs: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description.clone().unwrap_or_default(), "input_schema": t.input_schema}))
        .collect();
    let n = args.count.unwrap_or(DEFAULT_COUNT);
    let mut proposals = Vec::new();
    let mut said = Vec::new();
    for (a, b, why) in &pairs {
        let task = json!({"task": "suggest_rows", "pair": [a, b], "tools": defs, "existing": prompts, "n": n});
        let (rows, cached) = asker.ask(&task).map_err(|e| e.in_pair(a, b))?;
        let (good, bad) = read_rows(&rows, a, b);
        said.push(format!(
            "  {a} / {b} ({why}): {} rows{}{}",
            good.len(),
            if cached { ", from the cache" } else { "" },
            if bad > 0 {
                format!(", {bad} left out (no prompt, or a tool outside the pair)")
            } else {
                String::new()
            }
        ));
        proposals.extend(good);
    }
    let (kept, dropped) = select::select(proposals, &existing, args.out.limit);
    let mut pii = pii::Pii::new(&secrets);
    let rows: Vec<yaml::Row> = kept
        .iter()
        .map(|p| yaml::Row {
            prompt: if args.out.no_redact {
                p.prompt.clone()
            } else {
                pii.text(&p.prompt)
            },
            expect: p.expect.clone(),
            why: p.why.clone(),
            context: Vec::new(),
        })
        .collect();
    let wrote = destination.write(&rows, "toolproof rows suggest")?;
    let redacted: Vec<String> = pii.counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    to_stderr(&format!(
        "rows suggest: asked {} about {} pairs\n{}\n  dropped: {} already in the set, {} duplicates, {} over --limit{}\nwrote {} rows to {wrote}: each has `reviewed: false` until someone reads it",
        asker.describe(),
        pairs.len(),
        said.join("\n"),
        dropped.in_set,
        dropped.duplicates,
        dropped.over_limit,
        if redacted.is_empty() {
            String::new()
        } else {
            format!("\n  redacted: {}", redacted.join(", "))
        },
        rows.len()
    ));
    Ok(())
}

/// The pairs to ask about, each with why: `--pair` (names checked against the server), or
/// the similar-tools pairs and the history's confused pairs.
fn pairs(
    args: &SuggestArgs,
    loaded: &crate::config::LoadedConfig,
    tools: &[Tool],
    env: &Env,
) -> Result<Vec<(String, String, String)>, Stop> {
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    if !args.pair.is_empty() {
        return args
            .pair
            .iter()
            .map(|p| {
                let Some((a, b)) = p.split_once(',').map(|(a, b)| (a.trim(), b.trim())) else {
                    return Err(Stop::usage(
                        format!("--pair {p}: give two tools, `A,B`"),
                        Some("e.g. --pair get_weather,get_forecast"),
                    ));
                };
                for t in [a, b] {
                    if !names.contains(&t) {
                        let hint = crate::suite::nearest_tool(t, names.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| format!("the server lists {}", names.join(", ")));
                        return Err(Stop::usage(
                            format!("--pair {p}: `{t}` is not a tool of the server"),
                            Some(&hint),
                        ));
                    }
                }
                Ok((a.to_owned(), b.to_owned(), "--pair".to_owned()))
            })
            .collect();
    }
    let mut out: Vec<(String, String, String)> = Vec::new();
    let threshold = loaded.config.checks.similarity_threshold;
    for (i, j, score) in similar_pairs(tools, threshold) {
        out.push((
            tools[i].name.clone(),
            tools[j].name.clone(),
            format!("similar-tools {score:.2}"),
        ));
    }
    let history = args
        .history
        .clone()
        .or_else(|| env.get("TOOLPROOF_HISTORY").map(Into::into));
    if let Some(path) = history {
        let run = crate::evals::judging::history::last_run(&path).map_err(|e| {
            Stop::usage(
                format!("cannot read the history file {}: {e}", path.display()),
                None,
            )
        })?;
        for (a, b) in run.and_then(|r| r.confused).unwrap_or_default() {
            let known = names.contains(&a.as_str()) && names.contains(&b.as_str());
            let seen = out
                .iter()
                .any(|(x, y, _)| (*x == a && *y == b) || (*x == b && *y == a));
            if known && a != b && !seen {
                out.push((a, b, "confused in the last run".to_owned()));
            }
        }
    }
    Ok(out)
}

/// The model's rows that are usable (a prompt; a tool of the pair, or none), as proposals,
/// and how many were not.
fn read_rows(rows: &[Value], a: &str, b: &str) -> (Vec<Proposal>, usize) {
    let mut good = Vec::new();
    let mut bad = 0;
    for row in rows {
        let prompt = row["prompt"].as_str().map(str::trim).unwrap_or("");
        let expect = match &row["expect_tool"] {
            Value::Null => Some(None),
            Value::String(t) if t == a || t == b => Some(Some(t.clone())),
            _ => None,
        };
        let (false, Some(expect)) = (prompt.is_empty(), expect) else {
            bad += 1;
            continue;
        };
        let mut said = row["why"].as_str().map(str::trim).unwrap_or("");
        let ambiguous = expect.is_none() && said.to_lowercase().starts_with("ambiguous");
        if ambiguous {
            said = said["ambiguous".len()..].trim_start_matches([':', ' ', ',']);
        }
        let mut why = format!("near miss between {a} and {b}");
        if ambiguous {
            why = format!("ambiguous: {why}");
        }
        if !said.is_empty() {
            why = format!("{why}: {said}");
        }
        good.push(Proposal {
            prompt: prompt.to_owned(),
            expect,
            why,
            kind: Kind::Observed,
            context: Vec::new(),
            called: None,
        });
    }
    (good, bad)
}
