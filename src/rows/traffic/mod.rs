//! Conversation logs as toolproof reads them: the formats `rows import` takes, told apart by
//! their content, each read into the same neutral [`Conversation`] of user messages, assistant
//! text, tool calls and their results. MCP traffic logs carry no prompt: they give only the
//! tool calls, for the coverage summary.

mod chat_logs;
mod claude_code;
mod mcp_log;
mod otel;

use serde_json::Value;

pub(crate) use crate::cli::LogFormat as Format;

/// One thing that happened in a conversation, in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// A message the user typed.
    User {
        /// Its text.
        text: String,
        /// The log line it is on.
        line: u32,
    },
    /// Text the assistant answered with.
    Assistant(String),
    /// A tool call the model made, under the name the log gives (`mcp__server__tool` and all).
    Call {
        /// The call's id, when the log gives one.
        id: Option<String>,
        /// The tool's name as logged.
        tool: String,
        /// Its arguments.
        args: Value,
        /// The log line it is on.
        line: u32,
    },
    /// What a call returned.
    Result {
        /// The id of the call it answers, when the log gives one (else the last call).
        id: Option<String>,
        /// An error result.
        error: bool,
        /// The user rejected the call (a permission prompt answered no).
        rejected: bool,
        /// Its text.
        text: String,
        /// The log line it is on.
        line: u32,
    },
    /// The user stopped the assistant (Claude Code's "[Request interrupted by user…]").
    Interrupted {
        /// The log line it is on.
        line: u32,
    },
}

/// One conversation of a log: a session, or one logged request with its answer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Conversation {
    /// The file's name as the rows cite it.
    pub file: String,
    /// What happened, in order.
    pub events: Vec<Event>,
}

/// A tool call seen in MCP traffic: its name and whether it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SeenCall {
    /// The tool's name.
    pub tool: String,
    /// Its answer was an error (`isError`, or a JSON-RPC error).
    pub error: bool,
}

/// What one file held.
#[derive(Debug, Default)]
pub(crate) struct Read {
    /// Conversations with prompts.
    pub conversations: Vec<Conversation>,
    /// Tool calls of MCP traffic (no prompt: coverage only).
    pub traffic: Vec<SeenCall>,
    /// Lines that could not be read, as `file:line: why`.
    pub skipped: Vec<String>,
}

/// Reads `text` (the file `file`) as `format`.
pub(crate) fn read(format: Format, file: &str, text: &str) -> Read {
    match format {
        Format::ClaudeCode => claude_code::read(file, text),
        Format::Openai => chat_logs::read(file, text, chat_logs::Api::OpenAi),
        Format::Anthropic => chat_logs::read(file, text, chat_logs::Api::Anthropic),
        Format::Otel => otel::read(file, text),
        Format::Mcp => mcp_log::read(file, text),
    }
}

/// The format of a log, told from its content: `None` when nothing in it is decisive.
pub(crate) fn detect(text: &str) -> Option<Format> {
    if let Ok(Value::Object(doc)) = serde_json::from_str::<Value>(text.trim())
        && doc.contains_key("resourceSpans")
    {
        return Some(Format::Otel);
    }
    json_lines(text)
        .take(200)
        .find_map(|(_, v)| v.ok().and_then(|v| detect_line(&v)))
}

/// What one JSON line says about its format.
fn detect_line(v: &Value) -> Option<Format> {
    let obj = v.as_object()?;
    if obj.contains_key("resourceSpans") {
        return Some(Format::Otel);
    }
    if mcp_log::message(v).is_some() {
        return Some(Format::Mcp);
    }
    let kind = obj.get("type").and_then(Value::as_str);
    if matches!(kind, Some("user" | "assistant" | "summary" | "system"))
        && (obj.contains_key("sessionId") || obj.contains_key("uuid"))
    {
        return Some(Format::ClaudeCode);
    }
    chat_logs::detect(v)
}

/// The non-blank lines of `text` with their 1-based numbers, each parsed as JSON.
pub(crate) fn json_lines(
    text: &str,
) -> impl Iterator<Item = (u32, Result<Value, serde_json::Error>)> + '_ {
    text.lines().enumerate().filter_map(|(i, line)| {
        let line = line.trim();
        (!line.is_empty()).then(|| {
            (
                u32::try_from(i + 1).unwrap_or(u32::MAX),
                serde_json::from_str(line),
            )
        })
    })
}

/// `file:line: not JSON (…)`, for a line skipped.
pub(crate) fn not_json(file: &str, line: u32, e: &serde_json::Error) -> String {
    format!("{file}:{line}: not a JSON line ({e}), skipped")
}

/// The text of a content value: a string, or the `text` (or `content`) of each part of a
/// list joined with a newline.
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => o
                    .get("text")
                    .or_else(|| o.get("content"))
                    .map(text_of)
                    .filter(|t| !t.is_empty()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        Value::Object(o) => o.get("text").map(text_of).unwrap_or_default(),
        other => other.to_string(),
    }
}

/// An Anthropic `tool_use` block as a call (Messages logs and Claude Code transcripts).
pub(crate) fn tool_use(block: &Value, line: u32) -> Event {
    Event::Call {
        id: block["id"].as_str().map(str::to_owned),
        tool: block["name"].as_str().unwrap_or("").to_owned(),
        args: args_of(block.get("input")),
        line,
    }
}

/// An Anthropic `tool_result` block as a result: an error when it says so or reads as a
/// rejection.
pub(crate) fn tool_result(block: &Value, line: u32) -> Event {
    let text = text_of(&block["content"]);
    let rejected = says_rejected(&text);
    Event::Result {
        id: block["tool_use_id"].as_str().map(str::to_owned),
        error: block["is_error"] == true || rejected,
        rejected,
        text,
        line,
    }
}

/// Arguments logged as a JSON string (OpenAI's `arguments`) or an object.
pub(crate) fn args_of(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Object(serde_json::Map::new()),
    }
}

/// A tool result whose text says the user turned the call down (Claude Code's permission
/// prompt, and the wording other clients use).
pub(crate) fn says_rejected(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "doesn't want to proceed with this tool use",
        "tool use was rejected",
        "user rejected",
        "rejected by the user",
        "denied by the user",
        "declined by the user",
        "user denied",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

/// A result text that reads as an error in logs that have no error flag (OpenAI's `tool`
/// messages): it starts with "error", or carries `"isError": true`.
pub(crate) fn reads_as_error(text: &str) -> bool {
    let lower = text.trim_start().to_lowercase();
    lower.starts_with("error")
        || lower.starts_with("{\"error\"")
        || lower.contains("\"iserror\": true")
        || lower.contains("\"iserror\":true")
}

#[cfg(test)]
mod tests;
