//! The GitHub Action end to end: `tests/action/e2e.py` runs `action.yml` the way the runner does,
//! against a release archive served on 127.0.0.1 and the fake GitHub API, and checks what a
//! workflow would see.

use std::path::Path;
use std::process::Command;

#[test]
fn the_action_installs_runs_reports_and_comments_like_the_runner_would() {
    let bin = Path::new(env!("CARGO_BIN_EXE_toolproof"));
    // target/<profile>/toolproof → target
    let target = bin
        .parent()
        .and_then(Path::parent)
        .expect("the cargo target folder");
    build_examples(target);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/action/e2e.py");
    let out = Command::new(super::python("py-action"))
        .arg(&script)
        .arg(target)
        .current_dir(script.parent().expect("tests/action"))
        .output()
        .expect("run tests/action/e2e.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("all checks passed"), "{stdout}");
}

/// The demo server and picker the action runs, built (a no-op when current) so that one from
/// an older build is never used. `target` is the cargo target folder.
pub(super) fn build_examples(target: &Path) {
    let profile = if target.join("debug/toolproof").exists() {
        "debug"
    } else {
        "release"
    };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--examples"])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    // The features this test was built with: examples built without them would rebuild the
    // library a second time.
    if cfg!(feature = "interop") {
        cmd.args(["--features", "interop"]);
    }
    if profile == "release" {
        cmd.arg("--release");
    }
    let ok = cmd.status().is_ok_and(|s| s.success());
    assert!(ok, "cargo build --examples failed");
}
