//! `toolproof tune` through the binary, with command providers only: a server whose
//! `get_order` description is too thin (`orders_server.py`), a model that picks the tool whose
//! description shares the most words with the prompt (`overlap.py`), and a rewriter
//! (`rewriter.py`) that offers one helpful rewrite, one that games selection, one that fixes
//! the shipping rows but breaks the critical refund row, and one over the length budget.

use super::*;

fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/cli")
        .join(name)
        .display()
        .to_string()
}

/// 20 shipping questions for `get_order` (each asks about an order, so the thin description
/// ties with `refund_order`, listed first), 5 refunds, and one critical refund.
fn config(dir: &Dir, extra: &str) {
    let mut cases = String::new();
    let topics = ["shipping status", "tracking number", "delivery date"];
    for i in 0..20 {
        let topic = topics[i % 3];
        cases.push_str(&format!(
            "    - name: ship-{i}\n      prompt: 'what is the {topic} of order A{i}'\n      expect_tool: get_order\n      why: a shipping question\n"
        ));
    }
    for i in 0..5 {
        cases.push_str(&format!(
            "    - name: refund-{i}\n      prompt: 'refund order B{i} to the customer'\n      expect_tool: refund_order\n      why: a refund\n"
        ));
    }
    cases.push_str(
        "    - name: refund-smashed\n      prompt: 'refund the customer payment for my smashed order'\n      expect_tool: refund_order\n      critical: true\n      why: money back for a broken item must never be routed to a lookup\n",
    );
    // The server's source sits in the repository under test, so `--suggest` finds the old
    // description on its line.
    let source = std::fs::read_to_string(script("orders_server.py")).expect("server source");
    dir.write("orders_server.py", &source);
    let copy = dir.path("orders_server.py").display().to_string();
    let server = yaml_list(&["python3", "-S", "-I", &copy]);
    let picker = yaml_list(&["python3", "-S", "-I", &script("overlap.py")]);
    let rewriter = yaml_list(&["python3", "-S", "-I", &script("rewriter.py")]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: command\n  command: {picker}\n  models: [m1, m2]\n  concurrency: 4\n  min_accuracy: 0.9\n{extra}  cases:\n{cases}tune:\n  command: {rewriter}\n"
        ),
    );
}

const TOKEN: &str = "ghs_tuneToken0123456789";

/// The 1-based line of `source` that holds `text`.
fn source_line(source: &str, text: &str) -> usize {
    source
        .lines()
        .position(|l| l.contains(text))
        .map_or(0, |i| i + 1)
}

fn accuracy(report: &Value) -> Vec<f64> {
    report["phases"]["evals"]["results"]["models"]
        .as_array()
        .map(|ms| ms.iter().filter_map(|m| m["accuracy"].as_f64()).collect())
        .unwrap_or_default()
}

#[test]
fn tune_accepts_the_helpful_rewrite_and_rejects_gaming_a_broken_critical_row_and_length() {
    let dir = Dir::new("tune");
    config(&dir, "");
    let log = dir.path("rewriter.jsonl").display().to_string();

    let before = toolproof_in(&dir.0, &["eval", "--json", "before.json"], &[]);
    assert_eq!(before.code, 1, "the thin description misses: {before:?}");
    assert_eq!(accuracy(&dir.json("before.json")), vec![6.0 / 26.0; 2]);

    // A pull request under GitHub Actions: the repository holds the server's source.
    for args in [
        &["init", "-q"][..],
        &["add", "orders_server.py", "toolproof.yaml"],
    ] {
        let ok = Command::new("git").args(args).current_dir(&dir.0).status();
        assert!(ok.is_ok_and(|s| s.success()), "git {args:?}");
    }
    let github = dir.path("github.jsonl").display().to_string();
    let api = toolproof_test_support::listening(
        &crate::fake("fake_github"),
        &["--require-token", TOKEN, "--log", &github],
    );
    let event = dir.write(
        "event.json",
        r#"{"number": 7, "pull_request": {"number": 7, "head": {"sha": "0123456789abcdef0123456789abcdef01234567"}}}"#,
    );
    let event = event.display().to_string();
    let env = [
        ("REWRITER_LOG", log.as_str()),
        ("GITHUB_API_URL", api.url.as_str()),
        ("GITHUB_TOKEN", TOKEN),
        ("GITHUB_REPOSITORY", "octo/widgets"),
        ("GITHUB_EVENT_PATH", event.as_str()),
    ];
    let out = toolproof_in(
        &dir.0,
        &[
            "tune",
            "--suggest",
            "--candidates",
            "4",
            "--json",
            "tune.json",
            "--markdown",
            "tune.md",
            "--junit",
            "tune.xml",
        ],
        &env,
    );
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("tune.json");
    let tools = report["tools"].as_array().expect("tools");
    let get = tools
        .iter()
        .find(|t| t["tool"] == "get_order")
        .expect("get_order was rewritten");
    assert_eq!(get["original"], "Gets an order.");
    let c = get["candidates"].as_array().expect("candidates");
    assert_eq!(c.len(), 4);
    let reason = |i: usize| c[i]["reason"].as_str().unwrap_or_default().to_owned();
    assert_eq!(c[0]["accepted"], true, "{}", reason(0));
    assert!(
        reason(0).starts_with("held-out 20% → 100% on m1 (p = 0.0039)")
            && reason(0).ends_with("no critical row worse"),
        "{}",
        reason(0)
    );
    let before = c[0]["held_out_before"].as_f64().unwrap_or_default();
    assert!((before - 0.2).abs() < 1e-9, "{before}");
    assert_eq!(c[0]["held_out_after"], 1.0);
    assert_eq!(c[0]["p_value"], 0.00390625);
    // The evals (26 rows, 2 models), the rewriter (2 tools), the 2 candidates judged (10
    // held-out rows, 2 models); the gaming and the long one cost nothing.
    assert_eq!(report["requests"], 52 + 2 + 40);
    assert_eq!(c[1]["accepted"], false);
    assert_eq!(reason(1), "rejected: gaming: \"always use this tool\"");
    assert_eq!(
        c[1]["held_out_after"],
        Value::Null,
        "a gaming rewrite costs no request"
    );
    assert_eq!(c[2]["accepted"], false);
    assert_eq!(
        reason(2),
        "rejected: critical row refund-smashed 1/1 → 0/1 on m1"
    );
    assert_eq!(c[3]["accepted"], false);
    assert!(
        reason(3).starts_with("rejected: ") && reason(3).ends_with("over the budget of 400"),
        "{}",
        reason(3)
    );
    assert!(
        out.stdout
            .contains("rejected: gaming: \"always use this tool\""),
        "{}",
        out.stdout
    );
    assert!(dir.read("tune.md").contains("critical row refund-smashed"));
    // JUnit: a testcase per candidate, the accepted one passed, the rejected ones skipped.
    let xml = dir.read("tune.xml");
    assert!(
        xml.contains("<testsuite name=\"tune get_order\" tests=\"4\""),
        "{xml}"
    );
    assert_eq!(xml.matches("<skipped").count(), 3, "{xml}");
    assert!(
        xml.contains("message=\"rejected: gaming: &quot;always use this tool&quot;\""),
        "{xml}"
    );

    // The held-out rows never reached the rewriter.
    let held: Vec<&str> = report["split"]["held_out"]
        .as_array()
        .expect("held_out")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        held.contains(&"refund-smashed"),
        "every critical row is held out"
    );
    assert_eq!(
        held.len(),
        10,
        "8 of 20 and 2 of 6, the critical row among them: {held:?}"
    );
    let seen = report["split"]["seen"].as_array().expect("seen").len();
    assert_eq!(seen, 16);
    let sent = dir.read("rewriter.jsonl");
    let requests: Vec<Value> = sent
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON request a line"))
        .collect();
    assert!(requests.iter().all(|r| r["task"] == "rewrite_description"));
    let shown: Vec<String> = requests
        .iter()
        .flat_map(|r| r["misses"].as_array().cloned().unwrap_or_default())
        .filter_map(|m| m["prompt"].as_str().map(str::to_owned))
        .collect();
    assert!(!shown.is_empty(), "the seen misses were sent: {sent}");
    let config = dir.read("toolproof.yaml");
    for name in &held {
        let prompt_line = config
            .lines()
            .skip_while(|l| !l.ends_with(&format!("name: {name}")))
            .nth(1)
            .expect("prompt line");
        let prompt = prompt_line.split('\'').nth(1).expect("quoted prompt");
        assert!(
            !shown.iter().any(|p| p == prompt) && !sent.contains(&format!("\"{prompt}\"")),
            "held-out `{prompt}` was sent to the rewriter"
        );
    }

    // --suggest: one review comment, a suggestion block on the line of the old description.
    let posted: Vec<Value> = dir
        .read("github.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("log line"))
        .filter(|r: &Value| r["method"] == "POST")
        .collect();
    assert_eq!(posted.len(), 1, "{posted:?}");
    assert_eq!(posted[0]["path"], "/repos/octo/widgets/pulls/7/comments");
    assert_eq!(posted[0]["status"], 201);
    let sent = &posted[0]["body"];
    assert_eq!(sent["path"], "orders_server.py", "{sent}");
    let line = source_line(&dir.read("orders_server.py"), "\"Gets an order.\"");
    assert_eq!(sent["line"], line, "{sent}");
    assert_eq!(
        sent["commit_id"],
        "0123456789abcdef0123456789abcdef01234567"
    );
    let body = sent["body"].as_str().unwrap_or_default();
    assert!(
        body.contains("```suggestion\n        \"description\": \"Gets an order with its shipping status, tracking number and delivery date.\",\n```"),
        "{body}"
    );
    for text in [&out.stdout, &out.stderr] {
        assert!(!text.contains(TOKEN), "the token leaked: {out:?}");
    }

    // The accepted rewrite replays as an override, and the gain holds on every row.
    let written = dir.read("toolproof-tune.yaml");
    assert!(written.contains("get_order"), "{written}");
    let after = toolproof_in(
        &dir.0,
        &[
            "eval",
            "--overrides",
            "toolproof-tune.yaml",
            "--json",
            "after.json",
        ],
        &[],
    );
    assert_eq!(after.code, 0, "{after:?}");
    let after = dir.json("after.json");
    assert_eq!(accuracy(&after), vec![1.0; 2]);
    let stamp = &after["phases"]["evals"]["results"]["overrides"];
    assert_eq!(stamp["tools"], serde_json::json!(["get_order"]));
    assert!(
        stamp["hash"].as_str().is_some_and(|h| h.len() == 64),
        "{stamp}"
    );
}

#[test]
fn an_override_naming_a_tool_the_server_does_not_list_is_a_config_error() {
    let dir = Dir::new("tune-ghost");
    config(
        &dir,
        "  overrides:\n    ghost_tool:\n      description: Finds ghosts.\n",
    );
    let out = toolproof_in(&dir.0, &["eval", "--offline", "--json", "r.json"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stdout.contains("`ghost_tool`"), "{out:?}");
    let report = dir.json("r.json");
    assert_eq!(
        report["phases"]["evals"]["results"]["overrides"]["tools"],
        serde_json::json!(["ghost_tool"])
    );
}

// Two tunes of some 150 model processes each: in the whole suite, not the fast tier.
#[cfg(feature = "interop")]
#[test]
fn a_command_rewriter_is_run_again_like_the_evals_command() {
    let dir = Dir::new("tune-offline");
    config(&dir, "");
    let log = dir.path("rewriter.jsonl").display().to_string();
    let env = [("REWRITER_LOG", log.as_str())];
    let first = toolproof_in(
        &dir.0,
        &["tune", "--candidates", "4", "--json", "a.json"],
        &env,
    );
    assert_eq!(first.code, 0, "{first:?}");
    // A command's answers are not cached (it is your program: run it again), as the evals'
    // command's are not; `--offline` stops model APIs only, so the rewriter runs again.
    assert!(!dir.0.join(".toolproof-cache/tune").exists());
    let again = toolproof_in(
        &dir.0,
        &["tune", "--offline", "--candidates", "4", "--json", "b.json"],
        &env,
    );
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(dir.json("a.json")["tools"], dir.json("b.json")["tools"]);
    let requests = |name: &str| dir.json(name)["requests"].as_u64().unwrap_or_default();
    assert_eq!(requests("a.json"), requests("b.json"));
    assert_eq!(lines_in(&log), 4, "two tools, asked twice");
}

/// A model API as the rewriter (the fake Anthropic API): it is sent the prompt of
/// `tune.prompt_file` and the `propose_descriptions` tool it must call; its answer is cached,
/// and a second tune replays it (and the evals) with no key.
#[test]
fn a_model_api_rewriter_is_asked_through_a_forced_tool_and_replayed_with_no_key() {
    use super::evals::{KEY, api_config, api_env, llm, requests};
    let dir = Dir::new("tune-api");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    // 15 rows, 6 held out: enough that a rewrite fixing them all would be significant, so
    // the rewriter is asked.
    let mut cases = String::new();
    for i in 0..15 {
        cases.push_str(&format!(
            "    - name: sum-{i}\n      prompt: 'what is {i} plus one [[call echo]]'\n      expect_tool: add\n"
        ));
    }
    api_config(&dir, "anthropic", &[], "  tool_choice: auto\n", &cases);
    let yaml = dir.read("toolproof.yaml") + "tune:\n  prompt_file: rewrite.txt\n";
    dir.write("toolproof.yaml", &yaml);
    dir.write(
        "rewrite.txt",
        "Rewrite `{tool}` ({candidates} candidates). [[call propose_descriptions {\"candidates\": [\"Adds two integers a and b and returns their sum.\"]}]]\n{request}\n",
    );
    let env = api_env(&server, "http://127.0.0.1:9");
    let out = toolproof_in(&dir.0, &["tune", "--tool", "add", "--json", "t.json"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("t.json");
    let candidate = &report["tools"][0]["candidates"][0];
    assert_eq!(
        candidate["text"],
        "Adds two integers a and b and returns their sum."
    );
    assert_eq!(
        candidate["accepted"], false,
        "the stand-in ignores descriptions"
    );
    assert!(
        candidate["reason"]
            .as_str()
            .is_some_and(|r| r.contains("not significant at α 0.05")),
        "{candidate}"
    );
    let asked: Vec<Value> = requests(&dir, "llm.jsonl")
        .into_iter()
        .filter(|r| r["body"]["tools"][0]["name"] == "propose_descriptions")
        .collect();
    assert_eq!(asked.len(), 1, "one rewriter request");
    let body = &asked[0]["body"];
    assert_eq!(
        body["tool_choice"],
        serde_json::json!({"type": "tool", "name": "propose_descriptions"})
    );
    let prompt = body["messages"][0]["content"].to_string();
    assert!(prompt.contains("Rewrite `add` (3 candidates)"), "{prompt}");
    assert!(prompt.contains("rewrite_description"), "{prompt}");

    let again = toolproof_in(
        &dir.0,
        &["tune", "--tool", "add", "--offline", "--json", "u.json"],
        &[("ANTHROPIC_API_KEY", "")],
    );
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(dir.json("u.json")["tools"], report["tools"]);
    assert_eq!(dir.json("u.json")["requests"], 0);
}

/// `--dry-run` asks nothing; `--max-requests` stops a stage whose plan goes over it before its
/// first request, with exit code 2.
#[test]
fn a_dry_run_asks_nothing_and_a_tune_over_budget_stops_before_the_candidates() {
    let dir = Dir::new("tune-budget");
    config(&dir, "");
    let picks = dir.path("picks.jsonl").display().to_string();
    let env = [("OVERLAP_LOG", picks.as_str())];
    let dry = toolproof_in(&dir.0, &["tune", "--dry-run", "--candidates", "4"], &env);
    assert_eq!(dry.code, 0, "{dry:?}");
    assert!(dry.stdout.contains("the evals send 52 requests"), "{dry:?}");
    assert!(
        dry.stdout.contains("at most 80 requests per tool"),
        "{dry:?}"
    );
    assert!(!Path::new(&picks).exists(), "the dry run asked the model");
    let out = toolproof_in(
        &dir.0,
        &["tune", "--candidates", "4", "--max-requests", "60"],
        &env,
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains(
            "the tune would send 40 more requests for the candidates after 54 sent, over the budget of 60"
        ),
        "{out:?}"
    );
    assert!(!dir.path("toolproof-tune.yaml").exists());
    assert_eq!(lines_in(&picks), 52, "only the evals were asked");
}

#[test]
fn a_tune_over_its_dollar_budget_stops_before_the_candidates() {
    let dir = Dir::new("tune-usd");
    config(
        &dir,
        "  prices:\n    m1: {input: 1000.0, output: 1000.0}\n    m2: {input: 1000.0, output: 1000.0}\n",
    );
    let picks = dir.path("picks.jsonl").display().to_string();
    let env = [("OVERLAP_LOG", picks.as_str())];
    let out = toolproof_in(
        &dir.0,
        &["tune", "--candidates", "4", "--max-cost", "15"],
        &env,
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("the candidates would cost about $")
            && out
                .stderr
                .contains("over the budget of $15; nothing more was asked"),
        "{out:?}"
    );
    assert!(!dir.path("toolproof-tune.yaml").exists());
    assert_eq!(lines_in(&picks), 52, "only the evals were asked");
    // Without a price, a dollar budget cannot be kept: said before the first request.
    let unpriced = Dir::new("tune-usd-unpriced");
    config(&unpriced, "");
    let out = toolproof_in(&unpriced.0, &["tune", "--max-cost", "20"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("evals.prices"), "{out:?}");
}

/// Lines in a log file (requests a stand-in logged); 0 when it was never written.
fn lines_in(path: &str) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .count()
}

/// The guide's worked example is the demo's tune as it runs: the console report in
/// `docs/tuning.md` is this build's, line for line, and the overrides it writes replay the gain.
#[test]
fn the_demo_tune_prints_the_worked_example_of_the_guide() {
    let dir = demo_dir("demo-tune", "tune.yaml");
    // Under GitHub Actions the Markdown report goes to the job summary, as `eval`'s does.
    let steps = dir.path("steps.md").display().to_string();
    let out = toolproof_in(
        &dir.0,
        &["tune", "-c", "tune.yaml", "--json", "t.json"],
        &[("GITHUB_STEP_SUMMARY", steps.as_str())],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let summary = dir.read("steps.md");
    assert!(summary.starts_with("## toolproof tune\n"), "{summary}");
    assert!(
        summary.contains("**together (list\\_notes + delete\\_note): held-out 42.9% → 100%"),
        "{summary}"
    );
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tuning.md"))
            .expect("the guide");
    let example = guide
        .split("## A worked example")
        .nth(1)
        .and_then(|s| s.split("```text\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("a text block in the worked example");
    assert_eq!(out.stdout, example, "docs/tuning.md shows another report");

    let report = dir.json("t.json");
    let verdicts: Vec<(String, Vec<bool>)> = report["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            let accepted = t["candidates"].as_array().expect("candidates");
            let accepted = accepted.iter().map(|c| c["accepted"] == true).collect();
            (t["tool"].as_str().unwrap_or_default().to_owned(), accepted)
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("list_notes".to_owned(), vec![true, false, false]),
            ("delete_note".to_owned(), vec![true, false, false])
        ]
    );
    assert_eq!(report["together"]["accepted"], true, "{report}");
    assert!(
        report["split"]["held_out"]
            .as_array()
            .is_some_and(|h| h.iter().any(|n| n == "delete note 3")),
        "the critical row is held out: {report}"
    );

    let before = toolproof_in(
        &dir.0,
        &["eval", "-c", "tune.yaml", "--json", "a.json"],
        &[],
    );
    let after = toolproof_in(
        &dir.0,
        &[
            "eval",
            "-c",
            "tune.yaml",
            "--overrides",
            "toolproof-tune.yaml",
            "--json",
            "b.json",
            "--markdown",
            "b.md",
        ],
        &[],
    );
    assert_eq!((before.code, after.code), (1, 1), "{before:?} {after:?}");
    // Every report says the descriptions were not the server's own (`--markdown` is `--summary`).
    assert!(
        dir.read("b.md").contains("delete\\_note, list\\_notes"),
        "{}",
        dir.read("b.md")
    );
    let correct = |name: &str| {
        let m = &dir.json(name)["phases"]["evals"]["results"]["models"][0];
        (m["correct"].as_u64(), m["total"].as_u64())
    };
    assert_eq!(correct("a.json"), (Some(9), Some(19)));
    assert_eq!(correct("b.json"), (Some(17), Some(19)));
}

/// A tune that cannot accept anything says why before it spends on the rewriter: every row
/// passes, or the held-out rows could not show a significant gain even if all were fixed.
#[test]
fn a_tune_that_cannot_accept_anything_says_why_and_asks_no_rewriter() {
    let dir = demo_dir("demo-tune-nothing", "tune.yaml");
    let out = toolproof_in(
        &dir.0,
        &[
            "tune",
            "-c",
            "tune.yaml",
            "--holdout",
            "0.2",
            "--json",
            "t.json",
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("t.json");
    let note = report["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("the 3 held-out rows miss 3 trials in all")
            && note.contains("(best p = 0.05 at α 0.05); the rewriter was not asked"),
        "{report}"
    );
    assert_eq!(report["tools"], serde_json::json!([]));
    // The evals' 19 rows × 3 trials, and nothing more.
    assert_eq!(report["requests"], 57);
    assert!(out.stdout.contains(note), "{out:?}");

    let passing = demo_dir("demo-tune-passing", "toolproof.yaml");
    let out = toolproof_in(
        &passing.0,
        &["tune", "-c", "toolproof.yaml", "--json", "t.json"],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("no row was missed on any model: nothing to rewrite"),
        "{out:?}"
    );
}

/// A rewriter that fails is reported per tool, the other stages still run, every report is
/// written, and the exit code says the rewriter could not be used.
#[test]
fn a_failing_rewriter_or_server_is_reported_and_the_reports_are_written() {
    let dir = demo_dir("demo-tune-broken-rewriter", "tune.yaml");
    let yaml = dir.read("tune.yaml");
    let (head, _) = yaml.split_once("tune:").expect("a tune section");
    dir.write(
        "tune.yaml",
        &format!("{head}tune:\n  command: [sh, -c, 'echo boom >&2; exit 3']\n"),
    );
    let out = toolproof_in(
        &dir.0,
        &[
            "tune",
            "-c",
            "tune.yaml",
            "--json",
            "t.json",
            "--summary",
            "t.md",
        ],
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    let report = dir.json("t.json");
    let errors: Vec<&str> = report["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["error"].as_str())
        .collect();
    assert_eq!(
        errors, ["the rewriter failed: the command exited with code 3: boom"; 2],
        "{report}"
    );
    assert!(
        out.stdout.contains("  error: the rewriter failed"),
        "{out:?}"
    );
    assert!(
        dir.read("t.md").contains("❌ the rewriter failed"),
        "{out:?}"
    );

    // A server that cannot start stops the tune: the reports still say why.
    let yaml = dir.read("tune.yaml");
    let server = yaml
        .lines()
        .find(|l| l.contains("demo_server"))
        .expect("the server line")
        .to_owned();
    dir.write(
        "tune.yaml",
        &yaml.replace(&server, "  command: [\"/nonexistent/server\"]"),
    );
    let out = toolproof_in(
        &dir.0,
        &[
            "tune",
            "-c",
            "tune.yaml",
            "--json",
            "s.json",
            "--junit",
            "s.xml",
        ],
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    let error = dir.json("s.json")["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        error.starts_with("could not connect to the server"),
        "{error}"
    );
    assert!(out.stderr.contains(&error), "{out:?}");
    assert!(
        dir.read("s.xml")
            .contains("<error message=\"could not connect"),
        "{out:?}"
    );
}
