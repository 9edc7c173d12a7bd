//! What every HTTP client of toolproof shares (MCP servers, model APIs, the GitHub API): the
//! agent's base settings, and requests to this machine bypassing any proxy.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ureq::config::ConfigBuilder;
use ureq::typestate::AgentScope;

/// An agent configuration for `url`: statuses are answers, not errors; toolproof's
/// `User-Agent`; 10 s to connect; and no proxy when `url` is on this machine (a CI proxy must
/// not swallow requests to a server or fake API started beside toolproof).
pub(crate) fn agent_config(url: &str) -> ConfigBuilder<AgentScope> {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .user_agent(concat!("toolproof/", env!("CARGO_PKG_VERSION")))
        .timeout_connect(Some(Duration::from_secs(10)));
    if is_loopback(url) {
        config.proxy(None)
    } else {
        config
    }
}

/// Whether `url` names this machine: `localhost` or a loopback address.
pub(crate) fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Where a redirect from `url` leads, in words for a message: `a redirect to itself, a loop`,
/// `a redirect to <target>`, or `a redirect without a Location header`. toolproof follows no
/// redirect of a POST (ureq would resend it as a GET without its body, or give up on a 307),
/// so this is all a user learns about it.
pub(crate) fn redirect_words(url: &str, location: Option<&str>) -> String {
    match location.map(str::trim).filter(|l| !l.is_empty()) {
        None => "a redirect without a Location header".to_owned(),
        Some(loc) => {
            let target = resolve(url, loc);
            if target == url {
                "a redirect to itself, a loop".to_owned()
            } else {
                format!("a redirect to {target}")
            }
        }
    }
}

/// `location` resolved against `base` (absolute, scheme-relative, absolute-path, query or
/// relative-path references).
fn resolve(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_owned();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    if let Some(host_and_path) = location.strip_prefix("//") {
        return format!("{scheme}://{host_and_path}");
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let origin = format!("{scheme}://{authority}");
    let path = rest[authority.len()..]
        .split(['?', '#'])
        .next()
        .unwrap_or("");
    if location.starts_with('/') {
        format!("{origin}{location}")
    } else if location.starts_with('?') {
        format!("{origin}{path}{location}")
    } else {
        let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
        format!("{origin}{folder}/{location}")
    }
}

/// The longest `retry-after` honoured; a longer one falls back to the caller's backoff.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The wait a server asked for: `retry-after-ms` (milliseconds), else `retry-after` (seconds, or
/// an HTTP date), when it is above zero and at most 60 s. `now` is the current wall time.
pub(crate) fn retry_after(
    ms: Option<&str>,
    after: Option<&str>,
    now: SystemTime,
) -> Option<Duration> {
    let from_ms = ms
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(|v| Duration::try_from_secs_f64(v / 1000.0).ok());
    let wait = from_ms.or_else(|| {
        let v = after?.trim();
        match v.parse::<f64>() {
            Ok(secs) => Duration::try_from_secs_f64(secs).ok(),
            Err(_) => {
                let date = chrono::DateTime::parse_from_rfc2822(v).ok()?;
                let at = UNIX_EPOCH
                    .checked_add(Duration::from_secs(u64::try_from(date.timestamp()).ok()?))?;
                Some(at.duration_since(now).unwrap_or(Duration::ZERO))
            }
        }
    })?;
    (!wait.is_zero() && wait <= MAX_RETRY_AFTER).then_some(wait)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        let now = at(0);
        assert_eq!(
            retry_after(Some("250"), Some("7"), now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(Some("12.5"), None, now),
            Some(Duration::from_micros(12_500))
        );
        assert_eq!(
            retry_after(Some("junk"), Some("2"), now),
            Some(Duration::from_secs(2))
        );
    }

    #[test]
    fn retry_after_takes_seconds_or_an_http_date_within_a_minute() {
        // Sun, 06 Nov 1994 08:49:37 GMT = 784111777.
        let now = at(784_111_777 - 30);
        assert_eq!(
            retry_after(None, Some("Sun, 06 Nov 1994 08:49:37 GMT"), now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_after(None, Some("1.5"), now),
            Some(Duration::from_millis(1500))
        );
        // Past dates, zero, negative, over 60 s and garbage are ignored.
        let later = at(784_111_777 + 5);
        assert_eq!(
            retry_after(None, Some("Sun, 06 Nov 1994 08:49:37 GMT"), later),
            None
        );
        assert_eq!(retry_after(None, Some("0"), now), None);
        assert_eq!(retry_after(None, Some("-3"), now), None);
        assert_eq!(retry_after(None, Some("61"), now), None);
        assert_eq!(retry_after(Some("60001"), None, now), None);
        assert_eq!(retry_after(None, Some("soon"), now), None);
        assert_eq!(retry_after(None, None, now), None);
    }

    #[test]
    fn redirects_are_described_by_where_they_lead() {
        let url = "http://127.0.0.1:9/v1/messages";
        let words = |loc| redirect_words(url, loc);
        assert_eq!(words(Some("/v1/messages")), "a redirect to itself, a loop");
        assert_eq!(words(Some(url)), "a redirect to itself, a loop");
        assert_eq!(words(Some("messages")), "a redirect to itself, a loop");
        assert_eq!(
            words(Some("https://api.example.com/v1/messages")),
            "a redirect to https://api.example.com/v1/messages"
        );
        assert_eq!(words(Some("//other:8/x")), "a redirect to http://other:8/x");
        assert_eq!(
            words(Some("/mcp/")),
            "a redirect to http://127.0.0.1:9/mcp/"
        );
        assert_eq!(
            words(Some("?page=2")),
            "a redirect to http://127.0.0.1:9/v1/messages?page=2"
        );
        assert_eq!(words(None), "a redirect without a Location header");
        assert_eq!(words(Some(" ")), "a redirect without a Location header");
        assert_eq!(
            redirect_words("http://h", Some("mcp")),
            "a redirect to http://h/mcp"
        );
    }

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://localhost/v1/messages"));
        assert!(is_loopback("http://[::1]:9/x"));
        assert!(is_loopback("http://user@127.0.0.2:3001/mcp"));
        assert!(!is_loopback("https://api.anthropic.com/v1/messages"));
        assert!(!is_loopback("https://127.0.0.1.example.com/"));
        assert!(!is_loopback("http://10.0.0.1/mcp"));
    }
}
