//! The pull request a workflow runs for: its number, read from the event payload the runner
//! writes to `GITHUB_EVENT_PATH` (`.pull_request.number`, else `.number`).

use std::path::Path;

use super::GithubError;

/// The pull request's number in the event payload at `path`.
pub(crate) fn pr_number(path: Option<&Path>) -> Result<u64, GithubError> {
    let Some(path) = path else {
        return Err(GithubError::NoPullRequest(
            "GITHUB_EVENT_PATH is not set".into(),
        ));
    };
    let text = std::fs::read_to_string(path).map_err(|e| {
        GithubError::NoPullRequest(format!(
            "cannot read the event payload {}: {e}",
            path.display()
        ))
    })?;
    let event: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        GithubError::NoPullRequest(format!(
            "the event payload {} is not JSON: {e}",
            path.display()
        ))
    })?;
    event["pull_request"]["number"]
        .as_u64()
        .or_else(|| event["number"].as_u64())
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            GithubError::NoPullRequest(
                "the event is not a pull request (no .pull_request.number or .number)".into(),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_event(name: &str, text: &str) -> Result<u64, String> {
        let dir =
            std::env::temp_dir().join(format!("toolproof-event-{name}-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("event.json");
        let _ = std::fs::write(&path, text);
        let got = pr_number(Some(&path)).map_err(|e| e.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        got
    }

    #[test]
    fn the_number_comes_from_the_pull_request_or_the_top_level() {
        assert_eq!(
            with_event("pr", r#"{"pull_request": {"number": 17}, "number": 3}"#),
            Ok(17)
        );
        assert_eq!(
            with_event("top", r#"{"action": "opened", "number": 9}"#),
            Ok(9)
        );
        let push = with_event("push", r#"{"ref": "refs/heads/main"}"#);
        assert!(push.is_err_and(|e| e.contains("not a pull request")));
        let junk = with_event("junk", "{");
        assert!(junk.is_err_and(|e| e.contains("is not JSON")));
        let unset = pr_number(None).map_err(|e| e.to_string());
        assert!(unset.is_err_and(|e| e.contains("GITHUB_EVENT_PATH is not set")));
    }
}
