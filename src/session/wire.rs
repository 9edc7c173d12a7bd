//! The session's messages: parsing a request line and a server line, and the JSON lines the
//! session writes back. Pure: no I/O, so every shape is unit-tested here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::mcp::error::McpError;
use crate::mcp::types::{CallOutcome, CallResult, Tool};

/// The per-call timeout when a `call` names none: mcp-toolproof's `toolproof_timeout` default.
pub(super) const DEFAULT_TIMEOUT_S: f64 = 30.0;

/// One request line: its `id` (echoed back as sent, `null` when absent) and what it asks.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Request {
    /// Echoed in the reply, so a client can match them.
    pub id: Value,
    /// What to do.
    pub op: Op,
}

/// What a request asks for.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Op {
    /// `tools/call`.
    Call {
        /// The tool's name.
        tool: String,
        /// Its arguments.
        arguments: Map<String, Value>,
        /// How long the call may take.
        timeout: Duration,
    },
    /// `tools/list`, every page.
    ListTools,
    /// End the session (as the end of stdin does).
    Close,
}

/// A request line that could not be read: its `id` when it had one, and why.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct BadRequest {
    /// The `id` of the line, `null` when it had none or was not an object.
    pub id: Value,
    /// What is wrong, one line.
    pub message: String,
}

/// The fields of a request besides `id`, as sent.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
enum Wire {
    Call {
        tool: String,
        #[serde(default)]
        arguments: Map<String, Value>,
        #[serde(default)]
        timeout_s: Option<f64>,
    },
    // Braces, so that `deny_unknown_fields` refuses extra keys here too.
    ListTools {},
    Close {},
}

/// Reads one request line.
pub(super) fn parse_request(line: &str) -> Result<Request, BadRequest> {
    let bad = |id: Value, message: String| BadRequest { id, message };
    // Integers beyond 64 bits keep their digits, as Python's `json.dumps` sent them.
    let value: Value = crate::pycompat::bigint::from_str(line)
        .map_err(|e| bad(Value::Null, format!("the request is not JSON: {e}")))?;
    let Value::Object(mut fields) = value else {
        return Err(bad(
            Value::Null,
            "the request is not a JSON object".to_owned(),
        ));
    };
    let id = fields.remove("id").unwrap_or(Value::Null);
    let wire: Wire = serde_json::from_value(Value::Object(fields))
        .map_err(|e| bad(id.clone(), format!("bad request: {e}")))?;
    let op = match wire {
        Wire::Call {
            tool,
            arguments,
            timeout_s,
        } => {
            let secs = timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
            if !(secs.is_finite() && secs > 0.0) {
                return Err(bad(
                    id,
                    format!("bad request: timeout_s must be a number above 0, got {secs}"),
                ));
            }
            Op::Call {
                tool,
                arguments,
                timeout: crate::config::limits::seconds(secs),
            }
        }
        Wire::ListTools {} => Op::ListTools,
        Wire::Close {} => Op::Close,
    };
    Ok(Request { id, op })
}

/// The server sent on stdin with `--server-on-stdin`: mcp-toolproof's `ServerConfig`, with
/// `cwd` absolute (the client resolves it from its base folder).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServerLine {
    /// Program and arguments of a stdio server.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// Streamable HTTP endpoint.
    #[serde(default)]
    pub url: Option<String>,
    /// Extra environment of a stdio server.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Headers sent to an HTTP server.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Working folder of a stdio server, and the folder a relative program resolves from.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Seconds allowed for start-up and the handshake.
    #[serde(default)]
    pub startup_timeout_s: Option<f64>,
}

/// Reads the server line.
pub(super) fn parse_server(line: &str) -> Result<ServerLine, String> {
    let server: ServerLine = serde_json::from_str(line)
        .map_err(|e| format!("the server line on stdin is not a server: {e}"))?;
    if server.command.as_ref().is_some_and(Vec::is_empty) {
        return Err("the server line's `command` is empty".to_owned());
    }
    if !server.headers.is_empty() && server.url.is_none() {
        return Err("the server line's `headers` only apply to a `url` server".to_owned());
    }
    if let Some(secs) = server.startup_timeout_s
        && !(secs.is_finite() && secs > 0.0)
    {
        return Err(format!(
            "the server line's `startup_timeout_s` must be a number above 0, got {secs}"
        ));
    }
    Ok(server)
}

/// What a `call` gave, with the fields of mcp-toolproof's `CallResult` that the session knows
/// (the client adds `tool` and `arguments`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct CallReply {
    /// The result's `isError`; true for a JSON-RPC error and for no result at all.
    pub is_error: bool,
    /// The text blocks joined with newlines, other blocks as `<kind>`; the message of a
    /// JSON-RPC error; empty when there was no answer.
    pub text: String,
    /// `structuredContent`, `null` when absent.
    pub structured: Value,
    /// Milliseconds from sending the request to its answer (or the failure).
    pub latency_ms: f64,
    /// Why no answer came, when none did.
    pub transport_error: Option<String>,
    /// No answer within the call's timeout.
    pub timed_out: bool,
    /// The server answered with a JSON-RPC error.
    pub protocol_error: bool,
    /// The JSON-RPC error's code.
    pub error_code: Option<i64>,
}

impl CallReply {
    /// A call the server answered, with a result or a JSON-RPC error.
    pub(super) fn answered(outcome: &CallOutcome) -> CallReply {
        let latency_ms = outcome.latency.as_secs_f64() * 1000.0;
        let text = outcome.result.text();
        match &outcome.result {
            CallResult::Result {
                structured,
                is_error,
                ..
            } => CallReply {
                is_error: *is_error,
                text,
                structured: structured.clone().unwrap_or(Value::Null),
                latency_ms,
                transport_error: None,
                timed_out: false,
                protocol_error: false,
                error_code: None,
            },
            CallResult::ProtocolError { code, .. } => CallReply {
                is_error: true,
                text,
                structured: Value::Null,
                latency_ms,
                transport_error: None,
                timed_out: false,
                protocol_error: true,
                error_code: Some(*code),
            },
        }
    }

    /// A call that got no answer: `error` says why (`crashed`: the server is gone).
    pub(super) fn failed(error: &McpError, crashed: bool, latency: Duration) -> CallReply {
        let message = if crashed {
            // mcp-toolproof's wording, which tests may match.
            format!("connection lost, server probably crashed ({error})")
        } else {
            error.to_string()
        };
        let mut reply = CallReply::not_sent(message);
        reply.latency_ms = latency.as_secs_f64() * 1000.0;
        reply.timed_out = matches!(error, McpError::Timeout { .. });
        reply
    }

    /// A call that was not sent, because the server is not there.
    pub(super) fn not_sent(message: String) -> CallReply {
        CallReply {
            is_error: true,
            text: String::new(),
            structured: Value::Null,
            latency_ms: 0.0,
            transport_error: Some(message),
            timed_out: false,
            protocol_error: false,
            error_code: None,
        }
    }
}

/// The reply to a `call`.
pub(super) fn call_line(id: &Value, reply: &CallReply) -> Value {
    json!({"id": id, "ok": true, "result": reply})
}

/// The reply to `list_tools`: every tool exactly as the server sent it.
pub(super) fn tools_line(id: &Value, tools: &[Tool]) -> Value {
    let tools: Vec<&Value> = tools.iter().map(|t| &t.raw).collect();
    json!({"id": id, "ok": true, "tools": tools})
}

/// A request that failed as a whole (a bad line, a listing that failed).
pub(super) fn error_line(id: &Value, message: &str) -> Value {
    json!({"id": id, "ok": false, "error": message})
}

/// The first line: connected, and to what.
pub(super) fn ready_line(
    info: &crate::mcp::types::ServerInfo,
    transport: &str,
    era: crate::mcp::types::Era,
) -> Value {
    json!({
        "ready": true,
        "server": {
            "name": info.name,
            "version": info.version,
            "protocol_version": info.protocol_version,
        },
        "transport": transport,
        "era": era,
    })
}

/// The first (and only) line when the session cannot start: `usage` for a config or usage
/// error (exit code 2), else the server could not be reached; `stderr` is what a stdio server
/// wrote meanwhile.
pub(super) fn not_ready_line(message: &str, usage: bool, stderr: &str) -> Value {
    json!({"ready": false, "usage": usage, "error": message, "stderr": stderr})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(line: &str) -> BadRequest {
        match parse_request(line) {
            Ok(r) => panic!("{line} parsed as {r:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn a_call_with_its_arguments_and_timeout() {
        let r = parse_request(
            r#"{"id":7,"op":"call","tool":"add","arguments":{"a":1,"b":2},"timeout_s":1.5}"#,
        )
        .expect("parses");
        assert_eq!(r.id, json!(7));
        let Op::Call {
            tool,
            arguments,
            timeout,
        } = r.op
        else {
            panic!("not a call: {:?}", r.op)
        };
        assert_eq!(tool, "add");
        assert_eq!(Value::Object(arguments), json!({"a": 1, "b": 2}));
        assert_eq!(timeout, Duration::from_millis(1500));
    }

    #[test]
    fn a_call_defaults_to_no_arguments_and_30_seconds_and_any_id_is_echoed() {
        let r = parse_request(r#"{"op":"call","tool":"x","id":"a-string"}"#).expect("parses");
        assert_eq!(r.id, json!("a-string"));
        assert_eq!(
            r.op,
            Op::Call {
                tool: "x".into(),
                arguments: Map::new(),
                timeout: Duration::from_secs(30),
            }
        );
        let r = parse_request(r#"{"op":"list_tools"}"#).expect("parses");
        assert_eq!((r.id, r.op), (Value::Null, Op::ListTools));
        assert_eq!(
            parse_request(r#"{"id":3,"op":"close"}"#).map(|r| r.op),
            Ok(Op::Close)
        );
    }

    #[test]
    fn bad_lines_say_what_is_wrong_and_keep_the_id() {
        assert_eq!(
            err("nope").message,
            "the request is not JSON: expected ident at line 1 column 2"
        );
        assert_eq!(err("[1]").message, "the request is not a JSON object");
        let e = err(r#"{"id":4,"op":"call_tool","tool":"x"}"#);
        assert_eq!(e.id, json!(4));
        assert_eq!(
            e.message,
            "bad request: unknown variant `call_tool`, expected one of `call`, `list_tools`, `close`"
        );
        assert_eq!(
            err(r#"{"id":5,"op":"call"}"#).message,
            "bad request: missing field `tool`"
        );
        assert_eq!(
            err(r#"{"id":6,"op":"call","tool":"x","arguments":[1]}"#).message,
            "bad request: invalid type: sequence, expected a map"
        );
        assert_eq!(
            err(r#"{"id":8,"op":"call","tool":"x","timeout_s":0}"#).message,
            "bad request: timeout_s must be a number above 0, got 0"
        );
        assert_eq!(
            err(r#"{"op":"list_tools","cursor":"x"}"#).message,
            "bad request: unknown field `cursor`, there are no fields"
        );
        assert_eq!(
            err(r#"{"id":9}"#).message,
            "bad request: missing field `op`"
        );
    }

    #[test]
    fn a_server_line_with_every_field_and_the_rules_of_server_config() {
        let s = parse_server(
            r#"{"command":["python","s.py"],"url":null,"env":{"K":"v"},"headers":{},"cwd":"/tmp","startup_timeout_s":5}"#,
        )
        .expect("parses");
        assert_eq!(
            s.command.as_deref(),
            Some(&["python".to_owned(), "s.py".to_owned()][..])
        );
        assert_eq!(s.env.get("K").map(String::as_str), Some("v"));
        assert_eq!(s.startup_timeout_s, Some(5.0));
        assert_eq!(
            parse_server(r#"{"command":["x"],"headers":{"A":"b"}}"#),
            Err("the server line's `headers` only apply to a `url` server".to_owned())
        );
        assert_eq!(
            parse_server(r#"{"url":"http://h/mcp","startup_timeout_s":-1}"#),
            Err(
                "the server line's `startup_timeout_s` must be a number above 0, got -1".to_owned()
            )
        );
        let typo = parse_server(r#"{"comand":["x"]}"#).expect_err("unknown key");
        assert!(
            typo.starts_with("the server line on stdin is not a server: unknown field `comand`"),
            "{typo}"
        );
    }

    fn outcome(result: CallResult) -> CallOutcome {
        CallOutcome {
            latency: Duration::from_millis(12),
            result,
            stderr: String::new(),
        }
    }

    #[test]
    fn replies_carry_the_fields_of_call_result() {
        let ok = CallReply::answered(&outcome(CallResult::Result {
            content: vec![
                json!({"type": "text", "text": "a"}),
                json!({"type": "image", "data": "", "mimeType": "image/png"}),
                json!({"type": "text", "text": "b"}),
            ],
            structured: Some(json!({"sum": 3})),
            is_error: false,
        }));
        assert_eq!(
            call_line(&json!(1), &ok),
            json!({"id": 1, "ok": true, "result": {
                "is_error": false, "text": "a\n<image>\nb", "structured": {"sum": 3},
                "latency_ms": 12.0, "transport_error": null, "timed_out": false,
                "protocol_error": false, "error_code": null}})
        );
        let rpc = CallReply::answered(&outcome(CallResult::ProtocolError {
            code: -32602,
            message: "Unknown tool: nope".into(),
            data: None,
        }));
        assert_eq!(
            (
                rpc.is_error,
                rpc.text.as_str(),
                rpc.protocol_error,
                rpc.error_code
            ),
            (true, "Unknown tool: nope", true, Some(-32602))
        );
        let timeout = McpError::Timeout {
            method: "tools/call".into(),
            after: Duration::from_secs(2),
        };
        let slow = CallReply::failed(&timeout, false, Duration::from_secs(2));
        assert!(slow.timed_out && slow.is_error);
        assert_eq!(
            slow.transport_error.as_deref(),
            Some("no answer to `tools/call` within 2s")
        );
        let exited = McpError::Exited {
            how: "exited with code 3".into(),
        };
        let crash = CallReply::failed(&exited, true, Duration::from_millis(5));
        assert_eq!(
            crash.transport_error.as_deref(),
            Some("connection lost, server probably crashed (server exited with code 3)")
        );
        assert!(!crash.timed_out);
    }
}
