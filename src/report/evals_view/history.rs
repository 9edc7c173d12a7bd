//! The miss-rate trend as the reports word it: one line of rates per model, and the warnings
//! (a rising miss rate, history lines that could not be read).

use crate::outcome::cost::usd;
use crate::outcome::rates::percent;
use crate::outcome::{HistoryPoint, HistoryTrend};
use crate::report::escape::plural;

/// The trend, worded. Text is raw: each renderer escapes it.
#[derive(Debug, Clone)]
pub(crate) struct HistoryView<'a> {
    /// The history file.
    pub path: &'a str,
    /// One line per model, in order of first appearance.
    pub lines: Vec<TrendLine<'a>>,
    /// The rising miss rate and unreadable lines, when there are any.
    pub warnings: Vec<String>,
    /// `Cost over the last 3 runs: $0.0210 → $0.0230 → replayed`, one per model whose lines
    /// recorded a cost (`–` for a run that did not, `replayed` for one that asked nothing).
    pub cost_lines: Vec<String>,
}

/// One model's miss rates, oldest first.
#[derive(Debug, Clone)]
pub(crate) struct TrendLine<'a> {
    /// `Miss rate over the last 4 runs`, with the model named when there are several.
    pub label: String,
    /// Each run's miss rate, written.
    pub rates: Vec<String>,
    /// Whether this line is the one that rose (only said when there is one model).
    pub rising: bool,
    /// The runs.
    pub points: Vec<&'a HistoryPoint>,
}

impl TrendLine<'_> {
    /// `Miss rate over the last 4 runs: 2% → 2% → 3% → 4% (rising)`, in every report alike.
    pub(crate) fn text(&self) -> String {
        let mut line = format!("{}: {}", self.label, self.rates.join(" → "));
        if self.rising {
            line.push_str(" (rising)");
        }
        line
    }
}

impl<'a> HistoryView<'a> {
    /// The view of `h`; `passing` says whether this run still passed its gates (the case a
    /// pass/fail verdict alone hides).
    pub(crate) fn new(h: &'a HistoryTrend, passing: bool) -> Self {
        let groups = by_model(h);
        let several = groups.len() > 1;
        let lines = groups
            .iter()
            .map(|(model, points)| {
                let mut label = format!(
                    "Miss rate over the last {} run{}",
                    points.len(),
                    plural(points.len())
                );
                if several {
                    label.push_str(&format!(" ({model})"));
                }
                TrendLine {
                    label,
                    rates: points.iter().map(|p| percent(p.miss_rate)).collect(),
                    rising: h.rising && !several,
                    points: points.clone(),
                }
            })
            .collect();
        let warnings = [rising_warning(h, &groups, passing), skipped_warning(h)]
            .into_iter()
            .flatten()
            .collect();
        let cost_lines = groups
            .iter()
            .filter(|(_, points)| points.iter().any(|p| p.cost_usd.is_some()))
            .map(|(model, points)| {
                let runs: Vec<String> = points
                    .iter()
                    .map(|p| match p.cost_usd {
                        _ if p.replayed => "replayed".to_owned(),
                        Some(cost) => usd(cost),
                        None => "–".to_owned(),
                    })
                    .collect();
                let name = if several {
                    format!(" ({model})")
                } else {
                    String::new()
                };
                format!(
                    "Cost over the last {} run{}{name}: {}",
                    points.len(),
                    plural(points.len()),
                    runs.join(" → ")
                )
            })
            .collect();
        HistoryView {
            path: &h.path,
            lines,
            warnings,
            cost_lines,
        }
    }
}

type Groups<'a> = Vec<(&'a str, Vec<&'a HistoryPoint>)>;

/// The points grouped by model, in order of first appearance, oldest first.
fn by_model(h: &HistoryTrend) -> Groups<'_> {
    let mut groups: Groups<'_> = Vec::new();
    for p in &h.points {
        match groups.iter_mut().find(|(m, _)| *m == p.model) {
            Some((_, list)) => list.push(p),
            None => groups.push((p.model.as_str(), vec![p])),
        }
    }
    groups
}

/// The warning shown when the miss rate rises across the window.
fn rising_warning(h: &HistoryTrend, groups: &Groups<'_>, passing: bool) -> Option<String> {
    if !h.rising {
        return None;
    }
    let rise = |points: &[&HistoryPoint]| {
        let first = points.first().map_or(0.0, |p| p.miss_rate);
        let last = points.last().map_or(0.0, |p| p.miss_rate);
        (last > first).then(|| {
            format!(
                "{} → {} over the last {} runs",
                percent(first),
                percent(last),
                points.len()
            )
        })
    };
    let rises: Vec<String> = match groups.as_slice() {
        [(_, points)] => rise(points).into_iter().collect(),
        groups => groups
            .iter()
            .filter_map(|(model, points)| rise(points).map(|r| format!("{model} {r}")))
            .collect(),
    };
    let mut s = "the miss rate is rising".to_string();
    if !rises.is_empty() {
        s.push_str(": ");
        s.push_str(&rises.join(", "));
    }
    if passing {
        s.push_str(" while the gates still pass");
    }
    s.push_str("; check the rows that started missing, and the tool descriptions and system prompt changed since");
    Some(s)
}

/// The warning for history lines that could not be read.
fn skipped_warning(h: &HistoryTrend) -> Option<String> {
    let n = h.skipped_lines;
    (n > 0).then(|| {
        format!(
            "{n} line{} of {} could not be read and {} skipped",
            plural(n),
            h.path,
            if n == 1 { "was" } else { "were" }
        )
    })
}
