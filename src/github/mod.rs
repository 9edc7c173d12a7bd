//! The GitHub REST API, as far as toolproof needs it: find its own pull-request comment by a
//! hidden marker (following the pages of comments), update it, or create it, so a pull request
//! never gets a second one. Blocking `ureq`; server errors and rate limits are retried as
//! [`retry`] says. The token travels in the `Authorization` header only and is scrubbed from
//! every message.

mod event;
mod retry;

use std::fmt;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use ureq::Agent;

pub(crate) use event::pr_number;
pub(crate) use retry::RetryPolicy;
use retry::{Limits, Verdict, classify};

use crate::interrupt::Interrupt;
use crate::report::escape::one_line;

/// Most pages of comments read (100 each) before giving up the search.
const MAX_PAGES: u32 = 100;
/// Longest part of GitHub's message quoted in an error.
const QUOTE: usize = 300;
/// Budget of one request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the comment could not be posted. Every one is a warning: the run's verdict stands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GithubError {
    /// No `GITHUB_TOKEN`.
    #[error("GITHUB_TOKEN is not set")]
    NoToken,
    /// No usable `GITHUB_REPOSITORY`.
    #[error("GITHUB_REPOSITORY is not set to owner/repo")]
    NoRepository,
    /// No pull request to comment on.
    #[error("no pull request to comment on: {0}")]
    NoPullRequest(String),
    /// 403 that is not a rate limit: a read-only token.
    #[error("GitHub refused to {what} (403): {message}")]
    Forbidden {
        /// What was attempted.
        what: &'static str,
        /// GitHub's message.
        message: String,
    },
    /// 401.
    #[error("GitHub did not accept the token (401): {message}")]
    Unauthorized {
        /// GitHub's message.
        message: String,
    },
    /// 404: the repository, the pull request or the comment is not there (or not visible).
    #[error("GitHub could not find what it was asked to {what} (404): {message}")]
    NotFound {
        /// What was attempted.
        what: &'static str,
        /// GitHub's message.
        message: String,
    },
    /// Another answer that a retry would not change.
    #[error("GitHub answered {status} when asked to {what}: {message}")]
    Status {
        /// What was attempted.
        what: &'static str,
        /// HTTP status.
        status: u16,
        /// GitHub's message.
        message: String,
    },
    /// A rate limit that lasts longer than toolproof waits.
    #[error("GitHub is limiting requests for another {}s, longer than toolproof waits", .wait.as_secs())]
    RateLimited {
        /// How long GitHub asked to wait.
        wait: Duration,
    },
    /// Still failing after every retry.
    #[error("could not {what} after {attempts} attempts: {last}")]
    GaveUp {
        /// What was attempted.
        what: &'static str,
        /// Requests sent.
        attempts: u32,
        /// The last failure.
        last: String,
    },
    /// A signal stopped toolproof while it waited to ask again.
    #[error("stopped by {signal} while waiting to {what} again")]
    Interrupted {
        /// What was attempted.
        what: &'static str,
        /// The signal (`SIGINT`, `SIGTERM`).
        signal: &'static str,
    },
    /// An answer that is not what the API returns.
    #[error("unexpected answer when asked to {what}: {message}")]
    BadAnswer {
        /// What was attempted.
        what: &'static str,
        /// What is wrong with it.
        message: String,
    },
}

impl GithubError {
    /// What to do about it, when there is something to do.
    pub(crate) fn hint(&self) -> Option<&'static str> {
        match self {
            GithubError::NoToken => Some(
                "pass the token to the step (env: GITHUB_TOKEN: ${{ github.token }}) and grant `permissions: pull-requests: write`",
            ),
            GithubError::NoRepository | GithubError::NoPullRequest(_) => Some(
                "the PR comment is posted from a pull_request workflow run; elsewhere use --pr-comment-file",
            ),
            GithubError::Forbidden { .. } => Some(
                "the token is read-only here (a pull request from a fork, or no `pull-requests: write` permission): write the body with --pr-comment-file and post it from a `workflow_run` workflow",
            ),
            GithubError::NotFound { .. } => Some(
                "check GITHUB_REPOSITORY, GITHUB_API_URL and the event's pull request number, and that the token can see the repository",
            ),
            GithubError::Unauthorized { .. } => Some("check GITHUB_TOKEN"),
            _ => None,
        }
    }
}

/// What happened to the comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Upserted {
    /// The existing comment (this id) was updated.
    Updated(u64),
    /// A new comment (this id) was posted.
    Created(u64),
    /// There was none, and none was wanted.
    NotNeeded,
}

/// A client of one repository's API. The token is never shown (not even by `Debug`).
pub(crate) struct Client {
    agent: Agent,
    api: String,
    token: String,
    repo: String,
    policy: RetryPolicy,
    /// Ends the waits between retries early.
    interrupt: Interrupt,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("api", &self.api)
            .field("repo", &self.repo)
            .finish_non_exhaustive()
    }
}

/// One answer: status, the `Link` header, the body as JSON.
struct Answer {
    link: Option<String>,
    body: Value,
}

impl Client {
    /// A client of `repo` (`owner/name`) at `api` (no trailing `/`) with `token`.
    pub(crate) fn new(api: &str, token: &str, repo: &str) -> Result<Client, GithubError> {
        let valid = repo.split_once('/').is_some_and(|(owner, name)| {
            let ok = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            };
            ok(owner) && ok(name)
        });
        if !valid {
            return Err(GithubError::NoRepository);
        }
        let config = crate::net::agent_config(api)
            .max_redirects(0)
            .timeout_global(Some(REQUEST_TIMEOUT));
        Ok(Client {
            agent: config.build().into(),
            api: api.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
            repo: repo.to_owned(),
            policy: RetryPolicy::default(),
            interrupt: Interrupt::new(),
        })
    }

    /// From now on, a wait between retries ends when `interrupt` fires (the request is not
    /// sent again).
    #[must_use]
    pub(crate) fn stop_on(mut self, interrupt: Interrupt) -> Client {
        self.interrupt = interrupt;
        self
    }

    #[cfg(test)]
    /// The same client with another retry policy.
    pub(crate) fn with_policy(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Updates the comment of pull request `pr` that holds `marker`, else posts one when
    /// `create` says so.
    pub(crate) fn upsert(
        &self,
        pr: u64,
        marker: &str,
        body: &str,
        create: bool,
    ) -> Result<Upserted, GithubError> {
        match self.find_comment(pr, marker)? {
            Some(id) => self
                .update_comment(id, body)
                .map(|()| Upserted::Updated(id)),
            None if create => self.create_comment(pr, body).map(Upserted::Created),
            None => Ok(Upserted::NotNeeded),
        }
    }

    /// The id of the first comment of pull request `pr` whose body holds `marker`.
    pub(crate) fn find_comment(&self, pr: u64, marker: &str) -> Result<Option<u64>, GithubError> {
        let first = format!(
            "{}/repos/{}/issues/{pr}/comments?per_page=100&page=1",
            self.api, self.repo
        );
        let mut url = Some(first);
        let mut pages = 0;
        while let Some(next) = url.take() {
            pages += 1;
            let answer = self.send("GET", &next, None, "list the pull request's comments")?;
            let comments = answer
                .body
                .as_array()
                .ok_or_else(|| GithubError::BadAnswer {
                    what: "list the pull request's comments",
                    message: "the comments are not a JSON array".into(),
                })?;
            let found = comments
                .iter()
                .find(|c| c["body"].as_str().is_some_and(|body| body.contains(marker)));
            if let Some(comment) = found {
                return comment["id"]
                    .as_u64()
                    .map(Some)
                    .ok_or_else(|| GithubError::BadAnswer {
                        what: "list the pull request's comments",
                        message: "the comment has no numeric id".into(),
                    });
            }
            // Only a next page on the same API is followed: the token goes nowhere else.
            url = answer
                .link
                .as_deref()
                .and_then(next_link)
                .filter(|n| n.starts_with(&format!("{}/", self.api)) && pages < MAX_PAGES);
        }
        Ok(None)
    }

    /// Replaces the body of comment `id`.
    pub(crate) fn update_comment(&self, id: u64, body: &str) -> Result<(), GithubError> {
        let url = format!("{}/repos/{}/issues/comments/{id}", self.api, self.repo);
        self.send(
            "PATCH",
            &url,
            Some(&json!({ "body": body })),
            "update the comment",
        )
        .map(|_| ())
    }

    /// Posts a comment on pull request `pr` and returns its id.
    pub(crate) fn create_comment(&self, pr: u64, body: &str) -> Result<u64, GithubError> {
        let url = format!("{}/repos/{}/issues/{pr}/comments", self.api, self.repo);
        let answer = self.send(
            "POST",
            &url,
            Some(&json!({ "body": body })),
            "comment on the pull request",
        )?;
        answer["id"].as_u64().ok_or_else(|| GithubError::BadAnswer {
            what: "comment on the pull request",
            message: "the new comment has no numeric id".into(),
        })
    }

    /// Posts a review comment on `line` of `path` at `commit` of pull request `pr`
    /// (`toolproof tune --suggest`).
    pub(crate) fn create_review_comment(
        &self,
        pr: u64,
        commit: &str,
        (path, line): (&str, usize),
        body: &str,
    ) -> Result<(), GithubError> {
        let url = format!("{}/repos/{}/pulls/{pr}/comments", self.api, self.repo);
        let fields =
            json!({"body": body, "commit_id": commit, "path": path, "line": line, "side": "RIGHT"});
        self.send(
            "POST",
            &url,
            Some(&fields),
            "comment on the pull request's diff",
        )
        .map(|_| ())
    }

    /// Sends one request until it succeeds, fails for good, or runs out of retries.
    fn send(
        &self,
        method: &str,
        url: &str,
        body: Option<&Value>,
        what: &'static str,
    ) -> Result<Answer, GithubError> {
        let mut retry = 0;
        loop {
            let (wait, last) = match self.attempt(method, url, body) {
                Err(transport) => (None, transport),
                Ok((status, limits, answer)) => {
                    match classify(status, &limits, &self.policy, SystemTime::now()) {
                        Verdict::Done => return Ok(answer),
                        Verdict::Fail => return Err(self.refusal(status, &answer.body, what)),
                        Verdict::TooLong(wait) => return Err(GithubError::RateLimited { wait }),
                        Verdict::Retry(wait) => {
                            (wait, format!("{status} {}", message(&answer.body)))
                        }
                    }
                }
            };
            if retry >= self.policy.max_retries {
                return Err(GithubError::GaveUp {
                    what,
                    attempts: retry + 1,
                    last: self.scrub(&last),
                });
            }
            if !self
                .interrupt
                .sleep(wait.unwrap_or_else(|| self.policy.backoff(retry)))
            {
                let signal = self.interrupt.signal().map_or("a signal", |s| s.name());
                return Err(GithubError::Interrupted { what, signal });
            }
            retry += 1;
        }
    }

    /// One request: the status, the rate-limit headers and the answer, or why nothing came.
    fn attempt(
        &self,
        method: &str,
        url: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Limits, Answer), String> {
        let auth = format!("Bearer {}", self.token);
        let sent = match (method, body) {
            ("GET", _) => self
                .agent
                .get(url)
                .header("authorization", &auth)
                .header("accept", "application/vnd.github+json")
                .header("x-github-api-version", "2022-11-28")
                .call(),
            (_, body) => {
                let builder = if method == "PATCH" {
                    self.agent.patch(url)
                } else {
                    self.agent.post(url)
                };
                builder
                    .header("authorization", &auth)
                    .header("accept", "application/vnd.github+json")
                    .header("x-github-api-version", "2022-11-28")
                    .send_json(body.unwrap_or(&Value::Null))
            }
        };
        let mut resp = sent.map_err(|e| self.scrub(&format!("no answer from {url}: {e}")))?;
        let status = resp.status().as_u16();
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let limits = Limits {
            retry_after: header("retry-after"),
            remaining: header("x-ratelimit-remaining"),
            reset: header("x-ratelimit-reset"),
        };
        let link = header("link");
        let text = resp
            .body_mut()
            .with_config()
            .limit(32 << 20)
            .read_to_string()
            .map_err(|e| self.scrub(&format!("the answer from {url} could not be read: {e}")))?;
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Ok((status, limits, Answer { link, body }))
    }

    /// The error for a final non-2xx answer.
    fn refusal(&self, status: u16, body: &Value, what: &'static str) -> GithubError {
        let message = self.scrub(&message(body));
        match status {
            401 => GithubError::Unauthorized { message },
            403 => GithubError::Forbidden { what, message },
            404 => GithubError::NotFound { what, message },
            status => GithubError::Status {
                what,
                status,
                message,
            },
        }
    }

    /// `text` without the token in it, by the rule every report follows: a value too short to
    /// be a secret is left alone, since masking it would garble ordinary words.
    fn scrub(&self, text: &str) -> String {
        crate::report::redact::Redactor::new(std::slice::from_ref(&self.token))
            .apply(text)
            .into_owned()
    }
}

impl std::ops::Index<&str> for Answer {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        &self.body[key]
    }
}

/// GitHub's `message`, else the body, on one line.
fn message(body: &Value) -> String {
    let text = match body {
        Value::Object(o) => o
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| body.to_string(), str::to_owned),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let line = one_line(&text, QUOTE);
    if line.is_empty() {
        "(no message)".into()
    } else {
        line
    }
}

/// The `rel="next"` URL of a `Link` header.
fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let is_next = params
            .split(';')
            .any(|p| p.trim().replace(' ', "") == "rel=\"next\"");
        is_next.then(|| {
            url.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_owned()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_page_comes_from_the_link_header() {
        let header = "<https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=2>; rel=\"next\", <https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=3>; rel=\"last\"";
        assert_eq!(
            next_link(header).as_deref(),
            Some("https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=2")
        );
        let last = "<https://x/a?page=1>; rel=\"prev\", <https://x/a?page=1>; rel=\"first\"";
        assert_eq!(next_link(last), None);
    }

    #[test]
    fn repositories_must_be_owner_slash_name() {
        for bad in ["", "owner", "owner/", "/repo", "a/b/c", "a b/c", "o/r?x"] {
            let err = Client::new("http://127.0.0.1:1", "t", bad).err();
            assert_eq!(err, Some(GithubError::NoRepository), "{bad}");
        }
        assert!(Client::new("http://127.0.0.1:1", "t", "octo-org/my.repo_2").is_ok());
    }

    #[test]
    fn messages_quote_github_and_never_the_token() {
        let client = Client::new("http://127.0.0.1:1", "ghs_secret", "o/r");
        let err = client.map(|c| {
            c.refusal(
                403,
                &json!({"message": "Resource not accessible by integration ghs_secret"}),
                "comment on the pull request",
            )
        });
        let text = err.as_ref().map(ToString::to_string).unwrap_or_default();
        assert_eq!(
            text,
            "GitHub refused to comment on the pull request (403): Resource not accessible by integration ***"
        );
        assert!(err.is_ok_and(|e| e.hint().is_some_and(|h| h.contains("--pr-comment-file"))));
        assert_eq!(message(&json!("")), "(no message)");
        assert_eq!(message(&json!({"a": 1})), "{\"a\":1}");
    }

    /// A port on this machine that nothing listens on.
    fn closed_port() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").ok();
        listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
            .map_or(1, |a| a.port())
    }

    #[test]
    fn a_closed_port_gives_up_after_the_retries_without_the_token() {
        let port = closed_port();
        let quick = RetryPolicy {
            max_retries: 1,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(1),
            longest_wait: Duration::from_secs(1),
        };
        let client = Client::new(&format!("http://127.0.0.1:{port}"), "ghs_secret", "o/r")
            .map(|c| c.with_policy(quick));
        let err = client.and_then(|c| c.find_comment(7, "<!-- m -->"));
        match err {
            Err(GithubError::GaveUp { attempts, last, .. }) => {
                assert_eq!(attempts, 2);
                assert!(
                    !last.contains("ghs_secret") && last.contains("no answer"),
                    "{last}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_signal_ends_the_wait_between_retries() {
        let port = closed_port();
        let interrupt = Interrupt::new();
        interrupt.fire(crate::interrupt::Signal::Int);
        let client = Client::new(&format!("http://127.0.0.1:{port}"), "t", "o/r")
            .map(|c| c.stop_on(interrupt));
        match client.and_then(|c| c.find_comment(7, "<!-- m -->")) {
            Err(e @ GithubError::Interrupted { .. }) => assert!(
                e.to_string()
                    .starts_with("stopped by SIGINT while waiting to "),
                "{e}"
            ),
            other => panic!("{other:?}"),
        }
    }
}
