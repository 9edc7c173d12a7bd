//! One JSON POST to a model API, retried as the [`Pacer`] says: status classification, the
//! provider's own error message, quota exhaustion, and keeping the key out of every message.

use std::fmt;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use ureq::Agent;

use super::retry::{self, Pacer};
use super::window::Outcome;
use super::{Answer, Failure, ProviderError, ShapeError};
use crate::pycompat::bigint;

mod body;
mod hooks;

pub(super) use body::describe;
use body::{quota_exhausted, quote, quote_body};
pub(crate) use hooks::{Auth, Dialect, Signer, Signing, Standard};

/// Most bytes read from one answer.
const BODY_LIMIT: u64 = 64 << 20;
/// The hint for a spent quota.
const OUT_OF_CREDIT: &str = "the account is out of credit or over its spend limit";

/// Reads a 2xx answer body into an [`Answer`], or says what is wrong with its shape.
pub(super) type ReadAnswer = fn(&Value) -> Result<Answer, ShapeError>;

/// A model API endpoint with its credentials. The key is never shown (not even by `Debug`).
pub(crate) struct HttpApi {
    who: &'static str,
    agent: Agent,
    url: String,
    auth: Auth,
    headers: Vec<(String, String)>,
    key_var: &'static str,
    base_var: &'static str,
    dialect: &'static dyn Dialect,
}

impl fmt::Debug for HttpApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpApi")
            .field("who", &self.who)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// What one attempt came to.
enum Attempt {
    Done(Answer),
    Fatal(Failure),
    /// Not retried: the server said `x-should-retry: false`.
    Stop(Failure),
    /// A 2xx whose body is not the API's answer.
    BadBody(Failure),
    Retry {
        why: Failure,
        wait: Option<Duration>,
        everyone: bool,
        /// How the in-flight window counts it (a timeout lowers it).
        outcome: Outcome,
    },
}

/// What one [`HttpApi::exchange`] attempt came to.
enum Exchanged {
    Done(String),
    Failed(Attempt),
}

impl Attempt {
    /// How the in-flight window counts this attempt: a timeout, an answer of any kind, or no
    /// evidence (the connection failed).
    fn outcome(&self) -> Outcome {
        match self {
            Attempt::Retry { outcome, .. } => *outcome,
            _ => Outcome::Answered,
        }
    }
}

impl HttpApi {
    /// An endpoint. `who` names the provider in messages; `key_var` and `base_var` are the
    /// environment variables hints point at; `headers` are sent with every request.
    pub(crate) fn new(
        who: &'static str,
        url: String,
        auth: Auth,
        headers: Vec<(String, String)>,
        key_var: &'static str,
        base_var: &'static str,
    ) -> Self {
        let config = crate::net::agent_config(&url).max_redirects(0);
        HttpApi {
            who,
            agent: config.build().into(),
            url,
            auth,
            headers,
            key_var,
            base_var,
            dialect: &Standard,
        }
    }

    /// The same endpoint reading refusals with `dialect`.
    pub(crate) fn with_dialect(mut self, dialect: &'static dyn Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// The endpoint URL.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Posts `body` until it gets an answer, a fatal error, or runs out of retries. Every
    /// attempt waits for room in the pacer's window first. A timeout crowded by toolproof's own
    /// requests (see [`super::window::Released::crowded`]) is sent again as soon as the lowered
    /// window has room, with no backoff and no retry spent; it still counts as a retry among
    /// the pacer's requests, being a request sent again. Also returns the time to answer: from
    /// sending the last attempt to its answer (or failure), no wait included.
    pub(crate) fn post(
        &self,
        body: &Value,
        pacer: &Pacer,
        read: ReadAnswer,
    ) -> (Result<Answer, ProviderError>, Duration) {
        self.post_at(&self.url, body, pacer, read)
    }

    /// [`HttpApi::post`] to `url`, for an API whose URL depends on the request (the model in
    /// the path: Gemini's `…/models/MODEL:generateContent`, Bedrock's `…/model/ID/converse`).
    pub(crate) fn post_at(
        &self,
        url: &str,
        body: &Value,
        pacer: &Pacer,
        read: ReadAnswer,
    ) -> (Result<Answer, ProviderError>, Duration) {
        let bytes = bigint::to_vec(body).unwrap_or_default();
        let interrupted = || Err(ProviderError::Transient("interrupted".into()));
        let mut retries = 0;
        let mut bad_bodies = 0;
        let mut again = false;
        loop {
            pacer.wait_turn();
            let Some(slot) = pacer.slot(again).filter(|_| !pacer.stopped()) else {
                return (interrupted(), Duration::ZERO);
            };
            let started = Instant::now();
            let attempt = self.attempt(url, &bytes, pacer, read);
            let took = started.elapsed();
            let crowded = pacer.done(slot, attempt.outcome());
            again = true;
            let (why, wait, everyone) = match attempt {
                Attempt::Done(answer) => return (Ok(answer), took),
                Attempt::Fatal(m) => return (Err(ProviderError::Fatal(self.redact(m))), took),
                Attempt::Stop(m) => return (Err(ProviderError::Transient(self.redact(m))), took),
                Attempt::BadBody(m) => {
                    // Retried once: a proxy's error page can be a hiccup, but an endpoint
                    // that is not the API answers the same every time.
                    bad_bodies += 1;
                    if bad_bodies > 1 {
                        let m = self.redact(after(m, retries));
                        return (Err(ProviderError::Transient(m)), took);
                    }
                    (m, None, false)
                }
                // The window was lowered for it: it waits for room there, not for a backoff.
                Attempt::Retry { .. } if crowded => continue,
                Attempt::Retry {
                    why,
                    wait,
                    everyone,
                    ..
                } => (why, wait, everyone),
            };
            if retries >= pacer.policy().max_retries {
                let m = self.redact(after(why, retries));
                return (Err(ProviderError::Transient(m)), took);
            }
            let wait = wait.unwrap_or_else(|| pacer.backoff(retries));
            if !pacer.back_off(wait, &self.redact(why.clone()).message, everyone) {
                return (interrupted(), took);
            }
            retries += 1;
        }
    }

    /// One request to another endpoint of the same API (the batch endpoints), with the same
    /// key and headers: a GET, or a POST of `body` (content type and bytes). Retried as the
    /// pacer says (429, 5xx, a dropped connection); the 2xx body as text, or why there is none.
    pub(super) fn exchange(
        &self,
        url: &str,
        body: Option<(&str, &[u8])>,
        pacer: &Pacer,
        limit: u64,
    ) -> Result<String, ProviderError> {
        let mut retries = 0;
        loop {
            let attempt = self.exchange_once(url, body, pacer.policy().request_timeout, limit);
            let (why, wait, everyone) = match attempt {
                Exchanged::Done(text) => return Ok(text),
                Exchanged::Failed(Attempt::Retry {
                    why,
                    wait,
                    everyone,
                    ..
                }) => (why, wait, everyone),
                Exchanged::Failed(Attempt::Fatal(m)) => {
                    return Err(ProviderError::Fatal(self.redact(m)));
                }
                Exchanged::Failed(Attempt::Stop(m) | Attempt::BadBody(m)) => {
                    return Err(ProviderError::Transient(self.redact(m)));
                }
                Exchanged::Failed(Attempt::Done(_)) => {
                    return Err(ProviderError::Transient("unexpected answer".into()));
                }
            };
            if retries >= pacer.policy().max_retries {
                return Err(ProviderError::Transient(self.redact(after(why, retries))));
            }
            let wait = wait.unwrap_or_else(|| pacer.backoff(retries));
            if !pacer.back_off(wait, &self.redact(why.clone()).message, everyone) {
                return Err(ProviderError::Transient("interrupted".into()));
            }
            retries += 1;
        }
    }

    fn exchange_once(
        &self,
        url: &str,
        body: Option<(&str, &[u8])>,
        timeout: Duration,
        limit: u64,
    ) -> Exchanged {
        let sent = match body {
            Some((content_type, bytes)) => self
                .authorized(self.agent.post(url), "POST", url, content_type, bytes)
                .config()
                .timeout_global(Some(timeout))
                .build()
                .send(bytes),
            None => self
                .authorized(self.agent.get(url), "GET", url, "", &[])
                .config()
                .timeout_global(Some(timeout))
                .build()
                .call(),
        };
        let mut resp = match sent {
            Ok(r) => r,
            Err(e) => return Exchanged::Failed(self.transport_error(e, timeout)),
        };
        let status = resp.status().as_u16();
        let (should, wait) = retry_hints(&resp);
        let headers = headers_of(&resp, status);
        let text = match resp.body_mut().with_config().limit(limit).read_to_string() {
            Ok(t) => t,
            Err(e) => return Exchanged::Failed(self.transport_error(e, timeout)),
        };
        if (200..300).contains(&status) {
            return Exchanged::Done(text);
        }
        Exchanged::Failed(self.refusal(status, &text, &headers, should, wait))
    }

    /// `req` with its content type (unless empty), the key or signature, and the API's
    /// headers. A [`Signer`] sees every other header and the exact body bytes.
    fn authorized<B>(
        &self,
        mut req: ureq::RequestBuilder<B>,
        method: &str,
        url: &str,
        content_type: &str,
        body: &[u8],
    ) -> ureq::RequestBuilder<B> {
        let mut sent: Vec<(&str, &str)> = vec![("accept", "application/json")];
        if !content_type.is_empty() {
            sent.push(("content-type", content_type));
        }
        sent.extend(self.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        for (name, value) in &sent {
            req = req.header(*name, *value);
        }
        match &self.auth {
            Auth::Bearer(k) => req.header("authorization", format!("Bearer {k}")),
            Auth::Header(name, k) => req.header(*name, k.as_str()),
            Auth::Signed(signer) => {
                let signing = Signing {
                    method,
                    url,
                    body,
                    now: SystemTime::now(),
                };
                for (name, value) in signer.sign(&signing) {
                    req = req.header(name, value);
                }
                req
            }
            Auth::None => req,
        }
    }

    fn attempt(&self, url: &str, body: &[u8], pacer: &Pacer, read: ReadAnswer) -> Attempt {
        let timeout = pacer.policy().request_timeout;
        let req = self
            .agent
            .post(url)
            .config()
            .timeout_global(Some(timeout))
            .build();
        let req = self.authorized(req, "POST", url, "application/json", body);
        let mut resp = match req.send(body) {
            Ok(r) => r,
            Err(e) => return self.transport_error(e, timeout),
        };
        let status = resp.status().as_u16();
        let (should, wait) = retry_hints(&resp);
        let headers = headers_of(&resp, status);
        let location = header(&resp, "location");
        let text = match resp
            .body_mut()
            .with_config()
            .limit(BODY_LIMIT)
            .read_to_string()
        {
            Ok(t) => t,
            Err(e) => return self.transport_error(e, timeout),
        };
        if (200..300).contains(&status) {
            return self.answer(status, &text, read);
        }
        if (300..400).contains(&status) {
            let words = crate::net::redirect_words(url, location.as_deref());
            let body = if text.trim().is_empty() {
                String::new()
            } else {
                format!(": {}", quote(&text))
            };
            return Attempt::Fatal(Failure {
                message: format!("{} returned {status}, {words}{body}", self.who),
                hint: self.hint_for(status),
            });
        }
        self.refusal(status, &text, &headers, should, wait)
    }

    /// A 2xx answer: the API's answer, or a body that is not one.
    fn answer(&self, status: u16, text: &str, read: ReadAnswer) -> Attempt {
        // Integers beyond 64 bits in the model's arguments keep their digits for the cache.
        match crate::pycompat::bigint::from_str(text) {
            Err(_) => Attempt::BadBody(Failure::with_hint(
                format!(
                    "{} answered {status} with a body that is not JSON: {}",
                    self.who,
                    quote_body(text)
                ),
                format!("check {} (it must point at the API)", self.base_var),
            )),
            Ok(v) => match read(&v) {
                Ok(answer) => Attempt::Done(answer),
                Err(what) => Attempt::BadBody(
                    format!(
                        "{} answered {status} but not in its API's format: {what}",
                        self.who
                    )
                    .into(),
                ),
            },
        }
    }

    /// Any other status: retried when the status (or `x-should-retry`) says so, else fatal
    /// with what to check.
    fn refusal(
        &self,
        status: u16,
        text: &str,
        headers: &[(String, String)],
        should: Option<bool>,
        wait: Option<Duration>,
    ) -> Attempt {
        let parsed = serde_json::from_str::<Value>(text).ok();
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let described = format!(
            "{} returned {}",
            self.who,
            self.dialect
                .describe(status, parsed.as_ref(), text, &header)
        );
        let wait = wait.or_else(|| self.dialect.retry_wait(parsed.as_ref()));
        if status == 429 && parsed.as_ref().is_some_and(quota_exhausted) {
            return Attempt::Fatal(Failure::with_hint(described, OUT_OF_CREDIT));
        }
        let retryable = retry::retryable_status(status);
        match should {
            Some(true) => {}
            Some(false) if retryable => return Attempt::Stop(described.into()),
            _ if retryable => {}
            _ => {
                let hint = self
                    .dialect
                    .hint(status, parsed.as_ref(), &header)
                    .or_else(|| self.hint_for(status));
                return Attempt::Fatal(Failure {
                    message: described,
                    hint,
                });
            }
        }
        Attempt::Retry {
            why: described.into(),
            wait,
            everyone: retry::slows_everyone(status),
            outcome: Outcome::Answered,
        }
    }

    fn transport_error(&self, e: ureq::Error, timeout: Duration) -> Attempt {
        let who = self.who;
        let late = || format!("{who} did not answer within {}", secs(timeout));
        let (why, everyone, outcome) = match e {
            ureq::Error::Timeout(_) => (late(), false, Outcome::TimedOut),
            ureq::Error::BadUri(_) | ureq::Error::Http(_) => {
                return Attempt::Fatal(Failure::with_hint(
                    format!("{who}: `{}` is not a usable URL", self.url),
                    format!("check {}", self.base_var),
                ));
            }
            ureq::Error::HostNotFound => (
                format!("{who}: host not found for {}", self.url),
                true,
                Outcome::Neither,
            ),
            ureq::Error::ConnectionFailed => (
                format!("{who}: could not connect to {}", self.url),
                true,
                Outcome::Neither,
            ),
            ureq::Error::Io(io) => {
                use std::io::ErrorKind::*;
                match io.kind() {
                    ConnectionRefused => (
                        format!("{who}: connection refused by {}", self.url),
                        true,
                        Outcome::Neither,
                    ),
                    TimedOut | WouldBlock => (late(), false, Outcome::TimedOut),
                    _ => (
                        format!("{who}: connection failed: {io}"),
                        false,
                        Outcome::Neither,
                    ),
                }
            }
            ureq::Error::BodyExceedsLimit(n) => (
                format!("{who} sent an answer larger than {} MiB", n >> 20),
                false,
                Outcome::Answered,
            ),
            other => (
                format!("{who}: connection failed: {other}"),
                false,
                Outcome::Neither,
            ),
        };
        Attempt::Retry {
            why: why.into(),
            wait: None,
            everyone,
            outcome,
        }
    }

    /// What to check after a status that retrying cannot fix.
    fn hint_for(&self, status: u16) -> Option<String> {
        let hint = match status {
            401 => format!("check {}", self.key_var),
            403 => "the key has no access to this model or endpoint".to_owned(),
            404 => format!(
                "check the model name (evals.model, --model) and {}",
                self.base_var
            ),
            400 | 422 => "check evals.params and the model name: params are sent as given".into(),
            402 => OUT_OF_CREDIT.into(),
            413 => "the request is too large: the tool list is sent with every case".into(),
            300..=399 => format!(
                "the server redirects instead of answering; check {} (http or https, the /v1 part)",
                self.base_var
            ),
            _ => return None,
        };
        Some(hint)
    }

    /// Removes the key from a failure, wherever a server may have echoed it.
    fn redact(&self, failure: Failure) -> Failure {
        let secret = self.auth.secret();
        let clean = |text: String| {
            if secret.len() >= 4 && text.contains(secret) {
                text.replace(secret, "[redacted]")
            } else {
                text
            }
        };
        Failure {
            message: clean(failure.message),
            hint: failure.hint.map(clean),
        }
    }
}

/// The failure with `(after 4 retries)` added to its message.
fn after(mut failure: Failure, retries: u32) -> Failure {
    match retries {
        0 => {}
        1 => failure.message.push_str(" (after 1 retry)"),
        n => failure.message.push_str(&format!(" (after {n} retries)")),
    }
    failure
}

/// `120s`, `0.25s`.
pub(super) fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s}s")
    }
}

/// A response header as text.
fn header(resp: &ureq::http::Response<ureq::Body>, name: &str) -> Option<String> {
    resp.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The headers of a refusal (none of a 2xx answer), for its [`Dialect`].
fn headers_of(resp: &ureq::http::Response<ureq::Body>, status: u16) -> Vec<(String, String)> {
    if (200..300).contains(&status) {
        return Vec::new();
    }
    resp.headers()
        .iter()
        .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect()
}

/// What a response says about trying again: `x-should-retry`, and the wait of
/// `retry-after-ms` / `retry-after`.
fn retry_hints(resp: &ureq::http::Response<ureq::Body>) -> (Option<bool>, Option<Duration>) {
    let should = retry::should_retry(header(resp, "x-should-retry").as_deref());
    let wait = crate::net::retry_after(
        header(resp, "retry-after-ms").as_deref(),
        header(resp, "retry-after").as_deref(),
        SystemTime::now(),
    );
    (should, wait)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_shown_short() {
        assert_eq!(secs(Duration::from_secs(120)), "120s");
        assert_eq!(secs(Duration::from_millis(250)), "0.25s");
    }
}
