//! Fixed reports the renderers' snapshot tests are rendered from, and the one place where times
//! are redacted from snapshots.

use serde_json::json;

use super::model::{
    ChecksResults, Finding, Generator, Inventory, Phase, PhaseStatus, Phases, RunReport,
    ServerError, ServerSummary, Severity, TestResult, TestStatus, ToolSummary,
};

/// Snapshot settings every renderer test uses: times (`12ms`, `2.76s`, `time="0.012"`,
/// `"duration_ms": 12.5`, RFC 3339 stamps) become placeholders, so a fixture's timings can change
/// without touching every snapshot. Time formatting has its own unit tests in `escape`.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.add_filter(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)",
        "[timestamp]",
    );
    settings.add_filter(
        r#""(duration|latency)_ms": [0-9.e+-]+"#,
        "\"${1}_ms\": [ms]",
    );
    settings.add_filter(r#"time="[0-9.]+""#, "time=\"[s]\"");
    settings.add_filter(r"\b\d+(\.\d+)?ms\b", "[ms]");
    settings.add_filter(r"\b\d+\.\d\ds\b", "[s]");
    settings
}

fn server() -> ServerSummary {
    ServerSummary {
        name: Some("demo-server".into()),
        version: Some("0.1.0".into()),
        title: Some("Demo server".into()),
        protocol_version: "2025-06-18".into(),
        era: "legacy".into(),
        transport: "stdio".into(),
        capabilities: json!({ "tools": { "listChanged": false } }),
    }
}

fn tool(name: &str, summary: &str) -> ToolSummary {
    ToolSummary {
        name: name.into(),
        title: None,
        summary: summary.into(),
        annotations: None,
        has_output_schema: false,
    }
}

fn finding(tool: &str, check: &str, severity: Severity, message: &str) -> Finding {
    Finding {
        tool: tool.into(),
        check: check.into(),
        severity,
        message: message.into(),
        fails: severity == Severity::Error,
    }
}

fn test(name: &str, tool: &str, status: TestStatus, line: u32) -> TestResult {
    TestResult {
        name: name.into(),
        tool: tool.into(),
        status,
        failures: Vec::new(),
        latency_ms: 12.0,
        attempts: 1,
        is_error: Some(false),
        text: Some("5".into()),
        stderr: None,
        tags: Vec::new(),
        line: Some(line),
    }
}

fn base(passed: bool) -> RunReport {
    RunReport {
        schema_version: super::model::SCHEMA_VERSION,
        generator: Generator {
            name: "toolproof".into(),
            version: "0.1.0".into(),
        },
        command: "run".into(),
        target: "python server.py".into(),
        config_file: Some("toolproof.yaml".into()),
        server: Some(server()),
        started_at: "2026-12-01T10:00:00Z".into(),
        duration_ms: 2760.0,
        passed,
        exit_code: if passed { 0 } else { 1 },
        error: None,
        inventory: None,
        stdout_noise: Vec::new(),
        phases: Phases {
            checks: Phase::skipped("not run"),
            tests: Phase::skipped("no tests in toolproof.yaml"),
            evals: Phase::skipped("no evals section in toolproof.yaml"),
            bench: Phase::skipped("no bench section in toolproof.yaml"),
            fuzz: Phase::skipped("no fuzz section in toolproof.yaml"),
        },
        secrets: Vec::new(),
    }
}

fn ran<T>(status: PhaseStatus, duration_ms: f64, results: T) -> Phase<T> {
    Phase {
        status,
        reason: None,
        duration_ms,
        results,
    }
}

/// Every phase that ran passed; one test was flaky; evals, bench and fuzz not configured.
pub fn all_passed() -> RunReport {
    let mut r = base(true);
    let names = ["add", "echo", "divide"];
    r.inventory = Some(Inventory {
        tools: vec![
            tool("add", "Add two integers."),
            tool("echo", "Echo the text back."),
            tool("divide", "Divide a by b."),
        ],
        resources: None,
        prompts: None,
    });
    r.phases.checks = ran(
        PhaseStatus::Passed,
        3.0,
        ChecksResults {
            strict: false,
            tools: names.iter().map(|s| s.to_string()).collect(),
            disabled: vec!["tool-list-size".into()],
            findings: Vec::new(),
        },
    );
    let mut flaky = test("echo contains and regex", "echo", TestStatus::Flaky, 14);
    flaky.attempts = 2;
    r.phases.tests = ran(
        PhaseStatus::Passed,
        650.0,
        vec![
            test("add small numbers", "add", TestStatus::Passed, 8),
            flaky,
            test(
                "divide by zero is an error",
                "divide",
                TestStatus::Passed,
                22,
            ),
        ],
    );
    r
}

/// Check errors and warnings (duplicate names, an unnamed tool, a pair, the whole list), failing
/// tests of every kind, non-protocol stdout, and a server that died mid-run and could not be
/// restarted (`error` set, evals errored).
pub fn failing() -> RunReport {
    let mut r = base(false);
    r.stdout_noise = vec![
        "Starting demo-server...".into(),
        "debug: loaded 5 tools".into(),
    ];
    r.phases.checks = ran(
        PhaseStatus::Failed,
        4.0,
        ChecksResults {
            strict: false,
            tools: vec![
                "add".into(),
                "echo".into(),
                "add".into(),
                "<unnamed>".into(),
                "search".into(),
                "search_docs".into(),
            ],
            disabled: Vec::new(),
            findings: vec![
                finding(
                    "add",
                    "duplicate-name",
                    Severity::Error,
                    "2 tools are named 'add'; clients keep only one",
                ),
                finding("<unnamed>", "name", Severity::Error, "tool has no name"),
                finding(
                    "search",
                    "description",
                    Severity::Error,
                    "tool has no description",
                ),
                finding(
                    "search",
                    "input-schema",
                    Severity::Error,
                    "input schema is not valid JSON Schema: 'strng' is not valid under any of the given schemas",
                ),
                finding(
                    "search",
                    "required-fields",
                    Severity::Warning,
                    "required field 'query' has no description",
                ),
                finding(
                    "search + search_docs",
                    "similar-tools",
                    Severity::Warning,
                    "names and descriptions are 86% similar; a model may confuse them",
                ),
                finding(
                    "*",
                    "tool-list-size",
                    Severity::Warning,
                    "the tool list is about 12400 tokens, over the budget of 10000",
                ),
            ],
        },
    );
    let mut wrong = test("wrong expectation retried", "add", TestStatus::Failed, 30);
    wrong.failures = vec!["$.result: expected 3, got 2".into()];
    wrong.attempts = 2;
    wrong.text = Some("{\"result\": 2}".into());
    let mut two = test("echo contains and regex", "echo", TestStatus::Failed, 36);
    two.failures = vec![
        "text does not contain 'HELLO'".into(),
        "text does not match regex '^h.*o$'".into(),
    ];
    two.text = Some("goodbye".into());
    let mut crash = test("echo crash kills the server", "echo", TestStatus::Error, 42);
    crash.failures = vec!["no result: the server exited with status 3 during the call".into()];
    crash.is_error = None;
    crash.text = None;
    crash.stderr = Some("Traceback (most recent call last):\n  File \"server.py\", line 40, in echo\nSystemExit: 3\ndemo-server: about to die on purpose\n".into());
    let mut after = test(
        "server restarted after crash",
        "add",
        TestStatus::NotRun,
        48,
    );
    after.failures = vec!["not run: the server could not be restarted".into()];
    after.is_error = None;
    after.text = None;
    after.latency_ms = 0.0;
    after.attempts = 0;
    r.phases.tests = ran(
        PhaseStatus::Failed,
        700.0,
        vec![
            test("add small numbers", "add", TestStatus::Passed, 8),
            wrong,
            two,
            crash,
            after,
        ],
    );
    r.phases.evals = Phase::error("the server could not be restarted after it exited");
    r.error = Some(ServerError {
        message: "the server exited with status 3 and could not be restarted: connection closed"
            .into(),
        stderr: Some("demo-server: about to die on purpose\n".into()),
    });
    r
}

/// The server could not be started at all: no server info, phases errored or skipped.
pub fn unreachable() -> RunReport {
    let mut r = base(false);
    r.target = "./missing-server --port 0".into();
    r.server = None;
    r.duration_ms = 31.0;
    r.error = Some(ServerError {
        message: "cannot start the server: ./missing-server: No such file or directory (os error 2)\nhint: check `server.command` in toolproof.yaml".into(),
        stderr: None,
    });
    let why = "the server could not be reached";
    r.phases.checks = Phase::error(why);
    r.phases.tests = Phase::error(why);
    r.phases.evals = Phase::error(why);
    r
}

/// Text a hostile server (or model) could send, in every untrusted field; one secret to redact.
pub fn hostile() -> RunReport {
    let mut r = base(false);
    let evil_name = "evil</testcase>]]><script>alert(1)</script>";
    r.secrets = vec!["sk-live-123456".into(), "abc".into()];
    r.target = "https://mcp.example/?token=sk-live-123456".into();
    r.server = Some(ServerSummary {
        name: Some("pwn|ed @everyone \x1b]0;owned\x07".into()),
        version: Some("1.0\n::error::fake".into()),
        ..server()
    });
    r.stdout_noise = vec!["\x1b[2J\x1b[Hcleared your screen".into()];
    r.phases.checks = ran(
        PhaseStatus::Failed,
        1.0,
        ChecksResults {
            strict: true,
            tools: vec![evil_name.into(), "a.b.c".into(), "".into()],
            disabled: Vec::new(),
            findings: vec![
                finding(
                    evil_name,
                    "description",
                    Severity::Error,
                    "line one | cell\nline two ::error::injected\n::set-output name=x::y",
                ),
                Finding {
                    fails: true,
                    ..finding(
                        "a.b.c",
                        "required-fields",
                        Severity::Warning,
                        "hi @everyone see [click](https://evil.example) `code` **bold** <img src=x onerror=alert(1)> & %0A 100%",
                    )
                },
            ],
        },
    );
    let mut t = test(
        "ansi \x1b[31mred\x1b[0m test, with: comma",
        "a.b.c",
        TestStatus::Failed,
        7,
    );
    t.failures = vec![
        "::error file=x::owned".into(),
        "got ]]> and </system-err> \u{1}\u{7}".into(),
        "mid-line ##[error]legacy command".into(),
    ];
    t.text = Some("\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ sk-live-123456".into());
    t.stderr = Some("\x1b[1;1H\x1b[2Jfake PASSED line\r\n::warning::from stderr\n".into());
    r.phases.tests = ran(PhaseStatus::Failed, 20.0, vec![t]);
    r.phases.evals = Phase::skipped("provider key `ANTHROPIC_API_KEY` | not set <b>");
    r.error = Some(ServerError {
        message: "server said: \x1b[31m</testcase>\x1b[0m @everyone\n::error::boom".into(),
        stderr: Some("token sk-live-123456 leaked\n\x07bell".into()),
    });
    r
}

/// All fixtures with their snapshot names.
pub fn all() -> Vec<(&'static str, RunReport)> {
    vec![
        ("all_passed", all_passed()),
        ("failing", failing()),
        ("unreachable", unreachable()),
        ("hostile", hostile()),
    ]
}
