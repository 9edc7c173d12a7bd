//! The protocol phase against servers others wrote: the official `everything` server (stdio and
//! streamable HTTP) and the Python SDK 1.x and 2.x servers (stdio and HTTP). Each expected
//! finding below names the rule of the specification it rests on; anything else that fails,
//! and any check that stops running, fails the test. The official conformance suite's client
//! scenarios, with toolproof as the client, are in [`conformance`].

use super::*;

/// What `toolproof protocol` found.
struct Found {
    /// The failed checks of severity error or warning: the server's defects.
    findings: Vec<String>,
    /// The failed checks of severity info: advice.
    infos: Vec<String>,
    /// The skipped checks.
    skipped: Vec<String>,
    /// The exit code.
    code: i32,
    /// The JSON report.
    report: Value,
}

fn protocol(name: &str, target: &[&str]) -> Found {
    let dir = temp_dir(name);
    std::fs::write(dir.join("toolproof.yaml"), "protocol: {}\n").expect("write config");
    // A long probe timeout: each probe starts a fresh server, which a loaded machine starts
    // slowly (Python imports), and every check fences with a `ping`, so a server that answers
    // costs no waiting.
    let mut args = vec!["protocol", "--timeout-ms", "30000", "--json", "r.json"];
    args.extend_from_slice(target);
    let out = toolproof(&args, &dir);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap_or_default())
            .unwrap_or_else(|e| panic!("no JSON report ({e}):\n{}\n{}", out.stdout, out.stderr));
    let checks = report["phases"]["protocol"]["results"]["checks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let with = |status: &str, info: Option<bool>| -> Vec<String> {
        checks
            .iter()
            .filter(|c| c["status"] == status)
            .filter(|c| info.is_none_or(|i| (c["severity"] == "info") == i))
            .filter_map(|c| c["id"].as_str().map(str::to_owned))
            .collect()
    };
    Found {
        findings: with("failed", Some(false)),
        infos: with("failed", Some(true)),
        skipped: with("skipped", None),
        code: out.code,
        report,
    }
}

/// The HTTP transport's checks, which every stdio run skips.
fn http_checks() -> Vec<String> {
    toolproof::facade::PROTOCOL_CHECK_IDS
        .iter()
        .filter(|id| id.starts_with("http-"))
        .map(|id| (*id).to_owned())
        .collect()
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

// Infos every one of these servers shares, which come from their SDK:
// - `invalid-cursor`: `tools/list` with a cursor the server never issued returns the whole list;
//   pagination says invalid cursors SHOULD get -32602.
// - `malformed` (stdio): a line that is not JSON gets no answer at all; JSON-RPC 2.0 answers it
//   with -32700, but MCP adds no MUST.

#[test]
fn everything_over_stdio_has_the_findings_the_specification_supports() {
    let found = protocol(
        "proto-everything",
        &["--", "node", &node_server("server-everything"), "stdio"],
    );
    let report = &found.report;
    // No defect of its own. `before-initialize`: `tools/list` sent before `initialize` is
    // answered with the tool list, which the TypeScript SDK does; the SHOULD NOT binds the
    // client, so it is advice.
    assert_eq!(found.findings, Vec::<String>::new(), "{report:#}");
    assert_eq!(
        found.infos,
        ids(&["before-initialize", "invalid-cursor", "malformed"]),
        "{report:#}"
    );
    // `unadvertised`: it advertises tools, resources and prompts; `pagination`: one page.
    let mut expected = ids(&["unadvertised", "pagination"]);
    expected.extend(http_checks());
    assert_eq!(found.skipped, expected);
    assert_eq!(found.code, 0, "{report:#}");
    assert_eq!(
        report["phases"]["protocol"]["results"]["transport"],
        "stdio"
    );
}

/// kubernetes-mcp-server (Go, from the corpus) exits on a line that is not JSON and on a batch
/// alike: the same behaviour gets the same severity, whatever the server is built on.
#[test]
fn a_go_server_that_exits_on_bad_input_gets_warnings_for_it() {
    let dir = temp_dir("proto-kubernetes-config");
    let config = dir.join("kubeconfig");
    std::fs::write(
        &config,
        "apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \"https://127.0.0.1:1\"}\n  \
         name: none\ncontexts:\n- context: {cluster: none, user: nobody}\n  name: none\n\
         current-context: none\nusers:\n- name: nobody\n  user: {token: not-a-token}\n",
    )
    .expect("write kubeconfig");
    let script = interop_dir()
        .join("corpus-node/node_modules/.bin/kubernetes-mcp-server")
        .display()
        .to_string();
    let config = config.display().to_string();
    let found = protocol(
        "proto-kubernetes",
        &["--", "node", &script, "--kubeconfig", &config],
    );
    let report = &found.report;
    // `batch` and `malformed`: after a batch of one `ping`, and after a line that is not JSON,
    // the server closes its output; the requests after them MUST still get responses.
    assert_eq!(found.findings, ids(&["batch", "malformed"]), "{report:#}");
    assert_eq!(found.infos, Vec::<String>::new(), "{report:#}");
    let malformed = report["phases"]["protocol"]["results"]["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["id"] == "malformed")
        .expect("reported");
    let detail = malformed["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("stopped answering") && !detail.contains("SDK"),
        "{detail}"
    );
    // Warnings are not errors: the run passes unless `--strict`.
    assert_eq!(found.code, 0, "{report:#}");
}

#[test]
fn everything_over_streamable_http_has_the_findings_the_specification_supports() {
    let port = free_port();
    let _server = start_http(
        "node",
        &[&node_server("server-everything"), "streamableHttp"],
        &[("PORT", port.to_string())],
        "listening on port",
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    let found = protocol("proto-everything-http", &["--url", &url]);
    let report = &found.report;
    assert_eq!(
        found.findings,
        ids(&[
            // A never-issued session id gets 400 "No valid session ID provided", not the 404
            // that tells a client to start a new session (a warning).
            "http-unknown-session",
            // After a DELETE the session's id gets 400, where a terminated session MUST get
            // 404 Not Found (an error).
            "http-delete",
            // `Origin: http://dns-rebinding.toolproof.invalid` is accepted: servers MUST
            // validate Origin, and 2025-11-25 asks for 403 (an error).
            "http-origin",
        ]),
        "{report:#}"
    );
    // A batch of one `ping` is answered, which 2025-11-25 allows: no finding.
    assert_eq!(found.infos, ids(&["invalid-cursor"]), "{report:#}");
    // `http-sse-retry`: its event streams begin with a priming event (it keeps an event store)
    // and carry no `retry`, but they carry their response too: 2025-11-25 asks for `retry`
    // only before a server closes a stream's connection ahead of the response.
    assert_eq!(
        found.skipped,
        ids(&["unadvertised", "pagination", "http-sse-retry"])
    );
    assert_eq!(found.code, 1, "{report:#}");
    assert_eq!(
        report["phases"]["protocol"]["results"]["transport"],
        "streamable-http"
    );
}

#[test]
fn python_sdk_servers_have_the_findings_the_specification_supports() {
    let script = sdk_server_script();
    for sdk in ["py-mcp1", "py-mcp2"] {
        let py = python(sdk);
        let found = protocol(&format!("proto-{sdk}"), &["--", &py, &script, "stdio"]);
        let report = &found.report;
        let mut expected = Vec::new();
        if sdk == "py-mcp1" {
            // An unknown method gets -32602 "Invalid request parameters", where JSON-RPC's
            // code for a method that does not exist is -32601 (an error).
            expected.push("unknown-method");
        }
        assert_eq!(
            found.findings,
            ids(&expected),
            "{sdk} over stdio: {report:#}"
        );
        assert_eq!(
            found.infos,
            ids(&["invalid-cursor", "malformed"]),
            "{sdk} over stdio: {report:#}"
        );
        let mut skips = ids(&["unadvertised", "logging", "pagination"]);
        skips.extend(http_checks());
        assert_eq!(found.skipped, skips, "{sdk}");
        assert_eq!(found.code, i32::from(sdk == "py-mcp1"), "{sdk}: {report:#}");

        let port = free_port();
        let _server = start_http(
            &py,
            &[&script, "http", &port.to_string()],
            &[],
            "Uvicorn running",
        );
        let url = format!("http://127.0.0.1:{port}/mcp");
        let found = protocol(&format!("proto-{sdk}-http"), &["--url", &url]);
        let report = &found.report;
        // Every HTTP check of the SDK's own making passes: sessions, 404 after DELETE, 400 on
        // a bad version header, 406 on a bad Accept, 202 for notifications, and 403 for a
        // foreign Origin. `http-sse-priming`: the event stream answering a `ping` has no
        // priming event, which 2025-11-25 says a server SHOULD send first (the SDK sends it
        // when the server gives it an event store; this one has none: a warning).
        expected.push("http-sse-priming");
        assert_eq!(
            found.findings,
            ids(&expected),
            "{sdk} over HTTP: {report:#}"
        );
        assert_eq!(
            found.infos,
            ids(&["invalid-cursor"]),
            "{sdk} over HTTP: {report:#}"
        );
        // `http-sse-retry` asks for `retry` only of a stream closed before its response.
        assert_eq!(
            found.skipped,
            ids(&["unadvertised", "logging", "pagination", "http-sse-retry"]),
            "{sdk}"
        );
    }
}

/// toolproof's client under the official conformance suite's client scenarios.
#[path = "conformance.rs"]
mod conformance;
