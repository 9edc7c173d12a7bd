//! The JUnit XML of real runs through the readers that judge it: the XSD of the rules the
//! Jenkins xUnit plugin enforces (`tests/fixtures/junit/junit-jenkins.xsd`, checked with Python
//! `xmlschema`) and junitparser, via `tests/junit_check.py` in the `py-junit` venv that
//! `scripts/test.sh` installs. Each run goes through the `toolproof` binary against the fake
//! server with planted defects, failing and crashing tests, and evals with the command
//! provider, once as written by default and once with `--junit-file-attrs`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{interop_dir, temp_dir};

/// The fake MCP server, built once per run (a no-op when current).
fn fake() -> String {
    crate::fake("fake_mcp")
}

fn repo_file(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

fn list(items: &[&str]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|s| serde_json::to_string(s).unwrap_or_default())
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// Cases for the scripted picker: a hit, a miss, a critical miss, a case that expects no tool,
/// and one the model `m2.5` (a dot in its name) answers differently.
const CASES: &str = r#"    - name: adds
      prompt: 'add 2 and 3 [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
    - name: echo, not arithmetic
      prompt: 'say hi [[call add {"a": 1, "b": 1}]]'
      expect_tool: echo
      why: echo, not arithmetic
    - name: refund is critical
      prompt: 'refund it [[none]]'
      expect_tool: fail
      critical: true
    - name: small talk
      prompt: 'thanks [[none]]'
      expect_tool: null
    - name: per model
      prompt: 'p [[call:m1 add {"a": 1, "b": 2}]] [[call:m2.5 echo {"text": "x"}]]'
      expect_tool: add
"#;

/// YAML tests: one passes, one fails its expectation, one calls a tool whose name has a dot
/// (unknown to the server), one crashes the server.
const TESTS: &str = r#"tests:
  - name: echo says hi
    tool: echo
    args: {text: hi}
    expect: {contains: hi}
  - name: wrong sum
    tool: add
    args: {a: 1, b: 1}
    expect: {equals: {result: 3}}
  - name: a dotted tool name
    tool: admin.tools.list
    args: {}
    expect: {is_error: false}
  - name: crash takes the server down
    tool: crash
    args: {}
"#;

/// The configs to run: `(name, server faults, YAML after the server)`.
fn scenarios(picker: &str) -> Vec<(&'static str, &'static str, String)> {
    let evals = |models: &str| {
        format!("evals:\n  provider: command\n  command: {picker}\n{models}  cases:\n{CASES}")
    };
    vec![
        (
            "defects",
            "duplicate-name,bad-name,no-description,similar-tools,long-description,contradictory-annotations",
            format!("{TESTS}{}", evals("")),
        ),
        ("models", "", evals("  models: [m1, m2.5]\n")),
        (
            "passing",
            "",
            "tests:\n  - {name: echo, tool: echo, args: {text: hi}}\n".into(),
        ),
        ("unreachable", "exit-before-initialize", TESTS.into()),
    ]
}

/// Runs every scenario twice (plain and with `--junit-file-attrs`) and returns the JUnit files
/// of each kind.
fn junit_files(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let picker = list(&["python3", &repo_file("tests/integration/cli/picker.py")]);
    let mut plain = Vec::new();
    let mut located = Vec::new();
    for (name, faults, rest) in scenarios(&picker) {
        let mut server = vec![fake()];
        if !faults.is_empty() {
            server.extend(["--fault".to_string(), faults.to_string()]);
        }
        let server: Vec<&str> = server.iter().map(String::as_str).collect();
        let config = dir.join(format!("{name}.yaml"));
        let yaml = format!("server:\n  command: {}\n{rest}", list(&server));
        std::fs::write(&config, yaml).expect("write config");
        for (extra, out) in [
            (None, &mut plain),
            (Some("--junit-file-attrs"), &mut located),
        ] {
            let xml = dir.join(format!("{name}{}.xml", extra.unwrap_or("")));
            let mut args = vec!["run", config.to_str().unwrap_or_default(), "--no-summary"];
            args.extend(["--junit", xml.to_str().unwrap_or_default()]);
            args.extend(extra);
            let status = Command::new(env!("CARGO_BIN_EXE_toolproof"))
                .args(&args)
                .current_dir(dir)
                .env_remove("GITHUB_ACTIONS")
                .env_remove("GITHUB_STEP_SUMMARY")
                .env_remove("GITHUB_WORKSPACE")
                .output()
                .expect("run toolproof");
            assert!(xml.exists(), "{name}: no JUnit written: {status:?}");
            out.push(xml);
        }
    }
    (plain, located)
}

#[test]
fn real_runs_pass_the_jenkins_xsd_and_junitparser() {
    let dir = temp_dir("junit-xsd");
    let (plain, located) = junit_files(&dir);
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    // The runs planted what they should: failures, dotted names, lines only when asked.
    let defects = read(&plain[0]);
    assert!(defects.contains("<failure "), "{defects}");
    assert!(
        defects.contains("classname=\"toolproof.tests.admin_tools_list\""),
        "{defects}"
    );
    assert!(
        defects.contains("classname=\"toolproof.evals.(no tool)\""),
        "{defects}"
    );
    assert!(!defects.contains(" line=\""), "{defects}");
    assert!(read(&located[0]).contains(" line=\""));
    assert!(read(&plain[1]).contains("classname=\"toolproof.evals.m2_5.add\""));

    let mut args = vec![
        repo_file("tests/junit_check.py"),
        repo_file("tests/fixtures/junit/junit-jenkins.xsd"),
        "--plain".into(),
    ];
    args.extend(plain.iter().map(|p| p.display().to_string()));
    args.push("--file-attrs".into());
    args.extend(located.iter().map(|p| p.display().to_string()));
    let out = Command::new(interop_dir().join("py-junit/bin/python"))
        .args(&args)
        .output()
        .expect("run the py-junit venv's python (scripts/test.sh installs it)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{text}");
    let want = format!("ok: {} files", plain.len() + located.len());
    assert!(text.contains(&want), "{text}");
}
