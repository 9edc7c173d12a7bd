//! The ceilings a config is held to, in one place: the longest duration any setting may name
//! and the largest config file read. The loader checks against them and says them in its
//! messages; [`seconds`] and [`millis`] turn a checked value into a `Duration` without a panic
//! whatever the value.

use std::time::Duration;

/// The longest duration a setting may name, in seconds: 30 days.
pub(crate) const MAX_DURATION_S: f64 = 30.0 * 24.0 * 60.0 * 60.0;
/// [`MAX_DURATION_S`] in milliseconds.
pub(crate) const MAX_DURATION_MS: f64 = MAX_DURATION_S * 1000.0;
/// [`MAX_DURATION_S`] in words, for messages.
pub(crate) const MAX_DURATION_WORDS: &str = "30 days";

/// The largest config (or cases, or system prompt) file read: 8 MiB.
pub(crate) const MAX_CONFIG_BYTES: u64 = 8 << 20;
/// [`MAX_CONFIG_BYTES`] in words, for messages.
pub(crate) const MAX_CONFIG_WORDS: &str = "8 MiB";

/// The most distractor tools `evals.stress.distractors` may add. The bundled corpus holds more,
/// so that skipping the ones named like a server tool still leaves this many.
pub(crate) const MAX_STRESS_DISTRACTORS: u32 = 300;

/// `secs` seconds as a `Duration`, held between 0 and [`MAX_DURATION_S`] (NaN is 0): the
/// loader already refused anything outside, this keeps a derived value from panicking.
pub(crate) fn seconds(secs: f64) -> Duration {
    let held = if secs.is_nan() {
        0.0
    } else {
        secs.clamp(0.0, MAX_DURATION_S)
    };
    Duration::try_from_secs_f64(held).unwrap_or(Duration::ZERO)
}

/// A number as a message shows it: short, `1e300` rather than 300 digits.
pub(crate) fn number(x: f64) -> String {
    super::node::fmt_float(x)
}

/// `ms` milliseconds as a `Duration`, held like [`seconds`].
pub(crate) fn millis(ms: f64) -> Duration {
    seconds(ms / 1000.0)
}

/// A duration in milliseconds, as messages and files name it: [`millis`] undone for any value
/// given to the nanosecond (`300` stays `300`, `2.5` stays `2.5`).
pub(crate) fn in_millis(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_number_becomes_a_duration_within_the_ceiling() {
        let ceiling = Duration::from_secs(2_592_000);
        assert_eq!(seconds(1e19), ceiling);
        assert_eq!(seconds(f64::INFINITY), ceiling);
        assert_eq!(millis(1e300), ceiling);
        assert_eq!(seconds(f64::NAN), Duration::ZERO);
        assert_eq!(seconds(-5.0), Duration::ZERO);
        assert_eq!(seconds(f64::NEG_INFINITY), Duration::ZERO);
        assert_eq!(millis(250.0), Duration::from_millis(250));
        assert_eq!(seconds(1.5), Duration::from_millis(1500));
    }

    #[test]
    fn milliseconds_come_back_as_they_were_written() {
        for ms in [300.0, 2.5, 0.1, 1234.5678, 2_592_000_000.0] {
            assert_eq!(in_millis(millis(ms)).to_string(), ms.to_string());
        }
    }
}
