//! Servers that fail: missing, dying, hanging, talking nonsense.

use serde_json::Value;

use super::harness::{Case, fake_server, yaml_list};

/// A config for the fake server with `args`, short budgets, no static checks, and `tests`
/// (YAML list items).
pub fn suite(args: &[&str], tests: &str) -> String {
    fake_server(
        args,
        &format!(
            "  startup_timeout_s: 2\ntimeout_ms: 300\nchecks:\n  enabled: false\ntests:\n{tests}"
        ),
    )
}

/// The test results of the JSON report, in order.
pub fn results(out: &super::harness::Outcome) -> Vec<Value> {
    out.report()["phases"]["tests"]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// `(status, first failure line)` of each test.
pub fn verdicts(out: &super::harness::Outcome) -> Vec<(String, String)> {
    results(out)
        .iter()
        .map(|t| {
            (
                t["status"].as_str().unwrap_or("").to_owned(),
                t["failures"][0].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// An `echo` test that must pass.
pub const ECHO: &str = "  - name: echo after\n    tool: echo\n    args: {text: still here}\n    expect: {equals: still here}\n";

/// An `echo` test with a timeout long enough that a reply reported late would show.
const PATIENT_ECHO: &str =
    "  - name: echo\n    tool: echo\n    args: {text: hi}\n    timeout_ms: 20000\n";

#[test]
fn a_missing_server_binary_is_reported_with_every_report() {
    let out = Case::new("missing-binary")
        .yaml("server:\n  command: [\"./no-such-server\"]\n")
        .run();
    out.sound(1).says("no-such-server");
    let report = out.report();
    assert_eq!(report["phases"]["checks"]["status"], "error");
}

#[test]
fn a_server_that_exits_before_answering_is_named_with_its_stderr() {
    let out = Case::new("exits-early")
        .yaml(&fake_server(&["--fault", "exit-before-initialize"], ""))
        .run();
    out.sound(1).says("exited with code 1");
}

#[test]
fn a_crash_mid_call_fails_that_test_and_the_next_runs_on_a_restarted_server() {
    let tests = format!("  - name: boom\n    tool: crash\n{ECHO}");
    let out = Case::new("crash-mid-call").yaml(&suite(&[], &tests)).run();
    out.sound(1)
        .says("the server exited with code 3 during the call");
    let v = verdicts(&out);
    assert_eq!(v[0].0, "error");
    assert_eq!(v[1], ("passed".to_owned(), String::new()), "{out:?}");
    assert!(
        results(&out)[0]["stderr"]
            .as_str()
            .unwrap_or("")
            .contains("about to crash")
    );
}

#[test]
fn a_server_that_never_answers_initialize_times_out_at_start_up() {
    let out = Case::new("hang-init")
        .yaml(&suite(&["--fault", "hang-initialize"], ECHO))
        .run();
    out.sound(1).says("no answer to `initialize` within 2");
    assert_eq!(out.report()["phases"]["tests"]["status"], "error");
}

#[test]
fn a_server_that_handles_one_request_at_a_time_is_restarted_after_a_hung_call() {
    let tests = format!(
        "  - name: hangs\n    tool: slow\n    args: {{ms: 600000}}\n{ECHO}  - name: add after\n    tool: add\n    args: {{a: 1, b: 2}}\n    expect: {{equals: {{result: 3}}}}\n"
    );
    let out = Case::new("one-at-a-time")
        .yaml(&suite(&["--fault", "one-at-a-time"], &tests))
        .run();
    out.sound(1);
    let hung = &results(&out)[0];
    assert_eq!(hung["status"], "error");
    let lines: Vec<&str> = hung["failures"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        lines,
        [
            "no answer within 300ms (timeout_ms)",
            "the server did not answer a ping after the timeout; restarted"
        ]
    );
    let v = verdicts(&out);
    assert_eq!(v[1].0, "passed", "{out:?}");
    assert_eq!(v[2].0, "passed", "{out:?}");
}

#[test]
fn a_handshake_answered_with_garbage_quotes_the_garbage() {
    let out = Case::new("garbage")
        .yaml(&suite(&["--fault", "garbage"], ECHO))
        .run();
    out.sound(1)
        .says("the server printed non-JSON on stdout instead: this is not JSON");
}

#[test]
fn fifty_mebibyte_lines_of_noise_are_counted_and_kept_short() {
    let out = Case::new("huge-noise")
        .yaml(&suite(&["--fault", "huge-noise"], ECHO))
        .run();
    out.sound(0);
    assert_eq!(verdicts(&out)[0].0, "passed");
    let noise = out.report()["stdout_noise"].clone();
    let lines = noise.as_array().cloned().unwrap_or_default();
    assert_eq!(lines.len(), 4, "{noise:#}");
    for line in &lines {
        let text = line.as_str().unwrap_or("");
        assert!(text.len() < 8 << 10, "a noise line of {} bytes", text.len());
        assert!(text.contains("52428800 bytes"), "{text:.300}");
    }
    let size = std::fs::metadata(out.dir.join("report.json")).map_or(0, |m| m.len());
    assert!(size < 1 << 20, "the JSON report is {size} bytes");
}

#[test]
fn inspecting_a_server_that_prints_huge_noise_names_it_in_a_few_lines() {
    let fake = super::harness::example("fake_mcp");
    let out = Case::new("inspect-huge-noise")
        .args(&["inspect", "--", &fake, "--fault", "huge-noise"])
        .no_reports()
        .run();
    out.sound(1).says("[stdout-noise]");
    let printed = out.stdout.len() + out.stderr.len();
    assert!(printed < 64 << 10, "{printed} bytes printed");
}

#[test]
fn a_flood_of_noise_keeps_the_first_lines_only() {
    let out = Case::new("noise-flood")
        .yaml(&suite(&["--fault", "noise-flood"], ECHO))
        .run();
    out.sound(0);
    let noise = out.report()["stdout_noise"].clone();
    let lines = noise.as_array().cloned().unwrap_or_default();
    assert_eq!(lines.len(), 200);
    assert_eq!(lines[0], "log line 1 of 100000");
}

#[test]
fn a_result_nested_too_deep_is_reported_at_once_as_unreadable() {
    let out = Case::new("deep-result")
        .yaml(&suite(&["--fault", "deep-result"], PATIENT_ECHO))
        .run();
    out.sound(1)
        .says("the answer to `tools/call` could not be read: it is nested deeper than 128 levels");
}

#[test]
fn a_number_beyond_a_double_is_reported_at_once_as_unreadable() {
    let out = Case::new("huge-number")
        .yaml(&suite(&["--fault", "huge-number"], PATIENT_ECHO))
        .run();
    out.sound(1).says(
        "the answer to `tools/call` could not be read: it holds a number beyond the range of a 64-bit float",
    );
}

#[test]
fn a_39_digit_integer_is_read_as_a_number() {
    let tests = "  - name: big\n    tool: echo\n    args: {text: hi}\n    timeout_ms: 20000\n    expect:\n      jsonpath:\n        $.n: {type: number, min: 3.4e38}\n";
    let out = Case::new("big-integer")
        .yaml(&suite(&["--fault", "big-integer"], tests))
        .run();
    out.sound(0);
    assert_eq!(verdicts(&out)[0].0, "passed");
}

/// A result whose content the SDKs refuse (a text block with a non-string or no `text`) is no
/// result: the test fails saying which block and why, and fuzzing reports it as a finding.
#[test]
fn invalid_content_blocks_fail_the_test_and_are_a_fuzz_finding() {
    let fuzz = "fuzz:\n  max_examples: 2\n  seed: 1\n  tools: [echo]\n";
    let out = Case::new("bad-content")
        .yaml(&suite(
            &["--fault", "bad-content"],
            &format!("{PATIENT_ECHO}{fuzz}"),
        ))
        .run();
    out.sound(1);
    let why = concat!(
        r#"content[0]: a text block's "text" must be a string, got 5; "#,
        r#"content[1]: a text block has no "text""#
    );
    let v = verdicts(&out);
    assert_ne!(v[0].0, "passed", "{out:?}");
    assert!(v[0].1.contains(why), "{v:?}");
    out.says(r#"content[0]: a text block's "text" must be a string, got 5"#);
    let report = out.report();
    let findings = &report["phases"]["fuzz"]["results"]["tools"][0]["findings"];
    assert!(
        findings[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains(why)),
        "{findings:#}"
    );
}

#[test]
fn an_answer_with_the_wrong_id_is_reported_at_once() {
    let out = Case::new("wrong-id")
        .yaml(&suite(&["--fault", "wrong-id"], PATIENT_ECHO))
        .run();
    out.sound(1)
        .says("the server answered `tools/call` (id 5) with id 1005, which no request has");
}

#[test]
fn a_second_answer_to_a_request_fails_the_request_in_flight() {
    let tests = format!(
        "{ECHO}  - name: next\n    tool: echo\n    args: {{text: two}}\n    timeout_ms: 20000\n"
    );
    let out = Case::new("duplicate-answer")
        .yaml(&suite(&["--fault", "duplicate-answer"], &tests))
        .run();
    out.sound(1);
    let v = verdicts(&out);
    assert_eq!(v[0].0, "passed");
    assert_eq!(
        v[1].1,
        "no result from the server: while `tools/call` (id 6) was in flight the server sent a second answer to request 5"
    );
}

#[test]
fn ten_thousand_notifications_before_an_answer_do_not_lose_it() {
    let tests = "  - name: echo\n    tool: echo\n    args: {text: hi}\n    timeout_ms: 20000\n    expect: {equals: hi}\n";
    let out = Case::new("notification-flood")
        .yaml(&suite(&["--fault", "notification-flood"], tests))
        .run();
    out.sound(0);
    assert_eq!(verdicts(&out)[0].0, "passed");
}

#[test]
fn endless_pagination_is_stopped_and_named() {
    let out = Case::new("endless-pagination")
        .yaml(&suite(&["--fault", "endless-pagination"], ECHO))
        .run();
    out.sound(1).says("the server paginates endlessly");
}

#[test]
fn ten_thousand_tools_are_listed_in_pages_and_the_last_one_called() {
    // The static checks are left out: `similar-tools` compares every pair, which takes tens of
    // seconds for 10,000 tools in a debug build.
    let tests = "  - name: last tool\n    tool: tool_10000\n    args: {}\n    timeout_ms: 5000\n    expect: {contains: tool_10000 ok}\n";
    let out = Case::new("ten-thousand-tools")
        .yaml(&suite(&["--tools", "10000", "--page-size", "250"], tests))
        .run();
    out.sound(0);
    assert_eq!(verdicts(&out)[0].0, "passed");
}

#[test]
fn hostile_schemas_are_reported_and_crash_nothing() {
    // Every client's rules walk the schemas too: self-reference, 55 levels, 100,000 values.
    let yaml = fake_server(
        &["--fault", "hostile-schemas"],
        "  startup_timeout_s: 5\nchecks:\n  clients: [openai-strict, gemini, anthropic, anthropic-strict]\n",
    );
    let out = Case::new("hostile-schemas").yaml(&yaml).run();
    out.sound(1).says("bad_pattern").says("remote_ref");
    let report = out.report();
    assert_eq!(report["phases"]["checks"]["status"], "failed");
    let findings = report["phases"]["checks"]["results"]["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        findings.iter().any(|f| f["tool"] == "self_ref"
            && f["message"]
                .as_str()
                .is_some_and(|m| m.contains("rule `recursion` at /properties/next"))),
        "{findings:#?}"
    );
}

#[test]
fn a_hundred_mebibytes_of_stderr_keep_the_last_words_of_a_crash() {
    let tests = "  - name: boom\n    tool: crash\n";
    let out = Case::new("stderr-flood")
        .yaml(&suite(&["--fault", "stderr-flood"], tests))
        .run();
    out.sound(1)
        .says("the server exited with code 3 during the call");
    let stderr = results(&out)[0]["stderr"].as_str().unwrap_or("").to_owned();
    assert!(
        stderr.len() <= 64 << 10,
        "{} bytes of stderr kept",
        stderr.len()
    );
    assert!(
        stderr.ends_with("about to crash\n"),
        "{:?}",
        &stderr[stderr.len().saturating_sub(80)..]
    );
}

#[test]
fn a_server_that_closes_stdout_fails_the_call_and_is_restarted() {
    // `sed` passes on the handshake's two answers and the tool list, then ends; the shell
    // lets go of stdout and lives on, so stdout closes while the server runs.
    let fake = super::harness::example("fake_mcp");
    let script = "exec 3<&0; \"$0\" <&3 3<&- | sed -u 3q & exec 1>&- 0<&-; wait; sleep 30";
    let yaml = format!(
        "server:\n  command: {}\n  startup_timeout_s: 2\ntimeout_ms: 2000\nchecks:\n  enabled: false\ntests:\n  - name: first\n    tool: echo\n    args: {{text: hi}}\n{ECHO}",
        yaml_list(&["sh", "-c", script, &fake])
    );
    let out = Case::new("closed-stdout").yaml(&yaml).run();
    out.sound(1);
    let v = verdicts(&out);
    assert_eq!(
        v[0],
        (
            "error".to_owned(),
            "the server closed its stdout during the call".to_owned()
        ),
        "{out:?}"
    );
    assert_eq!(v[1].0, "passed", "{out:?}");
}

#[test]
fn a_json_rpc_error_fails_a_test_unless_it_expects_an_error() {
    let tests = "  - name: no expectation\n    tool: echo\n    args: {text: hi}\n  - name: expects an error\n    tool: echo\n    args: {text: hi}\n    expect: {is_error: true, contains: unreachable}\n";
    let out = Case::new("call-rpc-error")
        .yaml(&suite(&["--fault", "call-rpc-error"], tests))
        .run();
    out.sound(1)
        .says("protocol error -32603: internal error: the database is unreachable");
    let v = verdicts(&out);
    assert_eq!(v[0].0, "failed");
    assert_eq!(v[1].0, "passed");
}

#[test]
fn an_answer_over_the_message_limit_is_refused_and_named() {
    let out = Case::new("huge-line")
        .yaml(&suite(&["--fault", "huge-line"], PATIENT_ECHO))
        .run();
    out.sound(1).says("over the 64 MiB limit for one message");
}
