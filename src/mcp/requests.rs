//! The answers toolproof gives to requests a server sends it during a call (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`, `ping`): scripted per test, else the defaults
//! (decline, refused, no roots), and a record of every request met, with what was answered.

use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::config::{ElicitationAction, ElicitationAnswer, SamplingAnswer};

/// The `model` reported in a scripted sampling answer when the script names none.
pub(crate) const SCRIPTED_MODEL: &str = "toolproof-scripted";

/// Scripted answers for one test (`None`: the default answer).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    /// The answer to `elicitation/create`.
    pub elicitation: Option<ElicitationAnswer>,
    /// The answer to `sampling/createMessage`.
    pub sampling: Option<SamplingAnswer>,
    /// The roots answered to `roots/list`.
    pub roots: Option<Vec<String>>,
}

impl Script {
    /// The client capabilities a connection declares so that servers send what this script
    /// answers (`{}` when it scripts nothing, as before).
    pub fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        if self.elicitation.is_some() {
            // An empty object means form mode, in every revision that has elicitation.
            caps.insert("elicitation".into(), json!({}));
        }
        if self.sampling.is_some() {
            caps.insert("sampling".into(), json!({}));
        }
        if self.roots.is_some() {
            caps.insert("roots".into(), json!({"listChanged": false}));
        }
        Value::Object(caps)
    }

    /// Each answer of `self`, else the one of `fallback`.
    pub fn or(&self, fallback: &Script) -> Script {
        Script {
            elicitation: self
                .elicitation
                .clone()
                .or_else(|| fallback.elicitation.clone()),
            sampling: self.sampling.clone().or_else(|| fallback.sampling.clone()),
            roots: self.roots.clone().or_else(|| fallback.roots.clone()),
        }
    }
}

/// One request a server sent during a call, and what toolproof answered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerRequest {
    /// The request's method.
    pub method: String,
    /// What was answered, in words (`accept`, `decline`, `text (15 characters)`, `2 roots`,
    /// `refused: …`).
    pub answer: String,
    /// Why the scripted answer could not be given as written (it breaks the requested schema),
    /// which fails the test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

#[derive(Debug, Default)]
struct State {
    script: Script,
    seen: Vec<ServerRequest>,
}

/// Answers server requests from the current script and records them; clones share one state
/// (the client and each transport hold one).
#[derive(Debug, Clone, Default)]
pub(crate) struct Responder(Arc<Mutex<State>>);

impl Responder {
    /// From now on, answers from `script` (the record is kept).
    pub(crate) fn set_script(&self, script: Script) {
        self.lock().script = script;
    }

    /// The requests recorded since the last call, in order.
    pub(crate) fn take_seen(&self) -> Vec<ServerRequest> {
        std::mem::take(&mut self.lock().seen)
    }

    /// The JSON-RPC response to `request` (a message with `id` and `method`).
    pub(crate) fn answer(&self, request: &Value) -> Value {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let method = request.get("method").and_then(Value::as_str).unwrap_or("");
        let params = request.get("params").unwrap_or(&Value::Null);
        let mut state = self.lock();
        let (response, seen) = respond(&state.script, id, method, params);
        if let Some(seen) = seen {
            state.seen.push(seen);
        }
        response
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The response to one request, and its record (`None` for `ping`, which every server may
/// send at any time).
fn respond(
    script: &Script,
    id: Value,
    method: &str,
    params: &Value,
) -> (Value, Option<ServerRequest>) {
    let ok = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
    let record = |answer: String, problem: Option<String>| {
        Some(ServerRequest {
            method: method.to_owned(),
            answer,
            problem,
        })
    };
    match method {
        "ping" => (ok(json!({})), None),
        "elicitation/create" => {
            let (result, answer, problem) = elicit(script.elicitation.as_ref(), params);
            (ok(result), record(answer, problem))
        }
        "sampling/createMessage" => match &script.sampling {
            Some(s) => {
                let chars = s.text.chars().count();
                (
                    ok(sampled(s)),
                    record(format!("text ({chars} characters)"), None),
                )
            }
            None => {
                let response = super::protocol::answer_server_request(id.clone(), method);
                (
                    response,
                    record("refused: no `sampling` answer scripted".into(), None),
                )
            }
        },
        "roots/list" => {
            let roots = script.roots.clone().unwrap_or_default();
            let list: Vec<Value> = roots.iter().map(|uri| json!({"uri": uri})).collect();
            let n = roots.len();
            let answer = format!("{n} root{}", if n == 1 { "" } else { "s" });
            (ok(json!({"roots": list})), record(answer, None))
        }
        other => {
            let response = super::protocol::answer_server_request(id.clone(), other);
            (response, record("refused: unknown method".into(), None))
        }
    }
}

/// A `CreateMessageResult` with the scripted text (the same shape in every revision).
fn sampled(s: &SamplingAnswer) -> Value {
    json!({
        "role": "assistant",
        "content": {"type": "text", "text": s.text},
        "model": s.model.as_deref().unwrap_or(SCRIPTED_MODEL),
        "stopReason": "endTurn",
    })
}

/// The `ElicitResult` for `params`, the answer in words, and the problem with the script.
fn elicit(script: Option<&ElicitationAnswer>, params: &Value) -> (Value, String, Option<String>) {
    let Some(script) = script else {
        return (
            json!({"action": "decline"}),
            "decline (the default)".into(),
            None,
        );
    };
    let action = script.action.as_str();
    if script.action != ElicitationAction::Accept {
        return (json!({"action": action}), action.into(), None);
    }
    // URL mode (2025-11-25) takes no content: the user went to the page.
    if params.get("mode").and_then(Value::as_str) == Some("url") {
        return (json!({"action": "accept"}), "accept (url)".into(), None);
    }
    let schema = params.get("requestedSchema").cloned().unwrap_or(json!({}));
    // SEP-1034: a field the content leaves out is sent with the schema's default.
    let (content, how) = match &script.content {
        Some(c) => {
            let mut content = defaults_of(&schema);
            content.extend(c.clone());
            (Value::Object(content), "accept")
        }
        None => (
            Value::Object(defaults_of(&schema)),
            "accept (the schema's defaults)",
        ),
    };
    match breaks(&schema, &content) {
        None => (
            json!({"action": "accept", "content": content}),
            how.into(),
            None,
        ),
        Some(why) => (
            json!({"action": "cancel"}),
            "cancel (the scripted content breaks the requested schema)".into(),
            Some(format!(
                "the scripted elicitation content {} breaks the requested schema: {why}",
                crate::mcp::error::shorten(&content.to_string(), 120)
            )),
        ),
    }
}

/// The `default` of every property of a requested schema that has one.
fn defaults_of(schema: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (name, prop) in props {
            if let Some(d) = prop.get("default") {
                out.insert(name.clone(), d.clone());
            }
        }
    }
    out
}

/// Why `content` breaks `schema`, all reasons in one line; `None` when it conforms.
fn breaks(schema: &Value, content: &Value) -> Option<String> {
    let validator = match jsonschema::validator_for(schema) {
        Ok(v) => v,
        Err(e) => return Some(format!("the schema itself is unusable ({e})")),
    };
    let reasons: Vec<String> = validator
        .iter_errors(content)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect();
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(content: Option<Value>) -> Script {
        Script {
            elicitation: Some(ElicitationAnswer {
                action: ElicitationAction::Accept,
                content: content.and_then(|c| c.as_object().cloned()),
            }),
            ..Script::default()
        }
    }

    fn ask(schema: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create",
            "params": {"message": "when?", "requestedSchema": schema}})
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "time": {"type": "string", "default": "18:00"},
            "party": {"type": "integer", "minimum": 1}},
            "required": ["time"]})
    }

    #[test]
    fn accept_sends_the_content_and_records_it() {
        let r = Responder::default();
        r.set_script(accept(Some(json!({"time": "19:00", "party": 2}))));
        let out = r.answer(&ask(schema()));
        assert_eq!(out["id"], 9);
        assert_eq!(
            out["result"],
            json!({"action": "accept", "content": {"time": "19:00", "party": 2}})
        );
        let seen = r.take_seen();
        assert_eq!(seen.len(), 1);
        assert_eq!(
            (seen[0].method.as_str(), seen[0].answer.as_str()),
            ("elicitation/create", "accept")
        );
        assert!(r.take_seen().is_empty());
    }

    #[test]
    fn accept_without_content_sends_the_defaults() {
        let r = Responder::default();
        r.set_script(accept(None));
        let out = r.answer(&ask(schema()));
        assert_eq!(out["result"]["content"], json!({"time": "18:00"}));
    }

    /// SEP-1034, as the conformance scenario `elicitation-sep1034-client-defaults` checks it:
    /// a field the content leaves out is sent with the schema's default.
    #[test]
    fn accept_fills_the_fields_the_content_leaves_out_with_their_defaults() {
        let r = Responder::default();
        r.set_script(accept(Some(json!({"party": 2}))));
        let out = r.answer(&ask(schema()));
        assert_eq!(
            out["result"],
            json!({"action": "accept", "content": {"time": "18:00", "party": 2}})
        );
        // What the content gives wins over the default.
        r.set_script(accept(Some(json!({"time": "19:00"}))));
        let out = r.answer(&ask(schema()));
        assert_eq!(out["result"]["content"], json!({"time": "19:00"}));
    }

    #[test]
    fn content_breaking_the_schema_is_a_problem_and_cancelled() {
        let r = Responder::default();
        r.set_script(accept(Some(json!({"time": 7, "party": 0}))));
        let out = r.answer(&ask(schema()));
        assert_eq!(out["result"], json!({"action": "cancel"}));
        let problem = r.take_seen().remove(0).problem.unwrap_or_default();
        assert!(problem.contains("breaks the requested schema"), "{problem}");
        assert!(
            problem.contains("/time") && problem.contains("/party"),
            "{problem}"
        );
    }

    #[test]
    fn unscripted_requests_get_todays_defaults() {
        let r = Responder::default();
        let e = r.answer(&ask(schema()));
        assert_eq!(e["result"], json!({"action": "decline"}));
        let s = r.answer(&json!({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage"}));
        assert_eq!(s["error"]["code"], -32601);
        let roots = r.answer(&json!({"jsonrpc": "2.0", "id": 2, "method": "roots/list"}));
        assert_eq!(roots["result"], json!({"roots": []}));
        let ping = r.answer(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
        assert_eq!(ping["result"], json!({}));
        assert_eq!(r.take_seen().len(), 3, "ping is not recorded");
        assert_eq!(Script::default().capabilities(), json!({}));
    }

    #[test]
    fn sampling_and_roots_answer_as_scripted_and_are_declared() {
        let script = Script {
            sampling: Some(SamplingAnswer {
                text: "a short summary".into(),
                model: None,
            }),
            roots: Some(vec!["file:///tmp/project".into()]),
            ..Script::default()
        };
        let r = Responder::default();
        r.set_script(script.clone());
        let s = r.answer(&json!({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage"}));
        assert_eq!(
            s["result"]["content"],
            json!({"type": "text", "text": "a short summary"})
        );
        assert_eq!(s["result"]["role"], "assistant");
        assert_eq!(s["result"]["model"], SCRIPTED_MODEL);
        let roots = r.answer(&json!({"jsonrpc": "2.0", "id": 2, "method": "roots/list"}));
        assert_eq!(
            roots["result"]["roots"],
            json!([{"uri": "file:///tmp/project"}])
        );
        let caps = script.or(&accept(None)).capabilities();
        assert_eq!(
            caps,
            json!({"elicitation": {}, "sampling": {}, "roots": {"listChanged": false}})
        );
    }
}
