//! What every provider's batch API shares: the [`BatchApi`] trait the eval engine talks to,
//! where a batch stands ([`Poll`]), what came back for one request ([`Entry`]), the HTTP
//! exchanges beside the live endpoint ([`Beside`]: same key, same retries, capped answers),
//! ids as path segments, and JSONL.
//!
//! Each provider's own batch wire format lives in its module: Anthropic Message Batches in
//! `anthropic/batch.rs`, the OpenAI Batch API (Chat Completions and Responses lines) in
//! `openai/batch.rs`, Gemini Batch Mode in `google/batch.rs`. Each request of a batch carries
//! the body the live path sends, and each answer is read by the live path's reader, so a
//! batch answer is scored and cached exactly as a live one.

use std::fmt;

use serde_json::Value;

use super::http::HttpApi;
use super::{Answer, Failure, Pacer, ProviderError};

/// The most bytes read from a results file, or from a status that holds the results (a few
/// KiB an answer, 50,000 answers at most).
pub(crate) const RESULTS_LIMIT: u64 = 512 << 20;
/// The most bytes read from any other batch endpoint's answer.
pub(crate) const STATUS_LIMIT: u64 = 4 << 20;
/// What a batch costs against live requests at Anthropic, OpenAI and Google: half.
pub(crate) const HALF_PRICE: f64 = 0.5;

/// How much one batch may hold: requests, and bytes of request bodies (JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The most requests in one batch.
    pub requests: usize,
    /// The most bytes of request bodies in one batch.
    pub bytes: usize,
}

impl Limits {
    /// Well inside what Anthropic (100,000 requests, 256 MB) and OpenAI (50,000 requests, a
    /// 200 MB file) take.
    pub(crate) const FILE: Limits = Limits {
        requests: 10_000,
        bytes: 150 << 20,
    };
}

/// A provider's batch API, as the eval engine uses it: submit the bodies the live path would
/// send, poll, fetch the results, cancel. The engine knows nothing else of the provider.
pub(crate) trait BatchApi: fmt::Debug + Sync {
    /// `host[:port]` of the API, which a recorded batch must match to be picked up again.
    fn host(&self) -> String;

    /// How much one batch may hold; more requests are sent as more batches.
    fn limits(&self) -> Limits {
        Limits::FILE
    }

    /// What a batch answer costs against the live price (the batch discount).
    fn price_factor(&self) -> f64 {
        HALF_PRICE
    }

    /// Submits `requests` (custom id, the live request body) for `model` as one batch;
    /// returns its id.
    fn submit(
        &self,
        model: &str,
        requests: &[(String, Value)],
        pacer: &Pacer,
    ) -> Result<String, ProviderError>;

    /// Where batch `id` stands.
    fn poll(&self, id: &str, pacer: &Pacer) -> Result<Poll, ProviderError>;

    /// Every result of an ended batch, by custom id (none for a batch that failed as a whole,
    /// see [`Poll::failure`]). A request the results leave out is not listed (the caller says
    /// so, see [`Poll::left_out`]); a result that cannot be read is skipped.
    fn results(
        &self,
        id: &str,
        poll: &Poll,
        pacer: &Pacer,
    ) -> Result<Vec<(String, Entry)>, ProviderError>;

    /// Asks the provider to cancel batch `id`.
    fn cancel(&self, id: &str, pacer: &Pacer) -> Result<(), ProviderError>;
}

/// Where a batch stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Poll {
    /// The provider's word for it (`in_progress`, `ended`, `BATCH_STATE_RUNNING`…).
    pub status: String,
    /// Whether its results can be fetched (nothing more will change).
    pub ended: bool,
    /// Requests finished so far (when the provider says).
    pub done: u64,
    /// Requests in the batch (when the provider says).
    pub total: u64,
    /// Where the results are (Anthropic's results URL; OpenAI's output and error file ids).
    pub(crate) at: Vec<String>,
    /// The results themselves, when the status carries them (Gemini's inline responses).
    pub(crate) inline: Vec<(String, Entry)>,
    /// Why the whole batch failed (every request gets this error).
    pub(crate) failed: Option<String>,
    /// What a request the results leave out came to (a batch that expired or was cancelled
    /// as a whole); `None`: it is an error.
    pub(crate) left_out: Option<Entry>,
}

impl Poll {
    /// A batch in `status`, with `done` of `total` requests finished, nothing else said.
    pub(crate) fn new(status: String, ended: bool, done: u64, total: u64) -> Poll {
        Poll {
            status,
            ended,
            done,
            total,
            at: Vec::new(),
            inline: Vec::new(),
            failed: None,
            left_out: None,
        }
    }

    /// Why the whole batch failed, when it did (its input was refused, or it failed at the
    /// provider).
    pub(crate) fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    /// What a request with no result came to, when the batch says (expired, cancelled).
    pub(crate) fn left_out(&self) -> Option<&Entry> {
        self.left_out.as_ref()
    }
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

/// Whether `e` says the batch does not exist (a 404 on its status): archived or deleted.
pub(crate) fn gone(e: &ProviderError) -> bool {
    matches!(e, ProviderError::Fatal(f) if f.message.contains(" returned 404"))
}

/// The batch endpoints beside a live endpoint: the same key, headers, retries and error
/// reading ([`HttpApi::exchange`]), answers read as JSON within a size limit, and a
/// malformed answer named after the provider (`who`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Beside<'a> {
    /// The live endpoint.
    pub(crate) api: &'a HttpApi,
    /// The provider's name in messages (`anthropic batch API: …`).
    pub(crate) who: &'static str,
}

impl Beside<'_> {
    /// The live endpoint's URL (the batch paths hang from it).
    pub(crate) fn url(&self) -> &str {
        self.api.url()
    }

    /// `host[:port]` of the API.
    pub(crate) fn host(&self) -> String {
        let url = self.api.url();
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        rest.split('/').next().unwrap_or_default().to_owned()
    }

    /// POSTs `bytes` of `content_type` to `url`; the answer as JSON.
    pub(crate) fn post(
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

    /// GETs `url`; the answer as text, at most `limit` bytes.
    pub(crate) fn get_text(
        &self,
        url: &str,
        pacer: &Pacer,
        limit: u64,
    ) -> Result<String, ProviderError> {
        self.api.exchange(url, None, pacer, limit)
    }

    /// GETs `url`; the answer as JSON (`what` names it when it is not), at most `limit` bytes.
    pub(crate) fn get(
        &self,
        url: &str,
        pacer: &Pacer,
        limit: u64,
        what: &str,
    ) -> Result<Value, ProviderError> {
        let text = self.get_text(url, pacer, limit)?;
        crate::pycompat::bigint::from_str(&text)
            .map_err(|_| self.shape(&format!("{what} is not JSON")))
    }

    /// An answer not in the batch API's shape: retried by the next run, with a hint.
    pub(crate) fn shape(&self, what: &str) -> ProviderError {
        ProviderError::Transient(Failure::with_hint(
            format!("{} batch API: {what}", self.who),
            "check the base URL: it must point at the API",
        ))
    }

    /// The string `key` of `answer`, or a shape error saying `what` has none.
    pub(crate) fn text_of(
        &self,
        answer: &Value,
        key: &str,
        what: &str,
    ) -> Result<String, ProviderError> {
        answer
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| self.shape(&format!("{what} has no `{key}`")))
    }
}

/// The requests of a batch as one JSON object per request, comma-separated, between `open` and
/// `close`: `entry(id, body)` gives each object's members before and after its body, which is
/// written with every digit of a big integer kept.
pub(crate) fn request_list(
    requests: &[(String, Value)],
    (open, close): (&[u8], &[u8]),
    entry: impl Fn(&str) -> (Vec<u8>, Vec<u8>),
) -> Vec<u8> {
    let mut bytes = open.to_vec();
    for (i, (id, body)) in requests.iter().enumerate() {
        if i > 0 {
            bytes.push(b',');
        }
        let (before, after) = entry(id);
        bytes.extend(before);
        bytes.extend(crate::pycompat::bigint::to_vec(body).unwrap_or_default());
        bytes.extend(after);
    }
    bytes.extend_from_slice(close);
    bytes
}

/// An id as one segment of a URL's path: every byte but the unreserved ones (letters,
/// digits, `-`, `.`, `_`, `~`) percent-encoded, so that an id holding `/`, `?`, `#` or a
/// control character cannot reach another path, and `.`/`..` none at all.
pub(crate) fn segment(id: &str) -> String {
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
pub(crate) fn jsonl(text: &str) -> impl Iterator<Item = Value> + '_ {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| crate::pycompat::bigint::from_str(l).ok())
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
}
