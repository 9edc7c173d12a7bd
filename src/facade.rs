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
    pub use crate::hostile_input::{
        StdoutRead, anthropic_answer, cache_entry, command_answer, config, jsonrpc_lines,
        openai_answer, sse,
    };
}
