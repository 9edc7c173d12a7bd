//! The JSON-RPC messages of MCP that toolproof builds and reads, shared by the client and both
//! transports: revisions, our `clientInfo` and `_meta`, requests, the answers we give to requests
//! a server sends us, and a response split into its result or its error. Pure: no I/O.

use serde_json::{Map, Value, json};

use super::types::ServerInfo;

/// The stateless revision.
pub const MODERN_VERSION: &str = "2026-07-28";
/// The newest handshake revision, offered by default.
pub const LATEST_LEGACY: &str = "2025-11-25";
/// Handshake revisions we accept from a server.
pub const LEGACY_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Our `clientInfo`.
pub fn client_info() -> Value {
    json!({"name": "toolproof", "version": env!("CARGO_PKG_VERSION")})
}

/// The answer toolproof gives to a request the server sends us.
pub fn answer_server_request(id: Value, method: &str) -> Value {
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
pub fn request(id: u64, method: &str, params: Option<Value>) -> Value {
    let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(p) = params {
        msg["params"] = p;
    }
    msg
}

/// A notification (no id, no answer).
pub fn notification(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": method})
}

/// `notifications/cancelled` for a request we stopped waiting for.
pub fn cancelled(id: &Value, reason: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": reason}})
}

/// The `_meta` every stateless (2026-07-28) request carries.
pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": client_info(),
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// `params` with the stateless `_meta` added (an absent or non-object `params` becomes `{}`).
pub fn with_modern_meta(params: Option<Value>) -> Value {
    let mut p = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    p.insert("_meta".into(), modern_meta());
    Value::Object(p)
}

/// The params of a legacy `initialize` offering `version`.
pub fn initialize_params(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {}, "clientInfo": client_info()})
}

/// Whether a `server/discover` result lists the stateless revision.
pub fn supports_modern(result: &Value) -> bool {
    result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|x| x == MODERN_VERSION))
}

/// What a handshake result says about the server: `server` is its info object, when sent.
pub fn server_info(server: Option<&Value>, result: &Value, version: &str) -> ServerInfo {
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
pub struct RpcFailure {
    /// Error code (0 when the response had none).
    pub code: i64,
    /// Error message.
    pub message: String,
    /// Error data, when sent.
    pub data: Option<Value>,
}

/// The `result` of a response, or its error.
pub fn split_response(mut v: Value) -> Result<Value, RpcFailure> {
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

/// The messages of a batch, or the one message.
pub fn flatten(v: Value) -> Vec<Value> {
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
    fn server_requests_get_an_answer_with_their_id() {
        assert_eq!(answer_server_request(json!(4), "ping")["result"], json!({}));
        let refused = answer_server_request(json!("x"), "sampling/createMessage");
        assert_eq!(
            (refused["id"].clone(), refused["error"]["code"].clone()),
            (json!("x"), json!(-32601))
        );
        let meta = with_modern_meta(Some(json!({"cursor": "c"})));
        assert_eq!(meta["cursor"], "c");
        assert_eq!(
            meta["_meta"]["io.modelcontextprotocol/protocolVersion"],
            MODERN_VERSION
        );
    }
}
