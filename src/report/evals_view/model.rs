//! One model's results as every report words them: its title, the accuracy,
//! trials and counts lines, the gates to list, critical misses, uncached cases, confusion
//! pairs and one row per case.

use super::CONFUSION_SHOWN;
use super::case::CaseRow;
use super::picks::{ToolRow, dominant_lines, rates_lines, tool_rows};
use crate::outcome::rates::{percent, percent_against};
use crate::outcome::{CaseStatus, Confusion, Gate, GateKind, ModelEval, ToolsUnseen};
use crate::report::escape::plural;

/// How a model came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModelOutcome {
    /// Every gate held.
    Passed,
    /// A gate did not hold.
    Failed,
    /// The provider could not be used: nothing was scored.
    Unusable,
    /// The tools never reached the model: what it picked says nothing about them.
    ToolsUnseen,
}

impl ModelOutcome {
    /// Whether the model makes the evals fail.
    pub(crate) fn fails(self) -> bool {
        self != ModelOutcome::Passed
    }
}

/// One model, worded. Text is raw: each renderer escapes it.
#[derive(Debug, Clone)]
pub(crate) struct ModelView<'a> {
    /// Position in the report, from 0.
    pub index: usize,
    /// Model id (may be empty).
    pub model: &'a str,
    /// `Tool-selection evals (<provider> / <model>)`, empty parts left out.
    pub title: String,
    /// How it came out.
    pub outcome: ModelOutcome,
    /// The provider's error, whole, when it could not be used.
    pub error: Option<&'a str>,
    /// `No case was scored: 3 cases not run`, when the provider could not be used.
    pub not_scored: Option<String>,
    /// `90%` (against the minimum), unless nothing was scored.
    pub accuracy: Option<String>,
    /// The accuracy gate, written to be read beside [`Self::accuracy`]: `90%`.
    pub minimum: String,
    /// `9/10`, unless nothing was scored.
    pub correct: Option<String>,
    /// `Accuracy 90% (9/10), minimum 95%`, or why it was not measured.
    pub accuracy_line: String,
    /// Trial accuracy and the Wilson bound, when cases ran more than once or the Wilson gate
    /// is set (and something was scored).
    pub trials_line: Option<String>,
    /// `3 misses (1 critical), 1 provider error, 2 not run`, when not every case was right
    /// (and something was scored).
    pub counts_line: Option<String>,
    /// Every gate, in the order checked.
    pub gates: &'a [Gate],
    /// Failed gates worth listing: none when the provider could not be used, since its error
    /// says everything.
    pub failed_gates: Vec<&'a Gate>,
    /// Critical cases the model got wrong, joined with `, `.
    pub critical_misses: Option<String>,
    /// Cases that got no usable answer from the provider.
    pub provider_errors: usize,
    /// A provider error several cases share, said once: `Provider error on 12 cases: …`
    /// (those rows then refer to it instead of repeating it), most frequent first.
    pub shared_errors: Vec<String>,
    /// Cases without a cached answer under `--offline`, joined with `, `.
    pub uncached: Option<String>,
    /// The confusion pairs shown, most frequent first.
    pub confusion: &'a [Confusion],
    /// The same as `expected → picked ×N`.
    pub confusion_lines: Vec<String>,
    /// `… 2 more pairs` when pairs were left out.
    pub confusion_more: Option<String>,
    /// Every case, in YAML order.
    pub rows: Vec<CaseRow<'a>>,
    /// Per tool its recall and precision, in name order (empty when nothing was scored).
    pub tools: Vec<ToolRow<'a>>,
    /// The abstention and over-trigger rates, each when it has trials (and something was
    /// scored).
    pub rates_lines: Vec<String>,
    /// Every confusion pair that takes more than half the prompts meant for its tool.
    pub dominant: Vec<String>,
    /// Why the tools never reached the model (the server's prompts were smaller than the tool
    /// list alone), when they did not: said loudly, once per model.
    pub tools_unseen: Option<String>,
    /// The comparison with the base run, when the run made one.
    pub comparison: Option<&'a crate::outcome::Comparison>,
    /// `Selection regressed on m: 66% vs 76% on main, p = 0.002; 9 rows flipped right →
    /// wrong`, for a verdict other than `no_base` (said once for the run, see
    /// [`super::EvalsView::no_base`]).
    pub comparison_line: Option<String>,
    /// The crowd's lines (`evals.neighbours`), empty without one.
    pub crowd: Vec<String>,
    /// Whether the comparison failed the model (`on_regression` / `on_inconclusive: fail`).
    pub comparison_failed: bool,
    /// What a comparison of this set with its base can detect (the minimum detectable
    /// effect), and how to make it conclusive when it cannot detect `min_effect`.
    pub detects_line: Option<String>,
}

impl<'a> ModelView<'a> {
    /// The view of `m`, the `index`th model of `provider`'s run.
    pub(crate) fn new(index: usize, provider: &str, m: &'a ModelEval) -> Self {
        let outcome = match (&m.error, m.passed) {
            (Some(_), _) => ModelOutcome::Unusable,
            (None, _) if m.tools_unseen.is_some() => ModelOutcome::ToolsUnseen,
            (None, true) => ModelOutcome::Passed,
            (None, false) => ModelOutcome::Failed,
        };
        let scored = m.error.is_none() && !m.asked_nothing();
        let shown = &m.confusion[..m.confusion.len().min(CONFUSION_SHOWN)];
        let more = m.confusion.len() - shown.len();
        let (accuracy, minimum) = percent_against(m.accuracy, m.min_accuracy);
        let mut rows: Vec<CaseRow<'a>> = m.cases.iter().map(|c| CaseRow::new(m, c)).collect();
        let shared_errors = share_errors(&mut rows);
        ModelView {
            index,
            model: &m.model,
            title: title(provider, &m.model),
            outcome,
            error: m.error.as_deref(),
            not_scored: (!scored).then(|| {
                let n = m.cases.len();
                let why = if m.error.is_none() {
                    " (no case was asked)"
                } else {
                    ""
                };
                format!("No case was scored: {n} case{} not run{why}", plural(n))
            }),
            accuracy: scored.then_some(accuracy),
            minimum,
            correct: scored.then(|| format!("{}/{}", m.correct, m.total)),
            accuracy_line: accuracy_line(m),
            trials_line: trials_line(m).filter(|_| scored),
            counts_line: counts_line(m).filter(|_| scored),
            gates: &m.gates,
            // `tools_unseen` says the `tools_shown` gate's detail, once; a model asked nothing
            // still shows the gate that says why.
            failed_gates: m
                .gates
                .iter()
                .filter(|g| !g.passed && m.error.is_none() && g.kind != GateKind::ToolsShown)
                .collect(),
            critical_misses: joined(&m.critical_misses),
            provider_errors: m.provider_errors,
            shared_errors,
            uncached: joined(&m.uncached),
            confusion: shown,
            confusion_lines: shown
                .iter()
                .map(|p| format!("{} → {} ×{}", p.expected, p.picked, p.count))
                .collect(),
            confusion_more: (more > 0).then(|| format!("… {more} more pair{}", plural(more))),
            rows,
            tools: if scored { tool_rows(m) } else { Vec::new() },
            rates_lines: if scored { rates_lines(m) } else { Vec::new() },
            dominant: if scored {
                dominant_lines(m)
            } else {
                Vec::new()
            },
            tools_unseen: m.tools_unseen.as_ref().map(ToolsUnseen::text),
            comparison: m.comparison.as_ref(),
            comparison_line: m
                .comparison
                .as_ref()
                .filter(|c| c.verdict != crate::outcome::Verdict::NoBase)
                .map(|c| c.sentence(&m.model)),
            crowd: m
                .crowd
                .as_ref()
                .map(super::crowd::lines)
                .unwrap_or_default(),
            comparison_failed: m
                .gates
                .iter()
                .any(|g| g.kind == GateKind::Comparison && !g.passed),
            detects_line: None,
        }
    }

    /// Rows that missed (provider errors not included), critical ones first, otherwise in case
    /// order.
    pub(crate) fn misses(&self) -> Vec<&CaseRow<'a>> {
        let mut misses: Vec<&CaseRow<'a>> = self.rows_with(CaseStatus::Miss).collect();
        misses.sort_by_key(|r| !r.critical);
        misses
    }

    /// Rows with `status`, in case order.
    pub(crate) fn rows_with(&self, status: CaseStatus) -> impl Iterator<Item = &CaseRow<'a>> {
        self.rows.iter().filter(move |r| r.status == status)
    }

    /// Names of the misses and provider errors of a model that still passed its gates.
    pub(crate) fn tolerated(&self) -> Vec<&'a str> {
        if self.outcome.fails() {
            return Vec::new();
        }
        self.rows
            .iter()
            .filter(|r| matches!(r.status, CaseStatus::Miss | CaseStatus::ProviderError))
            .map(|r| r.name)
            .collect()
    }
}

/// Says a provider error that several rows share once: each such row's details refer to the
/// line returned for it (`Provider error on 12 cases: …`), most frequent first. A row's
/// `message` keeps the error (a JUnit testcase carries its own).
fn share_errors(rows: &mut [CaseRow<'_>]) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for row in rows
        .iter()
        .filter(|r| r.status == CaseStatus::ProviderError)
    {
        match counts.iter_mut().find(|(m, _)| *m == row.message) {
            Some(seen) => seen.1 += 1,
            None => counts.push((row.message.clone(), 1)),
        }
    }
    counts.retain(|(_, n)| *n > 1);
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    for row in rows
        .iter_mut()
        .filter(|r| r.status == CaseStatus::ProviderError)
    {
        if let Some((_, n)) = counts.iter().find(|(m, _)| *m == row.message) {
            let short = format!(
                "provider error shared by {n} cases (said once: \"Provider error on {n} cases\")"
            );
            for details in [&mut row.details, &mut row.details_with_why] {
                if let Some(first) = details.iter_mut().find(|d| **d == row.message) {
                    first.clone_from(&short);
                }
            }
        }
    }
    counts
        .into_iter()
        .map(|(message, n)| {
            let what = message.strip_prefix("provider error: ").unwrap_or(&message);
            format!("Provider error on {n} cases: {what}")
        })
        .collect()
}

fn joined(names: &[String]) -> Option<String> {
    (!names.is_empty()).then(|| names.join(", "))
}

/// `Tool-selection evals (<provider> / <model>)`, empty parts left out.
fn title(provider: &str, model: &str) -> String {
    let parts: Vec<&str> = [provider, model]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    if parts.is_empty() {
        "Tool-selection evals".into()
    } else {
        format!("Tool-selection evals ({})", parts.join(" / "))
    }
}

/// `Accuracy 90% (9/10), minimum 95%`; says so when nothing could be measured.
fn accuracy_line(m: &ModelEval) -> String {
    let (value, min) = percent_against(m.accuracy, m.min_accuracy);
    if m.error.is_some() {
        let n = m.cases.len();
        return format!(
            "Accuracy not measured: the provider could not be used ({n} case{} not run), minimum {min}",
            plural(n)
        );
    }
    if m.total == 0 {
        return format!("Accuracy not measured: no cases, minimum {min}");
    }
    if m.tools_unseen.is_some() {
        return format!(
            "Accuracy not counted: the tools never reached the model ({value} ({}/{}) without them), minimum {min}",
            m.correct, m.total
        );
    }
    if m.asked_nothing() {
        let n = m.cases.len();
        return format!(
            "Accuracy not measured: no case was asked ({n} case{} not run), minimum {min}",
            plural(n)
        );
    }
    format!(
        "Accuracy {value} ({}/{}), minimum {min}",
        m.correct, m.total
    )
}

/// `Trials: 3 per case, 26/30 correct (86.7%), Wilson 95% lower bound 70.3%, minimum 60%`,
/// when cases ran more than once or the Wilson gate is set.
fn trials_line(m: &ModelEval) -> Option<String> {
    if m.trials < 2 && m.min_wilson_lower.is_none() {
        return None;
    }
    let run: usize = m.cases.iter().map(|c| c.trials.len()).sum();
    let ok: usize = m
        .cases
        .iter()
        .map(|c| c.trials.iter().filter(|t| t.passed).count())
        .sum();
    let same = m.cases.iter().all(|c| c.trials.len() == m.trials as usize);
    let up_to = if same { "" } else { "up to " };
    let (wilson, min) = percent_against(m.wilson_lower, m.min_wilson_lower.unwrap_or(0.0));
    let mut line = format!(
        "Trials: {up_to}{} per case, {ok}/{run} correct ({}), Wilson 95% lower bound {wilson}",
        m.trials,
        percent(m.trial_accuracy),
    );
    if m.min_wilson_lower.is_some() {
        line.push_str(&format!(", minimum {min}"));
    }
    Some(line)
}

/// `3 misses (1 critical), 1 provider error (…), 2 not run`: misses always, the rest when
/// there are any. `None` when every case was right.
fn counts_line(m: &ModelEval) -> Option<String> {
    let count = |status| m.cases.iter().filter(|c| c.status == status).count();
    let (misses, errors, not_run) = (
        count(CaseStatus::Miss),
        count(CaseStatus::ProviderError),
        count(CaseStatus::NotRun),
    );
    if misses + errors + not_run == 0 {
        return None;
    }
    let mut s = format!("{misses} miss{}", if misses == 1 { "" } else { "es" });
    if !m.critical_misses.is_empty() {
        s.push_str(&format!(" ({} critical)", m.critical_misses.len()));
    }
    if errors > 0 {
        s.push_str(&format!(
            ", {errors} provider error{} (no usable answer after retries; not a model miss)",
            plural(errors)
        ));
    }
    if not_run > 0 {
        s.push_str(&format!(", {not_run} not run"));
    }
    Some(s)
}

/// `Sensitivity: a comparison with the base detects a drop of 9.3% (α 0.05, 80% power)`, from
/// the comparison's own base rows when it made one, else from the plan's; then, for a set
/// that cannot detect `min_effect`, what would make it.
pub(crate) fn detects_line(
    plan: Option<&crate::outcome::ModelPlan>,
    comparison: Option<&crate::outcome::Comparison>,
) -> Option<String> {
    let mut plan = plan?.clone();
    if let Some(mde) = comparison.and_then(|c| c.mde) {
        plan.mde = mde;
    }
    let mut line = format!("Sensitivity: a comparison with the base {}", plan.detects());
    if plan.mde > plan.min_effect {
        line.push_str(&format!(
            ", more than evals.compare.min_effect ({})",
            crate::outcome::pct(plan.min_effect)
        ));
        if let Some(hint) = &plan.hint {
            line.push_str(&format!("; {hint}"));
        }
    }
    Some(line)
}
