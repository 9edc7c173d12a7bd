//! toolproof's integration tests, one binary so that every test shares one pool of threads
//! and the library is linked once: the command line end to end against the fakes (`cli`), the
//! fault suite (`faults`), and with the `interop` feature, which `scripts/test.sh` turns on
//! after installing what they need, the reference servers, SDK servers, packages and readers
//! (`interop`) and the side-by-side run with mcp-toolproof (`compat`).
//!
//! The fakes and the shared harness are the `toolproof-test-support` package (`tests/support`).

mod cli;
#[cfg(feature = "interop")]
mod compat;
mod faults;
#[cfg(feature = "interop")]
mod interop;

use std::path::PathBuf;

use toolproof_test_support::{Listening, bin_dir, built, listening};

/// Builds the fakes (`tests/support`) and toolproof's examples (`demo_server`, `demo_picker`)
/// once per test run, a no-op when they are current, so a filtered run never starts one from
/// an older build. One cargo call with this build's features and profile: dependencies are
/// then resolved as for the tests, and nothing already built is built again.
fn build_once() {
    static BUILD: std::sync::Once = std::sync::Once::new();
    BUILD.call_once(|| {
        let mut cmd = toolproof_test_support::cargo();
        cmd.args([
            "build",
            "--quiet",
            "-p",
            "toolproof",
            "-p",
            "toolproof-test-support",
        ])
        .args(["--bins", "--examples"])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
        if cfg!(feature = "interop") {
            cmd.args(["--features", "toolproof/interop"]);
        }
        if bin_dir().ends_with("release") {
            cmd.arg("--release");
        }
        let ok = cmd.status().is_ok_and(|s| s.success());
        assert!(ok, "building the test fakes and the examples failed");
    });
}

/// A fake's binary: `fake_mcp`, `fake_llm` or `fake_github`.
pub fn fake(name: &str) -> String {
    build_once();
    built(name)
}

/// The folder of toolproof's examples, which the bundled demo runs.
pub fn examples_dir() -> PathBuf {
    build_once();
    bin_dir().join("examples")
}

/// The fake MCP server over streamable HTTP on a free loopback port, with `args`.
pub fn http_fake(args: &[&str]) -> Listening {
    let mut all = vec!["--http", "127.0.0.1:0"];
    all.extend_from_slice(args);
    listening(&fake("fake_mcp"), &all)
}
