//! `tune --suggest`: in a pull request under GitHub Actions, each accepted rewrite posted as a
//! review comment with a GitHub suggestion block on the line of the repository that holds the
//! old description, when the description is found verbatim exactly once; found several times
//! or not at all, a pull-request comment shows the change as a diff instead. The token rules
//! of the pull-request comment apply: `GITHUB_TOKEN`, never printed; a refusal is a warning.

use std::path::{Path, PathBuf};

use crate::github::{Client, GithubError, pr_number};
use crate::interrupt::Interrupt;
use crate::output::to_stderr;
use crate::settings::PrComment;

use super::report::TuneReport;

/// Files larger than this are not searched (data, not source).
const MAX_FILE_BYTES: u64 = 1 << 20;
/// Folders never searched.
const SKIPPED: [&str; 6] = [
    ".git",
    "target",
    "node_modules",
    ".toolproof-cache",
    ".venv",
    "__pycache__",
];

/// Where an old description is written: the only place, or how many places.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// Exactly once: the file (relative to the root) and its 1-based line.
    Once(String, usize, String),
    /// This many times (0 or more than 1).
    Not(usize),
}

/// The files git tracks under `root`, when `root` is in a git work tree.
fn tracked(root: &Path) -> Option<Vec<PathBuf>> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(
        out.stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
            .collect(),
    )
}

/// The lines of `path` that hold `text`, one entry per occurrence.
fn hits_in(path: &Path, text: &str, hits: &mut Vec<(PathBuf, usize, String)>) {
    let small = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= MAX_FILE_BYTES);
    let Some(body) = small.then(|| std::fs::read_to_string(path).ok()).flatten() else {
        return;
    };
    for (i, line) in body.lines().enumerate() {
        for _ in line.matches(text) {
            hits.push((path.to_path_buf(), i + 1, line.to_owned()));
        }
    }
}

/// Finds `text` verbatim in the files git tracks under `root` (every file under it, outside
/// build and cache folders, when it is no git work tree).
pub(crate) fn find(root: &Path, text: &str) -> Found {
    let mut hits = Vec::new();
    if let Some(files) = tracked(root) {
        for file in files {
            hits_in(&file, text, &mut hits);
        }
        return found(root, &hits);
    }
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                if !SKIPPED.contains(&name) {
                    stack.push(path);
                }
            } else {
                hits_in(&path, text, &mut hits);
            }
        }
    }
    found(root, &hits)
}

/// The one place of `hits`, or how many there are.
fn found(root: &Path, hits: &[(PathBuf, usize, String)]) -> Found {
    match hits {
        [(path, line, text)] => {
            let rel = path.strip_prefix(root).unwrap_or(path);
            Found::Once(rel.display().to_string(), *line, text.clone())
        }
        _ => Found::Not(hits.len()),
    }
}

/// The body of a review comment that suggests `new` in place of `old` on `line`.
pub(crate) fn suggestion(tool: &str, reason: &str, line: &str, old: &str, new: &str) -> String {
    format!(
        "toolproof tune: a new description of `{tool}`, accepted on rows the rewriter never saw ({reason}).\n\n```suggestion\n{}\n```\n",
        line.replacen(old, new, 1)
    )
}

/// The body of a pull-request comment that shows the change as a diff.
pub(crate) fn diff(tool: &str, reason: &str, why: &str, old: &str, new: &str) -> String {
    let minus: String = old.lines().map(|l| format!("- {l}\n")).collect();
    let plus: String = new.lines().map(|l| format!("+ {l}\n")).collect();
    format!(
        "toolproof tune: a new description of `{tool}`, accepted on rows the rewriter never saw ({reason}). The old description is {why}, so here is the change:\n\n```diff\n{minus}{plus}```\n"
    )
}

/// Posts a suggestion (or a diff) per accepted rewrite; each failure is a warning.
pub(crate) fn post(report: &TuneReport, settings: &PrComment, root: &Path, interrupt: &Interrupt) {
    let client = || -> Result<(Client, u64, String), GithubError> {
        let token = settings.token().ok_or(GithubError::NoToken)?;
        let repo = settings.repository().ok_or(GithubError::NoRepository)?;
        let event = settings.event_path().map(PathBuf::as_path);
        let pr = pr_number(event)?;
        let head = event
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["pull_request"]["head"]["sha"].as_str().map(str::to_owned))
            .or_else(|| std::env::var("GITHUB_SHA").ok())
            .unwrap_or_default();
        let client =
            Client::new(settings.api_url(), token.expose(), repo)?.stop_on(interrupt.clone());
        Ok((client, pr, head))
    };
    let (client, pr, head) = match client() {
        Ok(c) => c,
        Err(e) => return warn(&e),
    };
    for tool in &report.tools {
        let Some(c) = tool.candidates.iter().find(|c| c.accepted) else {
            continue;
        };
        let sent = match find(root, &tool.original) {
            Found::Once(path, line, text) => client.create_review_comment(
                pr,
                &head,
                (&path, line),
                &suggestion(&tool.tool, &c.reason, &text, &tool.original, &c.text),
            ),
            Found::Not(n) => {
                let why = if n == 0 {
                    "not written verbatim in the repository".to_owned()
                } else {
                    format!("written {n} times in the repository")
                };
                client
                    .create_comment(
                        pr,
                        &diff(&tool.tool, &c.reason, &why, &tool.original, &c.text),
                    )
                    .map(|_| ())
            }
        };
        if let Err(e) = sent {
            warn(&e);
        }
    }
}

fn warn(e: &GithubError) {
    to_stderr(&format!("warning: --suggest: {e}"));
    if let Some(hint) = e.hint() {
        to_stderr(&format!("hint: {hint}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_written_once_is_found_with_its_line() {
        let dir = std::env::temp_dir().join(format!("toolproof-suggest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).expect("dir");
        std::fs::create_dir_all(dir.join("target")).expect("dir");
        std::fs::write(
            dir.join("src/server.py"),
            "a = 1\n    \"description\": \"Gets an order.\",\n",
        )
        .expect("write");
        std::fs::write(dir.join("target/copy.py"), "\"Gets an order.\"").expect("write");
        assert_eq!(
            find(&dir, "Gets an order."),
            Found::Once(
                "src/server.py".into(),
                2,
                "    \"description\": \"Gets an order.\",".into()
            )
        );
        std::fs::write(dir.join("README.md"), "Gets an order.").expect("write");
        assert_eq!(find(&dir, "Gets an order."), Found::Not(2));
        assert_eq!(find(&dir, "Nowhere."), Found::Not(0));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_suggestion_replaces_the_old_text_on_its_line() {
        let body = suggestion(
            "get_order",
            "r",
            "  d: \"Gets an order.\",",
            "Gets an order.",
            "Gets one.",
        );
        assert!(
            body.contains("```suggestion\n  d: \"Gets one.\",\n```"),
            "{body}"
        );
        let body = diff(
            "get_order",
            "r",
            "not written verbatim in the repository",
            "a",
            "b",
        );
        assert!(body.contains("```diff\n- a\n+ b\n```"), "{body}");
    }
}
