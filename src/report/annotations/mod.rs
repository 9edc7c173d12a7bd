//! GitHub Actions annotations: workflow commands (`::error …::message`) printed to stdout when
//! `GITHUB_ACTIONS=true`. At most [`MAX_PER_SEVERITY`] errors and as many warnings (GitHub
//! shows no more per step), then one notice counting the rest.
//!
//! Most important first, so the cap never hides why the run failed: the server, phases that
//! could not run, each model's eval gates and its critical misses; then the static-check
//! findings that fail the run (a broken definition is often why evals miss and tests fail; half
//! the cap at most);
//! then the YAML tests; then the set lint's errors and warnings; then the other eval misses and
//! provider errors; then the other static-check findings.
//!
//! Every annotation about the config points at it by its path from the repository root
//! ([`Places`]; GitHub attaches nothing to `../x/toolproof.yaml` or an absolute path): a test at
//! its entry, an eval case at its entry (in `cases_file` when it came from there), the eval gates
//! at the `evals:` key, a set-lint finding at its case's entry (or the `evals:` key when it is
//! about no case; infos are not annotated), and the static-check findings at the `checks:` key,
//! or at the file
//! without a line when the config has no `checks:` section (a finding is about a tool the server
//! sent, which has no line in the YAML).
//!
//! Escaping follows actions/toolkit: message data `%`→`%25`, `\r`→`%0D`, `\n`→`%0A`; property
//! values additionally `:`→`%3A`, `,`→`%2C`. So every annotation stays on one line and
//! untrusted text can never end a property or start a command of its own.

use super::escape::{clean, plural, truncate_chars};
use super::evals_view::{EvalsView, ModelView};
use super::places::Places;
use crate::outcome::{CaseStatus, PhaseStatus, RunReport, Severity, TestStatus};

/// Most annotations per severity; GitHub drops the rest silently.
pub(crate) const MAX_PER_SEVERITY: usize = 10;

/// Longest annotation message, in characters.
const MESSAGE_CHARS: usize = 4000;
/// Longest property value (title, file), in characters.
const PROPERTY_CHARS: usize = 200;

/// How early an annotation is printed; the cap keeps the first ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// Why the run failed as a whole: the server, a phase that could not run, an eval gate,
    /// a critical miss, a rising miss rate.
    Verdict,
    /// A static-check finding that fails the run: a broken tool definition, and often the
    /// cause of the eval misses and failed tests below it.
    Broken,
    /// A YAML test that failed or was flaky.
    Test,
    /// A set-lint finding (an error fails the run).
    Lint,
    /// An eval case that missed (not critical) or got no usable answer.
    Case,
    /// A static-check finding.
    Finding,
}

struct Annotation {
    rank: Rank,
    file: Option<String>,
    line: Option<u32>,
    title: String,
    message: String,
}

impl Annotation {
    fn new(rank: Rank, title: impl Into<String>, message: impl Into<String>) -> Self {
        Annotation {
            rank,
            file: None,
            line: None,
            title: title.into(),
            message: message.into(),
        }
    }

    /// The same annotation pointing at `file`, line `line`.
    fn at(mut self, file: Option<&str>, line: Option<u32>) -> Self {
        self.file = file.map(str::to_owned);
        self.line = line.filter(|_| file.is_some());
        self
    }

    fn command(&self, kind: &str) -> String {
        let mut props = Vec::new();
        if let Some(file) = &self.file {
            props.push(format!("file={}", property(file)));
            if let Some(line) = self.line {
                props.push(format!("line={line}"));
            }
        }
        props.push(format!("title={}", property(&self.title)));
        format!("::{kind} {}::{}\n", props.join(","), data(&self.message))
    }
}

/// Errors and warnings, in the order found; printed by rank.
#[derive(Default)]
struct Found {
    errors: Vec<Annotation>,
    warnings: Vec<Annotation>,
}

impl Found {
    /// The error list, or the warning list when `warning`.
    fn list(&mut self, warning: bool) -> &mut Vec<Annotation> {
        if warning {
            &mut self.warnings
        } else {
            &mut self.errors
        }
    }
}

/// The workflow commands for `report`, files as the report names them, secrets redacted, one
/// per line.
#[cfg(test)]
pub(crate) fn render(report: &RunReport) -> String {
    render_with(report, &Places::default())
}

/// The workflow commands for `report`, files as `places` knows them in the repository,
/// secrets redacted, one per line.
pub(crate) fn render_with(report: &RunReport, places: &Places) -> String {
    let places = &places.redacted(&report.secrets);
    let report = report.redacted();
    let r = &*report;
    let config = r.config_file.as_deref().map(|f| places.file(f));
    let mut found = Found::default();

    if let Some(err) = &r.error {
        found.errors.push(Annotation::new(
            Rank::Verdict,
            "toolproof: the server could not be used",
            &err.message,
        ));
    }
    finding_annotations(r, config, places.checks_line(), &mut found);
    test_annotations(r, config, &mut found);
    lint_annotations(r, config, places, &mut found);
    let evals_itemised = match EvalsView::of(&r.phases.evals) {
        Some(view) => eval_annotations(&view, config, places, &mut found),
        None => false,
    };
    phase_annotations(r, evals_itemised, &mut found);

    // Stable: within a rank, the order found.
    found.errors.sort_by_key(|a| a.rank);
    found.warnings.sort_by_key(|a| a.rank);
    let mut out = String::new();
    for a in found.errors.iter().take(MAX_PER_SEVERITY) {
        out.push_str(&a.command("error"));
    }
    for a in found.warnings.iter().take(MAX_PER_SEVERITY) {
        out.push_str(&a.command("warning"));
    }
    let more_errors = found.errors.len().saturating_sub(MAX_PER_SEVERITY);
    let more_warnings = found.warnings.len().saturating_sub(MAX_PER_SEVERITY);
    if more_errors + more_warnings > 0 {
        let message = format!(
            "{more_errors} more error{} and {more_warnings} more warning{} are not annotated (GitHub shows {MAX_PER_SEVERITY} of each per step): see the job summary, the JUnit report or the JSON report",
            plural(more_errors),
            plural(more_warnings),
        );
        out.push_str(&Annotation::new(Rank::Verdict, "toolproof", message).command("notice"));
    }
    out
}

/// A phase that failed or could not run and whose items say nothing about it: one error.
/// Phases that errored because the server could not be used add nothing to the connection
/// error.
fn phase_annotations(r: &RunReport, evals_itemised: bool, found: &mut Found) {
    for phase in &r.phases.overview() {
        let itemised = match phase.key {
            "checks" | "tests" | "lint" => phase.status == PhaseStatus::Failed,
            "evals" => evals_itemised,
            _ => false,
        };
        let consequence = phase.status == PhaseStatus::Error && r.error.is_some();
        if !consequence
            && !itemised
            && matches!(phase.status, PhaseStatus::Error | PhaseStatus::Failed)
        {
            let fallback = if phase.status == PhaseStatus::Error {
                "could not run"
            } else {
                "failed"
            };
            found.errors.push(Annotation::new(
                Rank::Verdict,
                format!("toolproof {}", phase.key),
                phase.reason.unwrap_or(fallback),
            ));
        }
    }
}

/// One annotation per static-check finding, at the `checks:` key of the config.
fn finding_annotations(
    r: &RunReport,
    config: Option<&str>,
    checks_line: Option<u32>,
    found: &mut Found,
) {
    // Half the cap at most for broken definitions, so that a server with many of them still
    // shows the tests and misses they cause.
    let mut broken = 0;
    // Infos are advice for the reports, not annotations on the config.
    for f in r
        .phases
        .checks
        .results
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
    {
        let rank = if f.fails && broken < MAX_PER_SEVERITY / 2 {
            broken += 1;
            Rank::Broken
        } else {
            Rank::Finding
        };
        let a = Annotation::new(
            rank,
            format!("toolproof {}", f.check),
            format!("{}: {}", f.tool, f.text()),
        );
        found.list(!f.fails).push(a.at(config, checks_line));
    }
}

/// One annotation per set-lint error and warning, at its case's entry (in `cases_file` when it
/// came from there), else at the `evals:` key. Infos are advice and stay in the reports.
fn lint_annotations(r: &RunReport, config: Option<&str>, places: &Places, found: &mut Found) {
    if !r.phases.lint.ran() {
        return;
    }
    let Some(results) = &r.phases.lint.results else {
        return;
    };
    for f in results
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
    {
        let file = f.file.as_deref().map(|p| places.file(p)).or(config);
        let line = f
            .line
            .or_else(|| places.evals_line().filter(|_| f.file.is_none()));
        let a = Annotation::new(Rank::Lint, format!("toolproof lint {}", f.id), f.text());
        found.list(!f.fails).push(a.at(file, line));
    }
}

/// One annotation per failed or flaky YAML test, at its entry in the config.
fn test_annotations(r: &RunReport, config: Option<&str>, found: &mut Found) {
    for t in &r.phases.tests.results {
        let (warning, message) = match t.status {
            TestStatus::Failed | TestStatus::Error => {
                let mut m = if t.failures.is_empty() {
                    "failed".to_string()
                } else {
                    t.failures.join("\n")
                };
                if t.attempts > 1 {
                    m.push_str(&format!("\n(after {} attempts)", t.attempts));
                }
                (false, m)
            }
            TestStatus::Flaky => (true, format!("flaky: passed on attempt {}", t.attempts)),
            TestStatus::Passed | TestStatus::NotRun => continue,
        };
        let a = Annotation::new(
            Rank::Test,
            format!("toolproof test {}", t.name),
            format!("{} (tool {})", message, t.tool),
        );
        found.list(warning).push(a.at(config, t.line));
    }
}

/// The evals' annotations, per model: the provider error or the failed gates (at the `evals:`
/// key), one per miss at the case's entry (critical misses rank with the gates), then the
/// provider errors in one. A model that passed its gates gives warnings only. The trend's
/// warnings are warnings. Returns whether a model failed (so the phase needs no annotation
/// of its own).
fn eval_annotations(
    view: &EvalsView<'_>,
    config: Option<&str>,
    places: &Places,
    found: &mut Found,
) -> bool {
    let gates_at = |a: Annotation| a.at(config, places.evals_line());
    for m in &view.models {
        let suffix = if view.several {
            format!(" ({})", m.model)
        } else {
            String::new()
        };
        let list = found.list(!m.outcome.fails());
        if let Some(error) = m.error {
            list.push(gates_at(Annotation::new(
                Rank::Verdict,
                format!("toolproof evals{suffix}: the provider could not be used"),
                format!("{error}\n{}", m.not_scored.as_deref().unwrap_or_default()),
            )));
            continue;
        }
        if let Some(unseen) = &m.tools_unseen {
            list.push(gates_at(Annotation::new(
                Rank::Verdict,
                format!("toolproof evals{suffix}: the tools never reached the model"),
                unseen.as_str(),
            )));
            continue;
        }
        if !m.failed_gates.is_empty() {
            let mut lines: Vec<&str> = m.failed_gates.iter().map(|g| g.detail.as_str()).collect();
            if m.uncached.is_some() {
                lines.push(&view.offline_hint);
            }
            list.push(gates_at(Annotation::new(
                Rank::Verdict,
                format!("toolproof evals{suffix}"),
                lines.join("\n"),
            )));
        }
        miss_annotations(m, &suffix, config, places, list);
        let broken: Vec<_> = m.rows_with(CaseStatus::ProviderError).collect();
        if let Some(first) = broken.first() {
            let names: Vec<&str> = broken.iter().map(|r| r.name).collect();
            list.push(gates_at(Annotation::new(
                Rank::Case,
                format!("toolproof evals{suffix}: provider errors"),
                format!(
                    "{} case{} got no usable answer from the provider after retries (not counted as model misses): {}\nfirst: {}",
                    broken.len(),
                    plural(broken.len()),
                    names.join(", "),
                    first.message
                ),
            )));
        }
    }
    for w in view.history.iter().flat_map(|h| &h.warnings) {
        let a = Annotation::new(Rank::Verdict, "toolproof eval miss rate", w.as_str());
        found.warnings.push(gates_at(a));
    }
    !view.passing
}

/// One annotation per miss of `m`, critical ones first, at the case's entry.
fn miss_annotations(
    m: &ModelView<'_>,
    suffix: &str,
    config: Option<&str>,
    places: &Places,
    list: &mut Vec<Annotation>,
) {
    for row in m.misses() {
        let mut message = row.message.clone();
        if let Some(why) = row.why {
            message.push_str(&format!(" (why: {why})"));
        }
        if row.critical {
            message.push_str(" [critical: must be right on every trial]");
        }
        if let Some(trials) = &row.trials_note {
            message.push_str(&format!(" [{trials}]"));
        }
        let rank = if row.critical {
            Rank::Verdict
        } else {
            Rank::Case
        };
        let file = row.file.map(|f| places.file(f)).or(config);
        let a = Annotation::new(
            rank,
            format!("toolproof eval {}{suffix}", row.name),
            message,
        );
        list.push(a.at(file, row.line));
    }
}

/// A `::warning` workflow command with `title`, for a problem of toolproof's own that the
/// Actions UI should show (one that is no finding about the server).
pub(crate) fn warning_command(title: &str, message: &str) -> String {
    format!("::warning title={}::{}", property(title), data(message))
}

/// Escapes message data. `##[` also gets a zero-width space: the runner's legacy parser looks
/// for it anywhere in a line.
fn data(text: &str) -> String {
    let cleaned = clean(text).replace("##[", "##\u{200b}[");
    let cut = truncate_chars(&cleaned, MESSAGE_CHARS);
    let mut out = String::with_capacity(cut.len());
    for c in cut.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes a property value.
fn property(text: &str) -> String {
    let cleaned = clean(text).replace("##[", "##\u{200b}[");
    let cut = truncate_chars(&cleaned, PROPERTY_CHARS);
    let mut out = String::with_capacity(cut.len());
    for c in cut.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' => out.push_str("%3A"),
            ',' => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
