//! The evals parts of the job summary: the phase row, then per model its verdict lines, failed
//! gates and misses; a side-by-side table first when several models were asked, and left-out
//! tools, cache use and the trend after the last model. Every word comes from the
//! [`EvalsView`]; this file lays it out as Markdown and escapes it.

use super::list::List;
use super::text::md;
use super::{CELL_CHARS, ERROR_CHARS, LINE_CHARS};
use crate::outcome::{CaseStatus, PhaseOverview, PhaseStatus};
use crate::report::evals_view::{CaseRow, EvalsView, ModelOutcome, ModelView};

/// The header of a table of [`miss_row`]s.
pub(super) const MISS_HEADER: &str =
    "| | Case | Expected | Picked | Why | Details |\n|---|---|---|---|---|---|\n";

/// One model's part of the summary: fixed text before and after its misses table.
pub(super) struct Block {
    pub(super) head: String,
    pub(super) misses: List,
    pub(super) tail: String,
}

/// The Evals row of the phase table: the phase's headline, said once.
pub(super) fn row(phase: &PhaseOverview<'_>, view: &EvalsView<'_>) -> String {
    let icon = match phase.status {
        PhaseStatus::Passed => "✅",
        PhaseStatus::Skipped => "⏭️",
        PhaseStatus::Failed | PhaseStatus::Error => "❌",
    };
    format!(
        "| {} | {icon} {} |\n",
        phase.title,
        md(&view.headline, CELL_CHARS)
    )
}

fn icon(fails: bool) -> &'static str {
    if fails { "❌" } else { "✅" }
}

/// One block per model; the models table goes before the first, the shared lines after the
/// last.
pub(super) fn blocks(view: &EvalsView<'_>) -> Vec<Block> {
    let mut blocks: Vec<Block> = view.models.iter().map(|m| block(view, m)).collect();
    if view.several
        && let Some(first) = blocks.first_mut()
    {
        first.head.insert_str(0, &models_table(view));
    }
    if let Some(last) = blocks.last_mut() {
        last.tail.push_str(&shared(view));
    }
    blocks
}

fn block(view: &EvalsView<'_>, m: &ModelView<'_>) -> Block {
    let mut head = if view.several {
        format!("#### {}\n\n", md(&m.model.replace('\n', " "), CELL_CHARS))
    } else {
        format!("### {}\n\n", md(&m.title.replace('\n', " "), CELL_CHARS))
    };
    if let Some(error) = m.error {
        head.push_str("> [!CAUTION]\n> **The provider could not be used:** ");
        head.push_str(&md(error, ERROR_CHARS));
        if let Some(line) = &m.not_scored {
            head.push_str(&format!("<br>{}.", md(line, LINE_CHARS)));
        }
        head.push_str("\n\n");
    }
    if let Some(text) = &m.tools_unseen {
        head.push_str("> [!CAUTION]\n> **The tools never reached the model:** ");
        head.push_str(&md(text, ERROR_CHARS));
        head.push_str("\n\n");
    }
    let mut lines = vec![format!(
        "{} **{}**",
        icon(m.outcome.fails()),
        md(&m.accuracy_line, LINE_CHARS)
    )];
    lines.extend(m.trials_line.iter().map(|l| md(l, LINE_CHARS)));
    lines.extend(m.counts_line.iter().map(|l| md(l, LINE_CHARS)));
    lines.extend(m.detects_line.iter().map(|l| md(l, LINE_CHARS)));
    lines.extend(m.rates_lines.iter().map(|l| md(l, LINE_CHARS)));
    lines.extend(m.shared_errors.iter().map(|l| md(l, LINE_CHARS)));
    head.push_str(&lines.join("<br>\n"));
    head.push_str("\n\n");
    if !m.failed_gates.is_empty() {
        for g in &m.failed_gates {
            head.push_str(&format!(
                "- ❌ {}: {}\n",
                md(g.kind.as_str(), 80),
                md(&g.detail, LINE_CHARS)
            ));
        }
        head.push('\n');
    }
    Block {
        head,
        misses: miss_rows(m),
        tail: model_tail(view, m),
    }
}

/// The uncached cases and the confusion pairs.
fn model_tail(view: &EvalsView<'_>, m: &ModelView<'_>) -> String {
    let mut tail = String::new();
    if let Some(names) = &m.uncached {
        tail.push_str(&format!(
            "> [!IMPORTANT]\n> **Not in the cache (--offline):** {}<br>{}\n\n",
            md(names, LINE_CHARS),
            md(&view.offline_hint, LINE_CHARS)
        ));
    }
    if !m.confusion_lines.is_empty() {
        let mut pairs: Vec<String> = m
            .confusion_lines
            .iter()
            .map(|p| md(p, CELL_CHARS))
            .collect();
        pairs.extend(m.confusion_more.clone());
        tail.push_str(&format!(
            "**Confusion pairs** (expected → picked): {}\n\n",
            pairs.join(" · ")
        ));
    }
    if !m.crowd.is_empty() {
        tail.push_str("**Crowded context**\n\n");
        for line in &m.crowd {
            tail.push_str(&format!("- {}\n", md(line.trim_start(), LINE_CHARS)));
        }
        tail.push('\n');
    }
    for line in &m.dominant {
        tail.push_str(&format!("> [!WARNING]\n> {}\n\n", md(line, LINE_CHARS)));
    }
    tail.push_str(&per_tool(m));
    tail
}

/// Most tools in the per-tool table (the JSON report has them all).
const TOOLS_SHOWN: usize = 50;

/// Recall and precision per tool, folded.
fn per_tool(m: &ModelView<'_>) -> String {
    if m.tools.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<details><summary>Per tool: recall and precision ({} tool{}; the first call is the pick; 95% Wilson intervals)</summary>\n\n| Tool | Recall | 95% CI | Precision | 95% CI |\n|---|--:|--:|--:|--:|\n",
        m.tools.len(),
        if m.tools.len() == 1 { "" } else { "s" }
    );
    for t in m.tools.iter().take(TOOLS_SHOWN) {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            md(t.tool, CELL_CHARS),
            md(&t.recall, CELL_CHARS),
            md(&t.recall_ci, CELL_CHARS),
            md(&t.precision, CELL_CHARS),
            md(&t.precision_ci, CELL_CHARS)
        ));
    }
    let more = m.tools.len().saturating_sub(TOOLS_SHOWN);
    if more > 0 {
        out.push_str(&format!("\n… {more} more (see the JSON report)\n"));
    }
    out.push_str("\n</details>\n\n");
    out
}

fn models_table(view: &EvalsView<'_>) -> String {
    let title = format!("Tool-selection evals ({})", view.provider);
    let mut table = format!(
        "### {}\n\n| Model | Accuracy | Correct | Critical misses | Provider errors | Verdict |\n|---|---|---|---|---|---|\n",
        md(&title, CELL_CHARS)
    );
    for m in &view.models {
        let dash = || "–".to_string();
        let verdict = match m.outcome {
            ModelOutcome::Unusable => "❌ provider error",
            ModelOutcome::ToolsUnseen => "❌ tools not shown",
            ModelOutcome::Failed => "❌ failed",
            ModelOutcome::Passed => "✅ passed",
        };
        table.push_str(&format!(
            "| {} | {} | {} | {} | {} | {verdict} |\n",
            md(m.model, CELL_CHARS),
            m.accuracy.clone().unwrap_or_else(dash),
            m.correct.clone().unwrap_or_else(dash),
            md(m.critical_misses.as_deref().unwrap_or(""), CELL_CHARS),
            m.provider_errors
        ));
    }
    table.push('\n');
    table
}

/// Left-out tools, cache use, the trend lines and the trend's warnings.
fn shared(view: &EvalsView<'_>) -> String {
    let mut lines: Vec<String> = view.left_out.iter().cloned().collect();
    lines.extend(view.overrides.iter().cloned());
    lines.push(view.cache.clone());
    lines.extend(view.cost.iter().cloned());
    lines.extend(view.weights.iter().cloned());
    let mut warnings: Vec<&String> = view.cache_warning.iter().collect();
    warnings.extend(&view.concurrency);
    if let Some(h) = &view.history {
        for line in &h.lines {
            let mark = if line.rising { " ⚠️" } else { "" };
            lines.push(format!("{}{mark}", line.text()));
        }
        lines.extend(h.cost_lines.iter().cloned());
        warnings.extend(&h.warnings);
    }
    let mut out: String = lines
        .iter()
        .map(|l| format!("- {}\n", md(l, LINE_CHARS)))
        .collect();
    out.push('\n');
    for w in warnings {
        out.push_str(&format!("> [!WARNING]\n> {}\n\n", md(w, LINE_CHARS)));
    }
    out
}

/// The misses table of a model: every miss with its why (critical ones first), then the cases
/// that got no usable answer from the provider.
pub(super) fn miss_rows(m: &ModelView<'_>) -> List {
    let misses = m.misses();
    let critical = misses.iter().filter(|r| r.critical).count();
    let errors: Vec<&CaseRow<'_>> = m.rows_with(CaseStatus::ProviderError).collect();
    let rows = misses.iter().chain(&errors).map(|r| miss_row(r)).collect();
    let mut summary = format!("Misses ({}", misses.len());
    if critical > 0 {
        summary.push_str(&format!(", {critical} critical"));
    }
    summary.push(')');
    if !errors.is_empty() {
        summary.push_str(&format!(" and provider errors ({})", errors.len()));
    }
    if !m.outcome.fails() {
        summary.push_str(" within the gates");
    }
    List {
        summary,
        open: m.outcome.fails(),
        header: MISS_HEADER,
        rows,
    }
}

pub(super) fn miss_row(r: &CaseRow<'_>) -> String {
    let (icon, name) = match (r.status, r.critical) {
        (CaseStatus::ProviderError, _) => ("⚠️", md(r.name, CELL_CHARS)),
        (_, true) => ("🚨", format!("{} **(critical)**", md(r.name, CELL_CHARS))),
        _ => ("❌", md(r.name, CELL_CHARS)),
    };
    let name = match &r.context_summary {
        Some(summary) => format!("{name} ({summary})"),
        None => name,
    };
    format!(
        "| {icon} | {name} | {} | {} | {} | {} |\n",
        md(&r.expected, CELL_CHARS),
        md(&r.picked.join("\n"), CELL_CHARS * 2),
        md(r.why.unwrap_or(""), CELL_CHARS),
        md(&r.details.join("\n"), CELL_CHARS * 2)
    )
}
