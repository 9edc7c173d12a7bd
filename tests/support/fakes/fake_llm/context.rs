//! `[[from-context NAME KEY]]`: an answer that depends on the conversation before the prompt.
//! The earlier turns (every message before the last user message, and the tool results that
//! share the last user message; never the system prompt) are read for the last number of
//! three or more digits. Found: a call of NAME with `{KEY: "<digits>"}`. Not found: a text
//! answer asking which one is meant, as a careful model does.

use serde_json::{Value, json};

use crate::script::{Call, Script};

/// Fills the script's answer from the context, when the prompt asked for it.
pub fn answer(script: &mut Script, body: &Value) {
    let Some((name, key)) = script.from_context.clone() else {
        return;
    };
    let earlier = if body.get("contents").is_some() {
        crate::gemini::earlier_text(body)
    } else {
        earlier_text(body)
    };
    match last_number(&earlier) {
        Some(number) => script.calls.push(Call::Args {
            name,
            args: json!({ key: number }),
        }),
        None => script.text.push("Which one do you mean?".to_owned()),
    }
}

/// The text of the turns before the prompt, in order, one turn per line.
fn earlier_text(body: &Value) -> String {
    let messages = body
        .get("messages")
        .or_else(|| body.get("input"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let last_user = messages
        .iter()
        .rposition(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    let mut out = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        if role == "system" {
            continue;
        }
        let is_prompt = Some(i) == last_user;
        match message.get("content") {
            Some(Value::String(s)) if !is_prompt => out.push(s.clone()),
            Some(Value::Array(blocks)) => {
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") if !is_prompt => out.push(text_of(block.get("text"))),
                        Some("tool_use") => out.push(text_of(block.get("input"))),
                        Some("tool_result") => out.push(text_of(block.get("content"))),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        // Responses items: an earlier call and its output.
        match message.get("type").and_then(Value::as_str) {
            Some("function_call") => out.push(text_of(message.get("arguments"))),
            Some("function_call_output") => out.push(text_of(message.get("output"))),
            _ => {}
        }
        for call in message
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.push(text_of(call.pointer("/function/arguments")));
        }
    }
    out.join("\n")
}

/// A string as is, a list of text blocks joined, anything else as JSON text.
fn text_of(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| text_of(p.get("text")))
            .collect::<Vec<_>>()
            .join(" "),
        Some(other) => other.to_string(),
    }
}

/// The last run of three or more ASCII digits.
fn last_number(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_ascii_digit())
        .rfind(|run| run.len() >= 3)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_responses_items_but_not_the_instructions_or_the_prompt() {
        let responses = json!({"instructions": "order 11111", "input": [
            {"role": "user", "content": "Where is my order?"},
            {"type": "function_call", "call_id": "c", "name": "g", "arguments": "{\"id\":\"31337\"}"},
            {"type": "function_call_output", "call_id": "c", "output": "status 200"},
            {"role": "user", "content": "Cancel 99999"}
        ]});
        assert_eq!(
            last_number(&earlier_text(&responses)).as_deref(),
            Some("200")
        );
        let calls_only = json!({"input": [
            {"type": "function_call", "call_id": "c", "name": "g", "arguments": "{\"id\":\"31337\"}"},
            {"role": "user", "content": "Cancel it"}
        ]});
        assert_eq!(
            last_number(&earlier_text(&calls_only)).as_deref(),
            Some("31337")
        );
    }

    #[test]
    fn reads_both_apis_earlier_turns_but_not_the_prompt_or_the_system() {
        let anthropic = json!({"system": "order 11111", "messages": [
            {"role": "user", "content": "Where is 55219?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "g", "input": {"id": "55219"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t", "content": "ok"},
                {"type": "text", "text": "Cancel 99999"}
            ]}
        ]});
        assert_eq!(
            last_number(&earlier_text(&anthropic)).as_deref(),
            Some("55219")
        );
        let openai = json!({"messages": [
            {"role": "system", "content": "order 11111"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "g", "arguments": "{\"id\":\"4242\"}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "fine"},
            {"role": "user", "content": "Cancel 99999"}
        ]});
        assert_eq!(last_number(&earlier_text(&openai)).as_deref(), Some("4242"));
        let alone = json!({"messages": [{"role": "user", "content": "Cancel 99999"}]});
        assert_eq!(last_number(&earlier_text(&alone)), None);
    }
}
