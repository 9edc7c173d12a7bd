//! What the set lint found: findings about the labelled eval cases (each with its rule, its
//! severity and the case's place in the YAML), the rules that could not be checked and why, and
//! the coverage of the tool list by the cases.

use serde::{Deserialize, Serialize};

use super::Severity;

/// The lint phase's results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LintResults {
    /// Whether warnings fail the phase (and infos that strict raises are warnings).
    pub strict: bool,
    /// Rule ids turned off (`evals.lint.disable`).
    pub disabled: Vec<String>,
    /// Rule ids that ran, in order (every rule but the disabled ones).
    pub rules: Vec<String>,
    /// Cases linted.
    pub cases: usize,
    /// Tools the server listed.
    pub tools: usize,
    /// What is wrong with the set, in rule order, then case order.
    pub findings: Vec<LintFinding>,
    /// Rules (or parts of rules) that could not be checked on this run, and why.
    pub not_checked: Vec<NotChecked>,
    /// Which cases cover which tool, the no-tool cases and the contrastive pairs.
    pub coverage: Coverage,
}

impl LintResults {
    /// Findings of a severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    /// Whether a finding fails the phase.
    pub fn fails(&self) -> bool {
        self.findings.iter().any(|f| f.fails)
    }

    /// `1 error, 2 warnings, 3 infos in 9 cases (1 rule not checked)`.
    pub fn counts_text(&self) -> String {
        use super::plural;
        let (e, w, i) = (
            self.count(Severity::Error),
            self.count(Severity::Warning),
            self.count(Severity::Info),
        );
        let mut text = format!(
            "{e} error{}, {w} warning{}, {i} info{} in {} case{}",
            plural(e),
            plural(w),
            plural(i),
            self.cases,
            plural(self.cases)
        );
        let n = self.not_checked.len();
        if n > 0 {
            text.push_str(&format!(" ({n} not checked)"));
        }
        text
    }
}

/// One problem of the set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LintFinding {
    /// Stable rule id, e.g. `unknown-tool`.
    pub id: String,
    /// Error, warning or info (infos that `strict` raises are warnings).
    pub severity: Severity,
    /// What is wrong, one line, naming the case and its place (`file:line`).
    pub message: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Whether it fails the run (errors, and warnings under strict; never an info).
    pub fails: bool,
    /// The case it is about (its name, or its prompt shortened), when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
    /// The tool (or `a + b` for a pair) it is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The file holding the case when it came from `cases_file`; absent for the main config.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The YAML line the finding points at (the case's entry, or the `evals:` key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl LintFinding {
    /// What a reader sees: the message, then `hint: …` on its own line when there is a hint.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match &self.hint {
            Some(hint) => format!("{}\nhint: {hint}", self.message).into(),
            None => self.message.as_str().into(),
        }
    }
}

/// A rule, or part of one, that this run could not check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotChecked {
    /// The rule id.
    pub id: String,
    /// Why not, and what would let it run.
    pub reason: String,
}

/// How the cases cover the tool list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// One entry per tool the server listed, in server order.
    pub tools: Vec<ToolCoverage>,
    /// The cases that expect no tool (`expect_tool: null`).
    pub no_tool: Vec<String>,
    /// Of those, the ambiguous ones (their `why` starts with "ambiguous").
    pub ambiguous: Vec<String>,
    /// Pairs of tools a model may confuse, and whether the cases contrast them.
    pub pairs: Vec<ContrastPair>,
}

impl Coverage {
    /// Tools with at least one case.
    pub fn covered(&self) -> usize {
        self.tools.iter().filter(|t| !t.cases.is_empty()).count()
    }

    /// The no-tool cases' names, each ambiguous one marked `(ambiguous)`.
    pub fn no_tool_labels(&self) -> Vec<String> {
        self.no_tool
            .iter()
            .map(|n| {
                if self.ambiguous.contains(n) {
                    format!("{n} (ambiguous)")
                } else {
                    n.clone()
                }
            })
            .collect()
    }

    /// Pairs with a genuine case on both sides.
    pub fn contrasted(&self) -> usize {
        self.pairs.iter().filter(|p| p.contrasted).count()
    }

    /// `4 of 5 tools have cases; 2 no-tool cases (1 ambiguous); 1 of 2 pairs contrasted`.
    pub fn summary(&self) -> String {
        use super::plural;
        let (n, nt) = (self.tools.len(), self.no_tool.len());
        let mut text = format!(
            "{} of {n} tool{} {} cases; {nt} no-tool case{} ({} ambiguous)",
            self.covered(),
            plural(n),
            if n == 1 { "has" } else { "have" },
            plural(nt),
            self.ambiguous.len()
        );
        if !self.pairs.is_empty() {
            let p = self.pairs.len();
            text.push_str(&format!(
                "; {} of {p} pair{} contrasted",
                self.contrasted(),
                plural(p)
            ));
        }
        text
    }
}

/// The cases expecting one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCoverage {
    /// The tool.
    pub tool: String,
    /// Names of the cases that expect it, in case order.
    pub cases: Vec<String>,
    /// Those of them that quote the tool's name or copy its description.
    pub quoting: Vec<String>,
}

impl ToolCoverage {
    /// Cases that neither quote the name nor copy the description.
    pub fn genuine(&self) -> usize {
        self.cases.len() - self.quoting.len()
    }
}

/// Two tools a model may take for each other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContrastPair {
    /// One tool.
    pub a: String,
    /// The other.
    pub b: String,
    /// Why the pair is listed: `similar-tools 0.85`, `confused in the last run`, or both.
    pub why: String,
    /// Genuine cases expecting `a`.
    pub a_cases: usize,
    /// Genuine cases expecting `b`.
    pub b_cases: usize,
    /// Both sides have a genuine case.
    pub contrasted: bool,
}
