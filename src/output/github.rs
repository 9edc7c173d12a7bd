//! The writer's last step under GitHub Actions, after the reports: the step outputs are
//! appended to `$GITHUB_OUTPUT` (never truncated: other steps write there too), then the
//! pull-request comment is written to `--pr-comment-file`, or handed back to be posted
//! ([`super::post`]).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Dest, DestinationError, ReportWriter, check, to_stderr};
use crate::outcome::RunReport;
use crate::report::markdown::pr_comment::{self, PrContext};
use crate::report::step_outputs::{self, Written};
use crate::settings::{Github, PrComment};

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
        "evals badge" => &mut written.badge,
        "Markdown summary" => &mut written.summary,
        "SARIF log" => &mut written.sarif,
        _ => return,
    };
    *slot = Some(shown.display().to_string());
}

impl ReportWriter {
    /// Appends the step outputs, then writes the comment to its file; returns the exit code (1
    /// when the step outputs could not be written, unless the run was interrupted) and the
    /// comment still to post, if any.
    pub(super) fn github_steps(
        &mut self,
        report: &RunReport,
        mut code: i32,
        written: &Written,
    ) -> (i32, Option<PrComment>) {
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
        let Some(job) = self.github.comment.take() else {
            return (code, None);
        };
        let Some((shown, dest)) = &job.file else {
            if report.interrupted.is_some() {
                self.say("PR comment not posted: the run was interrupted");
                return (code, None);
            }
            return (code, Some(job.settings));
        };
        let ctx = PrContext {
            run_url: job.settings.run_url(),
        };
        let body = pr_comment::render(report, &ctx);
        let line = match self.write_to(dest, false, &body) {
            Ok(()) => format!("PR comment written to {}", shown.display()),
            Err(e) => {
                to_stderr(&format!(
                    "warning: could not write the PR comment to {}: {e}",
                    shown.display()
                ));
                "PR comment not written (see the warning on stderr)".into()
            }
        };
        self.say(&line);
        (code, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_reports_are_named_as_outputs() {
        let mut written = Written::default();
        for (what, path) in [
            ("JUnit report", "j.xml"),
            ("JSON report", "r.json"),
            ("HTML report", "r.html"),
            ("Markdown summary", "s.md"),
            ("evals badge", "b.svg"),
            ("SARIF log", "r.sarif"),
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
                badge: Some("b.svg".into()),
                sarif: Some("r.sarif".into()),
            }
        );
    }
}
