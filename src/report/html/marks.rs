//! Status marks and the table scaffolding every section shares.

use super::CELL_CHARS;
use super::text::{duration, text};
use crate::outcome::{PhaseOverview, PhaseStatus};

/// How a row or badge is coloured; each is also the row's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tone {
    Fail,
    Warn,
    Skip,
    Pass,
}

impl Tone {
    pub(super) fn class(self) -> &'static str {
        match self {
            Tone::Fail => "fail",
            Tone::Warn => "warn",
            Tone::Skip => "skip",
            Tone::Pass => "pass",
        }
    }
}

pub(super) fn badge(tone: Tone, word: &str) -> String {
    format!("<span class=\"badge {}\">{word}</span>", tone.class())
}

/// Opens a result row: its tone as the class, its status word as `data-status`, and the status
/// badge as the first cell.
pub(super) fn row_open(tone: Tone, status: &str, word: &str) -> String {
    format!(
        "<tr class=\"{}\" data-status=\"{status}\"><td class=\"st\">{}</td>",
        tone.class(),
        badge(tone, word)
    )
}

/// A labelled cell (the label shows above the value when the table is stacked into cards).
pub(super) fn cell(label: &str, class: &str, html: &str) -> String {
    if class.is_empty() {
        format!("<td data-label=\"{label}\">{html}</td>")
    } else {
        format!("<td class=\"{class}\" data-label=\"{label}\">{html}</td>")
    }
}

/// `<table class="cards">` with a status column and `headers` (`(label, class)`).
pub(super) fn table_open(class: &str, headers: &[(&str, &str)]) -> String {
    let mut s = format!("<div class=\"table-wrap\"><table class=\"cards {class}\">");
    s.push_str("<thead><tr><th scope=\"col\"><span class=\"sub\">Status</span></th>");
    for (label, class) in headers {
        if class.is_empty() {
            s.push_str(&format!("<th scope=\"col\">{label}</th>"));
        } else {
            s.push_str(&format!("<th scope=\"col\" class=\"{class}\">{label}</th>"));
        }
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    s
}

pub(super) const TABLE_CLOSE: &str = "</tbody></table></div>\n";

/// `items` in the order given by `rank` (lowest first), keeping their order within a rank.
pub(super) fn by_rank<T>(items: &[T], rank: impl Fn(&T) -> u8) -> Vec<&T> {
    let mut sorted: Vec<&T> = items.iter().collect();
    sorted.sort_by_key(|item| rank(item));
    sorted
}

/// Whether a phase ran (passed or failed).
pub(super) fn ran(phase: &PhaseOverview<'_>) -> bool {
    matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed)
}

pub(super) fn phase_mark(status: PhaseStatus) -> (Tone, &'static str) {
    match status {
        PhaseStatus::Passed => (Tone::Pass, "PASSED"),
        PhaseStatus::Failed => (Tone::Fail, "FAILED"),
        PhaseStatus::Error => (Tone::Fail, "ERROR"),
        PhaseStatus::Skipped => (Tone::Skip, "SKIPPED"),
    }
}

/// A phase section's opening: `<section id=key>` and its heading with the status badge.
pub(super) fn section_open(out: &mut String, phase: &PhaseOverview<'_>, title: &str) {
    let (tone, word) = phase_mark(phase.status);
    out.push_str(&format!(
        "<section id=\"{}\" data-status=\"{}\">\n<h2>{} {title}",
        phase.key,
        phase.status.as_str(),
        badge(tone, word)
    ));
    if ran(phase) && phase.duration_ms > 0.0 {
        out.push_str(&format!(
            " <span class=\"sub\">{}</span>",
            duration(phase.duration_ms)
        ));
    }
    out.push_str("</h2>\n");
}

/// The sentence for a phase that did not run, under its heading's badge: the reason it was
/// skipped (the badge says SKIPPED), or `Could not run: <reason>`.
pub(super) fn not_run_line(phase: &PhaseOverview<'_>) -> String {
    let reason = phase
        .reason
        .map(|reason| code_spans(&text(reason, CELL_CHARS)));
    let line = match (phase.status, reason) {
        (PhaseStatus::Error, reason) => format!(
            "Could not run: {}",
            reason.unwrap_or_else(|| "no reason recorded".into())
        ),
        (_, Some(reason)) => capitalized(&reason),
        (_, None) => "Not run".into(),
    };
    format!("<p class=\"pre\">{line}</p>\n")
}

/// The text with its first letter upper-case.
fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Escaped text with each pair of backticks made a `<code>` span (`evals.stress` in toolproof's
/// own reasons), as Markdown shows them; a lone backtick stays as it is.
pub(crate) fn code_spans(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 16);
    let mut rest = html;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        match after.find('`') {
            Some(close) if close > 0 => {
                out.push_str(&rest[..open]);
                out.push_str("<code>");
                out.push_str(&after[..close]);
                out.push_str("</code>");
                rest = &after[close + 1..];
            }
            _ => break,
        }
    }
    out.push_str(rest);
    out
}

/// `html` with a `<wbr>` after every `_` of its text that a letter or digit follows and every
/// `.` that a letter follows (not a decimal point), so
/// a narrow column breaks `day_of_week` as `day_of_` / `week`, never `day_of_we` / `ek`. Tags
/// are left as they are.
pub(crate) fn breakable(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 16);
    let mut in_tag = false;
    let mut chars = html.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ => {}
        }
        out.push(c);
        if !in_tag
            && chars
                .peek()
                .is_some_and(|n| c == '_' && n.is_alphanumeric() || c == '.' && n.is_alphabetic())
        {
            out.push_str("<wbr>");
        }
    }
    out
}
