//! Tool-selection evals: give a model the server's tool list, record which tool it picks for
//! each labelled prompt (nothing is called), score it, and gate the run.
//!
//! Two halves: [`asking`] puts the question to a model (providers, the engine, the answer cache,
//! the tool list as APIs take it, usage and prices); [`judging`] weighs the answers (one answer
//! against its label: `grade`; a whole run: `tally`; the set lint, the stress curve, the history
//! file, the statistics).
//!
//! Shared vocabulary of the evals modules lives here: what a model answered ([`Choice`]) and
//! the tool list as model APIs see it ([`ApiTool`]).

pub mod asking;
pub mod judging;

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Reads a whole file as UTF-8 text, refusing one larger than `limit` bytes without loading
/// it (a device such as /dev/zero never ends); the error says so and names `what` the file is.
pub(crate) fn read_capped(path: &Path, limit: u64, what: &str) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("it is larger than the {} MiB limit for {what}", limit >> 20),
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// A tool as offered to a model API: an API-safe name, the description, the input schema.
/// Serializes to exactly `{"name", "description", "input_schema"}` (the cache key hashes it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiTool {
    /// Name matching `^[a-zA-Z0-9_-]{1,64}$`.
    pub name: String,
    /// The MCP description, or "".
    pub description: String,
    /// The MCP input schema as the server sent it.
    pub input_schema: Value,
    /// Numbers of the input schema a `Value` cannot hold as Python does: JSON pointer (within
    /// the schema) and Python's `json.dumps` text (see [`crate::mcp::types::Tool`]).
    #[serde(skip)]
    pub exact_numbers: Vec<(String, String)>,
}

/// Why a model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// It asked for a tool (or tools).
    ToolUse,
    /// It finished its turn.
    EndTurn,
    /// It ran out of tokens (a call may be cut off).
    MaxTokens,
    /// It declined to answer.
    Refusal,
    /// Anything else the provider said.
    Other(String),
}

/// One call a model made, with the MCP tool name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// MCP tool name (mapped back from the API-safe name; unknown names kept as returned).
    pub tool: String,
    /// Parsed arguments (`{}` when the model sent none or they were malformed).
    pub args: Value,
    /// The raw arguments string, when it was not a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub malformed: Option<String>,
}

/// What a model answered to one prompt, in MCP terms: every call, in order, and the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Every tool call, in the order the model made them.
    pub calls: Vec<Call>,
    /// Text that came with the answer (joined with spaces).
    pub text: String,
    /// Why the model stopped.
    pub stop: Stop,
}
