//! What toolproof does for GitHub besides the reports: the step outputs (`$GITHUB_OUTPUT`) and
//! the pull-request comment (`--pr-comment`, `--pr-comment-file`), with the `GITHUB_*` values
//! they need, all read from the environment snapshot here.

use std::fmt;
use std::path::PathBuf;

use super::resolve::{env_value, pick};
use super::{Env, Origin, Resolved};
use crate::cli::ReportArgs;
use crate::config::ConfigError;

/// The REST API when `GITHUB_API_URL` is not set.
const DEFAULT_API_URL: &str = "https://api.github.com";
/// The web server when `GITHUB_SERVER_URL` is not set.
const DEFAULT_SERVER_URL: &str = "https://github.com";

/// When the pull-request comment is posted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PrCommentMode {
    /// Never (the default).
    Off,
    /// On every run.
    Always,
    /// When the run failed.
    OnFailure,
    /// When something changed against the base branch, or the run failed.
    OnChange,
}

impl PrCommentMode {
    /// The mode named `s`: `off`, `always`, `on-failure` or `on-change`.
    pub(crate) fn parse(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(PrCommentMode::Off),
            "always" => Ok(PrCommentMode::Always),
            "on-failure" => Ok(PrCommentMode::OnFailure),
            "on-change" => Ok(PrCommentMode::OnChange),
            other => Err(format!(
                "unknown mode `{other}`: use off, always, on-failure or on-change"
            )),
        }
    }

    /// The name a user writes.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PrCommentMode::Off => "off",
            PrCommentMode::Always => "always",
            PrCommentMode::OnFailure => "on-failure",
            PrCommentMode::OnChange => "on-change",
        }
    }
}

/// A credential: shown by `Debug` as `***`, read only through [`Token::expose`].
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Token(String);

impl Token {
    /// The value, for the one header that carries it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(***)")
    }
}

/// The pull-request comment: when, where the body goes, and how to reach the API.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PrComment {
    mode: Resolved<PrCommentMode>,
    file: Option<PathBuf>,
    api_url: String,
    token: Option<Token>,
    repository: Option<String>,
    event_path: Option<PathBuf>,
    run_url: Option<String>,
}

impl Default for PrComment {
    fn default() -> Self {
        PrComment {
            mode: Resolved {
                value: PrCommentMode::Off,
                origin: Origin::Default,
            },
            file: None,
            api_url: DEFAULT_API_URL.into(),
            token: None,
            repository: None,
            event_path: None,
            run_url: None,
        }
    }
}

impl PrComment {
    /// `--pr-comment`, `TOOLPROOF_PR_COMMENT`.
    pub(crate) fn mode(&self) -> PrCommentMode {
        self.mode.value
    }
    /// Who set the mode (a flag or a variable).
    pub(crate) fn mode_origin(&self) -> &Origin {
        &self.mode.origin
    }
    /// `--pr-comment-file`, `TOOLPROOF_PR_COMMENT_FILE`: write the body here, call no API.
    pub(crate) fn file(&self) -> Option<&PathBuf> {
        self.file.as_ref()
    }
    /// `GITHUB_API_URL`, else `https://api.github.com`, without a trailing `/`.
    pub(crate) fn api_url(&self) -> &str {
        &self.api_url
    }
    /// `GITHUB_TOKEN`.
    pub(crate) fn token(&self) -> Option<&Token> {
        self.token.as_ref()
    }
    /// `GITHUB_REPOSITORY` (`owner/repo`).
    pub(crate) fn repository(&self) -> Option<&str> {
        self.repository.as_deref()
    }
    /// `GITHUB_EVENT_PATH`: the event payload holding the pull request's number.
    pub(crate) fn event_path(&self) -> Option<&PathBuf> {
        self.event_path.as_ref()
    }
    /// The run's page, `{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}/actions/runs/{GITHUB_RUN_ID}`.
    pub(crate) fn run_url(&self) -> Option<&str> {
        self.run_url.as_deref()
    }
    /// Whether anything is to be done (a body to write or a comment to post).
    pub(crate) fn wanted(&self) -> bool {
        self.file.is_some() || self.mode.value != PrCommentMode::Off
    }
}

/// Step outputs and the pull-request comment.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Github {
    output: Option<PathBuf>,
    pr_comment: PrComment,
}

impl Github {
    /// `GITHUB_OUTPUT`: the file step outputs are appended to.
    pub(crate) fn output(&self) -> Option<&PathBuf> {
        self.output.as_ref()
    }
    /// The pull-request comment.
    pub(crate) fn pr_comment(&self) -> &PrComment {
        &self.pr_comment
    }
}

/// Resolves the GitHub side of `run` and `eval`.
pub(super) fn resolve_github(reports: &ReportArgs, env: &Env) -> Result<Github, ConfigError> {
    let mode = pick(
        reports
            .pr_comment
            .as_deref()
            .map(PrCommentMode::parse)
            .transpose()
            .map_err(ConfigError::new)?
            .map(|m| (m, "--pr-comment")),
        env_value(env, "TOOLPROOF_PR_COMMENT", PrCommentMode::parse)?,
        None,
        PrCommentMode::Off,
    );
    let file = reports
        .pr_comment_file
        .clone()
        .or_else(|| env.get("TOOLPROOF_PR_COMMENT_FILE").map(PathBuf::from));
    let repository = env.get("GITHUB_REPOSITORY").map(|r| r.trim().to_owned());
    let run_url = match (&repository, env.get("GITHUB_RUN_ID")) {
        (Some(repo), Some(id)) => Some(format!(
            "{}/{repo}/actions/runs/{}",
            env.get("GITHUB_SERVER_URL")
                .unwrap_or(DEFAULT_SERVER_URL)
                .trim()
                .trim_end_matches('/'),
            id.trim()
        )),
        _ => None,
    };
    Ok(Github {
        output: env.get("GITHUB_OUTPUT").map(PathBuf::from),
        pr_comment: PrComment {
            mode,
            file,
            api_url: env
                .get("GITHUB_API_URL")
                .unwrap_or(DEFAULT_API_URL)
                .trim()
                .trim_end_matches('/')
                .to_owned(),
            token: env.get("GITHUB_TOKEN").map(|t| Token(t.trim().to_owned())),
            repository,
            event_path: env.get("GITHUB_EVENT_PATH").map(PathBuf::from),
            run_url,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_name_themselves() {
        for name in ["off", "always", "on-failure", "on-change"] {
            assert_eq!(
                PrCommentMode::parse(name).map(PrCommentMode::as_str),
                Ok(name)
            );
        }
        assert!(PrCommentMode::parse("sometimes").is_err());
    }

    #[test]
    fn the_token_never_shows_in_debug_output() {
        let github = Github {
            output: None,
            pr_comment: PrComment {
                token: Some(Token("ghs_secret".into())),
                ..PrComment::default()
            },
        };
        let shown = format!("{github:?}");
        assert!(!shown.contains("ghs_secret") && shown.contains("Token(***)"));
    }
}
