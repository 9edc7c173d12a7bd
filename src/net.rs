//! What every HTTP client of toolproof shares (MCP servers, model APIs, the GitHub API): the
//! agent's base settings, and requests to this machine bypassing any proxy.

use std::time::Duration;

use ureq::config::ConfigBuilder;
use ureq::typestate::AgentScope;

/// An agent configuration for `url`: statuses are answers, not errors; toolproof's
/// `User-Agent`; 10 s to connect; and no proxy when `url` is on this machine (a CI proxy must
/// not swallow requests to a server or fake API started beside toolproof).
pub fn agent_config(url: &str) -> ConfigBuilder<AgentScope> {
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
pub fn is_loopback(url: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
