//! The PyPI wheel: `scripts/build-wheel.sh` packages this test's binary, pip installs the wheel
//! with pytest into a fresh venv, and pytest files written against mcp-toolproof 0.3.1's API
//! (`tests/wheel/`) run through its plugin against real servers: the Python SDK 2.x server over
//! stdio (`toolproof_command`), over streamable HTTP (`toolproof_url`) and from a toolproof.yaml
//! (`toolproof_config`), and the fake server's slow and crashing tools. The same files run under
//! mcp-toolproof 0.3.1 itself (the `py-ref` venv, with pytest), and every test must end the same
//! way under both, but for the one deliberate difference (a crashed server comes back).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::{free_port, python, sdk_server_script, start_http, temp_dir};

/// The pytest release installed beside the wheel (and in `py-ref` by `scripts/test.sh`).
const PYTEST: &str = "pytest==9.2.0";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Rust target this test's binary was built for, as `scripts/build-wheel.sh` names it.
fn host_target() -> String {
    let arch = std::env::consts::ARCH;
    match std::env::consts::OS {
        "macos" => format!("{arch}-apple-darwin"),
        _ if cfg!(target_env = "musl") => format!("{arch}-unknown-linux-musl"),
        _ => format!("{arch}-unknown-linux-gnu"),
    }
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("could not run {cmd:?}: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn build_wheel(binary: &str, out: &Path, target: &str, epoch: &str) -> PathBuf {
    let (code, stdout, stderr) = run(Command::new(repo().join("scripts/build-wheel.sh"))
        .args(["--binary", binary, "--out"])
        .arg(out)
        .arg(target)
        .env("SOURCE_DATE_EPOCH", epoch));
    assert_eq!(code, 0, "build-wheel.sh failed:\n{stderr}");
    PathBuf::from(stdout.trim())
}

/// A fresh venv with the wheel of this test's binary and pytest; its python. Built once.
fn venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let dir = temp_dir("wheel-venv");
        let wheel = build_wheel(
            env!("CARGO_BIN_EXE_toolproof"),
            &dir.join("dist"),
            &host_target(),
            "1700000000",
        );
        let venv = dir.join("venv");
        let (code, _, stderr) = run(Command::new("python3").arg("-m").arg("venv").arg(&venv));
        assert_eq!(code, 0, "python3 -m venv failed:\n{stderr}");
        let (code, _, stderr) = run(Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(&wheel)
            .arg(PYTEST));
        assert_eq!(
            code,
            0,
            "pip install of {} failed:\n{stderr}",
            wheel.display()
        );
        // The venv holds the binary now; the wheel (tens of MB with a debug binary) can go.
        let _ = std::fs::remove_dir_all(dir.join("dist"));
        venv.join("bin/python")
    })
}

/// mcp-toolproof 0.3.1 with pytest.
fn reference() -> PathBuf {
    let py = PathBuf::from(python("py-ref"));
    let (code, _, _) = run(Command::new(&py).args(["-c", "import pytest, toolproof"]));
    assert_eq!(
        code,
        0,
        "{} cannot import pytest and mcp-toolproof: scripts/test.sh installs {PYTEST} beside mcp-toolproof 0.3.1 in the py-ref venv",
        py.display()
    );
    py
}

/// How each test of a pytest run ended, in file order: `passed`, `failed`, `error` or `skipped`.
type Outcomes = Vec<(String, &'static str)>;

/// Runs `file` (from `tests/wheel/`) with `ini` as its pytest.ini in a fresh folder, and reads
/// the outcomes from its JUnit XML. `extra` files are written beside it.
fn pytest(python: &Path, name: &str, file: &str, ini: &str, extra: &[(&str, String)]) -> Outcomes {
    pytest_xml(python, name, file, ini, extra).0
}

/// [`pytest`], with the JUnit XML too.
fn pytest_xml(
    python: &Path,
    name: &str,
    file: &str,
    ini: &str,
    extra: &[(&str, String)],
) -> (Outcomes, String) {
    let dir = temp_dir(name);
    std::fs::copy(repo().join("tests/wheel").join(file), dir.join(file)).expect("copy test file");
    std::fs::write(dir.join("pytest.ini"), format!("[pytest]\n{ini}")).expect("write pytest.ini");
    for (path, text) in extra {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create folder");
        }
        std::fs::write(path, text).expect("write extra file");
    }
    let (code, stdout, stderr) = run(Command::new(python)
        .args([
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-rA",
            "--junitxml=junit.xml",
            file,
        ])
        .current_dir(&dir)
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("PYTHONPATH")
        .env_remove("TOOLPROOF_BINARY")
        .env_remove("TOOLPROOF_CONFIG"));
    let xml = std::fs::read_to_string(dir.join("junit.xml")).unwrap_or_else(|e| {
        panic!(
            "pytest ({}) wrote no junit.xml ({e}), exit {code}:\n{stdout}\n{stderr}",
            python.display()
        )
    });
    let doc = roxmltree::Document::parse(&xml).expect("pytest's JUnit XML parses");
    let outcomes: Outcomes = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|case| {
            let child = |tag: &str| case.children().any(|c| c.has_tag_name(tag));
            let outcome = if child("error") {
                "error"
            } else if child("failure") {
                "failed"
            } else if child("skipped") {
                "skipped"
            } else {
                "passed"
            };
            (case.attribute("name").unwrap_or("").to_owned(), outcome)
        })
        .collect();
    let failed = outcomes.iter().any(|(_, o)| *o != "passed");
    assert_eq!(
        code,
        i32::from(failed),
        "pytest's exit code:\n{stdout}\n{stderr}"
    );
    (outcomes, xml)
}

fn counts(outcomes: &Outcomes) -> (usize, usize) {
    let passed = outcomes.iter().filter(|(_, o)| *o == "passed").count();
    (passed, outcomes.len() - passed)
}

/// `test_api.py`: every test passes but the one whose expectation is wrong.
fn assert_api_outcomes(outcomes: &Outcomes, who: &str) {
    assert_eq!(counts(outcomes), (12, 1), "{who}: {outcomes:#?}");
    for (name, outcome) in outcomes {
        let want = if name == "test_a_wrong_expectation_fails" {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(*outcome, want, "{who}: {name}");
    }
}

/// Runs `test_api.py` under the wheel and under mcp-toolproof with the same ini and files.
fn api_both_ways(name: &str, ini: &str, extra: &[(&str, String)]) {
    let ours = pytest(venv(), &format!("{name}-wheel"), "test_api.py", ini, extra);
    assert_api_outcomes(&ours, "the wheel");
    let theirs = pytest(
        &reference(),
        &format!("{name}-ref"),
        "test_api.py",
        ini,
        extra,
    );
    assert_api_outcomes(&theirs, "mcp-toolproof");
    assert_eq!(ours, theirs);
}

#[test]
fn wheel_plugin_over_stdio_ends_every_test_as_mcp_toolproof_does() {
    let ini = format!(
        "toolproof_command = {} {} stdio\n",
        python("py-mcp2"),
        sdk_server_script()
    );
    api_both_ways("wheel-stdio", &ini, &[]);
}

#[test]
fn wheel_plugin_over_http_ends_every_test_as_mcp_toolproof_does() {
    let port = free_port();
    let _server = start_http(
        &python("py-mcp2"),
        &[&sdk_server_script(), "http", &port.to_string()],
        &[],
        "Uvicorn running",
    );
    let ini = format!("toolproof_url = http://127.0.0.1:{port}/mcp\n");
    api_both_ways("wheel-http", &ini, &[]);
}

#[test]
fn wheel_plugin_reads_the_server_from_a_toolproof_yaml_as_mcp_toolproof_does() {
    // A relative script path resolves from the YAML's folder.
    let yaml = format!(
        "server:\n  command: [{}, ./sdk_server.py, stdio]\n  env:\n    SDK_DEMO: \"1\"\n",
        python("py-mcp2")
    );
    let script = std::fs::read_to_string(sdk_server_script()).expect("read sdk_server.py");
    api_both_ways(
        "wheel-yaml",
        "toolproof_config = toolproof.yaml\n",
        &[("toolproof.yaml", yaml), ("sdk_server.py", script)],
    );
}

#[test]
fn wheel_plugin_takes_a_server_config_from_a_conftest_as_mcp_toolproof_does() {
    let conftest = std::fs::read_to_string(repo().join("tests/wheel/conftest_server_config.py"))
        .expect("read the conftest")
        .replace("@SDK_PYTHON@", &python("py-mcp2"));
    let script = std::fs::read_to_string(sdk_server_script()).expect("read sdk_server.py");
    api_both_ways(
        "wheel-conftest",
        "",
        &[("conftest.py", conftest), ("srv/sdk_server.py", script)],
    );
}

#[test]
fn wheel_plugin_errors_without_a_usable_server_as_mcp_toolproof_does() {
    // Nothing configured: a usage error in every test that asks for the server.
    let not_configured = "mcp_server fixture is not configured. Set toolproof_command, \
        toolproof_url or toolproof_config in pytest.ini / pyproject.toml, or override the \
        mcp_server_config fixture.";
    // A server that cannot start: a connection error in every such test.
    let missing = "toolproof_command = /nonexistent/mcp-server --stdio\n";
    for (ini, says) in [("", not_configured), (missing, "could not connect to")] {
        let mut seen = Vec::new();
        for (who, py) in [("wheel", venv().to_path_buf()), ("ref", reference())] {
            let (outcomes, xml) =
                pytest_xml(&py, &format!("wheel-none-{who}"), "test_api.py", ini, &[]);
            let errors = outcomes.iter().filter(|(_, o)| *o == "error").count();
            assert_eq!(
                (counts(&outcomes), errors),
                ((2, 11), 11),
                "{who}: {outcomes:#?}"
            );
            assert!(xml.contains(says), "{who} does not say `{says}`:\n{xml}");
            seen.push(outcomes);
        }
        assert_eq!(seen[0], seen[1]);
    }
}

/// mcp-toolproof's public API beyond the fixture (`McpServer`, `Config`, `load_config`,
/// `run_config`, `RunReport`, `ServerConfig.model_validate` and pydantic's coercion): every
/// test of `test_public_api.py` passes under both packages.
#[test]
fn wheel_public_api_behaves_as_mcp_toolproofs() {
    let ini = format!(
        "toolproof_command = {} {} stdio\n",
        python("py-mcp2"),
        sdk_server_script()
    );
    let ours = pytest(venv(), "wheel-public-api", "test_public_api.py", &ini, &[]);
    let theirs = pytest(
        &reference(),
        "wheel-public-api-ref",
        "test_public_api.py",
        &ini,
        &[],
    );
    assert_eq!(ours.len(), 22, "{ours:#?}");
    assert_eq!(counts(&ours), (ours.len(), 0), "the wheel: {ours:#?}");
    assert_eq!(ours, theirs);
}

#[test]
fn wheel_plugin_reports_timeouts_and_crashes_and_starts_a_crashed_server_again() {
    let fake = crate::fake("fake_mcp");
    let ini = format!("toolproof_command = {fake}\ntoolproof_timeout = 0.5\n");
    let ours = pytest(venv(), "wheel-faults", "test_faults.py", &ini, &[]);
    let theirs = pytest(
        &reference(),
        "wheel-faults-ref",
        "test_faults.py",
        &ini,
        &[],
    );
    let all_but_last = |outcomes: &Outcomes| {
        outcomes[..outcomes.len().saturating_sub(1)]
            .iter()
            .all(|(_, o)| *o == "passed")
    };
    assert_eq!(counts(&ours), (4, 0), "{ours:#?}");
    assert_eq!(counts(&theirs), (3, 1), "{theirs:#?}");
    assert!(all_but_last(&theirs), "{theirs:#?}");
    assert_eq!(
        theirs.last().map(|(n, o)| (n.as_str(), *o)),
        Some(("test_the_server_is_back_after_a_crash", "failed"))
    );
}

#[test]
fn wheel_installs_the_binary_and_python_m_toolproof_runs_it() {
    let py = venv();
    let bin = py.with_file_name("toolproof");
    let (code, stdout, _) = run(Command::new(&bin).arg("--version"));
    assert_eq!(
        (code, stdout.trim()),
        (0, concat!("toolproof ", env!("CARGO_PKG_VERSION")))
    );
    let (code, stdout, _) = run(Command::new(py).args(["-m", "toolproof", "--version"]));
    assert_eq!(
        (code, stdout.trim()),
        (0, concat!("toolproof ", env!("CARGO_PKG_VERSION")))
    );
    // The exit code of a usage error comes through.
    let (code, _, stderr) =
        run(Command::new(py).args(["-m", "toolproof", "inspect", "--no-such-flag"]));
    assert_eq!(code, 2, "{stderr}");
    let (code, stdout, stderr) = run(Command::new(py).args([
        "-c",
        "import toolproof; print(toolproof.__version__, sorted(toolproof.__all__))",
    ]));
    assert_eq!(code, 0, "{stderr}");
    for name in [
        "CallResult",
        "Config",
        "McpServer",
        "RunReport",
        "ServerConfig",
        "load_config",
        "run_config",
    ] {
        assert!(stdout.contains(&format!("'{name}'")), "{stdout}");
    }
}

#[test]
fn build_wheel_is_reproducible_and_says_what_is_wrong() {
    let dir = temp_dir("wheel-build");
    // A small program of this machine stands in for toolproof: a musl target needs no glibc.
    let binary = ["/bin/true", "/usr/bin/true"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("a `true` program");
    let arch = std::env::consts::ARCH;
    let target = format!("{arch}-unknown-linux-musl");
    let first = build_wheel(binary, &dir.join("a"), &target, "1700000000");
    let second = build_wheel(binary, &dir.join("b"), &target, "1700000000");
    let name = first.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let tag = format!("-py3-none-musllinux_1_2_{arch}.whl");
    assert!(
        name.starts_with("toolproof-") && name.ends_with(&tag),
        "{name}"
    );
    assert_eq!(
        std::fs::read(&first).expect("first wheel"),
        std::fs::read(&second).expect("second wheel"),
        "two builds of the same inputs differ"
    );
    // Cargo's pre-release spelling becomes PEP 440's.
    let check = format!(
        "import importlib.util as u\n\
         s = u.spec_from_file_location('w', {:?}); m = u.module_from_spec(s); s.loader.exec_module(m)\n\
         print(' '.join(m.pep440(v) for v in ['0.1.0', '0.1.0-rc.1', '1.2.3-alpha.2', '1.0.0-beta', '2.0.0-dev.3']))",
        repo().join("scripts/build-wheel.py").display().to_string()
    );
    let (code, stdout, stderr) = run(Command::new("python3").args(["-c", &check]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "0.1.0 0.1.0rc1 1.2.3a2 1.0.0b0 2.0.0.dev3");
    let refused = |target: &str| {
        let (code, _, stderr) = run(Command::new(repo().join("scripts/build-wheel.sh"))
            .args(["--binary", binary, "--out"])
            .arg(dir.join("c"))
            .arg(target));
        assert!(stderr.contains("\nhint: "), "{stderr}");
        (code, stderr)
    };
    let (code, stderr) = refused("riscv64gc-unknown-linux-gnu");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.starts_with("error: no wheel for target `riscv64gc-unknown-linux-gnu`"),
        "{stderr}"
    );
    // The binary of another machine.
    let other = if arch == "x86_64" {
        "aarch64"
    } else {
        "x86_64"
    };
    let (code, stderr) = refused(&format!("{other}-unknown-linux-musl"));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("error: {binary} is not an {other} Linux program")),
        "{stderr}"
    );
}
