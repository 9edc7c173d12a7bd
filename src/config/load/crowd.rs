//! `evals.neighbours`, `evals.host`, `evals.crowd` and `evals.stress.distractors_from` beyond
//! their types: one source per neighbour, names once each, and the snapshot and cases files
//! they name, read here so a bad one is a config error naming its place.

use std::path::Path;

use super::ranges::{at_least_one, fraction};
use super::{Ctx, lowercase_first, read_capped};
use crate::config::node::Step;
use crate::config::{ConfigError, EvalConfig, HostConfig, HostRules, ToolSnapshot};

/// What the types cannot say about the crowd's settings.
pub(super) fn check_crowd(ctx: &Ctx<'_>, evals: &EvalConfig) -> Result<(), ConfigError> {
    let e = Step::Key("evals");
    if let Some(min) = evals.crowd.min_accuracy {
        fraction(
            ctx,
            min,
            &[e, Step::Key("crowd"), Step::Key("min_accuracy")],
        )?;
    }
    if let HostConfig::Custom(HostRules {
        max_tools: Some(n), ..
    }) = &evals.host
    {
        at_least_one(ctx, *n, &[e, Step::Key("host"), Step::Key("max_tools")])?;
    }
    let n = Step::Key("neighbours");
    for (i, neighbour) in evals.neighbours.iter().enumerate() {
        let here = [e, n, Step::Index(i)];
        let name = neighbour.name.trim();
        if name.is_empty() {
            ctx.report(ctx.error(
                ctx.pos(&[e, n, Step::Index(i), Step::Key("name")]),
                format!("`evals.neighbours[{i}].name` is empty"),
                Some("name the server as your users' client config does, e.g. `memory`".into()),
            ));
        } else if evals.neighbours[..i].iter().any(|o| o.name.trim() == name) {
            ctx.report(ctx.error(
                ctx.pos(&[e, n, Step::Index(i), Step::Key("name")]),
                format!("two neighbours are named `{name}`"),
                Some("give each neighbour its own name".into()),
            ));
        }
        let sources = [
            neighbour.command.is_some(),
            neighbour.url.is_some(),
            neighbour.tools_file.is_some(),
        ];
        if sources.iter().filter(|s| **s).count() != 1 {
            ctx.report(
                ctx.error(
                    ctx.pos(&here),
                    format!(
                        "neighbour `{name}` needs exactly one of `command`, `url` or `tools_file`"
                    ),
                    Some(
                        "start it (`command: [...]`), reach it (`url: …`), or read a snapshot \
                     saved by `toolproof inspect --save-tools FILE` (`tools_file: FILE`)"
                            .into(),
                    ),
                ),
            );
        }
        if neighbour.command.as_ref().is_some_and(Vec::is_empty) {
            ctx.report(ctx.error(
                ctx.pos(&[e, n, Step::Index(i), Step::Key("command")]),
                format!("neighbour `{name}` has an empty `command`"),
                Some("give the program and its arguments, e.g. [node, server.js]".into()),
            ));
        }
    }
    Ok(())
}

/// Reads the neighbours' snapshots and cases files and the stress curve's snapshots (paths
/// already resolved), and notes each neighbour's line.
pub(super) fn read_crowd_files(ctx: &Ctx<'_>, evals: &mut EvalConfig) -> Result<(), ConfigError> {
    let e = Step::Key("evals");
    let n = Step::Key("neighbours");
    for (i, neighbour) in evals.neighbours.iter_mut().enumerate() {
        neighbour.line = ctx
            .root
            .at(&[e, n, Step::Index(i)])
            .and_then(|node| u32::try_from(node.pos.line).ok());
        let key = |k: &'static str| [e, n, Step::Index(i), Step::Key(k)];
        if let Some(path) = &neighbour.tools_file {
            let label = format!("evals.neighbours[{i}].tools_file");
            neighbour.snapshot = Some(snapshot(ctx, &key("tools_file"), &label, path)?);
        }
        if let Some(path) = neighbour.cases_file.clone() {
            let label = format!("evals.neighbours[{i}].cases_file");
            let at = ctx.pos(&key("cases_file"));
            neighbour.cases = super::evals::read_cases_file(&path, |err| {
                unreadable(ctx, at, &label, &path, &err)
            })?;
        }
    }
    if let Some(stress) = &mut evals.stress {
        let mut read = Vec::new();
        for (i, path) in stress.distractors_from.iter().enumerate() {
            let label = format!("evals.stress.distractors_from[{i}]");
            let steps = [
                e,
                Step::Key("stress"),
                Step::Key("distractors_from"),
                Step::Index(i),
            ];
            read.push(snapshot(ctx, &steps, &label, path)?);
        }
        stress.distractor_snapshots = read;
    }
    Ok(())
}

/// One snapshot file, read and parsed.
fn snapshot(
    ctx: &Ctx<'_>,
    steps: &[Step<'_>],
    label: &str,
    path: &Path,
) -> Result<ToolSnapshot, ConfigError> {
    let at = ctx.pos(steps);
    let bytes = read_capped(path)
        .map_err(|err| err.into_config_error(path, |err| unreadable(ctx, at, label, path, &err)))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ConfigError::new("the file is not valid UTF-8")
            .in_file(path)
            .hint("save the snapshot as UTF-8")
    })?;
    ToolSnapshot::parse(path, &text).map_err(|why| {
        ctx.error(
            at,
            format!("`{label}` {} is not a tool snapshot: {why}", path.display()),
            Some("write one with `toolproof inspect --save-tools FILE`".into()),
        )
    })
}

/// A file the crowd's settings name that cannot be read.
fn unreadable(
    ctx: &Ctx<'_>,
    at: crate::config::node::Pos,
    label: &str,
    path: &Path,
    err: &std::io::Error,
) -> ConfigError {
    ctx.error(
        at,
        format!(
            "cannot read `{label}` {}: {}",
            path.display(),
            lowercase_first(&err.to_string())
        ),
        Some("the path is relative to this config file".to_owned()),
    )
}
