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

/// The fakes and the examples, built once per run with this build's features.
fn build_once() {
    toolproof_test_support::build_fakes_and_examples(cfg!(feature = "interop"));
}

/// A fake's binary: `fake_mcp`, `fake_llm`, `fake_github` or `fake_picker`.
pub fn fake(name: &str) -> String {
    build_once();
    built(name)
}

/// The folder of the demo's binaries (`demo_server`, `demo_picker`, of the `toolproof-demo`
/// package), which the bundled demo runs.
pub fn examples_dir() -> PathBuf {
    build_once();
    bin_dir()
}

/// The fake MCP server over streamable HTTP on a free loopback port, with `args`.
pub fn http_fake(args: &[&str]) -> Listening {
    let mut all = vec!["--http", "127.0.0.1:0"];
    all.extend_from_slice(args);
    listening(&fake("fake_mcp"), &all)
}
