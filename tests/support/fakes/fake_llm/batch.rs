//! The fake batch APIs: Anthropic Message Batches, the OpenAI Batch API (with its Files
//! endpoints) and Gemini Batch Mode (`fake_llm/gemini_batch.rs`), in their real shapes. A batch answers "in progress" to its first
//! `--batch-polls` looks, then ends; each request's result is the answer the live endpoint
//! gives its body (so every directive works in a batch: `[[status 400]]` is an errored
//! request), except that `[[batch-expire]]` makes it expire, and `--batch-expire N` makes the
//! first N batches expire as a whole, and `--batch-fail N` makes the first N fail as a whole
//! (Gemini). A cancelled batch ends with its requests cancelled.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::http::Request;
use crate::script;
use crate::wire::{self, Api, Out};

#[path = "gemini_batch.rs"]
mod gemini;

/// What the live endpoint answers a body sent with a key (and, for Gemini, the model its path
/// names): the answer, and whether it dropped the connection.
pub type Answer<'a> = &'a dyn Fn(Api, Option<&str>, &[u8], Option<&str>) -> (Out, bool);

pub struct Batches {
    /// Looks at a batch answered "in progress" before it ends.
    polls: u32,
    /// Batches (in submission order) that expire as a whole.
    expire_first: u32,
    /// Batches (in submission order) that fail as a whole (Gemini).
    fail_first: u32,
    /// The ids the batches get, in submission order (then generated ones).
    ids: Vec<String>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    batches: HashMap<String, Batch>,
    files: HashMap<String, String>,
    submitted: u32,
    /// Times each prompt has expired in a batch (for `[[batch-expire times=N]]`).
    expired: HashMap<String, u64>,
}

struct Batch {
    api: Api,
    key: Option<String>,
    requests: Vec<(String, Value)>,
    input_file: Option<String>,
    looks: u32,
    cancelled: bool,
    expire_all: bool,
    /// It fails as a whole when it ends (Gemini).
    fail: bool,
    /// The model of a Gemini batch (in its path, not in its requests).
    model: Option<String>,
    /// Once ended: (custom id, result kind, line) for each request.
    results: Option<Vec<(String, &'static str, Value)>>,
    output_file: Option<String>,
    error_file: Option<String>,
    created: u64,
}

/// A path segment with its `%XX` escapes decoded.
fn decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn json_out(status: u16, body: Value) -> Out {
    Out {
        status,
        headers: Vec::new(),
        content_type: "application/json",
        body: body.to_string(),
    }
}

fn bad(api: Api, message: &str) -> Out {
    wire::bad_request(api, 400, message)
}

impl Batches {
    /// Batches in progress for `polls` looks; the first `expire_first` expire as a whole.
    pub fn new(polls: u32, expire_first: u32) -> Batches {
        Batches {
            polls,
            expire_first,
            fail_first: 0,
            ids: Vec::new(),
            state: Mutex::default(),
        }
    }

    /// The batches get these ids, in submission order (any id at all, an empty one too).
    pub fn with_ids(mut self, ids: Vec<String>) -> Batches {
        self.ids = ids;
        self
    }

    /// The first `n` batches submitted fail as a whole (Gemini).
    pub fn with_failures(mut self, n: u32) -> Batches {
        self.fail_first = n;
        self
    }

    /// The id of the next batch submitted.
    fn next_id(&self, prefix: &str) -> String {
        let n = self.lock().submitted as usize;
        self.ids.get(n).cloned().unwrap_or_else(|| wire::id(prefix))
    }

    /// The answer to a batch or file endpoint; `None` for any other path.
    pub fn route(&self, req: &Request, key: Option<&str>, answer: Answer<'_>) -> Option<Out> {
        let path = req.path.as_str();
        let method = req.method.as_str();
        if let Some(out) = self.route_gemini(req, answer) {
            return Some(out);
        }
        // Each segment percent-decoded, as a real server reads an id in a path.
        let decoded: Vec<String> = path
            .trim_start_matches('/')
            .split('/')
            .map(decode)
            .collect();
        let parts: Vec<&str> = decoded.iter().map(String::as_str).collect();
        let out = match (method, parts.as_slice()) {
            ("POST", ["v1", "messages", "batches"]) => self.create_anthropic(req, key),
            ("GET", ["v1", "messages", "batches", id]) => self.look(id, req, answer),
            ("GET", ["v1", "messages", "batches", id, "results"]) => self.results_file(id),
            ("POST", ["v1", "messages", "batches", id, "cancel"]) => self.cancel(id, req),
            ("POST", ["v1", "files"]) => self.upload(req),
            ("GET", ["v1", "files", id, "content"]) => self.file(id),
            ("POST", ["v1", "batches"]) => self.create_openai(req, key),
            ("GET", ["v1", "batches", id]) => self.look(id, req, answer),
            ("POST", ["v1", "batches", id, "cancel"]) => self.cancel(id, req),
            _ => return None,
        };
        Some(out)
    }

    fn create_anthropic(&self, req: &Request, key: Option<&str>) -> Out {
        let api = Api::Anthropic;
        let Ok(body) = serde_json::from_slice::<Value>(&req.body) else {
            return bad(api, "the request body is not JSON");
        };
        let Some(list) = body.get("requests").and_then(Value::as_array) else {
            return bad(api, "requests: Field required");
        };
        if list.is_empty() {
            return bad(api, "requests: at least 1 item required");
        }
        let mut requests = Vec::new();
        for r in list {
            let id = r.get("custom_id").and_then(Value::as_str).unwrap_or("");
            let ok = !id.is_empty()
                && id.len() <= 64
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !ok {
                return bad(
                    api,
                    &format!("custom_id `{id}` must match ^[a-zA-Z0-9_-]{{1,64}}$"),
                );
            }
            if requests.iter().any(|(c, _)| c == id) {
                return bad(api, &format!("custom_id `{id}` is not unique"));
            }
            let Some(params) = r.get("params").filter(|p| p.is_object()) else {
                return bad(api, "params: Field required");
            };
            requests.push((id.to_owned(), params.clone()));
        }
        let id = self.next_id("msgbatch_");
        let batch = self.add(&id, api, key, requests, None);
        json_out(200, anthropic_view(&id, &batch, req))
    }

    fn upload(&self, req: &Request) -> Out {
        let api = Api::OpenAi;
        let boundary = req
            .header("content-type")
            .and_then(|c| c.split("boundary=").nth(1))
            .map(|b| b.trim_matches('"').to_owned());
        let Some(boundary) = boundary else {
            return bad(
                api,
                "the upload must be multipart/form-data with a boundary",
            );
        };
        let body = String::from_utf8_lossy(&req.body).into_owned();
        let mut purpose = None;
        let mut file = None;
        for part in body.split(&format!("--{boundary}")) {
            let Some((head, content)) = part.split_once("\r\n\r\n") else {
                continue;
            };
            let content = content.strip_suffix("\r\n").unwrap_or(content);
            if head.contains("name=\"purpose\"") {
                purpose = Some(content.to_owned());
            } else if head.contains("name=\"file\"") {
                file = Some(content.to_owned());
            }
        }
        if purpose.as_deref() != Some("batch") {
            return bad(api, "purpose must be `batch`");
        }
        let Some(file) = file else {
            return bad(api, "file: Field required");
        };
        let id = wire::id("file-");
        let bytes = file.len();
        self.lock().files.insert(id.clone(), file);
        json_out(
            200,
            json!({"id": id, "object": "file", "bytes": bytes, "created_at": wire::now(), "filename": "batch.jsonl", "purpose": "batch"}),
        )
    }

    fn create_openai(&self, req: &Request, key: Option<&str>) -> Out {
        let Ok(body) = serde_json::from_slice::<Value>(&req.body) else {
            return bad(Api::OpenAi, "the request body is not JSON");
        };
        // Chat Completions or Responses API requests, as the endpoint says.
        let endpoint = body.get("endpoint").and_then(Value::as_str).unwrap_or("");
        let api = match endpoint {
            "/v1/chat/completions" => Api::OpenAi,
            "/v1/responses" => Api::Responses,
            _ => {
                return bad(
                    Api::OpenAi,
                    "endpoint must be /v1/chat/completions or /v1/responses",
                );
            }
        };
        if body.get("completion_window").and_then(Value::as_str) != Some("24h") {
            return bad(api, "completion_window must be 24h");
        }
        let file_id = body
            .get("input_file_id")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(text) = self.lock().files.get(file_id).cloned() else {
            return bad(api, &format!("no file {file_id}"));
        };
        let mut requests = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                return bad(api, "the input file has a line that is not JSON");
            };
            let id = v.get("custom_id").and_then(Value::as_str).unwrap_or("");
            if id.is_empty() || requests.iter().any(|(c, _)| c == id) {
                return bad(api, "every line needs a unique custom_id");
            }
            if v.get("method").and_then(Value::as_str) != Some("POST")
                || v.get("url").and_then(Value::as_str) != Some(endpoint)
            {
                return bad(
                    api,
                    &format!(
                        "every line needs method POST and url {endpoint} (the batch's endpoint)"
                    ),
                );
            }
            let Some(body) = v.get("body").filter(|b| b.is_object()) else {
                return bad(api, "every line needs a body");
            };
            requests.push((id.to_owned(), body.clone()));
        }
        let id = self.next_id("batch_");
        let batch = self.add(&id, api, key, requests, Some(file_id.to_owned()));
        json_out(200, openai_view(&id, &batch))
    }

    fn add(
        &self,
        id: &str,
        api: Api,
        key: Option<&str>,
        requests: Vec<(String, Value)>,
        input_file: Option<String>,
    ) -> BatchView {
        let mut state = self.lock();
        state.submitted += 1;
        let batch = Batch {
            api,
            key: key.map(str::to_owned),
            requests,
            input_file,
            looks: 0,
            cancelled: false,
            expire_all: state.submitted <= self.expire_first,
            fail: state.submitted <= self.fail_first,
            model: None,
            results: None,
            output_file: None,
            error_file: None,
            created: wire::now(),
        };
        let view = BatchView::of(&batch, "");
        state.batches.insert(id.to_owned(), batch);
        view
    }

    fn look(&self, id: &str, req: &Request, answer: Answer<'_>) -> Out {
        let mut state = self.lock();
        let polls = self.polls;
        let Some(batch) = state.batches.get_mut(id) else {
            return wire::bad_request(Api::OpenAi, 404, &format!("no batch {id}"));
        };
        batch.looks += 1;
        let api = batch.api;
        let ready = batch.looks > polls || batch.cancelled;
        if ready && batch.results.is_none() {
            drop(state);
            let results = self.run(id, answer);
            state = self.lock();
            let files = &mut state.files;
            let mut output = String::new();
            let mut errors = String::new();
            for (_, kind, line) in &results {
                let text = format!("{line}\n");
                if *kind == "succeeded" {
                    output.push_str(&text);
                } else {
                    errors.push_str(&text);
                }
            }
            let mut output_file = None;
            let mut error_file = None;
            if api != Api::Anthropic {
                if !output.is_empty() {
                    let f = wire::id("file-");
                    files.insert(f.clone(), output);
                    output_file = Some(f);
                }
                if !errors.is_empty() {
                    let f = wire::id("file-");
                    files.insert(f.clone(), errors);
                    error_file = Some(f);
                }
            }
            if let Some(batch) = state.batches.get_mut(id) {
                batch.results = Some(results);
                batch.output_file = output_file;
                batch.error_file = error_file;
            }
        }
        let Some(batch) = state.batches.get(id) else {
            return wire::bad_request(api, 404, &format!("no batch {id}"));
        };
        let view = BatchView::of(batch, id);
        let view = if api == Api::Anthropic {
            anthropic_view(id, &view, req)
        } else {
            openai_view(id, &view)
        };
        json_out(200, view)
    }

    /// Every request's result, in the API's line shape.
    fn run(&self, id: &str, answer: Answer<'_>) -> Vec<(String, &'static str, Value)> {
        let (api, key, requests, cancelled, expire_all) = {
            let state = self.lock();
            let Some(b) = state.batches.get(id) else {
                return Vec::new();
            };
            (
                b.api,
                b.key.clone(),
                b.requests.clone(),
                b.cancelled,
                b.expire_all,
            )
        };
        let mut lines = Vec::new();
        for (custom_id, body) in requests {
            let prompt = wire::prompt(&body).unwrap_or_default();
            let expires = expire_all || self.expires(&prompt);
            let kind = if cancelled {
                "canceled"
            } else if expires {
                "expired"
            } else {
                ""
            };
            let line = match (api, kind) {
                (Api::Anthropic, "canceled" | "expired") => {
                    json!({"custom_id": custom_id, "result": {"type": kind}})
                }
                (Api::OpenAi | Api::Responses, "canceled" | "expired") => {
                    let (code, message) = if kind == "expired" {
                        (
                            "batch_expired",
                            "This request could not be executed before the completion window expired.",
                        )
                    } else {
                        ("batch_cancelled", "This request was cancelled.")
                    };
                    json!({"id": wire::id("batch_req_"), "custom_id": custom_id, "response": null, "error": {"code": code, "message": message}})
                }
                _ => {
                    let bytes = serde_json::to_vec(&body).unwrap_or_default();
                    let (out, dropped) = answer(api, key.as_deref(), &bytes, None);
                    let parsed = serde_json::from_str::<Value>(&out.body).ok();
                    let ok = out.status == 200 && !dropped && parsed.is_some();
                    let body = parsed.unwrap_or_else(|| {
                        json!({"type": "error", "error": {"type": "api_error", "message": "the answer was not JSON"}})
                    });
                    let kind = if ok { "succeeded" } else { "errored" };
                    let line = if api == Api::Anthropic {
                        let member = if ok { "message" } else { "error" };
                        json!({"custom_id": custom_id, "result": {"type": kind, member: body}})
                    } else {
                        json!({"id": wire::id("batch_req_"), "custom_id": custom_id, "response": {"status_code": out.status, "request_id": wire::id("req_"), "body": body}, "error": null})
                    };
                    lines.push((custom_id, kind, line));
                    continue;
                }
            };
            lines.push((
                custom_id,
                if kind == "canceled" {
                    "canceled"
                } else {
                    "expired"
                },
                line,
            ));
        }
        lines
    }

    /// Whether a prompt's `[[batch-expire times=N]]` makes it expire this time.
    fn expires(&self, prompt: &str) -> bool {
        let Ok(s) = script::parse(prompt) else {
            return false;
        };
        let Some(times) = s.batch_expire else {
            return false;
        };
        let mut state = self.lock();
        let n = state.expired.entry(prompt.to_owned()).or_insert(0);
        *n += 1;
        times.is_none_or(|t| *n <= t)
    }

    fn results_file(&self, id: &str) -> Out {
        let state = self.lock();
        let Some(results) = state.batches.get(id).and_then(|b| b.results.as_ref()) else {
            return wire::bad_request(Api::Anthropic, 404, &format!("batch {id} has not ended"));
        };
        let mut body = String::new();
        for (_, _, line) in results {
            body.push_str(&line.to_string());
            body.push('\n');
        }
        Out {
            status: 200,
            headers: Vec::new(),
            content_type: "application/binary",
            body,
        }
    }

    fn file(&self, id: &str) -> Out {
        match self.lock().files.get(id) {
            Some(text) => Out {
                status: 200,
                headers: Vec::new(),
                content_type: "application/octet-stream",
                body: text.clone(),
            },
            None => wire::bad_request(Api::OpenAi, 404, &format!("no file {id}")),
        }
    }

    fn cancel(&self, id: &str, req: &Request) -> Out {
        let mut state = self.lock();
        let Some(batch) = state.batches.get_mut(id) else {
            return wire::bad_request(Api::OpenAi, 404, &format!("no batch {id}"));
        };
        batch.cancelled = true;
        let view = BatchView::of(batch, id);
        let api = batch.api;
        json_out(
            200,
            if api == Api::Anthropic {
                anthropic_view(id, &view, req)
            } else {
                openai_view(id, &view)
            },
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What the status answers show of a batch.
struct BatchView {
    total: usize,
    counts: HashMap<&'static str, usize>,
    ended: bool,
    cancelled: bool,
    expire_all: bool,
    looks: u32,
    input_file: Option<String>,
    output_file: Option<String>,
    error_file: Option<String>,
    created: u64,
}

impl BatchView {
    fn of(b: &Batch, _id: &str) -> BatchView {
        let mut counts = HashMap::new();
        for (_, kind, _) in b.results.iter().flatten() {
            *counts.entry(*kind).or_insert(0) += 1;
        }
        BatchView {
            total: b.requests.len(),
            counts,
            ended: b.results.is_some(),
            cancelled: b.cancelled,
            expire_all: b.expire_all,
            looks: b.looks,
            input_file: b.input_file.clone(),
            output_file: b.output_file.clone(),
            error_file: b.error_file.clone(),
            created: b.created,
        }
    }

    fn count(&self, kind: &str) -> usize {
        self.counts.get(kind).copied().unwrap_or(0)
    }
}

fn anthropic_view(id: &str, b: &BatchView, req: &Request) -> Value {
    let status = if b.ended {
        "ended"
    } else if b.cancelled {
        "canceling"
    } else {
        "in_progress"
    };
    let host = req.header("host").unwrap_or("127.0.0.1");
    let results_url = b
        .ended
        .then(|| format!("http://{host}/v1/messages/batches/{id}/results"));
    let at = "2026-12-04T00:00:00.000000Z";
    json!({
        "id": id, "type": "message_batch", "processing_status": status,
        "request_counts": {
            "processing": if b.ended { 0 } else { b.total },
            "succeeded": b.count("succeeded"), "errored": b.count("errored"),
            "canceled": b.count("canceled"), "expired": b.count("expired"),
        },
        "ended_at": b.ended.then_some(at), "created_at": at, "expires_at": "2026-12-05T00:00:00.000000Z",
        "archived_at": null, "cancel_initiated_at": b.cancelled.then_some(at), "results_url": results_url,
    })
}

fn openai_view(id: &str, b: &BatchView) -> Value {
    let status = if b.ended && b.cancelled {
        "cancelled"
    } else if b.ended && b.expire_all {
        "expired"
    } else if b.ended {
        "completed"
    } else if b.cancelled {
        "cancelling"
    } else if b.looks <= 1 {
        "validating"
    } else {
        "in_progress"
    };
    let done = if b.ended { b.total } else { 0 };
    json!({
        "id": id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": null,
        "input_file_id": b.input_file, "completion_window": "24h", "status": status,
        "output_file_id": b.output_file, "error_file_id": b.error_file,
        "created_at": b.created, "in_progress_at": null, "expires_at": b.created + 86_400,
        "finalizing_at": null, "completed_at": null, "failed_at": null, "expired_at": null,
        "cancelling_at": null, "cancelled_at": null,
        "request_counts": {"total": b.total, "completed": if b.ended { b.count("succeeded") } else { 0 }, "failed": done.saturating_sub(b.count("succeeded")).min(if b.ended { b.total } else { 0 })},
        "metadata": null,
    })
}
