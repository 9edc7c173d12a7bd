//! The evals' plan, `--dry-run`, the budget and `tool_order: shuffled`, through the binary:
//! the scripted picker logs every time it runs, and the fake model API every request.

use super::evals::{KEY, api_config, api_env, command_config, eval_in, llm, model0, requests};
use super::*;

const THREE: &str = r#"    - name: adds
      prompt: 'add 2 and 3 [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
    - name: echoes
      prompt: 'say hi [[call echo {"text": "hi"}]]'
      expect_tool: echo
    - name: chats
      prompt: thanks [[text you are welcome]]
      expect_tool: null
"#;

const PRICES: &str = "  prices:\n    fake-model-1: {input: 3.0, output: 15.0}\n";

fn plan(report: &Value) -> &Value {
    &report["phases"]["evals"]["results"]["plan"]
}

#[test]
fn a_dry_run_prints_the_plan_and_the_command_never_runs() {
    let dir = Dir::new("plan-dry-command");
    let log = dir.path("picker.jsonl").display().to_string();
    command_config(&dir, "  trials: 2\n", THREE);
    for command in ["eval", "run"] {
        let args = [
            command,
            "-c",
            "toolproof.yaml",
            "--dry-run",
            "--json",
            "r.json",
        ];
        let out = toolproof_in(&dir.0, &args, &[("PICKER_LOG", &log)]);
        assert_eq!(out.code, 0, "{command}: {out:?}");
        assert!(
            !dir.path("picker.jsonl").exists(),
            "{command}: the picker ran"
        );
        let report: Value = serde_json::from_str(&dir.read("r.json")).expect("report");
        let evals = &report["phases"]["evals"];
        assert_eq!(evals["status"], "skipped", "{evals:#}");
        assert!(
            evals["reason"]
                .as_str()
                .is_some_and(|r| r.contains("dry run: 6 requests planned, nothing asked")),
            "{evals:#}"
        );
        let p = plan(&report);
        assert_eq!(p["dry_run"], true);
        let m = &p["models"][0];
        assert_eq!(
            (m["cases"].as_u64(), m["trials"].as_u64()),
            (Some(3), Some(6))
        );
        assert_eq!(
            (m["cached"].as_u64(), m["requests"].as_u64()),
            (Some(0), Some(6))
        );
        assert!(
            out.stderr
                .contains("plan: the command: 3 cases, 6 trials, 0 cached, 6 requests to send"),
            "{out:?}"
        );
        assert!(
            out.stderr.contains("(tokens and cost are estimates)"),
            "{out:?}"
        );
        assert!(
            out.stderr.contains("plan: dry run, nothing asked"),
            "{out:?}"
        );
        // Three rows detect only a large drop: the plan says which, and what would do better.
        let mde = m["mde"].as_f64().unwrap_or(0.0);
        assert!(mde > 0.5 && mde <= 1.0, "{m:#}");
        assert!(
            m["hint"]
                .as_str()
                .is_some_and(|h| h.starts_with("to detect a drop of 2%")),
            "{m:#}"
        );
        assert!(
            out.stderr.contains(&format!(
                "plan: the command: a comparison with the base detects a drop of {:.1}% (α 0.05, 80% power)",
                mde * 100.0
            )),
            "{out:?}"
        );
        assert!(
            out.stderr
                .contains("plan: the command: to detect a drop of 2%"),
            "{out:?}"
        );
    }
    // The same config without --dry-run asks: the picker's log proves the test could fail.
    let (out, _) = eval_in(&dir, &[], &[("PICKER_LOG", &log)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(dir.read("picker.jsonl").lines().count(), 6);
}

#[test]
fn every_report_says_what_the_set_can_detect_at_the_configured_level() {
    let dir = Dir::new("plan-detects");
    command_config(
        &dir,
        "  trials: 2\n  compare: {alpha: 0.1, min_effect: 0.05}\n",
        THREE,
    );
    let (out, report) = eval_in(&dir, &["--html", "r.html"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let m = &plan(&report)["models"][0];
    assert_eq!(
        (m["alpha"].as_f64(), m["min_effect"].as_f64()),
        (Some(0.1), Some(0.05)),
        "{m:#}"
    );
    let mde = m["mde"].as_f64().unwrap_or(0.0);
    let said = format!(
        "Sensitivity: a comparison with the base detects a drop of {:.1}% (α 0.1, 80% power), more than evals.compare.min_effect (5%)",
        mde * 100.0
    );
    assert!(out.stderr.contains("(α 0.1, 80% power)"), "{out:?}");
    assert!(out.stdout.contains(&said), "{}", out.stdout);
    for file in ["s.md", "j.xml", "r.html"] {
        let text = dir.read(file);
        // Markdown escapes the setting's underscore.
        let said = if file == "s.md" {
            said.replace('_', "\\_")
        } else {
            said.clone()
        };
        assert!(text.contains(&said), "{file}: {text}");
        assert!(text.contains("to detect a drop of 5%"), "{file}: {text}");
    }
}

#[test]
fn a_dry_run_against_a_model_api_sends_nothing_and_counts_what_is_cached() {
    let dir = Dir::new("plan-dry-api");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    let extra = format!("  min_accuracy: 0\n{PRICES}");
    // Two cases answered and cached, then a third added: the plan sends one request.
    let two: String = THREE.lines().take(6).map(|l| format!("{l}\n")).collect();
    api_config(&dir, "anthropic", &[], &extra, &two);
    let (out, _) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2);
    api_config(&dir, "anthropic", &[], &extra, THREE);
    let (out, report) = eval_in(&dir, &["--dry-run"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        requests(&dir, "llm.jsonl").len(),
        2,
        "a dry run sent a request"
    );
    let m = &plan(&report)["models"][0];
    assert_eq!(m["model"], "fake-model-1");
    assert_eq!(
        (m["cached"].as_u64(), m["requests"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(m["output_tokens"], 100);
    let input = m["input_tokens"].as_u64().unwrap_or(0);
    let list = report["phases"]["evals"]["results"]["tool_tokens"]["total"]
        .as_u64()
        .unwrap_or(u64::MAX);
    assert!(input > list, "{input} input tokens, the list alone {list}");
    let cost = m["cost_usd"].as_f64().unwrap_or(-1.0);
    let expected = (input as f64 * 3.0 + 100.0 * 15.0) / 1e6;
    assert!((cost - expected).abs() < 1e-12, "{cost} vs {expected}");
    assert!(
        out.stderr
            .contains("plan: fake-model-1: 3 cases, 3 trials, 2 cached, 1 request to send; about"),
        "{out:?}"
    );
    // TOOLPROOF_DRY_RUN does the same.
    let mut env_dry = env.clone();
    env_dry.push(("TOOLPROOF_DRY_RUN", "1"));
    let (out, report) = eval_in(&dir, &[], &env_dry);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(plan(&report)["dry_run"], true);
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2);
}

#[test]
fn a_plan_over_budget_stops_before_the_first_request_with_exit_2() {
    let dir = Dir::new("plan-over-budget");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    api_config(
        &dir,
        "anthropic",
        &[],
        &format!("  min_accuracy: 0\n{PRICES}"),
        THREE,
    );
    let (out, report) = eval_in(&dir, &["--max-requests", "2"], &env);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(requests(&dir, "llm.jsonl").is_empty(), "a request was sent");
    let evals = &report["phases"]["evals"];
    assert_eq!(evals["status"], "error");
    let reason = evals["reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("over budget, nothing asked: the plan sends 3 requests, more than the budget of 2 (--max-requests)"),
        "{reason}"
    );
    assert_eq!(plan(&report)["budget"]["over_plan"], true);
    assert!(out.stderr.contains("plan: 3 requests in all"), "{out:?}");
    assert!(out.stdout.contains("more than the budget of 2"), "{out:?}");
    // The variable and the YAML say the same; a dollar budget under the estimate too.
    let mut var = env.clone();
    var.push(("TOOLPROOF_MAX_REQUESTS", "1"));
    let (out, _) = eval_in(&dir, &[], &var);
    assert_eq!(out.code, 2, "{out:?}");
    let (out, report) = eval_in(&dir, &["--max-cost", "0.000001"], &env);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        report["phases"]["evals"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("cost about $") && r.contains("(an estimate)")),
        "{report:#}"
    );
    api_config(
        &dir,
        "anthropic",
        &[],
        &format!("  min_accuracy: 0\n  budget: {{requests: 2}}\n{PRICES}"),
        THREE,
    );
    let (out, _) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(requests(&dir, "llm.jsonl").is_empty());
    // A budget the plan fits is spent and reported.
    let (out, report) = eval_in(&dir, &["--max-requests", "3"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 3);
    let budget = &plan(&report)["budget"];
    assert_eq!(
        (budget["requests"].as_u64(), budget["max_requests"].as_u64()),
        (Some(3), Some(3))
    );
    assert!(budget.get("stopped").is_none(), "{budget:#}");
    // Cached answers cost nothing: the same run again fits a budget of none.
    let (out, _) = eval_in(&dir, &["--max-requests", "0"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 3);
}

#[test]
fn a_run_that_reaches_its_dollar_budget_stops_asking_and_never_passes() {
    let dir = Dir::new("plan-budget-reached");
    let log = dir.path("picker.jsonl").display().to_string();
    // Each answer reports 100,000 input tokens at $0.10 a token: $10,000, far over the
    // estimate (a few hundred tokens a request) the plan is checked with.
    let cases: String = (0..4)
        .map(|i| format!("    - prompt: 'q{i} [[call add {{\"a\": 1, \"b\": 1}}]] [[usage 100000 1]]'\n      expect_tool: add\n"))
        .collect();
    command_config(
        &dir,
        "  models: [m]\n  concurrency: 1\n  min_accuracy: 0\n  prices:\n    m: {input: 100000, output: 100000}\n",
        &cases,
    );
    let (out, report) = eval_in(&dir, &["--max-cost", "5000"], &[("PICKER_LOG", &log)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        dir.read("picker.jsonl").lines().count(),
        1,
        "asked past the budget"
    );
    let m = model0(&report);
    assert_eq!(m["passed"], false);
    assert!(
        m["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("budget reached after 1 request (")),
        "{m:#}"
    );
    // The answer that came back is kept; the rest were never asked.
    assert_eq!(m["cases"][0]["trials"][0]["kind"], "tool_call", "{m:#}");
    assert_eq!(m["cases"][1]["trials"][0]["kind"], "not_asked", "{m:#}");
    assert_eq!(m["cases"][1]["status"], "not_run");
    let budget = &plan(&report)["budget"];
    assert_eq!(budget["requests"], 1);
    assert!(
        budget["stopped"]
            .as_str()
            .is_some_and(|s| s.contains("budget reached after 1 request"))
    );
    assert!(
        out.stdout.contains("budget reached after 1 request"),
        "{out:?}"
    );
    // Without the budget every case is asked.
    std::fs::remove_file(dir.path("picker.jsonl")).expect("rm");
    let (out, _) = eval_in(&dir, &[], &[("PICKER_LOG", &log)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(dir.read("picker.jsonl").lines().count(), 4);
}

#[test]
fn shuffled_tool_orders_differ_by_trial_repeat_across_runs_and_hit_the_cache() {
    let dir = Dir::new("plan-shuffled");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    let case = "    - name: adds\n      prompt: 'add [[call add {\"a\": 2, \"b\": 3}]]'\n      expect_tool: add\n";
    api_config(
        &dir,
        "anthropic",
        &[],
        "  trials: 4\n  min_accuracy: 0\n  tool_order: shuffled\n  concurrency: 1\n",
        case,
    );
    let orders = |from: usize| -> Vec<Vec<String>> {
        requests(&dir, "llm.jsonl")[from..]
            .iter()
            .map(|r| {
                r["body"]["tools"]
                    .as_array()
                    .map(|t| {
                        t.iter()
                            .map(|t| t["name"].as_str().unwrap_or("").to_owned())
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect()
    };
    let (out, _) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let first = orders(0);
    assert_eq!(first.len(), 4);
    let distinct: std::collections::HashSet<_> = first.iter().collect();
    assert!(distinct.len() >= 3, "{first:?}");
    let mut sorted = first[0].clone();
    sorted.sort();
    for o in &first {
        let mut s = o.clone();
        s.sort();
        assert_eq!(s, sorted, "every trial sends every tool");
    }
    // A re-run hits the cache (the keys follow the lists as sent).
    let (out, report) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(orders(0).len(), 4, "a re-run asked again");
    assert_eq!(report["phases"]["evals"]["results"]["cache"]["hits"], 4);
    // Asked again, each trial sends the order it sent the first time.
    let (out, _) = eval_in(&dir, &["--no-cache"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(orders(4), first);
    // The server's order (the default) sends one list, as listed.
    api_config(
        &dir,
        "anthropic",
        &[],
        "  trials: 4\n  min_accuracy: 0\n  concurrency: 1\n",
        case,
    );
    let (out, _) = eval_in(&dir, &["--no-cache"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let server_order = orders(8);
    assert!(
        server_order.iter().all(|o| *o == server_order[0]),
        "{server_order:?}"
    );
    assert!(!first.iter().all(|o| *o == server_order[0]));
}

#[test]
fn a_row_whose_answers_follow_the_tool_order_says_so_in_its_details() {
    let dir = Dir::new("plan-order-dependent");
    // The picker calls whichever tool comes first: right only when `add` is first.
    let cases = "    - name: position bias\n      prompt: 'add [[first {\"a\": 1, \"b\": 2}]]'\n      expect_tool: add\n";
    command_config(
        &dir,
        "  trials: 8\n  min_accuracy: 0\n  tool_order: shuffled\n",
        cases,
    );
    let (out, report) = eval_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let case = &model0(&report)["cases"][0];
    let trials = case["trials"].as_array().expect("trials");
    let right = trials.iter().filter(|t| t["passed"] == true).count();
    assert!(right > 0 && right < 8, "{case:#}");
    let note = trials[0]["notes"][0].as_str().unwrap_or("");
    let ones = vec!["1"; right].join(", ");
    assert!(
        note.starts_with(&format!(
            "right and wrong under different tool orders: right with `add` at position {ones} of 5 in the list, wrong at "
        )),
        "{note}"
    );
    assert!(
        out.stdout
            .contains("right and wrong under different tool orders"),
        "{out:?}"
    );
    assert!(
        dir.read("s.md")
            .contains("right and wrong under different tool orders")
    );
    // In the server's order every trial sends the same list: no such note.
    command_config(&dir, "  trials: 8\n  min_accuracy: 0\n", cases);
    let (out, report) = eval_in(&dir, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let case = &model0(&report)["cases"][0];
    assert!(
        case["trials"][0]["notes"]
            .as_array()
            .is_none_or(|n| n.is_empty()),
        "{case:#}"
    );
}
