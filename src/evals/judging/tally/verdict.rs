//! The evals phase's verdict: per model one line (its accuracy against the minimum and every
//! other gate that failed, or why the provider could not be used), and the phase's status and
//! one-line reason made of them.

use crate::outcome::rates::percent_against;
use crate::outcome::{EvalsResults, GateKind, ModelEval, Phase, PhaseStatus};
use crate::report::escape::first_line;

/// `90% accuracy (9/10), minimum 95%`, then the detail of every other failed gate; or
/// `the provider could not be used: …` (its first line) when nothing could be scored.
pub(super) fn model_verdict(m: &ModelEval) -> String {
    if let Some(e) = &m.error {
        return format!("the provider could not be used: {}", first_line(e));
    }
    // The tools never reached the model: nothing else it measured means anything.
    if let Some(g) = m
        .gates
        .iter()
        .find(|g| g.kind == GateKind::ToolsShown && !g.passed)
    {
        return g.detail.clone();
    }
    let mut parts = Vec::new();
    if m.total > 0 && !answered_nothing(m) && !m.asked_nothing() {
        parts.push(accuracy_text(m));
    }
    parts.extend(
        m.gates
            .iter()
            .filter(|g| !g.passed && !matches!(g.kind, GateKind::MinAccuracy | GateKind::Provider))
            .map(|g| g.detail.clone()),
    );
    parts.join("; ")
}

/// Whether the model's `answers` gate failed: the provider answered none of its trials.
fn answered_nothing(m: &ModelEval) -> bool {
    m.gates
        .iter()
        .any(|g| g.kind == GateKind::Answers && !g.passed)
}

/// `90% accuracy (9/10), minimum 95%`.
pub(super) fn accuracy_text(m: &ModelEval) -> String {
    let (value, bar) = percent_against(m.accuracy, m.min_accuracy);
    format!(
        "{value} accuracy ({}/{}), minimum {bar}",
        m.correct, m.total
    )
}

/// The phase's one line: the one model's verdict, or `1 of 2 models failed: ` (`all 2 models
/// passed: ` when none failed) and each model's verdict after its name.
pub(super) fn phase_verdict(models: &[ModelEval]) -> String {
    match models {
        [] => "no model was asked".into(),
        [m] => model_verdict(m),
        models => {
            let failed = models.iter().filter(|m| !m.passed).count();
            let each: Vec<String> = models
                .iter()
                .map(|m| format!("{}: {}", m.model, model_verdict(m)))
                .collect();
            let count = if failed == 0 {
                format!("all {} models passed", models.len())
            } else {
                format!("{failed} of {} models failed", models.len())
            };
            format!("{count}: {}", each.join(" · "))
        }
    }
}

/// The evals phase for `results`: passed when every model passed its gates, an error when no
/// model got an answer (it could not use the provider, or every request failed) or when the
/// tools never reached a model, failed otherwise; the reason is [`phase_verdict`].
pub(crate) fn phase(results: EvalsResults, duration_ms: f64) -> Phase<Option<EvalsResults>> {
    let models = &results.models;
    let unanswered = |m: &ModelEval| m.error.is_some() || answered_nothing(m);
    // A model that never saw the tools measured nothing about them: the run is set up wrong.
    let blind = models.iter().any(|m| m.tools_unseen.is_some());
    let status = if blind || (!models.is_empty() && models.iter().all(unanswered)) {
        PhaseStatus::Error
    } else if models.iter().all(|m| m.passed) {
        PhaseStatus::Passed
    } else {
        PhaseStatus::Failed
    };
    Phase {
        status,
        reason: Some(phase_verdict(models)),
        duration_ms,
        results: Some(results),
    }
}
