//! Confusion pairs: for every wrong trial of a scored case, the tool the label expected and
//! the one the model picked first, counted and listed most frequent first.

use std::collections::BTreeMap;

use super::NO_TOOL;
use crate::outcome::{AnswerKind, CaseStatus, Confusion, EvalCaseResult};

/// The expected → picked pairs of the wrong trials, most frequent first (ties by name). Trials
/// of cases that were not scored, provider errors, answers cut off before any call and right
/// tool with wrong arguments are no confusion.
pub(super) fn pairs(cases: &[EvalCaseResult]) -> Vec<Confusion> {
    let mut counts: BTreeMap<(String, String), (usize, Vec<String>)> = BTreeMap::new();
    for case in cases.iter().filter(|c| c.status != CaseStatus::NotRun) {
        let expected = case.expect_tool.as_deref().unwrap_or(NO_TOOL);
        let wrong = case.trials.iter().filter(|t| {
            !t.passed && !matches!(t.kind, AnswerKind::NotAsked | AnswerKind::ProviderError)
        });
        for trial in wrong {
            let picked = match trial.calls.first() {
                Some(c) => c.tool.as_str(),
                // Cut off before any call: what it would have picked is unknown.
                None if trial.kind == AnswerKind::Truncated => continue,
                None => NO_TOOL,
            };
            if picked == expected {
                continue;
            }
            let entry = counts
                .entry((expected.to_owned(), picked.to_owned()))
                .or_default();
            entry.0 += 1;
            if !entry.1.contains(&case.name) {
                entry.1.push(case.name.clone());
            }
        }
    }
    let mut pairs: Vec<Confusion> = counts
        .into_iter()
        .map(|((expected, picked), (count, cases))| Confusion {
            expected,
            picked,
            count,
            cases,
        })
        .collect();
    pairs.sort_by_key(|p| std::cmp::Reverse(p.count));
    pairs
}
