//! The paired comparison of two runs over the rows both have: the exact conditional test
//! stratified by row (exact Cochran–Mantel–Haenszel). In each row, given the row's total correct
//! over both runs, the after run's count is hypergeometric under "same rate before and after";
//! the statistic is the sum of the after counts, and its exact null distribution is the
//! convolution of the rows' distributions. Rows right (or wrong) on every trial of both runs
//! carry no information and drop out.
#![allow(dead_code)]

/// One row both runs have: (correct, trials) before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row {
    /// (correct, trials) in the base run.
    pub before: (u32, u32),
    /// (correct, trials) in the head run.
    pub after: (u32, u32),
}

/// What the paired comparison found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Paired {
    /// One-sided p-value that the after run is worse (exact).
    pub p_worse: f64,
    /// One-sided p-value that the after run is better (exact).
    pub p_better: f64,
    /// Mean over rows of correct/trials, before and after (rows with 0 trials left out).
    pub accuracy_before: f64,
    pub accuracy_after: f64,
    /// Rows whose answers moved: right on every trial before and wrong on some after, etc.
    pub flipped_worse: usize,
    pub flipped_better: usize,
}

/// ln C(n, k).
fn ln_choose(n: u32, k: u32) -> f64 {
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

fn ln_factorial(n: u32) -> f64 {
    (2..=n).map(|i| f64::from(i).ln()).sum()
}

/// The after count's null distribution in one row: its least value and the probabilities
/// from there.
fn hypergeometric(before: u32, after: u32, total: u32) -> (u32, Vec<f64>) {
    let lo = total.saturating_sub(before);
    let hi = after.min(total);
    let all = ln_choose(before + after, total);
    let p = (lo..=hi)
        .map(|x| (ln_choose(after, x) + ln_choose(before, total - x) - all).exp())
        .collect();
    (lo, p)
}

/// The exact conditional test of `rows` (see the module's text).
pub(crate) fn paired(rows: &[Row]) -> Paired {
    let mut dist = vec![1.0];
    let (mut offset, mut observed) = (0u32, 0u32);
    for row in rows {
        let ((kb, nb), (ka, na)) = (row.before, row.after);
        let (total, n) = (kb + ka, nb + na);
        if nb == 0 || na == 0 || total == 0 || total == n {
            continue;
        }
        let (lo, p) = hypergeometric(nb, na, total);
        offset += lo;
        observed += ka;
        let mut next = vec![0.0; dist.len() + p.len() - 1];
        for (i, a) in dist.iter().enumerate() {
            for (j, b) in p.iter().enumerate() {
                next[i + j] += a * b;
            }
        }
        dist = next;
    }
    let at = (observed - offset) as usize;
    let mean = |side: fn(&Row) -> (u32, u32)| {
        let rates: Vec<f64> = rows
            .iter()
            .map(side)
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| f64::from(k) / f64::from(n))
            .collect();
        if rates.is_empty() {
            0.0
        } else {
            rates.iter().sum::<f64>() / rates.len() as f64
        }
    };
    let all_right = |(k, n): (u32, u32)| n > 0 && k == n;
    let some_wrong = |(k, n): (u32, u32)| n > 0 && k < n;
    Paired {
        p_worse: dist[..=at].iter().sum::<f64>().min(1.0),
        p_better: dist[at..].iter().sum::<f64>().min(1.0),
        accuracy_before: mean(|r| r.before),
        accuracy_after: mean(|r| r.after),
        flipped_worse: rows
            .iter()
            .filter(|r| all_right(r.before) && some_wrong(r.after))
            .count(),
        flipped_better: rows
            .iter()
            .filter(|r| some_wrong(r.before) && all_right(r.after))
            .count(),
    }
}

/// The smallest drop in accuracy (0..1) this set detects at `alpha` (one-sided) with `power`,
/// given the base's per-row (correct, trials) and the number of trials per row the head will
/// run. (A normal approximation until the exact one lands.)
pub(crate) fn mde(base: &[(u32, u32)], head_trials: u32, alpha: f64, power: f64) -> f64 {
    let _ = (alpha, power);
    if base.is_empty() || head_trials == 0 {
        return 1.0;
    }
    let var: f64 = base
        .iter()
        .map(|&(k, n)| {
            let p = (f64::from(k) + 0.5) / (f64::from(n) + 1.0);
            p * (1.0 - p) / f64::from(head_trials)
        })
        .sum();
    (2.5 * var.sqrt() / base.len() as f64).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_trial_a_row_is_mcnemar() {
        // 5 rows right→wrong, 1 wrong→right: Binomial(6, 1/2), P(X ≤ 1) = 7/64.
        let mut rows = vec![
            Row {
                before: (1, 1),
                after: (0, 1)
            };
            5
        ];
        rows.push(Row {
            before: (0, 1),
            after: (1, 1),
        });
        let p = paired(&rows);
        assert!((p.p_worse - 7.0 / 64.0).abs() < 1e-12, "{p:?}");
        assert_eq!((p.flipped_worse, p.flipped_better), (5, 1));
    }
}
