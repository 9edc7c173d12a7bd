//! The cache key of one answer, byte for byte mcp-toolproof 0.3.1's: the sha256 of Python's
//! `json.dumps` of the key material.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::pyjson::{self, Style};
use crate::config::Turn;
use crate::evals::ApiTool;

/// Version field of the key material (`CACHE_VERSION` of the reference).
const KEY_VERSION: u64 = 1;

#[cfg(test)]
/// The cache key of one answer: sha256 hex of Python's
/// `json.dumps({"v": 1, "provider", "model", "system", "prompt", "tools", "params"},
/// sort_keys=True, ensure_ascii=False)` in UTF-8, as mcp-toolproof 0.3.1 computes it.
///
/// `system` is the configured system prompt as given (`None` is JSON null; `Some("")` is a
/// different key). `tools` is the list exactly as offered to the API (sanitised names, tools
/// with a bad schema left out). Trial 1 (and 0) is the reference key; a later trial adds
/// `"trial": n` to the material so every trial has its own entry.
pub(crate) fn key(
    provider: &str,
    model: &str,
    system: Option<&str>,
    prompt: &str,
    tools: &[ApiTool],
    params: &Map<String, Value>,
    trial: u32,
) -> String {
    Keyer::new(provider, model, system, tools, params).key(prompt, trial)
}

/// Computes keys for many prompts sharing one provider, model, system prompt, tool list and
/// params: everything but the prompt is serialized once, so a key costs one hash of the text.
#[derive(Debug, Clone)]
pub(crate) struct Keyer {
    /// `{"model": …, "params": …, "prompt": ` (keys in sorted order up to the prompt).
    head: String,
    /// `, "provider": …, "system": …, "tools": …` (up to where `trial` would go).
    middle: String,
}

impl Keyer {
    /// Serializes the parts shared by every prompt.
    pub(crate) fn new(
        provider: &str,
        model: &str,
        system: Option<&str>,
        tools: &[ApiTool],
        params: &Map<String, Value>,
    ) -> Keyer {
        // Sorted key order of the material: model, params, prompt, provider, system, tools,
        // (trial), v.
        let mut head = String::from("{\"model\": ");
        pyjson::write_str(&mut head, model);
        head.push_str(", \"params\": ");
        pyjson::dump_into(&mut head, &Value::Object(params.clone()), Style::KEY);
        head.push_str(", \"prompt\": ");

        let mut middle = String::from(", \"provider\": ");
        pyjson::write_str(&mut middle, provider);
        middle.push_str(", \"system\": ");
        match system {
            Some(s) => pyjson::write_str(&mut middle, s),
            None => middle.push_str("null"),
        }
        middle.push_str(", \"tools\": [");
        for (i, tool) in tools.iter().enumerate() {
            if i > 0 {
                middle.push_str(", ");
            }
            let exact: Vec<(String, String)> = tool
                .exact_numbers
                .iter()
                .map(|(at, text)| (format!("/input_schema{at}"), text.clone()))
                .collect();
            pyjson::dump_exact_into(&mut middle, &api_tool_value(tool), Style::KEY, &exact);
        }
        middle.push(']');
        Keyer { head, middle }
    }

    #[cfg(test)]
    /// The key of one prompt on one trial (see [`key`]).
    pub(crate) fn key(&self, prompt: &str, trial: u32) -> String {
        self.key_in(&[], prompt, trial)
    }

    /// The key of one prompt after the earlier turns of `context` on one trial. Without
    /// context it is [`Keyer::key`], the reference's key; with it the material gains a
    /// `"context"` member (sorted first) holding each turn as
    /// [`context_material`] writes it, so two conversations never share a key.
    pub(crate) fn key_in(&self, context: &[Turn], prompt: &str, trial: u32) -> String {
        let mut prompt_json = String::with_capacity(prompt.len() + 2);
        pyjson::write_str(&mut prompt_json, prompt);
        let mut hasher = Sha256::new();
        if context.is_empty() {
            hasher.update(self.head.as_bytes());
        } else {
            let mut material = String::from("{\"context\": ");
            pyjson::dump_into(&mut material, &context_material(context), Style::KEY);
            material.push_str(", ");
            hasher.update(material.as_bytes());
            hasher.update(&self.head.as_bytes()[1..]);
        }
        hasher.update(prompt_json.as_bytes());
        hasher.update(self.middle.as_bytes());
        if trial >= 2 {
            hasher.update(format!(", \"trial\": {trial}").as_bytes());
        }
        hasher.update(format!(", \"v\": {KEY_VERSION}}}").as_bytes());
        format!("{:x}", hasher.finalize())
    }
}

pub(crate) use crate::provider::context::context_material;

/// A short digest of one tool's definition as the key hashes it (16 hex digits of the sha256 of
/// its key material): written beside each answer toolproof records, so that a run that finds
/// no answer for a prompt can say which tools changed since the answers it has were recorded.
pub(crate) fn tool_digest(tool: &ApiTool) -> String {
    let exact: Vec<(String, String)> = tool
        .exact_numbers
        .iter()
        .map(|(at, text)| (format!("/input_schema{at}"), text.clone()))
        .collect();
    let mut material = String::new();
    pyjson::dump_exact_into(&mut material, &api_tool_value(tool), Style::KEY, &exact);
    let digest = Sha256::digest(material.as_bytes());
    crate::outcome::hex(&digest[..8])
}

/// An API tool as the reference hashes it: exactly `{name, description, input_schema}`.
fn api_tool_value(tool: &ApiTool) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
    })
}
