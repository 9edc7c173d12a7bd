//! Interrupts: the first SIGINT or SIGTERM stops the run cleanly (no new work starts, the
//! servers' process groups are stopped so in-flight calls end, and the reports are written
//! with the run marked interrupted); a second one exits at once.

use std::io;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::process::{self, Kill};

/// The signals toolproof handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT (Ctrl-C): exit code 130.
    Int,
    /// SIGTERM (a cancelled CI job): exit code 143.
    Term,
}

impl Signal {
    /// The exit code a run stopped by this signal ends with (128 + the signal number).
    pub fn exit_code(self) -> i32 {
        match self {
            Signal::Int => 130,
            Signal::Term => 143,
        }
    }

    /// `SIGINT` or `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Int => "SIGINT",
            Signal::Term => "SIGTERM",
        }
    }

    fn number(self) -> i32 {
        match self {
            Signal::Int => 2,
            Signal::Term => 15,
        }
    }

    fn from_number(n: i32) -> Option<Signal> {
        match n {
            2 => Some(Signal::Int),
            15 => Some(Signal::Term),
            _ => None,
        }
    }
}

/// How long servers get to end after SIGTERM before they get SIGKILL.
const ESCALATE: Duration = Duration::from_secs(3);

/// Tells the user what the first signal does, on stderr.
fn announce(signal: Signal) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "toolproof: {} received: stopping and writing the reports (send it again to exit at once)",
        signal.name()
    );
}

#[derive(Debug, Default)]
struct Inner {
    signal: AtomicI32,
    lock: Mutex<()>,
    woken: Condvar,
}

/// Whether the run was asked to stop. Clones share the state.
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    inner: Arc<Inner>,
}

impl Interrupt {
    /// A token nobody has fired.
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// Handles SIGINT and SIGTERM from now on: the first fires this token, a second exits the
    /// process at once with the first signal's code.
    pub fn install(&self) -> io::Result<()> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
        let token = self.clone();
        std::thread::Builder::new()
            .name("toolproof-signals".into())
            .spawn(move || {
                for n in signals.forever() {
                    let Some(signal) = Signal::from_number(n) else {
                        continue;
                    };
                    if let Some(first) = token.signal() {
                        // No report is put in place from now on, then the servers die.
                        process::leave();
                        process::stop_all(Kill::Kill);
                        process::reap_all(Duration::from_secs(1));
                        std::process::exit(first.exit_code());
                    }
                    token.fire(signal);
                    announce(signal);
                    process::stop_all(Kill::Term);
                    // A server that ignores SIGTERM must not hold the run: it gets SIGKILL.
                    std::thread::spawn(|| {
                        std::thread::sleep(ESCALATE);
                        process::stop_all(Kill::Kill);
                    });
                }
            })?;
        Ok(())
    }

    /// Asks the run to stop: records the signal (the first one wins) and wakes every
    /// interruptible wait. (The signal handler also stops the children's process groups, so
    /// that calls in flight end.)
    pub fn fire(&self, signal: Signal) {
        let _ = self.inner.signal.compare_exchange(
            0,
            signal.number(),
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        {
            let _held = self.inner.lock.lock();
            self.inner.woken.notify_all();
        }
    }

    /// The signal that stopped the run, if one did.
    pub fn signal(&self) -> Option<Signal> {
        Signal::from_number(self.inner.signal.load(Ordering::SeqCst))
    }

    /// Whether the run was asked to stop.
    pub fn is_set(&self) -> bool {
        self.signal().is_some()
    }

    /// Waits `wait`, or less when the run is asked to stop; returns whether it waited it all.
    pub fn sleep(&self, wait: Duration) -> bool {
        let until = Instant::now() + wait;
        let mut held = self
            .inner
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if self.is_set() {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            held = match self.inner.woken.wait_timeout(held, until - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_signal_wins_and_wakes_sleepers() {
        let token = Interrupt::new();
        assert!(token.sleep(Duration::from_millis(1)));
        let other = token.clone();
        let sleeper = std::thread::spawn(move || other.sleep(Duration::from_secs(3600)));
        token.fire(Signal::Term);
        token.fire(Signal::Int);
        assert_eq!(sleeper.join().ok(), Some(false));
        assert_eq!(token.signal(), Some(Signal::Term));
        assert_eq!(token.signal().map(Signal::exit_code), Some(143));
        assert!(!token.sleep(Duration::from_secs(3600)));
    }
}
