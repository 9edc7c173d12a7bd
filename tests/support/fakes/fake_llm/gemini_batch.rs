//! The fake Gemini Batch Mode, inline requests only, in the API's shapes:
//!
//! - `POST /v1beta/models/{MODEL}:batchGenerateContent` with `{batch: {displayName,
//!   inputConfig: {requests: {requests: [{request, metadata}]}}}}` (the snake_case spellings
//!   too, as Google's JSON parser takes both); at most 20 MB. Answers the long-running
//!   operation: `{name: "batches/{id}", metadata: {@type, model, displayName, state,
//!   batchStats, …}}`;
//! - `GET /v1beta/batches/{id}`: the operation. `metadata.state` is `BATCH_STATE_PENDING` at
//!   the first look, `BATCH_STATE_RUNNING` until `--batch-polls` looks have passed, then
//!   `SUCCEEDED` (with `done: true` and `response.inlinedResponses.inlinedResponses[]`, each
//!   request's `{response}` or `{error}` with its `metadata`, in request order), `EXPIRED`
//!   (`--batch-expire`; a request with `[[batch-expire]]` expires its batch, whose other
//!   requests keep their results), `FAILED` (`--batch-fail`: the operation's `error`, no
//!   results) or `CANCELLED` (no results). `batchStats` counts are int64 strings, zero ones
//!   left out;
//! - `POST /v1beta/batches/{id}:cancel`: `{}`.
//!
//! Each request's result is what the live `generateContent` endpoint of the batch's model
//! answers its body, with the key the batch was submitted with.

use serde_json::{Map, Value, json};

use super::{Batch, Batches, bad, json_out};
use crate::http::Request;
use crate::wire::{self, Api, Out};

/// The most bytes of an inline batch request.
const MAX_BODY: usize = 20 * 1000 * 1000;

/// What a Gemini batch path asks.
enum Route {
    Submit(String),
    Look(String),
    Cancel(String),
}

/// The Gemini batch route of `method` `path`, ids percent-decoded.
fn route_of(method: &str, path: &str) -> Option<Route> {
    let rest = path.strip_prefix("/v1beta/")?;
    if let Some(model) = rest
        .strip_prefix("models/")
        .and_then(|m| m.strip_suffix(":batchGenerateContent"))
    {
        return (method == "POST" && !model.is_empty() && !model.contains('/'))
            .then(|| Route::Submit(super::decode(model)));
    }
    let id = rest.strip_prefix("batches/")?;
    if id.contains('/') || id.is_empty() {
        return None;
    }
    match (method, id.strip_suffix(":cancel")) {
        ("POST", Some(id)) => Some(Route::Cancel(super::decode(id))),
        ("GET", None) => Some(Route::Look(super::decode(id))),
        _ => None,
    }
}

/// A member of `v` under its camelCase or snake_case name.
fn member<'v>(v: &'v Value, camel: &str, snake: &str) -> Option<&'v Value> {
    v.get(camel).or_else(|| v.get(snake))
}

fn not_found(id: &str) -> Out {
    wire::bad_request(Api::Gemini, 404, &format!("Batch batches/{id} not found."))
}

impl Batches {
    /// The answer to a Gemini batch endpoint; `None` for any other path.
    pub(super) fn route_gemini(&self, req: &Request, answer: super::Answer<'_>) -> Option<Out> {
        let key = req.header("x-goog-api-key");
        Some(match route_of(&req.method, &req.path)? {
            Route::Submit(model) => self.create_gemini(req, &model, key),
            Route::Look(id) => self.look_gemini(&id, answer),
            Route::Cancel(id) => {
                let mut state = self.lock();
                match state.batches.get_mut(&id).filter(|b| b.api == Api::Gemini) {
                    Some(b) => {
                        b.cancelled = true;
                        json_out(200, json!({}))
                    }
                    None => not_found(&id),
                }
            }
        })
    }

    fn create_gemini(&self, req: &Request, model: &str, key: Option<&str>) -> Out {
        let api = Api::Gemini;
        if req.body.len() > MAX_BODY {
            return bad(
                api,
                "Request payload size exceeds the limit: 20971520 bytes.",
            );
        }
        let Ok(body) = serde_json::from_slice::<Value>(&req.body) else {
            return bad(api, "Invalid JSON payload received.");
        };
        let Some(batch) = body.get("batch").filter(|b| b.is_object()) else {
            return bad(
                api,
                "* BatchGenerateContentRequest.batch: field is required",
            );
        };
        let display = member(batch, "displayName", "display_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if display.is_empty() {
            return bad(
                api,
                "* GenerateContentBatch.display_name: field is required",
            );
        }
        let list = member(batch, "inputConfig", "input_config")
            .and_then(|c| c.get("requests"))
            .and_then(|r| r.get("requests"))
            .and_then(Value::as_array);
        let Some(list) = list.filter(|l| !l.is_empty()) else {
            return bad(
                api,
                "* GenerateContentBatch.input_config.requests.requests: at least one request is required",
            );
        };
        let mut requests = Vec::new();
        for (i, r) in list.iter().enumerate() {
            let Some(request) = r.get("request").filter(|q| q.is_object()) else {
                return bad(api, &format!("requests[{i}].request: field is required"));
            };
            let key = r.pointer("/metadata/key").and_then(Value::as_str);
            let Some(key) = key.filter(|k| !k.is_empty()) else {
                // The API takes any metadata; the fake wants the key toolproof sends.
                return bad(
                    api,
                    &format!("requests[{i}].metadata.key: fake_llm wants one"),
                );
            };
            if requests.iter().any(|(k, _)| k == key) {
                return bad(
                    api,
                    &format!("requests[{i}].metadata.key `{key}` is not unique"),
                );
            }
            requests.push((key.to_owned(), request.clone()));
        }
        let id = self.next_id("");
        self.add(&id, api, key, requests, None);
        let mut state = self.lock();
        let Some(b) = state.batches.get_mut(&id) else {
            return not_found(&id);
        };
        b.model = Some(model.to_owned());
        json_out(200, view(&id, b, display))
    }

    fn look_gemini(&self, id: &str, answer: super::Answer<'_>) -> Out {
        let mut state = self.lock();
        let polls = self.polls;
        let Some(batch) = state.batches.get_mut(id).filter(|b| b.api == Api::Gemini) else {
            return not_found(id);
        };
        batch.looks += 1;
        if (batch.looks > polls || batch.cancelled) && batch.results.is_none() {
            let (key, model, requests) = (
                batch.key.clone(),
                batch.model.clone(),
                batch.requests.clone(),
            );
            let (cancelled, fail, expire_all) = (batch.cancelled, batch.fail, batch.expire_all);
            drop(state);
            let mut results = Vec::new();
            for (k, body) in requests {
                let prompt = crate::gemini::prompt(&body).unwrap_or_default();
                if cancelled || fail {
                    results.push((k, "canceled", Value::Null));
                } else if expire_all || self.expires(&prompt) {
                    results.push((k, "expired", Value::Null));
                } else {
                    let bytes = serde_json::to_vec(&body).unwrap_or_default();
                    let (out, dropped) =
                        answer(Api::Gemini, key.as_deref(), &bytes, model.as_deref());
                    let parsed = serde_json::from_str::<Value>(&out.body).ok();
                    let meta = json!({"key": k});
                    let (kind, line) = match parsed {
                        Some(r) if out.status == 200 && !dropped => {
                            ("succeeded", json!({"response": r, "metadata": meta}))
                        }
                        Some(e) if e.get("error").is_some() => {
                            ("errored", json!({"error": e["error"], "metadata": meta}))
                        }
                        _ => (
                            "errored",
                            json!({"error": {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"}, "metadata": meta}),
                        ),
                    };
                    results.push((k, kind, line));
                }
            }
            state = self.lock();
            if let Some(b) = state.batches.get_mut(id) {
                b.results = Some(results);
            }
        }
        match state.batches.get(id) {
            Some(b) => json_out(200, view(id, b, "toolproof")),
            None => not_found(id),
        }
    }
}

/// The long-running operation of batch `id`.
fn view(id: &str, b: &Batch, display: &str) -> Value {
    let name = format!("batches/{id}");
    let results = b.results.as_deref();
    let count = |kind: &str| results.map_or(0, |r| r.iter().filter(|(_, k, _)| *k == kind).count());
    let ended = results.is_some();
    let state = match results {
        None if b.looks <= 1 => "BATCH_STATE_PENDING",
        None => "BATCH_STATE_RUNNING",
        Some(_) if b.cancelled => "BATCH_STATE_CANCELLED",
        Some(_) if b.fail => "BATCH_STATE_FAILED",
        Some(_) if count("expired") > 0 => "BATCH_STATE_EXPIRED",
        Some(_) => "BATCH_STATE_SUCCEEDED",
    };
    // int64 counts are JSON strings; zero ones are left out.
    let mut stats = Map::new();
    let total = b.requests.len();
    let pending = if ended { 0 } else { total };
    for (k, n) in [
        ("requestCount", total),
        ("successfulRequestCount", count("succeeded")),
        ("failedRequestCount", count("errored")),
        ("pendingRequestCount", pending),
    ] {
        if n > 0 {
            stats.insert(k.into(), Value::String(n.to_string()));
        }
    }
    let at = "2026-12-04T00:00:00.000000Z";
    let model = format!("models/{}", b.model.as_deref().unwrap_or_default());
    let mut op = json!({
        "name": name,
        "metadata": {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
            "model": model, "name": name, "displayName": display,
            "createTime": at, "updateTime": at, "batchStats": stats, "state": state,
        },
    });
    if !ended {
        return op;
    }
    op["done"] = json!(true);
    op["metadata"]["endTime"] = json!(at);
    if b.fail {
        op["error"] = json!({"code": 13, "message": "fake_llm: the batch failed"});
        return op;
    }
    let lines: Vec<&Value> = results
        .into_iter()
        .flatten()
        .filter(|(_, k, _)| matches!(*k, "succeeded" | "errored"))
        .map(|(_, _, line)| line)
        .collect();
    if !lines.is_empty() {
        op["response"] = json!({
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatchOutput",
            "inlinedResponses": {"inlinedResponses": lines},
        });
    }
    op
}
