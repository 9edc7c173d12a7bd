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

/// Whether `p` is below the significance level `alpha`. An exact p-value that equals `alpha`
/// (one row 0/3 → 3/3 gives 1/20) comes out of the sums a rounding error either side of it; it
/// is not significant, whichever side.
pub(crate) fn significant(p: f64, alpha: f64) -> bool {
    p < alpha * (1.0 - 1e-9)
}

/// The smallest drop in accuracy (0..1) this set detects at `alpha` (one-sided) with `power`,
/// given the base's per-row (correct, trials) and the number of trials per row the head will run.
///
/// The drop is taken as the same on every row (down to 0), on rates shrunk toward 1/2
/// ((correct + 1/2) / (trials + 1)), and the power is the normal approximation of the paired
/// test's statistic: `docs/statistics.md` says why. 1 when no drop is detectable (no rows, no
/// head trials, or too few of them). `alpha` is read within (0, 0.5] and `power` within (0, 1).
pub(crate) fn mde(base: &[(u32, u32)], head_trials: u32, alpha: f64, power: f64) -> f64 {
    let m = f64::from(head_trials);
    let rows: Vec<(f64, f64)> = base
        .iter()
        .map(|&row| counts(row))
        .filter(|&(_, n)| n > 0)
        .map(|(c, n)| ((c as f64 + 0.5) / (n as f64 + 1.0), n as f64))
        .collect();
    if rows.is_empty() || head_trials == 0 {
        return 1.0;
    }
    let z_alpha = normal_quantile(1.0 - alpha.clamp(1e-12, 0.5));
    let target = power.clamp(1e-12, 1.0 - 1e-12);
    // The power, and the mean drop, when every row's rate falls by `d` (not below 0).
    let at = |d: f64| -> (f64, f64) {
        let (mut shift, mut v0, mut v1, mut drop) = (0.0, 0.0, 0.0, 0.0);
        for &(p, n) in &rows {
            let q = (p - d).max(0.0);
            // The statistic is the sum over rows of w (after rate - before rate).
            let w = n * m / (n + m);
            let pooled = (n * p + m * q) / (n + m);
            shift += w * (p - q);
            v0 += w * pooled * (1.0 - pooled);
            v1 += w * w * (p * (1.0 - p) / n + q * (1.0 - q) / m);
            drop += p - q;
        }
        // Less a half for continuity: the statistic is a count and the exact test is discrete.
        let power = normal_cdf((shift - 0.5 - z_alpha * v0.sqrt()) / v1.sqrt());
        (power, drop / rows.len() as f64)
    };
    if at(1.0).0 < target {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if at(mid).0 < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    at(hi).1
}

/// The standard normal distribution function (complementary error function after Numerical
/// Recipes' Chebyshev fit: relative error below 1.2e-7 everywhere).
fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 {
        1.0 - erfc / 2.0
    } else {
        erfc / 2.0
    }
}

/// The standard normal quantile for `p` in (0, 1) (Acklam's rational fit: relative error below
/// 1.2e-9).
fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    const LOW: f64 = 0.024_25;
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
#[path = "paired_tests.rs"]
mod tests;
