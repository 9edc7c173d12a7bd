//! The JSON-RPC messages of MCP that toolproof builds and reads, shared by the client and both
//! transports: revisions, our `clientInfo` and `_meta`, requests, the answers we give to requests
//! a server sends us, and a response split into its result or its error. Pure: no I/O.

use serde_json::{Map, Value, json};

use super::types::ServerInfo;

/// The stateless revision.
pub(crate) const MODERN_VERSION: &str = "2026-07-28";
/// The newest handshake revision, offered by default.
pub(crate) const LATEST_LEGACY: &str = "2025-11-25";
/// Handshake revisions we accept from a server.
pub(crate) const LEGACY_VERSIONS: &[&str] =
    &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The largest JSON-RPC message read from a server: one stdout line, one HTTP body, one SSE
/// event. Far above any honest answer (a 10 MiB tool result passes), low enough that a server
/// cannot make toolproof hold gigabytes; a larger message fails the request it answers.
pub(crate) const MESSAGE_LIMIT: usize = 64 << 20;

/// Our `clientInfo`.
pub(crate) fn client_info() -> Value {
    json!({"name": "toolproof", "version": env!("CARGO_PKG_VERSION")})
}

/// The answer toolproof gives to a request the server sends us.
pub(crate) fn answer_server_request(id: Value, method: &str) -> Value {
    match method {
        "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        "roots/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"roots": []}}),
        "elicitation/create" => {
            json!({"jsonrpc": "2.0", "id": id, "result": {"action": "decline"}})
        }
        "sampling/createMessage" => json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32601, "message": "toolproof does not offer sampling"}}),
        other => json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32601, "message": format!("toolproof does not handle `{other}`")}}),
    }
}

/// A request with a numeric id.
pub(crate) fn request(id: u64, method: &str, params: Option<Value>) -> Value {
    let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(p) = params {
        msg["params"] = p;
    }
    msg
}

/// A notification (no id, no answer).
pub(crate) fn notification(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": method})
}

/// `notifications/cancelled` for a request we stopped waiting for.
pub(crate) fn cancelled(id: &Value, reason: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": reason}})
}

/// The `_meta` every stateless (2026-07-28) request carries, declaring `capabilities`.
pub(crate) fn modern_meta(capabilities: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": client_info(),
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// `params` with the stateless `_meta` added (an absent or non-object `params` becomes `{}`).
pub(crate) fn with_modern_meta(params: Option<Value>, capabilities: &Value) -> Value {
    let mut p = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    p.insert("_meta".into(), modern_meta(capabilities));
    Value::Object(p)
}

/// The params of a legacy `initialize` offering `version` and declaring `capabilities`.
pub(crate) fn initialize_params(version: &str, capabilities: &Value) -> Value {
    json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": client_info()})
}

/// Whether a `server/discover` result lists the stateless revision.
pub(crate) fn supports_modern(result: &Value) -> bool {
    result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|x| x == MODERN_VERSION))
}

/// What a handshake result says about the server: `server` is its info object, when sent.
pub(crate) fn server_info(server: Option<&Value>, result: &Value, version: &str) -> ServerInfo {
    let text = |k: &str| {
        server
            .and_then(|s| s.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    ServerInfo {
        name: text("name"),
        version: text("version"),
        title: text("title"),
        protocol_version: version.to_owned(),
        capabilities: result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({})),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// The `error` of a JSON-RPC response (or a response with neither `result` nor `error`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcFailure {
    /// Error code (0 when the response had none).
    pub code: i64,
    /// Error message.
    pub message: String,
    /// Error data, when sent.
    pub data: Option<Value>,
}

/// The `result` of a response, or its error.
pub(crate) fn split_response(mut v: Value) -> Result<Value, RpcFailure> {
    if let Some(err) = v.get("error") {
        return Err(RpcFailure {
            code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)")
                .to_owned(),
            data: err.get("data").cloned(),
        });
    }
    match v.get_mut("result") {
        Some(r) => Ok(r.take()),
        None => Err(RpcFailure {
            code: 0,
            message: "response without result or error".into(),
            data: None,
        }),
    }
}

/// A message as JSON, or why it cannot be read (for [`McpError::Unreadable`]).
///
/// [`McpError::Unreadable`]: super::error::McpError::Unreadable
pub(crate) fn parse_message(text: &str) -> Result<Value, String> {
    let mut message = match serde_json::from_str(text) {
        Ok(message) => message,
        Err(e) => {
            // A tool list with `1e400` is read as Python reads it; anything else is refused.
            return super::exact::overflowing_tool_list(text).ok_or_else(|| unreadable_reason(&e));
        }
    };
    super::exact::mark(&mut message, text);
    Ok(message)
}

/// Why a message is not readable JSON, in words: nested too deep, a number out of range, or
/// the parser's own reason.
pub(crate) fn unreadable_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let at = if e.line() <= 1 {
        format!(" (at byte {})", e.column())
    } else {
        format!(" (at line {}, column {})", e.line(), e.column())
    };
    if text.starts_with("recursion limit exceeded") {
        format!("it is nested deeper than 128 levels, the most toolproof reads{at}")
    } else if text.starts_with("number out of range") {
        format!("it holds a number beyond the range of a 64-bit float{at}")
    } else {
        format!("it is not valid JSON: {text}")
    }
}

/// Why a message of `len` bytes is not read.
pub(crate) fn too_large(what: &str, len: u64) -> String {
    format!(
        "it is {what} of {len} bytes, over the {} MiB limit for one message",
        MESSAGE_LIMIT >> 20
    )
}

/// The messages of a batch, or the one message.
pub(crate) fn flatten(v: Value) -> Vec<Value> {
    match v {
        Value::Array(items) => items,
        v => vec![v],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_split_into_result_or_error() {
        let ok = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
        assert_eq!(split_response(ok), Ok(json!({"tools": []})));
        let err = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope", "data": 7}});
        assert_eq!(
            split_response(err),
            Err(RpcFailure {
                code: -32601,
                message: "nope".into(),
                data: Some(json!(7)),
            })
        );
        let neither = split_response(json!({"jsonrpc": "2.0", "id": 1})).unwrap_err();
        assert_eq!(neither.message, "response without result or error");
    }

    #[test]
    fn unreadable_messages_say_why() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let why = parse_message(&deep).unwrap_err();
        assert_eq!(
            why,
            "it is nested deeper than 128 levels, the most toolproof reads (at byte 128)"
        );
        let why = parse_message(r#"{"n": 1e400}"#).unwrap_err();
        assert_eq!(
            why,
            "it holds a number beyond the range of a 64-bit float (at byte 11)"
        );
        let why = parse_message("{\n\"a\": }").unwrap_err();
        assert!(
            why.starts_with("it is not valid JSON: expected value"),
            "{why}"
        );
        assert_eq!(
            too_large("a line", 70 << 20),
            "it is a line of 73400320 bytes, over the 64 MiB limit for one message"
        );
        // A 39-digit integer is a number, read as a float.
        let v = parse_message(r#"{"n": 340282366920938463463374607431768211456}"#);
        assert!(v.is_ok_and(|v| v["n"].as_f64() > Some(3.4e38)));
    }

    #[test]
    fn server_requests_get_an_answer_with_their_id() {
        assert_eq!(answer_server_request(json!(4), "ping")["result"], json!({}));
        let refused = answer_server_request(json!("x"), "sampling/createMessage");
        assert_eq!(
            (refused["id"].clone(), refused["error"]["code"].clone()),
            (json!("x"), json!(-32601))
        );
        let meta = with_modern_meta(Some(json!({"cursor": "c"})), &json!({}));
        assert_eq!(meta["cursor"], "c");
        assert_eq!(
            meta["_meta"]["io.modelcontextprotocol/protocolVersion"],
            MODERN_VERSION
        );
    }
}
