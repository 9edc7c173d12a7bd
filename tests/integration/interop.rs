//! Interop: `toolproof inspect` and `run` against MCP servers that others wrote — the official
//! reference servers from npm and servers on the official Python SDK (1.x and 2.x), over stdio,
//! streamable HTTP and the 2024-11-05 HTTP+SSE transport, and a corpus of real servers whose
//! findings are pinned in golden files ([`corpus`]) — and toolproof's reports read by tools
//! others wrote (the JUnit XML by Python `xmlschema` and junitparser). `scripts/test.sh`
//! installs them and sets `TOOLPROOF_INTEROP_DIR`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use toolproof_test_support::{Server, free_port, interop_dir};

fn node_server(name: &str) -> String {
    interop_dir()
        .join("node/node_modules/@modelcontextprotocol")
        .join(name)
        .join("dist/index.js")
        .display()
        .to_string()
}

fn python(sdk: &str) -> String {
    interop_dir()
        .join(sdk)
        .join("bin/python")
        .display()
        .to_string()
}

fn sdk_server_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/interop/sdk_server.py")
        .display()
        .to_string()
}

/// A fresh folder for `name` under the target folder's scratch space: the next run replaces it,
/// so runs leave no folders behind in the system's temp folder.
fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("interop-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn toolproof(args: &[&str], cwd: &Path) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_toolproof"))
        .args(args)
        .current_dir(cwd)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_WORKSPACE")
        .output()
        .expect("run toolproof");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn inspect_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["inspect", "--json"];
    all.extend_from_slice(args);
    let out = toolproof(&all, &std::env::temp_dir());
    let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "inspect --json printed no JSON ({e}); stdout:\n{}\nstderr:\n{}",
            out.stdout, out.stderr
        )
    });
    (out.code, v)
}

fn tool_names(report: &Value) -> Vec<String> {
    report["inventory"]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The exit code must agree with the static-check findings.
fn assert_exit_matches_checks(code: i32, report: &Value) {
    let failing = report["phases"]["checks"]["results"]["findings"]
        .as_array()
        .map_or(0, |f| f.iter().filter(|x| x["fails"] == true).count());
    assert!(
        report["phases"]["checks"]["status"] != "skipped",
        "{report:#}"
    );
    assert_eq!(code, i32::from(failing > 0), "report: {report:#}");
}

/// Starts an HTTP server and returns once it printed `ready` on stdout or stderr.
fn start_http(program: &str, args: &[&str], env: &[(&str, String)], ready: &str) -> Server {
    toolproof_test_support::start_until(program, args, env, ready)
}

#[test]
fn everything_over_stdio() {
    let (code, report) = inspect_json(&["--", "node", &node_server("server-everything"), "stdio"]);
    assert_eq!(report["server"]["name"], "mcp-servers/everything");
    assert_eq!(report["server"]["era"], "legacy");
    assert_eq!(report["server"]["transport"], "stdio");
    let tools = tool_names(&report);
    for want in ["echo", "get-sum", "get-structured-content"] {
        assert!(
            tools.iter().any(|t| t == want),
            "{want} missing from {tools:?}"
        );
    }
    assert!(
        report["inventory"]["resources"]
            .as_array()
            .is_some_and(|r| !r.is_empty())
    );
    assert!(
        report["inventory"]["prompts"]
            .as_array()
            .is_some_and(|p| !p.is_empty())
    );
    assert_exit_matches_checks(code, &report);
}

#[test]
fn everything_inspected_shows_arguments_and_whole_definitions() {
    let server = node_server("server-everything");
    let text = toolproof(
        &["inspect", "--", "node", &server, "stdio"],
        &std::env::temp_dir(),
    );
    assert!(
        text.stdout.contains("get-sum (Get Sum Tool)")
            && text.stdout.contains("arguments: a: number, b: number"),
        "{}",
        text.stdout
    );
    let (_, report) = inspect_json(&["--", "node", &server, "stdio"]);
    let sum = report["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "get-sum"))
        .unwrap_or_else(|| panic!("no get-sum in tools[]: {report:#}"));
    assert_eq!(sum["inputSchema"]["properties"]["a"]["type"], "number");
    assert_eq!(sum["annotations"]["readOnlyHint"], true);
}

#[test]
fn everything_over_streamable_http_with_reports() {
    let port = free_port();
    let _server = start_http(
        "node",
        &[&node_server("server-everything"), "streamableHttp"],
        &[("PORT", port.to_string())],
        "listening on port",
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (code, report) = inspect_json(&["--url", &url]);
    assert_eq!(report["server"]["transport"], "http");
    assert!(tool_names(&report).iter().any(|t| t == "echo"));
    assert_exit_matches_checks(code, &report);

    let dir = temp_dir("everything-http");
    std::fs::write(
        dir.join("toolproof.yaml"),
        format!("server:\n  url: {url}\nchecks:\n  strict: false\n"),
    )
    .expect("write config");
    let out = toolproof(
        &[
            "run",
            "--junit",
            "junit.xml",
            "--json",
            "report.json",
            "--summary",
            "summary.md",
        ],
        &dir,
    );
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("report.json")).expect("JSON report written"),
    )
    .expect("JSON report parses");
    assert_eq!(json["command"], "run");
    assert_eq!(json["server"]["name"], "mcp-servers/everything");
    assert_eq!(json["exit_code"], out.code, "stdout:\n{}", out.stdout);
    let junit = std::fs::read_to_string(dir.join("junit.xml")).expect("JUnit written");
    assert!(junit.contains("<testsuites"), "{junit}");
    assert!(std::fs::metadata(dir.join("summary.md")).is_ok_and(|m| m.len() > 0));
}

#[test]
fn everything_over_http_sse_lists_the_stdio_tools_with_sse_and_auto() {
    let server = node_server("server-everything");
    let (_, stdio) = inspect_json(&["--", "node", &server, "stdio"]);
    let want = tool_names(&stdio);
    assert!(want.iter().any(|t| t == "echo"), "{want:?}");
    let port = free_port();
    let _server = start_http(
        "node",
        &[&server, "sse"],
        &[("PORT", port.to_string())],
        "Server is running on port",
    );
    let url = format!("http://127.0.0.1:{port}/sse");
    // `auto` POSTs to the stream URL first; the server answers 404 and toolproof falls back.
    for transport in ["sse", "auto"] {
        let (code, report) = inspect_json(&["--url", &url, "--transport", transport]);
        assert_eq!(
            report["server"]["transport"], "sse",
            "{transport}: {report:#}"
        );
        assert_eq!(report["server"]["name"], "mcp-servers/everything");
        assert_eq!(tool_names(&report), want, "{transport}");
        assert_exit_matches_checks(code, &report);
    }
}

#[test]
fn filesystem_server_in_a_temp_folder() {
    let root = temp_dir("fs-root");
    let (code, report) = inspect_json(&[
        "--",
        "node",
        &node_server("server-filesystem"),
        &root.display().to_string(),
    ]);
    let tools = tool_names(&report);
    assert!(
        tools
            .iter()
            .any(|t| t == "read_text_file" || t == "read_file"),
        "{tools:?}"
    );
    assert!(tools.iter().any(|t| t == "list_directory"), "{tools:?}");
    assert_exit_matches_checks(code, &report);
}

#[test]
fn memory_server_with_its_data_file_in_a_temp_folder() {
    let dir = temp_dir("memory");
    std::fs::write(
        dir.join("toolproof.yaml"),
        format!(
            "server:\n  command: [node, {}]\n  env:\n    MEMORY_FILE_PATH: {}\n",
            node_server("server-memory"),
            dir.join("memory.jsonl").display()
        ),
    )
    .expect("write config");
    let out = toolproof(&["inspect", "--json", "-c", "toolproof.yaml"], &dir);
    let report: Value = serde_json::from_str(&out.stdout).expect("inspect JSON");
    assert_eq!(report["server"]["name"], "memory-server");
    assert!(tool_names(&report).iter().any(|t| t == "create_entities"));
    assert_exit_matches_checks(out.code, &report);
}

fn python_stdio(sdk: &str, era: &str) {
    let (code, report) = inspect_json(&["--", &python(sdk), &sdk_server_script(), "stdio"]);
    assert_eq!(report["server"]["name"], "sdk-demo", "{report:#}");
    assert_eq!(report["server"]["era"], era);
    assert_eq!(tool_names(&report), ["add", "shout", "refuse"]);
    assert_eq!(report["inventory"]["resources"][0]["uri"], "note://hello");
    assert_eq!(report["inventory"]["prompts"][0]["name"], "greet");
    assert_exit_matches_checks(code, &report);
}

fn python_http(sdk: &str, era: &str) {
    let port = free_port();
    let _server = start_http(
        &python(sdk),
        &[&sdk_server_script(), "http", &port.to_string()],
        &[],
        "Uvicorn running",
    );
    let (code, report) = inspect_json(&["--url", &format!("http://127.0.0.1:{port}/mcp")]);
    assert_eq!(report["server"]["era"], era, "{report:#}");
    assert_eq!(report["server"]["transport"], "http");
    assert_eq!(tool_names(&report), ["add", "shout", "refuse"]);
    assert_exit_matches_checks(code, &report);
}

#[test]
fn python_sdk_1_over_stdio_speaks_the_handshake() {
    python_stdio("py-mcp1", "legacy");
}

#[test]
fn python_sdk_1_over_http_speaks_the_handshake() {
    python_http("py-mcp1", "legacy");
}

#[test]
fn python_sdk_2_over_stdio_is_stateless() {
    python_stdio("py-mcp2", "modern");
}

#[test]
fn python_sdk_2_over_http_is_stateless() {
    python_http("py-mcp2", "modern");
}

#[test]
fn python_sdk_2_pinned_to_the_handshake() {
    let (_, report) = inspect_json(&[
        "--protocol",
        "2025-11-25",
        "--",
        &python("py-mcp2"),
        &sdk_server_script(),
        "stdio",
    ]);
    assert_eq!(report["server"]["era"], "legacy", "{report:#}");
    assert_eq!(report["server"]["protocol_version"], "2025-11-25");
}

// ---------------------------------------------------------------- YAML tool-call tests

/// Runs `toolproof run` on a config in a fresh folder; returns the exit code and the JSON report.
fn run_config(name: &str, yaml: &str) -> (i32, Value, String) {
    let dir = temp_dir(name);
    std::fs::write(dir.join("toolproof.yaml"), yaml).expect("write config");
    let out = toolproof(&["run", "--json", "report.json"], &dir);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap_or_default())
            .unwrap_or(Value::Null);
    (out.code, report, out.stdout)
}

fn test_statuses(report: &Value) -> Vec<(String, String)> {
    report["phases"]["tests"]["results"]
        .as_array()
        .map(|tests| {
            tests
                .iter()
                .map(|t| {
                    (
                        t["name"].as_str().unwrap_or("").to_owned(),
                        t["status"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn all_passed(report: &Value, stdout: &str) {
    let statuses = test_statuses(report);
    assert!(!statuses.is_empty(), "no tests ran:\n{stdout}");
    for (name, status) in &statuses {
        assert_eq!(status, "passed", "{name}:\n{stdout}");
    }
}

#[test]
fn tests_pass_against_server_everything() {
    let yaml = format!(
        r#"server:
  command: [node, {}, stdio]
checks:
  enabled: false
tests:
  - name: echo says it back
    tool: echo
    args: {{message: hello there}}
    expect:
      contains: "Echo: hello there"
      regex: "^Echo: "
  - name: get-sum adds
    tool: get-sum
    args: {{a: 2, b: 40}}
    expect:
      is_error: false
      contains: "is 42"
  - name: structured content matches its output schema
    tool: get-structured-content
    args: {{location: Chicago}}
    expect:
      jsonpath:
        $.temperature: {{type: number, equals: 36}}
        $.conditions: {{type: string}}
        $.humidity: {{min: 0, max: 100}}
"#,
        node_server("server-everything")
    );
    let (code, report, stdout) = run_config("tests-everything", &yaml);
    all_passed(&report, &stdout);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn scripted_answers_reach_server_everything_over_http_sse() {
    let port = free_port();
    let _server = start_http(
        "node",
        &[&node_server("server-everything"), "sse"],
        &[("PORT", port.to_string())],
        "Server is running on port",
    );
    // Its sampling and elicitation tools exist only for a client that declares the
    // capabilities, which the scripts make toolproof do; the requests come on the event stream.
    let yaml = format!(
        r#"server:
  url: http://127.0.0.1:{port}/sse
  transport: sse
checks:
  enabled: false
tests:
  - name: echo says it back
    tool: echo
    args: {{message: hello there}}
    expect: {{contains: "Echo: hello there"}}
  - name: sampling answered as scripted
    tool: trigger-sampling-request
    args: {{prompt: say hi}}
    sampling: {{text: a scripted hello}}
    expect: {{contains: "a scripted hello"}}
  - name: elicitation accepted as scripted
    tool: trigger-elicitation-request
    elicitation: {{action: accept, content: {{name: Ada Lovelace}}}}
    expect: {{contains: "- Name: Ada Lovelace"}}
"#
    );
    let (code, report, stdout) = run_config("tests-everything-sse", &yaml);
    all_passed(&report, &stdout);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(report["server"]["transport"], "sse");
    let asked: Vec<&str> = report["phases"]["tests"]["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["server_requests"][0]["method"].as_str())
        .collect();
    assert_eq!(asked, ["sampling/createMessage", "elicitation/create"]);
}

#[test]
fn tests_pass_against_server_filesystem_in_a_temp_folder() {
    let root = temp_dir("tests-fs-root");
    std::fs::write(root.join("notes.txt"), "first line\nsecond line\n").expect("seed file");
    let yaml = format!(
        r#"server:
  command: [node, {}, {root}]
checks:
  enabled: false
tests:
  - name: write a file
    tool: write_file
    args: {{path: "{root}/hello.txt", content: "hi from toolproof"}}
    expect:
      is_error: false
  - name: read it back
    tool: read_text_file
    args: {{path: "{root}/hello.txt"}}
    expect:
      contains: hi from toolproof
  - name: the folder lists both files
    tool: list_directory
    args: {{path: "{root}"}}
    expect:
      contains: [hello.txt, notes.txt]
  - name: outside the allowed folder is refused
    tool: read_text_file
    args: {{path: /etc/hostname}}
    expect:
      is_error: true
"#,
        node_server("server-filesystem"),
        root = root.display()
    );
    let (code, report, stdout) = run_config("tests-fs", &yaml);
    all_passed(&report, &stdout);
    assert_eq!(code, 0, "{stdout}");
    assert!(root.join("hello.txt").exists());
}

#[test]
fn tests_pass_against_server_memory_with_its_data_file_in_a_temp_folder() {
    let dir = temp_dir("tests-memory-data");
    let data = dir.join("memory.jsonl");
    let yaml = format!(
        r#"server:
  command: [node, {}]
  env:
    MEMORY_FILE_PATH: "{}"
checks:
  enabled: false
tests:
  - name: create an entity
    tool: create_entities
    args:
      entities:
        - {{name: toolproof, entityType: project, observations: [tests MCP servers]}}
    expect:
      contains: toolproof
  - name: find it again
    tool: search_nodes
    args: {{query: toolproof}}
    expect:
      contains: tests MCP servers
"#,
        node_server("server-memory"),
        data.display()
    );
    let (code, report, stdout) = run_config("tests-memory", &yaml);
    all_passed(&report, &stdout);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        std::fs::read_to_string(&data).is_ok_and(|d| d.contains("toolproof")),
        "the memory server kept its data in the temp folder"
    );
}

#[test]
fn tests_pass_against_python_sdk_servers_including_a_tool_error() {
    for sdk in ["py-mcp1", "py-mcp2"] {
        let yaml = format!(
            r#"server:
  command: [{}, {}, stdio]
checks:
  enabled: false
tests:
  - name: add
    tool: add
    args: {{a: 2, b: 3}}
    expect:
      equals: {{result: 5}}
  - name: shout
    tool: shout
    args: {{text: hey}}
    expect:
      contains: HEY
  - name: a tool error is an error result
    tool: refuse
    args: {{reason: not today}}
    expect:
      is_error: true
      contains: not today
"#,
            python(sdk),
            sdk_server_script()
        );
        let (code, report, stdout) = run_config(&format!("tests-{sdk}"), &yaml);
        all_passed(&report, &stdout);
        assert_eq!(code, 0, "{sdk}: {stdout}");
    }
}
mod action;
mod corpus;
mod crowd;
mod html;
mod junit;
mod npm;
mod protocol;
mod wheel;
mod yaml11;
