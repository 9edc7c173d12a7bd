//! Live progress: an event consumer on its own thread that tells the user, on stderr, what
//! the run is doing while it does it. Each test and eval case is printed as it finishes; on a
//! terminal a progress bar shows done/total and the elapsed time; off a terminal a heartbeat
//! line (`evals: 120/400 cases, 1m30s`) is printed at least every [`LiveMode::heartbeat`] while anything
//! runs, so CI systems never see a silent step; under GitHub Actions each long phase is folded
//! into a `::group::`. Text from servers and models has the run's secrets masked, is cleaned,
//! and has workflow commands in it defused, before it is printed.

use std::io::Write;
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use unicode_width::UnicodeWidthStr;

use crate::events::Event;
use crate::outcome::{CaseStatus, PhaseStatus, TestStatus};
use crate::plan::PhaseKey;
use crate::report::escape::{clean, defuse_workflow_commands, format_ms, truncate_chars};
use crate::report::redact::Redactor;
use crate::settings::LiveMode;

/// Longest piece of untrusted text on one live line, in characters.
const LINE_CHARS: usize = 160;

/// The live reporter's thread.
#[derive(Debug)]
pub(crate) struct Live {
    thread: Option<JoinHandle<()>>,
}

impl Live {
    /// Starts consuming `events` (until [`Event::Done`] or the senders are gone); `secrets`
    /// are masked in every line.
    pub(crate) fn start(mode: LiveMode, secrets: Redactor, events: Receiver<Event>) -> Live {
        let thread = std::thread::Builder::new()
            .name("toolproof-live".into())
            .spawn(move || consume(mode, &secrets, &events))
            .ok();
        Live { thread }
    }

    /// Waits until every event is shown.
    pub(crate) fn finish(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Lines waiting in [`View::pending`] are written once they reach this many bytes.
const PENDING_LIMIT: usize = 64 << 10;

fn consume(mode: LiveMode, secrets: &Redactor, events: &Receiver<Event>) {
    let started = Instant::now();
    let mut view = View::new(mode, started);
    let mut done = false;
    while !done {
        let wait = view.beat.next_due(Instant::now());
        let mut next = events.recv_timeout(wait);
        // Events that came in together (answers read from the cache) are shown with one
        // write; a lone event is written as soon as it is shown.
        loop {
            match next {
                Ok(Event::Done) | Err(RecvTimeoutError::Disconnected) => done = true,
                Ok(event) => view.show(&event.masked(secrets)),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if done || view.pending.len() >= PENDING_LIMIT {
                break;
            }
            next = match events.try_recv() {
                Ok(event) => Ok(event),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => Err(RecvTimeoutError::Disconnected),
            };
        }
        view.flush();
        if let Some(line) = view.beat.due(Instant::now())
            && !mode.quiet
            && view.bar.is_none()
            && !done
        {
            view.print(&line);
            view.flush();
        }
    }
    view.close();
}

/// What is running and how far it got: the heartbeat's state.
#[derive(Debug, Clone)]
pub(crate) struct Heartbeat {
    every: Duration,
    run_started: Instant,
    last: Instant,
    activity: Option<Activity>,
}

#[derive(Debug, Clone)]
struct Activity {
    label: String,
    unit: &'static str,
    done: usize,
    total: usize,
}

impl Heartbeat {
    /// A heartbeat every `every`, timed from `now`.
    pub(crate) fn new(every: Duration, now: Instant) -> Heartbeat {
        Heartbeat {
            every,
            run_started: now,
            last: now,
            activity: None,
        }
    }

    /// Something started: `label` (`evals`), counted in `unit` (`cases`) up to `total`.
    pub(crate) fn start(&mut self, label: &str, unit: &'static str, total: usize) {
        self.activity = Some(Activity {
            label: label.to_owned(),
            unit,
            done: 0,
            total,
        });
    }

    /// One more item of the current activity finished.
    pub(crate) fn step(&mut self) {
        if let Some(a) = &mut self.activity {
            a.done += 1;
        }
    }

    /// Nothing runs any more.
    pub(crate) fn stop(&mut self) {
        self.activity = None;
    }

    /// How long to wait for the next event before a heartbeat may be due.
    pub(crate) fn next_due(&self, now: Instant) -> Duration {
        (self.last + self.every).saturating_duration_since(now)
    }

    /// The heartbeat line, when one is due at `now` and something runs.
    pub(crate) fn due(&mut self, now: Instant) -> Option<String> {
        if now < self.last + self.every {
            return None;
        }
        self.last = now;
        let a = self.activity.as_ref()?;
        let elapsed = clock(now.saturating_duration_since(self.run_started));
        Some(if a.total > 0 {
            format!("{}: {}/{} {}, {elapsed}", a.label, a.done, a.total, a.unit)
        } else {
            format!("{}: {elapsed}", a.label)
        })
    }
}

/// `45s`, `1m30s`, `1h02m05s`.
pub(crate) fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, min, sec) => format!("{min}m{sec:02}s"),
        (h, min, sec) => format!("{h}h{min:02}m{sec:02}s"),
    }
}

struct View {
    mode: LiveMode,
    beat: Heartbeat,
    bar: Option<ProgressBar>,
    group_open: bool,
    /// The provider error a case line showed last.
    last_error: Option<String>,
    /// Lines shown but not yet written to stderr (see [`View::flush`]).
    pending: String,
}

impl View {
    fn new(mode: LiveMode, now: Instant) -> View {
        View {
            mode,
            beat: Heartbeat::new(mode.heartbeat, now),
            bar: None,
            group_open: false,
            last_error: None,
            pending: String::new(),
        }
    }

    fn show(&mut self, event: &Event) {
        match event {
            Event::Connecting { target } => {
                self.beat.start("connecting", "", 0);
                self.print(&format!("connecting to {}", untrusted(target)));
            }
            Event::PhaseStarted { phase, total } => self.phase_started(*phase, *total),
            Event::TestFinished {
                name,
                status,
                latency_ms,
                failure,
            } => {
                self.beat.step();
                let mut line = format!(
                    "  {:<5} {} ({})",
                    test_word(*status),
                    untrusted(name),
                    format_ms(*latency_ms)
                );
                if let Some(f) = failure.as_deref().filter(|_| !is_ok(*status)) {
                    line.push_str(": ");
                    line.push_str(&untrusted(f));
                }
                self.item(&line);
            }
            Event::TestRetry { name, attempt, of } => {
                self.print(&format!(
                    "  RETRY {} (attempt {attempt} of {of} failed)",
                    untrusted(name)
                ));
            }
            Event::CaseFinished { .. } => self.case_finished(event),
            Event::StressList {
                distractors,
                order,
                tools,
            } => self.print(&stress_list_line(*distractors, *order, *tools)),
            Event::CrowdList { tools, neighbours } => self.print(&format!(
                "  -- in the crowd: {tools} tools with {neighbours} neighbour server{}",
                if *neighbours == 1 { "" } else { "s" }
            )),
            Event::ProviderBackoff { wait, reason } => self.print(&format!(
                "  WAIT  retrying in {:.1}s: {}",
                wait.as_secs_f64(),
                untrusted(reason)
            )),
            Event::Batch { model, message } => {
                let who = if model.is_empty() {
                    String::new()
                } else {
                    format!("[{}] ", untrusted(model))
                };
                self.print(&format!("  BATCH {who}{}", untrusted(message)));
            }
            Event::ConcurrencyLowered { from, to } => self.print(&format!(
                "  SLOW  a request timed out: {to} in flight at most now (was {from}); if the server serves fewer at once, set evals.concurrency"
            )),
            Event::PhaseFinished {
                phase,
                status,
                summary,
            } => self.phase_finished(*phase, *status, summary.as_deref()),
            Event::Plan { lines } => {
                for line in lines {
                    self.print(&format!("  {}", untrusted(line)));
                }
            }
            Event::Done => {}
        }
    }

    /// One line per eval case: its mark, model and name, and why it is not right.
    fn case_finished(&mut self, event: &Event) {
        let Event::CaseFinished {
            model,
            name,
            status,
            expected,
            picked,
            failure,
            ..
        } = event
        else {
            return;
        };
        self.beat.step();
        let who = if model.is_empty() {
            String::new()
        } else {
            format!("[{}] ", untrusted(model))
        };
        let mut line = format!("  {:<5} {who}{}", case_word(*status), untrusted(name));
        match failure {
            Some(why) if *status != CaseStatus::Correct => {
                line.push_str(": ");
                line.push_str(&self.unless_repeated(*status, why));
            }
            None if *status != CaseStatus::Correct => line.push_str(&format!(
                ": expected {}, got {}",
                untrusted(expected),
                untrusted(picked)
            )),
            _ => {}
        }
        self.item(&line);
    }

    /// A case's failure as shown; a provider error the same as the one shown last is not
    /// repeated (a server down for every case would fill the log with one message).
    fn unless_repeated(&mut self, status: CaseStatus, why: &str) -> String {
        if status != CaseStatus::ProviderError {
            return untrusted(why);
        }
        if self.last_error.as_deref() == Some(why) {
            return "the same provider error as above".into();
        }
        self.last_error = Some(why.to_owned());
        untrusted(why)
    }

    fn phase_started(&mut self, phase: PhaseKey, total: usize) {
        let (one, many) = match phase {
            PhaseKey::Checks | PhaseKey::Fuzz => ("tool", "tools"),
            PhaseKey::Tests => ("test", "tests"),
            PhaseKey::Evals | PhaseKey::Lint | PhaseKey::Stress => ("case", "cases"),
            PhaseKey::Bench => ("target", "targets"),
            PhaseKey::Protocol => ("check", "checks"),
        };
        let unit = if total == 1 { one } else { many };
        self.beat.start(phase.key(), unit, total);
        // Pure and quick: no group, no bar, only the line when it finishes.
        if matches!(phase, PhaseKey::Checks | PhaseKey::Lint) {
            return;
        }
        if self.mode.groups && !self.mode.quiet {
            self.print(&format!("::group::{} ({total} {unit})", phase.key()));
            self.group_open = true;
        } else {
            self.print(&format!("{}: {total} {unit} to run", phase.key()));
        }
        if self.mode.bar && !self.mode.quiet {
            self.flush();
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {elapsed}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(phase.key());
            self.bar = Some(bar);
        }
    }

    fn phase_finished(&mut self, phase: PhaseKey, status: PhaseStatus, summary: Option<&str>) {
        self.beat.stop();
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if self.group_open {
            self.print("::endgroup::");
            self.group_open = false;
        }
        let mut line = format!("{}: {}", phase.key(), phase_word(status));
        if let Some(s) = summary.filter(|s| !s.is_empty()) {
            line.push_str(" - ");
            line.push_str(&untrusted(s));
        }
        self.print(&line);
    }

    /// A finished item: above the bar on a terminal, a plain line elsewhere.
    fn item(&mut self, line: &str) {
        self.print(line);
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    fn print(&mut self, line: &str) {
        if self.mode.quiet {
            return;
        }
        let lines = match self.mode.width {
            Some(width) => fit(line, width),
            None => vec![line.to_owned()],
        };
        let mut text = paint_marks(&lines[0], self.mode.color);
        for more in &lines[1..] {
            text.push('\n');
            text.push_str(more);
        }
        if self.bar.is_some() {
            self.flush();
        }
        match &self.bar {
            Some(bar) => bar.println(text),
            None => {
                self.pending.push_str(&text);
                self.pending.push('\n');
            }
        }
    }

    /// Writes the lines shown so far, at once: stderr is unbuffered.
    fn flush(&mut self) {
        if !self.pending.is_empty() {
            let _ = std::io::stderr().lock().write_all(self.pending.as_bytes());
            self.pending.clear();
        }
    }

    fn close(&mut self) {
        self.flush();
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if self.group_open {
            self.print("::endgroup::");
            self.group_open = false;
        }
        self.flush();
    }
}

/// `  -- 25 distractors, server order (30 tools)`: the stress curve moves to its next list.
fn stress_list_line(distractors: usize, order: crate::outcome::ToolOrder, tools: usize) -> String {
    format!(
        "  -- {distractors} distractor{}, {} ({tools} tools)",
        if distractors == 1 { "" } else { "s" },
        order.label()
    )
}

/// Untrusted text on one line: control characters shown, workflow commands defused, cut.
/// `line` in lines of at most `width` columns, broken at spaces (a word longer than a line
/// stands alone), the lines after the first indented under the text after the mark.
fn fit(line: &str, width: usize) -> Vec<String> {
    const INDENT: &str = "        ";
    if line.width() <= width {
        return vec![line.to_owned()];
    }
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut words = 0;
    for word in line.split(' ') {
        if words > 0 && current.width() + 1 + word.width() > width && !word.is_empty() {
            lines.push(current.trim_end().to_owned());
            current = INDENT.to_owned();
            words = 0;
        }
        if words > 0 {
            current.push(' ');
        }
        current.push_str(word);
        words += 1;
    }
    lines.push(current.trim_end().to_owned());
    lines
}

fn untrusted(text: &str) -> String {
    let one_line = clean(text).replace('\n', " ");
    defuse_workflow_commands(&truncate_chars(&one_line, LINE_CHARS)).into_owned()
}

fn is_ok(status: TestStatus) -> bool {
    matches!(status, TestStatus::Passed | TestStatus::Flaky)
}

fn test_word(status: TestStatus) -> &'static str {
    match status {
        TestStatus::Passed => "PASS",
        TestStatus::Flaky => "FLAKY",
        TestStatus::Failed => "FAIL",
        TestStatus::Error => "ERROR",
        TestStatus::NotRun => "SKIP",
    }
}

fn case_word(status: CaseStatus) -> &'static str {
    match status {
        CaseStatus::Correct => "PASS",
        CaseStatus::Miss => "MISS",
        CaseStatus::ProviderError => "ERROR",
        CaseStatus::NotRun => "SKIP",
    }
}

fn phase_word(status: PhaseStatus) -> &'static str {
    match status {
        PhaseStatus::Passed => "PASS",
        PhaseStatus::Failed => "FAIL",
        PhaseStatus::Skipped => "SKIP",
        PhaseStatus::Error => "ERROR",
    }
}

/// Colours the status word a line starts with (after its indent).
fn paint_marks(line: &str, color: bool) -> String {
    if !color {
        return line.to_owned();
    }
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    let word_end = trimmed.find([' ', ':']).unwrap_or(trimmed.len());
    let (word, rest) = trimmed.split_at(word_end);
    let code = match word {
        "PASS" => "32",
        "FAIL" | "MISS" => "31",
        "ERROR" => "1;31",
        "FLAKY" | "RETRY" | "WAIT" => "33",
        "SKIP" => "2",
        _ => return line.to_owned(),
    };
    format!("{indent}\x1b[{code}m{word}\x1b[0m{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heartbeats_come_every_interval_while_something_runs() {
        let t0 = Instant::now();
        let mut beat = Heartbeat::new(Duration::from_secs(20), t0);
        assert_eq!(beat.due(t0 + Duration::from_secs(25)), None, "nothing runs");
        beat.start("evals", "cases", 400);
        for _ in 0..120 {
            beat.step();
        }
        assert_eq!(beat.due(t0 + Duration::from_secs(30)), None, "too soon");
        assert_eq!(
            beat.next_due(t0 + Duration::from_secs(30)),
            Duration::from_secs(15)
        );
        assert_eq!(
            beat.due(t0 + Duration::from_secs(90)).as_deref(),
            Some("evals: 120/400 cases, 1m30s")
        );
        assert_eq!(beat.due(t0 + Duration::from_secs(100)), None);
        beat.stop();
        assert_eq!(beat.due(t0 + Duration::from_secs(200)), None);
    }

    #[test]
    fn clocks_read_naturally() {
        assert_eq!(clock(Duration::from_secs(45)), "45s");
        assert_eq!(clock(Duration::from_secs(90)), "1m30s");
        assert_eq!(clock(Duration::from_secs(3725)), "1h02m05s");
    }

    #[test]
    fn long_lines_wrap_at_spaces_under_the_text_after_the_mark() {
        let line =
            "  FAIL  water boils (0.4ms): output schema: /value: \"212\" is not of type \"number\"";
        assert_eq!(
            fit(line, 40),
            [
                "  FAIL  water boils (0.4ms): output",
                "        schema: /value: \"212\" is not of",
                "        type \"number\"",
            ]
        );
        assert_eq!(fit("  PASS  short", 40), ["  PASS  short"]);
        let long = format!("  FAIL  {}", "x".repeat(50));
        assert_eq!(
            fit(&long, 40),
            ["  FAIL", &format!("        {}", "x".repeat(50))]
        );
    }

    #[test]
    fn untrusted_text_is_one_clean_line_without_workflow_commands() {
        let shown = untrusted("::error::boom\nnext \u{1b}[31mred");
        assert!(!shown.contains('\n'), "{shown}");
        assert!(!shown.contains('\u{1b}'), "{shown}");
        assert!(!shown.starts_with("::"), "{shown}");
        assert!(shown.ends_with("boom next red"), "{shown}");
    }

    #[test]
    fn status_words_are_coloured_only_when_asked() {
        assert_eq!(paint_marks("  PASS  a (1ms)", false), "  PASS  a (1ms)");
        assert_eq!(
            paint_marks("  MISS  a", true),
            "  \u{1b}[31mMISS\u{1b}[0m  a"
        );
        assert_eq!(paint_marks("connecting to x", true), "connecting to x");
    }
}
