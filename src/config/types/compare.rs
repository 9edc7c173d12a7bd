//! `evals.compare:` (toolproof's own): how a run is judged against its base run.

use serde::Deserialize;

/// `evals.compare:` (toolproof's own): how a run is judged against its base run.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareConfig {
    /// Significance level of the one-sided paired test.
    #[serde(default = "default_compare_alpha")]
    pub alpha: f64,
    /// The smallest drop in accuracy (0..1) that counts as a regression.
    #[serde(default = "default_compare_min_effect")]
    pub min_effect: f64,
    /// What a `regressed` verdict does.
    #[serde(default = "ComparePolicy::fail")]
    pub on_regression: ComparePolicy,
    /// What an `inconclusive` verdict does.
    #[serde(default = "ComparePolicy::warn")]
    pub on_inconclusive: ComparePolicy,
}

impl Default for CompareConfig {
    fn default() -> Self {
        CompareConfig {
            alpha: default_compare_alpha(),
            min_effect: default_compare_min_effect(),
            on_regression: ComparePolicy::Fail,
            on_inconclusive: ComparePolicy::Warn,
        }
    }
}

fn default_compare_alpha() -> f64 {
    0.05
}
fn default_compare_min_effect() -> f64 {
    0.02
}

/// `evals.compare.on_regression` / `on_inconclusive`: fail the run or only say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComparePolicy {
    /// The evals fail (exit 1).
    Fail,
    /// A warning; the gate holds.
    Warn,
}

impl ComparePolicy {
    fn fail() -> Self {
        ComparePolicy::Fail
    }
    fn warn() -> Self {
        ComparePolicy::Warn
    }
    /// `fail` or `warn` (`--on-regression`, `TOOLPROOF_ON_REGRESSION`…).
    pub fn parse(text: &str) -> Result<ComparePolicy, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "fail" => Ok(ComparePolicy::Fail),
            "warn" => Ok(ComparePolicy::Warn),
            other => Err(format!("`{other}` is not fail or warn")),
        }
    }
}
