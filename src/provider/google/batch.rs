//! Gemini Batch Mode with inline requests.
//!
//! Wire facts, from the API reference (<https://ai.google.dev/api/batch-api>), the batch guide
//! (<https://ai.google.dev/gemini-api/docs/batch-api>) and the google-genai SDKs:
//!
//! - submit: `POST {base}/v1beta/models/{model}:batchGenerateContent` with `{batch:
//!   {displayName, inputConfig: {requests: {requests: [{request, metadata: {key}}]}}}}`, each
//!   `request` the `generateContent` body the live path sends; inline requests must stay under
//!   20 MB in all. The answer is a long-running operation whose `name` is `batches/{id}`;
//! - poll: `GET {base}/v1beta/batches/{id}`: the operation, with `done`, the batch's state in
//!   `metadata.state` (`BATCH_STATE_PENDING`, `RUNNING`, `SUCCEEDED`, `FAILED`, `CANCELLED`,
//!   `EXPIRED`; the SDKs and the guide also spell them `JOB_STATE_…`), its counts in
//!   `metadata.batchStats` (`requestCount`, `successfulRequestCount`, `failedRequestCount`,
//!   `pendingRequestCount`: int64, so JSON strings), a failure in `error {code, message}`;
//! - results: in the operation once it is done, `response.inlinedResponses.inlinedResponses[]`
//!   (the SDKs read the same list from `metadata.output`), in the order of the requests, each
//!   `{response: GenerateContentResponse}` or `{error: {code, message}}`, with the request's
//!   `metadata`;
//! - cancel: `POST {base}/v1beta/batches/{id}:cancel`.
//!
//! The key travels in `x-goog-api-key`, as for the live path. The batch price is half the
//! live one.

use serde_json::{Map, Value};

use super::super::batch::{self, BatchApi, Beside, Entry, Limits, Poll, RESULTS_LIMIT};
use super::super::{HttpApi, Pacer, ProviderError};

/// The display name every batch gets.
const DISPLAY_NAME: &str = "toolproof";
/// The prefix of a batch's name.
const PREFIX: &str = "batches/";

/// Gemini Batch Mode beside the API's base URL.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Batches<'a>(Beside<'a>);

impl<'a> Batches<'a> {
    /// The batch API at `api`, whose URL is the base (without `/v1beta`).
    pub(crate) fn new(api: &'a HttpApi) -> Self {
        Batches(Beside { api, who: "google" })
    }

    /// `{base}/v1beta/batches/{id}`, for a batch named `batches/{id}` (or given as `{id}`):
    /// the id is one path segment whatever it holds.
    fn batch_url(&self, name: &str) -> String {
        let id = name.strip_prefix(PREFIX).unwrap_or(name);
        format!(
            "{}/v1beta/{PREFIX}{}",
            self.0.url().trim_end_matches('/'),
            batch::segment(id)
        )
    }
}

impl BatchApi for Batches<'_> {
    fn host(&self) -> String {
        self.0.host()
    }

    /// Inline requests must stay under 20 MB in all: the bodies get 16 MiB, which leaves
    /// room for each request's envelope and key.
    fn limits(&self) -> Limits {
        Limits {
            requests: 10_000,
            bytes: 16 << 20,
        }
    }

    fn submit(
        &self,
        model: &str,
        requests: &[(String, Value)],
        pacer: &Pacer,
    ) -> Result<String, ProviderError> {
        // Beside the live endpoint of the same model.
        let live = super::endpoint(self.0.url(), model);
        let url = live.replace(":generateContent", ":batchGenerateContent");
        let open = format!(
            "{{\"batch\":{{\"displayName\":\"{DISPLAY_NAME}\",\"inputConfig\":{{\"requests\":{{\"requests\":["
        );
        let bytes = batch::request_list(requests, (open.as_bytes(), b"]}}}}"), |key| {
            let mut after = b",\"metadata\":{\"key\":".to_vec();
            after.extend(serde_json::to_vec(key).unwrap_or_default());
            after.extend_from_slice(b"}}");
            (b"{\"request\":".to_vec(), after)
        });
        let answer = self.0.post(&url, "application/json", &bytes, pacer)?;
        self.0.text_of(&answer, "name", "the new batch")
    }

    /// The operation is read whole, with room for its inline results.
    fn poll(&self, id: &str, pacer: &Pacer) -> Result<Poll, ProviderError> {
        let url = self.batch_url(id);
        let v = self.0.get(&url, pacer, RESULTS_LIMIT, "the batch status")?;
        read_poll(&v).map_err(|what| self.0.shape(what))
    }

    fn results(
        &self,
        _id: &str,
        poll: &Poll,
        _pacer: &Pacer,
    ) -> Result<Vec<(String, Entry)>, ProviderError> {
        Ok(poll.inline.clone())
    }

    fn cancel(&self, id: &str, pacer: &Pacer) -> Result<(), ProviderError> {
        let url = format!("{}:cancel", self.batch_url(id));
        self.0
            .post(&url, "application/json", b"{}", pacer)
            .map(|_| ())
    }
}

/// The state without its prefix (`BATCH_STATE_` or `JOB_STATE_`).
fn bare(state: &str) -> &str {
    state
        .strip_prefix("BATCH_STATE_")
        .or_else(|| state.strip_prefix("JOB_STATE_"))
        .unwrap_or(state)
}

/// An int64 count, which Google's JSON writes as a string (a number is read too).
fn count(stats: Option<&Map<String, Value>>, key: &str) -> u64 {
    match stats.and_then(|s| s.get(key)) {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(v) => v.as_u64().unwrap_or(0),
        None => 0,
    }
}

/// Where the batch stands, from its operation: the state, the counts, and once it is done
/// its results (or why it failed as a whole).
pub(crate) fn read_poll(v: &Value) -> Result<Poll, &'static str> {
    let metadata = v.get("metadata");
    let status = metadata
        .and_then(|m| m.get("state"))
        .or_else(|| v.get("state"))
        .and_then(Value::as_str)
        .ok_or("the batch has no state")?
        .to_owned();
    let stats = metadata
        .and_then(|m| m.get("batchStats"))
        .or_else(|| v.get("batchStats"))
        .and_then(Value::as_object);
    let done = count(stats, "successfulRequestCount") + count(stats, "failedRequestCount");
    let total = count(stats, "requestCount");
    let state = bare(&status).to_owned();
    let ended = matches!(
        state.as_str(),
        "SUCCEEDED" | "FAILED" | "CANCELLED" | "EXPIRED"
    );
    let mut poll = Poll::new(status, ended, done, total);
    if !ended {
        return Ok(poll);
    }
    match state.as_str() {
        "FAILED" => {
            let error = v.get("error");
            let message = error
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
                .unwrap_or("the batch failed");
            poll.failed = Some(
                match error.and_then(|e| e.get("code")).and_then(Value::as_i64) {
                    Some(code) => format!("{message} (code {code})"),
                    None => message.to_owned(),
                },
            );
            return Ok(poll);
        }
        "EXPIRED" => poll.left_out = Some(Entry::Expired),
        "CANCELLED" => poll.left_out = Some(Entry::Canceled),
        _ => {}
    }
    poll.inline = inlined(v)
        .into_iter()
        .flatten()
        .filter_map(inline_entry)
        .collect();
    Ok(poll)
}

/// The inline responses of a done operation: `response.inlinedResponses.inlinedResponses`,
/// else the SDKs' `metadata.output.inlinedResponses.inlinedResponses` (a bare list in
/// `inlinedResponses` is read too).
fn inlined(v: &Value) -> Option<&Vec<Value>> {
    fn list(output: &Value) -> Option<&Vec<Value>> {
        let outer = output.get("inlinedResponses")?;
        outer
            .get("inlinedResponses")
            .and_then(Value::as_array)
            .or_else(|| outer.as_array())
    }
    v.get("response")
        .and_then(list)
        .or_else(|| v.pointer("/metadata/output").and_then(list))
}

/// `{response, metadata: {key}}` or `{error: {code, message, status}, metadata: {key}}`.
fn inline_entry(v: &Value) -> Option<(String, Entry)> {
    let key = v.pointer("/metadata/key")?.as_str()?.to_owned();
    if let Some(error) = v.get("error").filter(|e| !e.is_null()) {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        let code = error.get("code").and_then(Value::as_i64);
        let status = error.get("status").and_then(Value::as_str);
        let what = match (code, status) {
            (Some(c), Some(s)) => format!("{c} {s}: {message}"),
            (Some(c), None) => format!("{c}: {message}"),
            (None, Some(s)) => format!("{s}: {message}"),
            (None, None) => message.to_owned(),
        };
        return Some((
            key,
            Entry::Errored(format!("google batch request failed: {what}")),
        ));
    }
    let entry = match v.get("response").map(super::read) {
        Some(Ok(answer)) => Entry::Answer(answer),
        Some(Err(what)) => Entry::Errored(format!(
            "google batch answer not in the API's format: {what}"
        )),
        None => Entry::Errored("google batch result has neither a response nor an error".into()),
    };
    Some((key, entry))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(state: &str, extra: Value) -> Value {
        let mut v = json!({
            "name": "batches/b1",
            "metadata": {
                "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
                "state": state,
                "batchStats": {"requestCount": "3", "successfulRequestCount": "1", "failedRequestCount": "1", "pendingRequestCount": "1"}
            }
        });
        if let (Some(v), Value::Object(extra)) = (v.as_object_mut(), extra) {
            v.extend(extra);
        }
        v
    }

    #[test]
    fn a_running_batch_counts_its_finished_requests() {
        let poll =
            read_poll(&op("BATCH_STATE_RUNNING", json!({}))).unwrap_or_else(|e| panic!("{e}"));
        assert!(!poll.ended);
        assert_eq!((poll.done, poll.total), (2, 3));
        assert_eq!(poll.status, "BATCH_STATE_RUNNING");
        let poll = read_poll(&op("JOB_STATE_PENDING", json!({}))).unwrap_or_else(|e| panic!("{e}"));
        assert!(!poll.ended);
        assert!(read_poll(&json!({"name": "batches/b1"})).is_err());
    }

    #[test]
    fn a_succeeded_batch_reads_each_inline_response_by_its_key() {
        let results = json!({"response": {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatchOutput",
            "inlinedResponses": {"inlinedResponses": [
                {"response": {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "echo", "args": {"t": 1}}}]}, "finishReason": "STOP"}],
                              "usageMetadata": {"promptTokenCount": 10, "cachedContentTokenCount": 4, "candidatesTokenCount": 3}},
                 "metadata": {"key": "k1"}},
                {"error": {"code": 400, "message": "bad schema", "status": "INVALID_ARGUMENT"}, "metadata": {"key": "k2"}},
                {"response": {"candidates": [{"content": {"parts": [{"text": "no tool"}]}, "finishReason": "STOP"}]}}
            ]}
        }});
        let poll =
            read_poll(&op("BATCH_STATE_SUCCEEDED", results)).unwrap_or_else(|e| panic!("{e}"));
        assert!(poll.ended && poll.failure().is_none() && poll.left_out().is_none());
        assert_eq!(poll.inline.len(), 2, "the one without a key is skipped");
        let (key, Entry::Answer(a)) = &poll.inline[0] else {
            panic!("{:?}", poll.inline)
        };
        assert_eq!(key, "k1");
        assert_eq!(a.calls[0].name, "echo");
        assert_eq!(
            a.usage.map(|u| (u.input, u.cache_read, u.output)),
            Some((6, 4, 3))
        );
        assert_eq!(
            poll.inline[1],
            (
                "k2".to_owned(),
                Entry::Errored(
                    "google batch request failed: 400 INVALID_ARGUMENT: bad schema".into()
                )
            )
        );
    }

    #[test]
    fn the_sdks_metadata_output_is_read_when_there_is_no_response() {
        let extra = json!({"done": true});
        let mut v = op("JOB_STATE_SUCCEEDED", extra);
        v["metadata"]["output"] = json!({"inlinedResponses": {"inlinedResponses": [
            {"response": {"candidates": [{"content": {"parts": [{"text": "hi"}]}}]}, "metadata": {"key": "k"}}
        ]}});
        let poll = read_poll(&v).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(&poll.inline[..], [(k, Entry::Answer(a))] if k == "k" && a.text == "hi"));
    }

    #[test]
    fn a_failed_expired_or_cancelled_batch_says_so() {
        let failed = op(
            "BATCH_STATE_FAILED",
            json!({"done": true, "error": {"code": 13, "message": "internal error"}}),
        );
        let poll = read_poll(&failed).unwrap_or_else(|e| panic!("{e}"));
        assert!(poll.ended);
        assert_eq!(poll.failure(), Some("internal error (code 13)"));
        let poll =
            read_poll(&op("BATCH_STATE_EXPIRED", json!({}))).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((poll.ended, poll.left_out()), (true, Some(&Entry::Expired)));
        let poll =
            read_poll(&op("BATCH_STATE_CANCELLED", json!({}))).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(poll.left_out(), Some(&Entry::Canceled));
    }

    #[test]
    fn batch_answers_get_the_offered_names_back_and_colliding_names_are_refused_as_live() {
        use crate::provider::{ApiTool, Kind, Provider, Request, Setup};
        let env = |k: &str| (k == "GEMINI_API_KEY").then(|| "k".to_owned());
        let setup = Setup {
            env: &env,
            cfg: None,
            base_dir: std::path::Path::new("."),
        };
        let p = super::super::KIND
            .connect(&setup)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(p.batch_api().is_some());
        let tool = |name: &str| ApiTool {
            exact_numbers: Vec::new(),
            name: name.into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        };
        let tools = [tool("7zip"), tool("echo")];
        let answer =
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "_7zip"}}]}}]});
        let mut a = super::super::read(&answer).unwrap_or_else(|e| panic!("{e:?}"));
        p.restore(&mut a, &tools);
        assert_eq!(a.calls[0].name, "7zip");
        let params = Map::new();
        let clash = [tool("_1a"), tool("1a")];
        let req = |tools| Request {
            model: "m",
            system: None,
            prompt: "p",
            context: &[],
            tools,
            params: &params,
            tool_choice: None,
            max_tokens: 1,
            prompt_cache: false,
        };
        assert!(p.check(&req(&tools)).is_ok());
        let err = p.check(&req(&clash)).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("`_1a` and `1a`")),
            "{err:?}"
        );
    }

    #[test]
    fn a_batch_name_is_one_path_segment_under_batches() {
        let api = HttpApi::new(
            "google",
            "http://127.0.0.1:9/".to_owned(),
            crate::provider::Auth::None,
            Vec::new(),
            "GEMINI_API_KEY",
            "GOOGLE_GEMINI_BASE_URL",
        );
        let b = Batches::new(&api);
        assert_eq!(
            b.batch_url("batches/abc-1"),
            "http://127.0.0.1:9/v1beta/batches/abc-1"
        );
        assert_eq!(
            b.batch_url("batches/../models/x?y"),
            "http://127.0.0.1:9/v1beta/batches/..%2Fmodels%2Fx%3Fy"
        );
        assert_eq!(b.host(), "127.0.0.1:9");
    }
}
