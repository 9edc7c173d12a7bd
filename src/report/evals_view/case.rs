//! One labelled case as a report row: its status as scored, what was expected and picked,
//! a one-line message and the detail lines.

use super::answer::{expected_text, picked_lines, picked_names, trial_picks};
use super::{ARGS_CHARS, LONG_ARGS_CHARS, NO_TOOL};
use crate::outcome::{AnswerKind, CaseStatus, EvalCaseResult, ModelEval, TrialResult};
use crate::report::escape::truncate_chars;

/// Longest text of a text-only answer quoted in the details, in characters.
const SAID_CHARS: usize = 120;

/// One case, worded. Text is raw: each renderer escapes it.
#[derive(Debug, Clone)]
pub(crate) struct CaseRow<'a> {
    /// How the case ended, as scored (never re-decided here).
    pub status: CaseStatus,
    /// Name.
    pub name: &'a str,
    /// The prompt.
    pub prompt: &'a str,
    /// Must be right on every trial.
    pub critical: bool,
    /// Why the case exists.
    pub why: Option<&'a str>,
    /// The file holding the case, when not the main config.
    pub file: Option<&'a str>,
    /// YAML line.
    pub line: Option<u32>,
    /// The expected tool's name; `None` when the case expects no tool.
    pub expect_tool: Option<&'a str>,
    /// Expected tool with its arguments, cut for a table.
    pub expected: String,
    /// The same with longer arguments, for a report body.
    pub expected_long: String,
    /// What the shown trial picked, one line per call, cut for a table.
    pub picked: Vec<String>,
    /// The same with longer arguments.
    pub picked_long: Vec<String>,
    /// One line saying how the case ended: `expected X, got Y`, the provider error, or why it
    /// was not run.
    pub message: String,
    /// Detail lines: failures (or the provider error, or why it was not run), a critical
    /// note, several calls, what a text or cut-off answer said, what could not be checked,
    /// the trials with every trial's pick, cache.
    pub details: Vec<String>,
    /// [`Self::details`] with `why: …` after the failures of a miss.
    pub details_with_why: Vec<String>,
    /// `2/3 trials, ambiguous`, for cases asked more than once.
    pub trials_note: Option<String>,
    /// Whether the model was asked at all (some trial got an answer or a provider error).
    pub asked: bool,
    /// Time spent asking, all trials together.
    pub latency_ms: f64,
    /// `after 3 turns`, when the case carries a conversation before its prompt.
    pub context_summary: Option<String>,
    /// That conversation, one line per turn.
    pub context: Vec<String>,
}

impl<'a> CaseRow<'a> {
    /// The row of `case` in `m`'s results.
    pub(crate) fn new(m: &ModelEval, case: &'a EvalCaseResult) -> Self {
        let trial = shown_trial(case);
        let message = message(m, case, trial);
        let trials_note = trials_note(case);
        let trials_line = trials_line(case, trials_note.as_deref());
        let (details, details_with_why) = details(case, trial, &message, trials_line);
        let picked =
            |max| trial.map_or_else(|| vec!["(not asked)".into()], |t| picked_lines(t, max));
        CaseRow {
            status: case.status,
            name: &case.name,
            prompt: &case.prompt,
            critical: case.critical,
            why: case.why.as_deref(),
            file: case.file.as_deref(),
            line: case.line,
            expect_tool: case.expect_tool.as_deref(),
            expected: expected_text(case, ARGS_CHARS),
            expected_long: expected_text(case, LONG_ARGS_CHARS),
            picked: picked(ARGS_CHARS),
            picked_long: picked(LONG_ARGS_CHARS),
            message,
            details,
            details_with_why,
            trials_note,
            asked: asked(case),
            latency_ms: case.trials.iter().map(|t| t.latency_ms).sum(),
            context_summary: super::context::summary(&case.context),
            context: super::context::lines(&case.context),
        }
    }
}

/// The trial a report shows: the first wrong one when the case was not correct, else the
/// first.
fn shown_trial(case: &EvalCaseResult) -> Option<&TrialResult> {
    if case.status == CaseStatus::Correct {
        return case.trials.first();
    }
    case.trials
        .iter()
        .find(|t| !t.passed)
        .or_else(|| case.trials.first())
}

/// Whether the model was asked about the case at all.
fn asked(case: &EvalCaseResult) -> bool {
    case.trials.iter().any(|t| t.kind != AnswerKind::NotAsked)
}

fn message(m: &ModelEval, case: &EvalCaseResult, trial: Option<&TrialResult>) -> String {
    match case.status {
        CaseStatus::ProviderError => {
            let why = trial
                .and_then(|t| t.provider_error.as_deref())
                .unwrap_or("no usable answer");
            format!("provider error: {why}")
        }
        CaseStatus::NotRun => not_run_reason(m, case),
        CaseStatus::Correct | CaseStatus::Miss => {
            let expected = case.expect_tool.as_deref().unwrap_or(NO_TOOL);
            let got = trial.map_or_else(|| "(not asked)".into(), picked_names);
            let mut text = format!("expected {expected}, got {got}");
            // With the expected tool among the picks, the names alone don't say what was wrong.
            let picked_expected = trial.is_some_and(|t| {
                t.calls
                    .iter()
                    .any(|c| Some(c.tool.as_str()) == case.expect_tool.as_deref())
            });
            if picked_expected && let Some(first) = trial.and_then(|t| t.failures.first()) {
                text.push_str(": ");
                text.push_str(first);
            }
            text
        }
    }
}

/// Why a case was not run: never "missed", since the model was not asked (or its answer did
/// not count).
fn not_run_reason(m: &ModelEval, case: &EvalCaseResult) -> String {
    if m.error.is_some() && asked(case) {
        "not counted: the provider could not be used for every case".into()
    } else if m.error.is_some() {
        "not run: the provider could not be used".into()
    } else if m.uncached.iter().any(|n| n == &case.name) {
        "not run: no cached answer and --offline".into()
    } else {
        "not run".into()
    }
}

/// What a text answer, a refusal or a cut-off answer said, on one line (whitespace runs,
/// newlines included, become one space) and shortened: `said: …`, `said before the cut-off: …`.
fn said(t: &TrialResult) -> Option<String> {
    let lead = match t.kind {
        AnswerKind::TextOnly | AnswerKind::Refusal => "said",
        AnswerKind::Truncated => "said before the cut-off",
        _ => return None,
    };
    let text = t.text.as_deref()?.split_whitespace().collect::<Vec<_>>();
    (!text.is_empty()).then(|| format!("{lead}: {}", truncate_chars(&text.join(" "), SAID_CHARS)))
}

/// `2/3 trials`, with `, ambiguous` when the case was both right and wrong; only for cases
/// asked more than once.
fn trials_note(case: &EvalCaseResult) -> Option<String> {
    if case.trials.len() < 2 || !asked(case) {
        return None;
    }
    let passed = case.trials.iter().filter(|t| t.passed).count();
    let mut note = format!("{passed}/{} trials", case.trials.len());
    if case.ambiguous {
        note.push_str(", ambiguous");
    }
    Some(note)
}

/// The trials line of the details: [`trials_note`], then every trial's pick when the case was
/// wrong on some trial or did not pick the same every time: `0/3 trials: picked get_order ×2
/// (2 calls), get_weather ×1`.
fn trials_line(case: &EvalCaseResult, note: Option<&str>) -> Option<String> {
    let note = note?;
    let Some(picks) = trial_picks(&case.trials) else {
        return Some(note.to_owned());
    };
    let varied = picks.contains(", ") || picks.contains(" calls)");
    if case.status == CaseStatus::Correct && !varied {
        return Some(note.to_owned());
    }
    Some(format!("{note}: picked {picks}"))
}

/// `(cached)` when every trial came from the cache, `(2/3 cached)` when some did.
fn cache_note(case: &EvalCaseResult) -> Option<String> {
    let cached = case.trials.iter().filter(|t| t.cached).count();
    match cached {
        0 => None,
        n if n == case.trials.len() => Some("(cached)".into()),
        n => Some(format!("({n}/{} cached)", case.trials.len())),
    }
}

/// The detail lines, without and with `why: …`.
fn details(
    case: &EvalCaseResult,
    trial: Option<&TrialResult>,
    message: &str,
    trials_line: Option<String>,
) -> (Vec<String>, Vec<String>) {
    let mut head = Vec::new();
    let mut tail = Vec::new();
    match case.status {
        CaseStatus::Correct => {}
        CaseStatus::Miss => {
            head.extend(trial.iter().flat_map(|t| t.failures.iter().cloned()));
            if case.critical {
                tail.push("critical: must be right on every trial, fails the run".into());
            }
        }
        CaseStatus::ProviderError | CaseStatus::NotRun => head.push(message.to_owned()),
    }
    if let Some(t) = trial {
        if t.calls.len() > 1 {
            tail.push(format!("{} calls in one answer", t.calls.len()));
        }
        if case.status == CaseStatus::Miss
            && let Some(said) = said(t)
        {
            tail.push(said);
        }
    }
    let mut notes: Vec<&String> = case.trials.iter().flat_map(|t| &t.notes).collect();
    notes.dedup();
    tail.extend(notes.into_iter().map(|n| format!("note: {n}")));
    tail.extend(trials_line);
    tail.extend(cache_note(case));
    let why = case
        .why
        .as_deref()
        .filter(|_| case.status == CaseStatus::Miss)
        .map(|why| format!("why: {why}"));
    let plain = head.iter().chain(&tail).cloned().collect();
    let with_why = head.into_iter().chain(why).chain(tail).collect();
    (plain, with_why)
}
