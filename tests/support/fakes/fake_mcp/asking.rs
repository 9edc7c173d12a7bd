//! The tools of the `client-requests` fault, each asking the client something during the call
//! and answering with what it got: `book(party)` sends `elicitation/create` for a time,
//! `summarize(text)` sends `sampling/createMessage`, `list_roots` sends `roots/list`. Each first
//! checks that the client declared the capability at `initialize` (as the SDKs do) and answers
//! an `isError` result naming it when not. In a legacy session the question is a request to the
//! client during the call; statelessly (2026-07-28) it is an `input_required` result, answered
//! by a retry of the call (multi round-trip requests).

use serde_json::{Map, Value, json};

use crate::catalog::{Behaviour, ToolEntry, text_result};
use crate::server::{Peer, Server};

/// The tools, in list order.
pub fn tools() -> Vec<ToolEntry> {
    let tool = |name: &str, description: &str, schema: Value| ToolEntry {
        def: json!({"name": name, "description": description, "inputSchema": schema}),
        behaviour: Behaviour::AsksClient,
    };
    vec![
        tool(
            "book",
            "Books a table; asks the user for the time (elicitation).",
            json!({"type": "object", "properties": {"party": {"type": "integer"}},
                "required": ["party"]}),
        ),
        tool(
            "summarize",
            "Summarises a text with the client's model (sampling).",
            json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        ),
        tool(
            "list_roots",
            "Lists the client's roots.",
            json!({"type": "object", "properties": {}}),
        ),
    ]
}

/// The form `book` asks for: a time (default 18:00) and an optional note.
pub fn booking_form() -> Value {
    json!({"type": "object", "properties": {
        "time": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$", "default": "18:00"},
        "note": {"type": "string"}},
        "required": ["time"]})
}

/// What tool `name` asks the client: the capability it needs, the method and its params.
fn question(name: &str, args: &Map<String, Value>) -> (&'static str, &'static str, Value) {
    match name {
        "book" => (
            "elicitation",
            "elicitation/create",
            json!({"message": "At what time?", "requestedSchema": booking_form()}),
        ),
        "summarize" => (
            "sampling",
            "sampling/createMessage",
            json!({"messages": [{"role": "user", "content": {"type": "text",
                "text": args.get("text").and_then(Value::as_str).unwrap_or("")}}],
                "maxTokens": 50}),
        ),
        _ => ("roots", "roots/list", json!({})),
    }
}

/// Calls one of the tools in a legacy session: asks the client, then answers with what came
/// back.
pub fn call(
    server: &Server,
    name: &str,
    args: &Map<String, Value>,
    capabilities: &Value,
    peer: &mut dyn Peer,
) -> Value {
    let (capability, method, params) = question(name, args);
    if capabilities.get(capability).is_none() {
        return undeclared(capability);
    }
    let n = server.next_number();
    let request = json!({"jsonrpc": "2.0", "id": format!("fake-ask-{n}"), "method": method, "params": params});
    let answer = peer.ask(server, &[request]).pop().flatten();
    finish(name, args, method, answer)
}

/// The key of the one input request a 2026-07-28 call asks for, and the state it carries.
const INPUT_KEY: &str = "ask";

/// Calls one of the tools statelessly (2026-07-28, multi round-trip requests): the first call
/// answers `input_required` with the question; the retry carries the client's answer in
/// `inputResponses` and the `requestState` it was given.
pub fn call_stateless(name: &str, params: &Value, capabilities: &Value) -> Value {
    let empty = Map::new();
    let args = params
        .get("arguments")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let (capability, method, question) = question(name, args);
    if capabilities.get(capability).is_none() {
        return undeclared(capability);
    }
    let state = format!("fake-state-{name}");
    match params.get("inputResponses").and_then(|r| r.get(INPUT_KEY)) {
        Some(answer) if params.get("requestState") == Some(&json!(state)) => {
            finish(name, args, method, Some(json!({"result": answer})))
        }
        Some(_) => text_result(
            format!(
                "requestState is {}, not the {state:?} this tool sent",
                params["requestState"]
            ),
            true,
        ),
        None => json!({
            "resultType": "input_required",
            "inputRequests": {INPUT_KEY: {"method": method, "params": question}},
            "requestState": state,
        }),
    }
}

fn undeclared(capability: &str) -> Value {
    text_result(
        format!("the client did not declare the `{capability}` capability"),
        true,
    )
}

/// The tool's result from the client's answer.
fn finish(name: &str, args: &Map<String, Value>, method: &str, answer: Option<Value>) -> Value {
    let Some(answer) = answer else {
        return text_result(format!("{method}: no answer"), true);
    };
    let Some(result) = answer.get("result") else {
        let error = answer.get("error").cloned().unwrap_or(Value::Null);
        return text_result(format!("{method} refused: {error}"), true);
    };
    let text = match name {
        "book" => booked(args, result),
        "summarize" => format!(
            "summary: {} (model {})",
            result["content"]["text"].as_str().unwrap_or("?"),
            result["model"].as_str().unwrap_or("?")
        ),
        _ => {
            let uris: Vec<&str> = result["roots"]
                .as_array()
                .map(|r| r.iter().filter_map(|x| x["uri"].as_str()).collect())
                .unwrap_or_default();
            format!("roots: [{}]", uris.join(", "))
        }
    };
    text_result(text, false)
}

fn booked(args: &Map<String, Value>, result: &Value) -> String {
    let party = args.get("party").cloned().unwrap_or(Value::Null);
    match result["action"].as_str() {
        Some("accept") => format!("booked {party} at {}", result["content"]),
        Some(other) => format!("not booked: the user chose {other}"),
        None => format!("not booked: no action in {result}"),
    }
}
