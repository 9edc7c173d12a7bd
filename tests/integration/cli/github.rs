//! GitHub Actions end to end: the step outputs appended to `$GITHUB_OUTPUT`, and the
//! pull-request comment against the fake GitHub API (`examples/fake_github.rs`) on loopback:
//! pagination, one comment updated in place, the modes, refusals that stay warnings, retries,
//! and the body written to a file.

use super::*;

const TOKEN: &str = "ghs_fakeToken0123456789";
const MARKER: &str = "<!-- toolproof:pr-comment config=toolproof.yaml -->";

fn picker() -> String {
    crate::fake("fake_picker")
}

/// A config with one tool-call test (failing when `test_fails`) and four eval cases, the first
/// `misses` of which pick the wrong tool; `evals: false` leaves the evals out.
fn config(dir: &Dir, misses: usize, test_fails: bool, evals: bool) {
    let expect = if test_fails { "bye" } else { "hi" };
    let mut yaml = format!(
        "server:\n  command: {}\ntests:\n  - name: echo says hi\n    tool: echo\n    args: {{text: hi}}\n    expect: {{contains: {expect}}}\n",
        yaml_list(&[&fake()])
    );
    if evals {
        yaml.push_str(&format!(
            "evals:\n  provider: command\n  command: {}\n  min_accuracy: 0.25\n  cases:\n",
            yaml_list(&[&picker()])
        ));
        for i in 0..4 {
            let call = if i < misses {
                r#"echo {"text": "x"}"#
            } else {
                r#"add {"a": 1, "b": 1}"#
            };
            yaml.push_str(&format!(
                "    - name: case-{i}\n      prompt: 'q{i} [[call {call}]]'\n      expect_tool: add\n"
            ));
        }
    }
    dir.write("toolproof.yaml", &yaml);
}

/// `name=value` and `name<<DELIMITER` … `DELIMITER`, as the runner reads `$GITHUB_OUTPUT`.
fn parse_outputs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let eq = line.find('=');
        match line.find("<<") {
            Some(at) if eq.is_none_or(|eq| at < eq) => {
                let delimiter = &line[at + 2..];
                let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delimiter).collect();
                out.push((line[..at].to_owned(), value.join("\n")));
            }
            _ => {
                let (name, value) = line.split_once('=').expect("name=value");
                out.push((name.to_owned(), value.to_owned()));
            }
        }
    }
    out
}

fn last<'a>(outputs: &'a [(String, String)], name: &str) -> &'a str {
    outputs
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map_or("<missing>", |(_, v)| v.as_str())
}

#[test]
fn step_outputs_are_appended_to_what_earlier_steps_wrote() {
    let dir = Dir::new("gh-output");
    config(&dir, 1, false, true);
    let earlier = "earlier=1\nnotes<<EOF_1\nline one\nline two\nEOF_1\n";
    let output = dir.write("github_output", earlier);
    let output = output.display().to_string();
    let odd = "odd\nname.html";
    let args = [
        "run",
        "toolproof.yaml",
        "--junit",
        "j.xml",
        "--json",
        "r.json",
        "--html",
        odd,
        "--history",
        "h.jsonl",
    ];
    let out = toolproof_in(&dir.0, &args, &[("GITHUB_OUTPUT", &output)]);
    assert_eq!(out.code, 0, "{out:?}");
    let text = dir.read("github_output");
    assert!(text.starts_with(earlier), "{text}");
    let o = parse_outputs(&text);
    assert_eq!(last(&o, "earlier"), "1");
    assert_eq!(last(&o, "notes"), "line one\nline two");
    for (name, value) in [
        ("exit-code", "0"),
        ("passed", "true"),
        ("accuracy", "0.7500"),
        ("miss-rate", "0.2500"),
        ("critical-misses", "0"),
        ("tests-failed", "0"),
        ("check-errors", "0"),
        ("junit", "j.xml"),
        ("json", "r.json"),
        ("html", odd),
        ("summary", ""),
        ("history", "h.jsonl"),
    ] {
        assert_eq!(last(&o, name), value, "{name} in\n{text}");
    }
    // A failing run appends its own outputs after the first run's.
    config(&dir, 4, true, true);
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml"],
        &[("GITHUB_OUTPUT", &output)],
    );
    assert_eq!(out.code, 1, "{out:?}");
    let o = parse_outputs(&dir.read("github_output"));
    assert_eq!(o.iter().filter(|(n, _)| n == "exit-code").count(), 2);
    assert_eq!(last(&o, "exit-code"), "1");
    assert_eq!(last(&o, "passed"), "false");
    assert_eq!(last(&o, "accuracy"), "0.0000");
    assert_eq!(last(&o, "tests-failed"), "0", "eval runs no tests");
    assert_eq!(last(&o, "junit"), "");
    assert_eq!(last(&o, "history"), "");
}

#[test]
fn the_evals_badge_is_written_beside_the_reports_as_svg_or_endpoint_json() {
    let dir = Dir::new("gh-badge");
    config(&dir, 1, false, true);
    let output = dir.write("github_output", "");
    let output = output.display().to_string();
    let args = [
        "eval",
        "-c",
        "toolproof.yaml",
        "--badge",
        "reports/badge.svg",
    ];
    let out = toolproof_in(&dir.0, &args, &[("GITHUB_OUTPUT", &output)]);
    assert_eq!(out.code, 0, "{out:?}");
    let svg = dir.read("reports/badge.svg");
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains("<title>tool selection: 75%</title>"), "{svg}");
    assert!(svg.contains("fill=\"#4c1\""), "passing is green: {svg}");
    assert!(
        out.stdout
            .contains("evals badge written to reports/badge.svg"),
        "{out:?}"
    );
    let o = parse_outputs(&dir.read("github_output"));
    assert_eq!(last(&o, "badge"), "reports/badge.svg");
    // The endpoint JSON through the variable, for a failing run.
    config(&dir, 4, false, true);
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml"],
        &[("TOOLPROOF_BADGE", "badge.json")],
    );
    assert_eq!(out.code, 1, "{out:?}");
    let v: Value = serde_json::from_str(&dir.read("badge.json")).unwrap_or(Value::Null);
    assert_eq!(
        v,
        serde_json::json!({"schemaVersion": 1, "label": "tool selection",
            "message": "0% failing", "color": "red"})
    );
    // Any other name is a usage error that says what to write, before anything runs.
    for (args, env) in [
        (vec!["--badge", "badge.png"], vec![]),
        (vec![], vec![("TOOLPROOF_BADGE", "-")]),
    ] {
        let mut all = vec!["eval", "-c", "toolproof.yaml"];
        all.extend(args);
        let out = toolproof_in(&dir.0, &all, &env);
        assert_eq!(out.code, 2, "{out:?}");
        assert!(
            out.stderr.contains("names neither an SVG nor a JSON file"),
            "{out:?}"
        );
        assert!(
            out.stderr
                .contains("hint: write the badge to a file ending in .svg"),
            "{out:?}"
        );
    }
}

/// The fake GitHub API with a request log and a state file in `dir`.
fn fake_github(dir: &Dir, args: &[&str]) -> Listening {
    let program = crate::fake("fake_github");
    let log = dir.path("github.jsonl").display().to_string();
    let state = dir.path("comments.json").display().to_string();
    let mut all = vec!["--require-token", TOKEN, "--log", &log, "--state", &state];
    all.extend_from_slice(args);
    listening(&program, &all)
}

/// The environment of a pull-request job pointed at the fake.
fn pr_env(dir: &Dir, api: &str) -> Vec<(&'static str, String)> {
    let event = dir.write(
        "event.json",
        r#"{"action": "synchronize", "number": 7, "pull_request": {"number": 7}}"#,
    );
    vec![
        ("GITHUB_API_URL", api.to_owned()),
        ("GITHUB_TOKEN", TOKEN.to_owned()),
        ("GITHUB_REPOSITORY", "octo/widgets".to_owned()),
        ("GITHUB_EVENT_PATH", event.display().to_string()),
        ("GITHUB_BASE_REF", "main".to_owned()),
        ("GITHUB_HEAD_REF", "feature".to_owned()),
        (
            "GITHUB_SHA",
            "feedfacefeedfacefeedfacefeedfacefeedface".to_owned(),
        ),
        ("GITHUB_SERVER_URL", "https://github.example".to_owned()),
        ("GITHUB_RUN_ID", "4242".to_owned()),
    ]
}

fn run_pr(dir: &Dir, env: &[(&'static str, String)], extra: &[&str]) -> Out {
    let mut args = vec!["run", "toolproof.yaml", "--history", "h.jsonl"];
    args.extend_from_slice(extra);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let out = toolproof_in(&dir.0, &args, &env);
    for text in [&out.stdout, &out.stderr] {
        assert!(!text.contains(TOKEN), "the token leaked: {out:?}");
    }
    out
}

fn requests(dir: &Dir) -> Vec<Value> {
    std::fs::read_to_string(dir.path("github.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn comments(dir: &Dir) -> Vec<Value> {
    serde_json::from_str::<Value>(&dir.read("comments.json"))
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
}

fn ours(dir: &Dir) -> Vec<Value> {
    comments(dir)
        .into_iter()
        .filter(|c| c["body"].as_str().is_some_and(|b| b.contains(MARKER)))
        .collect()
}

/// (method, status) of every request, in order.
fn calls(dir: &Dir) -> Vec<(String, u64)> {
    requests(dir)
        .iter()
        .map(|r| {
            (
                r["method"].as_str().unwrap_or("").to_owned(),
                r["status"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn the_marked_comment_on_page_two_of_three_is_found_and_updated() {
    let dir = Dir::new("gh-pages");
    config(&dir, 0, false, true);
    let old = format!("{MARKER}\nan old verdict");
    let server = fake_github(&dir, &["--comments", "250", "--comment-at", "150", &old]);
    let env = pr_env(&dir, &server.url);
    let out = run_pr(&dir, &env, &["--pr-comment", "always"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("PR comment updated on #7"), "{out:?}");
    let log = requests(&dir);
    let pages: Vec<&str> = log
        .iter()
        .filter(|r| r["method"] == "GET")
        .filter_map(|r| r["query"].as_str())
        .collect();
    assert_eq!(pages, ["per_page=100&page=1", "per_page=100&page=2"]);
    let marked = ours(&dir);
    assert_eq!(marked.len(), 1, "{marked:?}");
    let id = marked[0]["id"].as_u64().unwrap_or(0);
    let patch = log
        .iter()
        .find(|r| r["method"] == "PATCH")
        .expect("a PATCH");
    assert_eq!(
        patch["path"].as_str(),
        Some(format!("/repos/octo/widgets/issues/comments/{id}").as_str())
    );
    assert!(log.iter().all(|r| r["method"] != "POST"), "{log:?}");
    let body = marked[0]["body"].as_str().unwrap_or("");
    assert!(
        body.starts_with(MARKER) && body.contains("## ✅ toolproof passed"),
        "{body}"
    );
    assert_eq!(comments(&dir).len(), 251);
    let headers = &patch["headers"];
    assert_eq!(headers["authorization"], format!("Bearer {TOKEN}"));
    assert_eq!(headers["accept"], "application/vnd.github+json");
    assert_eq!(headers["x-github-api-version"], "2022-11-28");
    assert!(
        headers["user-agent"]
            .as_str()
            .is_some_and(|ua| ua.starts_with("toolproof/"))
    );
}

#[test]
fn one_comment_follows_the_pull_request_and_says_what_changed() {
    let dir = Dir::new("gh-upsert");
    let server = fake_github(&dir, &[]);
    let env = pr_env(&dir, &server.url);
    // The base branch's run, recorded by a push to main.
    config(&dir, 0, false, true);
    let main_env = [("GITHUB_REF_NAME", "main")];
    let out = toolproof_in(
        &dir.0,
        &["run", "toolproof.yaml", "--history", "h.jsonl"],
        &main_env,
    );
    assert_eq!(out.code, 0, "{out:?}");
    // Nothing changed and the run passed: on-change posts nothing.
    let out = run_pr(&dir, &env, &["--pr-comment", "on-change"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("PR comment not needed"), "{out:?}");
    assert!(ours(&dir).is_empty());
    // One case now misses: a change, so the comment is posted.
    config(&dir, 1, false, true);
    let out = run_pr(&dir, &env, &["--pr-comment", "on-change"]);
    assert!(out.stdout.contains("PR comment posted on #7"), "{out:?}");
    let first = ours(&dir);
    assert_eq!(first.len(), 1);
    let body = first[0]["body"].as_str().unwrap_or("");
    assert!(
        body.contains("accuracy 75% (main: 100%, −25 pts)"),
        "{body}"
    );
    assert!(body.contains("❌ newly missed (1): case-0"), "{body}");
    // Two misses and a failing test: the same comment is updated, not a second one posted.
    config(&dir, 2, true, true);
    let out = run_pr(&dir, &env, &["--pr-comment", "on-change"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("PR comment updated on #7"), "{out:?}");
    let second = ours(&dir);
    assert_eq!(second.len(), 1, "{second:?}");
    assert_eq!(second[0]["id"], first[0]["id"]);
    let body = second[0]["body"].as_str().unwrap_or("");
    assert!(
        body.contains("accuracy 50% (main: 100%, −50 pts)"),
        "{body}"
    );
    assert!(
        body.contains("❌ newly missed (2): case-0, case-1"),
        "{body}"
    );
    assert!(
        body.contains("❌ Tests that newly fail (1): echo says hi"),
        "{body}"
    );
    // Back to the base's state: nothing changed, yet the existing comment never goes stale.
    config(&dir, 0, false, true);
    let out = run_pr(&dir, &env, &["--pr-comment", "on-change"]);
    assert!(out.stdout.contains("PR comment updated on #7"), "{out:?}");
    let body = ours(&dir)[0]["body"].as_str().unwrap_or("").to_owned();
    assert!(body.contains("Nothing changed against main"), "{body}");
    let posts = calls(&dir).iter().filter(|(m, _)| m == "POST").count();
    assert_eq!(posts, 1);
}

#[test]
fn a_read_only_token_a_missing_pull_request_or_token_are_warnings() {
    let dir = Dir::new("gh-forbidden");
    config(&dir, 0, false, false);
    let server = fake_github(&dir, &["--fail", "POST:403:always"]);
    let env = pr_env(&dir, &server.url);
    let out = run_pr(&dir, &env, &["--pr-comment", "always"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(
            "warning: could not post the PR comment: GitHub refused to comment on the pull request (403): Resource not accessible by integration"
        ),
        "{out:?}"
    );
    assert!(out.stderr.contains("hint:") && out.stderr.contains("--pr-comment-file"));
    // Said once.
    let said = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(said.matches("(403)").count(), 1, "{out:?}");
    // Under GitHub Actions, once too, as a warning the Actions UI shows.
    let mut actions = env.clone();
    actions.push(("GITHUB_ACTIONS", "true".to_owned()));
    let out = run_pr(&dir, &actions, &["--pr-comment", "always"]);
    assert_eq!(out.code, 0, "{out:?}");
    let warnings: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("could not post the PR comment"))
        .collect();
    assert_eq!(warnings.len(), 1, "{out:?}");
    assert!(
        warnings[0].starts_with("::warning title=toolproof PR comment::could not post the PR comment: GitHub refused to comment on the pull request (403)")
            && warnings[0].contains("%0Ahint: "),
        "{out:?}"
    );
    let said = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(said.matches("(403)").count(), 1, "{out:?}");
    // A failing run keeps its own exit code.
    config(&dir, 0, true, false);
    let out = run_pr(&dir, &env, &["--pr-comment", "always"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("(403)"), "{out:?}");
    // No token, or an event without a pull request: a warning, and no request at all.
    let sent = requests(&dir).len();
    let without: Vec<(&'static str, String)> = env
        .iter()
        .filter(|(k, _)| *k != "GITHUB_TOKEN")
        .cloned()
        .collect();
    let out = run_pr(&dir, &without, &["--pr-comment", "always"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("GITHUB_TOKEN is not set"), "{out:?}");
    dir.write("event.json", r#"{"ref": "refs/heads/main"}"#);
    let mut push = env.clone();
    push.retain(|(k, _)| *k != "GITHUB_EVENT_PATH");
    push.push((
        "GITHUB_EVENT_PATH",
        dir.path("event.json").display().to_string(),
    ));
    let out = run_pr(&dir, &push, &["--pr-comment", "always"]);
    assert!(
        out.stderr.contains("the event is not a pull request"),
        "{out:?}"
    );
    assert_eq!(requests(&dir).len(), sent);
}

/// A token too short to be a secret (`GITHUB_TOKEN=t`) is not masked: the message about a
/// refused connection stays readable.
#[test]
fn a_token_too_short_to_be_a_secret_leaves_messages_readable() {
    let dir = Dir::new("gh-short-token");
    config(&dir, 0, false, false);
    // The fake wants the real token, so it refuses `t`, and says so with a `t` in the message.
    let server = fake_github(&dir, &[]);
    let mut env = pr_env(&dir, &server.url);
    env.retain(|(k, _)| *k != "GITHUB_TOKEN");
    env.push(("GITHUB_TOKEN", "t".to_owned()));
    let out = run_pr(&dir, &env, &["--pr-comment", "always"]);
    assert_eq!(out.code, 0, "{out:?}");
    let line = out
        .stderr
        .lines()
        .find(|l| l.contains("could not post the PR comment"))
        .unwrap_or_else(|| panic!("{out:?}"));
    assert!(line.contains("401"), "{line}");
    assert!(line.contains('t') && !line.contains("***"), "{line}");
}

#[test]
fn a_repository_github_does_not_know_is_a_warning() {
    let dir = Dir::new("gh-404");
    config(&dir, 0, false, false);
    let server = fake_github(&dir, &["--repo", "someone/else"]);
    let env = pr_env(&dir, &server.url);
    let out = run_pr(&dir, &env, &["--pr-comment", "always"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(
            "could not post the PR comment: GitHub could not find what it was asked to list the pull request's comments (404): Not Found"
        ),
        "{out:?}"
    );
    assert_eq!(calls(&dir), [("GET".to_owned(), 404)]);
}

#[test]
fn rate_limits_and_server_errors_are_retried() {
    let dir = Dir::new("gh-retry");
    config(&dir, 0, false, false);
    let server = fake_github(
        &dir,
        &["--fail", "GET:503", "--fail", "POST:429:retry-after=1"],
    );
    let env = pr_env(&dir, &server.url);
    let out = run_pr(&dir, &env, &["--pr-comment", "always"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("PR comment posted on #7"), "{out:?}");
    assert_eq!(
        calls(&dir),
        [
            ("GET".to_owned(), 503),
            ("GET".to_owned(), 200),
            ("POST".to_owned(), 429),
            ("POST".to_owned(), 201),
        ]
    );
    let log = requests(&dir);
    let at = |i: usize| log[i]["at_ms"].as_u64().unwrap_or(0);
    assert!(
        at(3) >= at(2) + 1000,
        "retry-after: 1 was not honoured: {log:?}"
    );
    assert_eq!(ours(&dir).len(), 1);
}

#[test]
fn the_body_can_be_written_to_a_file_without_calling_the_api() {
    let dir = Dir::new("gh-file");
    let server = fake_github(&dir, &[]);
    let env = pr_env(&dir, &server.url);
    // A server without evals: the base run is a run line holding the tests.
    config(&dir, 0, false, false);
    let out = toolproof_in(
        &dir.0,
        &["run", "toolproof.yaml", "--history", "h.jsonl"],
        &[("GITHUB_REF_NAME", "main")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let line: Value = serde_json::from_str(dir.read("h.jsonl").trim()).expect("one line");
    assert_eq!(line["cases"], 0);
    assert_eq!(line["failed_tests"], serde_json::json!([]));
    config(&dir, 0, true, false);
    let out = run_pr(&dir, &env, &["--pr-comment-file", "comment.md"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains("PR comment written to comment.md"),
        "{out:?}"
    );
    let body = dir.read("comment.md");
    assert!(body.starts_with(MARKER), "{body}");
    assert!(
        body.contains("❌ Tests that newly fail (1): echo says hi"),
        "{body}"
    );
    assert!(
        body.contains("https://github.example/octo/widgets/actions/runs/4242"),
        "{body}"
    );
    assert!(requests(&dir).is_empty(), "no API call with a file");
}
