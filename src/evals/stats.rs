//! Numbers over eval outcomes: the Wilson score interval and the miss-rate trend.

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Lower bound of the Wilson 95% score interval for `successes` out of `n`; 0 when `n` is 0.
pub fn wilson_lower(successes: usize, n: usize) -> f64 {
    // No success bounds the rate at exactly 0 (the formula leaves rounding noise).
    if n == 0 || successes == 0 {
        return 0.0;
    }
    let n = n as f64;
    let p = successes as f64 / n;
    let z2 = Z95 * Z95;
    let centre = p + z2 / (2.0 * n);
    let margin = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - margin) / (1.0 + z2 / n)).max(0.0)
}

/// Whether a series of miss rates (oldest first) rises across the window: at least three
/// points, the last above the first, and a positive least-squares slope.
pub fn rising(rates: &[f64]) -> bool {
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

    #[test]
    fn trend_rises_only_with_a_real_climb() {
        assert!(rising(&[0.02, 0.02, 0.03, 0.04]));
        assert!(!rising(&[0.04, 0.03, 0.02]));
        assert!(!rising(&[0.02, 0.04]));
        assert!(!rising(&[0.03, 0.01, 0.01, 0.03]));
        assert!(!rising(&[0.02, 0.02, 0.02]));
    }
}
