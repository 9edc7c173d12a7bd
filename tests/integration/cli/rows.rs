//! `toolproof rows`: rows proposed from realistic conversation logs of every format (in
//! `rows/`: a Claude Code session, OpenAI and Anthropic request logs, OpenTelemetry GenAI
//! spans, MCP traffic) against the fake server's weather tools, and near misses asked of a
//! command-provider model.

use super::evals::picker;
use super::*;

/// The logs, copied into the test's folder.
const LOGS: &[&str] = &[
    "session-3.jsonl",
    "openai.jsonl",
    "anthropic.jsonl",
    "traces.json",
    "mcp-traffic.jsonl",
];

/// A folder with the logs and a config whose server has `get_weather` and `fetch_weather`,
/// one case typed by hand inline and one in `cases.yaml`.
fn logs_dir(name: &str) -> Dir {
    let dir = Dir::new(name);
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration/cli/rows");
    for log in LOGS {
        let text = std::fs::read_to_string(from.join(log)).expect("log fixture");
        dir.write(log, &text);
    }
    let server = yaml_list(&[&fake(), "--fault", "similar-tools"]);
    let command = yaml_list(&[&picker()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: command\n  command: {command}\n  cases_file: cases.yaml\n  cases:\n    - prompt: Is it windy in Faro today?\n      expect_tool: get_weather\n      why: typed by hand\n"
        ),
    );
    dir.write(
        "cases.yaml",
        "cases:\n  - prompt: Say hi back\n    expect_tool: echo\n    why: typed by hand\n",
    );
    dir
}

/// The rows of a YAML file of rows, as JSON (read back through `toolproof lint --json`'s
/// view would need a server; the file's own lines are simple enough to read here).
fn rows_of(text: &str) -> Vec<(String, Option<String>, String)> {
    let mut out = Vec::new();
    let field = |line: &str, key: &str| -> Option<String> {
        let rest = line
            .trim_start()
            .trim_start_matches("- ")
            .strip_prefix(key)?;
        Some(
            serde_json::from_str::<Value>(rest.trim())
                .ok()?
                .as_str()
                .map(str::to_owned)
                .unwrap_or_default(),
        )
    };
    let mut prompt = None;
    let mut expect = None;
    for line in text.lines() {
        if line.starts_with("- prompt: ") || line.starts_with("  - prompt: ") {
            prompt = field(line, "prompt: ");
        } else if let Some(rest) = line.trim_start().strip_prefix("expect_tool: ") {
            expect = Some(
                (rest != "null").then(|| serde_json::from_str::<String>(rest).unwrap_or_default()),
            );
        } else if let (Some(why), Some(p), Some(e)) =
            (field(line, "why: "), prompt.take(), expect.take())
        {
            out.push((p, e, why));
        }
    }
    out
}

fn import(dir: &Dir, extra: &[&str]) -> Out {
    let mut args = vec!["rows", "import"];
    args.extend_from_slice(LOGS);
    args.extend_from_slice(extra);
    toolproof_in(&dir.0, &args, &[])
}

#[test]
fn every_format_gives_its_rows_the_wrong_ones_first_and_redacted() {
    let dir = logs_dir("rows-import");
    let out = import(&dir, &["-o", "rows.yaml"]);
    assert_eq!(out.code, 0, "{out:?}");
    let text = dir.read("rows.yaml");
    for gone in [
        "ana.silva@example.com",
        "sk-ant-api03",
        "4111 1111",
        "415 555 0134",
    ] {
        assert!(!text.contains(gone), "{gone} left in:\n{text}");
    }
    let rows = rows_of(&text);
    let find = |prompt: &str| {
        rows.iter()
            .find(|(p, _, _)| p.starts_with(prompt))
            .unwrap_or_else(|| panic!("no row for {prompt:?} in {rows:#?}"))
    };
    let some = |t: &str| Some(t.to_owned());
    // Claude Code: a correction, an error then another tool, a rejected call.
    assert_eq!(
        find("Add 1200 and 345"),
        &(
            "Add 1200 and 345 for me".to_owned(),
            some("add"),
            "from session-3.jsonl:9: user corrected echo → add".to_owned()
        )
    );
    assert_eq!(find("Check the weather in Porto").1, some("fetch_weather"));
    assert!(
        find("Check the weather in Porto")
            .0
            .ends_with("my API key is [key]")
    );
    assert_eq!(
        find("Restart the weather server").2,
        "from session-3.jsonl:20: user rejected crash → no tool"
    );
    assert_eq!(find("Just tell me which tools").1, None);
    assert!(
        find("What's the weather in Lisbon")
            .0
            .ends_with("to [email]")
    );
    // The client's own tool (Bash) is not the server's: no row.
    assert!(
        !rows.iter().any(|(p, _, _)| p.contains("README")),
        "{rows:#?}"
    );
    // OpenAI: a correction, a retry with another tool; the hand-typed case is not proposed again.
    assert_eq!(
        find("Sum 2 and 2").2,
        "from openai.jsonl:5: user corrected echo → add"
    );
    assert_eq!(
        find("Current conditions in Braga").2,
        "from openai.jsonl:4: retried: get_weather first, then fetch_weather"
    );
    assert!(
        find("Current conditions in Braga")
            .0
            .contains("call me at [phone]")
    );
    assert!(
        !rows.iter().any(|(p, _, _)| p.contains("Faro")),
        "{rows:#?}"
    );
    // Anthropic: an error then another tool, a rejected call.
    assert_eq!(find("Weather for Coimbra").1, some("fetch_weather"));
    assert_eq!(
        find("Give me the current weather in Aveiro").2,
        "from anthropic.jsonl:3: user rejected fetch_weather → get_weather"
    );
    // OpenTelemetry: the execute_tool span's error status, then another tool.
    let evora = find("How warm is it in Évora");
    assert_eq!(evora.1, some("fetch_weather"));
    assert!(
        evora.0.ends_with("card [card]") && evora.2.starts_with("from traces.json:"),
        "{evora:?}"
    );
    // The rows that went wrong come first.
    let kinds: Vec<&str> = rows
        .iter()
        .map(|(_, _, w)| w.split(": ").nth(1).unwrap_or(""))
        .collect();
    let first_plain = kinds
        .iter()
        .position(|k| k.starts_with("the model called") || k.starts_with("answered"))
        .unwrap_or(0);
    assert!(
        kinds[..2].iter().all(|k| k.starts_with("user corrected")),
        "{kinds:#?}"
    );
    assert!(
        kinds[first_plain..]
            .iter()
            .all(|k| k.starts_with("the model called") || k.starts_with("answered")),
        "{kinds:#?}"
    );
    assert_eq!(text.matches("reviewed: false").count(), rows.len());
    // The summary: redaction counts (the Lisbon request's email twice: its row, and the
    // context of the follow-up), and the MCP traffic in the coverage only.
    assert!(
        out.stderr
            .contains("redacted: 1 card, 2 email, 1 key, 1 phone"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("mcp-traffic.jsonl (mcp)"),
        "{}",
        out.stderr
    );
    let slow = out
        .stderr
        .lines()
        .find(|l| l.trim_start().starts_with("slow "))
        .unwrap_or("");
    assert!(
        slow.contains("1 in MCP traffic (errors: 0)"),
        "{}",
        out.stderr
    );
    assert!(!text.contains("\"slow\""), "{text}");
    assert!(
        out.stderr
            .contains("tools the server lists that the traffic never used: fail"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_mcp_traffic_alone_feeds_the_coverage_and_proposes_nothing() {
    let dir = logs_dir("rows-mcp-only");
    let out = toolproof_in(&dir.0, &["rows", "import", "mcp-traffic.jsonl"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(rows_of(&out.stdout).is_empty(), "{}", out.stdout);
    assert!(out.stderr.contains("0 rows proposed"), "{}", out.stderr);
    let weather = out
        .stderr
        .lines()
        .find(|l| l.trim_start().starts_with("get_weather "))
        .unwrap_or("");
    assert!(
        weather.contains("2 in MCP traffic (errors: 1)"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_lint_warns_on_unreviewed_rows_and_strict_fails_on_them() {
    let dir = logs_dir("rows-append");
    let out = import(&dir, &["--append", "--limit", "3"]);
    assert_eq!(out.code, 0, "{out:?}");
    let cases = dir.read("cases.yaml");
    assert!(
        cases.starts_with("cases:\n  - prompt: Say hi back\n"),
        "{cases}"
    );
    assert_eq!(cases.matches("reviewed: false").count(), 3, "{cases}");
    assert!(out.stderr.contains("over --limit"), "{}", out.stderr);
    let lint = toolproof_in(
        &dir.0,
        &["lint", "-c", "toolproof.yaml", "--json", "l.json"],
        &[],
    );
    let report = dir.json("l.json");
    let unreviewed: Vec<&Value> = report["phases"]["lint"]["results"]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["id"] == "unreviewed-row")
        .collect();
    assert_eq!(unreviewed.len(), 3, "{lint:?}");
    assert!(unreviewed.iter().all(|f| {
        f["severity"] == "warning"
            && f["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("cases.yaml"))
    }));
    let strict = toolproof_in(&dir.0, &["lint", "-c", "toolproof.yaml", "--strict"], &[]);
    assert_eq!(strict.code, 1, "{strict:?}");
    assert!(
        strict.stdout.contains("unreviewed-row") || strict.stderr.contains("unreviewed-row"),
        "{strict:?}"
    );
}

#[test]
fn no_redact_must_be_asked_for_and_a_log_of_no_known_kind_is_a_usage_error() {
    let dir = logs_dir("rows-usage");
    let out = toolproof_in(
        &dir.0,
        &["rows", "import", "session-3.jsonl", "--no-redact"],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("ana.silva@example.com"),
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("redaction: off"), "{}", out.stderr);
    dir.write("notes.jsonl", "{\"hello\": 1}\n");
    let out = toolproof_in(&dir.0, &["rows", "import", "notes.jsonl"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("notes.jsonl: cannot tell which kind of log this is"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--format"), "{}", out.stderr);
    let out = toolproof_in(&dir.0, &["rows", "import", "missing.jsonl"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("cannot read missing.jsonl"),
        "{}",
        out.stderr
    );
}

fn suggester() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/cli/suggester.py")
        .display()
        .to_string()
}

/// The logs' folder with the evals asking the stand-in suggester.
fn suggest_dir(name: &str) -> Dir {
    let dir = logs_dir(name);
    let text = dir.read("toolproof.yaml").replace(
        &yaml_list(&[&picker()]),
        &yaml_list(&["python3", "-S", "-I", &suggester()]),
    );
    dir.write("toolproof.yaml", &text);
    dir
}

#[test]
fn suggest_asks_the_command_model_about_the_similar_pair_and_writes_its_rows() {
    let dir = suggest_dir("rows-suggest");
    let log = dir.path("tasks.jsonl").display().to_string();
    let out = toolproof_in(
        &dir.0,
        &["rows", "suggest", "--count", "2", "-o", "near.yaml"],
        &[("SUGGESTER_LOG", &log)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let tasks: Vec<Value> = dir
        .read("tasks.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(tasks.len(), 1, "{tasks:?}");
    let task = &tasks[0];
    assert_eq!(task["task"], "suggest_rows");
    assert_eq!(
        task["pair"],
        serde_json::json!(["get_weather", "fetch_weather"])
    );
    assert_eq!(task["n"], 2);
    assert!(task["tools"].as_array().is_some_and(|t| {
        t.iter()
            .any(|t| t["name"] == "fetch_weather" && t["input_schema"]["required"][0] == "city")
    }));
    assert_eq!(
        task["existing"],
        serde_json::json!(["Is it windy in Faro today?", "Say hi back"])
    );
    let text = dir.read("near.yaml");
    let rows = rows_of(&text);
    // In the order `--limit` keeps them: the tool with the fewest rows first.
    let mut prompts: Vec<&str> = rows.iter().map(|(p, _, _)| p.as_str()).collect();
    prompts.sort_unstable();
    let mut want = [
        "near miss 1 that belongs to get_weather",
        "near miss 2 that belongs to get_weather",
        "near miss 1 that belongs to fetch_weather",
        "near miss 2 that belongs to fetch_weather",
        "thanks, that was all I needed",
        "get me the weather thing",
        "send the get_weather report to [email]",
    ];
    want.sort_unstable();
    assert_eq!(prompts, want, "{text}");
    let why = |p: &str| {
        rows.iter()
            .find(|(q, _, _)| q == p)
            .map(|(_, _, w)| w.as_str())
            .unwrap_or("")
    };
    assert_eq!(
        why("near miss 1 that belongs to fetch_weather"),
        "near miss between get_weather and fetch_weather: fetch_weather, not the other"
    );
    assert_eq!(
        why("get me the weather thing"),
        "ambiguous: near miss between get_weather and fetch_weather: either tool fits"
    );
    assert_eq!(text.matches("reviewed: false").count(), 7);
    assert!(
        out.stderr
            .contains("get_weather / fetch_weather (similar-tools"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("2 left out"), "{}", out.stderr);
    assert!(
        out.stderr.contains("1 already in the set"),
        "{}",
        out.stderr
    );
}

#[test]
fn suggest_takes_a_pair_by_name_and_refuses_a_tool_the_server_lacks() {
    let dir = suggest_dir("rows-suggest-pair");
    let out = toolproof_in(
        &dir.0,
        &[
            "rows", "suggest", "--pair", "echo,add", "--count", "1", "--limit", "2",
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let rows = rows_of(&out.stdout);
    assert_eq!(rows.len(), 2, "{}", out.stdout);
    assert!(
        rows.iter()
            .all(|(_, _, w)| w.starts_with("near miss between echo and add")),
        "{rows:?}"
    );
    let out = toolproof_in(&dir.0, &["rows", "suggest", "--pair", "echo,ad"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("--pair echo,ad: `ad` is not a tool of the server"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("did you mean `add`?"), "{}", out.stderr);
    let out = toolproof_in(&dir.0, &["rows", "suggest", "--pair", "echo"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("--pair echo: give two tools, `A,B`"),
        "{}",
        out.stderr
    );
}

#[test]
fn suggest_against_an_api_forces_the_answer_tool_and_replays_its_cached_answer_offline() {
    use super::evals::{KEY, llm};
    let dir = logs_dir("rows-suggest-api");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    // The fake model answers with the directive a prompt of the set carries.
    let directive = r#"[[call propose_rows {"rows": [{"prompt": "is it sunny in Braga at the moment", "expect_tool": "get_weather", "why": "now"}, {"prompt": "fetch the Braga conditions for the dashboard", "expect_tool": "fetch_weather", "why": "a fetch"}]}]]"#;
    let server_cmd = yaml_list(&[&fake(), "--fault", "similar-tools"]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server_cmd}\nevals:\n  provider: anthropic\n  model: fake-model-1\n  cases:\n    - prompt: '{directive}'\n      expect_tool: null\n"
        ),
    );
    let env = [
        ("ANTHROPIC_API_KEY", KEY),
        ("ANTHROPIC_BASE_URL", server.url.as_str()),
    ];
    let out = toolproof_in(&dir.0, &["rows", "suggest", "-o", "near.yaml"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let sent: Vec<Value> = dir
        .read("llm.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(sent.len(), 1, "{sent:?}");
    let body = if sent[0]["body"].is_object() {
        &sent[0]["body"]
    } else {
        &sent[0]
    };
    assert_eq!(
        body["tool_choice"],
        serde_json::json!({"type": "tool", "name": "propose_rows"}),
        "{body}"
    );
    let first = dir.read("near.yaml");
    let rows = rows_of(&first);
    assert_eq!(rows.len(), 2, "{first}");
    assert!(rows.iter().any(
        |(p, e, w)| p == "fetch the Braga conditions for the dashboard"
            && e.as_deref() == Some("fetch_weather")
            && w == "near miss between get_weather and fetch_weather: a fetch"
    ));
    let cached = std::fs::read_dir(dir.path(".toolproof-cache/rows"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(cached, 1);
    // Offline, with no key: the same rows from the cache, no request.
    let out = toolproof_in(
        &dir.0,
        &["rows", "suggest", "--offline", "-o", "again.yaml"],
        &[("ANTHROPIC_API_KEY", "")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(dir.read("again.yaml"), first);
    assert!(out.stderr.contains("from the cache"), "{}", out.stderr);
    assert_eq!(dir.read("llm.jsonl").lines().count(), 1);
    // Offline with nothing cached for another pair: exit 1, saying so.
    let out = toolproof_in(
        &dir.0,
        &["rows", "suggest", "--offline", "--pair", "echo,add"],
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("pair echo / add: no cached answer"),
        "{}",
        out.stderr
    );
}
