//! A case's earlier turns (`context:`) in each provider's shape, followed by the prompt:
//!
//! - Anthropic Messages: user and assistant messages; an earlier call is an assistant
//!   `tool_use` block (id `toolu_ctx_N`) answered by a user `tool_result` block. Turns of the
//!   same role in a row share one message (text then `tool_use`, `tool_result` then text), so
//!   the roles alternate as the API expects, and `tool_result` blocks come first in theirs.
//! - OpenAI Chat Completions: user and assistant messages; an earlier call is an assistant
//!   message's `tool_calls` entry (id `call_ctx_N`, the arguments as a JSON string) followed by
//!   a `role: tool` message with the result. Assistant text right before a call carries it.
//! - OpenAI Responses: `input` items; user and assistant turns are messages, an earlier call a
//!   `function_call` item (call id `call_ctx_N`, the arguments as a JSON string) followed by a
//!   `function_call_output` item with the result.
//! - The command provider: a `context` member, the turns as the YAML writes them.
//!
//! Tool names are the API-safe names the model is offered (the engine maps them). Without
//! context every shape is the one mcp-toolproof sends: a single user message.

use serde_json::{Value, json};

use crate::config::Turn;

/// The Anthropic `messages`: the context's turns, then the prompt.
pub(crate) fn anthropic_messages(context: &[Turn], prompt: &str) -> Value {
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, block: Value| match messages.last_mut() {
        Some((last, blocks)) if *last == role => blocks.push(block),
        _ => messages.push((role, vec![block])),
    };
    let text = |t: &str| json!({"type": "text", "text": t});
    let mut calls = 0;
    for turn in context {
        match turn {
            Turn::User(t) => push("user", text(t)),
            Turn::Assistant(t) => push("assistant", text(t)),
            Turn::Call { tool, args, result } => {
                calls += 1;
                let id = format!("toolu_ctx_{calls}");
                push(
                    "assistant",
                    json!({"type": "tool_use", "id": id, "name": tool, "input": args}),
                );
                push(
                    "user",
                    json!({"type": "tool_result", "tool_use_id": id, "content": result}),
                );
            }
        }
    }
    push("user", text(prompt));
    let messages = messages
        .into_iter()
        .map(|(role, mut blocks)| {
            let only_text = blocks.len() == 1 && blocks[0]["type"] == "text";
            let content = if only_text {
                blocks.swap_remove(0)["text"].take()
            } else {
                Value::Array(blocks)
            };
            json!({"role": role, "content": content})
        })
        .collect();
    Value::Array(messages)
}

/// The OpenAI messages after the system message: the context's turns, then the prompt.
pub(crate) fn openai_messages(context: &[Turn], prompt: &str) -> Vec<Value> {
    let mut messages: Vec<Value> = Vec::new();
    let mut calls = 0;
    for turn in context {
        match turn {
            Turn::User(t) => messages.push(json!({"role": "user", "content": t})),
            Turn::Assistant(t) => messages.push(json!({"role": "assistant", "content": t})),
            Turn::Call { tool, args, result } => {
                calls += 1;
                let id = format!("call_ctx_{calls}");
                let call = json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": tool, "arguments": crate::pycompat::bigint::to_string(&Value::Object(args.clone()))},
                });
                // Text the assistant said just before the call is the same message.
                match messages.last_mut() {
                    Some(last)
                        if last["role"] == "assistant" && last.get("tool_calls").is_none() =>
                    {
                        last["tool_calls"] = json!([call]);
                    }
                    _ => messages
                        .push(json!({"role": "assistant", "content": null, "tool_calls": [call]})),
                }
                messages.push(json!({"role": "tool", "tool_call_id": id, "content": result}));
            }
        }
    }
    messages.push(json!({"role": "user", "content": prompt}));
    messages
}

/// The OpenAI Responses `input` items: the context's turns, then the prompt.
pub(crate) fn responses_input(context: &[Turn], prompt: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut calls = 0;
    for turn in context {
        match turn {
            Turn::User(t) => items.push(json!({"role": "user", "content": t})),
            Turn::Assistant(t) => items.push(json!({"role": "assistant", "content": t})),
            Turn::Call { tool, args, result } => {
                calls += 1;
                let id = format!("call_ctx_{calls}");
                let arguments = crate::pycompat::bigint::to_string(&Value::Object(args.clone()));
                items.push(json!({
                    "type": "function_call", "call_id": id, "name": tool, "arguments": arguments,
                }));
                items
                    .push(json!({"type": "function_call_output", "call_id": id, "output": result}));
            }
        }
    }
    items.push(json!({"role": "user", "content": prompt}));
    items
}

/// The command provider's `context` member: each turn as the YAML writes it
/// (`{"user": …}`, `{"assistant": …}`, `{"call": NAME, "args": {…}, "result": …}`).
pub(crate) fn command_context(context: &[Turn]) -> Value {
    context_material(context)
}

/// The turns of a case's context as its cache key hashes them: `{"user": text}`,
/// `{"assistant": text}`, `{"args": {...}, "call": MCP name, "result": text}`, in order.
pub(crate) fn context_material(context: &[Turn]) -> Value {
    let turns = context
        .iter()
        .map(|turn| match turn {
            Turn::User(text) => json!({"user": text}),
            Turn::Assistant(text) => json!({"assistant": text}),
            Turn::Call { tool, args, result } => {
                json!({"call": tool, "args": args, "result": result})
            }
        })
        .collect();
    Value::Array(turns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    /// "Where is my order 55219?", a `get_order` call and its result, the assistant's answer.
    fn order_talk() -> Vec<Turn> {
        let mut args = Map::new();
        args.insert("order_id".into(), json!("55219"));
        vec![
            Turn::User("Where is my order 55219?".into()),
            Turn::Call {
                tool: "get_order".into(),
                args,
                result: r#"{"status": "processing"}"#.into(),
            },
            Turn::Assistant("Order 55219 is still processing.".into()),
        ]
    }

    /// The turns of every case of a config whose `context` calls hold integers beyond 64 bits,
    /// inline and in a `cases_file`.
    fn big_int_turns() -> Vec<Vec<Turn>> {
        let dir =
            std::env::temp_dir().join(format!("toolproof-context-bigint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let case = "prompt: Cancel it\n    expect_tool: cancel\n    context:\n      - call: get_order\n        args: {id: 1180591620717411303425, ids: [-18446744073709551617]}\n        result: {total: 340282366920938463463374607431768211457}\n";
        std::fs::write(dir.join("cases.yaml"), format!("cases:\n  - {case}")).expect("cases file");
        let yaml = format!(
            "server:\n  command: [x]\nevals:\n  provider: command\n  command: [x]\n  cases_file: cases.yaml\n  cases:\n  - {case}"
        );
        std::fs::write(dir.join("toolproof.yaml"), yaml).expect("config");
        let loaded = crate::config::load(&dir.join("toolproof.yaml"));
        let _ = std::fs::remove_dir_all(&dir);
        let loaded = loaded.unwrap_or_else(|e| panic!("{e}"));
        let evals = loaded.config.evals.expect("evals");
        assert_eq!(evals.cases.len(), 2);
        evals.cases.iter().map(|c| c.turns()).collect()
    }

    #[test]
    fn integers_beyond_64_bits_in_context_calls_are_sent_with_every_digit() {
        for turns in big_int_turns() {
            let anthropic = crate::pycompat::bigint::to_string(&anthropic_messages(&turns, "p"));
            assert!(
                anthropic.contains(
                    r#""input":{"id":1180591620717411303425,"ids":[-18446744073709551617]}"#
                ) && anthropic
                    .contains(r#""content":"{\"total\":340282366920938463463374607431768211457}""#),
                "{anthropic}"
            );
            let openai =
                crate::pycompat::bigint::to_string(&Value::Array(openai_messages(&turns, "p")));
            assert!(
                openai.contains(r#""arguments":"{\"id\":1180591620717411303425,\"ids\":[-18446744073709551617]}""#),
                "{openai}"
            );
            let command = crate::pycompat::bigint::to_string(&command_context(&turns));
            assert!(
                command.contains(
                    r#""args":{"id":1180591620717411303425,"ids":[-18446744073709551617]}"#
                ),
                "{command}"
            );
        }
    }

    #[test]
    fn anthropic_gets_tool_use_and_tool_result_blocks_with_alternating_roles() {
        assert_eq!(
            anthropic_messages(&order_talk(), "Cancel it"),
            json!([
                {"role": "user", "content": "Where is my order 55219?"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_ctx_1", "name": "get_order", "input": {"order_id": "55219"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_ctx_1", "content": "{\"status\": \"processing\"}"}
                ]},
                {"role": "assistant", "content": "Order 55219 is still processing."},
                {"role": "user", "content": "Cancel it"}
            ])
        );
        // A context that ends on a call: the prompt joins the tool result's message, after it.
        let ends_on_call = &order_talk()[..2];
        let m = anthropic_messages(ends_on_call, "Cancel it");
        assert_eq!(
            m[2],
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_ctx_1", "content": "{\"status\": \"processing\"}"},
                {"type": "text", "text": "Cancel it"}
            ]})
        );
        // Text before a call is the same assistant message; a second call gets the next id.
        let mut talk = vec![Turn::Assistant("Let me look.".into())];
        talk.extend(order_talk()[1..2].iter().cloned());
        talk.extend(order_talk()[1..2].iter().cloned());
        let m = anthropic_messages(&talk, "ok");
        assert_eq!(
            m[0]["content"][0],
            json!({"type": "text", "text": "Let me look."})
        );
        assert_eq!(m[0]["content"][1]["id"], "toolu_ctx_1");
        assert_eq!(m[2]["content"][0]["id"], "toolu_ctx_2");
        assert_eq!(m[3]["content"][1], json!({"type": "text", "text": "ok"}));
        // No context: the reference's single user message.
        assert_eq!(
            anthropic_messages(&[], "hi"),
            json!([{"role": "user", "content": "hi"}])
        );
    }

    #[test]
    fn openai_gets_tool_calls_and_tool_messages() {
        assert_eq!(
            Value::Array(openai_messages(&order_talk(), "Cancel it")),
            json!([
                {"role": "user", "content": "Where is my order 55219?"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_ctx_1", "type": "function",
                     "function": {"name": "get_order", "arguments": "{\"order_id\":\"55219\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_ctx_1", "content": "{\"status\": \"processing\"}"},
                {"role": "assistant", "content": "Order 55219 is still processing."},
                {"role": "user", "content": "Cancel it"}
            ])
        );
        let mut talk = vec![Turn::Assistant("Let me look.".into())];
        talk.extend(order_talk()[1..2].iter().cloned());
        let m = openai_messages(&talk, "ok");
        assert_eq!(m.len(), 3);
        assert_eq!(m[0]["content"], "Let me look.");
        assert_eq!(m[0]["tool_calls"][0]["id"], "call_ctx_1");
        assert_eq!(
            openai_messages(&[], "hi"),
            [json!({"role": "user", "content": "hi"})]
        );
    }

    #[test]
    fn responses_get_function_call_and_output_items() {
        assert_eq!(
            Value::Array(responses_input(&order_talk(), "Cancel it")),
            json!([
                {"role": "user", "content": "Where is my order 55219?"},
                {"type": "function_call", "call_id": "call_ctx_1", "name": "get_order",
                 "arguments": "{\"order_id\":\"55219\"}"},
                {"type": "function_call_output", "call_id": "call_ctx_1",
                 "output": "{\"status\": \"processing\"}"},
                {"role": "assistant", "content": "Order 55219 is still processing."},
                {"role": "user", "content": "Cancel it"}
            ])
        );
        assert_eq!(
            responses_input(&[], "hi"),
            [json!({"role": "user", "content": "hi"})]
        );
        for turns in big_int_turns() {
            let sent =
                crate::pycompat::bigint::to_string(&Value::Array(responses_input(&turns, "p")));
            assert!(
                sent.contains(r#""arguments":"{\"id\":1180591620717411303425,\"ids\":[-18446744073709551617]}""#),
                "{sent}"
            );
        }
    }

    #[test]
    fn the_command_provider_gets_the_turns_as_written() {
        assert_eq!(
            command_context(&order_talk()),
            json!([
                {"user": "Where is my order 55219?"},
                {"call": "get_order", "args": {"order_id": "55219"}, "result": "{\"status\": \"processing\"}"},
                {"assistant": "Order 55219 is still processing."}
            ])
        );
    }
}
