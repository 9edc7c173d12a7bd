//! When a GitHub API request is tried again, and after how long: server errors (5xx) and rate
//! limits (429; 403 with `x-ratelimit-remaining: 0` or a `retry-after`) are retried, waiting
//! what `retry-after` says, else until `x-ratelimit-reset`, else a doubling backoff; a wait
//! longer than [`RetryPolicy::longest_wait`] is not worth holding a CI job for, so the request
//! gives up instead. Everything else is answered at once.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::net::retry_after;

/// How often and how patiently a request is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The first backoff when the server names no wait; doubled after each retry.
    pub base_delay: Duration,
    /// The longest backoff.
    pub max_delay: Duration,
    /// The longest wait a server may ask for.
    pub longest_wait: Duration,
}

impl Default for RetryPolicy {
    /// 4 retries, 1 s doubling up to 8 s, and at most 60 s when the server asks.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(8),
            longest_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The backoff before retry number `retry` (0 for the first).
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        self.base_delay
            .saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX))
            .min(self.max_delay)
    }
}

/// The headers that decide a retry, as received.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Limits {
    /// `retry-after`.
    pub retry_after: Option<String>,
    /// `x-ratelimit-remaining`.
    pub remaining: Option<String>,
    /// `x-ratelimit-reset` (seconds since the epoch).
    pub reset: Option<String>,
}

/// What to do with an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// A 2xx: done.
    Done,
    /// Try again, after the wait the server asked for (or the backoff when `None`).
    Retry(Option<Duration>),
    /// A rate limit that lasts longer than the policy waits.
    TooLong(Duration),
    /// An answer that another try would not change.
    Fail,
}

/// The verdict on `status` with `limits`, at wall time `now`.
pub(super) fn classify(
    status: u16,
    limits: &Limits,
    policy: &RetryPolicy,
    now: SystemTime,
) -> Verdict {
    if (200..300).contains(&status) {
        return Verdict::Done;
    }
    let exhausted = limits.remaining.as_deref().map(str::trim) == Some("0");
    let limited = status == 429 || (status == 403 && (exhausted || limits.retry_after.is_some()));
    if !limited && status < 500 {
        return Verdict::Fail;
    }
    if let Some(after) = limits.retry_after.as_deref() {
        return match retry_after(None, Some(after), now) {
            Some(wait) if wait <= policy.longest_wait => Verdict::Retry(Some(wait)),
            Some(wait) => Verdict::TooLong(wait),
            // `retry-after: 0`, over a minute, or unreadable: a date far ahead is too long.
            None => match after.trim().parse::<u64>() {
                Ok(secs) if secs > 0 => Verdict::TooLong(Duration::from_secs(secs)),
                _ => Verdict::Retry(None),
            },
        };
    }
    if exhausted && let Some(reset) = limits.reset.as_deref() {
        let until = reset
            .trim()
            .parse::<u64>()
            .ok()
            .map(|secs| UNIX_EPOCH + Duration::from_secs(secs));
        let wait = until
            .and_then(|t| t.duration_since(now).ok())
            .map(|d| d + Duration::from_secs(1));
        return match wait {
            Some(wait) if wait > policy.longest_wait => Verdict::TooLong(wait),
            wait => Verdict::Retry(wait),
        };
    }
    Verdict::Retry(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(retry_after: Option<&str>, remaining: Option<&str>, reset: Option<&str>) -> Limits {
        Limits {
            retry_after: retry_after.map(str::to_owned),
            remaining: remaining.map(str::to_owned),
            reset: reset.map(str::to_owned),
        }
    }

    #[test]
    fn server_errors_and_rate_limits_are_retried_and_nothing_else() {
        let p = RetryPolicy::default();
        let now = UNIX_EPOCH + Duration::from_secs(1_000);
        let none = Limits::default();
        assert_eq!(classify(200, &none, &p, now), Verdict::Done);
        assert_eq!(classify(201, &none, &p, now), Verdict::Done);
        assert_eq!(classify(502, &none, &p, now), Verdict::Retry(None));
        assert_eq!(classify(429, &none, &p, now), Verdict::Retry(None));
        for status in [400, 401, 404, 422] {
            assert_eq!(classify(status, &none, &p, now), Verdict::Fail, "{status}");
        }
        // A 403 is a refusal unless it is a rate limit.
        assert_eq!(classify(403, &none, &p, now), Verdict::Fail);
        let secondary = limits(Some("3"), None, None);
        assert_eq!(
            classify(403, &secondary, &p, now),
            Verdict::Retry(Some(Duration::from_secs(3)))
        );
        let primary = limits(None, Some("0"), Some("1010"));
        assert_eq!(
            classify(403, &primary, &p, now),
            Verdict::Retry(Some(Duration::from_secs(11)))
        );
    }

    #[test]
    fn long_waits_give_up_instead_of_holding_the_job() {
        let p = RetryPolicy::default();
        let now = UNIX_EPOCH + Duration::from_secs(1_000);
        let hour = limits(None, Some("0"), Some("4600"));
        assert_eq!(
            classify(403, &hour, &p, now),
            Verdict::TooLong(Duration::from_secs(3601))
        );
        assert_eq!(
            classify(429, &limits(Some("600"), None, None), &p, now),
            Verdict::TooLong(Duration::from_secs(600))
        );
        assert_eq!(
            classify(429, &limits(Some("0"), None, None), &p, now),
            Verdict::Retry(None)
        );
    }

    #[test]
    fn the_backoff_doubles_up_to_its_cap() {
        let p = RetryPolicy::default();
        let waits: Vec<u64> = (0..6).map(|n| p.backoff(n).as_secs()).collect();
        assert_eq!(waits, vec![1, 2, 4, 8, 8, 8]);
    }
}
