//! Posting the pull-request comment: the one network call after a run, made once every report
//! is written. A comment that cannot be posted is a warning; the run's exit code stands.

use std::path::PathBuf;

use crate::github::{self, Client, GithubError, Upserted};
use crate::interrupt::Interrupt;
use crate::outcome::RunReport;
use crate::report::markdown::pr_comment::{self, PrContext};
use crate::settings::{PrComment, PrCommentMode};

/// Finds, updates or creates the comment for `report`, whose run exits with `code`; a signal
/// ends the waits between retries. `Ok` is the console line that says what happened; `Err` the
/// warning that says why nothing was.
pub(crate) fn comment(
    settings: &PrComment,
    report: &RunReport,
    code: i32,
    interrupt: &Interrupt,
) -> Result<String, String> {
    let ctx = PrContext {
        run_url: settings.run_url(),
    };
    let body = pr_comment::render(report, &ctx);
    let create = wanted(settings.mode(), report, code);
    match upsert(settings, report, &body, create, interrupt) {
        Ok((pr, Upserted::Updated(_))) => Ok(format!("PR comment updated on #{pr}")),
        Ok((pr, Upserted::Created(_))) => Ok(format!("PR comment posted on #{pr}")),
        Ok((_, Upserted::NotNeeded)) => Ok(format!(
            "PR comment not needed (--pr-comment {}: the run passed{})",
            settings.mode().as_str(),
            if settings.mode() == PrCommentMode::OnChange {
                " and nothing changed against the base branch"
            } else {
                ""
            }
        )),
        Err(e) => {
            let hint = e.hint().map(|h| format!("\nhint: {h}")).unwrap_or_default();
            Err(format!("could not post the PR comment: {e}{hint}"))
        }
    }
}

/// Whether a comment should be created when there is none yet (one that exists is always
/// updated): `always`; `on-failure` when the run failed; `on-change` when it failed or anything
/// changed against the base branch.
pub(crate) fn wanted(mode: PrCommentMode, report: &RunReport, code: i32) -> bool {
    let changed = report
        .history
        .as_ref()
        .and_then(|h| h.base.as_ref())
        .is_some_and(|b| b.changed());
    match mode {
        PrCommentMode::Off => false,
        PrCommentMode::Always => true,
        PrCommentMode::OnFailure => code != 0,
        PrCommentMode::OnChange => code != 0 || changed,
    }
}

/// Finds, updates or creates the comment; returns the pull request's number and what happened.
fn upsert(
    settings: &PrComment,
    report: &RunReport,
    body: &str,
    create: bool,
    interrupt: &Interrupt,
) -> Result<(u64, Upserted), GithubError> {
    let token = settings.token().ok_or(GithubError::NoToken)?;
    let repo = settings.repository().ok_or(GithubError::NoRepository)?;
    let pr = github::pr_number(settings.event_path().map(PathBuf::as_path))?;
    let client = Client::new(settings.api_url(), token.expose(), repo)?.stop_on(interrupt.clone());
    let marker = pr_comment::marker(report);
    client.upsert(pr, &marker, body, create).map(|u| (pr, u))
}
