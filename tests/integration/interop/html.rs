//! The HTML report in a real browser: a failing run rendered by `report::html::render`, opened
//! in headless Chromium (Debian's `chromium`, or `$CHROMIUM`) at phone and desktop widths. The
//! screenshots must be real PNGs of the window's size, and the DOM Chromium parsed must hold the
//! failing rows, first, with their names. A stress run's chart is laid out by Chromium, light
//! and dark, and measured: one point per distractor count, left to right, lower for lower
//! accuracy, inside a phone's width, with readable text in both colour schemes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use toolproof::facade::outcome::{
    CacheUse, ChecksResults, Finding, Generator, Phase, PhaseStatus, Phases, RunReport,
    ServerSummary, Severity, StressBreak, StressMiss, StressModel, StressPoint, StressResults,
    TestResult, TestStatus, ToolOrder,
};
use toolproof::facade::render_html;

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
        warnings: Vec::new(),
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
        schema_version: toolproof::facade::outcome::SCHEMA_VERSION,
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
        shard: None,
        config_warnings: Vec::new(),
        cache_audit: None,
        history: None,
        config_digest: None,
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
            stress: Phase::skipped(
                "not asked for: pass --stress or set `evals.stress` in the config",
            ),
            bench: Phase::skipped("no bench section in toolproof.yaml"),
            fuzz: Phase::skipped("no fuzz section in toolproof.yaml"),
            protocol: Phase::skipped("no protocol section in toolproof.yaml"),
            surface: None,
        },
        secrets: Vec::new(),
        absent: Vec::new(),
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
    std::fs::write(&page, render_html(&failing_report())).expect("write the report");

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

// ---------------------------------------------------------------- the stress chart

/// One measured list of the curve (3 server tools, 10 cases).
fn point(distractors: usize, order: ToolOrder, correct: usize, min: f64) -> StressPoint {
    let accuracy = correct as f64 / 10.0;
    StressPoint {
        distractors,
        order,
        tools: 3 + distractors,
        tool_list_hash: "5e1f0c3a9b27".into(),
        total: 10,
        correct,
        accuracy,
        trial_accuracy: accuracy,
        wilson_lower: accuracy,
        below: accuracy < min,
        not_run: 0,
        provider_errors: 0,
        from_evals: distractors == 0 && order == ToolOrder::Server,
        misses: (correct < 10)
            .then(|| StressMiss {
                case: "save <a> \"note\"".into(),
                expected: "add_note".into(),
                picked: "notes_create".into(),
                distractor: true,
            })
            .into_iter()
            .collect(),
    }
}

/// A run whose curve falls from 100% to 40% and breaks at 25 distractors.
fn stress_report() -> RunReport {
    use ToolOrder::*;
    let min = 0.8;
    let points = vec![
        point(0, Server, 10, min),
        point(0, Shuffled, 10, min),
        point(0, Reversed, 9, min),
        point(10, Server, 9, min),
        point(25, Server, 7, min),
        point(50, Server, 6, min),
        point(100, Server, 4, min),
        point(100, Shuffled, 3, min),
        point(100, Reversed, 5, min),
    ];
    let results = StressResults {
        seed: 0,
        corpus: 380,
        server_tools: 3,
        distractors: (0..100).map(|i| format!("distractor_{i}")).collect(),
        skipped: Vec::new(),
        min_accuracy: min,
        must_hold: None,
        answers: 80,
        cache: CacheUse {
            read: true,
            write: true,
            dir: Some(".toolproof-cache".into()),
            hits: 80,
            ..CacheUse::default()
        },
        models: vec![StressModel {
            model: "claude <b>sonnet</b>".into(),
            points,
            breaks_at: Some(StressBreak {
                distractors: 25,
                order: Server,
                accuracy: 0.7,
            }),
            holds: None,
        }],
        real_distractors: 0,
        headroom: Vec::new(),
    };
    let mut r = failing_report();
    r.phases.stress = Phase {
        status: PhaseStatus::Passed,
        reason: Some(
            "selection breaks at 25 distractors: 70% (7/10) in server order, minimum 80%".into(),
        ),
        duration_ms: 900.0,
        results: Some(results),
    };
    r
}

/// Measures the laid-out chart from inside the page and leaves the figures in an attribute
/// of `<body>` for `--dump-dom`. Only this test's copy of the page has a script.
const PROBE: &str = r#"<script>
const svg = document.querySelector('svg.stress-chart');
const box = svg.getBoundingClientRect();
const style = e => getComputedStyle(e);
const label = svg.querySelector('text.xlabel');
const points = [...svg.querySelectorAll('circle.pt.server')].map(c => {
  const b = c.getBoundingClientRect();
  return [+c.dataset.distractors, +c.dataset.accuracy, b.x + b.width / 2, b.y + b.height / 2];
});
document.body.setAttribute('data-probe', JSON.stringify({
  width: box.width, left: box.left, right: box.right, viewport: innerWidth,
  points,
  markers: svg.querySelectorAll('.pt').length,
  stroke: style(svg.querySelector('polyline.series')).stroke,
  text: style(label).fill,
  background: style(document.body).backgroundColor,
  font_px: parseFloat(style(label).fontSize) * box.width / svg.viewBox.baseVal.width,
}));
</script>
"#;

/// The figures the probe left, read from the DOM Chromium dumped.
fn probe(page: &Path, profile: &Path, width: u32, extra: &[&str]) -> Value {
    let mut args = vec!["--dump-dom"];
    args.extend_from_slice(extra);
    let out = run_chromium(page, profile, width, 900, &args);
    let dom = String::from_utf8_lossy(&out.stdout);
    let raw = dom
        .split("data-probe=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| panic!("no probe in the DOM ({}):\n{dom}", out.status));
    serde_json::from_str(&raw.replace("&quot;", "\"").replace("&amp;", "&"))
        .unwrap_or_else(|e| panic!("probe is not JSON ({e}): {raw}"))
}

/// Relative luminance (0 dark, 1 light) of a computed `rgb(r, g, b)` colour.
fn luminance(css: &str) -> f64 {
    let parts: Vec<f64> = css
        .trim_start_matches("rgba(")
        .trim_start_matches("rgb(")
        .trim_end_matches(')')
        .split(',')
        .filter_map(|p| p.trim().parse().ok())
        .collect();
    assert!(parts.len() >= 3, "not an rgb colour: {css}");
    (0.2126 * parts[0] + 0.7152 * parts[1] + 0.0722 * parts[2]) / 255.0
}

#[test]
fn chromium_draws_the_stress_curve_one_point_per_count_light_and_dark() {
    // A folder of its own: `work_dir` empties the other test's while it runs.
    let dir = std::env::temp_dir().join(format!("toolproof-html-stress-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create dir");
    let html = render_html(&stress_report());
    assert!(!html.contains("<script"), "the report itself has no script");
    let page = dir.join("stress.html");
    std::fs::write(&page, &html).expect("write the report");
    let probed = dir.join("probed.html");
    std::fs::write(
        &probed,
        html.replacen("</body>", &format!("{PROBE}</body>"), 1),
    )
    .expect("write the probed copy");
    // For the screenshots: the same page with every other section hidden, so the chart is in
    // the picture (a `#stress` fragment leaves headless Chromium's shot blank).
    let alone = dir.join("alone.html");
    let hide = "<style>main>section:not(#stress),header.top{display:none}</style></head>";
    std::fs::write(&alone, html.replacen("</head>", hide, 1)).expect("write the chart-only copy");
    let profile = dir.join("profile");

    let light = probe(&probed, &profile, 390, &[]);
    let points = light["points"].as_array().expect("points");
    let counts: Vec<u64> = points.iter().filter_map(|p| p[0].as_u64()).collect();
    assert_eq!(counts, [0, 10, 25, 50, 100], "one point per count: {light}");
    assert_eq!(
        light["markers"], 9,
        "four more for the other orders: {light}"
    );
    for pair in points.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (ax, ay, bx, by) = (a[2].as_f64(), a[3].as_f64(), b[2].as_f64(), b[3].as_f64());
        assert!(ax < bx, "counts go left to right: {light}");
        // Lower accuracy is drawn lower (a larger y); equal accuracy at the same height.
        let (acc_a, acc_b) = (a[1].as_f64().unwrap_or(0.0), b[1].as_f64().unwrap_or(0.0));
        assert!(acc_b < acc_a && by > ay, "falling accuracy falls: {light}");
    }
    let width = light["width"].as_f64().unwrap_or(0.0);
    let viewport = light["viewport"].as_f64().unwrap_or(0.0);
    assert!(width > 300.0, "the chart uses the phone's width: {light}");
    assert!(
        light["left"].as_f64().unwrap_or(-1.0) >= 0.0
            && light["right"].as_f64().unwrap_or(f64::MAX) <= viewport,
        "the chart fits the phone's width: {light}"
    );
    assert!(
        light["font_px"].as_f64().unwrap_or(0.0) >= 10.0,
        "labels stay readable on a phone: {light}"
    );

    let dark = probe(&probed, &profile, 390, &["--force-dark-mode"]);
    let text = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_owned();
    assert!(luminance(&text(&light, "background")) > 0.9, "{light}");
    assert!(luminance(&text(&dark, "background")) < 0.1, "{dark}");
    // The labels stand out from the page in both schemes, and the line changes colour too.
    for v in [&light, &dark] {
        let contrast = (luminance(&text(v, "text")) - luminance(&text(v, "background"))).abs();
        assert!(contrast > 0.35, "labels are hard to read: {v}");
    }
    assert_ne!(text(&light, "stroke"), text(&dark, "stroke"));

    for (width, height, dark) in [(390, 844, false), (390, 844, true), (1280, 900, false)] {
        let png = dir.join(format!("stress-{width}-{dark}.png"));
        let shot = format!("--screenshot={}", png.display());
        let mut args = vec![shot.as_str()];
        if dark {
            args.push("--force-dark-mode");
        }
        let out = run_chromium(&alone, &profile, width, height, &args);
        let bytes = std::fs::read(&png).unwrap_or_else(|e| {
            panic!(
                "no screenshot at {} ({e}); chromium exited with {}:\n{}",
                png.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert_eq!(png_size(&bytes), (width, height));
        assert!(bytes.len() > 20_000, "the page at {width}px looks empty");
    }
    if std::env::var_os("TOOLPROOF_KEEP_SCREENSHOTS").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
