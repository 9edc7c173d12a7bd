//! Errors of the MCP client, one enum for transport and protocol failures.
//!
//! An [`McpError`] is quoted inside one-line messages (a test's failure line, a restart reason),
//! so its text stays on one line: a hint it carries is shown in parentheses after the detail.

use std::time::Duration;

use super::protocol::{LEGACY_VERSIONS, MODERN_VERSION};

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
    #[error("no answer to `{method}` within {}", human(*.after))]
    Timeout {
        /// The request method.
        method: String,
        /// How long we waited.
        after: Duration,
    },
    /// The HTTP server answered with an error status or an unusable body.
    #[error("HTTP {status} from {url}: {detail}{}", in_parens(.hint.as_deref()))]
    Http {
        /// Status code.
        status: u16,
        /// Endpoint.
        url: String,
        /// Body or explanation, shortened.
        detail: String,
        /// What to check, when the status points at a fix.
        hint: Option<String>,
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
    /// The start-up timed out while the server printed non-JSON on stdout.
    #[error("no answer to `{method}` within {}: the server printed non-JSON on stdout instead: {first_line}", human(*.after))]
    NoisyStartup {
        /// The request method.
        method: String,
        /// How long we waited.
        after: Duration,
        /// The first line it printed, shortened.
        first_line: String,
    },
    /// A stdio server answered neither handshake.
    #[error(
        "the server refused both handshakes: initialize gave {initialize}; server/discover gave {discover}"
    )]
    HandshakesRefused {
        /// What `initialize` got.
        initialize: Refusal,
        /// What `server/discover` got.
        discover: Refusal,
    },
    /// A stdio server answered `server/discover` without the stateless revision and refused
    /// `initialize`.
    #[error(
        "the server supports neither {MODERN_VERSION} nor the initialize handshake ({initialize})"
    )]
    NoHandshake {
        /// What `initialize` got.
        initialize: Refusal,
    },
    /// `server/discover` did not list the stateless revision.
    #[error("the server does not support {MODERN_VERSION} (supportedVersions: {supported})")]
    NotModern {
        /// The `supportedVersions` it sent, as JSON.
        supported: String,
    },
    /// `initialize` answered with a revision toolproof does not speak.
    #[error(
        "the server answered initialize with protocol version `{version}`, which toolproof does not speak (it speaks {} and {MODERN_VERSION})",
        LEGACY_VERSIONS.join(", ")
    )]
    UnknownVersion {
        /// The revision it named, shortened.
        version: String,
    },
    /// A message from the server that could not be read (nested too deep, a number out of
    /// range, not JSON, over the size limit), filed against the request it most likely answers:
    /// the one in flight.
    #[error("the answer to `{method}` could not be read: {reason}{}", begins(.start))]
    Unreadable {
        /// The request in flight.
        method: String,
        /// Why, in words.
        reason: String,
        /// Its first characters, shortened.
        start: String,
    },
    /// A response whose id is not the id of the request in flight.
    #[error("{}", stray_text(.method, .want, .got, *.again))]
    StrayAnswer {
        /// The request in flight.
        method: String,
        /// Its id, as JSON.
        want: String,
        /// The id the response carried, as JSON, shortened.
        got: String,
        /// The id is of an earlier request that was already answered.
        again: bool,
    },
    /// The server broke the protocol (garbage, wrong shapes, endless pagination).
    #[error("{0}")]
    Protocol(String),
    /// Writing to or reading from the server failed.
    #[error("i/o with the server failed: {0}")]
    Io(String),
    /// The run was interrupted while the request was in flight; its answer was not awaited.
    #[error("the run was interrupted while `{method}` was in flight")]
    Interrupted {
        /// The request.
        method: String,
    },
}

/// Why one handshake request of the stdio probe got no usable answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A JSON-RPC error answer.
    #[error("JSON-RPC error {code}: {message}")]
    Rpc {
        /// Error code.
        code: i64,
        /// Error message, shortened.
        message: String,
    },
    /// The server answered later requests but not this one.
    #[error("not answered")]
    NotAnswered,
}

/// `; it begins: …`, or nothing when nothing of it was kept.
fn begins(start: &str) -> String {
    if start.is_empty() {
        String::new()
    } else {
        format!("; it begins: {start}")
    }
}

fn stray_text(method: &str, want: &str, got: &str, again: bool) -> String {
    if again {
        format!(
            "while `{method}` (id {want}) was in flight the server sent a second answer to request {got}"
        )
    } else {
        format!("the server answered `{method}` (id {want}) with id {got}, which no request has")
    }
}

/// ` (hint)`, or nothing.
fn in_parens(hint: Option<&str>) -> String {
    hint.map(|h| format!(" ({h})")).unwrap_or_default()
}

impl McpError {
    /// Whether the server is gone and needs a restart.
    pub fn is_fatal(&self) -> bool {
        matches!(self, McpError::Exited { .. } | McpError::Io(_))
    }

    /// A response with id `got` while `method` (id `want`) is in flight: a second answer when
    /// `got` is an earlier request's id, else an id no request has.
    pub fn stray(method: &str, want: &serde_json::Value, got: &serde_json::Value) -> McpError {
        let again = match (got.as_u64(), want.as_u64()) {
            (Some(g), Some(w)) => g < w,
            _ => false,
        };
        McpError::StrayAnswer {
            method: method.to_owned(),
            want: want.to_string(),
            got: shorten(&got.to_string(), 60),
            again,
        }
    }

    /// The error with the request it concerns filled in, where the transport did not know it.
    pub fn answering(mut self, request: &str) -> McpError {
        if let McpError::Unreadable { method, .. } = &mut self
            && method.is_empty()
        {
            request.clone_into(method);
        }
        self
    }
}

/// `1.5s`, `250ms`, `2m 5s`.
pub(crate) fn human(d: Duration) -> String {
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
pub(crate) fn shorten(text: &str, max: usize) -> String {
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
