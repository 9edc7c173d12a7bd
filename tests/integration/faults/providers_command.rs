//! The `command` provider when the user's program misbehaves: floods stderr or stdout, leaves a
//! child holding stdout, prints nonsense, names a tool that does not exist, or never answers.
//! Each is reported for what it is, with every report written.

use super::harness::{Case, Outcome, fake_server};
use super::protocol::SERVER;

/// Runs `toolproof run` against the fake server with `script` as the picker (`sh pick.sh`),
/// one case expecting `echo`, no retries, and `timeout_s`.
fn picker(name: &str, script: &str, timeout_s: &str) -> Outcome {
    let evals = format!(
        "evals:\n  provider: command\n  command: [sh, pick.sh]\n  timeout_s: {timeout_s}\n  max_retries: 0\n  cases:\n    - {{prompt: say hi, expect_tool: echo}}\n"
    );
    Case::new(name)
        .yaml(&fake_server(&[], &evals))
        .file("pick.sh", script.as_bytes())
        .run()
}

const ECHO: &str = r#"echo '{"tool": "echo", "args": {"text": "hi"}}'"#;

#[test]
fn seventeen_mib_on_stderr_is_drained_and_the_answer_counts() {
    let script = format!("set -e\nhead -c 17000000 /dev/zero >&2\n{ECHO}\n");
    let out = picker("huge-stderr", &script, "60");
    out.sound(0);
    assert_eq!(out.report()["phases"]["evals"]["status"], "passed");
}

#[test]
fn seventeen_mib_on_stdout_is_named_as_too_much_output() {
    let script = "head -c 17000000 /dev/zero | tr '\\0' ' '\necho '{\"tool\": \"echo\"}'\n";
    picker("huge-stdout", script, "60")
        .sound(1)
        .says("the program printed more than 16 MiB on stdout");
}

#[test]
fn a_child_left_holding_stdout_does_not_turn_the_answer_into_a_timeout() {
    let script = format!("sleep 600 &\n{ECHO}\n");
    let out = picker("child-holds-stdout", &script, "20");
    out.sound(0);
    assert_eq!(out.report()["phases"]["evals"]["status"], "passed");
}

#[test]
fn output_that_is_not_json_is_quoted() {
    picker("not-json", "echo 'I think echo'\n", "60")
        .sound(1)
        .says("provider error: eval command printed invalid JSON: \"I think echo\"");
}

#[test]
fn arguments_that_are_not_an_object_are_refused() {
    picker(
        "args-list",
        "echo '{\"tool\": \"echo\", \"args\": [\"hi\"]}'\n",
        "60",
    )
    .sound(1)
    .says("'args' must be an object");
}

#[test]
fn an_unknown_tool_is_a_miss_that_names_it() {
    let out = picker(
        "unknown-tool",
        "echo '{\"tool\": \"no_such_tool\", \"args\": {}}'\n",
        "60",
    );
    out.sound(1).says("no_such_tool");
    assert_eq!(out.report()["phases"]["evals"]["status"], "failed");
}

#[test]
fn a_program_that_never_answers_is_stopped_at_the_timeout() {
    picker("timeout", "sleep 600\n", "0.5")
        .sound(1)
        .says("eval command timed out after 0.5s");
}

#[test]
fn a_failing_program_is_reported_with_its_exit_code_and_stderr() {
    picker("exit-3", "echo 'no key for the model' >&2\nexit 3\n", "60")
        .sound(1)
        .says("eval command exited with code 3: no key for the model");
}

#[test]
fn tool_names_that_collide_after_cutting_to_64_do_not_hang_the_evals() {
    // mcp-toolproof 0.3.1, and toolproof before, looped forever naming the third tool.
    let a60 = "a".repeat(60);
    let tool = |name: &str| {
        format!(
            r#"{{"name":"{name}","description":"Does {name}.","inputSchema":{{"type":"object"}}}}"#
        )
    };
    let tools = format!(
        "[{},{},{}]",
        tool(&format!("{a60}_2")),
        tool(&"a".repeat(64)),
        tool(&"a".repeat(65))
    );
    let picker = format!(r#"echo '{{"tool": "{a60}_2_1"}}'"#);
    let evals = format!(
        "evals:\n  provider: command\n  command: [sh, pick.sh]\n  max_retries: 0\n  cases:\n    - {{prompt: the long one, expect_tool: {}}}\n",
        "a".repeat(65)
    );
    let out = Case::new("colliding-names")
        .file("server.sh", SERVER.as_bytes())
        .file("pick.sh", picker.as_bytes())
        .yaml(&format!(
            "server:\n  command: [sh, server.sh, none]\n  env: {{TOOLS: '{tools}'}}\n{evals}"
        ))
        .run();
    out.sound(0);
    assert_eq!(out.report()["phases"]["evals"]["status"], "passed");
}
