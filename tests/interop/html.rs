//! The HTML report in a real browser: a failing run rendered by `report::html::render`, opened
//! in headless Chromium (Debian's `chromium`, or `$CHROMIUM`) at phone and desktop widths. The
//! screenshots must be real PNGs of the window's size, and the DOM Chromium parsed must hold the
//! failing rows, first, with their names.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;
use toolproof::report::html;
use toolproof::report::model::{
    ChecksResults, Finding, Generator, Phase, PhaseStatus, Phases, RunReport, ServerSummary,
    Severity, TestResult, TestStatus,
};

/// Longest a Chromium run may take, first start included, in seconds.
const CHROMIUM_TIMEOUT_S: &str = "180";

fn test(name: &str, tool: &str, status: TestStatus, failures: &[&str], line: u32) -> TestResult {
    TestResult {
        name: name.into(),
        tool: tool.into(),
        status,
        failures: failures.iter().map(|f| f.to_string()).collect(),
        latency_ms: 3.5,
        attempts: 1,
        is_error: Some(status != TestStatus::Passed),
        text: Some("{\"result\": 2}".into()),
        stderr: None,
        tags: vec!["smoke".into()],
        line: Some(line),
        server_requests: Vec::new(),
    }
}

/// A run with a missing description, two failing tests among passing ones (passing ones first
/// in the YAML), a crash with stderr, and hostile text in a test name.
fn failing_report() -> RunReport {
    let mut crash = test(
        "echo crashes the server",
        "echo",
        TestStatus::Error,
        &["no result: the server exited with status 3 during the call"],
        20,
    );
    crash.stderr = Some("Traceback (most recent call last):\nSystemExit: 3\n".into());
    crash.is_error = None;
    crash.text = None;
    let mut retried = test(
        "add is off by one",
        "add",
        TestStatus::Failed,
        &["$.result: expected 3, got 2"],
        14,
    );
    retried.attempts = 3;
    RunReport {
        schema_version: toolproof::report::model::SCHEMA_VERSION,
        generator: Generator::default(),
        command: "run".into(),
        target: "target/debug/examples/fake_mcp --fault no-description".into(),
        config_file: Some("toolproof.yaml".into()),
        server: Some(ServerSummary {
            name: Some("fake-mcp".into()),
            version: Some("1.0.0".into()),
            title: None,
            protocol_version: "2025-06-18".into(),
            era: "legacy".into(),
            transport: "stdio".into(),
            capabilities: json!({"tools": {}}),
        }),
        started_at: "2026-12-01T10:00:00Z".into(),
        duration_ms: 1234.0,
        passed: false,
        exit_code: 1,
        error: None,
        inventory: None,
        stdout_noise: Vec::new(),
        stdout_noise_total: 0,
        interrupted: None,
        config_warnings: Vec::new(),
        cache_audit: None,
        history: None,
        phases: Phases {
            checks: Phase {
                status: PhaseStatus::Failed,
                reason: None,
                duration_ms: 2.0,
                results: ChecksResults {
                    strict: false,
                    tools: vec!["add".into(), "echo".into()],
                    disabled: Vec::new(),
                    findings: vec![Finding {
                        tool: "echo".into(),
                        tool_index: Some(1),
                        check: "description".into(),
                        severity: Severity::Error,
                        message: "tool has no description".into(),
                        hint: None,
                        fails: true,
                    }],
                },
            },
            tests: Phase {
                status: PhaseStatus::Failed,
                reason: None,
                duration_ms: 40.0,
                results: vec![
                    test("add small numbers", "add", TestStatus::Passed, &[], 8),
                    test(
                        "echo <b>bold</b> & </td> \"quoted\"",
                        "echo",
                        TestStatus::Passed,
                        &[],
                        11,
                    ),
                    retried,
                    crash,
                ],
            },
            evals: Phase::skipped("no evals section in toolproof.yaml"),
            lint: Phase::skipped("no eval cases in the config"),
            bench: Phase::skipped("no bench section in toolproof.yaml"),
            fuzz: Phase::skipped("no fuzz section in toolproof.yaml"),
            protocol: Phase::skipped("no protocol section in toolproof.yaml"),
        },
        secrets: Vec::new(),
    }
}

fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".into())
}

/// Runs headless Chromium on `page` with a fresh profile, then `extra` arguments.
fn run_chromium(page: &Path, profile: &Path, width: u32, height: u32, extra: &[&str]) -> Output {
    let _ = std::fs::remove_dir_all(profile);
    let out = Command::new("timeout")
        .args(["--kill-after=10", CHROMIUM_TIMEOUT_S, &chromium()])
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={width},{height}"))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium (apt-get install chromium)");
    let _ = std::fs::remove_dir_all(profile);
    out
}

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.len() > 24, "{} bytes is no PNG", bytes.len());
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR", "first chunk is IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

fn work_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolproof-html-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

#[test]
fn chromium_shows_the_failing_rows_first_on_a_phone_and_a_desktop() {
    let dir = work_dir();
    let page = dir.join("report.html");
    std::fs::write(&page, html::render(&failing_report())).expect("write the report");

    for (width, height) in [(390, 844), (1280, 900)] {
        let png = dir.join(format!("shot-{width}.png"));
        let shot = format!("--screenshot={}", png.display());
        let out = run_chromium(&page, &dir.join("profile"), width, height, &[shot.as_str()]);
        let bytes = std::fs::read(&png).unwrap_or_else(|e| {
            panic!(
                "no screenshot at {} ({e}); chromium exited with {}:\n{}",
                png.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert_eq!(png_size(&bytes), (width, height));
        // A blank page of this size compresses to about 3 KB; tables, badges and text do not.
        assert!(
            bytes.len() > 20_000,
            "screenshot at {width}px is {} bytes: the page looks empty",
            bytes.len()
        );
    }

    let out = run_chromium(&page, &dir.join("profile"), 390, 844, &["--dump-dom"]);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "chromium --dump-dom: {}", out.status);
    assert!(dom.contains("id=\"verdict\""), "{dom}");

    let tests = dom
        .split("<section id=\"tests\"")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .unwrap_or_else(|| panic!("no tests section in the DOM:\n{dom}"));
    let rows: Vec<&str> = tests.split("<tr class=\"").skip(1).collect();
    let classes: Vec<&str> = rows
        .iter()
        .map(|r| r.split('"').next().unwrap_or_default())
        .collect();
    assert_eq!(classes, ["fail", "fail", "pass", "pass"], "{tests}");
    assert!(rows[0].contains("data-status=\"failed\"") && rows[0].contains("add is off by one"));
    assert!(rows[0].contains("after 3 attempts"));
    assert!(
        rows[1].contains("data-status=\"error\"") && rows[1].contains("echo crashes the server")
    );
    assert!(rows[1].contains("SystemExit: 3"));
    // Hostile text stayed text: the parser built no element from it.
    assert!(rows[3].contains("echo &lt;b&gt;bold&lt;/b&gt; &amp; &lt;/td&gt; \"quoted\""));

    let checks = dom
        .split("<section id=\"checks\"")
        .nth(1)
        .unwrap_or_default();
    assert!(checks.contains("<tr class=\"fail\" data-status=\"error\">"));
    assert!(checks.contains("tool has no description"));
    for key in ["evals", "bench", "fuzz"] {
        assert!(
            dom.contains(&format!("<section id=\"{key}\" data-status=\"skipped\">")),
            "{key}"
        );
    }
    assert!(!dom.contains("<script"), "the page has no script");
    let _ = std::fs::remove_dir_all(&dir);
}
