//! The one door the integration tests, the bench and the fuzz targets use: everything else in
//! the library is private to it. Hidden from the docs, not a stable API.

pub use crate::config::ProtocolPin;
pub use crate::config::vocab::{CHECKS, LINT_RULES, PROTOCOL_CHECK_IDS, PROTOCOL_CHECKS};
pub use crate::mcp::http::HttpSpec;
pub use crate::mcp::stdio::StdioSpec;
pub use crate::mcp::types::CallResult;
pub use crate::mcp::{Client, ClientOptions, McpError, ServerSpec};
pub use crate::report::html::render as render_html;

/// The run's result model, for building a report by hand.
pub mod outcome {
    pub use crate::outcome::*;
}

/// The fuzz targets' entry points (see `fuzz/`).
#[cfg(any(test, feature = "fuzzing"))]
pub mod hostile_input {
    pub use crate::hostile_input::{StdoutRead, config, jsonrpc_lines, sse};

    /// Whether the bytes read as an Anthropic answer.
    pub fn anthropic_answer(bytes: &[u8]) -> bool {
        crate::hostile_input::anthropic_answer(bytes).is_some()
    }

    /// Whether the bytes read as an OpenAI answer.
    pub fn openai_answer(bytes: &[u8]) -> bool {
        crate::hostile_input::openai_answer(bytes).is_some()
    }

    /// Whether the bytes read as a command provider's answer.
    pub fn command_answer(bytes: &[u8]) -> bool {
        crate::hostile_input::command_answer(bytes).is_some()
    }

    /// Whether the bytes read as an answer cache entry.
    pub fn cache_entry(bytes: &[u8]) -> bool {
        crate::hostile_input::cache_entry(bytes).is_some()
    }
}
