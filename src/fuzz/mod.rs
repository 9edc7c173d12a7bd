//! The fuzz phase: for each selected tool, valid inputs generated from the whole input schema
//! and invalid inputs with one defect each, called on the server with a per-call timeout; each
//! outcome is classified ([`classify`]), each finding shrunk ([`shrink`]) and turned into a
//! `tests:` entry that reproduces it ([`entry`]). A crash restarts the server and keeps its
//! stderr; a hang is cancelled, probed with a ping and the server restarted when it does not
//! answer. Inputs come from one seed ([`rng`]): the same seed gives the same inputs and calls.
//! Never prints; progress goes out as events.

pub(crate) mod classify;
mod durations;
pub(crate) mod entry;
mod inputs;
pub(crate) mod invalid;
pub(crate) mod keywords;
pub(crate) mod regex;

pub(crate) mod shrink;
#[cfg(test)]
mod tests;
pub(crate) mod values;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::config::limits;
use crate::events::{Event, Events};
use crate::interrupt::Interrupt;
use crate::mcp::types::Tool;
use crate::mcp::{McpError, ToolServer};
use crate::outcome::{FuzzFinding, FuzzResults, FuzzTool, Phase, PhaseStatus};
use crate::settings::FuzzSettings;

use classify::{Kind, Mode, Rules, Verdict};
pub(crate) use inputs::Inputs;

/// Most calls spent shrinking one finding.
const SHRINK_BUDGET: u64 = 120;
/// Most calls that hang while shrinking a hang (each one waits for the whole timeout).
const SHRINK_BUDGET_HANG: u64 = 12;
/// Hangs after which a tool is left alone.
const MAX_HANGS: u32 = 3;

/// Runs the fuzz phase over `tools` (server order).
pub(crate) fn run<T: ToolServer>(
    server: &mut T,
    tools: &[Tool],
    settings: &FuzzSettings,
    events: &Events,
    interrupt: &Interrupt,
) -> Phase<Option<FuzzResults>> {
    let started = Instant::now();
    let mut results = FuzzResults {
        seed: settings.seed(),
        max_examples: settings.max_examples(),
        tools: Vec::new(),
        warning: None,
    };
    let unknown = unknown(tools, settings);
    let selected = selected(tools, settings);
    if let Some(why) = settings.shard().filter(|_| selected.is_empty()) {
        return Phase::skipped(format!(
            "no tool to fuzz in shard {} of {}",
            why.index, why.count
        ));
    }
    // The progress line counts the tools that will be called, not those left alone.
    events.emit(Event::PhaseStarted {
        phase: crate::plan::PhaseKey::Fuzz,
        total: selected
            .iter()
            .filter(|t| skip_reason(t, settings).is_none())
            .count(),
    });
    let mut broken: Option<String> = None;
    let mut skips: Vec<Skip> = Vec::new();
    for tool in selected {
        let skip = skip_reason(tool, settings);
        skips.extend(skip);
        let row = match (&broken, skip) {
            (Some(why), _) => skipped(tool, format!("not run: {why}")),
            (None, Some(why)) => skipped(tool, why.text().into()),
            (None, None) if interrupt.is_set() => {
                skipped(tool, "not run: the run was interrupted".into())
            }
            (None, None) => {
                let mut fuzzer = ToolFuzzer::new(server, tool, settings, interrupt);
                let row = fuzzer.run();
                broken = fuzzer.broken.take();
                row
            }
        };
        results.tools.push(row);
    }
    let findings = results.findings();
    let (status, reason) = if !unknown.is_empty() {
        let names: Vec<String> = unknown.iter().map(|n| format!("`{n}`")).collect();
        (
            PhaseStatus::Error,
            Some(format!(
                "fuzz.tools (or --tool) names tools the server does not have: {}",
                names.join(", ")
            )),
        )
    } else if let Some(why) = &broken {
        (
            PhaseStatus::Error,
            Some(format!("the server could not be restarted: {why}")),
        )
    } else if findings > 0 {
        (PhaseStatus::Failed, None)
    } else if results.fuzzed() == 0 && !interrupt.is_set() {
        // Nothing fuzzed is never a pass: an error for `fuzz`, a warning for `run`.
        let (what, hint) = nothing_fuzzed(&skips);
        let reason = match hint {
            Some(hint) => format!("{what}\nhint: {hint}"),
            None => what.clone(),
        };
        if settings.nothing_fuzzed_fails() {
            (PhaseStatus::Error, Some(reason))
        } else {
            results.warning = Some(what);
            (PhaseStatus::Skipped, Some(reason))
        }
    } else {
        (PhaseStatus::Passed, None)
    };
    Phase {
        status,
        reason,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results: Some(results),
    }
}

/// Why a tool is not fuzzed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// Listed in `fuzz.skip`.
    Listed,
    /// `destructiveHint: false` without `readOnlyHint: true`: it changes state, without
    /// `include_writes`.
    Write,
    /// `destructiveHint: true`.
    Destructive,
    /// Neither `readOnlyHint: true` nor a `destructiveHint`: destructive by MCP's default.
    Unmarked,
}

impl Skip {
    fn text(self) -> &'static str {
        match self {
            Skip::Listed => "in fuzz.skip",
            Skip::Write => {
                "a write (destructiveHint: false, not readOnlyHint: true); pass --include-writes to fuzz it"
            }
            Skip::Destructive => {
                "marked destructive (destructiveHint: true); set fuzz.include_destructive or pass --include-destructive to fuzz it"
            }
            Skip::Unmarked => {
                "may be destructive: marked neither readOnlyHint: true nor with a destructiveHint, and MCP counts such a tool as destructive; set fuzz.include_destructive or pass --include-destructive to fuzz it"
            }
        }
    }
}

/// The names in `fuzz.tools` that the server does not list.
fn unknown<'a>(tools: &[Tool], settings: &'a FuzzSettings) -> Vec<&'a str> {
    settings
        .tools()
        .iter()
        .filter(|name| !tools.iter().any(|t| &t.name == *name))
        .map(String::as_str)
        .collect()
}

/// The tools to fuzz: those `tools` names (all when it names none), of this shard.
fn selected<'a>(tools: &'a [Tool], settings: &FuzzSettings) -> Vec<&'a Tool> {
    tools
        .iter()
        .filter(|t| settings.tools().is_empty() || settings.tools().contains(&t.name))
        .filter(|t| settings.shard().is_none_or(|s| s.holds(&t.name)))
        .collect()
}

/// Why a tool is not fuzzed: listed in `skip`, or not read-only. Only tools that say
/// `readOnlyHint: true` are fuzzed by default: `include_writes` adds those that say
/// `destructiveHint: false`, `include_destructive` every tool (destructive ones, and those
/// that say neither, which MCP counts as destructive).
fn skip_reason(tool: &Tool, settings: &FuzzSettings) -> Option<Skip> {
    if settings.skip().contains(&tool.name) {
        return Some(Skip::Listed);
    }
    let hint = |k: &str| {
        tool.annotations
            .as_ref()
            .and_then(|a| a.get(k))
            .and_then(Value::as_bool)
    };
    if hint("readOnlyHint") == Some(true) || settings.include_destructive() {
        return None;
    }
    match hint("destructiveHint") {
        Some(false) if settings.include_writes() => None,
        Some(false) => Some(Skip::Write),
        Some(true) => Some(Skip::Destructive),
        None => Some(Skip::Unmarked),
    }
}

/// What to say when no tool was fuzzed (every one skipped, or none listed), and the way out:
/// `nothing was fuzzed: both tools were skipped, as neither declares readOnlyHint: true …`
/// with the counts of each reason, and the flags that include them.
fn nothing_fuzzed(skips: &[Skip]) -> (String, Option<String>) {
    let (which, none) = match skips.len() {
        0 => return ("nothing was fuzzed: the server lists no tools".into(), None),
        1 => ("the one tool was".to_owned(), "it does not declare"),
        2 => ("both tools were".to_owned(), "neither declares"),
        n => (format!("all {n} tools were"), "none declares"),
    };
    let count = |k: Skip| skips.iter().filter(|s| **s == k).count();
    let writes = count(Skip::Write);
    let destructive = count(Skip::Destructive) + count(Skip::Unmarked);
    let mut why = Vec::new();
    for (kind, what) in [
        (Skip::Write, "marked destructiveHint: false (writes)"),
        (Skip::Destructive, "marked destructiveHint: true"),
        (
            Skip::Unmarked,
            "without readOnlyHint or destructiveHint, which MCP counts as destructive",
        ),
        (Skip::Listed, "in fuzz.skip"),
    ] {
        if count(kind) > 0 {
            why.push(format!("{} {what}", count(kind)));
        }
    }
    let mut hints = Vec::new();
    if writes > 0 {
        hints.push(format!(
            "pass --include-writes (or set fuzz.include_writes: true) to fuzz the {writes} \
             write{}",
            if writes == 1 { "" } else { "s" }
        ));
    }
    if destructive > 0 {
        let these = if writes > 0 { "those and the" } else { "the" };
        hints.push(format!(
            "pass --include-destructive (or set fuzz.include_destructive: true) to fuzz {these} \
             {destructive} that may be destructive"
        ));
    }
    if writes + destructive > 0 {
        hints.push("mark the tools that change nothing readOnlyHint: true".into());
    }
    if count(Skip::Listed) > 0 {
        hints.push("take them out of fuzz.skip".into());
    }
    let none = if count(Skip::Listed) > 0 {
        "the others do not declare"
    } else {
        none
    };
    let reason = if writes + destructive > 0 {
        format!(", as {none} readOnlyHint: true and only read-only tools are fuzzed by default")
    } else {
        String::new()
    };
    (
        format!(
            "nothing was fuzzed: {which} skipped{reason} ({})",
            why.join(", ")
        ),
        Some(hints.join("; or ")),
    )
}

fn skipped(tool: &Tool, why: String) -> FuzzTool {
    FuzzTool {
        tool: tool.name.clone(),
        status: "skipped".into(),
        skipped: Some(why),
        ..FuzzTool::default()
    }
}

/// One tool's fuzzing.
struct ToolFuzzer<'a, T: ToolServer> {
    server: &'a mut T,
    tool: &'a Tool,
    settings: &'a FuzzSettings,
    interrupt: &'a Interrupt,
    row: FuzzTool,
    seen: HashSet<(Kind, Mode)>,
    hangs: u32,
    /// Hangs while shrinking do not count towards [`MAX_HANGS`].
    shrinking: bool,
    deadline: Instant,
    /// Why the server cannot be used any more.
    broken: Option<String>,
    /// Inputs not sent, as the duration they declare is longer than the tool has left, and
    /// the argument that declared the longest.
    unsent: (u64, Option<(Duration, String)>),
}

impl<'a, T: ToolServer> ToolFuzzer<'a, T> {
    fn new(
        server: &'a mut T,
        tool: &'a Tool,
        settings: &'a FuzzSettings,
        interrupt: &'a Interrupt,
    ) -> Self {
        ToolFuzzer {
            server,
            tool,
            settings,
            interrupt,
            row: FuzzTool {
                tool: tool.name.clone(),
                ..FuzzTool::default()
            },
            seen: HashSet::new(),
            hangs: 0,
            shrinking: false,
            deadline: Instant::now() + settings.max_time(),
            broken: None,
            unsent: (0, None),
        }
    }

    fn run(&mut self) -> FuzzTool {
        let started = Instant::now();
        let schema = self
            .tool
            .input_schema
            .clone()
            .unwrap_or_else(|| serde_json::json!({"type": "object"}));
        // Half the examples (rounded up) on the schema's boundaries, the rest random.
        let boundary = self.settings.max_examples().div_ceil(2) as usize;
        match Inputs::new(&schema, self.settings.seed(), &self.tool.name, boundary) {
            Err(why) => self.row.findings.push(bad_schema(&why)),
            Ok(mut inputs) => self.examples(&mut inputs),
        }
        if let (n @ 1.., Some((wait, name))) = &self.unsent {
            let note = format!(
                "{n} input{} not sent: `{}` asked for up to {}, longer than the tool had left of \
                 max_time_s",
                if *n == 1 { "" } else { "s" },
                name,
                shown(*wait)
            );
            self.row.stopped = Some(match self.row.stopped.take() {
                Some(why) => format!("{why}; {note}"),
                None => note,
            });
        }
        self.row
            .findings
            .sort_by_key(|f| (f.mode != "valid", f.kind.clone()));
        self.row.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        self.row.status = if self.row.findings.is_empty() {
            "passed"
        } else {
            "failed"
        }
        .into();
        std::mem::take(&mut self.row)
    }

    fn examples(&mut self, inputs: &mut Inputs) {
        for _ in 0..self.settings.max_examples() {
            for mode in [Mode::Valid, Mode::Invalid] {
                if let Some(why) = self.stop_reason() {
                    self.row.stopped = Some(why);
                    return;
                }
                let input = match mode {
                    Mode::Valid => inputs.valid(),
                    Mode::Invalid => inputs.invalid(),
                };
                let Some(input) = input else { continue };
                match mode {
                    Mode::Valid => self.row.valid_inputs += 1,
                    Mode::Invalid => self.row.invalid_inputs += 1,
                }
                let (verdict, stderr) = self.try_input(&input, mode);
                if let Some(v) = verdict
                    && self.seen.insert((v.kind, mode))
                {
                    let finding = self.shrunk_finding(inputs, input, mode, v, stderr);
                    self.row.findings.push(finding);
                }
            }
        }
    }

    fn stop_reason(&self) -> Option<String> {
        if self.broken.is_some() {
            return Some("the server could not be restarted".into());
        }
        if self.interrupt.is_set() {
            return Some("the run was interrupted".into());
        }
        if Instant::now() >= self.deadline {
            return Some(format!(
                "max_time_s ({}s) reached",
                self.settings.max_time().as_secs_f64()
            ));
        }
        if self.hangs >= MAX_HANGS {
            return Some(format!("stopped after {MAX_HANGS} hangs"));
        }
        None
    }

    /// Calls the tool with one input, restarting the server when the call killed or stuck it.
    fn try_input(&mut self, input: &Value, mode: Mode) -> (Option<Verdict>, String) {
        let args = input.as_object().cloned().unwrap_or_default();
        // A call whose arguments declare how long it takes is given that time too.
        let asked = self
            .tool
            .input_schema
            .as_ref()
            .and_then(|schema| durations::declared(schema, input));
        let timeout = match &asked {
            Some((wait, _)) => self.settings.timeout().saturating_add(*wait),
            None => self.settings.timeout(),
        };
        if let Some((wait, name)) = &asked
            && Instant::now()
                .checked_add(timeout)
                .is_none_or(|end| end > self.deadline)
        {
            self.unsent.0 += 1;
            if self.unsent.1.as_ref().is_none_or(|(w, _)| wait > w) {
                self.unsent.1 = Some((*wait, name.clone()));
            }
            return (None, String::new());
        }
        self.row.calls += 1;
        let outcome = self.server.call(&self.tool.name, &args, timeout);
        let rules = Rules {
            valid_must_succeed: self.settings.valid_must_succeed(),
            invalid_must_fail: self.settings.invalid_must_fail(),
        };
        let mut verdict = classify::classify(
            mode,
            &outcome,
            self.tool.output_schema.as_ref(),
            rules,
            timeout,
        );
        // A tool asked to take its time that takes longer still is slow, not known to hang.
        if let (Some(v), Some((wait, name))) = (verdict.as_mut(), &asked)
            && v.kind == Kind::Hang
        {
            *v = Verdict {
                kind: Kind::Slow,
                detail: format!(
                    "slower than the timeout: no answer within {} ms, the {} its `{name}` \
                     asked for plus timeout_ms",
                    limits::in_millis(timeout),
                    shown(*wait)
                ),
            };
        }
        let stderr = match &outcome {
            Ok(o) => o.stderr.clone(),
            Err(f) => f.stderr.clone(),
        };
        if let Err(failure) = &outcome {
            self.recover(&failure.error);
        }
        (verdict, stderr)
    }

    fn recover(&mut self, error: &McpError) {
        let restarted = if matches!(error, McpError::Timeout { .. }) {
            if !self.shrinking {
                self.hangs += 1;
            }
            if self.server.answers_ping() {
                Ok(())
            } else {
                self.server.restart_hung()
            }
        } else if error.is_fatal() || self.server.has_exited() {
            self.server.restart()
        } else {
            Ok(())
        };
        if let Err(e) = restarted {
            self.broken = Some(e.error.to_string());
        }
    }

    fn shrunk_finding(
        &mut self,
        inputs: &Inputs,
        found: Value,
        mode: Mode,
        verdict: Verdict,
        stderr: String,
    ) -> FuzzFinding {
        let mut last: Option<(Verdict, String)> = None;
        let mut hung = 0;
        self.shrinking = true;
        let (input, asked) = shrink::shrink(&found, SHRINK_BUDGET, |candidate| {
            if inputs.mode_of(candidate) != mode
                || self.stop_reason().is_some()
                || hung >= SHRINK_BUDGET_HANG
            {
                return None;
            }
            let (v, err) = self.try_input(candidate, mode);
            if v.as_ref()
                .is_some_and(|v| matches!(v.kind, Kind::Hang | Kind::Slow))
            {
                hung += 1;
            }
            let kept = v.as_ref().is_some_and(|v| v.kind == verdict.kind);
            if kept {
                last = v.map(|v| (v, err));
            }
            Some(kept)
        });
        self.shrinking = false;
        let (verdict, stderr) = last.unwrap_or((verdict, stderr));
        let kind = verdict.kind.as_str();
        let test = entry::test_entry(&entry::EntryFacts {
            tool: &self.tool.name,
            kind,
            mode,
            input: &input,
            timeout_ms: matches!(verdict.kind, Kind::Hang | Kind::Slow).then(|| {
                let asked = self
                    .tool
                    .input_schema
                    .as_ref()
                    .and_then(|schema| durations::declared(schema, &input))
                    .map_or(Duration::ZERO, |(wait, _)| wait);
                limits::in_millis(self.settings.timeout().saturating_add(asked))
            }),
        });
        FuzzFinding {
            kind: kind.into(),
            mode: mode.as_str().into(),
            defect: (mode == Mode::Invalid)
                .then(|| inputs.why_invalid(&input))
                .flatten(),
            detail: verdict.detail,
            stderr: (!stderr.trim().is_empty()).then_some(stderr),
            found_input: found,
            input,
            shrink_calls: asked,
            test,
        }
    }
}

/// A duration as a finding shows it: `10 s`, `1.5 s`, `250 ms`.
fn shown(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} s", (d.as_secs_f64() * 1000.0).round() / 1000.0)
    }
}

fn bad_schema(why: &str) -> FuzzFinding {
    FuzzFinding {
        kind: "bad-schema".into(),
        mode: "valid".into(),
        input: Value::Object(Map::new()),
        defect: None,
        detail: format!("can't generate inputs: {why}"),
        stderr: None,
        found_input: Value::Object(Map::new()),
        shrink_calls: 0,
        test: String::new(),
    }
}
