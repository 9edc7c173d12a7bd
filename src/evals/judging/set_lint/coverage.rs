//! Coverage: which cases expect each tool (and which of those only quote it), the no-tool and
//! ambiguous cases, the pairs that want contrastive cases; and the rules over them:
//! `uncovered-tool`, `quoted-only`, `no-contrast`, `no-no-tool-cases`, `no-ambiguous-cases`,
//! `missing-why`.

use super::labels::expected;
use super::text::ToolWords;
use super::{At, History, LintInput, Sink, listed, named};
use crate::checks::similarity::similar_pairs;
use crate::config::EvalCase;
use crate::config::vocab::set_lint::{
    MISSING_WHY, NO_AMBIGUOUS_CASES, NO_CONTRAST, NO_NO_TOOL_CASES, QUOTED_ONLY, UNCOVERED_TOOL,
};
use crate::evals::asking::engine::case_name;
use crate::outcome::{ContrastPair, Coverage, Severity, ToolCoverage};

/// Whether a case is ambiguous: it expects no tool and its `why` starts with "ambiguous".
pub(super) fn ambiguous(case: &EvalCase) -> bool {
    expected(case).is_none()
        && case.why.as_deref().is_some_and(|w| {
            w.trim_start()
                .get(..9)
                .is_some_and(|head| head.eq_ignore_ascii_case("ambiguous"))
        })
}

pub(super) fn check(input: &LintInput<'_>, out: &mut Sink) -> Coverage {
    let tools: Vec<ToolCoverage> = input
        .tools
        .iter()
        .map(|tool| {
            let mine: Vec<&EvalCase> = input
                .cases
                .iter()
                .filter(|c| expected(c) == Some(tool.name.as_str()))
                .collect();
            let words = ToolWords::new(&tool.name, tool.description.as_deref().unwrap_or(""));
            ToolCoverage {
                tool: tool.name.clone(),
                cases: mine.iter().map(|c| case_name(c)).collect(),
                quoting: mine
                    .iter()
                    .filter(|c| words.quoting(&c.prompt))
                    .map(|c| case_name(c))
                    .collect(),
            }
        })
        .collect();
    tool_rules(input, &tools, out);
    let pairs = pairs(input, &tools, out);
    let no_tool: Vec<&EvalCase> = input
        .cases
        .iter()
        .filter(|c| expected(c).is_none())
        .collect();
    let amb: Vec<&EvalCase> = no_tool.iter().copied().filter(|c| ambiguous(c)).collect();
    set_rules(input, no_tool.len(), amb.len(), out);
    Coverage {
        tools,
        no_tool: no_tool.iter().map(|c| case_name(c)).collect(),
        ambiguous: amb.iter().map(|c| case_name(c)).collect(),
        pairs,
    }
}

/// `uncovered-tool` and `quoted-only`, per tool in server order.
fn tool_rules(input: &LintInput<'_>, tools: &[ToolCoverage], out: &mut Sink) {
    for t in tools {
        if t.cases.is_empty() {
            out.add(
                UNCOVERED_TOOL,
                Severity::Warning,
                format!("tool `{}` has no case: nothing tests that a model picks it", t.tool),
                format!(
                    "add a case whose prompt a user would write when they need `{}`, in their words rather than the tool's",
                    t.tool
                ),
                At::evals(input).tool(&t.tool),
            );
        } else if t.genuine() == 0 {
            let first = input
                .cases
                .iter()
                .find(|c| expected(c) == Some(t.tool.as_str()));
            out.add(
                QUOTED_ONLY,
                Severity::Warning,
                format!(
                    "every case expecting `{}` quotes its name or copies its description ({}), which proves little about selection",
                    t.tool,
                    listed(&t.quoting, 5)
                ),
                "add a case phrased as a user would ask, without the tool's name or its description's wording"
                    .to_owned(),
                first.map_or_else(|| At::evals(input), At::case).tool(&t.tool),
            );
        }
    }
}

/// The pairs that want contrastive cases, and `no-contrast` for each that lacks them.
fn pairs(input: &LintInput<'_>, tools: &[ToolCoverage], out: &mut Sink) -> Vec<ContrastPair> {
    let genuine = |name: &str| {
        tools
            .iter()
            .find(|t| t.tool == name)
            .map_or(0, ToolCoverage::genuine)
    };
    let mut found: Vec<ContrastPair> = Vec::new();
    let mut add = |a: &str, b: &str, why: String| {
        if let Some(p) = found
            .iter_mut()
            .find(|p| (p.a == a && p.b == b) || (p.a == b && p.b == a))
        {
            p.why = format!("{}; {why}", p.why);
            return;
        }
        let (a_cases, b_cases) = (genuine(a), genuine(b));
        found.push(ContrastPair {
            a: a.to_owned(),
            b: b.to_owned(),
            why,
            a_cases,
            b_cases,
            contrasted: a_cases > 0 && b_cases > 0,
        });
    };
    for (i, j, score) in similar_pairs(input.tools, input.similarity_threshold) {
        add(
            &input.tools[i].name,
            &input.tools[j].name,
            format!("similar-tools {score:.2}"),
        );
    }
    match &input.history {
        History::Run(run) => match &run.confused {
            Some(confused) => {
                let listed_now = |n: &str| input.tools.iter().any(|t| t.name == n);
                for (expected, picked) in confused {
                    if expected != picked && listed_now(expected) && listed_now(picked) {
                        add(expected, picked, format!("confused in the last run ({})", run.time));
                    }
                }
            }
            None => out.not_checked(
                NO_CONTRAST,
                format!(
                    "the last run of the history file ({}) recorded no confusion pairs (no model was scored, or an older toolproof wrote it): only the similar-tools pairs are checked",
                    run.time
                ),
            ),
        },
        History::Unreadable(why) => out.not_checked(
            NO_CONTRAST,
            format!("the history file could not be read ({why}): only the similar-tools pairs are checked"),
        ),
        History::NotGiven | History::Empty => {}
    }
    for p in found.iter().filter(|p| !p.contrasted) {
        let missing: Vec<&str> = [(&p.a, p.a_cases), (&p.b, p.b_cases)]
            .iter()
            .filter(|(_, n)| *n == 0)
            .map(|(t, _)| t.as_str())
            .collect();
        out.add(
            NO_CONTRAST,
            Severity::Warning,
            format!(
                "tools `{}` and `{}` may be taken for each other ({}), but `{}` has no genuine case",
                p.a,
                p.b,
                p.why,
                missing.join("` and `")
            ),
            format!(
                "add a near-miss case for each side: a prompt for `{}` a model could take for `{}`, and the reverse",
                p.a, p.b
            ),
            At::evals(input).tool(format!("{} + {}", p.a, p.b)),
        );
    }
    found
}

/// `no-no-tool-cases`, `no-ambiguous-cases` and `missing-why`.
fn set_rules(input: &LintInput<'_>, no_tool: usize, ambiguous: usize, out: &mut Sink) {
    if no_tool == 0 {
        out.add(
            NO_NO_TOOL_CASES,
            Severity::Warning,
            "no case expects no tool (`expect_tool: null`), so nothing catches a model that calls a tool for everything".to_owned(),
            "add filler (\"thanks, that's all\") and an ambiguous request (\"cancel it\", with a why starting \"ambiguous:\") that must not call a tool"
                .to_owned(),
            At::evals(input),
        );
    }
    // Without no-tool cases `no-no-tool-cases` already says it, unless it is turned off.
    if ambiguous == 0 && (no_tool > 0 || !out.enabled(NO_NO_TOOL_CASES)) {
        out.add(
            NO_AMBIGUOUS_CASES,
            Severity::Info,
            "no ambiguous case: no no-tool case's `why` starts with \"ambiguous\"".to_owned(),
            "add a request the model must ask about rather than guess (\"cancel it\" with no order named), with `expect_tool: null` and `why: \"ambiguous: …\"`"
                .to_owned(),
            At::evals(input),
        );
    }
    for case in input.cases {
        if case.why.as_deref().is_none_or(|w| w.trim().is_empty()) {
            out.add(
                MISSING_WHY,
                Severity::Info,
                format!("{} has no `why`", named(case, input)),
                "say why the case exists: when it fails months from now, the why tells whether the case or the tool is wrong"
                    .to_owned(),
                At::case(case),
            );
        }
    }
}
