//! The tool choice against the cases: `unknown-tool-choice` (a named tool the server does not
//! list) and `tool-choice-conflict` (a case the choice keeps from passing: a forced call with a
//! no-tool case, `none` with a case expecting a tool, a named tool with a case expecting
//! another). The choice is the resolved `tool_choice` (flag, variable or YAML), else what
//! `params.tool_choice` sends in a provider's format.

use super::labels::expected;
use super::{At, LintInput, Sink, listed, named};
use crate::config::ToolChoice;
use crate::config::vocab::set_lint::{TOOL_CHOICE_CONFLICT, UNKNOWN_TOOL_CHOICE};
use crate::outcome::Severity;
use crate::suite::nearest_tool;

pub(super) fn check(input: &LintInput<'_>, out: &mut Sink) {
    let Some((choice, origin)) = &input.tool_choice else {
        return;
    };
    let shown = format!("tool_choice `{}` ({origin})", choice.describe());
    if let ToolChoice::Tool(name) = choice {
        let names: Vec<&str> = input.tools.iter().map(|t| t.name.as_str()).collect();
        if !names.contains(&name.as_str()) {
            let hint = match nearest_tool(name, names.iter().copied()) {
                Some(n) => format!("did you mean `{n}`?"),
                None => format!("name one of {}", listed(&names, 10)),
            };
            out.add(
                UNKNOWN_TOOL_CHOICE,
                Severity::Error,
                format!("{shown} names `{name}`, which is not a tool of the server"),
                hint,
                At::evals(input).tool(name.as_str()),
            );
            return;
        }
    }
    for case in input.cases {
        let why = match (choice, expected(case)) {
            (ToolChoice::Any | ToolChoice::Tool(_), None) => {
                format!("expects no tool, but {shown} forces a call")
            }
            (ToolChoice::None, Some(tool)) => {
                format!("expects `{tool}`, but {shown} forbids calls")
            }
            (ToolChoice::Tool(forced), Some(tool)) if forced != tool => {
                format!("expects `{tool}`, but {shown} forces `{forced}`")
            }
            _ => continue,
        };
        out.add(
            TOOL_CHOICE_CONFLICT,
            Severity::Error,
            format!("{} {why}: it cannot pass", named(case, input)),
            "test with the tool choice production uses: if it forces a call, the cases a forced call cannot pass test a different system; drop them or the forced choice"
                .to_owned(),
            At::case(case),
        );
    }
}
