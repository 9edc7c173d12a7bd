//! Errors of the MCP client, one enum for transport and protocol failures.

use std::time::Duration;

/// Why a request to the server produced no usable answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum McpError {
    /// The server program could not be started.
    #[error("could not start `{program}`: {reason}")]
    Spawn {
        /// Program name as configured.
        program: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The server process ended (or closed stdout) while we waited.
    #[error("server {how}")]
    Exited {
        /// `exited with code 3`, `was killed by signal 9 (SIGKILL)`…
        how: String,
    },
    /// No answer within the allowed time.
    #[error("no answer to `{method}` within {}", crate::mcp::error::human(*.after))]
    Timeout {
        /// The request method.
        method: String,
        /// How long we waited.
        after: Duration,
    },
    /// The HTTP server answered with an error status or an unusable body.
    #[error("HTTP {status} from {url}: {detail}")]
    Http {
        /// Status code.
        status: u16,
        /// Endpoint.
        url: String,
        /// Body or explanation, shortened.
        detail: String,
    },
    /// The HTTP connection failed.
    #[error("could not reach {url}: {reason}")]
    Connect {
        /// Endpoint.
        url: String,
        /// Why.
        reason: String,
    },
    /// A JSON-RPC error answer to a request that is not a tool call.
    #[error("`{method}` failed with JSON-RPC error {code}: {message}")]
    Rpc {
        /// The request method.
        method: String,
        /// Error code.
        code: i64,
        /// Error message.
        message: String,
    },
    /// The server broke the protocol (garbage, wrong shapes, endless pagination).
    #[error("{0}")]
    Protocol(String),
    /// Writing to or reading from the server failed.
    #[error("i/o with the server failed: {0}")]
    Io(String),
}

impl McpError {
    /// Whether the server is gone and needs a restart.
    pub fn is_fatal(&self) -> bool {
        matches!(self, McpError::Exited { .. } | McpError::Io(_))
    }
}

/// `1.5s`, `250ms`, `2m 5s`.
pub fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        let s = d.as_secs_f64();
        if (s - s.round()).abs() < 0.0005 {
            format!("{}s", s.round() as u64)
        } else {
            format!("{s:.1}s")
        }
    } else {
        format!("{}m {}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

/// Shortens untrusted text for a message: at most `max` characters, one line.
pub fn shorten(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    if flat.chars().count() <= max {
        flat.to_owned()
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    }
}
