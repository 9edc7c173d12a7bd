//! PyYAML itself, live: `tests/fixtures/yaml11/make_fixture.py --check` re-resolves every scalar
//! of the committed corpus with the PyYAML and pydantic versions mcp-toolproof 0.3.1 installs
//! (the `py-yaml11` venv) and fails when the result differs from `scalars.json`, which the
//! unit test `config::yaml11::tests::plain_scalars_resolve_as_pyyaml_safe_load_does` checks
//! toolproof's resolver against. Together: the resolver agrees with PyYAML, not with a stale file.

use std::path::Path;
use std::process::Command;

#[test]
fn pyyaml_still_resolves_the_corpus_as_the_committed_fixture_says() {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/yaml11/make_fixture.py");
    let out = Command::new(super::python("py-yaml11"))
        .arg(&script)
        .arg("--check")
        .output()
        .expect("run make_fixture.py --check in the py-yaml11 venv (scripts/test.sh installs it)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let count: usize = stdout
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(count >= 300, "only {count} scalars checked: {stdout}");
}
