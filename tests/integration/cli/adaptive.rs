//! `trials: auto` through the binary: a picker whose rows are right always, never, or every
//! other time asks each row only until it is decided, and the JSON report keeps each row's
//! own number of trials.

use super::evals::{api_config, api_env, command_config, eval_in, llm, model0, requests};
use super::*;

/// 12 rows always right, 4 right every other time, 4 never right.
fn cases() -> String {
    let mut cases = String::new();
    for i in 0..12 {
        cases.push_str(&format!(
            "    - name: steady {i}\n      prompt: 'add {i} [[call add {{\"a\": {i}, \"b\": 1}}]]'\n      expect_tool: add\n"
        ));
    }
    for i in 0..4 {
        cases.push_str(&format!(
            "    - name: wobbly {i}\n      prompt: 'say {i} [[flip echo {{\"text\": \"hi\"}}]]'\n      expect_tool: echo\n"
        ));
    }
    for i in 0..4 {
        cases.push_str(&format!(
            "    - name: wrong {i}\n      prompt: 'thanks {i} [[none]]'\n      expect_tool: echo\n"
        ));
    }
    cases
}

/// Runs the set under `trials`; returns the requests the picker got and the report.
fn run(name: &str, trials: &str) -> (usize, Value) {
    let dir = Dir::new(name);
    let state = dir.path("state");
    std::fs::create_dir_all(&state).expect("state dir");
    command_config(&dir, &format!("  {trials}\n  min_accuracy: 0\n"), &cases());
    let (state, log) = (state.display().to_string(), dir.path("asks.log"));
    let log_s = log.display().to_string();
    let (out, report) = eval_in(
        &dir,
        &[],
        &[("PICKER_STATE", &state), ("PICKER_LOG", &log_s)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let asked = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count();
    (asked, report)
}

fn trials_per_row(report: &Value) -> Vec<usize> {
    model0(report)["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| c["trials"].as_array().map_or(0, Vec::len))
        .collect()
}

#[test]
fn trials_auto_asks_fewer_requests_than_fixed_trials_and_reports_each_rows_count() {
    let (fixed, fixed_report) = run("adaptive-fixed", "trials: 5");
    assert_eq!(fixed, 100);
    assert_eq!(trials_per_row(&fixed_report), vec![5; 20]);

    let (auto, report) = run("adaptive-auto", "trials: auto");
    // Without a base, a unanimous row is decided stable after 4 answers, and a row right
    // every other time ambiguous after two answers each way.
    assert_eq!(trials_per_row(&report), vec![4; 20]);
    assert_eq!(auto, 80, "the picker's log has one line per request");
    assert!(auto < fixed);
    let m = model0(&report);
    assert_eq!(m["trials"], 4);
    assert_eq!(m["cases"][12]["pass_rate"], 0.5);
    assert_eq!(m["cases"][12]["ambiguous"], true);
    assert_eq!(m["cases"][0]["status"], "correct");

    // `min_trials` comes first, whatever the rule says.
    let (_, bounded) = run(
        "adaptive-bounds",
        "trials: auto\n  min_trials: 6\n  max_trials: 8",
    );
    assert_eq!(trials_per_row(&bounded), vec![6; 20]);
}

/// Each wave reads the cache before asking: a re-run under `--offline` replays the same waves
/// from it, with no request and the same trials per row.
#[test]
fn a_rerun_replays_the_same_waves_from_the_cache() {
    let dir = Dir::new("adaptive-cache");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = "    - name: right\n      prompt: 'x [[call echo {\"text\": \"a\"}]]'\n      expect_tool: echo\n    - name: wrong\n      prompt: 'y [[call add {\"a\": 1, \"b\": 1}]]'\n      expect_tool: echo\n    - name: pinned\n      prompt: 'z [[call echo {\"text\": \"b\"}]]'\n      expect_tool: echo\n      trials: 2\n";
    api_config(
        &dir,
        "anthropic",
        &[],
        "  trials: auto\n  min_accuracy: 0\n",
        cases,
    );
    let openai = format!("{}/v1", server.url);
    let (first, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(trials_per_row(&report), vec![4, 4, 2]);
    assert_eq!(requests(&dir, "llm.jsonl").len(), 10);
    let (again, replay) = eval_in(&dir, &["--offline"], &[("ANTHROPIC_API_KEY", "")]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 10);
    assert_eq!(trials_per_row(&replay), vec![4, 4, 2]);
    assert_eq!(replay["phases"]["evals"]["results"]["cache"]["hits"], 10);
    assert_eq!(model0(&replay)["cases"][1]["status"], "miss");
    // The cache holds what the run needs: the trials an adaptive case never got are not missing.
    let status = toolproof_in(&dir.0, &["cache", "status", "-c", "toolproof.yaml"], &[]);
    assert_eq!(status.code, 0, "{status:?}");
    assert!(!status.stdout.contains("missing"), "{status:?}");
}

#[test]
fn rows_of_a_tool_changed_since_the_base_get_their_extra_trials_first() {
    let dir = Dir::new("adaptive-changed");
    let mut cases = String::new();
    for tool in ["add", "echo"] {
        for i in 0..3 {
            cases.push_str(&format!(
                "    - name: {tool} {i}\n      prompt: '{tool} {i} [[flip {tool} {{}}]]'\n      expect_tool: {tool}\n"
            ));
        }
    }
    command_config(
        &dir,
        "  trials: auto\n  min_accuracy: 0\n  concurrency: 1\n",
        &cases,
    );
    // The order of the head's second wave: one line per request, its prompt.
    let second_wave = |name: &str, base: &str| -> Vec<String> {
        let state = dir.path(&format!("state-{name}"));
        std::fs::create_dir_all(&state).expect("state dir");
        let log = dir.path(&format!("{name}.log"));
        let (state, log_s) = (state.display().to_string(), log.display().to_string());
        let (out, report) = eval_in(
            &dir,
            &["--no-cache", "--compare-to", base],
            &[("PICKER_STATE", &state), ("PICKER_LOG", &log_s)],
        );
        assert_eq!(out.code, 0, "{out:?}");
        assert!(report["phases"]["evals"]["results"]["tool_digests"]["echo"].is_string());
        let prompts: Vec<String> = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|v| v["prompt"].as_str().unwrap_or_default().to_owned())
            .map(|p| p.split(" [[").next().unwrap_or_default().to_owned())
            .collect();
        prompts[6..9].to_vec()
    };
    // The base run, its report kept.
    let state = dir.path("state-base");
    std::fs::create_dir_all(&state).expect("state dir");
    let (out, base) = eval_in(
        &dir,
        &["--no-cache"],
        &[("PICKER_STATE", &state.display().to_string())],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let digests = &base["phases"]["evals"]["results"]["tool_digests"];
    assert_eq!(digests.as_object().map(|d| d.len()), Some(5), "{digests}");
    dir.write("base.json", &base.to_string());
    // Nothing changed: the second wave goes in row order.
    assert_eq!(
        second_wave("same", "base.json"),
        ["add 0", "add 1", "add 2"]
    );
    // The base knew another `echo`: its rows go first.
    let mut edited = base.clone();
    edited["phases"]["evals"]["results"]["tool_digests"]["echo"] = "0000000000000000".into();
    dir.write("edited.json", &edited.to_string());
    assert_eq!(
        second_wave("changed", "edited.json"),
        ["echo 0", "echo 1", "echo 2"]
    );
}
