//! Request/response logs of the two chat APIs, one exchange a line: `{"request": {…},
//! "response": {…}}` (a proxy's or an SDK hook's log), or the request body alone with its
//! `messages` (the answer then being the last assistant message). Each line is read as one
//! conversation: the messages sent, then the answer.
//!
//! - OpenAI Chat Completions: `user`, `assistant` (`tool_calls` with JSON-string
//!   `arguments`), `tool` (`tool_call_id`; no error flag, so a result reading "Error…" is an
//!   error); the answer is `choices[0].message`.
//! - Anthropic Messages: content blocks `text`, `tool_use`, `tool_result` (`is_error`); the
//!   answer is the response's `content`.

use serde_json::Value;

use super::{
    Conversation, Event, Format, Read, args_of, json_lines, not_json, reads_as_error,
    says_rejected, text_of, tool_result, tool_use,
};

/// Which of the two APIs a log is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Api {
    OpenAi,
    Anthropic,
}

/// What a line says about which API it logs.
pub(super) fn detect(v: &Value) -> Option<Format> {
    let request = v.get("request").unwrap_or(v);
    let response = v.get("response").unwrap_or(&Value::Null);
    let messages = request.get("messages")?.as_array()?;
    if response.get("choices").is_some() {
        return Some(Format::Openai);
    }
    if response.get("stop_reason").is_some() || response["content"].is_array() {
        return Some(Format::Anthropic);
    }
    for m in messages {
        if m.get("tool_calls").is_some() || m["role"] == "tool" || m["role"] == "system" {
            return Some(Format::Openai);
        }
        let blocks = m["content"].as_array().into_iter().flatten();
        for b in blocks {
            if matches!(b["type"].as_str(), Some("tool_use" | "tool_result")) {
                return Some(Format::Anthropic);
            }
        }
    }
    if request.get("system").is_some() {
        return Some(Format::Anthropic);
    }
    None
}

pub(super) fn read(file: &str, text: &str, api: Api) -> Read {
    let mut out = Read::default();
    for (line, parsed) in json_lines(text) {
        let v = match parsed {
            Ok(v) => v,
            Err(e) => {
                out.skipped.push(not_json(file, line, &e));
                continue;
            }
        };
        let request = v.get("request").unwrap_or(&v);
        let Some(messages) = request.get("messages").and_then(Value::as_array) else {
            out.skipped.push(format!(
                "{file}:{line}: no `messages` in the request, skipped"
            ));
            continue;
        };
        let mut events = Vec::new();
        for m in messages {
            message(m, line, api, &mut events);
        }
        if let Some(response) = v.get("response").filter(|r| !r.is_null()) {
            match api {
                Api::OpenAi => {
                    if let Some(m) = response["choices"].get(0).map(|c| &c["message"]) {
                        message(m, line, api, &mut events);
                    }
                }
                Api::Anthropic => {
                    let m =
                        serde_json::json!({"role": "assistant", "content": response["content"]});
                    message(&m, line, api, &mut events);
                }
            }
        }
        out.conversations.push(Conversation {
            file: file.to_owned(),
            events,
        });
    }
    out
}

fn message(m: &Value, line: u32, api: Api, events: &mut Vec<Event>) {
    match (m["role"].as_str(), api) {
        (Some("user"), Api::OpenAi) => push_user(text_of(&m["content"]), line, events),
        (Some("assistant"), Api::OpenAi) => {
            push_assistant(text_of(&m["content"]), events);
            for call in m["tool_calls"].as_array().into_iter().flatten() {
                events.push(Event::Call {
                    id: call["id"].as_str().map(str::to_owned),
                    tool: call["function"]["name"].as_str().unwrap_or("").to_owned(),
                    args: args_of(call["function"].get("arguments")),
                    line,
                });
            }
        }
        (Some("tool"), Api::OpenAi) => {
            let text = text_of(&m["content"]);
            let rejected = says_rejected(&text);
            events.push(Event::Result {
                id: m["tool_call_id"].as_str().map(str::to_owned),
                error: rejected || reads_as_error(&text),
                rejected,
                text,
                line,
            });
        }
        (Some(role @ ("user" | "assistant")), Api::Anthropic) => {
            anthropic_blocks(role, &m["content"], line, events);
        }
        _ => {}
    }
}

fn anthropic_blocks(role: &str, content: &Value, line: u32, events: &mut Vec<Event>) {
    let Some(blocks) = content.as_array() else {
        let text = text_of(content);
        if role == "user" {
            push_user(text, line, events);
        } else {
            push_assistant(text, events);
        }
        return;
    };
    for b in blocks {
        match b["type"].as_str() {
            Some("text") if role == "user" => push_user(text_of(b), line, events),
            Some("text") => push_assistant(text_of(b), events),
            Some("tool_use") => events.push(tool_use(b, line)),
            Some("tool_result") => events.push(tool_result(b, line)),
            _ => {}
        }
    }
}

fn push_user(text: String, line: u32, events: &mut Vec<Event>) {
    let text = text.trim();
    if !text.is_empty() {
        events.push(Event::User {
            text: text.to_owned(),
            line,
        });
    }
}

fn push_assistant(text: String, events: &mut Vec<Event>) {
    let text = text.trim();
    if !text.is_empty() {
        events.push(Event::Assistant(text.to_owned()));
    }
}
