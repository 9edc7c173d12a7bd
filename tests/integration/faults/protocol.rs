//! Servers whose JSON-RPC is sloppy in ways toolproof can read past but strict clients cannot:
//! responses without `"jsonrpc": "2.0"`, and `result: null`. A shell script plays the server.

use super::harness::Case;

/// A stdio MCP server in `sh`: legacy handshake, one tool `echo` (or the JSON list in
/// `$TOOLS`). `$1` picks the fault: `no-version` leaves `jsonrpc` out of every response;
/// `null-result` answers `tools/call` and `ping` with `result: null`; `noisy` prints 3 lines
/// that are not JSON-RPC at start and 300 more with each `tools/call`; anything else is none.
pub const SERVER: &str = r#"
v='"jsonrpc":"2.0",'
[ "$1" = no-version ] && v=''
call='{"content":[{"type":"text","text":"hi"}]}'
[ "$1" = null-result ] && call='null'
echo='[{"name":"echo","description":"Echoes the text it is given.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]'
if [ "$1" = noisy ]; then echo "starting up"; echo "loading tools"; echo "ready"; fi
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^.*"id":\([0-9][0-9]*\).*$/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      echo "{$v\"id\":$id,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"sloppy\",\"version\":\"1\"}}}" ;;
    *'"method":"notifications/'*) ;;
    *'"method":"tools/list"'*)
      echo "{$v\"id\":$id,\"result\":{\"tools\":${TOOLS:-$echo}}}" ;;
    *'"method":"tools/call"'*)
      if [ "$1" = noisy ]; then i=0; while [ $i -lt 300 ]; do echo "log line $i"; i=$((i+1)); done; fi
      echo "{$v\"id\":$id,\"result\":$call}" ;;
    *'"method":"ping"'*)
      if [ "$1" = null-result ]; then echo "{$v\"id\":$id,\"result\":null}"; else echo "{$v\"id\":$id,\"result\":{}}"; fi ;;
    *) [ -n "$id" ] && echo "{$v\"id\":$id,\"error\":{\"code\":-32601,\"message\":\"unknown method\"}}" ;;
  esac
done
"#;

fn sloppy(name: &str, fault: &str, rest: &str) -> Case {
    Case::new(name)
        .file("server.sh", SERVER.as_bytes())
        .yaml(&format!(
            "server:\n  command: [sh, server.sh, {fault}]\n{rest}"
        ))
}

const ECHO_TEST: &str =
    "tests:\n  - {name: echo, tool: echo, args: {text: hi}, expect: {is_error: false}}\n";

#[test]
fn responses_without_the_jsonrpc_member_are_a_protocol_warning() {
    let out = sloppy("no-version", "no-version", ECHO_TEST).run();
    out.sound(0)
        .says("responses without `\"jsonrpc\": \"2.0\"`");
    let report = out.report();
    let findings = report["phases"]["checks"]["results"]["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let protocol: Vec<_> = findings
        .iter()
        .filter(|f| f["check"] == "protocol")
        .collect();
    assert_eq!(protocol.len(), 1, "{findings:?}");
    assert_eq!(protocol[0]["severity"], "warning");
    // A warning fails the run under --strict.
    sloppy("no-version-strict", "no-version", ECHO_TEST)
        .args(&["run", "toolproof.yaml", "--strict"])
        .run()
        .sound(1)
        .says("protocol");
}

#[test]
fn a_tool_call_answered_with_result_null_is_not_a_pass() {
    let out = sloppy("null-result", "null-result", ECHO_TEST).run();
    out.sound(1)
        .says("answered `tools/call` with `result: null`");
    assert_eq!(
        out.report()["phases"]["tests"]["results"][0]["status"],
        "error"
    );
}

#[test]
fn every_line_of_stdout_noise_is_counted_once_and_the_same_everywhere() {
    let out = sloppy("noisy", "noisy", ECHO_TEST).run();
    out.sound(1)
        .says("the server printed 303 non-protocol lines on stdout")
        .says("server printed 303 non-protocol lines on stdout, first: \"starting up\"");
    let report = out.report();
    assert_eq!(report["stdout_noise_total"], 303);
    let kept = report["stdout_noise"].as_array().map_or(0, Vec::len);
    assert!(
        kept > 0 && kept < 303,
        "a bounded excerpt is kept, not {kept} lines"
    );
    assert!(out.read("summary.md").contains("303"));
}
