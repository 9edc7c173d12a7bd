//! The providers' batch APIs: Anthropic Message Batches (`POST /v1/messages/batches`, poll
//! `GET …/{id}`, results JSONL) and the OpenAI Batch API (a JSONL file uploaded to `/files`
//! with purpose `batch`, `POST /batches`, poll `GET /batches/{id}`, the output and error files).
//!
//! Each request's body is the one the live path sends (`anthropic::body` / `openai::body`),
//! and each answer is read by the same `read` as a live answer, so a batch answer is scored
//! and cached exactly as a live one.

use serde_json::{Value, json};

use super::http::{HttpApi, describe};
use super::{Answer, Failure, Pacer, ProviderError, ShapeError, anthropic, openai, responses};
use crate::pycompat::bigint;

/// The most bytes read from a results file (a few KiB an answer, 50,000 answers at most).
const RESULTS_LIMIT: u64 = 512 << 20;
/// The most bytes read from any other batch endpoint's answer.
const STATUS_LIMIT: u64 = 4 << 20;
/// The multipart boundary of the OpenAI file upload (never in JSON text: `"` can't occur bare).
const BOUNDARY: &str = "toolproof-batch-boundary-7e1f";

/// A provider's batch API.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BatchApi<'a> {
    api: &'a HttpApi,
    openai: bool,
    /// OpenAI's Batch API with Responses API requests (`/v1/responses` lines).
    responses: bool,
}

/// Where a batch stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Poll {
    /// The provider's word for it (`in_progress`, `ended`, `validating`, `completed`…).
    pub status: String,
    /// Whether its results can be fetched (nothing more will change).
    pub ended: bool,
    /// Requests finished so far, and in all (when the provider says).
    pub done: u64,
    /// Requests in the batch.
    pub total: u64,
    /// Where the results are: Anthropic's results URL; OpenAI's output and error file ids.
    results: Vec<String>,
    /// Why the whole batch failed (OpenAI `failed`: every request gets this error).
    failed: Option<String>,
}

/// What came back for one request of a batch.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Entry {
    /// The model's answer.
    Answer(Answer),
    /// The request failed (an API error, an answer not in the API's format).
    Errored(String),
    /// The batch expired before this request ran.
    Expired,
    /// The batch was cancelled before this request ran.
    Canceled,
}

impl Poll {
    /// Why the whole batch failed, when it did (OpenAI `failed`: its input was refused).
    pub(crate) fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }
}

impl<'a> BatchApi<'a> {
    /// The Message Batches API beside `api` (`…/v1/messages/batches`).
    pub(crate) fn anthropic(api: &'a HttpApi) -> Self {
        BatchApi {
            api,
            openai: false,
            responses: false,
        }
    }

    /// OpenAI's Batch API beside `api` (files and `…/v1/batches`).
    pub(crate) fn openai(api: &'a HttpApi) -> Self {
        BatchApi {
            api,
            openai: true,
            responses: false,
        }
    }

    /// OpenAI's Batch API beside a Responses API endpoint: each line goes to `/v1/responses`.
    pub(crate) fn responses(api: &'a HttpApi) -> Self {
        BatchApi {
            api,
            openai: true,
            responses: true,
        }
    }
}

/// Whether `e` says the batch does not exist (a 404 on its status): archived or deleted.
pub(crate) fn gone(e: &ProviderError) -> bool {
    matches!(e, ProviderError::Fatal(f) if f.message.contains(" returned 404"))
}

impl BatchApi<'_> {
    /// `host[:port]` of the API, which a recorded batch must match to be picked up again.
    pub(crate) fn host(&self) -> String {
        let url = self.api.url();
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        rest.split('/').next().unwrap_or_default().to_owned()
    }

    /// The base the batch paths hang from: `…/v1/messages` (Anthropic), `…/v1` (OpenAI).
    fn base(&self) -> &str {
        let url = self.api.url();
        if self.responses {
            url.strip_suffix("/responses").unwrap_or(url)
        } else if self.openai {
            url.strip_suffix("/chat/completions").unwrap_or(url)
        } else {
            url
        }
    }

    /// The endpoint an OpenAI batch's lines go to.
    fn endpoint(&self) -> &'static str {
        if self.responses {
            "/v1/responses"
        } else {
            "/v1/chat/completions"
        }
    }

    fn batches_url(&self) -> String {
        format!("{}/batches", self.base())
    }

    /// Submits `requests` (custom id, request body) as one batch; returns its id.
    pub(crate) fn submit(
        &self,
        requests: &[(String, Value)],
        pacer: &Pacer,
    ) -> Result<String, ProviderError> {
        let answer = if self.openai {
            let endpoint = self.endpoint();
            let mut jsonl = Vec::new();
            for (id, body) in requests {
                let line = json!({"custom_id": id, "method": "POST", "url": endpoint});
                let mut text = bigint::to_vec(&line).unwrap_or_default();
                text.pop();
                text.extend_from_slice(b",\"body\":");
                text.extend(bigint::to_vec(body).unwrap_or_default());
                text.extend_from_slice(b"}\n");
                jsonl.extend(text);
            }
            let file = self.upload(&jsonl, pacer)?;
            let create =
                json!({"input_file_id": file, "endpoint": endpoint, "completion_window": "24h"});
            let bytes = serde_json::to_vec(&create).unwrap_or_default();
            self.post(&self.batches_url(), "application/json", &bytes, pacer)?
        } else {
            let mut bytes = b"{\"requests\":[".to_vec();
            for (i, (id, body)) in requests.iter().enumerate() {
                if i > 0 {
                    bytes.push(b',');
                }
                bytes.extend_from_slice(b"{\"custom_id\":");
                bytes.extend(serde_json::to_vec(id).unwrap_or_default());
                bytes.extend_from_slice(b",\"params\":");
                bytes.extend(bigint::to_vec(body).unwrap_or_default());
                bytes.push(b'}');
            }
            bytes.extend_from_slice(b"]}");
            self.post(&self.batches_url(), "application/json", &bytes, pacer)?
        };
        answer
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| self.shape("the new batch has no `id`"))
    }

    /// The JSONL file, uploaded with purpose `batch`; returns its id.
    fn upload(&self, jsonl: &[u8], pacer: &Pacer) -> Result<String, ProviderError> {
        let mut form = format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"toolproof-batch.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n"
        )
        .into_bytes();
        form.extend_from_slice(jsonl);
        form.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
        let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
        let url = format!("{}/files", self.base());
        let answer = self.post(&url, &content_type, &form, pacer)?;
        answer
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| self.shape("the uploaded file has no `id`"))
    }

    /// Where batch `id` stands.
    pub(crate) fn poll(&self, id: &str, pacer: &Pacer) -> Result<Poll, ProviderError> {
        let url = format!("{}/{}", self.batches_url(), segment(id));
        let text = self.api.exchange(&url, None, pacer, STATUS_LIMIT)?;
        let v: Value =
            serde_json::from_str(&text).map_err(|_| self.shape("the batch status is not JSON"))?;
        let status = v
            .get(if self.openai {
                "status"
            } else {
                "processing_status"
            })
            .and_then(Value::as_str)
            .ok_or_else(|| self.shape("the batch has no status"))?
            .to_owned();
        let count = |k: &str| {
            v.pointer(&format!("/request_counts/{k}"))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let text_of = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        Ok(if self.openai {
            let ended = matches!(
                status.as_str(),
                "completed" | "failed" | "expired" | "cancelled"
            );
            let failed = (status == "failed").then(|| {
                v.pointer("/errors/data/0/message")
                    .and_then(Value::as_str)
                    .unwrap_or("the batch failed")
                    .to_owned()
            });
            Poll {
                ended,
                done: count("completed") + count("failed"),
                total: count("total"),
                results: ["output_file_id", "error_file_id"]
                    .iter()
                    .filter_map(|k| text_of(k))
                    .collect(),
                failed,
                status,
            }
        } else {
            let processing = count("processing");
            let done = ["succeeded", "errored", "canceled", "expired"]
                .iter()
                .map(|k| count(k))
                .sum::<u64>();
            Poll {
                ended: status == "ended",
                done,
                total: done + processing,
                results: text_of("results_url").into_iter().collect(),
                failed: None,
                status,
            }
        })
    }

    /// Every result of an ended batch, by custom id (none for a batch that failed as a whole,
    /// see [`Poll::failure`]). A request the results leave out is not listed (the caller says
    /// so); a line that cannot be read is skipped.
    pub(crate) fn results(
        &self,
        id: &str,
        poll: &Poll,
        pacer: &Pacer,
    ) -> Result<Vec<(String, Entry)>, ProviderError> {
        let mut entries = Vec::new();
        if self.openai {
            for file in &poll.results {
                let url = format!("{}/files/{}/content", self.base(), segment(file));
                let text = self.api.exchange(&url, None, pacer, RESULTS_LIMIT)?;
                let read = if self.responses {
                    responses::read
                } else {
                    openai::read
                };
                entries.extend(jsonl(&text).filter_map(|v| openai_entry(&v, read)));
            }
        } else {
            // The documented results path; a `results_url` elsewhere is not sent the key.
            let own = format!("{}/{}/results", self.batches_url(), segment(id));
            let url = poll
                .results
                .first()
                .filter(|u| u.starts_with(&self.batches_url()))
                .cloned()
                .unwrap_or(own);
            let text = self.api.exchange(&url, None, pacer, RESULTS_LIMIT)?;
            entries.extend(jsonl(&text).filter_map(|v| anthropic_entry(&v)));
        }
        Ok(entries)
    }

    /// Asks the provider to cancel batch `id`.
    pub(crate) fn cancel(&self, id: &str, pacer: &Pacer) -> Result<(), ProviderError> {
        let url = format!("{}/{}/cancel", self.batches_url(), segment(id));
        self.post(&url, "application/json", b"{}", pacer)
            .map(|_| ())
    }

    fn post(
        &self,
        url: &str,
        content_type: &str,
        bytes: &[u8],
        pacer: &Pacer,
    ) -> Result<Value, ProviderError> {
        let text = self
            .api
            .exchange(url, Some((content_type, bytes)), pacer, STATUS_LIMIT)?;
        crate::pycompat::bigint::from_str(&text).map_err(|_| self.shape("the answer is not JSON"))
    }

    fn who(&self) -> &'static str {
        if self.openai { "openai" } else { "anthropic" }
    }

    fn shape(&self, what: &str) -> ProviderError {
        ProviderError::Transient(Failure::with_hint(
            format!("{} batch API: {what}", self.who()),
            "check the base URL: it must point at the API",
        ))
    }
}

/// An id as one segment of a URL's path: every byte but the unreserved ones (letters,
/// digits, `-`, `.`, `_`, `~`) percent-encoded, so that an id holding `/`, `?`, `#` or a
/// control character cannot reach another path, and `.`/`..` none at all.
fn segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'_' | b'~')
            || (b == b'.' && id != "." && id != "..")
        {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The JSON values of a JSONL text (blank and unreadable lines skipped).
fn jsonl(text: &str) -> impl Iterator<Item = Value> + '_ {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| crate::pycompat::bigint::from_str(l).ok())
}

/// `{custom_id, result: {type: succeeded|errored|canceled|expired, message|error}}`.
fn anthropic_entry(v: &Value) -> Option<(String, Entry)> {
    let id = v.get("custom_id")?.as_str()?.to_owned();
    let result = v.get("result")?;
    let entry = match result.get("type").and_then(Value::as_str) {
        Some("succeeded") => match result.get("message").map(anthropic::read) {
            Some(Ok(answer)) => Entry::Answer(answer),
            Some(Err(what)) => Entry::Errored(format!(
                "anthropic batch answer not in the API's format: {what}"
            )),
            None => Entry::Errored("anthropic batch answer has no message".into()),
        },
        Some("errored") => {
            let error = result.get("error");
            let inner = error.and_then(|e| e.get("error")).or(error);
            let kind = inner.and_then(|e| e.get("type")).and_then(Value::as_str);
            let message = inner
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
                .unwrap_or("no message");
            Entry::Errored(match kind {
                Some(k) => format!("anthropic batch request errored: {k}: {message}"),
                None => format!("anthropic batch request errored: {message}"),
            })
        }
        Some("expired") => Entry::Expired,
        Some("canceled") => Entry::Canceled,
        other => Entry::Errored(format!(
            "anthropic batch result of an unknown type {}",
            other.unwrap_or("(none)")
        )),
    };
    Some((id, entry))
}

/// `{custom_id, response: {status_code, body}, error: {code, message}}` of the output or
/// error file.
fn openai_entry(
    v: &Value,
    read: fn(&Value) -> Result<Answer, ShapeError>,
) -> Option<(String, Entry)> {
    let id = v.get("custom_id")?.as_str()?.to_owned();
    if let Some(error) = v.get("error").filter(|e| !e.is_null()) {
        let code = error.get("code").and_then(Value::as_str).unwrap_or("error");
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        let entry = match code {
            "batch_expired" => Entry::Expired,
            "batch_cancelled" => Entry::Canceled,
            _ => Entry::Errored(format!("openai batch request failed: {code}: {message}")),
        };
        return Some((id, entry));
    }
    let response = v.get("response")?;
    let status = response
        .get("status_code")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let body = response.get("body").cloned().unwrap_or(Value::Null);
    let entry = if (200..300).contains(&status) {
        match read(&body) {
            Ok(answer) => Entry::Answer(answer),
            Err(what) => Entry::Errored(format!(
                "openai batch answer not in the API's format: {what}"
            )),
        }
    } else {
        let status = u16::try_from(status).unwrap_or(0);
        Entry::Errored(format!(
            "openai batch request returned {}",
            describe(status, Some(&body), "")
        ))
    };
    Some((id, entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_one_path_segment_whatever_it_holds() {
        assert_eq!(segment("msgbatch_01Hk-x.y~z"), "msgbatch_01Hk-x.y~z");
        assert_eq!(segment("a/../b?c#d"), "a%2F..%2Fb%3Fc%23d");
        assert_eq!(segment("b\nPASS"), "b%0APASS");
        assert_eq!(segment(".."), "%2E%2E");
    }

    #[test]
    fn anthropic_results_of_every_type_are_read() {
        let ok = json!({"custom_id": "a", "result": {"type": "succeeded", "message": {"content": [{"type": "tool_use", "name": "echo", "input": {}}], "stop_reason": "tool_use"}}});
        let (id, entry) = anthropic_entry(&ok).unwrap_or_else(|| panic!("read"));
        assert_eq!(id, "a");
        assert!(matches!(entry, Entry::Answer(a) if a.calls[0].name == "echo"));
        let err = json!({"custom_id": "b", "result": {"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "bad tools"}}}});
        assert_eq!(
            anthropic_entry(&err).map(|e| e.1),
            Some(Entry::Errored(
                "anthropic batch request errored: invalid_request_error: bad tools".into()
            ))
        );
        let exp = json!({"custom_id": "c", "result": {"type": "expired"}});
        assert_eq!(anthropic_entry(&exp).map(|e| e.1), Some(Entry::Expired));
        let can = json!({"custom_id": "d", "result": {"type": "canceled"}});
        assert_eq!(anthropic_entry(&can).map(|e| e.1), Some(Entry::Canceled));
    }

    #[test]
    fn openai_output_and_error_lines_are_read() {
        let ok = json!({"id": "r1", "custom_id": "a", "response": {"status_code": 200, "request_id": "q", "body": {"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}}, "error": null});
        assert!(
            matches!(openai_entry(&ok, openai::read).map(|e| e.1), Some(Entry::Answer(a)) if a.text == "hi")
        );
        let bad = json!({"custom_id": "b", "response": {"status_code": 400, "body": {"error": {"message": "no such model", "code": "model_not_found"}}}, "error": null});
        assert_eq!(
            openai_entry(&bad, openai::read).map(|e| e.1),
            Some(Entry::Errored(
                "openai batch request returned 400 model_not_found: no such model".into()
            ))
        );
        let exp = json!({"custom_id": "c", "response": null, "error": {"code": "batch_expired", "message": "late"}});
        assert_eq!(
            openai_entry(&exp, openai::read).map(|e| e.1),
            Some(Entry::Expired)
        );
    }
}
