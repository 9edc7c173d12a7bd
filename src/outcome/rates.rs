//! How a rate is written, once for every report: a share in `0..=1` as a percentage to the
//! nearest tenth, without a trailing `.0` (`2/3` → `66.7%`, `0.9` → `90%`). Beside its
//! threshold, a value that fails the threshold is never written at or above it.

/// How far below a threshold a value may be and still meet it (floating-point noise).
const EPSILON: f64 = 1e-12;

/// Most decimals [`percent_against`] adds to keep a failing value apart from its threshold.
const MAX_DECIMALS: i32 = 6;

/// Whether `value` meets the minimum `min`.
pub fn meets(value: f64, min: f64) -> bool {
    value + EPSILON >= min
}

/// `share` as a percentage to the nearest tenth, a trailing `.0` dropped: `66.7%`, `90%`.
pub fn percent(share: f64) -> String {
    if !share.is_finite() {
        return "?%".into();
    }
    show(steps(share, 1, Round::Nearest), 1)
}

/// `value` and the minimum `min`, written to be read side by side: both as [`percent`] when
/// `value` meets `min` or reads below it anyway. A failing value that would read the same as
/// (or above) the minimum is rounded down instead, and both get more decimals until the value
/// reads below: `0.8999` against `0.9` is `89.9%` against `90%`, never `90%` against `90%`.
pub fn percent_against(value: f64, min: f64) -> (String, String) {
    if !value.is_finite() || !min.is_finite() || meets(value, min) {
        return (percent(value), percent(min));
    }
    for decimals in 1..=MAX_DECIMALS {
        let bar = steps(min, decimals, Round::Nearest);
        for round in [Round::Nearest, Round::Down] {
            let shown = steps(value, decimals, round);
            if shown < bar {
                return (show(shown, decimals), show(bar, decimals));
            }
        }
    }
    let shown = steps(value, MAX_DECIMALS, Round::Down);
    let bar = steps(min, MAX_DECIMALS, Round::Nearest);
    (show(shown, MAX_DECIMALS), show(bar, MAX_DECIMALS))
}

#[derive(Clone, Copy)]
enum Round {
    Nearest,
    Down,
}

/// `share` in units of `10^-decimals` percent, rounded.
fn steps(share: f64, decimals: i32, round: Round) -> i64 {
    let scaled = share * 100.0 * 10f64.powi(decimals);
    let rounded = match round {
        Round::Nearest => scaled.round(),
        // The small nudge keeps 0.29 (stored as 0.28999…) from reading 28.9%.
        Round::Down => (scaled + 1e-6).floor(),
    };
    rounded as i64
}

/// `steps` units of `10^-decimals` percent, written without trailing zeros.
fn show(steps: i64, decimals: i32) -> String {
    let text = format!(
        "{:.*}",
        decimals.max(0) as usize,
        steps as f64 / 10f64.powi(decimals)
    );
    let trimmed = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text.as_str()
    };
    format!("{trimmed}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_round_to_the_nearest_tenth() {
        assert_eq!(percent(3.0 / 7.0), "42.9%");
        assert_eq!(percent(26.0 / 29.0), "89.7%");
        assert_eq!(percent(2.0 / 3.0), "66.7%");
        assert_eq!(percent(1.0 / 3.0), "33.3%");
        assert_eq!(percent(0.9), "90%");
        assert_eq!(percent(0.29), "29%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.9999), "100%");
        assert_eq!(percent(f64::NAN), "?%");
    }

    #[test]
    fn a_failing_value_never_reads_as_its_threshold() {
        let pair = |value: f64, min: f64| {
            let (v, m) = percent_against(value, min);
            format!("{v} against {m}")
        };
        assert_eq!(pair(26.0 / 29.0, 0.9), "89.7% against 90%");
        assert_eq!(pair(0.8999, 0.9), "89.9% against 90%");
        assert_eq!(pair(0.899_999_9, 0.9), "89.9% against 90%");
        assert_eq!(pair(0.9999, 1.0), "99.9% against 100%");
        assert_eq!(pair(2.0 / 3.0, 0.9), "66.7% against 90%");
        // A threshold that itself needs more than a tenth: both get the decimals.
        assert_eq!(pair(0.89939, 0.8994), "89.93% against 89.94%");
        // Meeting the threshold (up to floating-point noise) is written plainly.
        assert_eq!(pair(0.9, 0.9), "90% against 90%");
        assert_eq!(pair(0.9 - 1e-13, 0.9), "90% against 90%");
        assert_eq!(pair(0.95, 0.9), "95% against 90%");
    }

    #[test]
    fn meeting_forgives_only_floating_point_noise() {
        assert!(meets(0.9, 0.9));
        assert!(meets(27.0 / 30.0, 0.9));
        assert!(!meets(26.0 / 29.0, 0.9));
        assert!(!meets(0.8999, 0.9));
    }
}
