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
    // The demo server and picker the action runs, and the fake GitHub API.
    let _ = crate::examples_dir();
    let _ = crate::fake("fake_github");
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
