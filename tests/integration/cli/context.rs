//! Cases in a conversation end to end: a case's `context:` reaches each provider in its wire
//! shape (fake_llm's log for Anthropic and OpenAI, the picker's log for the command provider),
//! the fake model answers from it, and the cache keeps the case apart from the same prompt
//! without context.

use super::evals::{api_config, api_env, command_config, eval_in, llm, model0, requests};
use super::*;
use serde_json::json;

/// `tests/fixtures/context/order-cases.yaml`: "Cancel it" after a turn about order 55219
/// has a right answer; without it, it is the ambiguous no-tool case.
fn order_cases() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/context/order-cases.yaml")
        .display()
        .to_string()
}

fn cache_files(dir: &Dir) -> usize {
    std::fs::read_dir(dir.path(".toolproof-cache/evals"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Runs the pair against `provider` on fake_llm; returns the logged request bodies, in case
/// order (the one with context has more messages).
fn run_pair(name: &str, provider: &str) -> (Dir, Vec<Value>) {
    let dir = Dir::new(name);
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    api_config(
        &dir,
        provider,
        &["--fault", "order-tools"],
        &format!(
            "  system: You help with orders.\n  concurrency: 1\n  cases_file: {}\n",
            serde_json::to_string(&order_cases()).unwrap_or_default()
        ),
        "    []\n",
    );
    let openai = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    let m = model0(&report);
    assert_eq!(m["correct"], 2, "{m:#}");
    let calls = &m["cases"][0]["trials"][0]["calls"];
    assert_eq!(
        calls[0],
        json!({"tool": "cancel_order", "args": {"order_id": "55219"}, "malformed_args": null})
    );
    assert_eq!(m["cases"][1]["trials"][0]["kind"], "text_only");
    // One cache entry each: the same prompt after a conversation is its own question.
    assert_eq!(cache_files(&dir), 2);
    let mut bodies: Vec<Value> = requests(&dir, "llm.jsonl")
        .into_iter()
        .map(|r| r["body"].clone())
        .collect();
    bodies.sort_by_key(|b| std::cmp::Reverse(b["messages"].as_array().map_or(0, Vec::len)));
    assert_eq!(bodies.len(), 2);
    // Replayed with no key and --offline: both verdicts hold, from two distinct entries.
    let (again, report) = eval_in(
        &dir,
        &["--offline"],
        &[("ANTHROPIC_API_KEY", ""), ("OPENAI_API_KEY", "")],
    );
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(model0(&report)["correct"], 2);
    assert_eq!(report["phases"]["evals"]["results"]["cache"]["hits"], 2);
    (dir, bodies)
}

#[test]
fn anthropic_gets_the_context_as_tool_use_and_tool_result_blocks() {
    let (_dir, bodies) = run_pair("ctx-anthropic", "anthropic");
    assert_eq!(
        bodies[0]["messages"],
        json!([
            {"role": "user", "content": "Where is my order 55219?"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_ctx_1", "name": "get_order", "input": {"order_id": "55219"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_ctx_1", "content": "{\"status\":\"processing\"}"}
            ]},
            {"role": "assistant", "content": "Order 55219 is still processing."},
            {"role": "user", "content": "Cancel it [[from-context cancel_order order_id]]"}
        ])
    );
    assert_eq!(
        bodies[0]["system"],
        json!([{"type": "text", "text": "You help with orders.", "cache_control": {"type": "ephemeral"}}])
    );
    // Without context: the request mcp-toolproof sends.
    assert_eq!(
        bodies[1]["messages"],
        json!([{"role": "user", "content": "Cancel it [[from-context cancel_order order_id]]"}])
    );
}

#[test]
fn openai_gets_the_context_as_tool_calls_and_tool_messages() {
    let (_dir, bodies) = run_pair("ctx-openai", "openai");
    assert_eq!(
        bodies[0]["messages"],
        json!([
            {"role": "system", "content": "You help with orders."},
            {"role": "user", "content": "Where is my order 55219?"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_ctx_1", "type": "function",
                 "function": {"name": "get_order", "arguments": "{\"order_id\":\"55219\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_ctx_1", "content": "{\"status\":\"processing\"}"},
            {"role": "assistant", "content": "Order 55219 is still processing."},
            {"role": "user", "content": "Cancel it [[from-context cancel_order order_id]]"}
        ])
    );
    assert_eq!(
        bodies[1]["messages"],
        json!([
            {"role": "system", "content": "You help with orders."},
            {"role": "user", "content": "Cancel it [[from-context cancel_order order_id]]"}
        ])
    );
}

#[test]
fn the_command_provider_gets_a_context_member_with_the_offered_names() {
    let dir = Dir::new("ctx-command");
    let cases = r#"    - name: after a lookup
      prompt: 'Cancel it [[call add {"a": 1, "b": 2}]]'
      expect_tool: add
      context:
        - user: Where is order 55219?
        - call: bad name/with slash
          args: {value: "55219"}
          result: found
    - name: alone
      prompt: 'Cancel it [[none]]'
      expect_tool: null
"#;
    command_config(&dir, "  concurrency: 1\n", cases);
    // The server plants `bad name/with slash`, offered as `bad_name_with_slash`.
    let yaml = dir.read("toolproof.yaml");
    let server_line = yaml.lines().nth(1).unwrap_or_default().to_owned();
    let server = yaml_list(&[&fake(), "--fault", "bad-name"]);
    dir.write(
        "toolproof.yaml",
        &yaml.replacen(&server_line, &format!("  command: {server}"), 1),
    );
    let log = dir.path("picker.jsonl").display().to_string();
    let (out, report) = eval_in(&dir, &[], &[("PICKER_LOG", &log)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(model0(&report)["correct"], 2);
    let mut sent = requests(&dir, "picker.jsonl");
    sent.sort_by_key(|r| r.get("context").is_none());
    assert_eq!(
        sent[0]["context"],
        json!([
            {"user": "Where is order 55219?"},
            {"call": "bad_name_with_slash", "args": {"value": "55219"}, "result": "found"}
        ])
    );
    assert!(sent[1].get("context").is_none(), "{:#}", sent[1]);
}

#[test]
fn the_lint_names_a_context_call_of_a_missing_tool_and_an_ambiguous_case_the_context_resolves() {
    let dir = Dir::new("ctx-lint");
    let cases = r#"    - name: after a typo
      prompt: Cancel it
      expect_tool: cancel_order
      why: follow-up
      context:
        - call: get_ordr
          args: {order_id: "55219"}
          result: processing
    - name: still ambiguous?
      prompt: Cancel it please
      expect_tool: null
      why: "ambiguous: which order?"
      context:
        - call: get_order
          args: {order_id: "55219"}
          result: processing
"#;
    api_config(&dir, "anthropic", &["--fault", "order-tools"], "", cases);
    let out = toolproof_in(&dir.0, &["lint", "-c", "toolproof.yaml"], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("unknown-context-tool"), "{out:?}");
    assert!(
        out.stdout.contains("context[0] calls `get_ordr`"),
        "{out:?}"
    );
    assert!(out.stdout.contains("toolproof.yaml:7"), "{out:?}");
    assert!(out.stdout.contains("did you mean `get_order`?"), "{out:?}");
    assert!(out.stdout.contains("context-resolves-ambiguous"), "{out:?}");
}
