//! The crowd end to end through the `toolproof` binary: the demo server with neighbours read
//! from snapshots that `inspect --save-tools` wrote of the official memory and filesystem
//! servers (`tests/fixtures/crowd/`), and the fake model API on loopback whose directives send
//! some prompts to the neighbours' tools. The interop module starts those servers themselves.

use super::evals::{KEY, api_env, llm, requests};
use super::*;

/// The committed snapshots.
fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/crowd")
        .join(name)
        .display()
        .to_string()
}

/// A config for the demo server with `evals` (indented under `evals:`).
fn demo_config(dir: &Dir, evals: &str) {
    let server = crate::examples_dir().join("demo_server");
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {}\nevals:\n  provider: anthropic\n  model: claude-haiku-4-5\n{evals}",
            yaml_list(&[&server.display().to_string()]),
        ),
    );
}

fn eval(dir: &Dir, llm: &Listening, extra: &[&str]) -> (Out, Value) {
    let openai = format!("{}/v1", llm.url);
    let mut args = vec!["eval", "-c", "toolproof.yaml", "--json", "r.json"];
    args.extend_from_slice(extra);
    let out = toolproof_in(&dir.0, &args, &api_env(llm, &openai));
    let report = dir.json("r.json");
    (out, report)
}

fn crowd_of(report: &Value) -> &Value {
    &report["phases"]["evals"]["results"]["models"][0]["crowd"]
}

const OURS: &str = r#"  cases:
    - name: km
      prompt: 'Convert 10 km to miles [[call convert_units {"value": 10, "from": "km", "to": "mi"}]]'
      expect_tool: convert_units
    - name: remember
      prompt: 'Remember that I like tea [[call create_entities {"entities": []}]]'
      expect_tool: add_note
    - name: weekday
      prompt: 'What day was 2024-02-29? [[call day_of_week {"date": "2024-02-29"}]]'
      expect_tool: day_of_week
"#;

#[test]
fn neighbours_steal_rows_both_ways_and_a_name_two_list_is_a_collision() {
    let dir = Dir::new("crowd-steals");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    dir.write(
        "memory-rows.yaml",
        "- name: saved notes\n  prompt: 'show all I saved [[call list_notes]]'\n  expect_tool: read_graph\n",
    );
    let evals = format!(
        "  min_accuracy: 0.6\n  crowd: {{min_accuracy: 0.5}}\n  neighbours:\n    - {{name: memory, tools_file: {}, cases_file: memory-rows.yaml}}\n    - {{name: memory-copy, tools_file: {}}}\n{OURS}",
        fixture("memory.json"),
        fixture("memory.json"),
    );
    demo_config(&dir, &evals);
    let (out, report) = eval(&dir, &server, &["--summary", "s.md"]);
    // 2 of 3 alone and in the crowd: both gates hold.
    assert_eq!(out.code, 0, "{out:?}");
    // The live lines of the crowd's cases come under a line that says they are the crowd's.
    assert!(
        out.stderr
            .contains("  -- in the crowd: 14 tools with 2 neighbour servers\n"),
        "{}",
        out.stderr
    );
    let crowd = crowd_of(&report);
    assert_eq!(crowd["host"], "none");
    assert_eq!(
        crowd["neighbours"],
        serde_json::json!([{"name": "memory", "tools": 9}, {"name": "memory-copy", "tools": 9}])
    );
    // The copy's nine names are taken by memory's: the host without a prefix drops them.
    assert_eq!(crowd["tools_total"], 5 + 9);
    assert!(
        crowd["tool_tokens"].as_u64().is_some_and(|t| t > 500),
        "{crowd:#}"
    );
    let collisions = crowd["collisions"].as_array().expect("collisions");
    assert_eq!(collisions.len(), 9, "{crowd:#}");
    let graph = collisions
        .iter()
        .find(|c| c["name"] == "read_graph")
        .expect("read_graph clashes");
    assert_eq!(
        graph["servers"],
        serde_json::json!(["memory", "memory-copy"])
    );
    assert_eq!(
        graph["outcome"],
        "memory-copy's `read_graph` is dropped: the host sends memory's"
    );
    // Yours answered by memory's tool; memory's row answered by yours.
    let steals = crowd["steals"].as_array().expect("steals");
    let pairs: Vec<(&str, &str, &str, &str)> = steals
        .iter()
        .map(|s| {
            let f = |k: &str| s[k].as_str().unwrap_or_default();
            (f("case"), f("picked"), f("server"), f("owner"))
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("remember", "create_entities", "memory", "toolproof-demo"),
            ("saved notes", "list_notes", "toolproof-demo", "memory"),
        ]
    );
    assert_eq!(steals[0]["expected"], "add_note");
    assert_eq!(crowd["accuracy_alone"].as_f64(), Some(2.0 / 3.0));
    assert_eq!(crowd["accuracy_crowded"].as_f64(), Some(2.0 / 3.0));
    assert_eq!(crowd["p_value"].as_f64(), Some(1.0));
    assert_eq!(crowd["min_accuracy"].as_f64(), Some(0.5));
    assert_eq!(crowd["passed"], true);
    assert_eq!(crowd["their_rows"], 1);
    // The crowd's request offered the neighbours' tools, once each.
    let sent = requests(&dir, "llm.jsonl");
    let crowded = sent
        .iter()
        .find(|r| r["body"]["tools"].as_array().is_some_and(|t| t.len() == 14))
        .expect("a crowded request");
    let names: Vec<&str> = crowded["body"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names.iter().filter(|n| **n == "read_graph").count(), 1);
    // Every report says it.
    assert!(
        out.stdout.contains("Crowd (host none): 14 tools")
            && out
                .stdout
                .contains("memory's rows → toolproof-demo's tools: 1")
            && out
                .stdout
                .contains("collision: `read_graph` is listed by memory, memory-copy"),
        "{out:?}"
    );
    assert!(dir.read("s.md").contains("**Crowded context**"));
    // A dry run asks nothing, the crowd included.
    let before = requests(&dir, "llm.jsonl").len();
    let (out, report) = eval(&dir, &server, &["--dry-run", "--no-cache"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), before, "{out:?}");
    assert!(crowd_of(&report).is_null(), "{report:#}");
}

#[test]
fn claude_code_sends_prefixed_names_and_maps_the_answers_back() {
    let dir = Dir::new("crowd-claude-code");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let evals = format!(
        "  min_accuracy: 0\n  crowd: {{min_accuracy: 0.9}}\n  host: claude-code\n  neighbours:\n    - {{name: memory, tools_file: {}}}\n  cases:\n    - name: km\n      prompt: 'Convert 10 km [[call mcp__toolproof-demo__convert_units {{\"value\": 10, \"from\": \"km\", \"to\": \"mi\"}}]]'\n      expect_tool: convert_units\n    - name: remember\n      prompt: 'Remember tea [[call mcp__memory__create_entities {{\"entities\": []}}]]'\n      expect_tool: add_note\n",
        fixture("memory.json"),
    );
    demo_config(&dir, &evals);
    let (out, report) = eval(&dir, &server, &[]);
    // Half right in the crowd, under its minimum 0.9: the crowd's gate fails the run.
    assert_eq!(out.code, 1, "{out:?}");
    let crowd = crowd_of(&report);
    assert_eq!(crowd["host"], "claude-code");
    assert_eq!(crowd["accuracy_crowded"].as_f64(), Some(0.5));
    assert_eq!(crowd["passed"], false);
    assert_eq!(
        crowd["steals"],
        serde_json::json!([{"case": "remember", "expected": "add_note",
            "picked": "create_entities", "server": "memory", "owner": "toolproof-demo"}])
    );
    assert_eq!(crowd["collisions"], serde_json::json!([]));
    let gate = report["phases"]["evals"]["results"]["models"][0]["gates"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["name"] == "crowd").cloned())
        .expect("the crowd's gate");
    assert_eq!(gate["passed"], false);
    // The fake saw the names Claude Code gives: every tool of the crowded list prefixed.
    let sent = requests(&dir, "llm.jsonl");
    let crowded: Vec<&str> = sent
        .iter()
        .filter_map(|r| r["body"]["tools"].as_array())
        .find(|t| t.len() == 14)
        .expect("a crowded request")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        crowded.iter().all(|n| n.starts_with("mcp__")),
        "{crowded:?}"
    );
    assert!(crowded.contains(&"mcp__toolproof-demo__convert_units"));
    assert!(crowded.contains(&"mcp__memory__read_graph"));
    assert!(
        out.stdout
            .contains("FAIL crowd: accuracy in the crowd 50% (1/2)"),
        "{out:?}"
    );
}

#[test]
fn the_stress_curve_draws_snapshot_tools_first_and_reads_the_headroom() {
    let dir = Dir::new("crowd-headroom");
    let server = llm(&["--require-key", KEY]);
    // The keyword rule picks the longest offered name in the prompt: once the filesystem's
    // `read_text_file` is among the distractors it wins over `list_notes` in half the rows.
    let mut cases = String::from("  cases:\n");
    for i in 0..10 {
        let tail = if i % 2 == 0 { " or read text file" } else { "" };
        cases.push_str(&format!(
            "    - {{name: row {i}, prompt: 'list notes {i}{tail}', expect_tool: list_notes}}\n"
        ));
    }
    let evals = format!(
        "  min_accuracy: 0.6\n  stress:\n    distractors: [0, 5, 10]\n    orders: [server]\n    distractors_from: [{}]\n{cases}",
        fixture("filesystem.json"),
    );
    demo_config(&dir, &evals);
    let (out, report) = eval(&dir, &server, &["--html", "r.html"]);
    assert_eq!(out.code, 0, "{out:?}");
    let stress = &report["phases"]["stress"]["results"];
    assert_eq!(stress["real_distractors"], 10, "{stress:#}");
    assert_eq!(stress["distractors"][0], "read_file");
    assert_eq!(stress["distractors"][1], "read_text_file");
    let headroom = &stress["headroom"][0];
    assert_eq!(headroom["model"], "claude-haiku-4-5");
    assert_eq!(headroom["reached"], true);
    assert_eq!(
        (headroom["low"].as_u64(), headroom["high"].as_u64()),
        (Some(0), Some(5))
    );
    assert!(
        out.stdout
            .contains("headroom: about 1 more tools (0–5) before accuracy falls under 60%"),
        "{out:?}"
    );
    assert!(dir.read("r.html").contains("<line class=\"headroom"));
}

#[test]
fn inspect_saves_a_snapshot_that_a_neighbour_reads_back() {
    let dir = Dir::new("crowd-save-tools");
    let server = crate::examples_dir().join("demo_server");
    let server = server.display().to_string();
    let out = toolproof_in(
        &dir.0,
        &["inspect", "--save-tools", "demo.json", "--", &server],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("tool snapshot written to demo.json"),
        "{out:?}"
    );
    let snapshot = dir.json("demo.json");
    assert_eq!(snapshot["server"]["name"], "toolproof-demo");
    assert_eq!(snapshot["tools"].as_array().map(Vec::len), Some(5));
    // A snapshot that is not one is a config error naming the file and the way to make one.
    dir.write("bad.json", "{\"tools\": 3}");
    demo_config(
        &dir,
        "  neighbours:\n    - {name: x, tools_file: bad.json}\n  cases: []\n",
    );
    let out = toolproof_in(&dir.0, &["eval", "-c", "toolproof.yaml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("`evals.neighbours[0].tools_file`")
            && out.stderr.contains("toolproof inspect --save-tools FILE"),
        "{out:?}"
    );
}
