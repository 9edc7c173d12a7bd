//! Adaptive trials (`trials: auto`): which rows get another trial, in what order, and when a
//! row is decided. Pure: the engine hands in each row's answers so far (and the base's, when
//! the run has a base) and asks the rows this returns, one more trial each, in waves.
//!
//! Each row runs its own truncated sequential probability ratio test (Wald's SPRT) on its
//! answers, between `min_trials` and `max_trials`:
//!
//! - **With a base row** `(k, n)`: H0 "the row's rate is the base's", `r = (k + ½) / (n + 1)`
//!   held within `[0.02, 0.98]`, against H1 "it dropped by [`DROP`]", `max(r − 0.5, 0.01)`, at
//!   α = [`WITH_BASE`]`.0` (a row that kept its rate is called dropped) and β =
//!   [`WITH_BASE`]`.1` (a dropped row is called kept). The row stops as soon as either
//!   boundary is crossed, or at `⌈max_trials / 2⌉` trials: the base already holds the row's
//!   rate, and a row still undecided by then is a noisy row that adds more variance than
//!   evidence to the paired test.
//! - **Without a base**: H0 "the row is stable" (its majority answer comes with rate 0.98)
//!   against H1 "it is ambiguous" (rate 0.48), at α = [`NO_BASE`]`.0`, β = [`NO_BASE`]`.1`, up
//!   to `max_trials`. A run without a base is the base of the next one: the stricter rates buy
//!   the next run's comparison a well-known rate for every row.
//!
//! The per-row rates bound each row's decision (Wald: a wrong call on a row has probability at
//! most α / (1 − β) and β / (1 − α)); the verdict on the whole run is the paired test's, whose
//! error rates under this schedule are measured by the simulation in the tests (see
//! `docs/statistics.md`, "Adaptive trials").

use std::collections::{HashMap, HashSet};

use crate::config::CaseTrials;

/// What the engine knows of the base run of one model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Base {
    /// Each case's `(correct, trials)` in the base run, by case identity (as sharding and
    /// history lines name cases).
    pub rows: HashMap<String, (u32, u32)>,
    /// The tools whose definition changed (or that were added) since the base.
    pub changed_tools: HashSet<String>,
}

impl Base {
    /// Whether the expected tool or one of the picked tools changed since the base.
    pub(crate) fn changed<'a>(
        &self,
        expected: Option<&'a str>,
        picked: impl IntoIterator<Item = &'a str>,
    ) -> bool {
        expected
            .into_iter()
            .chain(picked)
            .any(|t| self.changed_tools.contains(t))
    }
}

/// The drop in a row's rate the test with a base is built to see.
pub(crate) const DROP: f64 = 0.5;
/// (α, β) of a row's test against its base.
pub(crate) const WITH_BASE: (f64, f64) = (0.10, 0.30);
/// (α, β) of a row's test without a base.
pub(crate) const NO_BASE: (f64, f64) = (0.05, 0.10);
/// H0 and H1 of a row without a base: its majority answer's rate when stable, when ambiguous.
const STABLE: f64 = 0.98;
const AMBIGUOUS: f64 = 0.48;

/// One row as the scheduler sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowState {
    /// The row's `min_trials` and `max_trials` (and whether it is adaptive at all).
    pub bounds: CaseTrials,
    /// Right answers so far.
    pub correct: u32,
    /// Trials asked so far.
    pub trials: u32,
    /// A trial got no answer (a provider error, or not asked): the row asks no more.
    pub stuck: bool,
    /// The base's `(correct, trials)` for this row, when the run has a base that holds it.
    pub base: Option<(u32, u32)>,
    /// The expected or picked tool's definition changed since the base.
    pub changed: bool,
}

impl RowState {
    /// A row with no answers yet.
    pub(crate) fn new(bounds: CaseTrials, base: Option<(u32, u32)>, changed: bool) -> Self {
        RowState {
            bounds,
            correct: 0,
            trials: 0,
            stuck: false,
            base: base.filter(|(_, n)| *n > 0),
            changed,
        }
    }

    /// Counts one more answer.
    pub(crate) fn answered(&mut self, right: bool) {
        self.trials += 1;
        self.correct += u32::from(right);
    }
}

/// Why a row gets its next trial before others (lower first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Priority {
    /// The expected or picked tool's definition changed since the base.
    Changed,
    /// The row's outcome differs from the base's.
    DiffersFromBase,
    /// The row's own answers disagree.
    Disagrees,
    /// Anything else still undecided.
    Undecided,
}

/// The most trials a row gets: `max_trials`, or half of it (rounded up) against a base.
pub(crate) fn cap(row: &RowState) -> u32 {
    let b = row.bounds;
    if !b.auto {
        return b.max;
    }
    match row.base {
        Some(_) => b.max.div_ceil(2).max(b.min),
        None => b.max,
    }
}

/// Whether the row needs no more trials.
pub(crate) fn decided(row: &RowState) -> bool {
    if row.stuck || row.trials >= cap(row) {
        return true;
    }
    if row.trials < row.bounds.min {
        return false;
    }
    if !row.bounds.auto {
        return true;
    }
    let (k, n) = (row.correct, row.trials);
    let (llr, (alpha, beta)) = match row.base {
        Some((kb, nb)) => {
            let r = ((f64::from(kb) + 0.5) / (f64::from(nb) + 1.0)).clamp(0.02, 0.98);
            (log_ratio(k, n, r, (r - DROP).max(0.01)), WITH_BASE)
        }
        None => {
            let majority = k.max(n - k);
            (log_ratio(majority, n, STABLE, AMBIGUOUS), NO_BASE)
        }
    };
    let upper = ((1.0 - beta) / alpha).ln();
    let lower = (beta / (1.0 - alpha)).ln();
    llr >= upper || llr <= lower
}

/// The log likelihood ratio of H1 (rate `p1`) to H0 (rate `p0`) for `k` right of `n`.
fn log_ratio(k: u32, n: u32, p0: f64, p1: f64) -> f64 {
    f64::from(k) * (p1 / p0).ln() + f64::from(n - k) * ((1.0 - p1) / (1.0 - p0)).ln()
}

/// Why the row would get its next trial early.
pub(crate) fn priority(row: &RowState) -> Priority {
    let (k, n) = (row.correct, row.trials);
    let differs = row.base.is_some_and(|(kb, nb)| {
        n > 0 && ((kb == nb && k < n) || (kb == 0 && k > 0) || (2 * kb >= nb) != (2 * k >= n))
    });
    if row.changed {
        Priority::Changed
    } else if differs {
        Priority::DiffersFromBase
    } else if k > 0 && k < n {
        Priority::Disagrees
    } else {
        Priority::Undecided
    }
}

/// The rows that get one more trial in the next wave, most telling first (see [`Priority`];
/// rows of one priority in row order). Empty when every row is decided: the run stops.
pub(crate) fn next_wave(rows: &[RowState]) -> Vec<usize> {
    let mut wave: Vec<(Priority, usize)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| !decided(r))
        .map(|(i, r)| (priority(r), i))
        .collect();
    wave.sort();
    wave.into_iter().map(|(_, i)| i).collect()
}

/// The trials every row gets before any rule applies: `min_trials` (all of a fixed row's).
pub(crate) fn first_wave(bounds: CaseTrials) -> u32 {
    bounds.min
}

#[cfg(test)]
mod simulation;

#[cfg(test)]
mod tests {
    use super::*;

    fn auto(min: u32, max: u32) -> CaseTrials {
        CaseTrials {
            auto: true,
            min,
            max,
        }
    }

    fn row(bounds: CaseTrials, answers: &[bool], base: Option<(u32, u32)>) -> RowState {
        let mut r = RowState::new(bounds, base, false);
        for &a in answers {
            r.answered(a);
        }
        r
    }

    #[test]
    fn a_fixed_row_asks_exactly_its_trials() {
        let fixed = CaseTrials {
            auto: false,
            min: 3,
            max: 3,
        };
        assert!(!decided(&row(fixed, &[true, false], None)));
        assert!(decided(&row(fixed, &[true, false, true], None)));
        assert!(decided(&row(fixed, &[true, true, true], Some((5, 5)))));
    }

    #[test]
    fn no_row_stops_before_min_trials_or_passes_max_trials() {
        let b = auto(3, 4);
        assert!(!decided(&row(b, &[true, true], None)));
        // Alternating answers never decide; the cap stops them.
        assert!(!decided(&row(b, &[true, false, true], None)));
        assert!(decided(&row(b, &[true, false, true, false], None)));
        // Against a base the cap is half of max_trials, never below min_trials.
        let with_base = row(
            auto(1, 10),
            &[false, true, false, true, false],
            Some((5, 10)),
        );
        assert_eq!(cap(&with_base), 5);
        assert!(decided(&with_base));
        assert_eq!(cap(&row(auto(4, 5), &[], Some((1, 1)))), 4);
    }

    #[test]
    fn without_a_base_a_unanimous_row_is_decided_and_a_split_one_asks_on() {
        let b = auto(1, 10);
        assert!(!decided(&row(b, &[true], None)));
        assert!(!decided(&row(b, &[true, true], None)));
        // ln(0.48/0.98) ≈ −0.714 a right answer; the lower bound ln(0.1/0.95) ≈ −2.25.
        assert!(!decided(&row(b, &[true; 3], None)));
        assert!(decided(&row(b, &[true; 4], None)));
        assert!(decided(&row(b, &[false; 4], None)));
        // An answer the other way is ln(0.52/0.02) ≈ +3.26; the upper bound ln(0.9/0.05) ≈
        // 2.89 takes two of them: then the row is ambiguous and asks no more.
        assert!(!decided(&row(b, &[true, false], None)));
        assert!(!decided(&row(b, &[true, true, false], None)));
        assert!(decided(&row(b, &[true, true, false, false], None)));
    }

    #[test]
    fn against_a_stable_base_agreement_stops_soon_and_a_wrong_answer_asks_again() {
        let b = auto(1, 10);
        let base = Some((10, 10));
        // r = 10.5/11 ≈ 0.955, H1 0.455: a right answer −0.742, the bound ln(0.3/0.9) ≈ −1.10.
        assert!(!decided(&row(b, &[true], base)));
        assert!(decided(&row(b, &[true, true], base)));
        // A wrong answer is ln(0.545/0.045) ≈ 2.49, above ln(0.7/0.1) ≈ 1.95: dropped.
        assert!(decided(&row(b, &[false], base)));
        // Against a base known only from two answers, one wrong answer is not enough.
        let thin = Some((2, 2));
        assert!(!decided(&row(b, &[false], thin)));
        assert!(decided(&row(b, &[false, false], thin)));
    }

    #[test]
    fn a_row_with_a_failed_trial_asks_no_more() {
        let mut r = row(auto(2, 10), &[true], None);
        r.stuck = true;
        assert!(decided(&r));
    }

    #[test]
    fn changed_rows_go_first_then_rows_unlike_the_base_then_split_rows() {
        let b = auto(1, 10);
        let mut changed = row(b, &[true], Some((3, 3)));
        changed.changed = true;
        let rows = [
            row(b, &[true], None),                       // 0: undecided, nothing special
            row(b, &[false], Some((6, 8))),              // 1: wrong where the base was mostly right
            row(b, &[true, false, true], Some((9, 10))), // 2: split, like the base
            changed,                                     // 3: a changed tool
            row(b, &[false], Some((2, 2))),              // 4: wrong where the base was always right
            row(b, &[true, true, true, true], None),     // 5: decided
        ];
        assert_eq!(priority(&rows[1]), Priority::DiffersFromBase);
        assert_eq!(priority(&rows[2]), Priority::Disagrees);
        assert_eq!(next_wave(&rows), vec![3, 1, 4, 2, 0]);
    }

    #[test]
    fn a_row_is_changed_when_its_expected_or_a_picked_tool_changed_since_the_base() {
        let base = Base {
            rows: HashMap::new(),
            changed_tools: ["get_weather".to_owned()].into(),
        };
        assert!(base.changed(Some("get_weather"), []));
        assert!(base.changed(Some("get_time"), ["echo", "get_weather"]));
        assert!(!base.changed(Some("get_time"), ["echo"]));
        assert!(!base.changed(None, []));
    }

    #[test]
    fn every_row_decided_means_an_empty_wave() {
        let b = auto(1, 2);
        let rows = [row(b, &[true, true], None), row(b, &[false, true], None)];
        assert!(next_wave(&rows).is_empty());
    }
}
