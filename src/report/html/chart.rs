//! The stress curve as an inline SVG chart: accuracy (0–100%) against the distractor counts,
//! which sit at even steps along the axis (0, 10, 25… read as labels, not a scale). Per model
//! the server order is a line with a dot per count; the other orders are open markers at the
//! counts they ran (a square for shuffled, a triangle for reversed); the minimum is a dashed
//! line, and the breaking point a ring. Colours come from the page's custom properties, so the
//! chart follows dark mode; the only text from outside (a model name) is escaped. The numbers
//! are also in the table beside it, and each marker has a `<title>` saying its value.
//!
//! Hooks for tests: the `<svg>` has the class `stress-chart`; every marker has the class `pt`,
//! its order as a class, and `data-distractors` / `data-accuracy`.

use super::text::{esc, one_line};
use crate::outcome::rates::percent;
use crate::outcome::{StressPoint, ToolOrder};
use crate::report::stress_view::{StressModelView, StressView};

/// The drawing's size in user units; the page scales it to the column's width.
const WIDTH: f64 = 400.0;
const HEIGHT: f64 = 250.0;
/// The plot area inside the margins (labels go in the margins).
const LEFT: f64 = 44.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 46.0;

/// How many series colours the stylesheet defines (`.s0` …).
const COLOURS: usize = 4;

/// Longest model name in a marker's title, in characters.
const NAME_CHARS: usize = 80;

/// The chart of every model's curve, with its legend.
pub(super) fn chart(view: &StressView<'_>, counts: &[usize], id: &str) -> String {
    let mut svg = format!(
        "<figure class=\"chart\"><svg class=\"stress-chart\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-labelledby=\"{id}-t {id}-d\">\n<title id=\"{id}-t\">Accuracy by distractor tools added</title>\n<desc id=\"{id}-d\">{}</desc>\n",
        esc(&description(view))
    );
    axes(&mut svg, counts, view.min_accuracy);
    for (i, m) in view.models.iter().enumerate() {
        series(&mut svg, view, m, i, counts);
    }
    svg.push_str("</svg>\n");
    svg.push_str(&legend(view));
    svg.push_str("</figure>\n");
    svg
}

/// One sentence for screen readers: the server-order curve of each model.
fn description(view: &StressView<'_>) -> String {
    let each: Vec<String> = view
        .models
        .iter()
        .map(|m| {
            let points: Vec<String> = m
                .points
                .iter()
                .filter(|p| p.order == ToolOrder::Server)
                .map(|p| format!("{} at {}", percent(p.accuracy), p.distractors))
                .collect();
            let who = if view.several {
                format!("{}: ", m.model)
            } else {
                String::new()
            };
            format!("{who}{}", points.join(", "))
        })
        .collect();
    format!(
        "Accuracy in server order by distractors added: {}; {}.",
        each.join("; "),
        view.minimum
    )
}

fn x_of(index: usize, counts: usize) -> f64 {
    let step = (WIDTH - LEFT - RIGHT) / counts.max(1) as f64;
    LEFT + step * (index as f64 + 0.5)
}

fn y_of(accuracy: f64) -> f64 {
    let held = if accuracy.is_finite() {
        accuracy.clamp(0.0, 1.0)
    } else {
        0.0
    };
    TOP + (1.0 - held) * (HEIGHT - TOP - BOTTOM)
}

/// Grid lines with their percentages, the count labels, the axis titles and the minimum.
fn axes(svg: &mut String, counts: &[usize], min: f64) {
    let (x0, x1) = (LEFT, WIDTH - RIGHT);
    for step in 0..=4 {
        let share = f64::from(step) / 4.0;
        let y = y_of(share);
        svg.push_str(&format!(
            "<line class=\"grid\" x1=\"{x0}\" y1=\"{y:.1}\" x2=\"{x1}\" y2=\"{y:.1}\"/><text class=\"ylabel\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}%</text>\n",
            x0 - 6.0,
            y + 4.0,
            step * 25
        ));
    }
    let base = y_of(0.0);
    for (i, n) in counts.iter().enumerate() {
        let x = x_of(i, counts.len());
        svg.push_str(&format!(
            "<text class=\"xlabel\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{n}</text>\n",
            base + 16.0
        ));
    }
    svg.push_str(&format!(
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">distractor tools added</text>\n",
        (x0 + x1) / 2.0,
        HEIGHT - 6.0
    ));
    let y = y_of(min);
    svg.push_str(&format!(
        "<line class=\"min\" x1=\"{x0}\" y1=\"{y:.1}\" x2=\"{x1}\" y2=\"{y:.1}\"/><text class=\"minlabel\" x=\"{x1}\" y=\"{:.1}\" text-anchor=\"end\">minimum {}</text>\n",
        if y - 5.0 < TOP + 8.0 { y + 14.0 } else { y - 5.0 },
        percent(min)
    ));
}

/// One model: the server-order line, a marker per point, a ring where it broke.
fn series(
    svg: &mut String,
    view: &StressView<'_>,
    m: &StressModelView<'_>,
    i: usize,
    counts: &[usize],
) {
    let colour = format!("s{}", i % COLOURS);
    let at = |p: &StressPoint| {
        let index = counts.iter().position(|n| *n == p.distractors).unwrap_or(0);
        (x_of(index, counts.len()), y_of(p.accuracy))
    };
    let line: Vec<String> = m
        .points
        .iter()
        .filter(|p| p.order == ToolOrder::Server)
        .map(|p| {
            let (x, y) = at(p);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    if line.len() > 1 {
        svg.push_str(&format!(
            "<polyline class=\"series {colour}\" points=\"{}\"/>\n",
            line.join(" ")
        ));
    }
    let who = if view.several {
        format!("{}: ", one_line(m.model, NAME_CHARS))
    } else {
        String::new()
    };
    if let Some((tools, low, high)) = m.headroom_at {
        svg.push_str(&headroom_mark(counts, (tools, low, high), &colour, &who));
    }
    for p in m.points {
        let (x, y) = at(p);
        svg.push_str(&marker(p, (x, y), &colour, &who));
        if m.breaks_at == Some((p.distractors, p.order)) {
            svg.push_str(&format!(
                "<circle class=\"break\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"9\"/><text class=\"breaklabel\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">breaks</text>\n",
                if y + 24.0 > y_of(0.0) { y - 14.0 } else { y + 22.0 }
            ));
        }
    }
}

/// The headroom: a dashed upright line where the estimate falls between the two counts around
/// it (the axis places counts evenly, so the estimate is placed between them in proportion).
fn headroom_mark(
    counts: &[usize],
    (tools, low, high): (usize, usize, usize),
    colour: &str,
    who: &str,
) -> String {
    let index = |n: usize| counts.iter().position(|c| *c == n).unwrap_or(0);
    let (a, b) = (
        x_of(index(low), counts.len()),
        x_of(index(high), counts.len()),
    );
    let share = if high > low {
        (tools - low) as f64 / (high - low) as f64
    } else {
        0.0
    };
    let x = a + (b - a) * share;
    format!(
        "<line class=\"headroom {colour}\" data-tools=\"{tools}\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"><title>{who}headroom: about {tools} more tools ({low}–{high})</title></line><text class=\"breaklabel\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">headroom ~{tools}</text>\n",
        y_of(1.0),
        y_of(0.0),
        y_of(1.0) - 4.0
    )
}

/// One point's marker at (`x`, `y`): a dot for the server order, a square beside it for
/// shuffled, a triangle on its other side for reversed; its `<title>` says the value.
fn marker(p: &StressPoint, (x, y): (f64, f64), colour: &str, who: &str) -> String {
    let mut class = format!("pt {colour} {}", p.order.as_str());
    if p.below {
        class.push_str(" below");
    }
    if !p.complete() || p.provider_errors > 0 {
        class.push_str(" partial");
    }
    let title = format!(
        "<title>{who}{} distractor{}, {}: {} ({}/{})</title>",
        p.distractors,
        if p.distractors == 1 { "" } else { "s" },
        p.order.label(),
        percent(p.accuracy),
        p.correct,
        p.total
    );
    let data = format!(
        "data-distractors=\"{}\" data-order=\"{}\" data-accuracy=\"{}\"",
        p.distractors,
        p.order.as_str(),
        p.accuracy
    );
    match p.order {
        ToolOrder::Server => format!(
            "<circle class=\"{class}\" {data} cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4.5\">{title}</circle>\n"
        ),
        ToolOrder::Shuffled => format!(
            "<rect class=\"{class}\" {data} x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"8\">{title}</rect>\n",
            x + 5.0,
            y - 4.0
        ),
        ToolOrder::Reversed => format!(
            "<polygon class=\"{class}\" {data} points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\">{title}</polygon>\n",
            x - 9.0,
            y - 5.0,
            x - 14.0,
            y + 4.0,
            x - 4.0,
            y + 4.0
        ),
    }
}

/// The key below the drawing: each model's colour, each order's marker, the minimum, each
/// drawn as the chart draws it.
fn legend(view: &StressView<'_>) -> String {
    let swatch = |class: &str, shape: &str| {
        format!(
            "<svg class=\"sw {class}\" viewBox=\"0 0 18 10\" aria-hidden=\"true\">{shape}</svg>"
        )
    };
    let mut items = Vec::new();
    for (i, m) in view.models.iter().enumerate() {
        let name = if view.several {
            one_line(m.model, NAME_CHARS)
        } else {
            "accuracy".to_owned()
        };
        let line = "<line class=\"series\" x1=\"1\" y1=\"5\" x2=\"17\" y2=\"5\"/><circle class=\"pt\" cx=\"9\" cy=\"5\" r=\"3.5\"/>";
        items.push(format!(
            "<li>{}{name}, server order</li>",
            swatch(&format!("s{}", i % COLOURS), line)
        ));
    }
    for order in &view.orders {
        match order {
            ToolOrder::Server => {}
            ToolOrder::Shuffled => items.push(format!(
                "<li>{}shuffled</li>",
                swatch(
                    "s0",
                    "<rect class=\"pt shuffled\" x=\"5\" y=\"1\" width=\"8\" height=\"8\"/>"
                )
            )),
            ToolOrder::Reversed => items.push(format!(
                "<li>{}reversed</li>",
                swatch(
                    "s0",
                    "<polygon class=\"pt reversed\" points=\"9,1 4,9.5 14,9.5\"/>"
                )
            )),
        }
    }
    items.push(format!(
        "<li>{}{}</li>",
        swatch(
            "",
            "<line class=\"min\" x1=\"1\" y1=\"5\" x2=\"17\" y2=\"5\"/>"
        ),
        esc(&view.minimum)
    ));
    format!(
        "<figcaption><ul class=\"legend\">{}</ul></figcaption>\n",
        items.join("")
    )
}
