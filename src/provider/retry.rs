//! When to ask a model API again, and how long to wait: the retry policy, the `retry-after`
//! headers, exponential backoff with jitter, and the [`Pacer`] every worker thread shares so
//! that a rate limit seen by one worker slows them all.
//!
//! The pacer also holds the in-flight [`Window`] (see [`super::window`]) and counts the
//! requests sent and retried, for the report.
//!
//! The rules follow the official SDKs (Stainless): `x-should-retry` decides first; otherwise
//! 408, 409, 429 and 5xx are retried; the wait is `retry-after-ms`, else `retry-after` (seconds
//! or an HTTP date) when it is within 60 s, else `base × 2^n` capped at `max_delay`, minus up to
//! 25 % jitter.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::window::{Outcome, Slot, Window, WindowUse};
use crate::interrupt::Interrupt;

/// How often and how patiently a request is retried.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RetryPolicy {
    /// Retries after the first attempt. A request that timed out crowded by toolproof's own
    /// (see [`super::window::Released::crowded`]) is sent again without spending one.
    pub max_retries: u32,
    /// Wait before the first retry when the server gives no `retry-after`.
    pub base_delay: Duration,
    /// Longest computed wait between two attempts.
    pub max_delay: Duration,
    /// Budget of one HTTP request, from connecting to the last byte of the answer.
    pub request_timeout: Duration,
}

impl Default for RetryPolicy {
    /// 4 retries, 0.5 s doubling up to 8 s, 120 s per request.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            request_timeout: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    #[cfg(test)]
    /// Tiny waits (5 ms doubling up to 20 ms, 10 s per request) for tests against a fake API.
    pub(crate) fn quick(max_retries: u32) -> Self {
        RetryPolicy {
            max_retries,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(20),
            request_timeout: Duration::from_secs(10),
        }
    }
}

/// What a pacer announces while it works: the run turns these into its events.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Notice {
    /// A wait before a retry, and why.
    Backoff {
        /// How long.
        wait: Duration,
        /// Why (the server's words or toolproof's).
        reason: String,
    },
    /// The in-flight window shrank.
    ConcurrencyLowered {
        /// Requests allowed in flight before.
        from: usize,
        /// And now.
        to: usize,
    },
}

/// Where a pacer's [`Notice`]s go.
pub(crate) type Notify = Box<dyn Fn(Notice) + Send + Sync>;

/// The retry policy plus the shared "nobody sends before" instant. One per eval run, shared by
/// reference between the worker threads.
pub(crate) struct Pacer {
    policy: RetryPolicy,
    not_before: Mutex<Instant>,
    seed: AtomicU64,
    /// Where waits are announced.
    notify: Notify,
    /// Cuts waits short when the run is stopped.
    interrupt: Interrupt,
    /// How many requests may be in flight.
    window: Window,
    /// HTTP requests sent, retries included.
    sent: AtomicUsize,
    /// Of them, retries.
    retried: AtomicUsize,
}

/// What the requests of a run came to: how many were sent and retried, and what the
/// in-flight window did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PacerUse {
    /// HTTP requests sent, retries included.
    pub requests: usize,
    /// Of them, retries.
    pub retries: usize,
    /// The in-flight window.
    pub window: WindowUse,
}

impl std::fmt::Debug for Pacer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pacer")
            .field("policy", &self.policy)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer::new(RetryPolicy::default())
    }
}

impl Pacer {
    /// A pacer with this policy and nobody held back.
    pub(crate) fn new(policy: RetryPolicy) -> Self {
        Pacer::observed(policy, Box::new(|_| {}), Interrupt::new())
    }

    /// A pacer that announces its waits and a shrinking window to `notify` and cuts waits short
    /// when `interrupt` fires.
    pub(crate) fn observed(policy: RetryPolicy, notify: Notify, interrupt: Interrupt) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Pacer {
            policy,
            not_before: Mutex::new(Instant::now()),
            seed: AtomicU64::new(nanos | 1),
            notify,
            interrupt,
            window: Window::new(usize::MAX, false),
            sent: AtomicUsize::new(0),
            retried: AtomicUsize::new(0),
        }
    }

    /// The same pacer with at most `max` requests in flight, a window lowered and raised as
    /// requests time out and get answered when `adaptive` (see [`super::window`]).
    pub(crate) fn with_window(mut self, max: usize, adaptive: bool) -> Self {
        self.window = Window::new(max, adaptive);
        self
    }

    /// Waits for room in the window before a request is sent, and counts it (`retry` when it
    /// is not the first attempt); `None` when the run was stopped meanwhile.
    pub(crate) fn slot(&self, retry: bool) -> Option<Slot<'_>> {
        let slot = self.window.acquire(&self.interrupt)?;
        self.sent.fetch_add(1, Ordering::Relaxed);
        if retry {
            self.retried.fetch_add(1, Ordering::Relaxed);
        }
        Some(slot)
    }

    /// Gives a request's room back with how it ended; says so when the window was lowered.
    /// Returns whether it timed out crowded by toolproof's own requests (see
    /// [`super::window::Released::crowded`]): then it is sent again without spending a retry.
    pub(crate) fn done(&self, slot: Slot<'_>, outcome: Outcome) -> bool {
        let released = slot.done(outcome);
        if let Some(r) = released.resized
            && r.to < r.from
        {
            (self.notify)(Notice::ConcurrencyLowered {
                from: r.from,
                to: r.to,
            });
        }
        released.crowded
    }

    /// What the run's requests came to so far.
    pub(crate) fn usage(&self) -> PacerUse {
        PacerUse {
            requests: self.sent.load(Ordering::Relaxed),
            retries: self.retried.load(Ordering::Relaxed),
            window: self.window.used(),
        }
    }

    /// Whether the run was stopped: no new request should be sent.
    pub(crate) fn stopped(&self) -> bool {
        self.interrupt.is_set()
    }

    /// Waits `wait` before a retry, announcing why; holds every worker back when the server
    /// is limiting or overloaded (`everyone`), else only this one. Returns `false` when the
    /// run was stopped meanwhile.
    pub(crate) fn back_off(&self, wait: Duration, why: &str, everyone: bool) -> bool {
        (self.notify)(Notice::Backoff {
            wait,
            reason: why.to_owned(),
        });
        if everyone {
            self.hold_everyone(wait);
            true
        } else {
            self.interrupt.sleep(wait)
        }
    }

    /// The policy in force.
    pub(crate) fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Blocks until every hold placed by [`Pacer::hold_everyone`] has passed.
    pub(crate) fn wait_turn(&self) {
        loop {
            let until = *self
                .not_before
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let now = Instant::now();
            if now >= until {
                return;
            }
            if !self.interrupt.sleep(until - now) {
                return;
            }
        }
    }

    /// Keeps every worker from sending for `wait` from now (an earlier hold that ends later
    /// stays).
    pub(crate) fn hold_everyone(&self, wait: Duration) {
        let until = Instant::now() + wait;
        let mut held = self
            .not_before
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if until > *held {
            *held = until;
        }
    }

    #[cfg(test)]
    /// Whether a hold is in force right now (a progress display can say "rate limited").
    pub(crate) fn is_holding(&self) -> bool {
        *self
            .not_before
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            > Instant::now()
    }

    /// The computed wait before retry number `retry` (0 for the first): `base × 2^retry`,
    /// capped at `max_delay`, scaled by a random factor in (0.75, 1].
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let full = self
            .policy
            .base_delay
            .saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX))
            .min(self.policy.max_delay);
        full.mul_f64(1.0 - 0.25 * self.random())
    }

    /// A number in [0, 1) from a shared xorshift generator (jitter needs no quality).
    fn random(&self) -> f64 {
        let mut x = self.seed.load(Ordering::Relaxed);
        loop {
            let mut next = x;
            next ^= next << 13;
            next ^= next >> 7;
            next ^= next << 17;
            match self
                .seed
                .compare_exchange_weak(x, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return (next >> 11) as f64 / (1u64 << 53) as f64,
                Err(seen) => x = seen,
            }
        }
    }
}

/// Whether a status is worth retrying when the server says nothing about it.
pub(crate) fn retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// Whether a status means the server is overloaded or limiting us, so every worker should slow
/// down and not only the one that saw it.
pub(crate) fn slows_everyone(status: u16) -> bool {
    matches!(status, 429 | 503 | 529)
}

/// The `x-should-retry` header: `Some(true)`/`Some(false)` when the server decided.
pub(crate) fn should_retry(value: Option<&str>) -> Option<bool> {
    match value?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_with_at_most_a_quarter_off() {
        let pacer = Pacer::new(RetryPolicy {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            request_timeout: Duration::from_secs(1),
        });
        for (retry, full) in [
            (0, 500),
            (1, 1000),
            (2, 2000),
            (3, 4000),
            (4, 8000),
            (9, 8000),
        ] {
            for _ in 0..50 {
                let d = pacer.backoff(retry).as_millis();
                assert!(d <= full && d * 4 >= full * 3, "retry {retry}: {d} ms");
            }
        }
        // Huge retry numbers neither overflow nor exceed the cap.
        let huge = pacer.backoff(200);
        assert!(huge >= Duration::from_millis(6000) && huge <= Duration::from_secs(8));
        // The jitter varies.
        let mut seen: Vec<u128> = (0..20).map(|_| pacer.backoff(3).as_micros()).collect();
        seen.dedup();
        assert!(seen.len() > 1);
    }

    #[test]
    fn statuses_and_should_retry() {
        for s in [408, 409, 429, 500, 502, 503, 529] {
            assert!(retryable_status(s), "{s}");
        }
        for s in [400, 401, 402, 403, 404, 413, 422] {
            assert!(!retryable_status(s), "{s}");
        }
        assert!(slows_everyone(429) && slows_everyone(529) && !slows_everyone(500));
        assert_eq!(should_retry(Some("false")), Some(false));
        assert_eq!(should_retry(Some(" true")), Some(true));
        assert_eq!(should_retry(Some("maybe")), None);
        assert_eq!(should_retry(None), None);
    }

    #[test]
    fn a_hold_keeps_every_thread_waiting() {
        let pacer = Pacer::new(RetryPolicy::default());
        let start = Instant::now();
        pacer.hold_everyone(Duration::from_millis(150));
        // A shorter hold placed later does not shorten it.
        pacer.hold_everyone(Duration::from_millis(10));
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| pacer.wait_turn());
            }
        });
        assert!(start.elapsed() >= Duration::from_millis(150));
        // Once passed, nobody is held.
        assert!(!pacer.is_holding());
    }
}
