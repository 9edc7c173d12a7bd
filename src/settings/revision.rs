//! The commit under test, as GitHub Actions names it.

use super::Env;

/// What the environment says about the commit under test (for the history file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Revision {
    /// `GITHUB_SHA`.
    pub commit: Option<String>,
    /// `GITHUB_HEAD_REF`, else `GITHUB_REF_NAME`.
    pub git_ref: Option<String>,
    /// `GITHUB_BASE_REF`: the branch a pull request goes into.
    pub base_ref: Option<String>,
}

impl Revision {
    /// The commit, branch and base branch GitHub Actions names in `env`.
    pub(crate) fn from_env(env: &Env) -> Revision {
        Revision {
            commit: env.get("GITHUB_SHA").map(str::to_owned),
            git_ref: env
                .get("GITHUB_HEAD_REF")
                .or_else(|| env.get("GITHUB_REF_NAME"))
                .map(str::to_owned),
            base_ref: env.get("GITHUB_BASE_REF").map(str::to_owned),
        }
    }
}
