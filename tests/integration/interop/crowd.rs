//! The crowd against servers nobody here wrote: the official memory, filesystem and everything
//! servers as neighbours of the demo server, their snapshots saved by `inspect --save-tools`,
//! and the fake model API (`fake_llm`) whose directives send some prompts to their tools.

use serde_json::Value;
use toolproof_test_support::{Dir, listening, toolproof_in, yaml_list};

use super::node_server;

#[test]
fn real_neighbours_steal_rows_under_claude_code_names_and_the_curve_reads_the_headroom() {
    let dir = Dir::new("interop-crowd");
    std::fs::create_dir_all(dir.path("files")).expect("files folder");
    let node = |name: &str, more: &[&str]| {
        let mut c = vec!["node".to_owned(), node_server(name)];
        c.extend(more.iter().map(|s| (*s).to_owned()));
        c
    };
    for (file, command) in [
        ("memory.json", node("server-memory", &[])),
        ("everything.json", node("server-everything", &["stdio"])),
    ] {
        let mut args = vec!["inspect", "--save-tools", file, "--"];
        args.extend(command.iter().map(String::as_str));
        let out = toolproof_in(&dir.0, &args, &[]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    let saved = dir.json("memory.json");
    assert_eq!(saved["server"]["name"], "memory-server");
    let files = node(
        "server-filesystem",
        &[&dir.path("files").display().to_string()],
    );
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let demo = crate::examples_dir()
        .join("demo_server")
        .display()
        .to_string();
    dir.write(
        "toolproof.yaml",
        &format!(
            r#"server:
  command: {}
evals:
  provider: anthropic
  model: claude-haiku-4-5
  min_accuracy: 0
  host: claude-code
  neighbours:
    - {{name: memory, tools_file: memory.json}}
    - {{name: memory-copy, tools_file: memory.json}}
    - {{name: files, command: {}}}
    - {{name: everything, tools_file: everything.json}}
  stress:
    distractors: [0, 10]
    orders: [server]
    distractors_from: [everything.json]
  cases:
    - name: km
      prompt: 'Convert 10 km [[call mcp__toolproof-demo__convert_units {{"value": 10, "from": "km", "to": "mi"}}]]'
      expect_tool: convert_units
    - name: remember
      prompt: 'Remember that I like tea [[call mcp__memory__create_entities {{"entities": []}}]]'
      expect_tool: add_note
    - name: my files
      prompt: 'What folders may you read? [[call mcp__files__list_allowed_directories]]'
      expect_tool: list_notes
"#,
            yaml_list(&[&demo]),
            yaml_list(&files),
        ),
    );
    let log = dir.path("llm.jsonl").display().to_string();
    let llm = listening(&crate::fake("fake_llm"), &["--log", &log]);
    let env = [
        ("ANTHROPIC_API_KEY", "sk-test"),
        ("ANTHROPIC_BASE_URL", llm.url.as_str()),
    ];
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml", "--json", "r.json"],
        &env,
    );
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("r.json");
    let crowd = &report["phases"]["evals"]["results"]["models"][0]["crowd"];
    let names: Vec<&str> = crowd["neighbours"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["name"].as_str())
        .collect();
    assert_eq!(names, ["memory", "memory-copy", "files", "everything"]);
    // The steals, named: memory's and the filesystem's tools took two of the demo's rows.
    let steals: Vec<(&str, &str, &str)> = crowd["steals"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let f = |k: &str| s[k].as_str().unwrap_or_default();
            (f("case"), f("picked"), f("server"))
        })
        .collect();
    assert_eq!(
        steals,
        [
            ("remember", "create_entities", "memory"),
            ("my files", "list_allowed_directories", "files"),
        ]
    );
    assert_eq!(crowd["accuracy_crowded"].as_f64(), Some(1.0 / 3.0));
    // The two memory neighbours list the same names: each a collision the prefix resolves.
    let graph = crowd["collisions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "read_graph").cloned())
        .unwrap_or(Value::Null);
    assert_eq!(
        graph["servers"],
        serde_json::json!(["memory", "memory-copy"])
    );
    assert_eq!(
        graph["outcome"],
        "resolved by the prefix: mcp__memory__read_graph, mcp__memory-copy__read_graph"
    );
    // Claude Code's names reached the model API.
    let requests: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let crowded = requests
        .iter()
        .filter_map(|r| r["body"]["tools"].as_array())
        .max_by_key(|t| t.len())
        .expect("a request with tools");
    let sent: Vec<&str> = crowded.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(sent.iter().all(|n| n.starts_with("mcp__")), "{sent:?}");
    assert!(sent.contains(&"mcp__files__list_allowed_directories"));
    assert!(sent.contains(&"mcp__everything__echo"), "{sent:?}");
    // The curve drew real tools (the neighbours', then the snapshot's) first, and says the headroom.
    let stress = &report["phases"]["stress"]["results"];
    assert!(
        stress["real_distractors"].as_u64().is_some_and(|n| n >= 10),
        "{stress:#}"
    );
    assert_eq!(stress["headroom"][0]["model"], "claude-haiku-4-5");
    assert!(out.stdout.contains("headroom: "), "{out:?}");
}
