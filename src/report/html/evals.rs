//! The evals section of the page: the provider and headline, a side-by-side table when several
//! models were asked, one article per model (failing ones first) with its lines, gates, cases
//! and confusion pairs, then the cache and the miss-rate trend. Every word comes from the
//! [`EvalsView`]; this file lays it out as HTML and escapes it.

use super::marks::{TABLE_CLOSE, table_open};
use super::marks::{
    Tone, badge, breakable, by_rank, cell, not_run_line, ran, row_open, section_open,
};
use super::text::{one_line, text};
use super::{CELL_CHARS, ERROR_CHARS, NAME_CHARS};
use crate::outcome::{CaseStatus, PhaseOverview};
use crate::report::evals_view::{CaseRow, EvalsView, HistoryView, ModelOutcome, ModelView};

/// The section; `view` is `None` when the phase has no results to show.
pub(super) fn section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    view: Option<&EvalsView<'_>>,
    config: Option<&str>,
) {
    section_open(out, phase, "Tool-selection evals");
    let Some(view) = view else {
        if ran(phase) {
            let reason = phase.reason.unwrap_or("no model was asked");
            out.push_str(&format!(
                "<p class=\"pre\">{}</p>\n",
                text(reason, CELL_CHARS)
            ));
        } else {
            out.push_str(&not_run_line(phase));
        }
        out.push_str("</section>\n");
        return;
    };
    out.push_str(&format!(
        "<p>Provider: {} · {}</p>\n",
        one_line(view.provider, NAME_CHARS),
        one_line(&view.headline, CELL_CHARS)
    ));
    if let Some(left_out) = &view.left_out {
        out.push_str(&format!(
            "<div class=\"alert warn\" id=\"left-out\"><p>{}</p><p>The model never saw these tools; fix their input schema to evaluate them.</p></div>\n",
            text(left_out, CELL_CHARS)
        ));
    }
    if let Some(overrides) = &view.overrides {
        out.push_str(&format!(
            "<div class=\"alert warn\" id=\"overrides\"><p>{}</p></div>\n",
            text(overrides, CELL_CHARS)
        ));
    }
    if view.several {
        models_table(out, view);
    }
    for m in ranked(view) {
        model_block(out, view, m, config);
    }
    out.push_str(if view.several {
        "<h3>Cache and history (every model)</h3>\n"
    } else {
        "<h3>Cache and history</h3>\n"
    });
    let mut cache = view.cache.clone();
    if let Some(dir) = view.cache_dir {
        cache.push_str(&format!(" · folder {dir}"));
    }
    out.push_str(&format!("<p>{}</p>\n", text(&cache, CELL_CHARS)));
    for line in &view.cost {
        out.push_str(&format!(
            "<p class=\"cost\">{}</p>\n",
            text(line, CELL_CHARS)
        ));
    }
    weights_table(out, view);
    if let Some(warning) = &view.cache_warning {
        out.push_str(&format!(
            "<div class=\"alert warn\" id=\"cache-not-saved\"><p>{}</p></div>\n",
            text(warning, CELL_CHARS)
        ));
    }
    if let Some(note) = &view.concurrency {
        out.push_str(&format!(
            "<div class=\"alert warn\" id=\"concurrency-lowered\"><p class=\"pre\">{}</p></div>\n",
            text(note, CELL_CHARS)
        ));
    }
    if let Some(h) = &view.history {
        history_block(out, h);
    }
    out.push_str("</section>\n");
}

/// The models, failing ones first.
fn ranked<'v, 'a>(view: &'v EvalsView<'a>) -> Vec<&'v ModelView<'a>> {
    by_rank(&view.models, |m| u8::from(!m.outcome.fails()))
}

/// `(tone, data-status, word)` of a model.
fn model_mark(outcome: ModelOutcome, short: bool) -> (Tone, &'static str, &'static str) {
    match (outcome, short) {
        (ModelOutcome::Unusable | ModelOutcome::ToolsUnseen, _) => (Tone::Fail, "error", "ERROR"),
        (ModelOutcome::Failed, true) => (Tone::Fail, "failed", "FAIL"),
        (ModelOutcome::Failed, false) => (Tone::Fail, "failed", "FAILED"),
        (ModelOutcome::Passed, true) => (Tone::Pass, "passed", "PASS"),
        (ModelOutcome::Passed, false) => (Tone::Pass, "passed", "PASSED"),
    }
}

/// Several models side by side, failing ones first.
fn models_table(out: &mut String, view: &EvalsView<'_>) {
    out.push_str(&table_open(
        "models",
        &[
            ("Model", ""),
            ("Accuracy", "num"),
            ("Correct", "num"),
            ("Critical misses", ""),
            ("Provider errors", "num"),
        ],
    ));
    for m in ranked(view) {
        let (tone, status, word) = model_mark(m.outcome, true);
        let dash = || "–".to_string();
        out.push_str(&row_open(tone, status, word));
        out.push_str(&format!(
            "<th scope=\"row\"><a href=\"#model-{}\">{}</a></th>",
            m.index + 1,
            one_line(m.model, NAME_CHARS)
        ));
        out.push_str(&cell(
            "Accuracy",
            "num",
            &m.accuracy.clone().unwrap_or_else(dash),
        ));
        out.push_str(&cell(
            "Correct",
            "num",
            &m.correct.clone().unwrap_or_else(dash),
        ));
        let critical = m.critical_misses.as_deref().unwrap_or("");
        out.push_str(&cell("Critical misses", "", &text(critical, CELL_CHARS)));
        out.push_str(&cell(
            "Provider errors",
            "num",
            &m.provider_errors.to_string(),
        ));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
}

fn model_block(out: &mut String, view: &EvalsView<'_>, m: &ModelView<'_>, config: Option<&str>) {
    let (tone, status, word) = model_mark(m.outcome, false);
    let title = if m.model.trim().is_empty() {
        "(no model named)".to_string()
    } else {
        one_line(m.model, NAME_CHARS)
    };
    out.push_str(&format!(
        "<article class=\"model\" id=\"model-{}\" data-status=\"{status}\">\n<h3>{} {title}</h3>\n",
        m.index + 1,
        badge(tone, word)
    ));
    if let Some(error) = m.error {
        out.push_str(
            "<div class=\"alert fail provider-error\">\n<h4>The provider could not be used</h4>\n",
        );
        out.push_str(&format!(
            "<pre class=\"message\">{}</pre>\n",
            text(error, ERROR_CHARS)
        ));
        if let Some(line) = &m.not_scored {
            out.push_str(&format!("<p>{}.</p>\n", text(line, CELL_CHARS)));
        }
        out.push_str("</div>\n");
    }
    if let Some(unseen) = &m.tools_unseen {
        out.push_str(&format!(
            "<div class=\"alert fail tools-unseen\">\n<h4>The tools never reached the model</h4>\n<p>{}</p>\n</div>\n",
            text(unseen, ERROR_CHARS)
        ));
    }
    model_lines(out, m);
    gates_list(out, m);
    if let Some(names) = &m.uncached {
        out.push_str(&format!(
            "<div class=\"alert warn\"><p><strong>Not in the cache (--offline):</strong> {}</p><p>{}</p></div>\n",
            text(names, CELL_CHARS),
            text(&view.offline_hint, CELL_CHARS)
        ));
    }
    if m.rows.is_empty() {
        out.push_str("<p>No cases.</p>\n");
    } else {
        cases_table(out, m, config);
    }
    if !m.confusion.is_empty() {
        confusion_table(out, m);
    }
    if !m.crowd.is_empty() {
        out.push_str("<h4>Crowded context</h4>\n<ul class=\"lines crowd\">");
        for line in &m.crowd {
            out.push_str(&format!("<li>{}</li>", text(line.trim_start(), CELL_CHARS)));
        }
        out.push_str("</ul>\n");
    }
    for line in &m.dominant {
        out.push_str(&format!(
            "<div class=\"alert warn dominant\"><p>{}</p></div>\n",
            text(line, CELL_CHARS)
        ));
    }
    if !m.tools.is_empty() {
        tools_table(out, m);
    }
    out.push_str("</article>\n");
}

/// The accuracy line in bold, then the trials and counts lines.
fn model_lines(out: &mut String, m: &ModelView<'_>) {
    out.push_str(&format!(
        "<p><strong>{}</strong>",
        text(&m.accuracy_line, CELL_CHARS)
    ));
    for line in m
        .trials_line
        .iter()
        .chain(&m.counts_line)
        .chain(&m.detects_line)
        .chain(&m.rates_lines)
        .chain(&m.shared_errors)
    {
        out.push_str(&format!("<br>{}", text(line, CELL_CHARS)));
    }
    out.push_str("</p>\n");
}

/// Every gate, failed ones first; none when the provider could not be used (its error says
/// why nothing was measured).
fn gates_list(out: &mut String, m: &ModelView<'_>) {
    if m.outcome == ModelOutcome::Unusable || m.gates.is_empty() {
        return;
    }
    out.push_str("<ul class=\"gates\">");
    for g in by_rank(m.gates, |g| u8::from(g.passed)) {
        let (tone, word, status) = if g.passed {
            (Tone::Pass, "PASS", "passed")
        } else {
            (Tone::Fail, "FAIL", "failed")
        };
        out.push_str(&format!(
            "<li class=\"{}\" data-status=\"{status}\">{} <code>{}</code>: {}</li>",
            tone.class(),
            badge(tone, word),
            g.kind.as_str(),
            text(&g.detail, CELL_CHARS)
        ));
    }
    out.push_str("</ul>\n");
}

fn case_mark(status: CaseStatus) -> (Tone, &'static str, &'static str) {
    match status {
        CaseStatus::Miss => (Tone::Fail, "miss", "MISS"),
        CaseStatus::ProviderError => (Tone::Fail, "provider_error", "ERROR"),
        CaseStatus::NotRun => (Tone::Skip, "not_run", "NOT RUN"),
        CaseStatus::Correct => (Tone::Pass, "correct", "PASS"),
    }
}

/// Every case: critical misses, misses, provider errors, not run, then correct.
fn cases_table(out: &mut String, m: &ModelView<'_>, config: Option<&str>) {
    out.push_str(&table_open(
        "cases",
        &[
            ("Case", ""),
            ("Expected", ""),
            ("Picked", ""),
            ("Why", ""),
            ("Details", ""),
        ],
    ));
    let rank = |r: &CaseRow<'_>| match (r.status, r.critical) {
        (CaseStatus::Miss, true) => 0,
        (CaseStatus::Miss, false) => 1,
        (CaseStatus::ProviderError, _) => 2,
        (CaseStatus::NotRun, _) => 3,
        (CaseStatus::Correct, _) => 4,
    };
    for row in by_rank(&m.rows, rank) {
        case_row(out, row, config);
    }
    out.push_str(TABLE_CLOSE);
}

fn case_row(out: &mut String, r: &CaseRow<'_>, config: Option<&str>) {
    let (tone, status, word) = case_mark(r.status);
    out.push_str(&row_open(tone, status, word));
    let mut name = one_line(r.name, NAME_CHARS);
    if r.critical {
        name.push_str(" <span class=\"tag critical\">critical</span>");
    }
    let place = match (r.file.or(config), r.line) {
        (Some(file), Some(line)) => Some(format!("{file}:{line}")),
        (Some(file), None) => Some(file.to_string()),
        (None, Some(line)) => Some(format!("line {line}")),
        (None, None) => None,
    };
    if let Some(place) = place {
        name.push_str(&format!(
            "<span class=\"sub\"><code>{}</code></span>",
            one_line(&place, CELL_CHARS)
        ));
    }
    if r.name != r.prompt {
        name.push_str(&format!(
            "<span class=\"sub pre\">{}</span>",
            text(r.prompt, CELL_CHARS)
        ));
    }
    if let Some(summary) = &r.context_summary {
        let turns: String = r
            .context
            .iter()
            .map(|t| format!("<li>{}</li>", text(t, CELL_CHARS)))
            .collect();
        name.push_str(&format!(
            "<details class=\"sub context\"><summary>{}</summary><ol class=\"lines pre\">{turns}</ol></details>",
            one_line(summary, CELL_CHARS)
        ));
    }
    out.push_str(&format!("<th scope=\"row\">{name}</th>"));
    out.push_str(&cell(
        "Expected",
        "pre",
        &breakable(&text(&r.expected, CELL_CHARS)),
    ));
    let picked = r.picked.join("\n");
    out.push_str(&cell(
        "Picked",
        "pre",
        &breakable(&text(&picked, CELL_CHARS)),
    ));
    out.push_str(&cell("Why", "pre", &text(r.why.unwrap_or(""), CELL_CHARS)));
    let details: String = r
        .details
        .iter()
        .map(|d| format!("<li>{}</li>", text(d, CELL_CHARS)))
        .collect();
    let details = if details.is_empty() {
        details
    } else {
        format!("<ul class=\"lines pre\">{details}</ul>")
    };
    out.push_str(&cell("Details", "", &details));
    out.push_str("</tr>\n");
}

/// Recall and precision per tool, in name order.
fn tools_table(out: &mut String, m: &ModelView<'_>) {
    out.push_str("<h4>Per tool <span class=\"sub\">the first call is the pick; 95% Wilson intervals</span></h4>\n");
    out.push_str("<div class=\"table-wrap\"><table class=\"cards per-tool\"><thead><tr><th scope=\"col\">Tool</th><th scope=\"col\" class=\"num\">Recall</th><th scope=\"col\" class=\"num\">95% CI</th><th scope=\"col\" class=\"num\">Precision</th><th scope=\"col\" class=\"num\">95% CI</th></tr></thead>\n<tbody>\n");
    for t in &m.tools {
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}</th>{}{}{}{}</tr>\n",
            breakable(&one_line(t.tool, NAME_CHARS)),
            cell("Recall", "num", &text(&t.recall, CELL_CHARS)),
            cell("Recall 95% CI", "num", &text(&t.recall_ci, CELL_CHARS)),
            cell("Precision", "num", &text(&t.precision, CELL_CHARS)),
            cell(
                "Precision 95% CI",
                "num",
                &text(&t.precision_ci, CELL_CHARS)
            )
        ));
    }
    out.push_str(TABLE_CLOSE);
}

/// Each tool's estimated tokens in the list sent to the model, heaviest first, folded.
fn weights_table(out: &mut String, view: &EvalsView<'_>) {
    let Some(line) = &view.weights else { return };
    out.push_str(&format!(
        "<details class=\"tool-weights\"><summary>{}</summary>\n",
        text(line, CELL_CHARS)
    ));
    out.push_str("<div class=\"table-wrap\"><table class=\"cards tool-weights\"><thead><tr><th scope=\"col\">Tool</th><th scope=\"col\" class=\"num\">Tokens</th><th scope=\"col\" class=\"num\">Share</th></tr></thead>\n<tbody>\n");
    for (tool, tokens, share) in &view.tool_weights {
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}</th>{}{}</tr>\n",
            breakable(&one_line(tool, NAME_CHARS)),
            cell("Tokens", "num", &crate::outcome::cost::count(*tokens)),
            cell("Share", "num", &crate::outcome::rates::percent(*share))
        ));
    }
    out.push_str(TABLE_CLOSE);
    out.push_str("</details>\n");
}

/// Expected → picked pairs of the misses, most frequent first.
fn confusion_table(out: &mut String, m: &ModelView<'_>) {
    out.push_str("<h4>Confusion pairs</h4>\n<div class=\"table-wrap\"><table class=\"cards confusion\"><thead><tr><th scope=\"col\">Expected</th><th scope=\"col\">Picked</th><th scope=\"col\" class=\"num\">Times</th><th scope=\"col\">Cases</th></tr></thead>\n<tbody>\n");
    for p in m.confusion {
        out.push_str(&format!(
            "<tr class=\"fail\" data-status=\"miss\"><th scope=\"row\">{}</th>{}{}{}</tr>\n",
            breakable(&one_line(&p.expected, NAME_CHARS)),
            cell("Picked", "", &breakable(&one_line(&p.picked, NAME_CHARS))),
            cell("Times", "num", &p.count.to_string()),
            cell("Cases", "", &text(&p.cases.join(", "), CELL_CHARS))
        ));
    }
    out.push_str(TABLE_CLOSE);
    if let Some(more) = &m.confusion_more {
        out.push_str(&format!("<p class=\"sub\">{more}</p>\n"));
    }
}

/// The miss-rate trend: the warnings, then a line and a small bar chart per model.
fn history_block(out: &mut String, h: &HistoryView<'_>) {
    out.push_str(&format!(
        "<h4>Miss-rate history <span class=\"sub\"><code>{}</code></span></h4>\n",
        one_line(h.path, CELL_CHARS)
    ));
    for warning in &h.warnings {
        out.push_str(&format!(
            "<div class=\"alert warn\"><p>{}</p></div>\n",
            text(warning, CELL_CHARS)
        ));
    }
    for line in &h.lines {
        out.push_str(&format!(
            "<figure class=\"trend\"><figcaption>{}</figcaption><ol{}>",
            text(&line.text(), CELL_CHARS),
            if line.rising { " class=\"rising\"" } else { "" }
        ));
        for (p, rate) in line.points.iter().zip(&line.rates) {
            let height = (p.miss_rate.clamp(0.0, 1.0) * 100.0).round();
            let height = if height.is_finite() { height } else { 0.0 };
            let label = match &p.commit {
                Some(commit) => format!("<span class=\"sub\">{}</span>", one_line(commit, 12)),
                None => String::new(),
            };
            out.push_str(&format!(
                "<li><span>{rate}</span><span class=\"bar\" style=\"height:{height:.0}%\"></span>{label}</li>"
            ));
        }
        out.push_str("</ol></figure>\n");
    }
    for line in &h.cost_lines {
        out.push_str(&format!(
            "<p class=\"cost\">{}</p>\n",
            text(line, CELL_CHARS)
        ));
    }
}
