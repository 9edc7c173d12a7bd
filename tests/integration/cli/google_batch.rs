//! The `google` provider through Gemini Batch Mode, end to end against fake_llm's batch
//! endpoints: the inline requests carry the live bodies and the key in `x-goog-api-key`, the
//! operation is polled through its states, each inline response is read as a live answer
//! (calls, no call, text, an errored request, usage with cached tokens) and cached as one at
//! half the price; `--batch always` is accepted; a batch that expires is resubmitted once, one
//! that fails says so, a base URL without batches is asked live under `auto`; an interrupted
//! batch is picked up by the next run, or cancelled.

use super::batch::{batch_records, cache_files, interrupted_eval, sent, without_usage};
use super::evals::{KEY, eval_in, llm, model0, requests};
use super::google::{google_config, google_env};
use super::*;

/// Cases a live run answers too: a call, a text answer that calls nothing, and a call whose
/// request expires in its first batch.
const ANSWERED: &str = r#"    - name: echoes
      prompt: 'say hi [[call echo {"text": "hi"}]]'
      expect_tool: echo
    - name: chats
      prompt: 'thanks [[text you are welcome]]'
      expect_tool: null
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

/// Distinct input and cached-input rates, so the cached tokens show in the cost.
const PRICES: &str =
    "  prices:\n    fake-model-1: {input: 2.0, output: 4.0, cache_write: 2.0, cache_read: 0.5}\n";

fn is_submit(p: &str) -> bool {
    p == "/v1beta/models/fake-model-1:batchGenerateContent"
}

/// `input * 2 + output * 4 + cache_read * 0.5` per million tokens: the live price of a usage.
fn live_price(u: &Value) -> f64 {
    let n = |k: &str| u[k].as_u64().unwrap_or(0) as f64;
    (n("input_tokens") * 2.0 + n("output_tokens") * 4.0 + n("cache_read_tokens") * 0.5) / 1e6
}

#[test]
fn a_google_batch_answers_like_live_requests_at_half_the_price_in_the_same_cache_files() {
    let extra = format!(
        "  min_accuracy: 0\n  system: You pick tools.\n  batch: always\n  batch_poll_s: 0.001\n{PRICES}"
    );
    // The same cases asked live, for the request bodies and cache files to compare with.
    let live_dir = Dir::new("google-batch-live");
    let live_log = live_dir.path("llm.jsonl").display().to_string();
    let live = llm(&["--log", &live_log]);
    let fake = fake();
    google_config(&live_dir, &[&fake], &extra, ANSWERED);
    let (out, _) = eval_in(&live_dir, &["--batch", "never"], &google_env(&live.url));
    assert_eq!(out.code, 0, "{out:?}");

    let dir = Dir::new("google-batch");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--batch-polls", "2", "--require-key", KEY]);
    google_config(&dir, &[&fake], &extra, &format!("{ANSWERED}{REJECTED}"));
    let (out, report) = eval_in(&dir, &[], &google_env(&server.url));
    assert_eq!(out.code, 0, "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    assert!(
        sent(&log, "POST", |p| p.ends_with(":generateContent")).is_empty(),
        "no live request"
    );
    for r in &log {
        assert_eq!(r["headers"]["x-goog-api-key"], KEY, "{r:#}");
        assert!(r["headers"].get("authorization").is_none());
    }
    let submits = sent(&log, "POST", is_submit);
    assert_eq!(
        submits.len(),
        2,
        "a first batch and the expired request once more"
    );
    let batch = &submits[0]["body"]["batch"];
    assert_eq!(batch["displayName"], "toolproof");
    let first = batch["inputConfig"]["requests"]["requests"]
        .as_array()
        .expect("inline requests");
    assert_eq!(first.len(), 4);
    let again = &submits[1]["body"]["batch"]["inputConfig"]["requests"]["requests"];
    assert_eq!(again.as_array().map(Vec::len), Some(1));
    // Each request is the live request's body, and its key the cache key.
    let live_log = requests(&live_dir, "llm.jsonl");
    let live_bodies: Vec<&Value> = live_log.iter().map(|r| &r["body"]).collect();
    assert_eq!(live_bodies.len(), 3);
    for r in first {
        let rejected = r["request"]["contents"][0]["parts"][0]["text"]
            .as_str()
            .is_some_and(|p| p.starts_with("nope"));
        assert!(
            rejected || live_bodies.contains(&&r["request"]),
            "{:#}",
            r["request"]
        );
        let key = r["metadata"]["key"].as_str().unwrap_or("");
        assert_eq!(key.len(), 64, "{key}");
    }
    // Polled through its states, the results inline.
    let looks = sent(&log, "GET", |p| p.starts_with("/v1beta/batches/"));
    assert!(looks.len() >= 3, "{looks:#?}");
    for state in [
        "BATCH_STATE_PENDING",
        "BATCH_STATE_RUNNING",
        "BATCH_STATE_EXPIRED",
        "BATCH_STATE_SUCCEEDED",
    ] {
        assert!(out.stderr.contains(state), "{state}: {out:?}");
    }
    assert!(
        out.stderr
            .contains("BATCH [fake-model-1] submitted batch batches/"),
        "{out:?}"
    );
    assert!(
        out.stderr.contains("1 requests of batch batches/"),
        "{out:?}"
    );

    let m = model0(&report);
    assert_eq!(m["batched"], 4, "{m:#}");
    let cases = m["cases"].as_array().expect("cases");
    assert_eq!(cases[0]["status"], "correct", "{:#}", cases[0]);
    assert_eq!(cases[1]["status"], "correct", "{:#}", cases[1]);
    assert_eq!(
        cases[2]["status"], "correct",
        "resubmitted once after it expired"
    );
    assert_eq!(cases[3]["status"], "provider_error");
    let failure = cases[3]["trials"][0]["failures"][0].as_str().unwrap_or("");
    assert!(
        failure.contains("google batch request failed: 400 INVALID_ARGUMENT: the params are wrong"),
        "{failure}"
    );
    // Cached as the live run cached them; the record is gone.
    let cached = cache_files(&dir);
    assert_eq!(cached.len(), 3, "{cached:#?}");
    let (cached, cached_usage) = without_usage(&cached);
    let (live_cached, _) = without_usage(&cache_files(&live_dir));
    assert_eq!(cached, live_cached);
    assert_eq!(batch_records(&dir), 0);
    // The usage the API gave, cached tokens apart; the cost is half the live price of it.
    assert!(
        cached_usage
            .iter()
            .any(|u| u["cache_read_tokens"].as_u64().unwrap_or(0) > 0),
        "{cached_usage:#?}"
    );
    let half: f64 = cached_usage.iter().map(live_price).sum::<f64>() / 2.0;
    let cost = m["cost"]["cost_usd"].as_f64().unwrap_or(-1.0);
    assert!(
        half > 0.0 && (cost - half).abs() < 1e-12,
        "{cost} vs {half}"
    );

    // A second run replays the cache: only the rejected case is asked again.
    let (out, _) = eval_in(&dir, &[], &google_env(&server.url));
    assert_eq!(out.code, 0, "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    let submits = sent(&log, "POST", is_submit);
    assert_eq!(submits.len(), 3);
    let last = &submits[2]["body"]["batch"]["inputConfig"]["requests"]["requests"];
    assert_eq!(last.as_array().map(Vec::len), Some(1));
}

#[test]
fn batch_always_is_accepted_for_google_a_failed_or_expired_batch_says_so_and_auto_can_ask_live() {
    let cases = r#"    - prompt: 'one [[call echo {"text": "1"}]]'
      expect_tool: echo
    - prompt: 'two [[call add {"a": 1, "b": 2}]]'
      expect_tool: add
"#;
    let fake = fake();
    // The first batch fails as a whole: every request of it is that error, nothing cached.
    let dir = Dir::new("google-batch-fail");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--batch-fail", "1"]);
    google_config(&dir, &[&fake], "  min_accuracy: 0\n", cases);
    let flags = ["--batch", "always", "--batch-poll-s", "0.001"];
    let (out, report) = eval_in(&dir, &flags, &google_env(&server.url));
    assert_eq!(out.code, 1, "no case got an answer: {out:?}");
    assert!(out.stderr.contains("BATCH_STATE_FAILED"), "{out:?}");
    let m = model0(&report);
    for case in m["cases"].as_array().expect("cases") {
        assert_eq!(case["status"], "provider_error", "{case:#}");
        let failure = case["trials"][0]["failures"][0].as_str().unwrap_or("");
        assert!(
            failure.starts_with("provider error: batch batches/"),
            "{failure}"
        );
        assert!(
            failure.ends_with(" failed: fake_llm: the batch failed (code 13)"),
            "{failure}"
        );
    }
    assert!(cache_files(&dir).is_empty());
    assert_eq!(batch_records(&dir), 0);
    // The next run submits them again, and they are answered.
    let (out, report) = eval_in(&dir, &flags, &google_env(&server.url));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(model0(&report)["correct"], 2);
    assert_eq!(cache_files(&dir).len(), 2);
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(sent(&log, "POST", is_submit).len(), 2);

    // A batch that expires as a whole (no results): its requests go once more, in a new batch.
    let dir = Dir::new("google-batch-expire");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--batch-expire", "1"]);
    google_config(&dir, &[&fake], "", cases);
    let (out, report) = eval_in(&dir, &flags, &google_env(&server.url));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("2 requests of batch batches/")
            && out.stderr.contains("expired: submitting them once more"),
        "{out:?}"
    );
    assert_eq!(model0(&report)["correct"], 2);
    assert_eq!(model0(&report)["batched"], 2);
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(sent(&log, "POST", is_submit).len(), 2);
    assert!(sent(&log, "POST", |p| p.ends_with(":generateContent")).is_empty());

    // A base URL without the batch endpoints (a proxy): `auto` says so and asks live, as
    // for the other providers; `always` stops with the error.
    let dir = Dir::new("google-batch-none");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--no-batches"]);
    google_config(&dir, &[&fake], "  batch_min: 1\n", cases);
    let (out, report) = eval_in(&dir, &flags, &google_env(&server.url));
    assert_eq!(out.code, 1, "{out:?}");
    let error = model0(&report)["error"].as_str().unwrap_or("");
    assert!(
        error.contains("could not submit a batch: google returned 404"),
        "{error}"
    );
    let (out, report) = eval_in(&dir, &[], &google_env(&server.url));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("asking live instead"), "{out:?}");
    assert_eq!(model0(&report)["correct"], 2);
    assert!(model0(&report).get("batched").is_none());
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(
        sent(&log, "POST", |p| p.ends_with(":generateContent")).len(),
        2
    );
}

#[test]
fn an_interrupted_google_batch_is_picked_up_by_the_next_run_or_cancelled() {
    let cases = r#"    - prompt: 'one [[call echo {"text": "1"}]]'
      expect_tool: echo
    - prompt: 'two [[call add {"a": 1, "b": 2}]]'
      expect_tool: add
"#;
    let fake = fake();
    let dir = Dir::new("google-batch-resume");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--batch-polls", "3"]);
    google_config(&dir, &[&fake], "  batch: always\n", cases);
    let env = google_env(&server.url);
    // A poll interval of an hour: only the interrupt ends the first run's wait.
    let (stderr, code) = interrupted_eval(&dir, &["--batch-poll-s", "3600"], &env);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        stderr.contains("keeps running; re-run the same command"),
        "{stderr}"
    );
    assert_eq!(batch_records(&dir), 1, "{stderr}");
    let (out, report) = eval_in(&dir, &["--batch-poll-s", "0.001"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("picked up batch batches/"), "{out:?}");
    let log = requests(&dir, "llm.jsonl");
    assert_eq!(sent(&log, "POST", is_submit).len(), 1, "no second submit");
    assert_eq!(model0(&report)["correct"], 2);
    assert_eq!(model0(&report)["batched"], 2);
    assert_eq!(cache_files(&dir).len(), 2);
    assert_eq!(batch_records(&dir), 0);

    // `--cancel-batch`: the interrupt cancels it at the API.
    let dir = Dir::new("google-batch-cancel");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--batch-polls", "3"]);
    google_config(&dir, &[&fake], "  batch: always\n", cases);
    let env = google_env(&server.url);
    let (stderr, code) =
        interrupted_eval(&dir, &["--batch-poll-s", "3600", "--cancel-batch"], &env);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("cancelled batch batches/"), "{stderr}");
    let log = requests(&dir, "llm.jsonl");
    let cancels = sent(&log, "POST", |p| {
        p.starts_with("/v1beta/batches/") && p.ends_with(":cancel")
    });
    assert_eq!(cancels.len(), 1, "{log:#?}");
    assert_eq!(batch_records(&dir), 0);
}
