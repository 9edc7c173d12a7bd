//! The evals badge for a README (`--badge`): the tool-selection accuracy and the evals'
//! verdict, as a shields.io-style flat SVG or as a shields.io endpoint JSON
//! (`https://img.shields.io/endpoint?url=…` draws it). Several models show the lowest accuracy.
//!
//! | evals            | message        | colour      |
//! |------------------|----------------|-------------|
//! | every gate held  | `92%`          | brightgreen |
//! | a gate failed    | `62% failing`  | red         |
//! | could not run    | `error`        | lightgrey   |
//! | not run          | `not run`      | lightgrey   |

use serde_json::json;

use crate::outcome::rates::percent;
use crate::outcome::{EvalsResults, Phase, PhaseStatus, RunReport};

/// The left-hand text.
pub(crate) const LABEL: &str = "tool selection";

/// What a badge says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Badge {
    /// The left-hand text.
    pub label: &'static str,
    /// The right-hand text: the accuracy and, unless the evals passed, the verdict.
    pub message: String,
    /// A shields.io colour name.
    pub color: &'static str,
    /// The evals' verdict: `passed`, `failing`, `error` or `not run`.
    pub verdict: &'static str,
}

impl Badge {
    /// The badge of a report's evals.
    pub(crate) fn of(report: &RunReport) -> Badge {
        let phase: &Phase<Option<EvalsResults>> = &report.phases.evals;
        let lowest = phase
            .results
            .as_ref()
            .and_then(|r| {
                r.models
                    .iter()
                    .filter(|m| m.error.is_none() && m.tools_unseen.is_none() && m.total > 0)
                    .map(|m| m.accuracy)
                    .min_by(f64::total_cmp)
            })
            .filter(|a| a.is_finite());
        let (verdict, color) = match (phase.status, lowest) {
            (PhaseStatus::Passed, Some(_)) => ("passed", "brightgreen"),
            (PhaseStatus::Failed, Some(_)) => ("failing", "red"),
            (PhaseStatus::Skipped, _) => ("not run", "lightgrey"),
            _ => ("error", "lightgrey"),
        };
        let message = match (verdict, lowest) {
            ("passed", Some(a)) => percent(a),
            ("failing", Some(a)) => format!("{} failing", percent(a)),
            _ => verdict.to_owned(),
        };
        Badge {
            label: LABEL,
            message,
            color,
            verdict,
        }
    }

    /// The shields.io endpoint JSON (schema version 1), with a trailing newline.
    pub(crate) fn endpoint(&self) -> String {
        let value = json!({
            "schemaVersion": 1,
            "label": self.label,
            "message": self.message,
            "color": self.color,
        });
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        text
    }

    /// A flat shields.io-style SVG, 20 pixels high, with a trailing newline.
    pub(crate) fn svg(&self) -> String {
        let fill = match self.color {
            "brightgreen" => "#4c1",
            "red" => "#e05d44",
            _ => "#9f9f9f",
        };
        let (label, message) = (xml(self.label), xml(&self.message));
        let lw = text_width(self.label) + 10;
        let mw = text_width(&self.message) + 10;
        let w = lw + mw;
        // Text is drawn at 10× and scaled down, as shields.io does, for sub-pixel placement.
        let (lx, mx) = (lw * 5, lw * 10 + mw * 5);
        let (ltl, mtl) = ((lw - 10) * 10, (mw - 10) * 10);
        format!(
            concat!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"20\" role=\"img\" aria-label=\"{label}: {message}\">",
                "<title>{label}: {message}</title>",
                "<linearGradient id=\"s\" x2=\"0\" y2=\"100%\"><stop offset=\"0\" stop-color=\"#bbb\" stop-opacity=\".1\"/><stop offset=\"1\" stop-opacity=\".1\"/></linearGradient>",
                "<clipPath id=\"r\"><rect width=\"{w}\" height=\"20\" rx=\"3\" fill=\"#fff\"/></clipPath>",
                "<g clip-path=\"url(#r)\"><rect width=\"{lw}\" height=\"20\" fill=\"#555\"/><rect x=\"{lw}\" width=\"{mw}\" height=\"20\" fill=\"{fill}\"/><rect width=\"{w}\" height=\"20\" fill=\"url(#s)\"/></g>",
                "<g fill=\"#fff\" text-anchor=\"middle\" font-family=\"Verdana,Geneva,DejaVu Sans,sans-serif\" text-rendering=\"geometricPrecision\" font-size=\"110\">",
                "<text aria-hidden=\"true\" x=\"{lx}\" y=\"150\" fill=\"#010101\" fill-opacity=\".3\" transform=\"scale(.1)\" textLength=\"{ltl}\">{label}</text>",
                "<text x=\"{lx}\" y=\"140\" transform=\"scale(.1)\" fill=\"#fff\" textLength=\"{ltl}\">{label}</text>",
                "<text aria-hidden=\"true\" x=\"{mx}\" y=\"150\" fill=\"#010101\" fill-opacity=\".3\" transform=\"scale(.1)\" textLength=\"{mtl}\">{message}</text>",
                "<text x=\"{mx}\" y=\"140\" transform=\"scale(.1)\" fill=\"#fff\" textLength=\"{mtl}\">{message}</text>",
                "</g></svg>\n"
            ),
            w = w,
            lw = lw,
            mw = mw,
            fill = fill,
            lx = lx,
            mx = mx,
            ltl = ltl,
            mtl = mtl,
            label = label,
            message = message,
        )
    }
}

/// Text escaped for XML content and attributes, control characters dropped.
fn xml(text: &str) -> String {
    let kept: String = text.chars().filter(|c| !c.is_control()).collect();
    crate::report::escape::markup(&kept).into_owned()
}

/// The width of `text` in 11 px Verdana, in whole pixels (the advance widths shields.io's
/// badges are laid out with, for the characters a badge here can hold; others as a `m`).
fn text_width(text: &str) -> usize {
    let tenths: usize = text
        .chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' => 30,
            ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' => 42,
            '0'..='9' | 'a'..='e' | 'g' | 'h' | 'k' | 'n'..='q' | 's' | 'u' | 'v' | 'x'..='z' => 68,
            '%' => 119,
            'm' | 'w' | 'M' | 'W' => 106,
            'A'..='Z' => 78,
            _ => 106,
        })
        .sum();
    tenths.div_ceil(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_json_is_the_shields_schema() {
        let b = Badge {
            label: LABEL,
            message: "92%".into(),
            color: "brightgreen",
            verdict: "passed",
        };
        let v: serde_json::Value = serde_json::from_str(&b.endpoint()).unwrap();
        assert_eq!(
            v,
            json!({"schemaVersion": 1, "label": "tool selection", "message": "92%",
                "color": "brightgreen"})
        );
    }

    #[test]
    fn the_svg_escapes_and_widens_with_its_text() {
        let short = Badge {
            label: LABEL,
            message: "9%".into(),
            color: "red",
            verdict: "failing",
        };
        let long = Badge {
            message: "100% failing <&>".into(),
            ..short.clone()
        };
        let width = |svg: &str| -> usize {
            let at = svg.find("width=\"").unwrap() + 7;
            svg[at..].split('"').next().unwrap().parse().unwrap()
        };
        assert!(width(&long.svg()) > width(&short.svg()));
        assert!(long.svg().contains("100% failing &lt;&amp;&gt;"));
        assert!(!long.svg().contains("<&>"));
        assert!(short.svg().contains("fill=\"#e05d44\""));
    }
}
