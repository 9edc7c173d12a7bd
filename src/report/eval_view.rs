//! Derived views of the tool-selection eval results that every renderer shares, so the console,
//! JUnit, Markdown and annotations word the same facts the same way: what was expected, what was
//! picked, how a row ended once the provider's verdict is taken into account, percentages and
//! trends. Text returned here is raw (untrusted parts included); each renderer escapes it.

use serde_json::Value;

use super::escape::{plural, truncate_chars};
use super::model::{
    AnswerKind, CaseStatus, Confusion, EvalCaseResult, EvalsResults, HistoryPoint, HistoryTrend,
    ModelEval, PickedCall, TrialResult,
};

/// How "no tool" is written wherever a tool name would be.
pub const NO_TOOL: &str = "(no tool)";

/// Longest argument JSON shown beside a tool name, in characters.
pub const ARGS_CHARS: usize = 60;

/// Most confusion pairs listed.
pub const CONFUSION_SHOWN: usize = 10;

/// A share in `0..=1` as a percentage: whole numbers without decimals (`90%`), others with one
/// (`93.3%`). Always rounded down, so a value under a gate never prints as equal to it.
pub fn pct(share: f64) -> String {
    if !share.is_finite() {
        return "?%".into();
    }
    // The small epsilon keeps 0.29 (stored as 0.28999…) from printing as 28.9%.
    let tenths = (share.clamp(0.0, 1.0) * 1000.0 + 1e-6).floor() as u64;
    if tenths.is_multiple_of(10) {
        format!("{}%", tenths / 10)
    } else {
        format!("{}.{}%", tenths / 10, tenths % 10)
    }
}

/// `value` as one-line JSON with a space after `:` and `,` (so tables can wrap it), cut to
/// `max_chars` characters with `…`. Strings keep JSON escaping, so control characters show as
/// `\u001b` and never reach a terminal raw.
pub fn short_json(value: &Value, max_chars: usize) -> String {
    let mut out = String::new();
    // Stop building long before a megabyte of arguments is written out.
    write_json(value, &mut out, max_chars.saturating_mul(4).max(16));
    truncate_chars(&out, max_chars).into_owned()
}

fn write_json(value: &Value, out: &mut String, budget: usize) {
    if out.len() > budget {
        return;
    }
    match value {
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if out.len() > budget {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&json_string(k, budget));
                out.push_str(": ");
                write_json(v, out, budget);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if out.len() > budget {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                write_json(v, out, budget);
            }
            out.push(']');
        }
        Value::String(s) => out.push_str(&json_string(s, budget)),
        other => out.push_str(&other.to_string()),
    }
}

/// A JSON string literal of (at most the first `budget` characters of) `s`.
fn json_string(s: &str, budget: usize) -> String {
    let cut = truncate_chars(s, budget);
    serde_json::to_string(cut.as_ref()).unwrap_or_else(|_| "\"?\"".into())
}

/// Whether an `expect_args`/`args` value has something worth showing (not null, not `{}`).
fn has_args(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Object(map) => !map.is_empty(),
        _ => true,
    }
}

impl PickedCall {
    /// `tool {"a": 1}`, or `tool (malformed arguments: "…")` when the arguments were not JSON.
    pub fn describe(&self, max_args: usize) -> String {
        match &self.malformed_args {
            Some(raw) => format!(
                "{} (malformed arguments: {})",
                self.tool,
                json_string(&truncate_chars(raw, max_args), max_args * 2)
            ),
            None => format!("{} {}", self.tool, short_json(&self.args, max_args)),
        }
    }
}

impl TrialResult {
    /// What the model answered, one line per call (`tool {args}`), or a word in brackets:
    /// `(no tool)`, `(refused)`, `(cut off)`, `(provider error)`, `(not asked)`.
    pub fn picked_lines(&self, max_args: usize) -> Vec<String> {
        let mut lines: Vec<String> = self.calls.iter().map(|c| c.describe(max_args)).collect();
        match self.kind {
            AnswerKind::ToolCall if !lines.is_empty() => {}
            AnswerKind::ToolCall | AnswerKind::TextOnly | AnswerKind::NoTool => {
                if lines.is_empty() {
                    lines.push(NO_TOOL.into());
                }
            }
            AnswerKind::Refusal => lines.push("(refused)".into()),
            AnswerKind::Truncated => lines.push("(cut off)".into()),
            AnswerKind::ProviderError => lines.push("(provider error)".into()),
            AnswerKind::NotAsked => lines.push("(not asked)".into()),
        }
        lines
    }

    /// The picked tool names only: `add`, `add, echo`, `(no tool)`, `(refused)`…
    pub fn picked_names(&self) -> String {
        let names: Vec<&str> = self.calls.iter().map(|c| c.tool.as_str()).collect();
        let word = match self.kind {
            AnswerKind::ToolCall | AnswerKind::TextOnly | AnswerKind::NoTool => None,
            AnswerKind::Refusal => Some("(refused)"),
            AnswerKind::Truncated => Some("(cut off)"),
            AnswerKind::ProviderError => Some("(provider error)"),
            AnswerKind::NotAsked => Some("(not asked)"),
        };
        match (names.is_empty(), word) {
            (true, None) => NO_TOOL.into(),
            (true, Some(w)) => w.into(),
            (false, None) => names.join(", "),
            (false, Some(w)) => format!("{} {w}", names.join(", ")),
        }
    }
}

impl EvalCaseResult {
    /// The expected tool name, or `(no tool)`.
    pub fn expected_name(&self) -> &str {
        self.expect_tool.as_deref().unwrap_or(NO_TOOL)
    }

    /// The expected tool with its expected arguments when there are any: `get_order
    /// {"order_id": "55219"}`.
    pub fn expected_text(&self, max_args: usize) -> String {
        match &self.expect_tool {
            Some(tool) if has_args(&self.expect_args) => {
                format!("{tool} {}", short_json(&self.expect_args, max_args))
            }
            Some(tool) => tool.clone(),
            None => NO_TOOL.into(),
        }
    }

    /// The trial a report shows: the first wrong one when the case did not pass, else the
    /// first.
    pub fn shown_trial(&self) -> Option<&TrialResult> {
        if self.status == CaseStatus::Correct {
            self.trials.first()
        } else {
            self.trials
                .iter()
                .find(|t| !t.passed)
                .or_else(|| self.trials.first())
        }
    }

    /// Trials that were correct.
    pub fn passed_trials(&self) -> usize {
        self.trials.iter().filter(|t| t.passed).count()
    }

    /// What the shown trial picked, names only (`(not asked)` without a trial).
    pub fn picked_names(&self) -> String {
        self.shown_trial()
            .map_or_else(|| "(not asked)".into(), TrialResult::picked_names)
    }

    /// What the shown trial picked, one line per call.
    pub fn picked_lines(&self, max_args: usize) -> Vec<String> {
        self.shown_trial()
            .map_or_else(|| vec!["(not asked)".into()], |t| t.picked_lines(max_args))
    }

    /// `(cached)` when every trial came from the cache, `(2/3 cached)` when some did.
    pub fn cache_note(&self) -> Option<String> {
        let cached = self.trials.iter().filter(|t| t.cached).count();
        match cached {
            0 => None,
            n if n == self.trials.len() => Some("(cached)".into()),
            n => Some(format!("({n}/{} cached)", self.trials.len())),
        }
    }

    /// `2/3 trials`, with `, ambiguous` when the case both passed and failed; only for cases run
    /// more than once.
    pub fn trials_note(&self) -> Option<String> {
        if self.trials.len() < 2 {
            return None;
        }
        let mut note = format!("{}/{} trials", self.passed_trials(), self.trials.len());
        if self.ambiguous {
            note.push_str(", ambiguous");
        }
        Some(note)
    }
}

impl ModelEval {
    /// Whether this model makes the evals fail: it did not pass its gates, or the provider could
    /// not be used.
    pub fn fails(&self) -> bool {
        !self.passed || self.error.is_some()
    }

    /// How a case is shown: its status, except that no case counts as correct when the provider
    /// could not be used for this model.
    pub fn row_status(&self, case: &EvalCaseResult) -> CaseStatus {
        if self.error.is_some() && case.status == CaseStatus::Correct {
            CaseStatus::NotRun
        } else {
            case.status
        }
    }

    /// Cases shown with `status`.
    pub fn count(&self, status: CaseStatus) -> usize {
        self.cases
            .iter()
            .filter(|c| self.row_status(c) == status)
            .count()
    }

    /// Cases that missed (provider errors not included), critical ones first, otherwise in case
    /// order.
    pub fn misses(&self) -> Vec<&EvalCaseResult> {
        let mut misses: Vec<&EvalCaseResult> = self
            .cases
            .iter()
            .filter(|c| self.row_status(c) == CaseStatus::Miss)
            .collect();
        misses.sort_by_key(|c| !c.critical);
        misses
    }

    /// Cases that got no usable answer from the provider.
    pub fn provider_error_cases(&self) -> Vec<&EvalCaseResult> {
        self.cases
            .iter()
            .filter(|c| self.row_status(c) == CaseStatus::ProviderError)
            .collect()
    }

    /// Gates that did not hold, in the order checked.
    pub fn failed_gates(&self) -> impl Iterator<Item = &super::model::Gate> {
        self.gates.iter().filter(|g| !g.passed)
    }

    /// Failed gates worth listing beside the provider error: the `provider` gate only repeats
    /// it.
    pub fn gates_to_list(&self) -> impl Iterator<Item = &super::model::Gate> {
        self.failed_gates()
            .filter(|g| self.error.is_none() || g.name != "provider")
    }

    /// `Tool-selection evals (<provider> / <model>)`, empty parts left out.
    pub fn title(&self, provider: &str) -> String {
        let parts: Vec<&str> = [provider, self.model.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        if parts.is_empty() {
            "Tool-selection evals".into()
        } else {
            format!("Tool-selection evals ({})", parts.join(" / "))
        }
    }

    /// `90% accuracy (9/10), minimum 95%`, or what stopped the provider.
    pub fn verdict_text(&self) -> String {
        match &self.error {
            Some(e) => format!(
                "the provider could not be used: {}",
                super::escape::first_line(e)
            ),
            None => format!(
                "{} accuracy ({}/{}), minimum {}",
                pct(self.accuracy),
                self.correct,
                self.total,
                pct(self.min_accuracy)
            ),
        }
    }

    /// `Accuracy 90% (9/10), minimum 95%`; says so when nothing could be measured.
    pub fn accuracy_line(&self) -> String {
        if self.error.is_some() {
            return format!(
                "Accuracy not measured: the provider could not be used ({} case{} not run), minimum {}",
                self.cases.len(),
                plural(self.cases.len()),
                pct(self.min_accuracy)
            );
        }
        if self.total == 0 {
            return format!(
                "Accuracy not measured: no cases, minimum {}",
                pct(self.min_accuracy)
            );
        }
        format!(
            "Accuracy {} ({}/{}), minimum {}",
            pct(self.accuracy),
            self.correct,
            self.total,
            pct(self.min_accuracy)
        )
    }

    /// Trial accuracy and the Wilson lower bound, when cases ran more than once or the Wilson
    /// gate is set: `Trials: 3 per case, 26/30 correct (86.6%), Wilson 95% lower bound 70.3%,
    /// minimum 60%`.
    pub fn trials_line(&self) -> Option<String> {
        if (self.trials < 2 && self.min_wilson_lower.is_none()) || self.error.is_some() {
            return None;
        }
        let run: usize = self.cases.iter().map(|c| c.trials.len()).sum();
        let ok: usize = self.cases.iter().map(EvalCaseResult::passed_trials).sum();
        let same = self
            .cases
            .iter()
            .all(|c| c.trials.len() == self.trials as usize);
        let mut line = format!(
            "Trials: {}{} per case, {ok}/{run} correct ({}), Wilson 95% lower bound {}",
            if same { "" } else { "up to " },
            self.trials,
            pct(self.trial_accuracy),
            pct(self.wilson_lower)
        );
        if let Some(min) = self.min_wilson_lower {
            line.push_str(&format!(", minimum {}", pct(min)));
        }
        Some(line)
    }

    /// `3 misses (1 critical), 1 provider error, 2 not run`: misses always, the rest when there
    /// are any. `None` when every case was right.
    pub fn counts_line(&self) -> Option<String> {
        let misses = self.count(CaseStatus::Miss);
        let critical = self.misses().iter().filter(|c| c.critical).count();
        let errors = self.count(CaseStatus::ProviderError);
        let not_run = self.count(CaseStatus::NotRun);
        if misses + errors + not_run == 0 {
            return None;
        }
        let mut s = format!("{misses} miss{}", if misses == 1 { "" } else { "es" });
        if critical > 0 {
            s.push_str(&format!(" ({critical} critical)"));
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

    /// `expected X, got Y`, with the first failure added when the expected tool was among the
    /// picks (wrong arguments, several calls), since the names alone would not say what was
    /// wrong.
    pub fn miss_message(&self, case: &EvalCaseResult) -> String {
        match self.row_status(case) {
            CaseStatus::ProviderError => {
                let why = case
                    .shown_trial()
                    .and_then(|t| t.provider_error.as_deref())
                    .unwrap_or("no usable answer");
                format!("provider error: {why}")
            }
            CaseStatus::NotRun => self.not_run_reason(case),
            CaseStatus::Correct | CaseStatus::Miss => {
                let got = case.picked_names();
                let mut m = format!("expected {}, got {got}", case.expected_name());
                let picked_expected = case.shown_trial().is_some_and(|t| {
                    t.calls
                        .iter()
                        .any(|c| Some(c.tool.as_str()) == case.expect_tool.as_deref())
                });
                if picked_expected
                    && let Some(first) = case.shown_trial().and_then(|t| t.failures.first())
                {
                    m.push_str(": ");
                    m.push_str(first);
                }
                m
            }
        }
    }

    /// Why a case was not asked.
    pub fn not_run_reason(&self, case: &EvalCaseResult) -> String {
        if self.error.is_some() && !case.trials.is_empty() {
            "not counted: the provider could not be used for every case".into()
        } else if self.error.is_some() {
            "not run: the provider could not be used".into()
        } else if self.uncached.iter().any(|n| n == &case.name) {
            "not run: no cached answer and --offline".into()
        } else {
            "not run".into()
        }
    }

    /// The detail lines of a case: failures (or the provider error, or why it was not run),
    /// `why: …` when `with_why` and the case missed, a critical note, the number of calls, the
    /// text of a text-only answer, trials, cache.
    pub fn case_details(&self, case: &EvalCaseResult, with_why: bool) -> Vec<String> {
        let status = self.row_status(case);
        let trial = case.shown_trial();
        let mut d = Vec::new();
        match status {
            CaseStatus::Correct => {}
            CaseStatus::Miss => {
                d.extend(trial.iter().flat_map(|t| t.failures.iter().cloned()));
                if with_why && let Some(why) = &case.why {
                    d.push(format!("why: {why}"));
                }
                if case.critical {
                    d.push("critical: must be right on every trial, fails the run".into());
                }
            }
            CaseStatus::ProviderError => d.push(self.miss_message(case)),
            CaseStatus::NotRun => d.push(self.not_run_reason(case)),
        }
        if let Some(t) = trial {
            if t.calls.len() > 1 {
                d.push(format!("{} calls in one answer", t.calls.len()));
            }
            if status == CaseStatus::Miss
                && matches!(t.kind, AnswerKind::TextOnly | AnswerKind::Refusal)
                && let Some(text) = t.text.as_deref().filter(|s| !s.trim().is_empty())
            {
                d.push(format!("said: {}", truncate_chars(text.trim(), 120)));
            }
        }
        d.extend(case.trials_note());
        d.extend(case.cache_note());
        d
    }
}

impl Confusion {
    /// `expected → picked ×N`.
    pub fn describe(&self) -> String {
        format!("{} → {} ×{}", self.expected, self.picked, self.count)
    }
}

impl EvalsResults {
    /// `12 cached, 3 asked`, with corrupt files and whether the cache was off.
    pub fn cache_line(&self) -> String {
        let c = &self.cache;
        let mut s = if !c.read && !c.write {
            format!("Cache: not used, {} asked", c.asked)
        } else {
            let mut s = format!("Cache: {} cached, {} asked", c.hits, c.asked);
            if !c.read {
                s.push_str(" (not read: --no-cache)");
            }
            s
        };
        if c.corrupt > 0 {
            s.push_str(&format!(
                ", {} unreadable cache file{} asked again",
                c.corrupt,
                plural(c.corrupt)
            ));
        }
        s
    }

    /// `Left out (invalid input schema): a, b`, when any tool was left out.
    pub fn left_out_line(&self) -> Option<String> {
        (!self.left_out_tools.is_empty()).then(|| {
            format!(
                "Left out (invalid input schema): {}",
                self.left_out_tools.join(", ")
            )
        })
    }

    /// The hint for `--offline` runs that lacked cached answers.
    pub fn offline_hint(&self) -> String {
        let dir = self.cache.dir.as_deref().unwrap_or(".toolproof-cache");
        format!(
            "hint: run once without --offline and with the provider's API key to record the answers in {dir}, then commit it"
        )
    }
}

impl HistoryTrend {
    /// The points grouped by model, in order of first appearance, oldest first.
    pub fn by_model(&self) -> Vec<(&str, Vec<&HistoryPoint>)> {
        let mut groups: Vec<(&str, Vec<&HistoryPoint>)> = Vec::new();
        for p in &self.points {
            match groups.iter_mut().find(|(m, _)| *m == p.model) {
                Some((_, list)) => list.push(p),
                None => groups.push((p.model.as_str(), vec![p])),
            }
        }
        groups
    }

    /// One line per model: `Miss rate over the last 4 runs: 2% 2% 3% 4% (rising)` (the model
    /// named when there are several), with `sep` between the rates.
    pub fn lines(&self, sep: &str) -> Vec<String> {
        let groups = self.by_model();
        let several = groups.len() > 1;
        groups
            .iter()
            .map(|(model, points)| {
                let rates: Vec<String> = points.iter().map(|p| pct(p.miss_rate)).collect();
                let mut line = format!(
                    "Miss rate over the last {} run{}",
                    points.len(),
                    plural(points.len())
                );
                if several {
                    line.push_str(&format!(" ({model})"));
                }
                line.push_str(": ");
                line.push_str(&rates.join(sep));
                if self.rising && !several {
                    line.push_str(" (rising)");
                }
                line
            })
            .collect()
    }

    /// The warning shown when the miss rate rises across the window; `passing` says whether
    /// this run still passed its gates (the case a pass/fail verdict alone hides).
    pub fn rising_warning(&self, passing: bool) -> Option<String> {
        if !self.rising {
            return None;
        }
        let rise = |points: &[&HistoryPoint]| {
            let first = points.first().map_or(0.0, |p| p.miss_rate);
            let last = points.last().map_or(0.0, |p| p.miss_rate);
            (last > first).then(|| {
                format!(
                    "{} → {} over the last {} runs",
                    pct(first),
                    pct(last),
                    points.len()
                )
            })
        };
        let groups = self.by_model();
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
    pub fn skipped_warning(&self) -> Option<String> {
        (self.skipped_lines > 0).then(|| {
            format!(
                "{} line{} of {} could not be read and {} skipped",
                self.skipped_lines,
                plural(self.skipped_lines),
                self.path,
                if self.skipped_lines == 1 {
                    "was"
                } else {
                    "were"
                }
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn percentages_round_down_and_drop_zero_decimals() {
        assert_eq!(pct(0.9), "90%");
        assert_eq!(pct(2.0 / 3.0), "66.6%");
        assert_eq!(pct(0.29), "29%");
        assert_eq!(pct(0.9499), "94.9%");
        assert_eq!(pct(1.0), "100%");
        assert_eq!(pct(0.0), "0%");
        assert_eq!(pct(f64::NAN), "?%");
    }

    #[test]
    fn json_is_spaced_and_cut() {
        assert_eq!(
            short_json(&json!({"a": 2, "b": [1, "x"]}), 60),
            r#"{"a": 2, "b": [1, "x"]}"#
        );
        assert_eq!(
            short_json(&json!({"t": "\u{1b}[31m"}), 60),
            r#"{"t": "\u001b[31m"}"#
        );
        let long = short_json(&json!({"text": "x".repeat(1_000_000)}), 20);
        assert_eq!(long.chars().count(), 20);
        assert!(long.ends_with('…'));
    }

    fn trial(kind: AnswerKind, tools: &[&str]) -> TrialResult {
        TrialResult {
            passed: false,
            kind,
            calls: tools
                .iter()
                .map(|t| PickedCall {
                    tool: t.to_string(),
                    args: json!({}),
                    malformed_args: None,
                })
                .collect(),
            text: None,
            failures: Vec::new(),
            cached: false,
            provider_error: None,
            latency_ms: 0.0,
        }
    }

    #[test]
    fn picks_are_named_by_kind() {
        assert_eq!(
            trial(AnswerKind::ToolCall, &["a", "b"]).picked_names(),
            "a, b"
        );
        assert_eq!(trial(AnswerKind::TextOnly, &[]).picked_names(), "(no tool)");
        assert_eq!(trial(AnswerKind::Refusal, &[]).picked_names(), "(refused)");
        assert_eq!(
            trial(AnswerKind::Truncated, &["a"]).picked_lines(60),
            ["a {}", "(cut off)"]
        );
        let mut bad = trial(AnswerKind::ToolCall, &["a"]);
        bad.calls[0].malformed_args = Some("{\"x\": ".into());
        assert_eq!(
            bad.picked_lines(60),
            [r#"a (malformed arguments: "{\"x\": ")"#]
        );
    }
}
