//! MCP JSON-RPC traffic, one message a line: the message itself, or wrapped by the logger
//! (`{"direction": "send", "message": {…}}`, with the message as an object or its JSON text,
//! under `message`, `msg`, `payload` or `data`). It gives no prompt, so it only counts the
//! `tools/call` requests (and which answers were errors) for the coverage summary.

use std::collections::HashMap;

use serde_json::Value;

use super::{Read, SeenCall, json_lines, not_json};

/// The JSON-RPC message a line holds, when it holds one.
pub(super) fn message(v: &Value) -> Option<Value> {
    if v.get("jsonrpc").is_some() {
        return Some(v.clone());
    }
    ["message", "msg", "payload", "data"].iter().find_map(|k| {
        let inner = match v.get(*k)? {
            Value::String(s) => serde_json::from_str(s).ok()?,
            other => other.clone(),
        };
        inner.get("jsonrpc").is_some().then_some(inner)
    })
}

pub(super) fn read(file: &str, text: &str) -> Read {
    let mut out = Read::default();
    let mut pending: HashMap<String, usize> = HashMap::new();
    for (line, parsed) in json_lines(text) {
        let v = match parsed {
            Ok(v) => v,
            Err(e) => {
                out.skipped.push(not_json(file, line, &e));
                continue;
            }
        };
        let Some(m) = message(&v) else {
            continue;
        };
        let id = m.get("id").map(Value::to_string);
        if m["method"] == "tools/call" {
            if let Some(tool) = m["params"]["name"].as_str() {
                out.traffic.push(SeenCall {
                    tool: tool.to_owned(),
                    error: false,
                });
                if let Some(id) = id {
                    pending.insert(id, out.traffic.len() - 1);
                }
            }
        } else if m.get("method").is_none()
            && let Some(at) = id.and_then(|id| pending.remove(&id))
        {
            out.traffic[at].error = m.get("error").is_some() || m["result"]["isError"] == true;
        }
    }
    out
}
