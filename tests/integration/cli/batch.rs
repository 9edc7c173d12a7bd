//! Evals through the providers' batch APIs, end to end against the fake batch endpoints of
//! `fake_llm`: submit, polls in progress, results files, errored and expired requests, an
//! expired batch resubmitted once, and a run interrupted while its batch runs and picked up by
//! the next run without a second submit.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use super::evals::{api_config, api_env, eval_in, llm, model0, requests};
use super::*;

/// Two cases a live run answers too.
const ANSWERED: &str = r#"    - name: echoes
      prompt: 'say hi [[call echo {"text": "hi"}]]'
      expect_tool: echo
    - name: adds after an expiry
      prompt: 'add [[call add {"a": 1, "b": 2}]] [[batch-expire times=1]]'
      expect_tool: add
"#;

/// A case whose request the API rejects (live, a 400 stops the phase; in a batch it is that
/// request's error).
const REJECTED: &str = r#"    - name: rejected
      prompt: 'nope [[status 400 msg=the params are wrong]]'
      expect_tool: echo
"#;

/// Requests of the fake's log with this method whose path matches.
pub(super) fn sent<'a>(
    log: &'a [Value],
    method: &str,
    path: impl Fn(&str) -> bool,
) -> Vec<&'a Value> {
    log.iter()
        .filter(|r| r["method"] == method && path(r["path"].as_str().unwrap_or("")))
        .collect()
}

/// The answer cache files under `dir`, by name, with their text.
pub(super) fn cache_files(dir: &Dir) -> std::collections::BTreeMap<String, String> {
    std::fs::read_dir(dir.path(".toolproof-cache/evals"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            (e.file_name().to_string_lossy().into_owned(), text)
        })
        .collect()
}

/// Each cache entry as JSON without its `usage` member, and the usage apart.
pub(super) fn without_usage(
    files: &std::collections::BTreeMap<String, String>,
) -> (std::collections::BTreeMap<String, Value>, Vec<Value>) {
    let mut usage = Vec::new();
    let entries = files
        .iter()
        .map(|(name, text)| {
            let mut entry: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            if let Some(map) = entry.as_object_mut() {
                usage.push(map.remove("usage").unwrap_or(Value::Null));
            }
            (name.clone(), entry)
        })
        .collect();
    (entries, usage)
}

pub(super) fn batch_records(dir: &Dir) -> usize {
    std::fs::read_dir(dir.path(".toolproof-cache/batches"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn an_anthropic_batch_answers_like_live_requests_and_lands_in_the_same_cache_files() {
    // One rate for every input token, so the cost does not depend on which request wrote the
    // prompt cache.
    let extra = "  min_accuracy: 0\n  batch: always\n  batch_poll_s: 0.001\n  prices:\n    fake-model-1: {input: 2.0, output: 4.0, cache_write: 2.0, cache_read: 2.0}\n";
    // The same cases asked live, for the request bodies and cache files to compare with.
    let live_dir = Dir::new("batch-anthropic-live");
    let live_log = live_dir.path("llm.jsonl").display().to_string();
    let live = llm(&["--log", &live_log]);
    api_config(&live_dir, "anthropic", &[], extra, ANSWERED);
    let openai = format!("{}/v1", live.url);
    let (out, live_report) = eval_in(&live_dir, &["--batch", "never"], &api_env(&live, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    let live_cost = model0(&live_report)["cost"]["cost_usd"]
        .as_f64()
        .unwrap_or(-1.0);
    assert!(live_cost > 0.0, "{live_report:#}");

    let dir = Dir::new("batch-anthropic");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--batch-polls", "2"]);
    api_config(
        &dir,
        "anthropic",
        &[],
        extra,
        &format!("{ANSWERED}{REJECTED}"),
    );
    let openai = format!("{}/v1", server.url);
    let (out, report) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    assert!(
        sent(&log, "POST", |p| p == "/v1/messages").is_empty(),
        "no live request"
    );
    let submits = sent(&log, "POST", |p| p == "/v1/messages/batches");
    assert_eq!(
        submits.len(),
        2,
        "a first batch and the expired request once more"
    );
    let first: Vec<&Value> = submits[0]["body"]["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .collect();
    assert_eq!(first.len(), 3);
    assert_eq!(
        submits[1]["body"]["requests"].as_array().map(Vec::len),
        Some(1)
    );
    // Each request's params are the live request's body, and its custom id its cache key.
    let live_log = requests(&live_dir, "llm.jsonl");
    let live_bodies: Vec<&Value> = live_log.iter().map(|r| &r["body"]).collect();
    assert_eq!(live_bodies.len(), 2);
    for r in &first {
        let rejected = r["params"]["messages"][0]["content"]
            .as_str()
            .is_some_and(|p| p.starts_with("nope"));
        assert!(
            rejected || live_bodies.contains(&&r["params"]),
            "{:#}",
            r["params"]
        );
        let id = r["custom_id"].as_str().unwrap_or("");
        assert_eq!(id.len(), 64, "{id}");
    }
    // Polled while in progress, then the results file.
    let looks = sent(&log, "GET", |p| {
        p.starts_with("/v1/messages/batches/") && !p.ends_with("/results")
    });
    assert!(looks.len() >= 3, "{looks:#?}");
    assert_eq!(sent(&log, "GET", |p| p.ends_with("/results")).len(), 2);

    let m = model0(&report);
    assert_eq!(m["batched"], 3, "{m:#}");
    // A batch costs half the live price.
    let batch_cost = m["cost"]["cost_usd"].as_f64().unwrap_or(-1.0);
    assert!(
        (batch_cost - live_cost / 2.0).abs() < 1e-12,
        "{batch_cost} vs {live_cost}"
    );
    let cases = m["cases"].as_array().expect("cases");
    assert_eq!(cases[0]["status"], "correct");
    assert_eq!(
        cases[1]["status"], "correct",
        "resubmitted once after it expired"
    );
    assert_eq!(cases[2]["status"], "provider_error");
    let failure = cases[2]["trials"][0]["failures"][0].as_str().unwrap_or("");
    assert!(failure.contains("the params are wrong"), "{failure}");
    // The answers are cached byte for byte as the live run cached them; the record is gone.
    let cached = cache_files(&dir);
    assert_eq!(cached.len(), 2, "{cached:#?}");
    // The usage beside each answer is the API's: which request wrote the prompt cache and
    // which read it depends on the order the batch ran them in, so it is compared apart.
    let (cached, cached_usage) = without_usage(&cached);
    let (live, live_usage) = without_usage(&cache_files(&live_dir));
    assert_eq!(cached, live);
    for (batch, live) in cached_usage.iter().zip(&live_usage) {
        let total = |u: &Value| {
            ["input_tokens", "cache_write_tokens", "cache_read_tokens"]
                .iter()
                .map(|k| u[*k].as_u64().unwrap_or(0))
                .sum::<u64>()
        };
        assert!(batch.is_object(), "a batch answer keeps its usage: {batch}");
        assert_eq!(total(batch), total(live), "{batch} {live}");
        assert_eq!(batch["output_tokens"], live["output_tokens"]);
    }
    assert_eq!(batch_records(&dir), 0);
    assert!(
        out.stderr
            .contains("BATCH [fake-model-1] submitted batch msgbatch_"),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("Cache: 0 cached, 3 asked (2 answered, 1 failed), 3 through a batch"),
        "{out:?}"
    );
    // A second run replays the cache: no batch at all.
    let (out, _) = eval_in(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(
        sent(&log, "POST", |p| p == "/v1/messages/batches").len(),
        3,
        "only the rejected case again"
    );
}

#[test]
fn an_openai_batch_uploads_a_jsonl_file_and_an_expired_batch_is_resubmitted_once() {
    let dir = Dir::new("batch-openai");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--batch-polls", "2", "--batch-expire", "1"]);
    let cases = r#"    - name: echoes
      prompt: 'say hi [[call echo {"text": "hi"}]]'
      expect_tool: echo
    - name: rejected
      prompt: 'nope [[status 400 msg=no such model]]'
      expect_tool: echo
"#;
    api_config(
        &dir,
        "openai",
        &[],
        "  min_accuracy: 0\n  batch_min: 1\n",
        cases,
    );
    let openai = format!("{}/v1", server.url);
    let (out, report) = eval_in(
        &dir,
        &["--batch-poll-s", "0.001"],
        &api_env(&server, &openai),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    assert!(sent(&log, "POST", |p| p == "/v1/chat/completions").is_empty());
    let uploads = sent(&log, "POST", |p| p == "/v1/files");
    assert_eq!(
        uploads.len(),
        2,
        "the batch, and once more after it expired"
    );
    let form = uploads[0]["body"].as_str().unwrap_or("");
    assert!(form.contains("name=\"purpose\"\r\n\r\nbatch\r\n"), "{form}");
    let line = form
        .lines()
        .find(|l| l.starts_with("{\"custom_id\""))
        .unwrap_or_else(|| panic!("no request line in {form}"));
    let line: Value = serde_json::from_str(line).unwrap_or(Value::Null);
    assert_eq!(line["method"], "POST");
    assert_eq!(line["url"], "/v1/chat/completions");
    assert_eq!(line["body"]["model"], "fake-model-1");
    assert_eq!(line["body"]["tool_choice"], "auto");
    let creates = sent(&log, "POST", |p| p == "/v1/batches");
    assert_eq!(creates.len(), 2);
    assert_eq!(creates[0]["body"]["endpoint"], "/v1/chat/completions");
    assert_eq!(creates[0]["body"]["completion_window"], "24h");
    assert!(
        !sent(&log, "GET", |p| p.starts_with("/v1/files/")
            && p.ends_with("/content"))
        .is_empty()
    );
    let m = model0(&report);
    assert_eq!(m["batched"], 2);
    let cases = m["cases"].as_array().expect("cases");
    assert_eq!(cases[0]["status"], "correct", "{:#}", cases[0]);
    assert_eq!(cases[1]["status"], "provider_error");
    let failure = cases[1]["trials"][0]["failures"][0].as_str().unwrap_or("");
    assert!(failure.contains("no such model"), "{failure}");
    assert_eq!(cache_files(&dir).len(), 1);
    assert_eq!(batch_records(&dir), 0);
}

#[test]
fn auto_batches_only_above_batch_min_and_the_command_provider_never() {
    let dir = Dir::new("batch-auto");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log]);
    let cases = "    - prompt: echo this\n      expect_tool: echo\n    - prompt: add these\n      expect_tool: add\n";
    api_config(
        &dir,
        "anthropic",
        &[],
        "  min_accuracy: 0\n  batch_poll_s: 0.001\n",
        cases,
    );
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    let mut with_min = env.clone();
    with_min.push(("TOOLPROOF_BATCH_MIN", "2"));
    let (out, report) = eval_in(&dir, &[], &with_min);
    assert_eq!(out.code, 0, "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(
        sent(&log, "POST", |p| p == "/v1/messages").len(),
        2,
        "2 is not above 2: live"
    );
    assert!(model0(&report).get("batched").is_none());
    let (out, report) = eval_in(&dir, &["--no-cache", "--batch-min", "1"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(sent(&log, "POST", |p| p == "/v1/messages/batches").len(), 1);
    assert_eq!(model0(&report)["batched"], 2);

    let cmd = Dir::new("batch-command");
    super::evals::command_config(
        &cmd,
        "  min_accuracy: 0\n",
        "    - prompt: 'x [[call echo {}]]'\n      expect_tool: echo\n",
    );
    let (out, _) = eval_in(&cmd, &["--batch", "always"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("--batch is `always`, but the command provider has no batch API"),
        "{out:?}"
    );
    let (out, _) = eval_in(&cmd, &[], &[("TOOLPROOF_BATCH", "sometimes")]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains(
            "TOOLPROOF_BATCH=\"sometimes\" is not valid: `sometimes` is not auto, always or never"
        ),
        "{out:?}"
    );
    let (out, _) = eval_in(&cmd, &[], &[("TOOLPROOF_BATCH_MIN", "0")]);
    assert_eq!(out.code, 0, "auto never batches a local program: {out:?}");
}

/// Starts `toolproof eval` in `dir` with stderr piped.
pub(super) fn spawn_eval(dir: &Dir, extra: &[&str], env: &[(&str, &str)]) -> std::process::Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolproof"));
    cmd.args(["eval", "-c", "toolproof.yaml", "--json", "r.json"])
        .args(extra)
        .current_dir(&dir.0)
        .env("CI", "true")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("start toolproof")
}

/// Runs `eval` until it says it submitted its batch, then sends it SIGINT; returns its stderr
/// and exit code.
pub(super) fn interrupted_eval(
    dir: &Dir,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (String, Option<i32>) {
    let mut child = spawn_eval(dir, extra, env);
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap_or_default();
        let submitted = line.contains("submitted batch");
        seen.push(line);
        if submitted {
            break;
        }
    }
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill -INT: {seen:#?}");
    seen.extend(lines.map(Result::unwrap_or_default));
    let status = child.wait().expect("wait");
    (seen.join("\n"), status.code())
}

#[test]
fn an_interrupted_batch_keeps_running_and_the_next_run_picks_it_up_without_a_second_submit() {
    let dir = Dir::new("batch-resume");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--batch-polls", "3"]);
    let cases = r#"    - prompt: 'one [[call echo {"text": "1"}]]'
      expect_tool: echo
    - prompt: 'two [[call add {"a": 1, "b": 2}]]'
      expect_tool: add
"#;
    api_config(&dir, "anthropic", &[], "  batch: always\n", cases);
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    // A poll interval of an hour: only the interrupt ends the first run's wait.
    let (stderr, code) = interrupted_eval(&dir, &["--batch-poll-s", "3600"], &env);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        stderr.contains("keeps running; re-run the same command"),
        "{stderr}"
    );
    assert_eq!(batch_records(&dir), 1, "{stderr}");
    assert!(cache_files(&dir).is_empty());

    let (out, report) = eval_in(&dir, &["--batch-poll-s", "0.001"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("picked up batch"), "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(
        sent(&log, "POST", |p| p == "/v1/messages/batches").len(),
        1,
        "no second submit"
    );
    assert!(sent(&log, "POST", |p| p == "/v1/messages").is_empty());
    assert_eq!(model0(&report)["correct"], 2);
    assert_eq!(model0(&report)["batched"], 2);
    assert_eq!(cache_files(&dir).len(), 2);
    assert_eq!(
        batch_records(&dir),
        0,
        "the record goes once the results are cached"
    );
}

#[test]
fn cancel_batch_cancels_the_batch_on_an_interrupt() {
    let dir = Dir::new("batch-cancel");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--batch-polls", "3"]);
    let cases = "    - prompt: 'one [[call echo {}]]'\n      expect_tool: echo\n";
    api_config(&dir, "openai", &[], "  batch: always\n", cases);
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    let (stderr, code) =
        interrupted_eval(&dir, &["--batch-poll-s", "3600", "--cancel-batch"], &env);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("cancelled batch"), "{stderr}");
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(
        sent(&log, "POST", |p| p.starts_with("/v1/batches/")
            && p.ends_with("/cancel"))
        .len(),
        1
    );
    assert_eq!(batch_records(&dir), 0);
}

#[test]
fn auto_asks_live_where_there_is_no_batch_api_and_always_says_why_it_cannot() {
    let dir = Dir::new("batch-none");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--no-batches"]);
    let cases = r#"    - prompt: 'one [[call echo {"text": "1"}]]'
      expect_tool: echo
    - prompt: 'two [[call add {"a": 1, "b": 2}]]'
      expect_tool: add
"#;
    api_config(&dir, "openai", &[], "  batch_min: 1\n", cases);
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    let (out, report) = eval_in(&dir, &["--batch", "always"], &env);
    assert_eq!(out.code, 1, "{out:?}");
    let error = model0(&report)["error"].as_str().unwrap_or("");
    assert!(
        error.contains("could not submit a batch: openai returned 404"),
        "{error}"
    );
    assert!(cache_files(&dir).is_empty());
    let (out, report) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("asking live instead"), "{out:?}");
    assert_eq!(model0(&report)["correct"], 2);
    assert!(model0(&report).get("batched").is_none());
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(sent(&log, "POST", |p| p == "/v1/chat/completions").len(), 2);
}

#[test]
fn a_recorded_batch_the_provider_no_longer_knows_is_dropped_and_submitted_again() {
    let dir = Dir::new("batch-gone");
    let port = toolproof_test_support::free_port().to_string();
    let cases = "    - prompt: 'one [[call echo {\"text\": \"1\"}]]'\n      expect_tool: echo\n";
    api_config(&dir, "anthropic", &[], "  batch: always\n", cases);
    {
        let first = llm(&["--port", &port, "--batch-polls", "5"]);
        let openai = format!("{}/v1", first.url);
        let (stderr, code) =
            interrupted_eval(&dir, &["--batch-poll-s", "3600"], &api_env(&first, &openai));
        assert_eq!(code, Some(130), "{stderr}");
        assert_eq!(batch_records(&dir), 1);
    }
    // The same host and port, but a server that never saw the batch.
    let second = llm(&["--port", &port]);
    let openai = format!("{}/v1", second.url);
    let env = api_env(&second, &openai);
    let (out, report) = eval_in(&dir, &["--batch-poll-s", "0.001"], &env);
    assert_eq!(out.code, 1, "{out:?}");
    let error = model0(&report)["error"].as_str().unwrap_or("");
    assert!(
        error.contains("is no longer known to the provider"),
        "{error}"
    );
    assert_eq!(batch_records(&dir), 0);
    let (out, report) = eval_in(&dir, &["--batch-poll-s", "0.001"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(model0(&report)["batched"], 1);
}
