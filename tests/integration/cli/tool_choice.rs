//! `evals.tool_choice` on each provider's wire, read from what the fake model API and the
//! scripted picker received; the cache key with and without it; and the mistakes it refuses.

use super::evals::{api_config, api_env, command_config, eval_in, llm, requests};
use super::*;

/// Cases that expect a tool, so no forced choice keeps one from passing.
const CALLS: &str = r#"    - name: one
      prompt: 'x [[call echo {"text": "a"}]]'
      expect_tool: echo
      why: a call
    - name: two
      prompt: 'y [[call add {"a": 1, "b": 2}]]'
      expect_tool: add
      why: another call
"#;

fn lint_finding<'r>(report: &'r Value, id: &str) -> &'r Value {
    report["phases"]["lint"]["results"]["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|x| x["id"] == id))
        .unwrap_or_else(|| panic!("no {id} finding: {report:#}"))
}

fn cache_files(dir: &Dir) -> usize {
    std::fs::read_dir(dir.path(".toolproof-cache/evals")).map_or(0, |d| d.count())
}

/// The `tool_choice` of every request the fake API received, in order.
fn sent(dir: &Dir) -> Vec<Value> {
    requests(dir, "llm.jsonl")
        .iter()
        .map(|r| r["body"]["tool_choice"].clone())
        .collect()
}

#[test]
fn each_http_provider_gets_the_choice_in_its_own_format_and_the_key_changes() {
    let cases = [
        ("anthropic", "", serde_json::json!({"type": "auto"})),
        ("anthropic", "any", serde_json::json!({"type": "any"})),
        ("anthropic", "required", serde_json::json!({"type": "any"})),
        ("anthropic", "none", serde_json::json!({"type": "none"})),
        (
            "anthropic",
            "{tool: echo}",
            serde_json::json!({"type": "tool", "name": "echo"}),
        ),
        ("openai", "", serde_json::json!("auto")),
        ("openai", "any", serde_json::json!("required")),
        ("openai", "none", serde_json::json!("none")),
        (
            "openai",
            "{tool: echo}",
            serde_json::json!({"type": "function", "function": {"name": "echo"}}),
        ),
    ];
    for (provider, choice, want) in cases {
        let dir = Dir::new("choice-wire");
        let log = dir.path("llm.jsonl").display().to_string();
        let server = llm(&["--log", &log]);
        let openai = format!("{}/v1", server.url);
        // Unset first: the reference's request and cache key.
        api_config(&dir, provider, &[], "  min_accuracy: 0\n", CALLS);
        let (out, _) = eval_in(&dir, &[], &api_env(&server, &openai));
        assert_eq!(out.code, 0, "{provider} unset: {out:?}");
        assert_eq!(cache_files(&dir), 2);
        if choice.is_empty() {
            assert_eq!(sent(&dir), [want.clone(), want], "{provider}");
            continue;
        }
        let extra = format!("  min_accuracy: 0\n  tool_choice: {choice}\n");
        api_config(&dir, provider, &[], &extra, CALLS);
        let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
        // `none` keeps every case from passing, a forced `echo` the case expecting `add`:
        // the lint says so and fails the run.
        let lint_fails = choice == "none" || choice.starts_with("{tool");
        assert_eq!(
            out.code,
            i32::from(lint_fails),
            "{provider} {choice}: {out:?}"
        );
        assert_eq!(sent(&dir)[2..], [want.clone(), want], "{provider} {choice}");
        // A new key: nothing came from the cache, two more files were written.
        assert_eq!(report["phases"]["evals"]["results"]["cache"]["hits"], 0);
        assert_eq!(cache_files(&dir), 4, "{provider} {choice}");
    }
}

#[test]
fn a_named_tool_goes_by_its_api_name_and_an_unknown_one_is_refused() {
    let dir = Dir::new("choice-named");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let openai = format!("{}/v1", server.url);
    let cases = "    - name: slash\n      prompt: 'v [[call bad_name_with_slash {\"value\": \"x\"}]]'\n      expect_tool: bad name/with slash\n      why: sanitised\n";
    api_config(
        &dir,
        "anthropic",
        &["--fault", "bad-name"],
        "  tool_choice: {tool: bad name/with slash}\n",
        cases,
    );
    let (out, _) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        sent(&dir),
        [serde_json::json!({"type": "tool", "name": "bad_name_with_slash"})]
    );
    // A tool the server does not list: the evals stop with a clear error, the lint names it.
    let (out, report) = eval_in(
        &dir,
        &["--tool-choice", "tool:bad name/with slsh"],
        &api_env(&server, &openai),
    );
    assert_eq!(out.code, 1, "{out:?}");
    let reason = report["phases"]["evals"]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.contains("evals.tool_choice names `bad name/with slsh`, which is not a tool of the server, did you mean `bad name/with slash`?"),
        "{reason}"
    );
    assert_eq!(requests(&dir, "llm.jsonl").len(), 1, "nothing was asked");
    let finding = lint_finding(&report, "unknown-tool-choice");
    assert!(
        finding["message"]
            .as_str()
            .is_some_and(|m| m.contains("(--tool-choice)")),
        "{finding:#}"
    );
}

#[test]
fn the_command_provider_gets_a_tool_choice_member_only_when_one_is_set() {
    let dir = Dir::new("choice-command");
    let log = dir.path("picker.jsonl").display().to_string();
    command_config(&dir, "", CALLS);
    let (out, _) = eval_in(&dir, &[], &[("PICKER_LOG", &log)]);
    assert_eq!(out.code, 0, "{out:?}");
    let (out, _) = eval_in(
        &dir,
        &[],
        &[("PICKER_LOG", &log), ("TOOLPROOF_EVAL_TOOL_CHOICE", "any")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let (out, _) = eval_in(
        &dir,
        &["--tool-choice", "tool:add"],
        &[("PICKER_LOG", &log)],
    );
    // `two` expects `add` and gets it; `one` expects `echo`, which a forced `add` rules out.
    assert_eq!(out.code, 1, "{out:?}");
    let asked: Vec<Value> = requests(&dir, "picker.jsonl");
    assert_eq!(asked.len(), 6);
    for r in &asked[..2] {
        let mut keys: Vec<&str> = r
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["model", "prompt", "system", "tools"],
            "the reference's request: {r}"
        );
    }
    for r in &asked[2..4] {
        assert_eq!(r["tool_choice"], serde_json::json!({"type": "any"}), "{r}");
    }
    for r in &asked[4..] {
        assert_eq!(
            r["tool_choice"],
            serde_json::json!({"type": "tool", "name": "add"})
        );
    }
}

#[test]
fn a_forced_choice_with_no_tool_cases_fails_the_lint_also_through_params() {
    let dir = Dir::new("choice-forced");
    let cases = format!(
        "{CALLS}    - name: thanks\n      prompt: thanks\n      expect_tool: null\n      why: filler\n"
    );
    for extra in [
        "  tool_choice: any\n",
        "  params: {tool_choice: {type: any}}\n",
        "  params: {extra_body: {tool_choice: required}}\n",
    ] {
        command_config(&dir, extra, &cases);
        let out = toolproof_in(
            &dir.0,
            &["lint", "-c", "toolproof.yaml", "--json", "r.json"],
            &[],
        );
        assert_eq!(out.code, 1, "{extra}: {out:?}");
        let report = dir.json("r.json");
        let finding = lint_finding(&report, "tool-choice-conflict");
        assert!(
            finding["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("case \"thanks\"")
                    && m.contains("forces a call: it cannot pass")),
            "{finding:#}"
        );
    }
}

#[test]
fn a_choice_set_twice_or_misspelt_is_a_usage_error() {
    let dir = Dir::new("choice-errors");
    command_config(
        &dir,
        "  params: {tool_choice: {type: any}}\n  tool_choice: any\n",
        CALLS,
    );
    let out = toolproof_in(&dir.0, &["eval", "-c", "toolproof.yaml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("toolproof.yaml:7:")
            && out
                .stderr
                .contains("`evals.tool_choice` and `evals.params.tool_choice` are both set"),
        "{out:?}"
    );
    command_config(&dir, "  params: {tool_choice: {type: any}}\n", CALLS);
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml"],
        &[("TOOLPROOF_EVAL_TOOL_CHOICE", "none")],
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("TOOLPROOF_EVAL_TOOL_CHOICE=none and evals.params.tool_choice are both set"),
        "{out:?}"
    );
    command_config(&dir, "  tool_choice: sometimes\n", CALLS);
    let out = toolproof_in(&dir.0, &["eval", "-c", "toolproof.yaml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains(
            "unknown tool choice `sometimes`: use auto, any (or required), none, or {tool: NAME}"
        ),
        "{out:?}"
    );
    command_config(&dir, "  tool_choice: {name: echo}\n", CALLS);
    let out = toolproof_in(&dir.0, &["eval", "-c", "toolproof.yaml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("a tool choice mapping is {tool: NAME}"),
        "{out:?}"
    );
    command_config(&dir, "", CALLS);
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml", "--tool-choice", "often"],
        &[],
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("unknown tool choice `often`"),
        "{out:?}"
    );
}
