//! What differs between HTTP APIs around the one retry loop of [`super::HttpApi`]: how a
//! request is authenticated ([`Auth`], a [`Signer`] for signatures over the request) and how
//! the API words a refusal ([`Dialect`]).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::describe;

/// How the key travels.
#[derive(Clone)]
pub(crate) enum Auth {
    /// `authorization: Bearer KEY` (OpenAI, `ANTHROPIC_AUTH_TOKEN`).
    Bearer(String),
    /// The key under a header of the API's (`x-api-key` for Anthropic, `x-goog-api-key`).
    Header(&'static str, String),
    /// Headers computed for each request from what it sends (AWS Signature Version 4).
    Signed(Arc<dyn Signer>),
    /// No key: a local OpenAI-compatible server that asks for none.
    None,
}

impl Auth {
    pub(super) fn secret(&self) -> &str {
        match self {
            Auth::Bearer(k) | Auth::Header(_, k) => k,
            Auth::Signed(s) => s.secret(),
            Auth::None => "",
        }
    }
}

/// One request as it will be sent, for a [`Signer`]: the exact body bytes, and the time from
/// the clock (a signer's own tests pass a fixed time).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Signing<'a> {
    /// `POST` or `GET`.
    pub method: &'a str,
    /// The full URL.
    pub url: &'a str,
    /// The body bytes (empty for a GET).
    pub body: &'a [u8],
    /// When it is signed.
    pub now: SystemTime,
}

/// Signs each request (Bedrock's SigV4): returns the headers to add.
pub(crate) trait Signer: Send + Sync {
    /// The headers that authenticate `req` (`authorization`, `x-amz-date`, …).
    fn sign(&self, req: &Signing<'_>) -> Vec<(String, String)>;
    /// The secret to keep out of every message (the secret key; never shown).
    fn secret(&self) -> &str;
}

/// How an API words its refusals. The default reads the common shapes (`{"error":
/// {"message"}}`, `{"message"}`, text); an API with its own (Google's `status` and
/// `RetryInfo`, AWS's `x-amzn-errortype`) implements this and sets it with
/// [`HttpApi::with_dialect`]. Retrying and backoff stay in [`HttpApi`].
pub(crate) trait Dialect: Send + Sync {
    /// `STATUS` and what the API said (`body` when it is JSON, else `text`); `header` looks a
    /// response header up.
    fn describe(
        &self,
        status: u16,
        body: Option<&Value>,
        text: &str,
        header: &dyn Fn(&str) -> Option<String>,
    ) -> String {
        let _ = header;
        describe(status, body, text)
    }

    /// What to check after a refusal retrying cannot fix, when the API says more than its
    /// status (AWS's error type; Google's `API_KEY_INVALID` reason on a 400); `None`: the hint
    /// for the status.
    fn hint(
        &self,
        status: u16,
        body: Option<&Value>,
        header: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        let _ = (status, body, header);
        None
    }

    /// A wait the body asks for when no `retry-after` header does (Google's
    /// `RetryInfo.retryDelay` in the error details).
    fn retry_wait(&self, body: Option<&Value>) -> Option<Duration> {
        let _ = body;
        None
    }
}

/// The common refusal shapes (Anthropic, OpenAI and compatible servers).
pub(crate) struct Standard;

impl Dialect for Standard {}
