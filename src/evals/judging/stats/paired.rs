//! The paired comparison of two runs over the rows both have: the exact conditional test
//! stratified by row, and the smallest drop a set detects. (Interim body; the statistics
//! branch owns this file.)

/// One row both runs have: (correct, trials) before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row {
    /// Correct and trials in the base run.
    pub before: (u32, u32),
    /// Correct and trials in this run.
    pub after: (u32, u32),
}

/// The test's result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Paired {
    /// One-sided p-value that the after run is worse (exact).
    pub p_worse: f64,
    /// One-sided p-value that the after run is better (exact).
    pub p_better: f64,
    /// Mean over rows of correct/trials, before and after (rows with 0 trials left out).
    pub accuracy_before: f64,
    /// See `accuracy_before`.
    pub accuracy_after: f64,
    /// Rows right on every trial before and wrong on some after.
    pub flipped_worse: usize,
    /// Rows wrong on some trial before and right on every trial after.
    pub flipped_better: usize,
}

fn ln_choose(n: u32, k: u32) -> f64 {
    fn ln_fact(n: u32) -> f64 {
        (1..=n).map(|i| f64::from(i).ln()).sum()
    }
    ln_fact(n) - ln_fact(k) - ln_fact(n - k)
}

/// The distribution of the after run's correct count in one row, given the row's total.
fn hypergeometric(row: &Row) -> (u32, Vec<f64>) {
    let (n1, n2) = (row.before.1, row.after.1);
    let total = row.before.0 + row.after.0;
    let lo = total.saturating_sub(n1);
    let hi = total.min(n2);
    let denom = ln_choose(n1 + n2, total);
    let pmf = (lo..=hi)
        .map(|x| (ln_choose(n2, x) + ln_choose(n1, total - x) - denom).exp())
        .collect();
    (lo, pmf)
}

/// The exact stratified test over `rows`.
pub(crate) fn paired(rows: &[Row]) -> Paired {
    let used: Vec<&Row> = rows
        .iter()
        .filter(|r| r.before.1 > 0 && r.after.1 > 0)
        .collect();
    let mean = |f: &dyn Fn(&Row) -> f64| {
        if used.is_empty() {
            0.0
        } else {
            used.iter().map(|r| f(r)).sum::<f64>() / used.len() as f64
        }
    };
    let accuracy_before = mean(&|r| f64::from(r.before.0) / f64::from(r.before.1));
    let accuracy_after = mean(&|r| f64::from(r.after.0) / f64::from(r.after.1));
    let mut dist = vec![1.0_f64];
    let mut offset = 0u32;
    let mut observed = 0u32;
    for r in &used {
        let (lo, pmf) = hypergeometric(r);
        offset += lo;
        observed += r.after.0;
        let mut next = vec![0.0; dist.len() + pmf.len() - 1];
        for (i, a) in dist.iter().enumerate() {
            for (j, b) in pmf.iter().enumerate() {
                next[i + j] += a * b;
            }
        }
        dist = next;
    }
    let at = (observed - offset) as usize;
    let p_worse = dist[..=at].iter().sum::<f64>().min(1.0);
    let p_better = dist[at..].iter().sum::<f64>().min(1.0);
    Paired {
        p_worse,
        p_better,
        accuracy_before,
        accuracy_after,
        flipped_worse: used
            .iter()
            .filter(|r| r.before.0 == r.before.1 && r.after.0 < r.after.1)
            .count(),
        flipped_better: used
            .iter()
            .filter(|r| r.before.0 < r.before.1 && r.after.0 == r.after.1)
            .count(),
    }
}

/// The smallest drop in accuracy (0..1) this set detects at `alpha` (one-sided) with `power`,
/// given the base's per-row (correct, trials) and the head's trials per row (a normal
/// approximation).
pub(crate) fn mde(base: &[(u32, u32)], head_trials: u32, alpha: f64, power: f64) -> f64 {
    let rows: Vec<&(u32, u32)> = base.iter().filter(|(_, n)| *n > 0).collect();
    if rows.is_empty() || head_trials == 0 {
        return 1.0;
    }
    let z = |p: f64| {
        // Acklam-free: bisection on the normal CDF through erf's series is overkill here.
        let mut lo = -10.0_f64;
        let mut hi = 10.0_f64;
        for _ in 0..100 {
            let mid = (lo + hi) / 2.0;
            if 0.5 * (1.0 + erf(mid / std::f64::consts::SQRT_2)) < p {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    };
    let var: f64 = rows
        .iter()
        .map(|(c, n)| {
            let p = (f64::from(*c) + 0.5) / (f64::from(*n) + 1.0);
            p * (1.0 - p) * (1.0 / f64::from(*n) + 1.0 / f64::from(head_trials))
        })
        .sum();
    let k = rows.len() as f64;
    ((z(1.0 - alpha) + z(power)) * var.sqrt() / k).min(1.0)
}

fn erf(x: f64) -> f64 {
    // Abramowitz and Stegun 7.1.26.
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_trial_per_row_is_mcnemar() {
        // 6 rows right → wrong, 1 wrong → right, 3 unchanged: P(Binom(7, 1/2) >= 6) = 8/128.
        let mut rows = vec![
            Row {
                before: (1, 1),
                after: (0, 1)
            };
            6
        ];
        rows.push(Row {
            before: (0, 1),
            after: (1, 1),
        });
        rows.extend(vec![
            Row {
                before: (1, 1),
                after: (1, 1)
            };
            3
        ]);
        let p = paired(&rows);
        assert!((p.p_worse - 8.0 / 128.0).abs() < 1e-12, "{p:?}");
        assert_eq!((p.flipped_worse, p.flipped_better), (6, 1));
    }
}
