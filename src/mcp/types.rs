//! Protocol data toolproof reads from a server: server identity, tools, resources, prompts and
//! call results. Parsing is lenient: a malformed tool is kept as it came so that static checks
//! can report what is wrong with it instead of the listing failing.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// Which generation of the protocol a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// `initialize` handshake (2025-03-26 up to 2025-11-25).
    Legacy,
    /// Stateless, `server/discover` and per-request `_meta` (2026-07-28).
    Modern,
}

/// What the handshake or discovery told us about the server.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ServerInfo {
    /// `serverInfo.name`.
    pub name: Option<String>,
    /// `serverInfo.version`.
    pub version: Option<String>,
    /// `serverInfo.title`.
    pub title: Option<String>,
    /// Negotiated protocol revision.
    pub protocol_version: String,
    /// Capabilities object as sent.
    pub capabilities: Value,
    /// `instructions`, if any.
    pub instructions: Option<String>,
}

impl ServerInfo {
    /// Whether the server advertised capability `name` (`tools`, `resources`, `prompts`…).
    pub fn has_capability(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|v| !v.is_null())
    }
}

/// A tool as listed by `tools/list`.
#[derive(Debug, Clone, Serialize)]
pub struct Tool {
    /// `name` (empty when missing or not a string).
    pub name: String,
    /// `title`.
    pub title: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `inputSchema`, `None` when absent.
    pub input_schema: Option<Value>,
    /// `outputSchema`, `None` when absent.
    pub output_schema: Option<Value>,
    /// `annotations`, `None` when absent.
    pub annotations: Option<Value>,
    /// The object exactly as the server sent it.
    pub raw: Value,
    /// Numbers a `Value` cannot hold as Python's SDK parses them (integers beyond 64 bits,
    /// `-0`, decimals serde_json rounds differently): JSON pointer within the tool and the
    /// text Python's `json.dumps` writes for it. Eval cache keys hash these texts.
    #[serde(skip)]
    pub exact_numbers: Vec<(String, String)>,
}

impl Tool {
    /// Reads a tool from its wire form, never failing.
    pub fn from_wire(mut raw: Value) -> Self {
        let exact_numbers = take_exact_numbers(&mut raw);
        let text = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_owned);
        let present = |k: &str| raw.get(k).cloned();
        Tool {
            name: text("name").unwrap_or_default(),
            title: text("title"),
            description: text("description"),
            input_schema: present("inputSchema"),
            output_schema: present("outputSchema"),
            annotations: present("annotations"),
            raw,
            exact_numbers,
        }
    }

    /// A boolean annotation hint, if set.
    pub fn hint(&self, key: &str) -> Option<bool> {
        self.annotations.as_ref()?.get(key)?.as_bool()
    }

    /// The first line of the description, trimmed.
    pub fn summary(&self) -> &str {
        self.description
            .as_deref()
            .and_then(|d| d.trim().lines().next())
            .unwrap_or("")
    }
}

/// The outcome of one `tools/call`.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    /// Wall time from sending the request to reading its answer.
    pub latency: Duration,
    /// What came back.
    pub result: CallResult,
    /// Server stderr written while the call was in flight (stdio only).
    pub stderr: String,
}

/// What a `tools/call` produced.
#[derive(Debug, Clone)]
pub enum CallResult {
    /// A result object.
    Result {
        /// `content` blocks.
        content: Vec<Value>,
        /// `structuredContent`.
        structured: Option<Value>,
        /// `isError` (absent = false).
        is_error: bool,
    },
    /// A JSON-RPC error response.
    ProtocolError {
        /// Error code.
        code: i64,
        /// Error message.
        message: String,
        /// Error data.
        data: Option<Value>,
    },
}

impl CallResult {
    /// For a result that says it succeeded (`isError` false), its only text when that text
    /// reads as an error ([`crate::mcp::content::error_text`]): an error returned as success,
    /// which clients and models take for an answer.
    pub fn error_as_success(&self) -> Option<String> {
        match self {
            CallResult::Result {
                content,
                structured,
                is_error: false,
            } => crate::mcp::content::error_text(content, structured.as_ref()),
            _ => None,
        }
    }

    /// The text blocks joined with newlines; other block kinds as `<kind>`.
    pub fn text(&self) -> String {
        match self {
            CallResult::Result { content, .. } => content
                .iter()
                .map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("text") => b
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    Some(kind) => format!("<{kind}>"),
                    None => "<unknown>".to_owned(),
                })
                .collect::<Vec<_>>()
                .join("\n"),
            CallResult::ProtocolError { message, .. } => message.clone(),
        }
    }
}

/// Removes the key [`crate::mcp::exact::mark`] put in a listed tool and
/// returns what it held.
fn take_exact_numbers(raw: &mut Value) -> Vec<(String, String)> {
    let Some(Value::Object(found)) = raw
        .as_object_mut()
        .and_then(|o| o.shift_remove(crate::mcp::exact::EXACT_NUMBERS))
    else {
        return Vec::new();
    };
    found
        .into_iter()
        .filter_map(|(at, text)| Some((at, text.as_str()?.to_owned())))
        .collect()
}
