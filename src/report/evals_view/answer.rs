//! How an answer and a label are written: tool names with their arguments as short one-line
//! JSON, or a word in brackets for an answer without a call.

use serde_json::Value;

use super::NO_TOOL;
use crate::outcome::{AnswerKind, EvalCaseResult, PickedCall, TrialResult};
use crate::report::escape::truncate_chars;

/// `value` as one-line JSON with a space after `:` and `,` (so tables can wrap it), cut to
/// `max_chars` characters with `…`. Strings keep JSON escaping, so control characters show as
/// `\u001b` and never reach a terminal raw.
pub(super) fn short_json(value: &Value, max_chars: usize) -> String {
    let mut out = String::new();
    // Stop building long before a megabyte of arguments is written out.
    write_json(value, &mut out, max_chars.saturating_mul(4).max(16));
    truncate_chars(&out, max_chars).into_owned()
}

fn write_json(value: &Value, out: &mut String, budget: usize) {
    if out.len() > budget {
        return;
    }
    match value {
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if out.len() > budget {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&json_string(k, budget));
                out.push_str(": ");
                write_json(v, out, budget);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if out.len() > budget {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                write_json(v, out, budget);
            }
            out.push(']');
        }
        Value::String(s) => out.push_str(&json_string(s, budget)),
        other => out.push_str(&other.to_string()),
    }
}

/// A JSON string literal of (at most the first `budget` characters of) `s`.
fn json_string(s: &str, budget: usize) -> String {
    let cut = truncate_chars(s, budget);
    serde_json::to_string(cut.as_ref()).unwrap_or_else(|_| "\"?\"".into())
}

/// Whether an `expect_args`/`args` value has something worth showing (not null, not `{}`).
fn has_args(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Object(map) => !map.is_empty(),
        _ => true,
    }
}

/// `tool {"a": 1}`, or `tool (malformed arguments: "…")` when the arguments were not JSON.
pub(super) fn describe_call(call: &PickedCall, max_args: usize) -> String {
    match &call.malformed_args {
        Some(raw) => format!(
            "{} (malformed arguments: {})",
            call.tool,
            json_string(&truncate_chars(raw, max_args), max_args * 2)
        ),
        None => format!("{} {}", call.tool, short_json(&call.args, max_args)),
    }
}

/// The word for an answer without a usable call, if its kind has one.
fn kind_word(kind: AnswerKind) -> Option<&'static str> {
    match kind {
        AnswerKind::ToolCall | AnswerKind::TextOnly | AnswerKind::NoTool => None,
        AnswerKind::Refusal => Some("(refused)"),
        AnswerKind::Truncated => Some("(cut off)"),
        AnswerKind::ProviderError => Some("(provider error)"),
        AnswerKind::NotAsked => Some("(not asked)"),
    }
}

/// What the model answered, one line per call (`tool {args}`), then a word in brackets when
/// the kind has one: `(no tool)`, `(refused)`, `(cut off)`, `(provider error)`, `(not asked)`.
pub(super) fn picked_lines(trial: &TrialResult, max_args: usize) -> Vec<String> {
    let mut lines: Vec<String> = trial
        .calls
        .iter()
        .map(|c| describe_call(c, max_args))
        .collect();
    match kind_word(trial.kind) {
        Some(word) => lines.push(word.into()),
        None if lines.is_empty() => lines.push(NO_TOOL.into()),
        None => {}
    }
    lines
}

/// The picked tool names only: `add`, `add, echo`, `(no tool)`, `(refused)`…
pub(super) fn picked_names(trial: &TrialResult) -> String {
    let names: Vec<&str> = trial.calls.iter().map(|c| c.tool.as_str()).collect();
    match (names.is_empty(), kind_word(trial.kind)) {
        (true, None) => NO_TOOL.into(),
        (true, Some(w)) => w.into(),
        (false, None) => names.join(", "),
        (false, Some(w)) => format!("{} {w}", names.join(", ")),
    }
}

/// Every trial's pick, grouped in the order first seen: `get_order ×2 (2 calls), get_weather
/// ×1`. A pick is the first call's tool (`(cut off)` after it when the answer was cut off),
/// or the word for an answer without a call; trials with the same pick and the same number
/// of calls are one group. `None` for fewer than two trials.
pub(super) fn trial_picks(trials: &[TrialResult]) -> Option<String> {
    if trials.len() < 2 {
        return None;
    }
    let mut groups: Vec<(String, usize, usize)> = Vec::new();
    for t in trials {
        let pick = match (t.calls.first(), kind_word(t.kind)) {
            (Some(c), Some(word)) => format!("{} {word}", c.tool),
            (Some(c), None) => c.tool.clone(),
            (None, Some(word)) => word.to_owned(),
            (None, None) => NO_TOOL.to_owned(),
        };
        let calls = t.calls.len();
        match groups
            .iter_mut()
            .find(|(p, n, _)| *p == pick && *n == calls)
        {
            Some(group) => group.2 += 1,
            None => groups.push((pick, calls, 1)),
        }
    }
    let shown: Vec<String> = groups
        .into_iter()
        .map(|(pick, calls, times)| match calls {
            0 | 1 => format!("{pick} ×{times}"),
            n => format!("{pick} ×{times} ({n} calls)"),
        })
        .collect();
    Some(shown.join(", "))
}

/// The expected tool with its expected arguments when there are any: `get_order
/// {"order_id": "55219"}`; `(no tool)` for none.
pub(super) fn expected_text(case: &EvalCaseResult, max_args: usize) -> String {
    match &case.expect_tool {
        Some(tool) if has_args(&case.expect_args) => {
            format!("{tool} {}", short_json(&case.expect_args, max_args))
        }
        Some(tool) => tool.clone(),
        None => NO_TOOL.into(),
    }
}
