//! The budget as the workers draw on it: each request takes one from the count before it is
//! sent, each answer adds its cost, and once either limit is reached no new request starts
//! (those in flight are kept). Cached answers never touch it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::outcome::BudgetUse;
use crate::provider::prices::{dollars, picodollars};
use crate::settings::Budget;

/// What one run's evals spent, against what they may.
#[derive(Debug)]
pub(super) struct Spend {
    max_requests: Option<u64>,
    max_picodollars: Option<u64>,
    requests: AtomicU64,
    picodollars: AtomicU64,
    reached: AtomicBool,
}

impl Spend {
    pub(super) fn new(budget: &Budget) -> Spend {
        Spend {
            max_requests: budget.requests.value,
            max_picodollars: budget.usd.value.map(picodollars),
            requests: AtomicU64::new(0),
            picodollars: AtomicU64::new(0),
            reached: AtomicBool::new(false),
        }
    }

    /// No limit: the stress curve's lists.
    pub(super) fn unlimited() -> Spend {
        Spend {
            max_requests: None,
            max_picodollars: None,
            requests: AtomicU64::new(0),
            picodollars: AtomicU64::new(0),
            reached: AtomicBool::new(false),
        }
    }

    /// Takes one request from the budget: `false` (and the budget is reached) when the
    /// requests are all taken or the dollars spent.
    pub(super) fn take(&self) -> bool {
        if self
            .max_picodollars
            .is_some_and(|max| self.picodollars.load(Ordering::SeqCst) >= max)
        {
            self.reached.store(true, Ordering::SeqCst);
            return false;
        }
        let taken = self.requests.fetch_add(1, Ordering::SeqCst);
        if self.max_requests.is_some_and(|max| taken >= max) {
            self.requests.fetch_sub(1, Ordering::SeqCst);
            self.reached.store(true, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// Takes `n` requests at once (a batch): all of them, or none when fewer are left.
    pub(super) fn take_many(&self, n: u64) -> bool {
        let taken = self.requests.fetch_add(n, Ordering::SeqCst);
        if self
            .max_requests
            .is_some_and(|max| taken.saturating_add(n) > max)
        {
            self.requests.fetch_sub(n, Ordering::SeqCst);
            self.reached.store(true, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// An answer's cost, in dollars.
    pub(super) fn spent(&self, usd: f64) {
        self.picodollars
            .fetch_add(picodollars(usd), Ordering::SeqCst);
    }

    /// Whether a request was refused for want of budget.
    pub(super) fn reached(&self) -> bool {
        self.reached.load(Ordering::SeqCst)
    }

    /// Requests taken so far.
    pub(super) fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// `budget reached after 3 requests ($0.0123 spent; budget: 3 requests (--max-requests))`.
    pub(super) fn reached_text(&self, budget: &Budget) -> String {
        let n = self.requests();
        format!(
            "budget reached after {n} request{} (${:.4} spent; budget: {})",
            if n == 1 { "" } else { "s" },
            dollars(self.picodollars.load(Ordering::SeqCst)),
            budget.text()
        )
    }

    /// What the report says of the budget.
    pub(super) fn used(&self, budget: &Budget) -> BudgetUse {
        BudgetUse {
            max_requests: budget.requests.value,
            max_usd: budget.usd.value,
            requests: self.requests(),
            usd: dollars(self.picodollars.load(Ordering::SeqCst)),
            stopped: self.reached().then(|| self.reached_text(budget)),
            over_plan: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{Origin, Resolved};

    fn budget(requests: Option<u64>, usd: Option<f64>) -> Budget {
        Budget {
            requests: Resolved {
                value: requests,
                origin: Origin::Flag("--max-requests"),
            },
            usd: Resolved {
                value: usd,
                origin: Origin::Flag("--max-cost"),
            },
        }
    }

    #[test]
    fn requests_stop_at_the_count_and_dollars_once_spent() {
        let spend = Spend::new(&budget(Some(2), None));
        assert!(spend.take() && spend.take());
        assert!(!spend.take() && spend.reached());
        assert_eq!(spend.requests(), 2);
        assert!(
            spend
                .reached_text(&budget(Some(2), None))
                .starts_with("budget reached after 2 requests")
        );

        let spend = Spend::new(&budget(None, Some(0.01)));
        assert!(spend.take());
        spend.spent(0.006);
        assert!(spend.take());
        spend.spent(0.006);
        assert!(!spend.take() && spend.reached());

        // A batch takes all its requests or none.
        let spend = Spend::new(&budget(Some(5), None));
        assert!(!spend.take_many(6));
        assert_eq!(spend.requests(), 0);
        let spend = Spend::new(&budget(Some(5), None));
        assert!(spend.take_many(5) && !spend.take());

        let free = Spend::new(&budget(None, None));
        assert!((0..1000).all(|_| free.take()) && !free.reached());
    }
}
