//! The set lint: the labelled eval cases checked against the server's tool list, with no model.
//! One rule, one id ([`crate::config::vocab::set_lint`]); [`run`] is pure over its [`LintInput`]
//! (the caller reads the history file and the cached answers), and returns the findings, the
//! rules it could not check, and the coverage table.
//!
//! Definitions the rules share (the README says the same):
//! - a case *quotes* a tool when its prompt holds the tool's name as words (`get_weather`,
//!   `get-weather`, `getWeather` and "get weather" all read as `get weather`; names of one word
//!   never count, they are ordinary words), or *copies* its description: at least half of the
//!   prompt's word trigrams occur in the description ([`text`]);
//! - a *genuine* case of a tool expects it and neither quotes nor copies it;
//! - a pair of tools is *contrasted* when each side has a genuine case; the pairs are those the
//!   `similar-tools` check flags at `checks.similarity_threshold`, and those the model confused
//!   (expected one, picked the other) in the last run of the history file;
//! - an *ambiguous* case expects no tool and its `why` starts with "ambiguous" (any case,
//!   after leading spaces): the article's convention for "must ask, not guess".

mod args;
mod choice;
mod context;
mod coverage;
mod labels;
mod review;
mod text;
mod trials;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::config::vocab::LINT_RULE_IDS;
use crate::config::{EvalCase, ToolChoice};
use crate::evals::asking::engine::case_name;
use crate::evals::judging::history::LastRun;
use crate::mcp::types::Tool;
use crate::outcome::{LintFinding, LintResults, NotChecked, Severity};

#[cfg(test)]
pub(crate) use trials::Tally;
pub(crate) use trials::{Outcomes, cached_outcomes, run_outcomes};

/// What the lint looks at besides the cases and the tools.
#[derive(Debug, Clone)]
pub(crate) struct LintInput<'a> {
    /// The labelled cases, in order (inline first, then `cases_file`).
    pub cases: &'a [EvalCase],
    /// The server's tools, in server order.
    pub tools: &'a [Tool],
    /// The config file as given (cases without a `file` are in it).
    pub config_file: &'a Path,
    /// The line of the `evals:` key: where findings about no case point.
    pub evals_line: Option<u32>,
    /// The tool choice the evals send, and where it was set (`evals.tool_choice`,
    /// `--tool-choice`, `params.tool_choice`…); named tools by their MCP name.
    pub tool_choice: Option<(ToolChoice, String)>,
    /// `checks.similarity_threshold`: pairs at or above it want contrastive cases.
    pub similarity_threshold: f64,
    /// The history file's last recorded run.
    pub history: History,
    /// Trial outcomes per model and case, for `flipped-critical`.
    pub outcomes: Outcomes,
    /// Warnings fail, and the advice rules are warnings.
    pub strict: bool,
    /// Rule ids turned off.
    pub disable: &'a [String],
}

/// What the history file told the lint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum History {
    /// No history file was given.
    NotGiven,
    /// It could not be read.
    Unreadable(String),
    /// It holds no run yet.
    Empty,
    /// Its last recorded run.
    Run(LastRun),
}

/// Lints `input.cases` and returns the phase's results.
pub(crate) fn run(input: &LintInput<'_>) -> LintResults {
    let mut out = Sink::new(input);
    labels::check(input, &mut out);
    args::check(input, &mut out);
    let coverage = coverage::check(input, &mut out);
    trials::check(input, &mut out);
    choice::check(input, &mut out);
    context::check(input, &mut out);
    review::check(input, &mut out);
    let order = |id: &str| LINT_RULE_IDS.iter().position(|r| *r == id);
    out.findings.sort_by_key(|f| order(&f.id));
    LintResults {
        strict: input.strict,
        disabled: input.disable.to_vec(),
        rules: LINT_RULE_IDS
            .iter()
            .filter(|id| !input.disable.iter().any(|d| d == *id))
            .map(|id| (*id).to_owned())
            .collect(),
        cases: input.cases.len(),
        tools: input.tools.len(),
        findings: out.findings,
        not_checked: out.not_checked,
        coverage,
    }
}

/// Where a finding points and what it is about.
#[derive(Debug, Clone, Default)]
struct At {
    case: Option<String>,
    tool: Option<String>,
    file: Option<String>,
    line: Option<u32>,
}

impl At {
    /// The case's entry.
    fn case(case: &EvalCase) -> At {
        At {
            case: Some(case_name(case)),
            tool: None,
            file: case.file.as_ref().map(|f| f.display().to_string()),
            line: case.line,
        }
    }

    /// The `evals:` key of the main config.
    fn evals(input: &LintInput<'_>) -> At {
        At {
            line: input.evals_line,
            ..At::default()
        }
    }

    fn tool(mut self, tool: impl Into<String>) -> At {
        self.tool = Some(tool.into());
        self
    }
}

/// `case "NAME" (file:line)`, as messages name a case.
fn named(case: &EvalCase, input: &LintInput<'_>) -> String {
    format!("case {:?} ({})", case_name(case), place(case, input))
}

/// `file:line` of a case (its `cases_file`, else the config).
fn place(case: &EvalCase, input: &LintInput<'_>) -> String {
    let file = case.file.as_deref().unwrap_or(input.config_file).display();
    match case.line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_string(),
    }
}

/// Collects findings: drops disabled rules, raises advice under strict, decides what fails.
struct Sink {
    strict: bool,
    disabled: Vec<String>,
    findings: Vec<LintFinding>,
    not_checked: Vec<NotChecked>,
}

impl Sink {
    fn new(input: &LintInput<'_>) -> Sink {
        Sink {
            strict: input.strict,
            disabled: input.disable.to_vec(),
            findings: Vec::new(),
            not_checked: Vec::new(),
        }
    }

    fn enabled(&self, id: &str) -> bool {
        !self.disabled.iter().any(|d| d == id)
    }

    fn add(&mut self, id: &str, severity: Severity, message: String, hint: String, at: At) {
        if !self.enabled(id) {
            return;
        }
        let severity = match severity {
            Severity::Info if self.strict => Severity::Warning,
            other => other,
        };
        let fails = severity == Severity::Error || (self.strict && severity == Severity::Warning);
        self.findings.push(LintFinding {
            id: id.to_owned(),
            severity,
            message,
            hint: Some(hint),
            fails,
            case: at.case,
            tool: at.tool,
            file: at.file,
            line: at.line,
        });
    }

    fn not_checked(&mut self, id: &str, reason: String) {
        if self.enabled(id) {
            self.not_checked.push(NotChecked {
                id: id.to_owned(),
                reason,
            });
        }
    }
}

/// A list of names for a message: the first `max`, then `and N more`.
fn listed<S: AsRef<str>>(names: &[S], max: usize) -> String {
    let mut shown: Vec<&str> = names.iter().take(max).map(AsRef::as_ref).collect();
    let more;
    if names.len() > max {
        more = format!("and {} more", names.len() - max);
        shown.push(&more);
    }
    shown.join(", ")
}
