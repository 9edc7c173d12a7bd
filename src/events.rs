//! Events: what the engines say while they work. Phases emit them through an [`Events`]
//! handle (cheap to clone, usable from any thread); reporters such as the live console
//! consume them. Engines never print.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

use crate::outcome::{CaseStatus, PhaseStatus, TestStatus, ToolOrder};
use crate::plan::PhaseKey;
use crate::report::redact::Redactor;

/// Something that happened during a run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// Connecting to the server named `target`.
    Connecting {
        /// URL or command line, as the user wrote it.
        target: String,
    },
    /// A phase started; `total` items (tests, cases × trials × models) will finish.
    PhaseStarted {
        /// Which phase.
        phase: PhaseKey,
        /// Items it will report.
        total: usize,
    },
    /// A tool-call test ended.
    TestFinished {
        /// Test name.
        name: String,
        /// How it ended.
        status: TestStatus,
        /// Latency of its last attempt.
        latency_ms: f64,
        /// First failure line, if any.
        failure: Option<String>,
    },
    /// A test failed an attempt and will be tried again.
    TestRetry {
        /// Test name.
        name: String,
        /// The attempt that failed (1-based).
        attempt: u32,
        /// Attempts allowed.
        of: u32,
    },
    /// Every trial of one eval case ended for one model.
    CaseFinished {
        /// Model id (empty for a command provider without one).
        model: String,
        /// Case name.
        name: String,
        /// How it ended.
        status: CaseStatus,
        /// Trials it took (items of the phase's total).
        trials: usize,
        /// What was expected.
        expected: String,
        /// What the model picked (names only).
        picked: String,
        /// Why it is wrong (the first reason), when it is.
        failure: Option<String>,
    },
    /// The stress curve starts asking one tool list.
    StressList {
        /// Distractor tools in it.
        distractors: usize,
        /// Its order.
        order: ToolOrder,
        /// Tools in it.
        tools: usize,
    },
    /// The evals start asking the rows again in the crowd (`evals.neighbours`).
    CrowdList {
        /// Tools in the crowded list.
        tools: usize,
        /// Neighbour servers in it.
        neighbours: usize,
    },
    /// The model API asked us to wait (a rate limit, an overload, a server error).
    ProviderBackoff {
        /// How long every worker waits.
        wait: Duration,
        /// Why (`429`, `529`, `timeout`…).
        reason: String,
    },
    /// A request timed out: fewer are sent at once from now on.
    ConcurrencyLowered {
        /// Requests in flight at most before.
        from: usize,
        /// Requests in flight at most now.
        to: usize,
    },
    /// News of a provider batch (submitted, picked up, progress, ended, left running).
    Batch {
        /// The model its requests ask.
        model: String,
        /// What happened, in words.
        message: String,
    },
    /// A phase ended.
    PhaseFinished {
        /// Which phase.
        phase: PhaseKey,
        /// How.
        status: PhaseStatus,
        /// Its one-line verdict or reason.
        summary: Option<String>,
    },
    /// The evals' plan, made before the first request: a line per model, the total, the
    /// budget, and whether it is a dry run.
    Plan {
        /// The lines, as printed.
        lines: Vec<String>,
    },
    /// The run is over (the last event; reporters stop here).
    Done,
}

/// Where engines send events. Cloned into worker threads; a handle with no receiver drops
/// them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Events {
    tx: Option<Sender<Event>>,
}

impl Events {
    /// A handle that drops every event.
    #[cfg(test)]
    pub(crate) fn none() -> Events {
        Events { tx: None }
    }

    /// A handle and the receiving end a reporter reads.
    pub(crate) fn channel() -> (Events, Receiver<Event>) {
        let (tx, rx) = channel();
        (Events { tx: Some(tx) }, rx)
    }

    /// Sends an event; a reporter that has gone away is not an error.
    pub(crate) fn emit(&self, event: Event) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(event);
        }
    }
}

impl Event {
    /// This event with every secret in its text replaced by `***`: what a reporter shows.
    /// Masked before any shortening, so a cut can never leave part of a secret.
    pub(crate) fn masked(&self, secrets: &Redactor) -> Event {
        let mut event = self.clone();
        if secrets.is_empty() {
            return event;
        }
        let mask = |s: &mut String| secrets.apply_in_place(s);
        match &mut event {
            Event::Connecting { target } => mask(target),
            Event::PhaseStarted { .. }
            | Event::StressList { .. }
            | Event::CrowdList { .. }
            | Event::ConcurrencyLowered { .. }
            | Event::Done => {}
            Event::TestFinished { name, failure, .. } => {
                mask(name);
                failure.iter_mut().for_each(mask);
            }
            Event::TestRetry { name, .. } => mask(name),
            Event::CaseFinished {
                model,
                name,
                expected,
                picked,
                failure,
                ..
            } => {
                for s in [model, name, expected, picked] {
                    mask(s);
                }
                failure.iter_mut().for_each(mask);
            }
            Event::ProviderBackoff { reason, .. } => mask(reason),
            Event::Batch { model, message } => {
                mask(model);
                mask(message);
            }
            Event::PhaseFinished { summary, .. } => summary.iter_mut().for_each(mask),
            Event::Plan { lines } => lines.iter_mut().for_each(mask),
        }
        event
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_of_an_event_is_masked() {
        let r = Redactor::new(&["sk-secret-1".into()]);
        let s = || "a sk-secret-1 b".to_string();
        let events = [
            Event::Connecting { target: s() },
            Event::TestFinished {
                name: s(),
                status: TestStatus::Failed,
                latency_ms: 1.0,
                failure: Some(s()),
            },
            Event::TestRetry {
                name: s(),
                attempt: 1,
                of: 2,
            },
            Event::CaseFinished {
                model: s(),
                name: s(),
                status: CaseStatus::Miss,
                trials: 1,
                expected: s(),
                picked: s(),
                failure: Some(s()),
            },
            Event::ProviderBackoff {
                wait: Duration::ZERO,
                reason: s(),
            },
            Event::PhaseFinished {
                phase: PhaseKey::Evals,
                status: PhaseStatus::Failed,
                summary: Some(s()),
            },
            Event::Batch {
                model: s(),
                message: s(),
            },
        ];
        for event in events {
            let shown = format!("{:?}", event.masked(&r));
            assert!(!shown.contains("sk-secret-1"), "{shown}");
            assert!(shown.contains("a *** b"), "{shown}");
        }
    }
}
