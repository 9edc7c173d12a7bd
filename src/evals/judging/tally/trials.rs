//! One trial as the reports record it: what kind of answer came back, the calls, and whether
//! the judge found it right.

use super::super::grade::Judged;
use crate::evals::Choice;
use crate::evals::Stop;
use crate::outcome::{AnswerKind, PickedCall, TrialResult};

/// What kind of answer `choice` is: a cut-off answer first (its calls may be incomplete), then
/// calls, a refusal, text.
pub(super) fn kind_of(choice: &Choice) -> AnswerKind {
    if choice.stop == Stop::MaxTokens {
        AnswerKind::Truncated
    } else if !choice.calls.is_empty() {
        AnswerKind::ToolCall
    } else if choice.stop == Stop::Refusal {
        AnswerKind::Refusal
    } else if !choice.text.trim().is_empty() {
        AnswerKind::TextOnly
    } else {
        AnswerKind::NoTool
    }
}

/// A trial the model answered, with the judge's verdict.
pub(crate) fn answered(
    choice: &Choice,
    judged: Judged,
    cached: bool,
    latency_ms: f64,
) -> TrialResult {
    let Judged { failures, notes } = judged;
    TrialResult {
        notes,
        passed: failures.is_empty(),
        kind: kind_of(choice),
        calls: choice
            .calls
            .iter()
            .map(|c| PickedCall {
                tool: c.tool.clone(),
                args: crate::pycompat::bigint::approx_value(&c.args),
                malformed_args: c.malformed.clone(),
            })
            .collect(),
        text: (!choice.text.is_empty()).then(|| choice.text.clone()),
        failures,
        cached,
        provider_error: None,
        latency_ms,
    }
}

/// A trial that got no usable answer: the provider failed after its retries.
pub(crate) fn provider_failed(message: String, latency_ms: f64) -> TrialResult {
    TrialResult {
        notes: Vec::new(),
        passed: false,
        kind: AnswerKind::ProviderError,
        calls: Vec::new(),
        text: None,
        failures: vec![format!("provider error: {message}")],
        cached: false,
        provider_error: Some(message),
        latency_ms,
    }
}

/// A trial never asked (`--offline` without a cached answer, or the provider was unusable).
pub(crate) fn not_asked() -> TrialResult {
    TrialResult {
        notes: Vec::new(),
        passed: false,
        kind: AnswerKind::NotAsked,
        calls: Vec::new(),
        text: None,
        failures: Vec::new(),
        cached: false,
        provider_error: None,
        latency_ms: 0.0,
    }
}
