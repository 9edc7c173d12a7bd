//! What the stress curve measured: per model, the accuracy of the labelled set at each tool list
//! (the server's tools plus N distractors, in an order), and where it first fell below the
//! minimum.

use serde::{Deserialize, Serialize};

use super::CacheUse;

/// The order of the tool list offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOrder {
    /// The server's tools in its order, then the distractors in the order drawn.
    Server,
    /// That list shuffled (seeded by the stress seed and the distractor count).
    Shuffled,
    /// That list reversed: the distractors first, the server's tools last.
    Reversed,
}

impl ToolOrder {
    /// Every order, in the order reports show them.
    pub const ALL: [ToolOrder; 3] = [ToolOrder::Server, ToolOrder::Shuffled, ToolOrder::Reversed];

    /// The word the JSON report and the YAML use: `server`, `shuffled`, `reversed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolOrder::Server => "server",
            ToolOrder::Shuffled => "shuffled",
            ToolOrder::Reversed => "reversed",
        }
    }

    /// How a sentence says a list was in it: `in server order`, `shuffled`, `reversed`.
    pub fn phrase(self) -> &'static str {
        match self {
            ToolOrder::Server => "in server order",
            ToolOrder::Shuffled => "shuffled",
            ToolOrder::Reversed => "reversed",
        }
    }

    /// How reports name it: `server order`, `shuffled`, `reversed`.
    pub fn label(self) -> &'static str {
        match self {
            ToolOrder::Server => "server order",
            ToolOrder::Shuffled => "shuffled",
            ToolOrder::Reversed => "reversed",
        }
    }
}

/// The stress phase's results.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StressResults {
    /// Seed of the distractor draw and of the shuffled order.
    pub seed: u64,
    /// Tools in the bundled distractor corpus.
    pub corpus: usize,
    /// The server's tools offered to the model (those with a valid input schema).
    pub server_tools: usize,
    /// The distractors drawn, in order: the list with N distractors adds the first N.
    pub distractors: Vec<String>,
    /// Corpus tools passed over because a server tool has the same name.
    pub skipped: Vec<String>,
    /// The accuracy the curve is read against (`evals.min_accuracy`).
    pub min_accuracy: f64,
    /// `evals.stress.must_hold`: the run fails when accuracy falls below the minimum at this
    /// many distractors or fewer.
    pub must_hold: Option<usize>,
    /// Answers the curve needed beyond the evals phase: tool lists × cases × trials × models.
    pub answers: usize,
    /// How those answers were found, over every tool list.
    pub cache: CacheUse,
    /// One per model, in the order asked.
    pub models: Vec<StressModel>,
    /// The distractors drawn from real tools (the neighbours' and `distractors_from`
    /// snapshots), which come first in `distractors`.
    #[serde(default)]
    pub real_distractors: usize,
    /// Per model, how many more tools it takes before the Wilson lower bound of accuracy falls
    /// under the minimum (server order).
    #[serde(default)]
    pub headroom: Vec<StressHeadroom>,
}

/// How many more tools a model takes before the Wilson 95% lower bound of its trial accuracy
/// falls under the minimum, read off the curve in server order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StressHeadroom {
    /// Model id.
    pub model: String,
    /// The estimate: the added tools where the bound crosses the minimum, interpolated
    /// between the two counts around the crossing (when not reached: the largest count).
    pub tools: usize,
    /// The last count measured where the bound held (0 when it never did).
    pub low: usize,
    /// The first count measured where it fell under (when not reached: the largest count).
    pub high: usize,
    /// Whether the bound fell under the minimum within the curve.
    pub reached: bool,
}

/// One model's curve.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StressModel {
    /// Model id (empty for a command provider without one).
    pub model: String,
    /// Every tool list measured, by distractor count, then order.
    pub points: Vec<StressPoint>,
    /// Where accuracy first fell below the minimum (the smallest count, any order), when it
    /// did. Lists with answers missing are not read.
    pub breaks_at: Option<StressBreak>,
    /// Whether `must_hold` held (`None` without `must_hold`).
    pub holds: Option<bool>,
}

impl StressHeadroom {
    /// The line every report prints: `headroom: about 35 more tools (25–50) before accuracy
    /// falls under 90% on claude-haiku-4-5`, or `headroom: not reached up to 100 more tools …`.
    pub fn line(&self, min_accuracy: f64) -> String {
        let h = self;
        let minimum = super::rates::percent(min_accuracy);
        let on = if h.model.is_empty() {
            String::new()
        } else {
            format!(" on {}", h.model)
        };
        match (h.reached, h.high) {
            (false, n) => format!(
                "headroom: not reached up to {n} more tools (the Wilson lower bound of accuracy \
                 stays at or above {minimum}{on})"
            ),
            (true, 0) => format!(
                "headroom: none: the Wilson lower bound of accuracy is under {minimum}{on} with no \
                 tool added"
            ),
            (true, high) => format!(
                "headroom: about {} more tools ({}–{high}) before accuracy falls under \
                 {minimum}{on}",
                h.tools, h.low
            ),
        }
    }
}

/// The first tool list whose accuracy fell below the minimum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StressBreak {
    /// Distractors in that list.
    pub distractors: usize,
    /// Its order.
    pub order: ToolOrder,
    /// The accuracy there.
    pub accuracy: f64,
}

/// The labelled set asked with one tool list.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StressPoint {
    /// Distractor tools added.
    pub distractors: usize,
    /// The order of the list.
    pub order: ToolOrder,
    /// Tools offered in all.
    pub tools: usize,
    /// sha256 of the tool list as sent (the cache keys hash it).
    pub tool_list_hash: String,
    /// Cases.
    pub total: usize,
    /// Cases correct on every trial.
    pub correct: usize,
    /// correct / total.
    pub accuracy: f64,
    /// Share of all trials that were correct.
    pub trial_accuracy: f64,
    /// Wilson 95% lower bound of the trial accuracy.
    #[serde(default)]
    pub wilson_lower: f64,
    /// Whether the accuracy is below the minimum.
    pub below: bool,
    /// Cases without every answer (not in the cache under `--offline`, or not asked).
    pub not_run: usize,
    /// Cases whose answer was a provider error.
    pub provider_errors: usize,
    /// Taken from the evals phase, which asked this very list (no answer asked again).
    pub from_evals: bool,
    /// The cases it got wrong, in case order.
    pub misses: Vec<StressMiss>,
}

impl StressPoint {
    /// Whether every case got its answers, so the accuracy means what it says.
    pub fn complete(&self) -> bool {
        self.not_run == 0
    }
}

/// A case a tool list got wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StressMiss {
    /// Case name.
    pub case: String,
    /// The tool the case expects (`(no tool)` for none).
    pub expected: String,
    /// What was picked on the first wrong trial (`(no tool)` for none).
    pub picked: String,
    /// Whether that was one of the distractors.
    pub distractor: bool,
}

impl StressModel {
    /// The point measured at `distractors` in `order`, if it was.
    pub fn point(&self, distractors: usize, order: ToolOrder) -> Option<&StressPoint> {
        self.points
            .iter()
            .find(|p| p.distractors == distractors && p.order == order)
    }
}

impl StressResults {
    /// The distractor counts measured, ascending, each once.
    pub fn counts(&self) -> Vec<usize> {
        let mut counts: Vec<usize> = self
            .models
            .iter()
            .flat_map(|m| m.points.iter().map(|p| p.distractors))
            .collect();
        counts.sort_unstable();
        counts.dedup();
        counts
    }

    /// The orders measured, in [`ToolOrder::ALL`] order.
    pub fn orders(&self) -> Vec<ToolOrder> {
        ToolOrder::ALL
            .into_iter()
            .filter(|o| {
                self.models
                    .iter()
                    .any(|m| m.points.iter().any(|p| p.order == *o))
            })
            .collect()
    }

    /// Whether a model failed `must_hold`.
    pub fn gate_failed(&self) -> bool {
        self.models.iter().any(|m| m.holds == Some(false))
    }

    /// Cases without their answers, over every model and list.
    pub fn not_run(&self) -> usize {
        self.models
            .iter()
            .flat_map(|m| &m.points)
            .map(|p| p.not_run)
            .sum()
    }
}
