//! End-to-end tests of the `toolproof` binary against the scripted fake MCP server
//! (`fake_mcp`, in `tests/support`) over real pipes and loopback sockets.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use toolproof_test_support::{Dir, Listening, Out, listening, toolproof_in, yaml_list};

use crate::http_fake;

/// The fake MCP server's binary.
fn fake() -> String {
    crate::fake("fake_mcp")
}

/// `inspect --json` against the fake server over stdio with extra flags.
fn inspect_fake(args: &[&str]) -> (Out, Value) {
    let dir = Dir::new("inspect");
    let mut all = vec!["inspect", "--json", "--"];
    let fake = fake();
    all.push(&fake);
    all.extend_from_slice(args);
    let out = toolproof_in(&dir.0, &all, &[]);
    let v = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("no JSON ({e}): {out:?}"));
    (out, v)
}

fn findings(report: &Value) -> Vec<(String, String, bool)> {
    report["phases"]["checks"]["results"]["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|x| {
                    (
                        x["tool"].as_str().unwrap_or("").to_owned(),
                        x["check"].as_str().unwrap_or("").to_owned(),
                        x["fails"] == true,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn has_finding(report: &Value, check: &str) -> bool {
    findings(report).iter().any(|(_, c, _)| c == check)
}

mod adaptive;
mod batch;
mod bedrock;
mod bench;
mod clients;
mod compare;
mod compat;
mod context;
mod cost;
mod crowd;
mod env_help;
mod evals;
mod fuzz;
mod github;
mod google;
mod google_batch;
mod inspect_output;
mod lifecycle;
mod lint;
mod local;
mod matrix;
mod merge;
mod newcomer;
mod plan;
mod requests;
mod responses;
mod rows;
mod shard;
mod tool_choice;

mod protocol;
mod stress;
mod suite;
mod surface;
mod transports;
mod tune;

// ---------------------------------------------------------------- connecting, both eras

#[test]
fn legacy_stdio_server_is_inspected() {
    let (out, report) = inspect_fake(&["--resources", "--prompts"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["server"]["name"], "fake-mcp");
    assert_eq!(report["server"]["era"], "legacy");
    assert_eq!(report["server"]["protocol_version"], "2025-11-25");
    let tools: Vec<&str> = report["inventory"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for t in ["echo", "add", "fail", "slow", "crash"] {
        assert!(tools.contains(&t), "{t} missing in {tools:?}");
    }
    assert_eq!(report["inventory"]["resources"][0]["uri"], "fake://readme");
    assert_eq!(report["inventory"]["prompts"][0]["name"], "greet");
}

#[test]
fn inspect_json_has_the_reference_keys_with_whole_tool_definitions() {
    let (out, report) = inspect_fake(&["--fault", "no-required", "--resources"]);
    assert_eq!(out.code, 0, "{out:?}");
    let add = report["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "add"))
        .unwrap_or_else(|| panic!("no tools[] entry for add: {report:#}"));
    assert_eq!(add["title"], "Add");
    assert_eq!(add["inputSchema"]["properties"]["a"]["type"], "integer");
    assert_eq!(
        add["inputSchema"]["required"],
        serde_json::json!(["a", "b"])
    );
    assert_eq!(
        add["outputSchema"]["required"],
        serde_json::json!(["result"])
    );
    assert_eq!(add["annotations"]["idempotentHint"], true);
    assert_eq!(report["resources"][0]["uri"], "fake://readme");
    assert_eq!(report["prompts"], serde_json::json!([]));
    let warning = serde_json::json!({
        "tool": "nothing_required",
        "check": "required-fields",
        "severity": "warning",
        "message": "input schema has properties but none are marked required"
    });
    assert!(
        report["checks"]
            .as_array()
            .is_some_and(|c| c.contains(&warning)),
        "{:#}",
        report["checks"]
    );
}

#[test]
fn inspect_text_shows_each_tools_arguments() {
    let dir = Dir::new("inspect-text");
    let fake = fake();
    let out = toolproof_in(
        &dir.0,
        &["inspect", "--", &fake, "--fault", "no-required"],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    for want in [
        "arguments: a: integer, b: integer",
        "arguments: text: string",
        "arguments: optional?: string",
    ] {
        assert!(out.stdout.contains(want), "{want} missing:\n{}", out.stdout);
    }
}

#[test]
fn modern_stdio_server_is_detected_and_gets_meta_on_every_request() {
    let dir = Dir::new("modern");
    let log = dir.path("wire.jsonl");
    let (out, report) = inspect_fake(&["--era", "modern", "--log", &log.display().to_string()]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["server"]["era"], "modern");
    assert_eq!(report["server"]["protocol_version"], "2026-07-28");
    let wire = dir.read("wire.jsonl");
    let lists: Vec<Value> = wire
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["message"]["method"] == "tools/list")
        .collect();
    assert!(!lists.is_empty(), "{wire}");
    for l in lists {
        let meta = &l["message"]["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "toolproof"
        );
    }
}

#[test]
fn client_info_names_toolproof_in_the_handshake() {
    let dir = Dir::new("clientinfo");
    let log = dir.path("wire.jsonl");
    let (out, _) = inspect_fake(&["--log", &log.display().to_string()]);
    assert_eq!(out.code, 0, "{out:?}");
    let wire = dir.read("wire.jsonl");
    let init = wire
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["message"]["method"] == "initialize")
        .expect("initialize sent");
    assert_eq!(init["message"]["params"]["clientInfo"]["name"], "toolproof");
    assert_eq!(
        init["message"]["params"]["clientInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert!(wire.contains("notifications/initialized"));
}

#[test]
fn dual_era_server_is_spoken_to_statelessly() {
    let (out, report) = inspect_fake(&["--era", "both"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["server"]["era"], "modern");
}

#[test]
fn a_server_that_ignores_discover_costs_no_timeout() {
    let dir = Dir::new("ignore-discover");
    let cfg = format!(
        "server:\n  command: {}\n  startup_timeout_s: 20\n",
        yaml_list(&[&fake(), "--fault", "hang-discover-only"])
    );
    dir.write("toolproof.yaml", &cfg);
    let out = toolproof_in(&dir.0, &["inspect", "--json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let report: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(report["server"]["era"], "legacy");
    // Far below the 20 s startup budget: nothing waited for the unanswered discover.
    assert!(
        out.elapsed < Duration::from_secs(10),
        "took {:?}",
        out.elapsed
    );
}

#[test]
fn protocol_can_be_pinned_in_the_yaml() {
    let dir = Dir::new("pin");
    let cfg = format!(
        "server:\n  command: {}\n  protocol: \"2025-06-18\"\n",
        yaml_list(&[&fake(), "--era", "both"])
    );
    dir.write("toolproof.yaml", &cfg);
    let out = toolproof_in(&dir.0, &["inspect", "--json"], &[]);
    let report: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(report["server"]["era"], "legacy", "{out:?}");
    assert_eq!(report["server"]["protocol_version"], "2025-06-18");
}

#[test]
fn server_requests_are_answered_so_the_server_never_waits() {
    let dir = Dir::new("server-requests");
    let cfg = format!(
        "server:\n  command: {}\n  startup_timeout_s: 5\n",
        yaml_list(&[
            &fake(),
            "--fault",
            "server-requests",
            "--fault",
            "notifications"
        ])
    );
    dir.write("toolproof.yaml", &cfg);
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("r.json");
    assert!(
        report["inventory"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{report:#}"
    );
}

#[test]
fn pagination_is_followed_to_the_end() {
    let (out, report) = inspect_fake(&["--tools", "250", "--page-size", "40"]);
    assert_eq!(out.code, 0, "{out:?}");
    let tools = report["inventory"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 255);
    assert_eq!(
        tools.last().and_then(|t| t["name"].as_str()),
        Some("tool_0250")
    );
}

// ---------------------------------------------------------------- HTTP

#[test]
fn legacy_http_server_gets_session_headers_and_a_delete() {
    let dir = Dir::new("http-legacy");
    let log = dir.path("wire.jsonl").display().to_string();
    let server = http_fake(&[
        "--log",
        &log,
        "--require-header",
        "Authorization: Bearer s3cret-token",
    ]);
    let cfg = format!(
        "server:\n  url: {}\n  headers:\n    Authorization: \"Bearer ${{FAKE_TOKEN}}\"\n",
        server.url
    );
    dir.write("toolproof.yaml", &cfg);
    let out = toolproof_in(
        &dir.0,
        &["run", "--json", "r.json"],
        &[("FAKE_TOKEN", "s3cret-token")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let wire = dir.read("wire.jsonl");
    let entries: Vec<Value> = wire
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let list = entries
        .iter()
        .find(|e| e["message"]["method"] == "tools/list")
        .expect("tools/list sent");
    assert!(list["headers"]["mcp-session-id"].is_string(), "{list:#}");
    assert_eq!(list["headers"]["mcp-protocol-version"], "2025-11-25");
    assert!(entries.iter().any(|e| e["method"] == "DELETE"), "{wire}");
    // The expanded header value never reaches the output.
    let report = dir.read("r.json");
    assert!(!report.contains("s3cret-token") && !out.stdout.contains("s3cret-token"));
}

#[test]
fn modern_http_server_gets_method_headers_and_sse_is_read() {
    let dir = Dir::new("http-modern");
    let log = dir.path("wire.jsonl").display().to_string();
    let server = http_fake(&["--era", "modern", "--sse", "--log", &log]);
    let (out, report) = {
        let out = toolproof_in(&dir.0, &["inspect", "--json", "--url", &server.url], &[]);
        let v: Value = serde_json::from_str(&out.stdout).expect("json");
        (out, v)
    };
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(report["server"]["era"], "modern");
    let wire = dir.read("wire.jsonl");
    let list = wire
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["message"]["method"] == "tools/list")
        .expect("tools/list sent");
    assert_eq!(list["headers"]["mcp-method"], "tools/list");
    assert_eq!(list["headers"]["mcp-protocol-version"], "2026-07-28");
}

// ---------------------------------------------------------------- faults

fn run_with_server(name: &str, server_yaml: &str, env: &[(&str, &str)]) -> (Dir, Out) {
    let dir = Dir::new(name);
    dir.write("toolproof.yaml", &format!("server:\n{server_yaml}"));
    let out = toolproof_in(
        &dir.0,
        &[
            "run",
            "--json",
            "r.json",
            "--junit",
            "j.xml",
            "--summary",
            "s.md",
        ],
        env,
    );
    (dir, out)
}

/// A failed connection: exit 1, the message on the console and in every report.
fn assert_unusable(dir: &Dir, out: &Out, needle: &str) {
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains(needle),
        "console lacks {needle:?}: {out:?}"
    );
    let report = dir.json("r.json");
    let message = report["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains(needle),
        "JSON error {message:?} lacks {needle:?}"
    );
    assert_eq!(report["passed"], false);
    assert_eq!(report["phases"]["checks"]["status"], "error");
    assert!(dir.read("j.xml").contains(needle));
    let summary = dir.read("s.md").replace("\\`", "`").replace("\\_", "_");
    assert!(
        summary.contains(needle),
        "summary lacks {needle:?}:\n{summary}"
    );
    assert!(!out.stderr.contains("panicked"), "{out:?}");
}

#[test]
fn command_not_found() {
    let (dir, out) = run_with_server("notfound", "  command: [./no-such-server]\n", &[]);
    assert_unusable(&dir, &out, "no-such-server`: no such file or program");
}

#[test]
fn server_exits_before_answering() {
    let cmd = yaml_list(&[&fake(), "--fault", "exit-before-initialize"]);
    let (dir, out) = run_with_server("exits", &format!("  command: {cmd}\n"), &[]);
    assert_unusable(&dir, &out, "exited with code 1");
    let report = dir.json("r.json");
    assert!(
        report["error"]["stderr"]
            .as_str()
            .is_some_and(|s| s.contains("refusing to start")),
        "{report:#}"
    );
}

#[test]
fn server_never_answers_initialize_and_the_startup_timeout_holds() {
    let cmd = yaml_list(&[&fake(), "--fault", "hang-initialize"]);
    let (dir, out) = run_with_server(
        "hang",
        &format!("  command: {cmd}\n  startup_timeout_s: 1.5\n"),
        &[],
    );
    assert_unusable(&dir, &out, "no answer to `initialize` within 1.5s");
    assert!(
        out.elapsed >= Duration::from_millis(1500),
        "{:?}",
        out.elapsed
    );
    assert!(
        out.elapsed < Duration::from_millis(1500 + 3000),
        "{:?}",
        out.elapsed
    );
}

#[test]
fn garbage_instead_of_json() {
    let cmd = yaml_list(&[&fake(), "--fault", "garbage"]);
    let (dir, out) = run_with_server(
        "garbage",
        &format!("  command: {cmd}\n  startup_timeout_s: 1\n"),
        &[],
    );
    assert_unusable(&dir, &out, "non-JSON on stdout");
}

#[test]
fn endless_pagination_is_an_error_not_a_hang() {
    let cmd = yaml_list(&[&fake(), "--fault", "endless-pagination", "--page-size", "2"]);
    let (dir, out) = run_with_server("endless", &format!("  command: {cmd}\n"), &[]);
    assert_unusable(&dir, &out, "paginates endlessly");
}

#[test]
fn http_connection_refused() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let (dir, out) = run_with_server(
        "refused",
        &format!("  url: http://127.0.0.1:{port}/mcp\n"),
        &[],
    );
    assert_unusable(&dir, &out, "connection refused");
}

#[test]
fn http_404_500_and_html_bodies_are_shown() {
    for (fault, needle) in [
        ("http-404", "HTTP 404"),
        ("http-500", "HTTP 500"),
        ("http-html", "an HTML page"),
    ] {
        let server = http_fake(&["--fault", fault]);
        let (dir, out) = run_with_server(fault, &format!("  url: {}\n", server.url), &[]);
        assert_unusable(&dir, &out, needle);
    }
}

#[test]
fn a_huge_tool_list_is_read_and_flagged() {
    let (out, report) = inspect_fake(&["--fault", "huge-tool-list"]);
    assert_eq!(
        report["inventory"]["tools"].as_array().map(Vec::len),
        Some(45)
    );
    assert!(has_finding(&report, "tool-list-size"), "{out:?}");
}

// ---------------------------------------------------------------- static checks end to end

#[test]
fn every_planted_defect_trips_its_check() {
    for (fault, check) in [
        ("no-description", "description"),
        ("long-description", "description-length"),
        ("bad-input-schema", "input-schema"),
        ("no-input-schema", "input-schema"),
        ("non-object-schema", "input-schema"),
        ("required-missing", "required-fields"),
        ("no-required", "required-fields"),
        ("bad-output-schema", "output-schema"),
        ("duplicate-name", "duplicate-name"),
        ("bad-name", "name-format"),
        ("long-name", "name-clients"),
        ("contradictory-annotations", "annotations"),
        ("similar-tools", "similar-tools"),
        ("stdout-noise", "stdout-noise"),
    ] {
        let (out, report) = inspect_fake(&["--fault", fault]);
        assert!(
            has_finding(&report, check),
            "{fault} did not trip {check}: {out:?}"
        );
        let fails = findings(&report).iter().any(|(_, _, f)| *f);
        assert_eq!(out.code, i32::from(fails), "{fault}: {out:?}");
    }
}

#[test]
fn findings_mcp_toolproof_never_made_can_each_be_turned_off() {
    let dir = Dir::new("new-findings");
    let cmd = yaml_list(&[&fake(), "--fault", "contradictory-annotations,long-name"]);
    // Warnings only: a config that passed mcp-toolproof without strict still passes.
    dir.write("plain.yaml", &format!("server:\n  command: {cmd}\n"));
    let plain = toolproof_in(&dir.0, &["run", "plain.yaml", "--json", "p.json"], &[]);
    assert_eq!(plain.code, 0, "{plain:?}");
    let checks: Vec<String> = findings(&dir.json("p.json"))
        .into_iter()
        .map(|(_, check, _)| check)
        .collect();
    assert!(checks.iter().any(|c| c == "annotations"), "{checks:?}");
    assert!(checks.iter().any(|c| c == "name-clients"), "{checks:?}");
    let noisy = yaml_list(&[
        &fake(),
        "--fault",
        "contradictory-annotations,long-name,stdout-noise",
    ]);
    dir.write(
        "strict.yaml",
        &format!("server:\n  command: {noisy}\nchecks:\n  strict: true\n"),
    );
    let strict = toolproof_in(&dir.0, &["run", "strict.yaml"], &[]);
    assert_eq!(strict.code, 1, "{strict:?}");
    dir.write(
        "off.yaml",
        &format!(
            "server:\n  command: {noisy}\nchecks:\n  strict: true\n  disable: [stdout-noise, annotations, name-clients]\n"
        ),
    );
    let off = toolproof_in(&dir.0, &["run", "off.yaml"], &[]);
    assert_eq!(off.code, 0, "{off:?}");
}

#[test]
fn a_clean_server_has_no_findings_and_draft07_is_honoured() {
    let (out, report) = inspect_fake(&["--fault", "draft07-schema"]);
    assert_eq!(findings(&report), Vec::new(), "{out:?}");
    assert_eq!(out.code, 0);
}

/// Infos never fail, not even under strict; `inspect` lists three of a check and counts the
/// rest, while the JSON report keeps each.
#[test]
fn infos_never_fail_and_inspect_folds_them_after_three() {
    let dir = Dir::new("inspect-infos");
    let fake = fake();
    let args = [
        "inspect",
        "--",
        fake.as_str(),
        "--fault",
        "no-required,similar-tools,flaky",
    ];
    let out = toolproof_in(&dir.0, &args, &[("COLUMNS", "200")]);
    let listed = out
        .stdout
        .lines()
        .filter(|l| l.contains("[annotations-missing]"))
        .collect::<Vec<_>>();
    assert_eq!(listed.len(), 4, "{}", out.stdout);
    assert!(
        listed[..3].iter().all(|l| l.starts_with("  INFO ")),
        "{}",
        out.stdout
    );
    assert_eq!(
        listed[3],
        "  INFO … and 1 more [annotations-missing] like the above (--json lists each)"
    );
    assert_eq!(out.code, 0, "{out:?}");
    let (_, report) = inspect_fake(&["--fault", "no-required,similar-tools,flaky"]);
    let infos: Vec<(String, String, bool)> = findings(&report)
        .into_iter()
        .filter(|(_, check, _)| check == "annotations-missing")
        .collect();
    assert_eq!(infos.len(), 4, "{infos:?}");
    assert!(infos.iter().all(|(_, _, fails)| !fails), "{infos:?}");
    let cmd = yaml_list(&[&fake, "--fault", "flaky"]);
    dir.write(
        "toolproof.yaml",
        &format!("server:\n  command: {cmd}\nchecks:\n  strict: true\n"),
    );
    // Under strict, a run whose only findings are infos passes.
    let only_infos = toolproof_in(&dir.0, &["run"], &[]);
    assert_eq!(only_infos.code, 0, "{only_infos:?}");
    assert!(
        only_infos
            .stdout
            .contains("0 errors, 0 warnings, 1 info in"),
        "{}",
        only_infos.stdout
    );
}

#[test]
fn warnings_fail_only_under_strict_and_checks_can_be_turned_off() {
    let dir = Dir::new("strict");
    let cmd = yaml_list(&[&fake(), "--fault", "long-description"]);
    dir.write("toolproof.yaml", &format!("server:\n  command: {cmd}\n"));
    let plain = toolproof_in(&dir.0, &["run"], &[]);
    assert_eq!(plain.code, 0, "{plain:?}");
    let strict = toolproof_in(&dir.0, &["run", "--strict"], &[]);
    assert_eq!(strict.code, 1, "{strict:?}");
    dir.write(
        "off.yaml",
        &format!(
            "server:\n  command: {cmd}\nchecks:\n  strict: true\n  disable: [description-length]\n"
        ),
    );
    let off = toolproof_in(&dir.0, &["run", "off.yaml"], &[]);
    assert_eq!(off.code, 0, "{off:?}");
}

#[test]
fn the_no_forms_of_the_reference_flags_undo_the_yaml_and_the_environment() {
    let dir = Dir::new("no-flags");
    let cmd = yaml_list(&[&fake(), "--fault", "long-description,no-description"]);
    dir.write(
        "toolproof.yaml",
        &format!("server:\n  command: {cmd}\nchecks:\n  enabled: false\n  strict: true\n"),
    );
    let off = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(off.code, 0, "{off:?}");
    assert_eq!(dir.json("r.json")["phases"]["checks"]["status"], "skipped");
    // --checks turns them back on; the missing description is an error whatever the strictness.
    let on = toolproof_in(&dir.0, &["run", "--checks", "--no-strict"], &[]);
    assert_eq!(on.code, 1, "{on:?}");
    dir.write(
        "warn.yaml",
        &format!(
            "server:\n  command: {}\nchecks:\n  strict: true\n",
            yaml_list(&[&fake(), "--fault", "long-description"])
        ),
    );
    let strict = toolproof_in(&dir.0, &["run", "warn.yaml"], &[]);
    assert_eq!(strict.code, 1, "{strict:?}");
    let relaxed = toolproof_in(
        &dir.0,
        &["run", "warn.yaml", "--no-strict", "--json", "w.json"],
        &[("TOOLPROOF_STRICT", "1")],
    );
    assert_eq!(relaxed.code, 0, "{relaxed:?}");
    assert_eq!(
        dir.json("w.json")["phases"]["checks"]["results"]["strict"],
        false
    );
}

#[test]
fn no_checks_is_reported_as_skipped_never_passed() {
    let dir = Dir::new("nochecks");
    let cmd = yaml_list(&[&fake(), "--fault", "no-description"]);
    dir.write("toolproof.yaml", &format!("server:\n  command: {cmd}\n"));
    let out = toolproof_in(
        &dir.0,
        &[
            "run",
            "--no-checks",
            "--json",
            "r.json",
            "--junit",
            "j.xml",
            "--summary",
            "s.md",
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("r.json");
    assert_eq!(report["phases"]["checks"]["status"], "skipped");
    let junit = dir.read("j.xml");
    assert!(
        !junit.contains("undocumented"),
        "a skipped phase lists no passing tools: {junit}"
    );
    assert!(junit.contains("skipped"), "{junit}");
}

/// Every command takes its config the same two ways, a path or `-c FILE`, to the same effect;
/// both at once is a usage error. `eval` takes the set lint's switches as `run` does.
#[test]
fn every_command_takes_its_config_as_a_path_or_with_c() {
    let dir = Dir::new("config-forms");
    let cmd = yaml_list(&[&fake()]);
    dir.write(
        "app.yaml",
        &format!(
            "server:\n  command: {cmd}\ntests:\n  - {{name: says hi, tool: echo, args: {{text: hi}}}}\n\
             evals:\n  provider: anthropic\n  model: m\n  cases:\n    - {{prompt: say hi, expect_tool: echo, why: canonical}}\n\
             fuzz:\n  max_examples: 2\n  seed: 7\nprotocol: {{}}\n"
        ),
    );
    let commands: [&[&str]; 8] = [
        &["run", "--offline"],
        &["eval", "--offline"],
        &["lint"],
        &["inspect"],
        &["fuzz"],
        &["bench", "--calls", "2"],
        &["protocol"],
        &["cache", "status"],
    ];
    for command in commands {
        let with = |form: &[&str]| {
            let mut args = command.to_vec();
            args.extend_from_slice(form);
            toolproof_in(&dir.0, &args, &[])
        };
        let positional = with(&["app.yaml"]);
        let flag = with(&["-c", "app.yaml"]);
        assert_ne!(positional.code, 2, "{command:?} app.yaml: {positional:?}");
        assert_eq!(
            positional.code, flag.code,
            "{command:?}: {positional:?}\n{flag:?}"
        );
        let both = with(&["app.yaml", "-c", "app.yaml"]);
        assert_eq!(both.code, 2, "{command:?} with both: {both:?}");
    }
    // `eval --skip-lint` leaves the set lint out, as `run --skip-lint` does.
    let out = toolproof_in(
        &dir.0,
        &[
            "eval",
            "app.yaml",
            "--offline",
            "--skip-lint",
            "--json",
            "r.json",
        ],
        &[],
    );
    assert_ne!(out.code, 2, "{out:?}");
    let report = dir.json("r.json");
    assert_eq!(report["phases"]["lint"]["status"], "skipped", "{report:#}");
    assert!(
        report["phases"]["lint"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("--skip-lint")),
        "{report:#}"
    );
}

/// `examples/keyword_picker.py`, the command provider a user copies, fills the required
/// arguments: its calls pass the input schema, so the cases are right.
#[test]
fn the_example_picker_fills_required_arguments() {
    let dir = Dir::new("keyword-picker");
    let cmd = yaml_list(&[&fake()]);
    let picker = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/keyword_picker.py");
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {cmd}\nevals:\n  provider: command\n  command: [python3, '{}']\n  min_accuracy: 1\n  cases:\n    - {{prompt: 'Echo \"hello there\" back to me', expect_tool: echo, expect_args: {{text: hello there}}, why: quoted text}}\n",
            picker.display()
        ),
    );
    let out = toolproof_in(&dir.0, &["eval", "--skip-lint", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("r.json");
    assert_eq!(report["phases"]["evals"]["status"], "passed", "{report:#}");
}

/// The JUnit report has testcases for the phases of the run only: a config with tests and no
/// `evals:`, `bench:`, `fuzz:` or `protocol:` gets none for those (a skipped testcase is counted
/// as a test, by some readers as a passed one), while a phase turned off keeps its skipped one.
#[test]
fn junit_leaves_out_the_phases_the_config_does_not_have() {
    let dir = Dir::new("junit-absent");
    let cmd = yaml_list(&[&fake()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {cmd}\ntests:\n  - {{name: says hi, tool: echo, args: {{text: hi}}}}\n"
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--junit", "j.xml"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let junit = dir.read("j.xml");
    let doc = roxmltree::Document::parse(&junit).expect("well-formed JUnit");
    let suites: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(suites, ["static checks", "tests"], "{junit}");
    assert!(!junit.contains("<skipped"), "{junit}");

    // Turned off, it is still a phase of the run: a skipped testcase says so.
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {cmd}\nevals:\n  enabled: false\n  provider: command\n  command: [sh, pick.sh]\n  cases:\n    - {{prompt: say hi, expect_tool: echo}}\n"
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--junit", "j.xml"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let junit = dir.read("j.xml");
    assert!(
        junit.contains("<testcase classname=\"toolproof.evals\" name=\"evals\""),
        "{junit}"
    );
    assert!(
        junit.contains("<skipped message=\"turned off with evals.enabled"),
        "{junit}"
    );
    assert!(!junit.contains("toolproof.bench"), "{junit}");
}

// ---------------------------------------------------------------- reports and CI

#[test]
fn github_actions_gets_annotations_and_a_summary() {
    let dir = Dir::new("gha");
    let cmd = yaml_list(&[&fake(), "--fault", "no-description"]);
    dir.write("toolproof.yaml", &format!("server:\n  command: {cmd}\n"));
    let summary = dir.path("step-summary.md").display().to_string();
    let out = toolproof_in(
        &dir.0,
        &["run"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", &summary),
        ],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("::error"), "{out:?}");
    assert!(dir.read("step-summary.md").contains("undocumented"));
    let before = dir.read("step-summary.md");
    let again = toolproof_in(
        &dir.0,
        &["run", "--no-summary"],
        &[("GITHUB_STEP_SUMMARY", &summary)],
    );
    assert_eq!(again.code, 1);
    assert_eq!(
        dir.read("step-summary.md"),
        before,
        "--no-summary appended anyway"
    );
}

#[test]
fn annotations_name_the_config_from_the_workspace_root_wherever_toolproof_runs() {
    let dir = Dir::new("gha-paths");
    let cmd = yaml_list(&[&fake(), "--fault", "no-description"]);
    let _ = std::fs::create_dir_all(dir.path("ci"));
    let _ = std::fs::create_dir_all(dir.path("server"));
    dir.write(
        "ci/toolproof.yaml",
        &format!("server:\n  command: {cmd}\nchecks:\n  strict: false\n"),
    );
    let workspace = dir.0.display().to_string();
    let absolute = dir.path("ci/toolproof.yaml").display().to_string();
    for config in ["../ci/toolproof.yaml", absolute.as_str()] {
        let out = toolproof_in(
            &dir.path("server"),
            &["run", config, "--no-summary"],
            &[("GITHUB_ACTIONS", "true"), ("GITHUB_WORKSPACE", &workspace)],
        );
        assert_eq!(out.code, 1, "{out:?}");
        let finding = out
            .stdout
            .lines()
            .find(|l| l.starts_with("::error ") && l.contains("title=toolproof description::"));
        assert!(
            finding.is_some_and(|l| l.starts_with("::error file=ci/toolproof.yaml,line=3,")),
            "{config}: {out:?}"
        );
    }
}

#[test]
fn no_color_when_not_a_tty_and_color_when_forced() {
    let dir = Dir::new("color");
    let cmd = yaml_list(&[&fake(), "--fault", "no-description"]);
    dir.write("toolproof.yaml", &format!("server:\n  command: {cmd}\n"));
    let plain = toolproof_in(&dir.0, &["run"], &[]);
    assert!(!plain.stdout.contains('\u{1b}'), "{plain:?}");
    let forced = toolproof_in(&dir.0, &["--color", "always", "run"], &[]);
    assert!(forced.stdout.contains('\u{1b}'), "{forced:?}");
    let never = toolproof_in(
        &dir.0,
        &["--color", "never", "run"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert!(!never.stdout.contains('\u{1b}'), "{never:?}");
}

// ---------------------------------------------------------------- config and usage errors

fn config_error(name: &str, yaml: Option<&str>, env: &[(&str, &str)]) -> Out {
    let dir = Dir::new(name);
    if let Some(y) = yaml {
        dir.write("toolproof.yaml", y);
    }
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], env);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(!out.stderr.contains("panicked"), "{out:?}");
    out
}

#[test]
fn config_errors_name_file_line_and_fix() {
    let missing = config_error("missing", None, &[]);
    assert!(missing.stderr.contains("toolproof.yaml"), "{missing:?}");

    let syntax = config_error("syntax", Some("server:\n  command: [a, b\n"), &[]);
    assert!(syntax.stderr.contains("toolproof.yaml:"), "{syntax:?}");

    let unknown = config_error("unknown", Some("server:\n  comand: [x]\n"), &[]);
    assert!(unknown.stderr.contains("toolproof.yaml:2:3"), "{unknown:?}");
    assert!(unknown.stderr.contains("command"), "{unknown:?}");

    let wrong = config_error(
        "wrong",
        Some("server:\n  command: [x]\nretries: many\n"),
        &[],
    );
    assert!(wrong.stderr.contains("toolproof.yaml:3"), "{wrong:?}");

    let unset = config_error(
        "unset",
        Some(
            "server:\n  url: http://127.0.0.1:1/mcp\n  headers:\n    Authorization: Bearer ${TOOLPROOF_TEST_UNSET_VAR}\n",
        ),
        &[],
    );
    assert!(
        unset.stderr.contains("TOOLPROOF_TEST_UNSET_VAR"),
        "{unset:?}"
    );

    let both = config_error(
        "both",
        Some("server:\n  command: [x]\n  url: http://a/mcp\n"),
        &[],
    );
    assert!(
        both.stderr.contains("command") && both.stderr.contains("url"),
        "{both:?}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = Dir::new("usage");
    let out = toolproof_in(
        &dir.0,
        &["inspect", "--url", "http://x/mcp", "--", "server"],
        &[],
    );
    assert_eq!(out.code, 2, "{out:?}");
    let out = toolproof_in(&dir.0, &["inspect"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("hint:"), "{out:?}");
    let out = toolproof_in(&dir.0, &["run", "--bogus"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    let out = toolproof_in(&dir.0, &["--version"], &[]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.starts_with("toolproof "), "{out:?}");
}

// ---------------------------------------------------------------- snapshots of a real run

/// Replaces what changes between runs (paths, times, durations) with fixed markers.
fn normalize(text: &str, dir: &Dir) -> String {
    let text = text
        .replace(&fake(), "[FAKE]")
        .replace(&fake().replace('_', "\\_"), "[FAKE]")
        .replace(&dir.0.display().to_string(), "[DIR]");
    let rules = [
        (
            r#""(duration_ms|duration_s|latency_ms)": [0-9.e+-]+"#,
            r#""$1": "[ms]""#,
        ),
        (r#""started_at": "[^"]+""#, r#""started_at": "[time]""#),
        (r#"timestamp="[^"]+""#, r#"timestamp="[time]""#),
        (r#"time="[0-9.]+""#, r#"time="[s]""#),
        (r"\b\d+\.\d+s\b", "[s]"),
        (r"\b\d+ms\b", "[ms]"),
        (r#""version": "[0-9.]+""#, r#""version": "[version]""#),
        // The config names the fake by its absolute path.
        (
            r#""config_digest": "[0-9a-f]{64}""#,
            r#""config_digest": "[sha256]""#,
        ),
    ];
    rules.iter().fold(text, |acc, (pattern, with)| {
        regex::Regex::new(pattern)
            .expect("valid pattern")
            .replace_all(&acc, *with)
            .into_owned()
    })
}

#[test]
fn every_report_format_of_a_run_with_planted_defects() {
    let dir = Dir::new("snap");
    let cmd = yaml_list(&[
        &fake(),
        "--fault",
        "no-description,long-description,similar-tools,contradictory-annotations",
    ]);
    dir.write(
        "toolproof.yaml",
        &format!("server:\n  command: {cmd}\nchecks:\n  max_description_length: 200\n"),
    );
    let out = toolproof_in(
        &dir.0,
        &[
            "run",
            "--json",
            "r.json",
            "--junit",
            "j.xml",
            "--summary",
            "s.md",
        ],
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    insta::assert_snapshot!("run_console", normalize(&out.stdout, &dir));
    insta::assert_snapshot!("run_json", normalize(&dir.read("r.json"), &dir));
    insta::assert_snapshot!("run_junit", normalize(&dir.read("j.xml"), &dir));
    insta::assert_snapshot!("run_markdown", normalize(&dir.read("s.md"), &dir));
}

#[test]
fn help_output() {
    let dir = Dir::new("help");
    for (name, args) in [
        ("help_top", &["--help"][..]),
        ("help_run", &["run", "--help"][..]),
        ("help_run_short", &["run", "-h"][..]),
        ("help_eval", &["eval", "--help"][..]),
        ("help_inspect", &["inspect", "--help"][..]),
        ("help_fuzz", &["fuzz", "--help"][..]),
        ("help_eval", &["eval", "--help"][..]),
        ("help_lint", &["lint", "--help"][..]),
        ("help_merge", &["merge", "--help"][..]),
        ("help_lock", &["lock", "--help"][..]),
        ("help_rows_import", &["rows", "import", "--help"][..]),
        ("help_rows_suggest", &["rows", "suggest", "--help"][..]),
    ] {
        let out = toolproof_in(&dir.0, args, &[("COLUMNS", "100")]);
        assert_eq!(out.code, 0, "{out:?}");
        insta::assert_snapshot!(name, out.stdout);
    }
}

// ---------------------------------------------------------------- docs derived from code

/// The guide's static-check table (docs/static-checks.md), as the code defines the checks.
fn check_table() -> String {
    let mut rows = String::new();
    for check in toolproof::facade::CHECKS {
        let (severity, what) = check
            .summary
            .split_once(": ")
            .unwrap_or(("", check.summary));
        rows.push_str(&format!("| `{}` | {severity} | {what} |\n", check.id));
    }
    rows
}

/// The guide's protocol-check table (docs/protocol-checks.md), as the code defines the checks.
fn protocol_table() -> String {
    let mut rows =
        String::from("| id | severity | what it flags | why this severity |\n|---|---|---|---|\n");
    for check in toolproof::facade::PROTOCOL_CHECKS {
        let (severity, what) = check
            .summary
            .split_once(": ")
            .unwrap_or(("", check.summary));
        rows.push_str(&format!(
            "| `{}` | {severity} | {what} | {} |\n",
            check.id, check.why
        ));
    }
    rows
}

/// The guide's set-lint table (docs/set-lint.md), as the code defines the rules.
fn lint_table() -> String {
    let mut rows = String::from("| id | severity | what it flags |\n|---|---|---|\n");
    for rule in toolproof::facade::LINT_RULES {
        let (severity, what) = rule.summary.split_once(": ").unwrap_or(("", rule.summary));
        rows.push_str(&format!("| `{}` | {severity} | {what} |\n", rule.id));
    }
    rows
}

/// The guide page `page` holds `table` as the code defines it.
fn assert_guide_table(page: &str, what: &str, table: &str) {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(page))
        .unwrap_or_else(|e| panic!("{page}: {e}"));
    assert!(
        text.contains(table),
        "{page}'s {what} table is out of date; it should read:\n{table}"
    );
}

#[test]
fn the_guide_lists_every_lint_rule_as_the_code_defines_it() {
    assert_guide_table("docs/set-lint.md", "set lint", &lint_table());
}

#[test]
fn the_guide_lists_every_protocol_check_as_the_code_defines_it() {
    assert_guide_table(
        "docs/protocol-checks.md",
        "protocol check",
        &protocol_table(),
    );
}

#[test]
fn the_guide_lists_every_check_as_the_code_defines_it() {
    assert_guide_table("docs/static-checks.md", "check", &check_table());
}

/// Every place that names the project's GitHub repository names the one in Cargo.toml's
/// `repository` (mcp-toolproof's aside), and none still says `OWNER`.
#[test]
fn the_repository_slug_is_the_one_in_cargo_toml() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let url = cargo
        .lines()
        .find_map(|l| l.strip_prefix("repository = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("Cargo.toml sets repository");
    let slug = url
        .strip_prefix("https://github.com/")
        .expect("a GitHub repository");
    let mut files = vec![root.join("README.md"), root.join("action.yml")];
    for dir in ["docs", "packaging", "python"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path
                    .extension()
                    .is_some_and(|e| ["md", "json", "toml", "py", "js"].iter().any(|x| e == *x))
                {
                    files.push(path);
                }
            }
        }
    }
    let named = regex::Regex::new(r"(?:github\.com/|ghcr\.io/|uses: )([\w.-]+/toolproof)\b")
        .expect("regex");
    let mut seen = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        assert!(
            !text.contains("OWNER/"),
            "{} still says OWNER",
            file.display()
        );
        // mcp-toolproof's own Action, named where the README says how to move from it.
        for m in named
            .captures_iter(&text)
            .filter(|m| &m[1] != "NilkanthSuthar/toolproof")
        {
            seen += 1;
            assert_eq!(&m[1], slug, "{} names another repository", file.display());
        }
    }
    assert!(seen >= 5, "the slug is named {seen} times");
}

// ---------------------------------------------------------------- the client library on real processes

mod client {
    use super::*;
    use serde_json::json;
    use toolproof::facade::CallResult;
    use toolproof::facade::ProtocolPin;
    use toolproof::facade::StdioSpec;
    use toolproof::facade::{Client, ClientOptions, McpError, ServerSpec};

    fn connect(args: &[&str]) -> Client {
        let mut command = vec![fake()];
        command.extend(args.iter().map(|s| s.to_string()));
        Client::connect(
            ServerSpec::Stdio(StdioSpec {
                command,
                env: Default::default(),
                inherit_env: true,
                cwd: None,
            }),
            ClientOptions {
                pin: ProtocolPin::Auto,
                startup_timeout: Duration::from_secs(10),
                request_timeout: Duration::from_secs(10),
                capabilities: Value::Object(Default::default()),
            },
        )
        .unwrap_or_else(|e| panic!("connect: {} {}", e.error, e.stderr))
    }

    fn args(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn calls_return_content_structured_content_is_error_and_latency() {
        for era in ["legacy", "modern"] {
            let mut c = connect(&["--era", era]);
            let out = c
                .call_tool(
                    "add",
                    &args(json!({"a": 2, "b": 3})),
                    Duration::from_secs(5),
                )
                .expect("add answers");
            match &out.result {
                CallResult::Result {
                    structured,
                    is_error,
                    ..
                } => {
                    assert_eq!(structured.as_ref(), Some(&json!({"result": 5})), "{era}");
                    assert!(!is_error);
                }
                other => panic!("{era}: {other:?}"),
            }
            assert_eq!(out.result.text(), "5");
            assert!(out.latency > Duration::ZERO);
            let failed = c
                .call_tool("fail", &args(json!({})), Duration::from_secs(5))
                .expect("fail answers");
            assert!(matches!(
                failed.result,
                CallResult::Result { is_error: true, .. }
            ));
            let unknown = c
                .call_tool("nope", &args(json!({})), Duration::from_secs(5))
                .expect("unknown tool answers");
            assert!(matches!(
                unknown.result,
                CallResult::ProtocolError { code: -32602, .. }
            ));
            c.close();
        }
    }

    #[test]
    fn a_crash_is_seen_at_once_with_the_stderr_of_that_call_and_a_restart_works() {
        let mut c = connect(&[]);
        let started = Instant::now();
        let failure = c
            .call_tool("crash", &args(json!({})), Duration::from_secs(60))
            .expect_err("crash gives no result");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "exit not seen at once"
        );
        match &failure.error {
            McpError::Exited { how } => assert_eq!(how, "exited with code 3"),
            other => panic!("{other:?}"),
        }
        assert!(failure.stderr.contains("about to crash"), "{failure:?}");
        assert!(c.has_exited());
        c.restart().expect("restart");
        let out = c
            .call_tool(
                "echo",
                &args(json!({"text": "back"})),
                Duration::from_secs(5),
            )
            .expect("echo after restart");
        assert_eq!(out.result.text(), "back");
        c.close();
    }

    #[test]
    fn a_slow_call_times_out_and_the_server_stays_usable() {
        let mut c = connect(&[]);
        let failure = c
            .call_tool(
                "slow",
                &args(json!({"ms": 5000})),
                Duration::from_millis(300),
            )
            .expect_err("times out");
        assert!(
            matches!(failure.error, McpError::Timeout { .. }),
            "{failure:?}"
        );
        assert!(failure.latency >= Duration::from_millis(300));
        let out = c
            .call_tool(
                "echo",
                &args(json!({"text": "still here"})),
                Duration::from_secs(5),
            )
            .expect("answers after a timeout");
        assert_eq!(out.result.text(), "still here");
        c.close();
    }

    #[test]
    fn a_ten_megabyte_result_is_read_whole() {
        for http in [false, true] {
            let (mut c, _server) = if http {
                let server = http_fake(&["--fault", "huge-result"]);
                let c = Client::connect(
                    ServerSpec::Http(toolproof::facade::HttpSpec {
                        url: server.url.clone(),
                        headers: Vec::new(),
                        transport: Default::default(),
                    }),
                    ClientOptions {
                        pin: ProtocolPin::Auto,
                        startup_timeout: Duration::from_secs(10),
                        request_timeout: Duration::from_secs(10),
                        capabilities: Value::Object(Default::default()),
                    },
                )
                .unwrap_or_else(|e| panic!("{}", e.error));
                (c, Some(server))
            } else {
                (connect(&["--fault", "huge-result"]), None)
            };
            let out = c
                .call_tool("echo", &args(json!({"text": "x"})), Duration::from_secs(30))
                .expect("huge echo");
            assert!(out.result.text().len() >= 10 << 20, "http={http}");
            c.close();
        }
    }
}

// ---------------------------------------------------------------- the bundled demo

/// A folder holding the demo config `name`, pointed at this build's examples.
fn demo_dir(folder: &str, name: &str) -> Dir {
    let dir = Dir::new(folder);
    let yaml = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/demo/{name}")),
    )
    .expect("demo config");
    let examples = format!("{}/", crate::examples_dir().display());
    dir.write(name, &yaml.replace("../../target/release/", &examples));
    dir
}

/// The README's demo configs, pointed at this build's examples, run.
fn demo(name: &str) -> (Dir, Out) {
    let dir = demo_dir(&format!("demo-{name}"), name);
    let out = toolproof_in(&dir.0, &["run", name, "--json", "r.json"], &[]);
    (dir, out)
}

/// Under GitHub Actions the broken demo's annotations lead with why it failed: the eval gate,
/// then the two broken tool definitions that make cases miss, before the tests; the cap of ten
/// errors leaves neither definition out.
#[test]
fn annotations_put_the_broken_definitions_before_what_they_break() {
    let dir = demo_dir("demo-annotations", "broken.yaml");
    let out = toolproof_in(
        &dir.0,
        &["run", "broken.yaml"],
        &[("GITHUB_ACTIONS", "true")],
    );
    assert_eq!(out.code, 1, "{out:?}");
    let errors: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(errors.len(), 10, "{}", out.stdout);
    assert!(errors[0].contains("title=toolproof evals::"), "{errors:#?}");
    assert!(
        errors[1].contains("title=toolproof input-schema::convert_units"),
        "{errors:#?}"
    );
    assert!(
        errors[2].contains("title=toolproof description::delete_note"),
        "{errors:#?}"
    );
    assert!(errors[3].contains("title=toolproof test "), "{errors:#?}");
}

/// At an 80-column terminal with no `COLUMNS` exported (shells seldom export it), every line
/// toolproof prints fits: the report on stdout and the live lines on stderr, both on the
/// terminal (`script` gives them one).
#[test]
fn every_line_fits_an_80_column_terminal_that_exports_no_columns() {
    let dir = demo_dir("demo-width", "broken.yaml");
    let inner = format!(
        "stty rows 50 cols 80; exec '{}' run broken.yaml",
        env!("CARGO_BIN_EXE_toolproof")
    );
    let out = Command::new("script")
        .args(["-qec", &inner, "/dev/null"])
        .current_dir(&dir.0)
        .env_remove("COLUMNS")
        // No progress bar: what is left is what a log of the terminal keeps.
        .env("CI", "true")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run toolproof under script(1)");
    let text = String::from_utf8_lossy(&out.stdout);
    let ansi = regex::Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").expect("regex");
    let text = ansi.replace_all(&text, "");
    assert!(text.contains("┌") && text.contains("FAIL"), "{text}");
    for line in text.split(['\r', '\n']) {
        assert!(
            unicode_width::UnicodeWidthStr::width(line.trim_end()) <= 80,
            "wider than the terminal: {line:?}\n{text}"
        );
    }
}

#[test]
fn the_bundled_demo_passes_and_its_broken_twin_fails_for_the_planted_reasons() {
    let (dir, out) = demo("toolproof.yaml");
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("r.json");
    assert_eq!(report["phases"]["evals"]["status"], "passed");
    assert_eq!(report["phases"]["checks"]["status"], "passed");
    // The README's first command lints a clean set.
    assert_eq!(report["phases"]["lint"]["status"], "passed");
    assert_eq!(
        report["phases"]["lint"]["results"]["findings"],
        serde_json::json!([])
    );
    // The stand-in model reports its tokens, and the demo prices them.
    let cost = &report["phases"]["evals"]["results"]["models"][0]["cost"];
    assert_eq!(cost["not_reported"], 0, "{cost:#}");
    assert!(cost["tokens"]["input"].as_u64().is_some_and(|n| n > 0));
    assert!(cost["cost_usd"].as_f64().is_some_and(|c| c > 0.0));
    assert!(
        out.stdout.contains("Tokens and cost: ")
            && out.stdout.contains(" · est. $")
            && out.stdout.contains("(evals.prices)"),
        "{}",
        out.stdout
    );

    let (dir, out) = demo("broken.yaml");
    assert_eq!(out.code, 1, "{out:?}");
    let report = dir.json("r.json");
    assert_eq!(report["phases"]["checks"]["status"], "failed");
    // The set lint sees the near-duplicate the server grew, and that no case covers it.
    let lint_ids: Vec<&str> = report["phases"]["lint"]["results"]["findings"]
        .as_array()
        .map(|f| f.iter().filter_map(|x| x["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(lint_ids, ["uncovered-tool", "no-contrast"], "{report:#}");
    let confusion = &report["phases"]["evals"]["results"]["models"][0]["confusion"];
    assert!(
        confusion.as_array().is_some_and(|c| c
            .iter()
            .any(|p| p["expected"] == "list_notes" && p["picked"] == "show_notes")),
        "{confusion:#}"
    );
    // One test per kind of failure: every test status shows up, and the crash is followed
    // by a passing test on the restarted server.
    let tests = &report["phases"]["tests"]["results"];
    let status_of = |name: &str| {
        tests
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == name))
            .map(|t| t["status"].clone())
            .unwrap_or_default()
    };
    for (name, status) in [
        ("the notebook starts empty", "passed"),
        ("leap day 2024 was a Thursday", "failed"),
        ("water boils at 212 °F", "failed"),
        ("the note is listed", "flaky"),
        ("the notes again", "failed"),
        ("show_notes within half a second", "error"),
        ("a note without a title", "error"),
        ("the restarted server has an empty notebook", "passed"),
    ] {
        assert_eq!(status_of(name), status, "{name}: {tests:#}");
    }
    assert_eq!(report["phases"]["tests"]["status"], "failed");
}

/// Every `TOOLPROOF_*` variable the code reads (outside its tests) is in the guide's
/// environment table (docs/commands.md), and the table names none the code does not read.
#[test]
fn the_guide_lists_every_environment_variable_the_code_reads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let name = regex::Regex::new(r#""(TOOLPROOF_[A-Z0-9_]*[A-Z0-9])""#).expect("regex");
    let mut read = std::collections::BTreeSet::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let file = path.file_name().map(|n| n.to_string_lossy().into_owned());
            if path.is_dir() {
                stack.push(path);
            } else if file.is_some_and(|f| f.ends_with(".rs") && !f.contains("tests")) {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                // Unit tests at the end of a file are not what the code reads.
                let code = text.split("#[cfg(test)]").next().unwrap_or("");
                read.extend(name.captures_iter(code).map(|c| c[1].to_owned()));
            }
        }
    }
    // The interop tests' own variable, which the JUnit schema check reads in a test helper.
    read.remove("TOOLPROOF_INTEROP_DIR");
    let page = std::fs::read_to_string(root.join("docs/commands.md")).expect("docs/commands.md");
    let listed: std::collections::BTreeSet<String> = page
        .lines()
        .filter(|l| l.starts_with("| `TOOLPROOF_"))
        .flat_map(|l| {
            let first = l.split('|').nth(1).unwrap_or("").to_owned();
            regex::Regex::new(r"`(TOOLPROOF_[A-Z0-9_]+)`")
                .expect("regex")
                .captures_iter(&first)
                .map(|c| c[1].to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let missing: Vec<_> = read.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&read).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/commands.md's environment table is out of date: add {missing:?}, remove {stale:?}"
    );
}

/// The README's table of the Action's inputs and its list of outputs are the ones action.yml
/// defines, each input with its default.
#[test]
fn the_readme_lists_every_input_and_output_of_the_action() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let action = std::fs::read_to_string(root.join("action.yml")).expect("action.yml");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let section = |name: &str| -> Vec<(String, String)> {
        let start = action.find(&format!("\n{name}:\n")).expect("section");
        let mut entries = Vec::new();
        for line in action[start + name.len() + 3..].lines() {
            if !line.starts_with(' ') && !line.is_empty() {
                break;
            }
            if let Some(key) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(':')) {
                if !key.starts_with(' ') {
                    entries.push((key.to_owned(), String::new()));
                }
            } else if let Some(default) = line.strip_prefix("    default: ")
                && let Some(last) = entries.last_mut()
            {
                last.1 = default.trim_matches('"').to_owned();
            }
        }
        entries
    };
    let inputs = section("inputs");
    assert!(inputs.len() > 10, "{inputs:?}");
    let code = regex::Regex::new(r"`([^`]+)`").expect("regex");
    let mut listed = std::collections::BTreeMap::new();
    for row in readme.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').collect();
        let names: Vec<String> = code
            .captures_iter(cells[1])
            .map(|c| c[1].to_owned())
            .collect();
        let defaults: Vec<String> = code
            .captures_iter(cells[2])
            .map(|c| c[1].to_owned())
            .collect();
        for (i, name) in names.into_iter().enumerate() {
            listed.insert(name, defaults.get(i).cloned().unwrap_or_default());
        }
    }
    for (name, default) in &inputs {
        let Some(shown) = listed.get(name) else {
            panic!("README.md's table of the Action's inputs has no row for `{name}`");
        };
        // `${{ github.token }}` is shown by what it names.
        let want = default.replace("${{ github.token }}", "github.token");
        assert_eq!(shown, &want, "the default of `{name}`");
    }
    let outputs: Vec<String> = section("outputs").into_iter().map(|(n, _)| n).collect();
    let said = readme
        .split("Outputs: ")
        .nth(1)
        .and_then(|t| t.split("\n\n").next())
        .unwrap_or("");
    for name in &outputs {
        assert!(
            said.contains(&format!("`{name}`")),
            "README.md's list of the Action's outputs leaves out `{name}`"
        );
    }
}
