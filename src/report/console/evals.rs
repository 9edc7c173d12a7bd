//! The evals section of the console report: the phase line, a side-by-side table when several
//! models were asked, then per model its cases and lines, then the cache and the trend. Every
//! word comes from the [`EvalsView`]; this file only lays it out and cleans it for a terminal.

use super::{phase_line, push_indented};
use crate::outcome::{CaseStatus, PhaseOverview};
use crate::report::escape::clean;
use crate::report::evals_view::{EvalsView, ModelOutcome, ModelView};
use crate::report::table::{Cell, Column, Paint, Table, wrap};

/// The evals phase with results.
pub(super) fn section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    view: &EvalsView<'_>,
    width: usize,
    color: bool,
) {
    phase_line(out, phase, Some(&clean(&view.headline)), color);
    if view.several {
        models_table(out, view, width, color);
        if let Some(line) = &view.left_out {
            push_indented(out, &clean(line), "  ");
        }
    }
    for m in &view.models {
        out.push('\n');
        model_block(out, view, m, width, color);
    }
    if let Some(line) = &view.overrides {
        push_indented(out, &clean(line), "");
    }
    out.push_str(&clean(&view.cache));
    out.push('\n');
    for line in &view.cost {
        out.push_str(&clean(line));
        out.push('\n');
    }
    if let Some(line) = &view.weights {
        push_wrapped(out, &clean(line), width, "  ");
    }
    if let Some(note) = &view.concurrency {
        out.push_str(&Paint::Yellow.paint("NOTE", color));
        out.push(' ');
        push_indented(out, &clean(note), "     ");
    }
    if let Some(warning) = &view.cache_warning {
        out.push_str(&Paint::Yellow.paint("WARN", color));
        out.push(' ');
        push_indented(out, &clean(warning), "     ");
    }
    if let Some(line) = &view.no_base {
        push_indented(out, &clean(line), "  ");
    }
    if let Some(history) = &view.history {
        for line in &history.lines {
            push_indented(out, &clean(&line.text()), "  ");
        }
        for line in &history.cost_lines {
            push_indented(out, &clean(line), "  ");
        }
        for warning in &history.warnings {
            out.push_str(&Paint::Yellow.paint("WARN", color));
            out.push(' ');
            push_indented(out, &clean(warning), "     ");
        }
    }
    out.push('\n');
}

fn models_table(out: &mut String, view: &EvalsView<'_>, width: usize, color: bool) {
    let mut table = Table::new(vec![
        Column::text("Model"),
        Column::fixed_right("Accuracy"),
        Column::text("Correct"),
        Column::text("Critical misses"),
        Column::text("Provider errors"),
        Column::fixed("Verdict"),
    ]);
    for m in &view.models {
        let verdict = match m.outcome {
            ModelOutcome::Unusable | ModelOutcome::ToolsUnseen => {
                Cell::painted("ERROR", Paint::RedBold)
            }
            ModelOutcome::Failed => Cell::painted("FAIL", Paint::Red),
            ModelOutcome::Passed => Cell::painted("PASS", Paint::Green),
        };
        let dash = || "-".to_string();
        table.row(vec![
            Cell::new(clean(m.model)),
            Cell::new(m.accuracy.clone().unwrap_or_else(dash)),
            Cell::new(m.correct.clone().unwrap_or_else(dash)),
            Cell::new(clean(m.critical_misses.as_deref().unwrap_or(""))),
            Cell::new(m.provider_errors.to_string()),
            verdict,
        ]);
    }
    out.push_str(&table.render(width, color));
}

/// One model: title, the provider error, the cases table, then its lines.
fn model_block(
    out: &mut String,
    view: &EvalsView<'_>,
    m: &ModelView<'_>,
    width: usize,
    color: bool,
) {
    out.push_str(&Paint::Bold.paint(&clean(&m.title).replace('\n', " "), color));
    out.push('\n');
    if let Some(error) = m.error {
        out.push_str(&Paint::RedBold.paint("ERROR", color));
        out.push(' ');
        let text = format!("the provider could not be used: {error}");
        push_indented(out, &clean(&text), "      ");
    }
    if let Some(line) = &m.not_scored {
        out.push_str(&format!("      {line}\n"));
    }
    if let Some(text) = &m.tools_unseen {
        out.push_str(&Paint::RedBold.paint("ERROR", color));
        out.push(' ');
        let text = format!("the tools never reached the model: {text}");
        push_indented(out, &clean(&text), "      ");
    }
    if m.rows.is_empty() {
        out.push_str("no cases\n");
    } else {
        cases_table(out, m, width, color);
    }
    if !view.several
        && let Some(line) = &view.left_out
    {
        push_indented(out, &clean(line), "  ");
    }
    let lines = [
        Some(&m.accuracy_line),
        m.trials_line.as_ref(),
        m.counts_line.as_ref(),
    ];
    for line in lines.into_iter().flatten() {
        out.push_str(line);
        out.push('\n');
    }
    for line in &m.rates_lines {
        push_wrapped(out, line, width, "  ");
    }
    for line in &m.shared_errors {
        push_indented(out, &clean(line), "  ");
    }
    if let Some(line) = &m.comparison_line {
        if m.comparison_failed {
            out.push_str(&Paint::Red.paint("FAIL", color));
            out.push(' ');
        }
        push_indented(out, &clean(line), "  ");
    }
    if let Some(line) = &m.detects_line {
        push_wrapped(out, &clean(line), width, "  ");
    }
    for line in &m.crowd {
        push_indented(out, &clean(line), "      ");
    }
    for gate in m
        .failed_gates
        .iter()
        .filter(|g| g.kind != crate::outcome::GateKind::Comparison)
    {
        out.push_str(&Paint::Red.paint("FAIL", color));
        let text = format!(" {}: {}", gate.kind.as_str(), gate.detail);
        push_indented(out, &clean(&text), "     ");
    }
    if let Some(names) = &m.critical_misses {
        out.push_str(&Paint::Red.paint("Critical misses", color));
        let text = format!(" (must be right on every trial): {names}");
        push_indented(out, &clean(&text), "  ");
    }
    if let Some(names) = &m.uncached {
        let text = format!(
            "Not in the cache (--offline): {names}\n{}",
            view.offline_hint
        );
        push_indented(out, &clean(&text), "");
    }
    confusion(out, m, width, color);
    per_tool(out, m, width, color);
}

/// Recall and precision per tool.
fn per_tool(out: &mut String, m: &ModelView<'_>, width: usize, color: bool) {
    if m.tools.is_empty() {
        return;
    }
    out.push_str("Per tool (the first call is the pick; 95% Wilson intervals):\n");
    let mut table = Table::new(vec![
        Column::text("Tool"),
        Column::text("Recall"),
        Column::text("95% CI"),
        Column::text("Precision"),
        Column::text("95% CI"),
    ]);
    for t in &m.tools {
        table.row(vec![
            Cell::new(clean(t.tool)),
            Cell::new(t.recall.clone()),
            Cell::new(t.recall_ci.clone()),
            Cell::new(t.precision.clone()),
            Cell::new(t.precision_ci.clone()),
        ]);
    }
    out.push_str(&table.render(width, color));
}

fn cases_table(out: &mut String, m: &ModelView<'_>, width: usize, color: bool) {
    let mut table = Table::new(vec![
        Column::fixed(""),
        Column::text("Case"),
        Column::text("Expected"),
        Column::text("Picked"),
        Column::text("Details"),
    ]);
    for row in &m.rows {
        let (mark, paint) = match row.status {
            CaseStatus::Correct => ("PASS", Paint::Green),
            CaseStatus::Miss => ("MISS", Paint::Red),
            CaseStatus::ProviderError => ("ERROR", Paint::RedBold),
            CaseStatus::NotRun => ("SKIP", Paint::Dim),
        };
        let mut name = clean(row.name).into_owned();
        if row.critical {
            name.push_str("\n(critical)");
        }
        if let Some(summary) = &row.context_summary {
            name.push('\n');
            name.push_str(summary);
        }
        table.row(vec![
            Cell::painted(mark, paint),
            Cell::new(name),
            Cell::new(clean(&row.expected)),
            Cell::new(clean(&row.picked.join("\n"))),
            Cell::new(clean(&row.details_with_why.join("\n"))),
        ]);
    }
    out.push_str(&table.render(width, color));
}

fn confusion(out: &mut String, m: &ModelView<'_>, width: usize, color: bool) {
    if m.confusion_lines.is_empty() {
        return;
    }
    out.push_str("Confusion (expected → picked):\n");
    for line in &m.confusion_lines {
        push_indented(out, &format!("  {}", clean(line)), "    ");
    }
    if let Some(more) = &m.confusion_more {
        out.push_str(&format!("  {more}\n"));
    }
    for line in &m.dominant {
        out.push_str(&Paint::Yellow.paint("WARN", color));
        out.push(' ');
        let wrapped = wrap(&clean(line), width.saturating_sub(5)).join("\n");
        push_indented(out, &wrapped, "     ");
    }
}

/// `text` wrapped to `width`, the lines after the first after `indent`.
fn push_wrapped(out: &mut String, text: &str, width: usize, indent: &str) {
    let wrapped = wrap(text, width.saturating_sub(indent.len()).max(20)).join("\n");
    push_indented(out, &wrapped, indent);
}
