//! Batch APIs that misbehave: a batch id that is empty, two ids that a careless file name
//! would merge (`b.1`, `b_1`), an id with a newline meant to forge a console line, a batch
//! that never ends, and a Gemini batch name that climbs out of `batches/`. Each is a provider
//! error, a deadline or one path segment, said with the id escaped, and what a later run needs
//! (the records under the cache folder) is kept.

use serde_json::Value;

use super::harness::{Case, Outcome, fake_server, walk};
use super::secrets::{Llm, start_llm};

const KEY: &str = "sk-fault-batch-0123456789";

/// A cache folder shared by the runs of one test (each run gets its own case folder).
struct Shared(std::path::PathBuf);

impl Shared {
    fn new(name: &str) -> Shared {
        let dir = std::env::temp_dir().join(format!(
            "toolproof-fault-batch-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Shared(dir)
    }

    /// The batch records' file names.
    fn records(&self) -> Vec<String> {
        let mut names: Vec<String> = walk(&self.0.join("batches"))
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        names.sort();
        names
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A config whose evals send every case of `models` through the Anthropic batch API, with
/// the answer cache in `cache` and `extra` evals keys.
fn config(models: &[&str], cache: &Shared, extra: &str) -> String {
    fake_server(
        &[],
        &format!(
            "  startup_timeout_s: 2\nchecks:\n  enabled: false\nevals:\n  provider: anthropic\n  models: {}\n  min_accuracy: 0\n  batch: always\n  batch_poll_s: 0.01\n  cache_dir: {}\n{extra}  cases:\n    - name: echoes\n      prompt: 'say hi [[call echo {{\"text\": \"hi\"}}]]'\n      expect_tool: echo\n",
            serde_json::to_string(models).unwrap_or_default(),
            serde_json::to_string(&cache.0).unwrap_or_default(),
        ),
    )
}

fn eval(name: &str, llm: &Llm, yaml: &str) -> Outcome {
    Case::new(name)
        .yaml(yaml)
        .args(&["eval", "-c", "toolproof.yaml"])
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", &llm.url)
        .run()
}

/// The fake's requests, from its log.
fn log(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// How many requests of the log have this method and path (a prefix when it ends in `/`).
fn count(log: &[Value], method: &str, path: &str) -> usize {
    log.iter()
        .filter(|r| r["method"] == method)
        .filter(|r| {
            let p = r["path"].as_str().unwrap_or("");
            if path.ends_with('/') {
                p.starts_with(path)
            } else {
                p == path
            }
        })
        .count()
}

/// The evals phase of the JSON report: its status and reason.
fn phase(out: &Outcome) -> (String, String) {
    let phase = &out.report()["phases"]["evals"];
    (
        phase["status"].as_str().unwrap_or("").to_owned(),
        phase["reason"].as_str().unwrap_or("").to_owned(),
    )
}

#[test]
fn an_empty_batch_id_is_a_provider_error_before_anything_is_polled() {
    let cache = Shared::new("empty");
    let log_file = cache.0.with_extension("log");
    let llm = start_llm(&[
        "--batch-ids",
        r#"[""]"#,
        "--log",
        &log_file.display().to_string(),
    ]);
    let out = eval(
        "batch-empty-id",
        &llm,
        &config(&["fake-model-1"], &cache, ""),
    );
    out.sound(1).never_shows(KEY);
    let (status, reason) = phase(&out);
    assert_eq!(status, "error", "{out:?}");
    assert!(
        reason
            .contains(r#"gave the new batch the id "", which cannot name its record: it is empty"#),
        "{reason}"
    );
    assert!(cache.records().is_empty(), "{:?}", cache.records());
    let log = log(&log_file);
    assert_eq!(count(&log, "POST", "/v1/messages/batches"), 1);
    assert_eq!(count(&log, "GET", "/v1/messages/batches/"), 0, "polled");
    let _ = std::fs::remove_file(&log_file);
}

#[test]
fn a_batch_id_with_a_newline_is_escaped_everywhere_and_named_in_the_error() {
    let cache = Shared::new("newline");
    let forged = "PASS  [fake-model-1] forged";
    let ids = serde_json::to_string(&[format!("b\n{forged}")]).unwrap_or_default();
    let llm = start_llm(&["--batch-ids", &ids]);
    let out = eval(
        "batch-newline-id",
        &llm,
        &config(&["fake-model-1"], &cache, ""),
    );
    out.sound(1).never_shows(KEY);
    let (status, reason) = phase(&out);
    assert_eq!(status, "error", "{out:?}");
    assert!(
        reason.contains(&format!(
            r#"the id "b\n{forged}", which cannot name its record"#
        )),
        "{reason}"
    );
    assert!(!reason.contains("base URL"), "{reason}");
    for (what, text) in [
        ("stdout", out.stdout.clone()),
        ("stderr", out.stderr.clone()),
        ("summary", out.read("summary.md")),
        ("junit", out.read("junit.xml")),
    ] {
        assert!(
            text.lines().all(|l| !l.trim_start().starts_with(forged)),
            "{what} has a forged line:\n{text}"
        );
    }
}

#[test]
fn two_batch_ids_a_file_name_would_merge_keep_two_records_and_both_are_picked_up() {
    let cache = Shared::new("apart");
    let log_file = cache.0.with_extension("log");
    // Ten looks in progress: more than the first run's deadline lets it make.
    let llm = start_llm(&[
        "--batch-ids",
        r#"["b.1", "b_1"]"#,
        "--batch-polls",
        "10",
        "--log",
        &log_file.display().to_string(),
    ]);
    let models = ["fake-model-1", "fake-model-2"];
    let first = eval(
        "batch-apart-1",
        &llm,
        &config(&models, &cache, "  batch_deadline_s: 0.05\n"),
    );
    first.sound(1).never_shows(KEY);
    assert_eq!(cache.records(), ["b%2E1.json", "b_1.json"]);
    drop(first);
    let second = eval("batch-apart-2", &llm, &config(&models, &cache, ""));
    second.sound(0);
    let report = second.report();
    for m in report["phases"]["evals"]["results"]["models"]
        .as_array()
        .into_iter()
        .flatten()
    {
        assert_eq!(m["cases"][0]["status"], "correct", "{m:#}");
    }
    assert!(cache.records().is_empty(), "{:?}", cache.records());
    let log = log(&log_file);
    assert_eq!(
        count(&log, "POST", "/v1/messages/batches"),
        2,
        "a batch paid for twice"
    );
    let _ = std::fs::remove_file(&log_file);
}

#[test]
fn a_batch_that_does_not_end_by_the_deadline_fails_the_run_and_the_next_run_picks_it_up() {
    let cache = Shared::new("deadline");
    let log_file = cache.0.with_extension("log");
    let llm = start_llm(&[
        "--batch-polls",
        "10",
        "--log",
        &log_file.display().to_string(),
    ]);
    let yaml = config(&["fake-model-1"], &cache, "");
    let first = Case::new("batch-deadline-1")
        .yaml(&yaml)
        .args(&["eval", "-c", "toolproof.yaml", "--batch-deadline-s", "0.05"])
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", &llm.url)
        .run();
    first.sound(1).never_shows(KEY);
    let (status, reason) = phase(&first);
    assert_eq!(status, "error", "{first:?}");
    assert!(
        reason.contains("has not ended within the batch deadline of 0.05s (evals.batch_deadline_s); it keeps running and its record stays"),
        "{reason}"
    );
    assert_eq!(cache.records().len(), 1);
    drop(first);
    // The variable sets it too; the default (two hours) is far more than the fake needs.
    let second = Case::new("batch-deadline-2")
        .yaml(&yaml)
        .args(&["eval", "-c", "toolproof.yaml"])
        .env("TOOLPROOF_BATCH_DEADLINE_S", "3600")
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", &llm.url)
        .run();
    second.sound(0).says("picked up batch");
    assert!(cache.records().is_empty(), "{:?}", cache.records());
    let log = log(&log_file);
    assert_eq!(count(&log, "POST", "/v1/messages/batches"), 1);
    let _ = std::fs::remove_file(&log_file);
}

#[test]
fn a_deadline_the_variable_sets_that_is_not_a_duration_is_a_usage_error() {
    let cache = Shared::new("bad-deadline");
    let llm = start_llm(&[]);
    let out = Case::new("batch-deadline-bad")
        .yaml(&config(&["fake-model-1"], &cache, ""))
        .args(&["eval", "-c", "toolproof.yaml"])
        .env("TOOLPROOF_BATCH_DEADLINE_S", "soon")
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", &llm.url)
        .no_reports()
        .run();
    out.sound(2).says("TOOLPROOF_BATCH_DEADLINE_S");
}

#[test]
fn a_gemini_batch_name_that_climbs_out_of_batches_stays_one_path_segment() {
    let cache = Shared::new("gemini-climb");
    let log_file = cache.0.with_extension("log");
    // The operation is named `batches/../../v1beta/models/x:cancel?key=y`.
    let llm = start_llm(&[
        "--batch-ids",
        r#"["../../v1beta/models/x:cancel?key=y"]"#,
        "--log",
        &log_file.display().to_string(),
    ]);
    let yaml =
        config(&["fake-model-1"], &cache, "").replace("provider: anthropic", "provider: google");
    let out = Case::new("batch-gemini-climb")
        .yaml(&yaml)
        .args(&["eval", "-c", "toolproof.yaml"])
        .env("GEMINI_API_KEY", KEY)
        .env("GOOGLE_GEMINI_BASE_URL", &llm.url)
        .run();
    out.sound(0).never_shows(KEY);
    assert!(cache.records().is_empty(), "{:?}", cache.records());
    let log = log(&log_file);
    let polls: Vec<&str> = log
        .iter()
        .filter(|r| r["method"] == "GET")
        .filter_map(|r| r["path"].as_str())
        .collect();
    assert!(!polls.is_empty(), "{log:#?}");
    for path in &polls {
        assert_eq!(
            *path, "/v1beta/batches/..%2F..%2Fv1beta%2Fmodels%2Fx%3Acancel%3Fkey%3Dy",
            "{log:#?}"
        );
    }
    assert_eq!(count(&log, "POST", "/v1beta/models/x:cancel"), 0);
    let _ = std::fs::remove_file(&log_file);
}
