//! The comparison with the base run, as resolved.

/// The comparison with the base run: `--compare-to` > `TOOLPROOF_COMPARE_TO`, and the test's
/// level, effect size and policies (flag > variable > `evals.compare` > default).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CompareSettings {
    /// A branch of the history file or a base run's JSON report; `None`: the pull request's
    /// base branch (`GITHUB_BASE_REF`), when there is one.
    pub to: Option<String>,
    /// Significance level (one-sided).
    pub alpha: f64,
    /// The smallest accuracy drop that is a regression.
    pub min_effect: f64,
    /// What `regressed` does.
    pub on_regression: crate::config::ComparePolicy,
    /// What `inconclusive` does.
    pub on_inconclusive: crate::config::ComparePolicy,
}
