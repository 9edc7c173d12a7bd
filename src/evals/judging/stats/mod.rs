//! Numbers over eval outcomes: the Wilson score interval, the miss-rate trend, and in
//! [`paired`] the paired test of two runs over the same rows and the minimum detectable effect.

// The comparison with the base calls these; until it does, only the tests use them.
#[allow(dead_code)]
mod paired;
#[allow(unused_imports)]
pub(crate) use paired::{Paired, Row, mde, paired, significant};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Lower bound of the Wilson 95% score interval for `successes` out of `n`; 0 when `n` is 0.
pub(crate) fn wilson_lower(successes: usize, n: usize) -> f64 {
    wilson(successes, n).0
}

/// The Wilson 95% score interval `(lower, upper)` for `successes` out of `n`; `(0, 1)` when
/// `n` is 0 (nothing is known).
pub(crate) fn wilson(successes: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let successes = successes.min(n);
    let n_f = n as f64;
    let p = successes as f64 / n_f;
    let z2 = Z95 * Z95;
    let centre = p + z2 / (2.0 * n_f);
    let margin = Z95 * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    let scale = 1.0 + z2 / n_f;
    // No success bounds the rate at exactly 0 and all successes at exactly 1 (the formula
    // leaves rounding noise).
    let lower = if successes == 0 {
        0.0
    } else {
        ((centre - margin) / scale).max(0.0)
    };
    let upper = if successes == n {
        1.0
    } else {
        ((centre + margin) / scale).min(1.0)
    };
    (lower, upper)
}

/// Whether a series of miss rates (oldest first) rises across the window: at least three
/// points, the last above the first, and a positive least-squares slope.
pub(crate) fn rising(rates: &[f64]) -> bool {
    if rates.len() < 3 {
        return false;
    }
    let (first, last) = (rates[0], rates[rates.len() - 1]);
    if last <= first {
        return false;
    }
    let n = rates.len() as f64;
    let mean_x = (n - 1.0) / 2.0;
    let mean_y = rates.iter().sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for (i, y) in rates.iter().enumerate() {
        let dx = i as f64 - mean_x;
        num += dx * (y - mean_y);
        den += dx * dx;
    }
    den > 0.0 && num / den > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values() {
        assert!((wilson_lower(9, 10) - 0.5958).abs() < 1e-3);
        assert!((wilson_lower(10, 10) - 0.7225).abs() < 1e-3);
        assert!((wilson_lower(95, 100) - 0.8883).abs() < 1e-3);
        assert_eq!(wilson_lower(0, 0), 0.0);
        assert_eq!(wilson_lower(0, 5), 0.0);
        assert_eq!(wilson_lower(0, 3), 0.0);
    }

    /// Reference values from statsmodels 0.15.0,
    /// `proportion_confint(k, n, alpha=0.05, method="wilson")`, computed independently.
    const STATSMODELS_WILSON: [(usize, usize, f64, f64); 15] = [
        (0, 1, 0.0000000000, 0.7934506856),
        (1, 1, 0.2065493144, 1.0000000000),
        (0, 5, 0.0000000000, 0.4344824648),
        (3, 5, 0.2307242813, 0.8823792258),
        (5, 5, 0.5655175352, 1.0000000000),
        (9, 10, 0.5958499732, 0.9821237869),
        (10, 10, 0.7224672001, 1.0000000000),
        (1, 12, 0.0148650944, 0.3538799111),
        (26, 30, 0.7031867332, 0.9469034452),
        (50, 100, 0.4038315304, 0.5961684696),
        (95, 100, 0.8882495308, 0.9784563208),
        (1, 1000, 0.0001765464, 0.0056425586),
        (999, 1000, 0.9943574414, 0.9998234536),
        (7, 7, 0.6456695649, 1.0000000000),
        (2, 3, 0.2076596008, 0.9385080553),
    ];

    #[test]
    fn wilson_interval_matches_statsmodels() {
        for (k, n, lower, upper) in STATSMODELS_WILSON {
            let (lo, hi) = wilson(k, n);
            assert!((lo - lower).abs() < 1e-9, "{k}/{n}: lower {lo} != {lower}");
            assert!((hi - upper).abs() < 1e-9, "{k}/{n}: upper {hi} != {upper}");
            assert_eq!(wilson_lower(k, n), lo);
        }
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn trend_rises_only_with_a_real_climb() {
        assert!(rising(&[0.02, 0.02, 0.03, 0.04]));
        assert!(!rising(&[0.04, 0.03, 0.02]));
        assert!(!rising(&[0.02, 0.04]));
        assert!(!rising(&[0.03, 0.01, 0.01, 0.03]));
        assert!(!rising(&[0.02, 0.02, 0.02]));
    }
}
