//! Anthropic Message Batches: `POST /v1/messages/batches` with `{requests: [{custom_id,
//! params}]}` (each `params` the body the live path sends), poll `GET …/batches/{id}`
//! (`processing_status`, `request_counts`), the results as JSONL from `results_url`, cancel
//! `POST …/batches/{id}/cancel`.

use serde_json::Value;

use super::super::batch::{self, BatchApi, Beside, Entry, Poll, RESULTS_LIMIT, STATUS_LIMIT};
use super::super::{HttpApi, Pacer, ProviderError};

/// The Message Batches API beside the Messages endpoint (`…/v1/messages/batches`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Batches<'a>(Beside<'a>);

impl<'a> Batches<'a> {
    /// The batch API beside `api` (the Messages endpoint).
    pub(crate) fn new(api: &'a HttpApi) -> Self {
        Batches(Beside {
            api,
            who: "anthropic",
        })
    }

    fn batches_url(&self) -> String {
        format!("{}/batches", self.0.url())
    }
}

impl BatchApi for Batches<'_> {
    fn host(&self) -> String {
        self.0.host()
    }

    fn submit(
        &self,
        _model: &str,
        requests: &[(String, Value)],
        pacer: &Pacer,
    ) -> Result<String, ProviderError> {
        let bytes = batch::request_list(requests, (b"{\"requests\":[", b"]}"), |id| {
            let mut before = b"{\"custom_id\":".to_vec();
            before.extend(serde_json::to_vec(id).unwrap_or_default());
            before.extend_from_slice(b",\"params\":");
            (before, b"}".to_vec())
        });
        let answer = self
            .0
            .post(&self.batches_url(), "application/json", &bytes, pacer)?;
        self.0.text_of(&answer, "id", "the new batch")
    }

    fn poll(&self, id: &str, pacer: &Pacer) -> Result<Poll, ProviderError> {
        let url = format!("{}/{}", self.batches_url(), batch::segment(id));
        let v = self.0.get(&url, pacer, STATUS_LIMIT, "the batch status")?;
        let status = v
            .get("processing_status")
            .and_then(Value::as_str)
            .ok_or_else(|| self.0.shape("the batch has no status"))?
            .to_owned();
        let count = |k: &str| {
            v.pointer(&format!("/request_counts/{k}"))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let processing = count("processing");
        let done = ["succeeded", "errored", "canceled", "expired"]
            .iter()
            .map(|k| count(k))
            .sum::<u64>();
        let mut poll = Poll::new(status, false, done, done + processing);
        poll.ended = poll.status == "ended";
        poll.at = v
            .get("results_url")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .into_iter()
            .collect();
        Ok(poll)
    }

    fn results(
        &self,
        id: &str,
        poll: &Poll,
        pacer: &Pacer,
    ) -> Result<Vec<(String, Entry)>, ProviderError> {
        // The documented results path; a `results_url` elsewhere is not sent the key.
        let own = format!("{}/{}/results", self.batches_url(), batch::segment(id));
        let url = poll
            .at
            .first()
            .filter(|u| u.starts_with(&self.batches_url()))
            .cloned()
            .unwrap_or(own);
        let text = self.0.get_text(&url, pacer, RESULTS_LIMIT)?;
        Ok(batch::jsonl(&text).filter_map(|v| entry(&v)).collect())
    }

    fn cancel(&self, id: &str, pacer: &Pacer) -> Result<(), ProviderError> {
        let url = format!("{}/{}/cancel", self.batches_url(), batch::segment(id));
        self.0
            .post(&url, "application/json", b"{}", pacer)
            .map(|_| ())
    }
}

/// `{custom_id, result: {type: succeeded|errored|canceled|expired, message|error}}`.
fn entry(v: &Value) -> Option<(String, Entry)> {
    let id = v.get("custom_id")?.as_str()?.to_owned();
    let result = v.get("result")?;
    let entry = match result.get("type").and_then(Value::as_str) {
        Some("succeeded") => match result.get("message").map(super::read) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn anthropic_results_of_every_type_are_read() {
        let ok = json!({"custom_id": "a", "result": {"type": "succeeded", "message": {"content": [{"type": "tool_use", "name": "echo", "input": {}}], "stop_reason": "tool_use"}}});
        let (id, got) = entry(&ok).unwrap_or_else(|| panic!("read"));
        assert_eq!(id, "a");
        assert!(matches!(got, Entry::Answer(a) if a.calls[0].name == "echo"));
        let err = json!({"custom_id": "b", "result": {"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "bad tools"}}}});
        assert_eq!(
            entry(&err).map(|e| e.1),
            Some(Entry::Errored(
                "anthropic batch request errored: invalid_request_error: bad tools".into()
            ))
        );
        let exp = json!({"custom_id": "c", "result": {"type": "expired"}});
        assert_eq!(entry(&exp).map(|e| e.1), Some(Entry::Expired));
        let can = json!({"custom_id": "d", "result": {"type": "canceled"}});
        assert_eq!(entry(&can).map(|e| e.1), Some(Entry::Canceled));
    }
}
