//! What local OpenAI-compatible servers do differently, recorded from real ones: the answer
//! shapes of llama-cpp-python 0.3.36 (`--flavor llama-cpp-python`, recorded from its server
//! with `--chat_format chatml-function-calling` and SmolLM2-135M-Instruct) and a server that
//! answers one request at a time (`--single-slot MS`, as llama.cpp's servers do with one slot).
//!
//! llama-cpp-python's Chat Completions answer, as recorded:
//! - a tool call: `{"content": null, "tool_calls": [{"id": "call__0_NAME_cmpl-…", "type":
//!   "function", "function": {"name", "arguments"}}], "role": "assistant", "function_call":
//!   {"name", "arguments"}}` (the legacy `function_call` repeats the first call) with
//!   `finish_reason: tool_calls`; no `refusal`, no `annotations`, no `system_fingerprint`;
//! - text: `{"content": TEXT, "role": "assistant"}` with `finish_reason: stop`, or `length`
//!   when `max_tokens` cut it; `max_completion_tokens` is ignored;
//! - `tool_choice: "required"`: 500 `{"error": {"message": "", "type":
//!   "internal_server_error", "param": null, "code": null}}`;
//! - any model name is accepted and echoed back.

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use crate::script::{Call, Script};
use crate::wire::Out;

/// The answer shapes the fake speaks for Chat Completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// OpenAI's own API.
    OpenAi,
    /// llama-cpp-python's server.
    LlamaCppPython,
}

impl Flavor {
    /// `openai` or `llama-cpp-python`.
    pub fn parse(name: &str) -> Result<Flavor, String> {
        match name {
            "openai" => Ok(Flavor::OpenAi),
            "llama-cpp-python" => Ok(Flavor::LlamaCppPython),
            other => Err(format!(
                "--flavor takes openai or llama-cpp-python, not `{other}`"
            )),
        }
    }
}

/// llama-cpp-python's 500 for a request it cannot serve (`tool_choice: required`), when
/// `body` is one.
pub fn refusal(body: &Value) -> Option<Out> {
    (body.get("tool_choice").and_then(Value::as_str) == Some("required")).then(|| Out {
        status: 500,
        headers: Vec::new(),
        content_type: "application/json",
        body: json!({"error": {"message": "", "type": "internal_server_error", "param": null, "code": null}})
            .to_string(),
    })
}

/// `script`'s text cut to the request's `max_tokens` (one word, one token), and whether it
/// was cut; `max_completion_tokens` is not read, as llama-cpp-python does not read it.
pub fn cut_text(script: &mut Script, body: &Value) {
    let Some(limit) = body.get("max_tokens").and_then(Value::as_u64) else {
        return;
    };
    let text = script.text.join(" ");
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() as u64 > limit {
        let kept = usize::try_from(limit).unwrap_or(usize::MAX);
        script.text = vec![words[..kept].join(" ")];
        script.max_tokens = true;
    }
}

/// A Chat Completions answer for `script` in llama-cpp-python's shape.
pub fn answer(model: &str, script: &Script, id: &str, created: u64, prompt_tokens: usize) -> Out {
    let text = script.text.join(" ");
    let calls: Vec<(String, String)> = script
        .calls
        .iter()
        .map(|c| match c {
            Call::Args { name, args } => (name.clone(), args.to_string()),
            Call::Malformed { name, raw } => (name.clone(), raw.clone()),
        })
        .collect();
    let (message, finish) = match calls.first() {
        Some((first, first_args)) => {
            let tool_calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, arguments))| {
                    json!({"id": format!("call__{i}_{name}_{id}"), "type": "function",
                        "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            let content = if text.is_empty() {
                Value::Null
            } else {
                json!(text)
            };
            let message = json!({"content": content, "tool_calls": tool_calls, "role": "assistant",
                "function_call": {"name": first, "arguments": first_args}});
            let finish = if script.max_tokens {
                "length"
            } else {
                "tool_calls"
            };
            (message, finish)
        }
        None => {
            let finish = if script.max_tokens { "length" } else { "stop" };
            (json!({"content": text, "role": "assistant"}), finish)
        }
    };
    let completion = 9 + text.split_whitespace().count();
    Out {
        status: 200,
        headers: Vec::new(),
        content_type: "application/json",
        body: json!({
            "id": id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                "total_tokens": prompt_tokens + completion}
        })
        .to_string(),
    }
}

/// One request at a time, in arrival order, each taking a fixed time: a server with one slot.
/// A request whose client gave up still takes its turn and its time, as real servers keep
/// working on a request whose connection is gone.
#[derive(Debug)]
pub struct Slot {
    service: Duration,
    queue: Mutex<(u64, u64)>,
    turn: Condvar,
}

impl Slot {
    /// A slot that spends `service` on every request.
    pub fn new(service: Duration) -> Slot {
        Slot {
            service,
            queue: Mutex::new((0, 0)),
            turn: Condvar::new(),
        }
    }

    /// Waits for this request's turn (first come, first served), then spends the service time.
    pub fn serve(&self) {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        let ticket = queue.0;
        queue.0 += 1;
        while queue.1 != ticket {
            queue = self
                .turn
                .wait(queue)
                .unwrap_or_else(PoisonError::into_inner);
        }
        drop(queue);
        std::thread::sleep(self.service);
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.1 += 1;
        drop(queue);
        self.turn.notify_all();
    }
}
