//! What a model picks, worded: per tool its recall and precision with their Wilson 95%
//! intervals, the abstention and over-trigger rates, the confusion pairs that dominate a tool
//! (`get_order takes 100% of the prompts meant for start_refund`), and the tool list's weight in
//! tokens. Text is raw; each renderer escapes it.

use crate::outcome::cost::count;
use crate::outcome::rates::percent;
use crate::outcome::{Confusion, ModelEval, NO_TOOL, Share, ToolListTokens};
use crate::report::escape::plural;

/// Most tools named on the tool list's weight line (the heaviest first).
pub(super) const WEIGHTS_SHOWN: usize = 5;

/// One tool's row: its name, then its recall and precision as [`share_count`] and
/// [`share_interval`] word them (`–` when no trial was meant for it, or none picked it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolRow<'a> {
    /// The MCP tool name.
    pub tool: &'a str,
    /// `66.7% (2/3)`, or `–`.
    pub recall: String,
    /// `20.8–93.9%`, or `–`.
    pub recall_ci: String,
    /// The same for precision.
    pub precision: String,
    /// The same for precision.
    pub precision_ci: String,
}

/// `66.7% (2/3)`.
pub(super) fn share_count(s: &Share) -> String {
    format!("{} ({}/{})", percent(s.rate), s.count, s.of)
}

/// `20.8–93.9%`: the Wilson 95% interval.
pub(super) fn share_interval(s: &Share) -> String {
    format!(
        "{}–{}",
        percent(s.low).trim_end_matches('%'),
        percent(s.high)
    )
}

/// `66.7% (2/3, 95% CI 20.8–93.9%)`.
pub(super) fn share_text(s: &Share) -> String {
    format!(
        "{} ({}/{}, 95% CI {})",
        percent(s.rate),
        s.count,
        s.of,
        share_interval(s)
    )
}

fn or_dash(s: Option<&Share>, word: fn(&Share) -> String) -> String {
    s.map_or_else(|| "–".to_owned(), word)
}

/// One row per tool, in name order.
pub(super) fn tool_rows(m: &ModelEval) -> Vec<ToolRow<'_>> {
    m.per_tool
        .iter()
        .map(|t| ToolRow {
            tool: &t.tool,
            recall: or_dash(t.recall.as_ref(), share_count),
            recall_ci: or_dash(t.recall.as_ref(), share_interval),
            precision: or_dash(t.precision.as_ref(), share_count),
            precision_ci: or_dash(t.precision.as_ref(), share_interval),
        })
        .collect()
}

/// `Abstention 25% (2/8, 95% CI 7.1–59.1%): no call where a tool was meant`
/// and `Over-trigger 0% (0/4, 95% CI 0–49%): a call where no tool was meant`,
/// each when it has trials.
pub(super) fn rates_lines(m: &ModelEval) -> Vec<String> {
    [
        m.abstention.as_ref().map(|s| {
            format!(
                "Abstention {}: no call where a tool was meant",
                share_text(s)
            )
        }),
        m.over_trigger.as_ref().map(|s| {
            format!(
                "Over-trigger {}: a call where no tool was meant",
                share_text(s)
            )
        }),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The trials meant for `expected` (a tool, or [`NO_TOOL`]) that were scored.
fn meant_for(m: &ModelEval, expected: &str) -> usize {
    if expected == NO_TOOL {
        return m.over_trigger.map_or(0, |s| s.of);
    }
    m.per_tool
        .iter()
        .find(|t| t.tool == expected)
        .and_then(|t| t.recall)
        .map_or(0, |s| s.of)
}

/// A line for every confusion pair that takes more than half (and at least two) of the prompts
/// meant for its tool:
/// `get_order takes 100% of the prompts meant for start_refund (2/2)`; `no tool is called for
/// …` and `… meant for no tool` where that side is no tool.
pub(super) fn dominant_lines(m: &ModelEval) -> Vec<String> {
    m.confusion
        .iter()
        .filter_map(|p: &Confusion| {
            let of = meant_for(m, &p.expected);
            // One prompt is no pattern: its miss is already a confusion pair.
            if of < 2 || p.count * 2 <= of {
                return None;
            }
            let share = percent(p.count as f64 / of as f64);
            let meant = if p.expected == NO_TOOL {
                "no tool".to_owned()
            } else {
                p.expected.clone()
            };
            let takes = if p.picked == NO_TOOL {
                format!("no tool is called for {share}")
            } else {
                format!("{} takes {share}", p.picked)
            };
            Some(format!(
                "{takes} of the prompts meant for {meant} ({}/{of})",
                p.count
            ))
        })
        .collect()
}

/// `Tool list sent on every request: about 412 tokens, 3 tools; heaviest: start_refund 150 (36%),
/// get_weather 141 (34%), get_order 118 (29%)`, the ten heaviest (ties in list order), then
/// `… 2 more`. `None` without tools.
pub(super) fn weights_line(w: &ToolListTokens) -> Option<String> {
    if w.tools.is_empty() {
        return None;
    }
    let mut heaviest: Vec<_> = w.tools.iter().collect();
    heaviest.sort_by_key(|t| std::cmp::Reverse(t.tokens));
    let share = |n: u64| {
        if w.total == 0 {
            String::new()
        } else {
            format!(" ({})", percent(n as f64 / w.total as f64))
        }
    };
    let mut named: Vec<String> = heaviest
        .iter()
        .take(WEIGHTS_SHOWN)
        .map(|t| format!("{} {}{}", t.tool, count(t.tokens), share(t.tokens)))
        .collect();
    let more = w.tools.len().saturating_sub(WEIGHTS_SHOWN);
    if more > 0 {
        named.push(format!("… {more} more"));
    }
    let n = w.tools.len();
    Some(format!(
        "Tool list sent on every request: about {} tokens, {n} tool{}; heaviest: {}",
        count(w.total),
        plural(n),
        named.join(", ")
    ))
}
