//! How many requests may be in flight at once: `evals.concurrency` at most, lowered when
//! requests time out, and raised again slowly after answers (additive increase, multiplicative
//! decrease).
//!
//! A server that answers one request at a time (llama.cpp, llama-cpp-python and Ollama with one
//! slot) queues the rest: with eight in flight, the last waits for seven answers and times out
//! although the server is healthy, and keeps working on the request toolproof gave up on. Some
//! (llama-cpp-python) slow down with every request they hold, so that eight at once can all time
//! out before the first is answered. Halving the window at each timeout (down to 1) makes the
//! retries queue here, where the wait costs the server nothing; after twice the window's size in
//! answers in a row it grows by one again. A server that answers nothing at all is not helped,
//! and then fails one request at a time: slower, but it fails the run either way. Every request
//! takes a [`Slot`] before it is sent and gives it back with its outcome, a retry included, so
//! retries are sent at the lowered level.
//!
//! A timeout may be toolproof's own doing: a request that shared the server with others of
//! toolproof's may have waited behind them in the server's queue. [`Released::crowded`] says so,
//! and the caller sends it again once the window has room without spending one of the case's
//! retries. That needs an adaptive window and a request sent while the window was above 1: a
//! crowded timeout lowers the window, and only answers raise it again, so a request cannot be
//! sent again for free forever; once the window is 1, a request is sent alone and its timeout is
//! the server's own.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::interrupt::Interrupt;

/// What the window did over a run: for the report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct WindowUse {
    /// The configured concurrency (the window's ceiling).
    pub configured: usize,
    /// The smallest the window was.
    pub lowest: usize,
    /// Its size at the end.
    pub last: usize,
    /// Times it was lowered.
    pub lowered: usize,
    /// Requests that timed out (whether or not the window was lowered for them).
    pub timeouts: usize,
    /// Requests that were answered (any status but a timeout).
    pub answered: usize,
}

/// A change of the window's size: from, to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resized {
    /// The size before.
    pub from: usize,
    /// The size after.
    pub to: usize,
}

#[derive(Debug)]
struct State {
    limit: usize,
    in_flight: usize,
    in_a_row: usize,
    /// Requests sent so far: a slot compares it with its own number to know whether another
    /// was sent while it was in flight.
    sent: u64,
    used: WindowUse,
}

/// The in-flight window every worker of an eval run shares.
#[derive(Debug)]
pub(crate) struct Window {
    adaptive: bool,
    state: Mutex<State>,
    freed: Condvar,
}

/// How often a waiting worker looks at the interrupt.
const POLL: Duration = Duration::from_millis(100);

impl Window {
    /// A window of `max` requests (at least 1), lowered and raised when `adaptive`.
    pub(crate) fn new(max: usize, adaptive: bool) -> Self {
        let max = max.max(1);
        Window {
            adaptive,
            state: Mutex::new(State {
                limit: max,
                in_flight: 0,
                in_a_row: 0,
                sent: 0,
                used: WindowUse {
                    configured: max,
                    lowest: max,
                    last: max,
                    ..WindowUse::default()
                },
            }),
            freed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for room in the window; `None` when `interrupt` fired meanwhile.
    pub(crate) fn acquire(&self, interrupt: &Interrupt) -> Option<Slot<'_>> {
        let mut state = self.lock();
        while state.in_flight >= state.limit {
            if interrupt.is_set() {
                return None;
            }
            state = self
                .freed
                .wait_timeout(state, POLL)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        let with_others = state.in_flight > 0;
        state.in_flight += 1;
        state.sent += 1;
        Some(Slot {
            window: self,
            number: state.sent,
            crowdable: self.adaptive && state.limit > 1,
            with_others,
        })
    }

    /// What the window did so far.
    pub(crate) fn used(&self) -> WindowUse {
        self.lock().used
    }

    fn release(&self, slot: &Slot<'_>, outcome: Outcome) -> Released {
        let mut state = self.lock();
        state.in_flight = state.in_flight.saturating_sub(1);
        let from = state.limit;
        let shared = slot.with_others || state.sent > slot.number;
        let crowded = outcome == Outcome::TimedOut && slot.crowdable && shared;
        match outcome {
            Outcome::Answered => {
                state.used.answered += 1;
                state.in_a_row += 1;
                if self.adaptive
                    && state.limit < state.used.configured
                    && state.in_a_row >= 2 * state.limit
                {
                    state.limit += 1;
                    state.in_a_row = 0;
                }
            }
            Outcome::TimedOut => {
                state.used.timeouts += 1;
                state.in_a_row = 0;
                if self.adaptive && state.limit > 1 {
                    state.limit = (state.limit / 2).max(1);
                    state.used.lowered += 1;
                    state.used.lowest = state.used.lowest.min(state.limit);
                }
            }
            Outcome::Neither => {}
        }
        state.used.last = state.limit;
        let to = state.limit;
        drop(state);
        self.freed.notify_all();
        Released {
            resized: (from != to).then_some(Resized { from, to }),
            crowded,
        }
    }
}

/// How a request ended, as the window counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The server answered (whatever the status).
    Answered,
    /// No answer within the request timeout.
    TimedOut,
    /// Anything else (a refused connection, an interrupt): no evidence either way.
    Neither,
}

/// What giving a [`Slot`] back did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Released {
    /// The window's new size, when it changed.
    pub resized: Option<Resized>,
    /// The request timed out while toolproof had other requests in flight (already when it was
    /// sent, or sent after it), so the server may have been busy with them; it was sent while
    /// the window was above 1, and the window is adaptive. Such a timeout is toolproof's own:
    /// the request is sent again once there is room, without spending a retry.
    pub crowded: bool,
}

/// Room for one request in the [`Window`]; give it back with [`Slot::done`]. Dropped without
/// it (a panic, an early return), it is given back as [`Outcome::Neither`].
#[derive(Debug)]
pub(crate) struct Slot<'a> {
    window: &'a Window,
    /// Its number among the requests sent.
    number: u64,
    /// Sent while the window was adaptive and above 1.
    crowdable: bool,
    /// Others were in flight when it was sent.
    with_others: bool,
}

impl Slot<'_> {
    /// Gives the room back, saying how the request ended.
    pub(crate) fn done(self, outcome: Outcome) -> Released {
        let released = self.window.release(&self, outcome);
        std::mem::forget(self);
        released
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.window.release(self, Outcome::Neither);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(window: &Window, outcomes: &[Outcome]) -> Vec<usize> {
        let never = Interrupt::new();
        outcomes
            .iter()
            .map(|o| {
                let slot = window.acquire(&never).expect("room");
                slot.done(*o);
                window.used().last
            })
            .collect()
    }

    use Outcome::{Answered as A, TimedOut as T};

    #[test]
    fn timeouts_halve_the_window_down_to_one() {
        let w = Window::new(8, true);
        assert_eq!(run(&w, &[A, T, T, T, T]), [8, 4, 2, 1, 1]);
        let used = w.used();
        assert_eq!((used.lowest, used.lowered, used.timeouts), (1, 3, 4));
        assert_eq!(used.answered, 1);
        // Also before any answer: eight at once may all time out at a server they overload.
        let w = Window::new(8, true);
        assert_eq!(run(&w, &[T, T]), [4, 2]);
        assert_eq!(w.used().answered, 0);
    }

    #[test]
    fn answers_in_a_row_raise_it_by_one_up_to_the_configured_size() {
        let w = Window::new(3, true);
        run(&w, &[A, T, T]);
        assert_eq!(w.used().last, 1);
        // Twice the window's size in answers in a row: 2 at 1, 4 at 2; a timeout resets it.
        assert_eq!(run(&w, &[A, A]), [1, 2]);
        assert_eq!(run(&w, &[A, A, A, T]), [2, 2, 2, 1]);
        let up = run(&w, &[A; 12]);
        assert_eq!(up, [1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3]);
        assert_eq!(w.used().configured, 3);
    }

    #[test]
    fn a_fixed_window_never_moves_and_other_outcomes_count_nothing() {
        let w = Window::new(4, false);
        assert_eq!(run(&w, &[A, T, T, T, A]), [4; 5]);
        assert_eq!(w.used().timeouts, 3);
        let w = Window::new(2, true);
        assert_eq!(run(&w, &[Outcome::Neither, A, T]), [2, 2, 1]);
        let never = Interrupt::new();
        drop(w.acquire(&never));
        assert_eq!(w.used().last, 1, "a dropped slot is no evidence");
    }

    #[test]
    fn a_timeout_is_crowded_only_when_others_were_in_flight_and_the_window_above_one() {
        let never = Interrupt::new();
        let crowded = |slot: Slot<'_>| slot.done(T).crowded;
        let w = Window::new(4, true);
        // Sent alone, nobody sent while in flight: the server's own timeout.
        assert!(!crowded(w.acquire(&never).expect("room")));
        assert_eq!(w.used().last, 2);
        // Others in flight when it was sent.
        let first = w.acquire(&never).expect("room");
        let second = w.acquire(&never).expect("room");
        assert!(crowded(second));
        assert_eq!(w.used().last, 1);
        // Another sent while it was in flight, though it ended alone: `first`, sent while the
        // window was 2, had `second` beside it.
        assert!(crowded(first));
        // Once the window is 1 a request is sent alone (nothing can join it), and its timeout
        // is its own: no endless free retries.
        assert!(!crowded(w.acquire(&never).expect("room")));
        // Two answers in a row raise it to 2: two requests at once again, crowded again.
        run(&w, &[A, A]);
        assert_eq!(w.used().last, 2);
        let first = w.acquire(&never).expect("room");
        let second = w.acquire(&never).expect("room");
        assert!(crowded(first), "sent at 2 beside another");
        assert_eq!(w.used().last, 1);
        drop(second);
        // An answer is never crowded, and a fixed window never lowers: nothing is free there.
        let w = Window::new(4, true);
        let a = w.acquire(&never).expect("room");
        let b = w.acquire(&never).expect("room");
        assert!(!a.done(A).crowded);
        drop(b);
        let w = Window::new(4, false);
        let a = w.acquire(&never).expect("room");
        let b = w.acquire(&never).expect("room");
        assert!(!crowded(a) && !crowded(b));
    }

    #[test]
    fn no_more_than_the_window_is_in_flight_and_waiters_stop_on_interrupt() {
        let w = Window::new(1, true);
        let never = Interrupt::new();
        let held = w.acquire(&never).expect("room");
        let stop = Interrupt::new();
        stop.fire(crate::interrupt::Signal::Int);
        assert!(w.acquire(&stop).is_none(), "the window is full");
        std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                w.acquire(&never)
                    .map(|slot| slot.done(Outcome::Answered).resized)
            });
            held.done(Outcome::Answered);
            // It got the room once it was given back, and 1 of 1 is not resized.
            assert_eq!(waiter.join().ok(), Some(Some(None)));
        });
        assert_eq!(w.used().answered, 2);
    }
}
