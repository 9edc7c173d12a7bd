//! What a model picks, tool by tool: recall and precision of its first pick per tool, the
//! abstention rate (trials meant for a tool answered with no call) and the over-trigger rate
//! (trials meant for no tool answered with a call), each with its Wilson 95% interval.
//!
//! The trials counted are those confusion pairs count: of scored cases, answered (not a
//! provider error, not unasked), and not cut off before any call (what it would have picked is
//! unknown). The pick is the first call, arguments aside: these figures are about selection.

use std::collections::BTreeMap;

use super::stats;
use crate::outcome::{AnswerKind, CaseStatus, EvalCaseResult, Share, ToolScore};

/// The picks of one model, counted.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Picks {
    /// Per tool, in name order.
    pub per_tool: Vec<ToolScore>,
    /// Tool trials answered with no call.
    pub abstention: Option<Share>,
    /// No-tool trials answered with a call.
    pub over_trigger: Option<Share>,
}

/// `count` out of `of` with its share and Wilson interval; `None` when `of` is 0.
fn share(count: usize, of: usize) -> Option<Share> {
    (of > 0).then(|| {
        let (low, high) = stats::wilson(count, of);
        Share {
            count,
            of,
            rate: count as f64 / of as f64,
            low,
            high,
        }
    })
}

#[derive(Default)]
struct Counts {
    /// Trials meant for the tool.
    meant: usize,
    /// Trials that picked it.
    picked: usize,
    /// Trials meant for it that picked it.
    hit: usize,
}

/// Counts the picks over every scored trial of `cases`.
pub(super) fn count(cases: &[EvalCaseResult]) -> Picks {
    let mut tools: BTreeMap<&str, Counts> = BTreeMap::new();
    let (mut tool_trials, mut abstained) = (0, 0);
    let (mut none_trials, mut triggered) = (0, 0);
    for case in cases.iter().filter(|c| c.status != CaseStatus::NotRun) {
        let scored = case.trials.iter().filter(|t| {
            let unanswered = matches!(t.kind, AnswerKind::NotAsked | AnswerKind::ProviderError);
            let cut_before_a_call = t.kind == AnswerKind::Truncated && t.calls.is_empty();
            !unanswered && !cut_before_a_call
        });
        for trial in scored {
            let picked = trial.calls.first().map(|c| c.tool.as_str());
            match case.expect_tool.as_deref() {
                Some(expected) => {
                    tool_trials += 1;
                    abstained += usize::from(picked.is_none());
                    let meant = tools.entry(expected).or_default();
                    meant.meant += 1;
                    meant.hit += usize::from(picked == Some(expected));
                }
                None => {
                    none_trials += 1;
                    triggered += usize::from(picked.is_some());
                }
            }
            if let Some(p) = picked {
                tools.entry(p).or_default().picked += 1;
            }
        }
    }
    Picks {
        per_tool: tools
            .into_iter()
            .map(|(tool, c)| ToolScore {
                tool: tool.to_owned(),
                recall: share(c.hit, c.meant),
                precision: share(c.hit, c.picked),
            })
            .collect(),
        abstention: share(abstained, tool_trials),
        over_trigger: share(triggered, none_trials),
    }
}
