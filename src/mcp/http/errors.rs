//! How a failed HTTP exchange is worded: timeouts, refused connections, bodies over the limit.

use std::time::Duration;

use super::HttpTransport;
use crate::mcp::error::McpError;

impl HttpTransport {
    pub(super) fn transport_error(
        &self,
        e: ureq::Error,
        method: &str,
        timeout: Duration,
    ) -> McpError {
        match e {
            ureq::Error::Timeout(_) => McpError::Timeout {
                method: method.to_owned(),
                after: timeout,
            },
            ureq::Error::BodyExceedsLimit(n) => McpError::Unreadable {
                method: method.to_owned(),
                reason: format!("its body is over the {} MiB limit for one message", n >> 20),
                start: String::new(),
            },
            ureq::Error::Io(io) => self.read_error(io, method, timeout),
            ureq::Error::HostNotFound => McpError::Connect {
                url: self.spec.url.clone(),
                reason: "host not found".into(),
            },
            other => McpError::Connect {
                url: self.spec.url.clone(),
                reason: other.to_string(),
            },
        }
    }

    pub(super) fn read_error(
        &self,
        e: std::io::Error,
        method: &str,
        timeout: Duration,
    ) -> McpError {
        use std::io::ErrorKind::*;
        match e.kind() {
            TimedOut | WouldBlock => McpError::Timeout {
                method: method.to_owned(),
                after: timeout,
            },
            ConnectionRefused => McpError::Connect {
                url: self.spec.url.clone(),
                reason: "connection refused (is the server running?)".into(),
            },
            _ => {
                let text = e.to_string();
                if text.contains("timeout") {
                    McpError::Timeout {
                        method: method.to_owned(),
                        after: timeout,
                    }
                } else {
                    McpError::Connect {
                        url: self.spec.url.clone(),
                        reason: text,
                    }
                }
            }
        }
    }
}
