//! Cases in a conversation: `unknown-context-tool` (an earlier call in a case's `context`
//! names a tool the server does not list, so the conversation is one the model could not have
//! had) and `context-resolves-ambiguous` (an ambiguous case whose context already settles what
//! the prompt leaves open).
//!
//! "Resolves" is defined narrowly, on the text alone: the context holds an earlier tool call
//! with at least one argument, so the conversation has already named a thing (an order, a
//! note) that a "must ask" case is about. Context of messages only is never flagged: whether
//! "the order we talked about" settles the question needs a reader, not a rule.

use super::coverage::ambiguous;
use super::{At, LintInput, Sink, listed, named};
use crate::config::Turn;
use crate::config::vocab::set_lint::{CONTEXT_RESOLVES_AMBIGUOUS, UNKNOWN_CONTEXT_TOOL};
use crate::outcome::Severity;
use crate::suite::nearest_tool;

pub(super) fn check(input: &LintInput<'_>, out: &mut Sink) {
    let names: Vec<&str> = input.tools.iter().map(|t| t.name.as_str()).collect();
    for case in input.cases {
        let turns = case.turns();
        for (i, turn) in turns.iter().enumerate() {
            let Turn::Call { tool, .. } = turn else {
                continue;
            };
            if names.contains(&tool.as_str()) {
                continue;
            }
            let hint = match nearest_tool(tool, names.iter().copied()) {
                Some(n) => {
                    format!(
                        "did you mean `{n}`? a model can only have called a tool it was offered"
                    )
                }
                None => format!("the server lists {}", listed(&names, 10)),
            };
            out.add(
                UNKNOWN_CONTEXT_TOOL,
                Severity::Error,
                format!(
                    "{}: context[{i}] calls `{tool}`, which is not a tool of the server, so the conversation is not one the model could have had",
                    named(case, input)
                ),
                hint,
                At::case(case).tool(tool.clone()),
            );
        }
        if !ambiguous(case) {
            continue;
        }
        let settled = turns.iter().find_map(|turn| match turn {
            Turn::Call { tool, args, .. } if !args.is_empty() => Some((tool, args)),
            _ => None,
        });
        if let Some((tool, args)) = settled {
            let shown = serde_json::to_string(args).unwrap_or_default();
            out.add(
                CONTEXT_RESOLVES_AMBIGUOUS,
                Severity::Warning,
                format!(
                    "{} is labelled ambiguous (no tool), but its context already called `{tool}` with {shown}: the conversation names what the prompt leaves open",
                    named(case, input)
                ),
                "label it with the tool the conversation points to (`expect_tool`, `expect_args`), and keep the ambiguous case without the context".to_owned(),
                At::case(case),
            );
        }
    }
}
