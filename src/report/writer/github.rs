//! The writer's last step under GitHub Actions, after the reports: the step outputs are
//! appended to `$GITHUB_OUTPUT` (never truncated: other steps write there too), then the
//! pull-request comment is written to `--pr-comment-file` or posted. A comment that cannot be
//! posted is a warning on stderr and a line in the console; the run's exit code stands.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Dest, DestinationError, ReportWriter, check, to_stderr};
use crate::github::{self, Client, GithubError, Upserted};
use crate::report::annotations;
use crate::report::markdown::pr_comment::{self, PrContext};
use crate::report::model::RunReport;
use crate::report::step_outputs::{self, Written};
use crate::settings::{Github, PrComment, PrCommentMode};

/// The checked GitHub destinations of one run.
#[derive(Debug, Default)]
pub(super) struct GithubJobs {
    /// `$GITHUB_OUTPUT`, as given and as checked.
    outputs: Option<(PathBuf, Dest)>,
    /// The pull-request comment, when one is wanted.
    comment: Option<CommentJob>,
}

/// The pull-request comment: its settings and the checked `--pr-comment-file`.
#[derive(Debug)]
struct CommentJob {
    settings: PrComment,
    file: Option<(PathBuf, Dest)>,
}

impl GithubJobs {
    /// Checks `$GITHUB_OUTPUT` and `--pr-comment-file` before the run, like every report.
    pub(super) fn prepare(
        github: &Github,
        stdout_id: Option<(u64, u64)>,
    ) -> Result<GithubJobs, DestinationError> {
        let checked =
            |what, path: &PathBuf| check(what, path, stdout_id).map(|dest| (path.clone(), dest));
        let outputs = github
            .output()
            .map(|p| checked("step outputs", p))
            .transpose()?;
        let pr = github.pr_comment();
        let comment = if pr.wanted() {
            Some(CommentJob {
                settings: pr.clone(),
                file: pr.file().map(|p| checked("PR comment", p)).transpose()?,
            })
        } else {
            None
        };
        Ok(GithubJobs { outputs, comment })
    }
}

/// Notes the path of a report that was written to a file, under its output name.
pub(super) fn note_written(written: &mut Written, what: &str, shown: &Path) {
    let slot = match what {
        "JUnit report" => &mut written.junit,
        "JSON report" => &mut written.json,
        "HTML report" => &mut written.html,
        "Markdown summary" => &mut written.summary,
        _ => return,
    };
    *slot = Some(shown.display().to_string());
}

impl ReportWriter {
    /// Appends the step outputs, then delivers the comment; returns the exit code (1 when the
    /// step outputs could not be written, unless the run was interrupted).
    pub(super) fn github_steps(
        &mut self,
        report: &RunReport,
        mut code: i32,
        written: &Written,
        console_to_stderr: bool,
    ) -> i32 {
        if let Some((shown, dest)) = self.github.outputs.take() {
            let seed = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
                ^ u64::from(std::process::id()).rotate_left(32);
            let text = step_outputs::format(&step_outputs::outputs(report, code, written), seed);
            if let Err(e) = self.write_to(&dest, true, &text) {
                to_stderr(&format!(
                    "error: could not write the step outputs to {}: {e}",
                    shown.display()
                ));
                if report.interrupted.is_none() {
                    code = code.max(crate::exit::EXIT_FAILED);
                }
            }
        }
        if let Some(job) = self.github.comment.take() {
            let line = self.comment(&job, report, code);
            if let Some(line) = line {
                self.human(&format!("{line}\n"), console_to_stderr);
            }
        }
        code
    }

    /// Writes or posts the comment; returns the console line that says what happened.
    fn comment(&mut self, job: &CommentJob, report: &RunReport, code: i32) -> Option<String> {
        let ctx = PrContext {
            run_url: job.settings.run_url(),
        };
        let body = pr_comment::render(report, &ctx);
        if let Some((shown, dest)) = &job.file {
            return Some(match self.write_to(dest, false, &body) {
                Ok(()) => format!("PR comment written to {}", shown.display()),
                Err(e) => {
                    to_stderr(&format!(
                        "warning: could not write the PR comment to {}: {e}",
                        shown.display()
                    ));
                    "PR comment not written (see the warning on stderr)".into()
                }
            });
        }
        if report.interrupted.is_some() {
            return Some("PR comment not posted: the run was interrupted".into());
        }
        let create = wanted(job.settings.mode(), report, code);
        match post(&job.settings, report, &body, create) {
            Ok((pr, Upserted::Updated(_))) => Some(format!("PR comment updated on #{pr}")),
            Ok((pr, Upserted::Created(_))) => Some(format!("PR comment posted on #{pr}")),
            Ok((_, Upserted::NotNeeded)) => Some(format!(
                "PR comment not needed (--pr-comment {}: the run passed{})",
                job.settings.mode().as_str(),
                if job.settings.mode() == PrCommentMode::OnChange {
                    " and nothing changed against the base branch"
                } else {
                    ""
                }
            )),
            Err(e) => {
                // Said once: as a warning the Actions UI shows, or as a warning line.
                let hint = e.hint().map(|h| format!("\nhint: {h}")).unwrap_or_default();
                let message = format!("could not post the PR comment: {e}{hint}");
                if self.annotations {
                    to_stderr(&annotations::warning_command(
                        "toolproof PR comment",
                        &message,
                    ));
                } else {
                    to_stderr(&format!("warning: {message}"));
                }
                None
            }
        }
    }
}

/// Whether a comment should be created when there is none yet (one that exists is always
/// updated): `always`; `on-failure` when the run failed; `on-change` when it failed or anything
/// changed against the base branch.
pub(super) fn wanted(mode: PrCommentMode, report: &RunReport, code: i32) -> bool {
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
fn post(
    settings: &PrComment,
    report: &RunReport,
    body: &str,
    create: bool,
) -> Result<(u64, Upserted), GithubError> {
    let token = settings.token().ok_or(GithubError::NoToken)?;
    let repo = settings.repository().ok_or(GithubError::NoRepository)?;
    let pr = github::pr_number(settings.event_path().map(PathBuf::as_path))?;
    let client = Client::new(settings.api_url(), token.expose(), repo)?;
    let marker = pr_comment::marker(report);
    client.upsert(pr, &marker, body, create).map(|u| (pr, u))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    #[test]
    fn modes_decide_whether_a_missing_comment_is_created() {
        let changed = fixtures::pull_request();
        let mut steady = fixtures::all_passed();
        steady.history = None;
        for (mode, failed, changed_run, unchanged_pass) in [
            (PrCommentMode::Off, false, false, false),
            (PrCommentMode::Always, true, true, true),
            (PrCommentMode::OnFailure, true, false, false),
            (PrCommentMode::OnChange, true, true, false),
        ] {
            assert_eq!(wanted(mode, &steady, 1), failed, "{mode:?} failed");
            assert_eq!(wanted(mode, &changed, 0), changed_run, "{mode:?} changed");
            assert_eq!(wanted(mode, &steady, 0), unchanged_pass, "{mode:?} steady");
        }
    }

    #[test]
    fn written_reports_are_named_as_outputs() {
        let mut written = Written::default();
        for (what, path) in [
            ("JUnit report", "j.xml"),
            ("JSON report", "r.json"),
            ("HTML report", "r.html"),
            ("Markdown summary", "s.md"),
            ("something else", "x"),
        ] {
            note_written(&mut written, what, Path::new(path));
        }
        assert_eq!(
            written,
            Written {
                junit: Some("j.xml".into()),
                json: Some("r.json".into()),
                html: Some("r.html".into()),
                summary: Some("s.md".into()),
            }
        );
    }
}
