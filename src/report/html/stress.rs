//! The Stress section of the page: the verdict, the chart of every model's curve, then per
//! model a table (one row per distractor count, one column per order, rows with a list below
//! the minimum marked), the breaking point and the misses there, and what the lists were.

use super::chart::chart;
use super::marks::{TABLE_CLOSE, Tone, badge, cell, not_run_line, ran, section_open, table_open};
use super::text::{one_line, text};
use super::{CELL_CHARS, NAME_CHARS};
use crate::outcome::PhaseOverview;
use crate::report::console::order_header;
use crate::report::stress_view::{StressModelView, StressView};

pub(super) fn section(out: &mut String, phase: &PhaseOverview<'_>, view: Option<&StressView<'_>>) {
    section_open(out, phase, "Tool-count stress");
    let Some(view) = view else {
        out.push_str(&if ran(phase) {
            format!(
                "<p class=\"pre\">{}</p>\n",
                text(phase.reason.unwrap_or("no model was asked"), CELL_CHARS)
            )
        } else {
            not_run_line(phase)
        });
        out.push_str("</section>\n");
        return;
    };
    out.push_str(&format!(
        "<p class=\"pre\">{}</p>\n",
        text(&view.headline, CELL_CHARS)
    ));
    let counts: Vec<usize> = view
        .models
        .first()
        .map(|m| m.rows.iter().map(|r| r.distractors).collect())
        .unwrap_or_default();
    out.push_str(&chart(view, &counts, "stress-chart"));
    for m in &view.models {
        model_block(out, view, m);
    }
    for line in [
        Some(&view.lists),
        Some(&view.answers),
        view.skipped.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        out.push_str(&format!(
            "<p class=\"sub\">{}</p>\n",
            text(line, CELL_CHARS)
        ));
    }
    out.push_str("</section>\n");
}

fn model_block(out: &mut String, view: &StressView<'_>, m: &StressModelView<'_>) {
    if view.several {
        out.push_str(&format!("<h3>{}</h3>\n", one_line(m.model, NAME_CHARS)));
    }
    let mut headers = vec![("Distractors", "num"), ("Tools", "num")];
    headers.extend(view.orders.iter().map(|o| (order_header(*o), "")));
    out.push_str(&table_open("stress", &headers));
    for row in &m.rows {
        // A curve reads in count order, so rows keep it (no failing-first here), and a list
        // below the minimum is a measurement, not a failure: marked `below`, not `fail`.
        let below = row.cells.iter().flatten().any(|c| c.below);
        let (tone, status, word) = if below {
            (Tone::Warn, "below", "BELOW")
        } else {
            (Tone::Pass, "above", "OK")
        };
        out.push_str(&format!(
            "<tr class=\"curve {status}\" data-status=\"{status}\"><td class=\"st\">{}</td>",
            badge(tone, word)
        ));
        out.push_str(&cell(
            "Distractors",
            "num inl",
            &row.distractors.to_string(),
        ));
        out.push_str(&cell("Tools", "num inl", &row.tools.to_string()));
        for (c, order) in row.cells.iter().zip(&view.orders) {
            let html = match c {
                None => "<span class=\"muted\">–</span>".to_owned(),
                Some(c) if c.breaks => format!(
                    "<strong>{}</strong> <span class=\"tag critical\">breaks</span>",
                    text(&c.text, CELL_CHARS)
                ),
                Some(c) if c.below => format!("<strong>{}</strong>", text(&c.text, CELL_CHARS)),
                Some(c) => text(&c.text, CELL_CHARS),
            };
            out.push_str(&cell(order_header(*order), "inl", &html));
        }
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
    out.push_str(&format!("<p>{}</p>\n", text(&m.breaking, CELL_CHARS)));
    if let Some(line) = &m.headroom {
        out.push_str(&format!(
            "<p class=\"headroom\">{}</p>\n",
            text(line, CELL_CHARS)
        ));
    }
    if let Some(title) = &m.misses_title {
        out.push_str(&format!(
            "<p>{}</p>\n<ul class=\"lines\">",
            text(title, CELL_CHARS)
        ));
        for line in &m.misses {
            out.push_str(&format!("<li>{}</li>", text(line, CELL_CHARS)));
        }
        if let Some(more) = &m.misses_more {
            out.push_str(&format!(
                "<li class=\"muted\">{}</li>",
                text(more, CELL_CHARS)
            ));
        }
        out.push_str("</ul>\n");
    }
    if let Some((held, line)) = &m.gate {
        let (tone, word) = if *held {
            (Tone::Pass, "PASS")
        } else {
            (Tone::Fail, "FAIL")
        };
        out.push_str(&format!(
            "<ul class=\"gates\"><li>{} {}</li></ul>\n",
            badge(tone, word),
            text(line, CELL_CHARS)
        ));
    }
}
