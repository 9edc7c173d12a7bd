//! The labels themselves: `unknown-tool` (with the nearest name, and "renamed or split?" when
//! the last recorded run listed it), `duplicate-case-name`, and `conflicting-labels` (the same
//! prompt, compared ignoring case and spacing, after the same `context`, labelled two ways).

use std::collections::HashMap;

use serde_json::Value;

use super::{At, History, LintInput, Sink, listed, named, place};
use crate::config::EvalCase;
use crate::config::vocab::set_lint::{CONFLICTING_LABELS, DUPLICATE_CASE_NAME, UNKNOWN_TOOL};
use crate::evals::judging::grade;
use crate::outcome::{NO_TOOL, Severity};
use crate::suite::nearest_tool;

pub(super) fn check(input: &LintInput<'_>, out: &mut Sink) {
    unknown_tools(input, out);
    duplicate_names(input, out);
    conflicting(input, out);
}

/// The tool a case expects, `None` for "no tool".
pub(super) fn expected(case: &EvalCase) -> Option<&str> {
    case.expect_tool.as_ref().and_then(Option::as_deref)
}

fn unknown_tools(input: &LintInput<'_>, out: &mut Sink) {
    let names: Vec<&str> = input.tools.iter().map(|t| t.name.as_str()).collect();
    let before = match &input.history {
        History::Run(run) => run.tools.as_ref().map(|t| (t, run.time.as_str())),
        _ => None,
    };
    for case in input.cases {
        let Some(tool) = expected(case).filter(|t| !names.contains(t)) else {
            continue;
        };
        let nearest = nearest_tool(tool, names.iter().copied());
        let vanished = before.filter(|(t, _)| t.iter().any(|n| n == tool));
        let hint = match (vanished, nearest) {
            (Some((_, time)), Some(n)) => format!(
                "`{tool}` was a tool in the last recorded run ({time}): was it renamed or split? `{n}` is the nearest name now; update the case to the tool that does this now"
            ),
            (Some((_, time)), None) => format!(
                "`{tool}` was a tool in the last recorded run ({time}): was it renamed or split? update the case to the tool that does this now (the server lists {})",
                listed(&names, 10)
            ),
            (None, Some(n)) => format!("did you mean `{n}`?"),
            (None, None) => format!(
                "the server lists {}",
                if names.is_empty() {
                    "no tools".to_owned()
                } else {
                    listed(&names, 10)
                }
            ),
        };
        out.add(
            UNKNOWN_TOOL,
            Severity::Error,
            format!(
                "{}: expect_tool `{tool}` is not a tool of the server, so the case cannot pass",
                named(case, input)
            ),
            hint,
            At::case(case).tool(tool),
        );
    }
}

fn duplicate_names(input: &LintInput<'_>, out: &mut Sink) {
    let mut by_name: HashMap<&str, Vec<&EvalCase>> = HashMap::new();
    let mut order = Vec::new();
    for case in input.cases {
        if let Some(name) = case.name.as_deref() {
            let seen = by_name.entry(name).or_default();
            if seen.is_empty() {
                order.push(name);
            }
            seen.push(case);
        }
    }
    for name in order {
        let cases = &by_name[name];
        if cases.len() < 2 {
            continue;
        }
        let places: Vec<String> = cases.iter().map(|c| place(c, input)).collect();
        out.add(
            DUPLICATE_CASE_NAME,
            Severity::Warning,
            format!(
                "case name {name:?} is used by {} cases ({})",
                cases.len(),
                places.join(", ")
            ),
            "give each case its own name: reports, JUnit and the history tell cases apart by name"
                .to_owned(),
            At::case(cases[1]),
        );
    }
}

/// A prompt as a person reads it: lowercase, runs of spacing as one space.
fn normalised(prompt: &str) -> String {
    prompt
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn conflicting(input: &LintInput<'_>, out: &mut Sink) {
    let mut first: HashMap<String, &EvalCase> = HashMap::new();
    for case in input.cases {
        // The same words after another conversation are another question.
        // (Without one the key ends at the newline: no conversation writes as nothing.)
        let turns = case.turns();
        let mut key = normalised(&case.prompt);
        key.push('\n');
        if !turns.is_empty() {
            let context = crate::evals::asking::cache::context_material(&turns);
            key.push_str(&context.to_string());
        }
        let Some(earlier) = first.get(&key).copied() else {
            first.insert(key, case);
            continue;
        };
        let Some(what) = conflict(earlier, case) else {
            continue;
        };
        out.add(
            CONFLICTING_LABELS,
            Severity::Error,
            format!(
                "{} has the prompt of {}, but {what}: one of them cannot pass",
                named(case, input),
                named(earlier, input)
            ),
            "fix the label that is wrong, or reword one prompt if they are meant to differ"
                .to_owned(),
            At::case(case),
        );
    }
}

/// How two cases with one prompt disagree: the tool, or a value of an argument both set.
fn conflict(a: &EvalCase, b: &EvalCase) -> Option<String> {
    let show = |t: Option<&str>| t.map_or(NO_TOOL.to_owned(), |t| format!("`{t}`"));
    if expected(a) != expected(b) {
        return Some(format!(
            "expects {} where the other expects {}",
            show(expected(b)),
            show(expected(a))
        ));
    }
    for (key, want) in &b.expect_args {
        if let Some(other) = a.expect_args.get(key)
            && !grade::same(other, want)
        {
            return Some(format!(
                "expects `{key}` to be {} where the other expects {}",
                compact(want),
                compact(other)
            ));
        }
    }
    None
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
