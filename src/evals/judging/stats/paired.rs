//! The paired comparison of two runs over the rows both have: the exact conditional test
//! stratified by row (exact Cochran–Mantel–Haenszel), and the smallest drop a set can detect.
//!
//! In each row, given the row's total correct over both runs, the after run's count is
//! hypergeometric when both runs share the row's rate; the statistic is the sum of the after
//! counts and its exact null distribution the convolution of the rows' hypergeometric
//! distributions. With one trial a row this is McNemar's exact test. `docs/statistics.md`
//! says why this test and how the minimum detectable effect is computed.

/// One row both runs have: (correct, trials) before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row {
    /// (correct, trials) in the base run.
    pub before: (u32, u32),
    /// (correct, trials) in the head run.
    pub after: (u32, u32),
}

/// What the paired test says about two runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Paired {
    /// One-sided p-value that the after run is worse (exact).
    pub p_worse: f64,
    /// One-sided p-value that the after run is better (exact).
    pub p_better: f64,
    /// Mean over rows of correct/trials, before and after (rows with 0 trials left out).
    pub accuracy_before: f64,
    /// Mean over rows of correct/trials after (rows with 0 trials left out).
    pub accuracy_after: f64,
    /// Rows whose answers moved: right on every trial before and wrong on some after, or right
    /// on some before and wrong on every trial after.
    pub flipped_worse: usize,
    /// Rows that moved the other way: wrong on some trial before and right on every trial
    /// after, or wrong on every trial before and right on some after.
    pub flipped_better: usize,
}

/// Probabilities below this are dropped from the ends of a distribution. The distributions
/// are log-concave (hypergeometric, and convolutions of log-concave ones), so what is dropped
/// is only ever the tails, and the mass dropped over a whole test stays below 1e-30: a
/// p-value is exact to that absolute error, and to 1e-9 relative for any p above 1e-20.
const TINY: f64 = 1e-40;

/// A distribution over `lo..lo + p.len()`.
#[derive(Debug, Clone)]
struct Dist {
    lo: u64,
    p: Vec<f64>,
}

/// A row's (correct, trials), with correct capped at trials.
fn counts((correct, trials): (u32, u32)) -> (u64, u64) {
    (u64::from(correct.min(trials)), u64::from(trials))
}

/// The after count of one row under "same rate before and after", given the row's total
/// correct: hypergeometric. `None` when only one count is possible (the row carries no
/// information: right, or wrong, on every trial of both runs, or a run with no trials).
fn row_null(row: Row) -> Option<Dist> {
    let (a, n) = counts(row.before);
    let (b, m) = counts(row.after);
    if n == 0 || m == 0 {
        return None;
    }
    let t = a + b;
    let total = n + m;
    let lo = t.saturating_sub(n);
    let hi = t.min(m);
    if lo == hi {
        return None;
    }
    // Start at the mode with 1 and walk outwards by the ratio of neighbouring terms: no
    // factorials, so nothing overflows or underflows whatever the trials; stop once a term
    // is negligible (the terms fall monotonically away from the mode).
    let mode =
        (((t + 1) as f64 * (m + 1) as f64 / (total + 2) as f64).floor() as u64).clamp(lo, hi);
    let mut up = vec![1.0];
    let mut k = mode;
    while k < hi {
        // P(k + 1) / P(k) = (m - k)(t - k) / ((k + 1)(n - t + k + 1))
        let next = up[up.len() - 1] * ((m - k) as f64 * (t - k) as f64)
            / ((k + 1) as f64 * (n + k + 1 - t) as f64);
        if next < TINY * 1e-3 {
            break;
        }
        up.push(next);
        k += 1;
    }
    let mut down = Vec::new();
    let mut last = 1.0;
    let mut k = mode;
    while k > lo {
        // P(k - 1) / P(k) = k (n - t + k) / ((m - k + 1)(t - k + 1))
        let next =
            last * (k as f64 * (n + k - t) as f64) / ((m - k + 1) as f64 * (t - k + 1) as f64);
        if next < TINY * 1e-3 {
            break;
        }
        down.push(next);
        last = next;
        k -= 1;
    }
    let start = mode - down.len() as u64;
    down.reverse();
    down.extend(up);
    let sum: f64 = down.iter().sum();
    for x in &mut down {
        *x /= sum;
    }
    Some(Dist { lo: start, p: down })
}

/// The distribution of the sum of two independent counts, with negligible tails dropped.
fn convolve(acc: &Dist, row: &Dist) -> Dist {
    let mut out = vec![0.0; acc.p.len() + row.p.len() - 1];
    for (j, &h) in row.p.iter().enumerate() {
        for (o, &x) in out[j..j + acc.p.len()].iter_mut().zip(&acc.p) {
            *o += x * h;
        }
    }
    let first = out.iter().position(|&x| x >= TINY).unwrap_or(0);
    let last = out
        .iter()
        .rposition(|&x| x >= TINY)
        .unwrap_or(out.len() - 1);
    let lo = acc.lo + row.lo + first as u64;
    out.truncate(last + 1);
    out.drain(..first);
    Dist { lo, p: out }
}

/// The exact paired test of `rows` (see the module's documentation), with the accuracies and
/// the rows that flipped.
pub(crate) fn paired(rows: &[Row]) -> Paired {
    let mut null = Dist {
        lo: 0,
        p: vec![1.0],
    };
    let mut observed: u64 = 0;
    for row in rows {
        if let Some(dist) = row_null(*row) {
            observed += counts(row.after).0;
            null = convolve(&null, &dist);
        }
    }
    // P(S <= observed) and P(S >= observed), each summed from its far end (small terms first).
    let at = |v: u64| -> Option<usize> { v.checked_sub(null.lo).map(|i| i as usize) };
    let p_worse = match at(observed) {
        None => 0.0,
        Some(i) => null.p[..=i.min(null.p.len() - 1)].iter().sum::<f64>(),
    };
    let p_better = match at(observed) {
        None => null.p.iter().rev().sum::<f64>(),
        Some(i) if i < null.p.len() => null.p[i..].iter().rev().sum::<f64>(),
        Some(_) => 0.0,
    };
    let accuracy = |side: fn(&Row) -> (u32, u32)| -> f64 {
        let rates: Vec<f64> = rows
            .iter()
            .map(side)
            .map(counts)
            .filter(|&(_, trials)| trials > 0)
            .map(|(correct, trials)| correct as f64 / trials as f64)
            .collect();
        if rates.is_empty() {
            0.0
        } else {
            rates.iter().sum::<f64>() / rates.len() as f64
        }
    };
    let (mut flipped_worse, mut flipped_better) = (0, 0);
    for row in rows {
        let (a, n) = counts(row.before);
        let (b, m) = counts(row.after);
        if n == 0 || m == 0 {
            continue;
        }
        if (a == n && b < m) || (a > 0 && b == 0) {
            flipped_worse += 1;
        } else if (a < n && b == m) || (a == 0 && b > 0) {
            flipped_better += 1;
        }
    }
    Paired {
        p_worse: p_worse.min(1.0),
        p_better: p_better.min(1.0),
        accuracy_before: accuracy(|r| r.before),
        accuracy_after: accuracy(|r| r.after),
        flipped_worse,
        flipped_better,
    }
}

#[cfg(test)]
#[path = "paired_tests.rs"]
mod tests;
