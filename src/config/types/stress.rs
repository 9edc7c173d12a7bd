//! `evals.stress`: the tool-count stress curve's lists.

use std::path::PathBuf;

use serde::Deserialize;

use super::yes;

/// `evals.stress`: the labelled set asked again with distractor tools added to the server's,
/// and with the tool list in other orders. `stress: true` is short for `stress: {}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StressConfig {
    /// Run the curve in `run` and `eval` (`--stress` / `--no-stress` override it).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// How many distractor tools to add, one tool list per count.
    #[serde(default = "default_distractors")]
    pub distractors: Vec<u32>,
    /// The orders to compare: the server's order always runs at every count; `shuffled` and
    /// `reversed` run at the counts of `orders_at`.
    #[serde(default = "default_orders")]
    pub orders: Vec<StressOrder>,
    /// The distractor counts at which the other orders run (default: the smallest and the
    /// largest of `distractors`).
    #[serde(default)]
    pub orders_at: Option<Vec<u32>>,
    /// Seed of the distractor draw and of the shuffled order. Changing it changes every tool
    /// list, so every cached stress answer.
    #[serde(default)]
    pub seed: u64,
    /// Fail the run when accuracy falls below `min_accuracy` at this many distractors or fewer
    /// (without it the curve is a measurement and never fails the run).
    #[serde(default)]
    pub must_hold: Option<u32>,
    /// Snapshots (`toolproof inspect --save-tools`) whose tools are drawn as distractors
    /// before the bundled corpus, after the neighbours' (toolproof's own), relative to the YAML.
    #[serde(default)]
    pub distractors_from: Vec<PathBuf>,
    /// The snapshots `distractors_from` names, read by the loader.
    #[serde(skip)]
    pub distractor_snapshots: Vec<super::ToolSnapshot>,
}

impl Default for StressConfig {
    /// What `stress: true` and `--stress` without a section mean.
    fn default() -> Self {
        Self {
            enabled: true,
            distractors: default_distractors(),
            orders: default_orders(),
            orders_at: None,
            seed: 0,
            must_hold: None,
            distractors_from: Vec::new(),
            distractor_snapshots: Vec::new(),
        }
    }
}

/// An order of the tool list offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StressOrder {
    /// The server's tools in its order, then the distractors.
    Server,
    /// The whole list shuffled (seeded).
    Shuffled,
    /// The whole list reversed.
    Reversed,
}

fn default_distractors() -> Vec<u32> {
    vec![0, 10, 25, 50, 100]
}

fn default_orders() -> Vec<StressOrder> {
    vec![
        StressOrder::Server,
        StressOrder::Shuffled,
        StressOrder::Reversed,
    ]
}
