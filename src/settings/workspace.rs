//! Where the config is in the repository: GitHub attaches an annotation (and JUnit readers find
//! a file) only by its path from the repository root, `GITHUB_WORKSPACE` (else the current
//! folder), whatever folder toolproof runs in and however the config was named.

use std::path::{Component, Path, PathBuf};

use super::Env;
use crate::config::LoadedConfig;
use crate::report::places::Places;

/// The repository paths of the config file and the eval cases file, and the lines of the
/// config's `checks:` and `evals:` keys. `cwd` is the folder relative paths start from.
pub(super) fn places(loaded: &LoadedConfig, env: &Env, cwd: &Path) -> Places {
    let workspace = env.get("GITHUB_WORKSPACE").map_or(cwd, Path::new);
    let evals = loaded.config.evals.as_ref();
    let files = [
        Some(&loaded.path),
        evals.and_then(|e| e.cases_file.as_ref()),
    ];
    let paths = files
        .into_iter()
        .flatten()
        .filter(|p| !p.as_os_str().is_empty())
        .filter_map(|p| {
            let inside = in_workspace(p, cwd, workspace)?;
            Some((p.display().to_string(), inside))
        })
        .collect();
    Places::new(paths, loaded.config.checks.line, evals.and_then(|e| e.line))
}

/// The repository paths of files a merged report names (its config and cases files), without
/// the sections' lines, which a report does not carry.
pub(super) fn places_of(files: &[String], env: &Env, cwd: &Path) -> Places {
    let workspace = env.get("GITHUB_WORKSPACE").map_or(cwd, Path::new);
    let paths = files
        .iter()
        .filter_map(|f| Some((f.clone(), in_workspace(Path::new(f), cwd, workspace)?)))
        .collect();
    Places::new(paths, None, None)
}

/// `path` relative to `workspace`, `/`-separated, when it lies inside it. Relative paths
/// (either one) start at `cwd`. Compared as written first (`..` and `.` folded away), then with
/// symlinks resolved, so a workspace reached through a link (`/tmp` → `/private/tmp`) still
/// matches.
fn in_workspace(path: &Path, cwd: &Path, workspace: &Path) -> Option<String> {
    let path = folded(&cwd.join(path));
    let workspace = folded(&cwd.join(workspace));
    let relative = path
        .strip_prefix(&workspace)
        .ok()
        .map(Path::to_path_buf)
        .or_else(|| {
            let path = std::fs::canonicalize(&path).ok()?;
            let workspace = std::fs::canonicalize(&workspace).ok()?;
            path.strip_prefix(workspace).ok().map(Path::to_path_buf)
        })?;
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// `path` with `.` dropped and each `..` taking away the folder before it (as written, without
/// looking at the disk).
fn folded(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inside(path: &str, cwd: &str, workspace: &str) -> Option<String> {
        in_workspace(Path::new(path), Path::new(cwd), Path::new(workspace))
    }

    #[test]
    fn paths_are_taken_from_the_workspace_root() {
        let ws = "/home/runner/work/repo/repo";
        assert_eq!(
            inside("toolproof.yaml", ws, ws).as_deref(),
            Some("toolproof.yaml")
        );
        // Run from a subfolder, the config named through `..`.
        let sub = "/home/runner/work/repo/repo/server";
        assert_eq!(
            inside("../ci/toolproof.yaml", sub, ws).as_deref(),
            Some("ci/toolproof.yaml")
        );
        assert_eq!(
            inside("./x/../toolproof.yaml", sub, ws).as_deref(),
            Some("server/toolproof.yaml")
        );
        // Absolute paths, and a relative workspace.
        assert_eq!(
            inside("/home/runner/work/repo/repo/a/b.yaml", "/", ws).as_deref(),
            Some("a/b.yaml")
        );
        assert_eq!(
            inside("a/b.yaml", "/home/runner/work/repo/repo", ".").as_deref(),
            Some("a/b.yaml")
        );
    }

    #[test]
    fn a_path_outside_the_workspace_has_no_repository_path() {
        let ws = "/home/runner/work/repo/repo";
        assert_eq!(inside("/etc/toolproof.yaml", ws, ws), None);
        assert_eq!(inside("../../other/toolproof.yaml", ws, ws), None);
        assert_eq!(inside(".", ws, ws), None);
    }

    #[test]
    fn a_workspace_reached_through_a_symlink_still_matches() {
        let base = std::env::temp_dir().join(format!("toolproof-ws-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let real = base.join("real");
        let _ = std::fs::create_dir_all(real.join("ci"));
        let _ = std::fs::write(real.join("ci/toolproof.yaml"), "server: {url: x}\n");
        let link = base.join("link");
        let linked = std::os::unix::fs::symlink(&real, &link);
        let found = in_workspace(&link.join("ci/toolproof.yaml"), Path::new("/"), &real);
        let _ = std::fs::remove_dir_all(&base);
        assert!(linked.is_ok());
        assert_eq!(found.as_deref(), Some("ci/toolproof.yaml"));
    }
}
