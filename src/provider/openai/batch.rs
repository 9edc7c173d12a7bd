//! The OpenAI Batch API, for Chat Completions and for the Responses API: a JSONL file of
//! `{custom_id, method, url, body}` lines (each `body` the one the live path sends) uploaded
//! to `/files` with purpose `batch`, `POST /batches`, poll `GET /batches/{id}` (`status`,
//! `request_counts`), the output and error files from `/files/{id}/content`, cancel
//! `POST /batches/{id}/cancel`.

use serde_json::{Value, json};

use super::super::batch::{self, BatchApi, Beside, Entry, Poll, RESULTS_LIMIT, STATUS_LIMIT};
use super::super::http::describe;
use super::super::{Answer, HttpApi, Pacer, ProviderError, ShapeError, responses};
use crate::pycompat::bigint;

/// The multipart boundary of the file upload (never in JSON text: `"` can't occur bare).
const BOUNDARY: &str = "toolproof-batch-boundary-7e1f";

/// OpenAI's Batch API beside a Chat Completions or a Responses API endpoint.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Batches<'a> {
    beside: Beside<'a>,
    /// Each line goes to `/v1/responses` (else `/v1/chat/completions`).
    responses: bool,
}

impl<'a> Batches<'a> {
    /// The batch API beside a Chat Completions endpoint (`…/v1/chat/completions`).
    pub(crate) fn chat(api: &'a HttpApi) -> Self {
        Batches {
            beside: Beside { api, who: "openai" },
            responses: false,
        }
    }

    /// The batch API beside a Responses API endpoint (`…/v1/responses`).
    pub(crate) fn responses(api: &'a HttpApi) -> Self {
        Batches {
            beside: Beside { api, who: "openai" },
            responses: true,
        }
    }

    /// The base the batch paths hang from: `…/v1`.
    fn base(&self) -> &str {
        let url = self.beside.url();
        let live = if self.responses {
            "/responses"
        } else {
            "/chat/completions"
        };
        url.strip_suffix(live).unwrap_or(url)
    }

    /// The endpoint the batch's lines go to.
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
        let answer = self.beside.post(&url, &content_type, &form, pacer)?;
        self.beside.text_of(&answer, "id", "the uploaded file")
    }
}

impl BatchApi for Batches<'_> {
    fn host(&self) -> String {
        self.beside.host()
    }

    fn submit(
        &self,
        _model: &str,
        requests: &[(String, Value)],
        pacer: &Pacer,
    ) -> Result<String, ProviderError> {
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
        let answer = self
            .beside
            .post(&self.batches_url(), "application/json", &bytes, pacer)?;
        self.beside.text_of(&answer, "id", "the new batch")
    }

    fn poll(&self, id: &str, pacer: &Pacer) -> Result<Poll, ProviderError> {
        let url = format!("{}/{}", self.batches_url(), batch::segment(id));
        let v = self
            .beside
            .get(&url, pacer, STATUS_LIMIT, "the batch status")?;
        let status = v
            .get("status")
            .and_then(Value::as_str)
            .ok_or_else(|| self.beside.shape("the batch has no status"))?
            .to_owned();
        let count = |k: &str| {
            v.pointer(&format!("/request_counts/{k}"))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
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
        let mut poll = Poll::new(
            status,
            ended,
            count("completed") + count("failed"),
            count("total"),
        );
        poll.at = ["output_file_id", "error_file_id"]
            .iter()
            .filter_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_owned))
            .collect();
        poll.failed = failed;
        Ok(poll)
    }

    fn results(
        &self,
        _id: &str,
        poll: &Poll,
        pacer: &Pacer,
    ) -> Result<Vec<(String, Entry)>, ProviderError> {
        let read = if self.responses {
            responses::read
        } else {
            super::read
        };
        let mut entries = Vec::new();
        for file in &poll.at {
            let url = format!("{}/files/{}/content", self.base(), batch::segment(file));
            let text = self.beside.get_text(&url, pacer, RESULTS_LIMIT)?;
            entries.extend(batch::jsonl(&text).filter_map(|v| entry(&v, read)));
        }
        Ok(entries)
    }

    fn cancel(&self, id: &str, pacer: &Pacer) -> Result<(), ProviderError> {
        let url = format!("{}/{}/cancel", self.batches_url(), batch::segment(id));
        self.beside
            .post(&url, "application/json", b"{}", pacer)
            .map(|_| ())
    }
}

/// `{custom_id, response: {status_code, body}, error: {code, message}}` of the output or
/// error file.
fn entry(v: &Value, read: fn(&Value) -> Result<Answer, ShapeError>) -> Option<(String, Entry)> {
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
    fn openai_output_and_error_lines_are_read() {
        let ok = json!({"id": "r1", "custom_id": "a", "response": {"status_code": 200, "request_id": "q", "body": {"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}}, "error": null});
        assert!(
            matches!(entry(&ok, super::super::read).map(|e| e.1), Some(Entry::Answer(a)) if a.text == "hi")
        );
        let bad = json!({"custom_id": "b", "response": {"status_code": 400, "body": {"error": {"message": "no such model", "code": "model_not_found"}}}, "error": null});
        assert_eq!(
            entry(&bad, super::super::read).map(|e| e.1),
            Some(Entry::Errored(
                "openai batch request returned 400 model_not_found: no such model".into()
            ))
        );
        let exp = json!({"custom_id": "c", "response": null, "error": {"code": "batch_expired", "message": "late"}});
        assert_eq!(
            entry(&exp, super::super::read).map(|e| e.1),
            Some(Entry::Expired)
        );
    }
}
