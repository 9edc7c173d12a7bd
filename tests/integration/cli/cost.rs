//! Tokens and cost end to end: the usage each provider reports (the fake model API sends
//! Anthropic's and OpenAI's real usage objects, with their prompt caches; the scripted picker
//! sends the command provider's), the prompt cache marker on Anthropic requests, the usage kept
//! in cache entries, and every report's cost line, through the `toolproof` binary.

use super::evals::{KEY, api_config, api_env, command_config, eval_in, llm, model0, requests};
use super::*;

const CASES: &str = r#"    - name: adds
      prompt: 'add 2 and 3 [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
    - name: echoes
      prompt: 'say hi [[call echo {"text": "hi"}]]'
      expect_tool: echo
    - name: chats
      prompt: thanks [[text you are welcome]]
      expect_tool: null
"#;

const SONNET_PRICES: &str =
    "  prices:\n    fake-model-1: {input: 3.0, output: 15.0, cache_write: 3.75, cache_read: 0.3}\n";

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(u64::MAX)
}

/// The cache entries of a folder, by file name.
fn entries(dir: &Dir) -> Vec<(String, Value)> {
    let mut files: Vec<(String, Value)> = std::fs::read_dir(dir.path(".toolproof-cache/evals"))
        .map(|rd| {
            rd.flatten()
                .map(|e| {
                    let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        serde_json::from_str(&text).unwrap_or(Value::Null),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

#[test]
fn anthropic_tokens_are_reported_priced_kept_in_the_cache_and_the_tool_list_is_cached() {
    let dir = Dir::new("cost-anthropic");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let extra = format!("  system: You pick tools.\n  min_accuracy: 0\n{SONNET_PRICES}");
    api_config(&dir, "anthropic", &[], &extra, CASES);
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    let (out, report) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");

    // Every request marks the last tool and the system prompt for the prompt cache.
    let sent = requests(&dir, "llm.jsonl");
    assert_eq!(sent.len(), 3, "{sent:#?}");
    for r in &sent {
        let tools = r["body"]["tools"].as_array().expect("tools");
        assert!(tools.len() > 1);
        let marked: Vec<bool> = tools
            .iter()
            .map(|t| t.get("cache_control").is_some())
            .collect();
        assert_eq!(marked.iter().filter(|m| **m).count(), 1, "{marked:?}");
        assert_eq!(
            tools.last().map(|t| &t["cache_control"]),
            Some(&serde_json::json!({"type": "ephemeral"}))
        );
        assert_eq!(
            r["body"]["system"],
            serde_json::json!([{"type": "text", "text": "You pick tools.", "cache_control": {"type": "ephemeral"}}])
        );
    }

    // The first request wrote the tool list and system prompt to the prompt cache; the two
    // others read them from it.
    let cost = &model0(&report)["cost"];
    assert_eq!(
        (
            n(&cost["requests"]),
            n(&cost["reported"]),
            n(&cost["not_reported"])
        ),
        (3, 3, 0),
        "{cost:#}"
    );
    let t = &cost["tokens"];
    let (input, output, write, read) = (
        n(&t["input"]),
        n(&t["output"]),
        n(&t["cache_write"]),
        n(&t["cache_read"]),
    );
    assert!(write > 0 && input > 0 && output > 0, "{t}");
    assert_eq!(read, 2 * write, "{t}");
    let expected =
        (input as f64 * 3.0 + output as f64 * 15.0 + write as f64 * 3.75 + read as f64 * 0.3) / 1e6;
    let estimated = cost["cost_usd"].as_f64().unwrap_or(-1.0);
    assert!(
        (estimated - expected).abs() < 1e-12,
        "{estimated} vs {expected}"
    );
    assert_eq!(cost["price"]["source"], "evals.prices");
    let share = (read as f64 / (input + write + read) as f64 * 100.0).round();
    assert!(
        out.stdout.contains("Tokens and cost: 3 requests · "),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains(&format!("cached ({share:.0}% of input) · est. $")),
        "{}",
        out.stdout
    );
    assert!(dir.read("s.md").contains("Tokens and cost: 3 requests"));

    // Each cache entry keeps its answer's usage and cost beside the reference's fields.
    let stored = entries(&dir);
    assert_eq!(stored.len(), 3);
    let mut recorded = 0.0;
    for (_, e) in &stored {
        assert!(e.get("tool").is_some() && e.get("text").is_some(), "{e}");
        let u = &e["usage"];
        assert!(
            n(&u["input_tokens"]) > 0 && n(&u["output_tokens"]) > 0,
            "{e}"
        );
        recorded += u["cost_usd"].as_f64().unwrap_or(-1.0);
    }
    assert!(
        (recorded - estimated).abs() < 1e-5,
        "{recorded} vs {estimated}"
    );

    // A replay asks nothing and says what its answers cost when they were recorded.
    let (out, report) = eval_in(&dir, &["--offline"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 3, "nothing asked");
    let cost = &model0(&report)["cost"];
    assert_eq!(
        (
            n(&cost["requests"]),
            n(&cost["replayed"]),
            n(&cost["replayed_reported"])
        ),
        (0, 3, 3)
    );
    assert_eq!(cost["replayed_tokens"], *t);
    let replayed = cost["replayed_cost_usd"].as_f64().unwrap_or(-1.0);
    assert!(
        (replayed - recorded).abs() < 1e-9,
        "{replayed} vs {recorded}"
    );
    assert!(
        out.stdout.contains("3 replayed answers cost $"),
        "{}",
        out.stdout
    );

    // Turned off: the reference's request, the same cache keys, and the full input price.
    let plain = Dir::new("cost-anthropic-plain");
    let log = plain.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    api_config(&plain, "anthropic", &[], &extra, CASES);
    let openai = format!("{}/v1", server.url);
    let mut env = api_env(&server, &openai);
    env.push(("TOOLPROOF_PROMPT_CACHE", "false"));
    let (out, report) = eval_in(&plain, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    for r in requests(&plain, "llm.jsonl") {
        assert_eq!(r["body"]["system"], "You pick tools.");
        assert!(
            !r["raw"]
                .as_str()
                .unwrap_or("cache_control")
                .contains("cache_control")
        );
    }
    let names = |d: &Dir| entries(d).into_iter().map(|(k, _)| k).collect::<Vec<_>>();
    assert_eq!(
        names(&plain),
        names(&dir),
        "the marker is not part of the key"
    );
    let t = &model0(&report)["cost"]["tokens"];
    assert_eq!((n(&t["cache_write"]), n(&t["cache_read"])), (0, 0), "{t}");
    assert!(n(&t["input"]) > input, "{t}");
}

#[test]
fn openai_cached_tokens_are_reported_and_an_answer_without_usage_is_not_reported() {
    let dir = Dir::new("cost-openai");
    let server = llm(&[]);
    let cases = format!(
        "{CASES}    - name: quiet\n      prompt: 'add 1 and 1 [[call add {{\"a\": 1, \"b\": 1}}]] [[no-usage]]'\n      expect_tool: add\n"
    );
    let extra = "  concurrency: 1\n  min_accuracy: 0\n  prices:\n    fake-model-1: {input: 1.0, output: 2.0, cache_read: 0.5}\n";
    api_config(&dir, "openai", &[], extra, &cases);
    let openai = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    let cost = &model0(&report)["cost"];
    assert_eq!(
        (
            n(&cost["requests"]),
            n(&cost["reported"]),
            n(&cost["not_reported"])
        ),
        (4, 3, 1),
        "{cost:#}"
    );
    // One at a time: the first request is read in full, the two next read the tool list
    // from OpenAI's cache (cached_tokens), and the quiet one says nothing.
    let t = &cost["tokens"];
    let (input, read) = (n(&t["input"]), n(&t["cache_read"]));
    assert!(read > 0 && input > 0, "{t}");
    assert_eq!(n(&t["cache_write"]), 0);
    let expected = (input as f64 + n(&t["output"]) as f64 * 2.0 + read as f64 * 0.5) / 1e6;
    assert!((cost["cost_usd"].as_f64().unwrap_or(-1.0) - expected).abs() < 1e-12);
    assert!(
        out.stdout.contains("Tokens and cost: 4 requests · ")
            && out.stdout.contains(", 1 answer not reported · est. $"),
        "{}",
        out.stdout
    );
    let without: Vec<Value> = entries(&dir)
        .into_iter()
        .map(|(_, e)| e)
        .filter(|e| e.get("usage").is_none())
        .collect();
    assert_eq!(without.len(), 1, "the quiet answer has no usage to keep");
    assert!(
        without[0]["prompt"]
            .as_str()
            .is_some_and(|p| p.contains("[[no-usage]]"))
    );
}

#[test]
fn the_command_providers_usage_is_reported_and_a_model_without_a_price_has_none() {
    let dir = Dir::new("cost-command");
    let cases = r#"    - name: adds
      prompt: 'add [[call add {"a": 1, "b": 2}]] [[usage 120 8]]'
      expect_tool: add
    - name: chats
      prompt: thanks [[usage 100 12]]
      expect_tool: null
    - name: silent
      prompt: 'echo [[call echo {"text": "x"}]]'
      expect_tool: echo
    - name: garbled usage
      prompt: 'echo [[call echo {"text": "y"}]] [[usage bad]]'
      expect_tool: echo
"#;
    command_config(&dir, "  min_accuracy: 0\n", cases);
    let (out, report) = eval_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let m = model0(&report);
    let cost = &m["cost"];
    assert_eq!(
        (
            n(&cost["requests"]),
            n(&cost["reported"]),
            n(&cost["not_reported"])
        ),
        (4, 2, 1),
        "{cost:#}"
    );
    assert_eq!(
        cost["tokens"],
        serde_json::json!({"input": 220, "output": 20, "cache_write": 0, "cache_read": 0})
    );
    assert_eq!(cost["cost_usd"], Value::Null);
    assert_eq!(cost["price"], Value::Null);
    assert!(
        out.stdout.contains(
            "Tokens and cost: 4 requests · 220 in / 20 out, 1 answer not reported · no price"
        ),
        "{}",
        out.stdout
    );
    let garbled = &m["cases"][3];
    assert_eq!(garbled["status"], "provider_error", "{garbled:#}");
    assert!(
        garbled.to_string().contains("'usage' must be an object"),
        "{garbled:#}"
    );
}

#[test]
fn the_history_line_carries_the_cost_and_the_summary_shows_its_trend() {
    let dir = Dir::new("cost-history");
    let cases = r#"    - name: adds
      prompt: 'add [[call add {"a": 1, "b": 2}]] [[usage 400000 100000]]'
      expect_tool: add
"#;
    command_config(
        &dir,
        "  model: picker-1\n  prices:\n    picker-1: {input: 2.0, output: 2.0}\n",
        cases,
    );
    for _ in 0..2 {
        let (out, _) = eval_in(&dir, &["--history", "h.jsonl"], &[]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    let lines: Vec<Value> = dir
        .read("h.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["cost_usd"], 1.0);
    assert_eq!(lines[1]["requests"], 1);
    assert_eq!(lines[1]["tokens"]["input"], 400_000);
    assert!(
        dir.read("s.md")
            .contains("Cost over the last 2 runs: \\$1.00 → \\$1.00"),
        "{}",
        dir.read("s.md")
    );
}
