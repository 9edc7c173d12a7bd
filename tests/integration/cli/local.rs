//! Evals against local OpenAI-compatible servers, through the `toolproof` binary: the fake
//! model API speaking llama-cpp-python's answers (`--flavor llama-cpp-python`) and serving one
//! request at a time (`--single-slot MS`), as the real servers did in issue 15.

use super::evals::{command_config, eval_in, llm, model0, requests as logged};
use super::*;

/// A config for the OpenAI provider (model `local-model`) with `extra` under `evals:`.
fn local_config(dir: &Dir, extra: &str, cases: &str) {
    let server = yaml_list(&[&fake()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: openai\n  model: local-model\n{extra}  cases:\n{cases}"
        ),
    );
}

/// The environment of a local server that needs no key: only `OPENAI_BASE_URL`.
fn local_env(base: &str) -> Vec<(&'static str, &str)> {
    vec![("OPENAI_API_KEY", ""), ("OPENAI_BASE_URL", base)]
}

fn cases_of(report: &Value) -> &Vec<Value> {
    match model0(report)["cases"].as_array() {
        Some(c) => c,
        None => panic!("no cases in {report:#}"),
    }
}

/// The console table's column `col` (0: the mark) of the row named `name`, its wrapped lines
/// joined with spaces.
fn console_cell(stdout: &str, name: &str, col: usize) -> String {
    let mut rows: Vec<Vec<Vec<String>>> = Vec::new();
    for line in stdout.lines().filter(|l| l.starts_with('│')) {
        let cells: Vec<String> = line
            .trim_matches('│')
            .split('│')
            .map(|c| c.trim().to_owned())
            .collect();
        if !cells[0].is_empty() || rows.is_empty() {
            rows.push(cells.iter().map(|_| Vec::new()).collect());
        }
        if let Some(row) = rows.last_mut() {
            for (i, cell) in cells.into_iter().enumerate().filter(|(_, c)| !c.is_empty()) {
                if let Some(parts) = row.get_mut(i) {
                    parts.push(cell);
                }
            }
        }
    }
    let row = rows
        .iter()
        .find(|r| r.get(1).and_then(|n| n.first()).is_some_and(|n| n == name));
    match row.and_then(|r| r.get(col)) {
        Some(parts) => parts.join(" "),
        None => panic!("no console row {name:?} in\n{stdout}"),
    }
}

const LONG_TEXT: &str = r#"    - name: bye
      prompt: 'bye [[text {"name": "echo", "arguments": {"text": "hi"}}]]'
      expect_tool: null
"#;

#[test]
fn max_tokens_is_sent_under_the_field_the_endpoint_reads() {
    for (field, sent, dropped) in [
        ("", "max_tokens", "max_completion_tokens"),
        (
            "  max_tokens_field: max_completion_tokens\n",
            "max_completion_tokens",
            "max_tokens",
        ),
    ] {
        let dir = Dir::new("eval-max-tokens-field");
        let log = dir.path("llm.jsonl").display().to_string();
        let server = llm(&["--log", &log, "--flavor", "llama-cpp-python"]);
        let base = format!("{}/v1", server.url);
        let extra = format!("  max_tokens: 4\n  min_accuracy: 0\n{field}");
        local_config(&dir, &extra, LONG_TEXT);
        let (out, report) = eval_in(&dir, &[], &local_env(&base));
        assert_eq!(out.code, 0, "{out:?}");
        let body = &logged(&dir, "llm.jsonl")[0]["body"];
        assert_eq!(body[sent], 4, "{field:?}: {body:#}");
        assert!(body.get(dropped).is_none(), "{field:?}: {body:#}");
        // llama-cpp-python reads max_tokens only: the other name is not a cap there.
        let kind = &cases_of(&report)[0]["trials"][0]["kind"];
        let expected = if sent == "max_tokens" {
            "truncated"
        } else {
            "text_only"
        };
        assert_eq!(kind, expected, "{field:?}: {out:?}");
    }
}

#[test]
fn a_cut_off_answer_shows_what_it_said_and_is_never_right() {
    let dir = Dir::new("eval-cut-off");
    let server = llm(&["--flavor", "llama-cpp-python"]);
    let base = format!("{}/v1", server.url);
    let cases = format!(
        r#"{LONG_TEXT}    - name: short bye
      prompt: 'bye [[text see you]]'
      expect_tool: null
    - name: cut call
      prompt: 'echo hi [[call echo {{"text": "hi"}}]] [[max_tokens]]'
      expect_tool: echo
      expect_args: {{text: hi}}
"#
    );
    local_config(&dir, "  max_tokens: 4\n", &cases);
    let (out, report) = eval_in(&dir, &[], &local_env(&base));
    assert_eq!(out.code, 1, "{out:?}");
    let cases = cases_of(&report);
    let statuses: Vec<&str> = cases.iter().filter_map(|c| c["status"].as_str()).collect();
    assert_eq!(statuses, ["miss", "correct", "miss"], "{out:?}");
    assert_eq!(cases[0]["trials"][0]["kind"], "truncated");
    assert_eq!(
        cases[0]["trials"][0]["text"],
        r#"{"name": "echo", "arguments": {"text":"#
    );
    assert_eq!(cases[2]["trials"][0]["kind"], "truncated");
    assert_eq!(cases[2]["trials"][0]["calls"][0]["tool"], "echo");
    let said = r#"said before the cut-off: {"name": "echo", "arguments": {"text":"#;
    let md = dir.read("s.md");
    assert!(md.contains(&said.replace('_', "\\_")), "{md}");
    assert!(dir.read("j.xml").contains(said));
    for text in [
        "expected no tool call, but the answer was cut off at max_tokens",
        "the call is right so far, but the answer was cut off at max_tokens",
    ] {
        assert!(md.contains(&text.replace('_', "\\_")), "{text}: {md}");
    }
    let details = console_cell(&out.stdout, "bye", 4);
    assert!(
        details.starts_with("expected no tool call, but the answer was cut off"),
        "{details}"
    );
    assert!(details.ends_with(said), "{details}");
    assert_eq!(console_cell(&out.stdout, "bye", 3), "(cut off)");
    // Anthropic's stop_reason max_tokens reads the same.
    let dir = Dir::new("eval-cut-off-anthropic");
    let cases =
        "    - prompt: 'bye [[text partial answer]] [[max_tokens]]'\n      expect_tool: null\n";
    super::evals::api_config(&dir, "anthropic", &[], "", cases);
    let env = super::evals::api_env(&server, &base);
    let (out, report) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(cases_of(&report)[0]["status"], "miss");
    assert!(
        dir.read("s.md")
            .contains("said before the cut-off: partial answer")
    );
}

/// Eight cases at once against a server that answers one request at a time, 300 ms each,
/// with a 1 s budget per request: the fourth in the server's queue cannot make it.
fn single_slot_run(name: &str, extra: &str) -> (Dir, Out, Value) {
    let extra = format!("  concurrency: 8\n  request_timeout_s: 1\n{extra}");
    single_slot_cases(name, 8, &extra)
}

/// `n` cases against a server that answers one request at a time, 300 ms each, with `extra`
/// under `evals:`.
fn single_slot_cases(name: &str, n: usize, extra: &str) -> (Dir, Out, Value) {
    let dir = Dir::new(name);
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--single-slot", "300"]);
    let base = format!("{}/v1", server.url);
    let mut cases = String::new();
    for i in 0..n {
        cases.push_str(&format!(
            "    - prompt: 'echo {i} [[call echo {{\"text\": \"{i}\"}}]]'\n      expect_tool: echo\n"
        ));
    }
    local_config(&dir, extra, &cases);
    let (out, report) = eval_in(&dir, &["--no-cache"], &local_env(&base));
    (dir, out, report)
}

#[test]
fn a_single_slot_server_gets_fewer_requests_at_once_and_times_are_time_to_answer() {
    let (dir, out, report) = single_slot_run("eval-single-slot", "");
    assert_eq!(
        out.code, 0,
        "every case is answered once fewer are sent: {out:?}"
    );
    let results = &report["phases"]["evals"]["results"];
    let c = &results["concurrency"];
    assert_eq!(c["configured"], 8, "{c:#}");
    assert_eq!(c["lowest"], 1, "{c:#}");
    assert!(c["lowered"].as_u64() >= Some(3), "{c:#}");
    assert!(c["timeouts"].as_u64() >= Some(3), "{c:#}");
    // Every request is counted, its retries too, and the counts add up.
    let cache = &results["cache"];
    let sent = logged(&dir, "llm.jsonl").len() as u64;
    assert_eq!(cache["requests"].as_u64(), Some(sent), "{cache:#}");
    assert_eq!(cache["asked"], 8, "{cache:#}");
    assert_eq!(cache["failed"], 0, "{cache:#}");
    assert_eq!(cache["retries"].as_u64(), Some(sent - 8), "{cache:#}");
    let line = format!("Cache: 0 cached (not read: --no-cache), 8 asked, {sent} requests");
    assert!(
        out.stdout.contains(&line)
            || out
                .stdout
                .contains(&line.replace("0 cached (not read: --no-cache), ", "0 cached, ")),
        "{line}: {}",
        out.stdout
    );
    // A trial's time is from sending its answered request: never the 1 s it waited before
    // a retry, nor its turn behind the other cases. The bound is not a speed: an answered
    // request came back inside its 1 s timeout, while a time counted from the first send is at
    // least that timed-out second plus the 300 ms the slot spends on the retry.
    for case in cases_of(&report) {
        let ms = case["trials"][0]["latency_ms"].as_f64().unwrap_or(f64::MAX);
        assert!(ms < 1300.0, "{ms} ms for {case:#}");
    }
    let note = "Concurrency lowered from 8 to 1 in flight:";
    let hint = "set `evals.concurrency: 1` to start there";
    let md_hint = hint.replace('`', "\\`");
    for (text, hint) in [
        (out.stdout.clone(), hint),
        (dir.read("j.xml"), hint),
        (dir.read("s.md"), md_hint.as_str()),
    ] {
        assert!(text.contains(note) && text.contains(hint), "{text}");
    }
    assert!(
        out.stderr
            .contains("SLOW  a request timed out: 4 in flight at most now (was 8)"),
        "{}",
        out.stderr
    );
}

/// Issue 22, item 7: twelve cases, eight at once, one retry each. The server's queue makes the
/// requests behind the third time out (300 ms each, 1.2 s budget), and the ones sent while they
/// were still queued time out behind them. Those timeouts are toolproof's own doing: each is
/// sent again once the window has room, without spending the case's one retry, so every case
/// gets its answer. A retry of a request sent alone still counts.
#[test]
fn timeouts_behind_toolproofs_own_requests_spend_no_retry() {
    let extra = "  concurrency: 8\n  request_timeout_s: 1.2\n  max_retries: 1\n";
    let (dir, out, report) = single_slot_cases("eval-own-timeouts", 12, extra);
    assert_eq!(model0(&report)["provider_errors"], 0, "{out:?}");
    assert_eq!(out.code, 0, "{out:?}");
    let statuses: Vec<&str> = cases_of(&report)
        .iter()
        .filter_map(|c| c["status"].as_str())
        .collect();
    assert_eq!(statuses, ["correct"; 12], "{out:?}");
    let results = &report["phases"]["evals"]["results"];
    let c = &results["concurrency"];
    assert!(c["lowered"].as_u64() >= Some(1), "{c:#}");
    assert!(matches!(c["lowest"].as_u64(), Some(n) if n < 8), "{c:#}");
    assert!(
        out.stdout.contains("Concurrency lowered from 8 to"),
        "{}",
        out.stdout
    );
    // A request sent again for the window is a retry in the counts (it is not the case's
    // first request), so they still add up: every timed-out request was sent again, and the
    // requests are the asked plus the retries, as many as the server saw.
    let cache = &results["cache"];
    let sent = logged(&dir, "llm.jsonl").len() as u64;
    let retries = cache["retries"].as_u64().unwrap_or(0);
    assert_eq!(cache["requests"].as_u64(), Some(sent), "{cache:#}");
    assert_eq!(
        (cache["asked"].as_u64(), cache["failed"].as_u64()),
        (Some(12), Some(0)),
        "{cache:#}"
    );
    assert_eq!(sent, 12 + retries, "{cache:#}");
    assert_eq!(c["timeouts"].as_u64(), Some(retries), "{c:#} {cache:#}");
    assert!(retries >= 1, "{cache:#}");
}

#[test]
fn a_fixed_window_says_the_timeouts_and_the_concurrency_to_set() {
    let extra = "  adaptive_concurrency: false\n  max_retries: 0\n  min_accuracy: 0\n";
    let (dir, out, report) = single_slot_run("eval-fixed-window", extra);
    let c = &report["phases"]["evals"]["results"]["concurrency"];
    assert_eq!(
        (c["lowest"].as_u64(), c["lowered"].as_u64()),
        (Some(8), Some(0)),
        "{c:#}"
    );
    assert!(c["timeouts"].as_u64() >= Some(1), "{c:#}");
    let note = "Concurrency 8 in flight throughout:";
    let hint = "lower `evals.concurrency` (1 for a server with one slot)";
    let md_hint = hint.replace('`', "\\`");
    for (text, hint) in [
        (out.stdout.clone(), hint),
        (dir.read("s.md"), md_hint.as_str()),
    ] {
        assert!(text.contains(note) && text.contains(hint), "{text}");
    }
    // The queued requests that timed out share one error, said once with the count.
    let errors = model0(&report)["provider_errors"].as_u64().unwrap_or(0);
    assert!(errors >= 1, "{out:?}");
    if errors > 1 {
        let shared = format!("Provider error on {errors} cases: openai did not answer within 1s");
        assert!(out.stdout.contains(&shared), "{shared}: {}", out.stdout);
    }
}

#[test]
fn an_empty_server_message_and_a_repeated_error_read_once_and_the_counts_add_up() {
    let dir = Dir::new("eval-empty-message");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--flavor", "llama-cpp-python"]);
    let base = format!("{}/v1", server.url);
    let mut cases = String::new();
    for i in 0..3 {
        cases.push_str(&format!(
            "    - prompt: 'echo {i} [[call echo {{\"text\": \"{i}\"}}]]'\n      expect_tool: echo\n"
        ));
    }
    // llama-cpp-python answers `tool_choice: required` with a 500 whose message is "".
    local_config(&dir, "  tool_choice: required\n  max_retries: 1\n", &cases);
    let (out, report) = eval_in(&dir, &[], &local_env(&base));
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(logged(&dir, "llm.jsonl").len(), 6);
    let cache = &report["phases"]["evals"]["results"]["cache"];
    let counts: Vec<u64> = ["hits", "asked", "failed", "requests", "retries"]
        .iter()
        .filter_map(|k| cache[k].as_u64())
        .collect();
    assert_eq!(counts, [0, 0, 3, 6, 3], "{cache:#}");
    assert!(
        out.stdout
            .contains("Cache: 0 cached, 3 asked (0 answered, 3 failed), 6 requests (3 retries)"),
        "{}",
        out.stdout
    );
    let error = "openai returned 500 internal_server_error with an empty message (after 1 retry)";
    assert_eq!(cases_of(&report)[0]["trials"][0]["provider_error"], error);
    let shared = format!("Provider error on 3 cases: {error}");
    let md_shared = shared.replace('_', "\\_");
    for (text, shared) in [
        (out.stdout.clone(), &shared),
        (dir.read("j.xml"), &shared),
        (dir.read("s.md"), &md_shared),
    ] {
        assert_eq!(text.matches(shared.as_str()).count(), 1, "{text}");
        assert!(!text.contains(":  ("), "{text}");
    }
    // The rows refer to it; a JUnit testcase keeps its own message.
    for i in 0..3 {
        let name = format!("echo {i} [[call echo {{\"text\": \"{i}\"}}]]");
        assert_eq!(
            console_cell(&out.stdout, &name, 4),
            "provider error shared by 3 cases (said once: \"Provider error on 3 cases\")"
        );
    }
    let message = format!("message=\"provider error: {error}\"");
    assert_eq!(dir.read("j.xml").matches(&message).count(), 3);
    // The live log says the error once, then refers to it.
    let live: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("  ERROR"))
        .collect();
    assert_eq!(live.len(), 3, "{}", out.stderr);
    assert_eq!(
        live.iter().filter(|l| l.ends_with(error)).count(),
        1,
        "{live:?}"
    );
    let again = live
        .iter()
        .filter(|l| l.ends_with(": the same provider error as above"));
    assert_eq!(again.count(), 2, "{live:?}");
}

#[test]
fn a_raw_newline_in_malformed_arguments_stays_out_of_the_details() {
    let dir = Dir::new("eval-malformed-newline");
    let server = llm(&[]);
    let base = format!("{}/v1", server.url);
    let cases = "    - name: broken\n      prompt: \"bad [[malformed echo {\\\"text\\\":\\n  \\\"hi\\\"]]\"\n      expect_tool: echo\n";
    local_config(&dir, "", cases);
    let (out, report) = eval_in(&dir, &[], &local_env(&base));
    assert_eq!(out.code, 1, "{out:?}");
    let trial = &cases_of(&report)[0]["trials"][0];
    assert_eq!(trial["calls"][0]["malformed_args"], "{\"text\":\n  \"hi\"");
    assert_eq!(
        trial["failures"][0],
        "the arguments are not a JSON object: {\"text\": \"hi\""
    );
    let md = dir.read("s.md");
    let row = md
        .lines()
        .find(|l| l.starts_with("| ❌ | broken |"))
        .unwrap_or_else(|| panic!("no row for the case in {md}"));
    assert!(row.ends_with(" |"), "the row is cut by a newline: {md}");
    assert!(
        row.contains(r#"| the arguments are not a JSON object: {"text": "hi" |"#),
        "{row}"
    );
    assert!(row.contains(r#"{\\"text\\":\\n  \\"hi\\""#), "{row}");
    let picked = console_cell(&out.stdout, "broken", 3);
    let picked = picked.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        picked, r#"echo (malformed arguments: "{\"text\":\n \"hi\"")"#,
        "{}",
        out.stdout
    );
}

#[test]
fn every_trials_pick_is_shown_in_every_report() {
    let dir = Dir::new("eval-trial-picks");
    let state = dir.path("state");
    std::fs::create_dir_all(&state).expect("state dir");
    let cases = "    - name: varied\n      prompt: 'x [[nth 1 echo {\"text\": \"a\"}]] [[nth 1 echo {\"text\": \"b\"}]] [[nth 2 add {\"a\": 1, \"b\": 2}]] [[nth 3 echo {\"text\": \"a\"}]] [[nth 3 echo {\"text\": \"b\"}]]'\n      expect_tool: echo\n";
    command_config(
        &dir,
        "  trials: 3\n  concurrency: 1\n  min_accuracy: 0\n",
        cases,
    );
    let state = state.display().to_string();
    let (out, report) = eval_in(&dir, &["--html", "r.html"], &[("PICKER_STATE", &state)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(model0(&report)["cases"][0]["pass_rate"], 2.0 / 3.0);
    let picks = "2/3 trials, ambiguous: picked echo ×2 (2 calls), add ×1";
    let details = console_cell(&out.stdout, "varied", 4);
    assert!(details.contains(picks), "{}", out.stdout);
    for file in ["s.md", "j.xml", "r.html"] {
        assert!(dir.read(file).contains(picks), "{file}: {}", dir.read(file));
    }
}

const SMALL_TALK_AND_TOOLS: &str = "    - name: adds\n      prompt: add 2 and 3\n      expect_tool: add\n    - name: echoes\n      prompt: echo hi\n      expect_tool: echo\n    - name: thanks\n      prompt: thanks\n      expect_tool: null\n";

#[test]
fn a_server_that_drops_the_tool_list_is_an_error_in_every_report_not_a_low_accuracy() {
    let dir = Dir::new("eval-tools-dropped");
    let server = llm(&["--ignore-tools"]);
    let base = format!("{}/v1", server.url);
    local_config(&dir, "  min_accuracy: 0\n", SMALL_TALK_AND_TOOLS);
    let (out, report) = eval_in(&dir, &["--html", "r.html"], &local_env(&base));
    assert_eq!(out.code, 1, "{out:?}");
    let evals = &report["phases"]["evals"];
    assert_eq!(evals["status"], "error", "{evals:#}");
    let m = model0(&report);
    assert_eq!(m["passed"], false);
    let unseen = &m["tools_unseen"];
    assert_eq!(unseen["answers"], 3, "{m:#}");
    assert_eq!(unseen["reported"], 3);
    let list = unseen["tool_list_tokens"].as_u64().unwrap_or(0);
    let largest = unseen["max_prompt_tokens"].as_u64().unwrap_or(u64::MAX);
    assert!(largest * 2 < list, "{unseen:#}");
    assert_eq!(
        list,
        report["phases"]["evals"]["results"]["tool_tokens"]["total"]
            .as_u64()
            .unwrap_or(0)
    );
    assert_eq!(m["gates"][0]["name"], "tools_shown");
    assert_eq!(m["gates"][0]["passed"], false);
    let said = "it did not show the tools to the model (a chat template without tool support?)";
    assert!(
        evals["reason"].as_str().unwrap_or("").contains(said),
        "{evals:#}"
    );
    // Said once per model in the model's part of each report (and in the phase's headline).
    assert_eq!(
        out.stdout
            .matches("ERROR the tools never reached the model")
            .count(),
        1,
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains(said), "{}", out.stdout);
    assert!(
        out.stdout.contains("Evals: ERROR - the server reported"),
        "{}",
        out.stdout
    );
    let md = dir.read("s.md");
    assert_eq!(
        md.matches("**The tools never reached the model:**").count(),
        1,
        "{md}"
    );
    let junit = dir.read("j.xml");
    assert!(junit.contains("type=\"tools-not-shown\""), "{junit}");
    assert!(junit.contains(said), "{junit}");
    let html = dir.read("r.html");
    assert_eq!(
        html.matches("<h4>The tools never reached the model</h4>")
            .count(),
        1
    );
    assert!(html.contains(said), "{html}");
}

#[test]
fn a_server_that_shows_the_tools_is_not_suspected() {
    let dir = Dir::new("eval-tools-shown");
    let server = llm(&[]);
    let base = format!("{}/v1", server.url);
    local_config(&dir, "  min_accuracy: 0\n", SMALL_TALK_AND_TOOLS);
    let (out, report) = eval_in(&dir, &[], &local_env(&base));
    assert_eq!(out.code, 0, "{out:?}");
    let m = model0(&report);
    assert!(m.get("tools_unseen").is_none(), "{m:#}");
    assert!(
        !out.stdout.contains("never reached the model"),
        "{}",
        out.stdout
    );
    assert_eq!(m["per_tool"][0]["tool"], "add", "{m:#}");
    assert_eq!(m["per_tool"][0]["recall"]["count"], 1, "{m:#}");
    assert_eq!(m["over_trigger"]["of"], 1, "{m:#}");
    assert!(
        out.stdout
            .contains("Tool list sent on every request: about "),
        "{}",
        out.stdout
    );
}

#[test]
fn a_merge_of_shards_keeps_the_tools_not_shown_error() {
    let dir = Dir::new("eval-tools-dropped-merge");
    let server = llm(&["--ignore-tools"]);
    let base = format!("{}/v1", server.url);
    local_config(&dir, "  min_accuracy: 0\n", SMALL_TALK_AND_TOOLS);
    let env = local_env(&base);
    let (full, full_report) = eval_in(&dir, &[], &env);
    assert_eq!(full.code, 1, "{full:?}");
    for k in ["1/2", "2/2"] {
        let json = format!("r{}.json", &k[..1]);
        let args = [
            "eval",
            "-c",
            "toolproof.yaml",
            "--no-cache",
            "--shard",
            k,
            "--json",
            &json,
        ];
        let out = toolproof_in(&dir.0, &args, &env);
        assert!(out.code <= 1, "{out:?}");
    }
    let merged = toolproof_in(
        &dir.0,
        &["merge", "r1.json", "r2.json", "--json", "m.json"],
        &[],
    );
    assert_eq!(merged.code, 1, "{merged:?}");
    let m: Value = serde_json::from_str(&dir.read("m.json")).unwrap_or(Value::Null);
    let times = ["duration_ms", "latency_ms", "started_at"];
    let steady = |v: &Value| super::merge::steady_without(v, &times);
    let evals = |v: &Value| {
        let e = &v["phases"]["evals"];
        (
            e["status"].clone(),
            e["reason"].clone(),
            steady(&e["results"]["models"]),
        )
    };
    assert_eq!(
        evals(&m),
        evals(&full_report),
        "the merged evals differ from the unsharded run"
    );
    assert_eq!(m["phases"]["evals"]["status"], "error");
    assert_eq!(model0(&m)["tools_unseen"]["answers"], 3, "{m:#}");
}
