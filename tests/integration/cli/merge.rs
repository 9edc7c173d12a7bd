//! `toolproof merge` end to end: the JSON reports of the jobs of one run split over a CI
//! matrix (a job per model, or shards of the cases and tests) merged back, compared with the
//! same run unsharded; and the reports it refuses.

use super::evals::picker;
use super::*;

/// Every key whose value differs between two runs of the same thing: times and durations.
const VOLATILE: [&str; 4] = ["duration_ms", "duration_s", "started_at", "latency_ms"];

/// The report without its times and the config digest (the tests here split the config by
/// hand, and set the shards' digests).
fn steady(v: &Value) -> Value {
    steady_without(v, &["config_digest"])
}

/// The report without its times and the keys `also`, at any depth.
pub(super) fn steady_without(v: &Value, also: &[&str]) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !VOLATILE.contains(&k.as_str()) && !also.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), steady_without(v, also)))
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|i| steady_without(i, also)).collect())
        }
        other => other.clone(),
    }
}

/// Each JUnit testcase as `classname/name: status` (`passed`, `failure`, `error`, `skipped`).
pub(super) fn junit_cases(xml: &str) -> Vec<String> {
    let attr = |tag: &str, name: &str| {
        let key = format!(" {name}=\"");
        tag.split_once(&key)
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(v, _)| v.to_owned())
            .unwrap_or_default()
    };
    xml.split("<testcase")
        .skip(1)
        .map(|case| {
            let tag = case.split('>').next().unwrap_or("");
            let body = if tag.ends_with('/') {
                ""
            } else {
                case.split("</testcase>").next().unwrap_or("")
            };
            let status = ["failure", "error", "skipped"]
                .into_iter()
                .find(|s| body.contains(&format!("<{s}")))
                .unwrap_or("passed");
            format!("{}/{}: {status}", attr(tag, "classname"), attr(tag, "name"))
        })
        .collect()
}

pub(super) fn report(dir: &Dir, name: &str) -> Value {
    serde_json::from_str(&dir.read(name)).unwrap_or(Value::Null)
}

/// Edits a report in place.
fn edit(dir: &Dir, name: &str, change: impl FnOnce(&mut Value)) {
    let mut v = report(dir, name);
    change(&mut v);
    dir.write(name, &serde_json::to_string_pretty(&v).unwrap_or_default());
}

/// Runs `toolproof` in `dir/sub` and returns its output.
fn toolproof_at(dir: &Dir, sub: &str, args: &[&str]) -> Out {
    toolproof_in(&dir.0.join(sub), args, &[])
}

/// Merges `inputs` in `dir` into `m.json`, `m.xml` and `m.md`.
fn merge(dir: &Dir, inputs: &[&str], extra: &[&str]) -> Out {
    let mut args = vec!["merge"];
    args.extend_from_slice(inputs);
    args.extend_from_slice(&["--json", "m.json", "--junit", "m.xml", "--summary", "m.md"]);
    args.extend_from_slice(extra);
    toolproof_in(&dir.0, &args, &[])
}

/// Asserts the merged run is the unsharded one: exit code, every JSON field but the times, and
/// the JUnit testcases.
fn assert_same_run(dir: &Dir, merged: &Out, full: &Out, full_json: &str, full_xml: &str) {
    assert_eq!(merged.code, full.code, "{merged:?}");
    let (m, f) = (
        steady(&report(dir, "m.json")),
        steady(&report(dir, full_json)),
    );
    for key in ["passed", "exit_code", "command", "target", "config_file"] {
        assert_eq!(m[key], f[key], "{key}");
    }
    for (phase, _) in f["phases"].as_object().into_iter().flatten() {
        assert_eq!(
            m["phases"][phase], f["phases"][phase],
            "phase {phase} differs:\nmerged {:#}\nfull {:#}",
            m["phases"][phase], f["phases"][phase]
        );
    }
    assert_eq!(m, f, "the merged report differs from the unsharded one");
    assert_eq!(
        junit_cases(&dir.read("m.xml")),
        junit_cases(&dir.read(full_xml))
    );
    assert!(!junit_cases(&dir.read("m.xml")).is_empty());
}

const MODEL_CASES: &str = r#"    - name: adds
      prompt: 'add [[call:m-a add {"a": 1, "b": 2}]] [[call:m-b add {"a": 1, "b": 2}]]'
      expect_tool: add
    - name: echoes
      prompt: 'say [[call:m-a echo {"text": "x"}]] [[call:m-b add {"a": 1, "b": 1}]]'
      expect_tool: echo
      critical: true
    - name: nothing
      prompt: thanks [[none]]
      expect_tool: null
"#;

#[test]
fn a_job_per_model_merges_into_the_run_of_both_models() {
    let dir = Dir::new("merge-models");
    let server = yaml_list(&[&fake()]);
    let command = yaml_list(&[&picker()]);
    let config = format!(
        "server:\n  command: {server}\nevals:\n  provider: command\n  command: {command}\n  models: [m-a, m-b]\n  min_accuracy: 0.6\n  cases:\n{MODEL_CASES}"
    );
    dir.write("toolproof.yaml", &config);
    let eval = |extra: &[&str]| {
        let mut args = vec!["eval", "-c", "toolproof.yaml"];
        args.extend_from_slice(extra);
        toolproof_at(&dir, "", &args)
    };
    let full = eval(&[
        "--json",
        "full.json",
        "--junit",
        "full.xml",
        "--history",
        "hf.jsonl",
    ]);
    assert_eq!(full.code, 1, "m-b misses the critical case: {full:?}");
    let a = eval(&["--model", "m-a", "--json", "a.json"]);
    let b = eval(&["--model", "m-b", "--json", "b.json"]);
    assert_eq!((a.code, b.code), (0, 1), "{a:?} {b:?}");
    let merged = merge(
        &dir,
        &["a.json", "b.json"],
        &[
            "--history",
            "hm.jsonl",
            "--pr-comment",
            "always",
            "--pr-comment-file",
            "c.md",
        ],
    );
    // The history file gets what the run gets: a trend, so the reports compare without it.
    let strip_trend = |dir: &Dir, name: &str| {
        edit(dir, name, |v| {
            v["phases"]["evals"]["results"]["history"] = Value::Null;
            v.as_object_mut().map(|o| o.remove("history"));
        });
    };
    let lines = |name: &str| -> Vec<Value> {
        dir.read(name)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    };
    let (hf, hm) = (lines("hf.jsonl"), lines("hm.jsonl"));
    assert_eq!(hm.len(), 2, "one line per model, as the run writes");
    for (m, f) in hm.iter().zip(&hf) {
        assert_eq!(
            (&m["model"], &m["miss_rate"]),
            (&f["model"], &f["miss_rate"])
        );
    }
    assert!(
        dir.read("c.md").contains("m-b"),
        "one PR comment for the merged run"
    );
    strip_trend(&dir, "full.json");
    strip_trend(&dir, "m.json");
    assert_same_run(&dir, &merged, &full, "full.json", "full.xml");
    let m = report(&dir, "m.json");
    assert_eq!(
        m["phases"]["evals"]["results"]["models"][1]["gates"][1]["name"],
        "critical"
    );
    assert!(dir.read("m.md").contains("m-a"), "one job summary");
}

/// The cases and tests of the full config; a shard keeps its own and blanks the others'
/// lines, so every line number stays the full config's.
const SPLIT: &str = r#"tests:
  - name: echo answers                   #1
    tool: echo
    args: {text: hi}
    expect: {is_error: false}
  - name: add answers                    #2
    tool: add
    args: {a: 2, b: 3}
    expect: {equals: {result: 5.0}}
evals:
  provider: command
  command: COMMAND
  min_accuracy: 0.7
  min_wilson_lower: 0.3
  trials: 2
  cases:
    - name: one                          #1
      prompt: 'one [[call add {"a": 1, "b": 1}]]'
      expect_tool: add
    - name: two                          #2
      prompt: 'two [[call echo {"text": "x"}]]'
      expect_tool: add
    - name: three                        #1
      prompt: 'three [[call echo {"text": "x"}]]'
      expect_tool: echo
    - name: four                         #2
      prompt: 'four [[none]]'
      expect_tool: null
    - name: five                         #1
      prompt: 'five [[call add {"a": 1, "b": 1}]]'
      expect_tool: add
      critical: true
    - name: six                          #2
      prompt: 'six [[call add {"a": 1, "b": 1}]]'
      expect_tool: add
"#;

/// The config of shard `k` of 2 (`0`: the whole config): an entry (its name line and the
/// indented lines after it) marked for the other shard becomes comment lines.
fn split_config(k: u32) -> String {
    let server = yaml_list(&[&fake()]);
    let command = yaml_list(&[&picker()]);
    let mut out = format!("server:\n  command: {server}\n");
    let mut blank = false;
    for line in SPLIT.replace("COMMAND", &command).lines() {
        if line.trim_start().starts_with("- ") {
            blank = k != 0 && !line.ends_with(&format!("#{k}"));
        } else if !line.starts_with("    ") {
            blank = false;
        }
        if blank {
            out.push_str("    # in the other shard\n");
        } else {
            out.push_str(line.split("  #").next().unwrap_or(line).trim_end());
            out.push('\n');
        }
    }
    out
}

/// Two shards of a `run` (shard 1 with the static checks), as `--shard K/2` would make them.
fn two_shards(dir: &Dir) -> (Out, Out, Out) {
    std::fs::create_dir_all(dir.path("s1")).ok();
    std::fs::create_dir_all(dir.path("s2")).ok();
    dir.write("toolproof.yaml", &split_config(0));
    dir.write("s1/toolproof.yaml", &split_config(1));
    dir.write("s2/toolproof.yaml", &split_config(2));
    let run = |sub: &str, extra: &[&str]| {
        let mut args = vec!["run", "toolproof.yaml", "--skip-lint"];
        args.extend_from_slice(extra);
        toolproof_at(dir, sub, &args)
    };
    let full = run("", &["--json", "full.json", "--junit", "full.xml"]);
    let s1 = run("s1", &["--json", "../r1.json"]);
    let s2 = run("s2", &["--json", "../r2.json", "--no-checks"]);
    for (k, name) in [(1, "r1.json"), (2, "r2.json")] {
        edit(dir, name, |v| {
            v["shard"] = serde_json::json!({"index": k, "count": 2});
            v["config_digest"] = "d1gest".into();
        });
    }
    (full, s1, s2)
}

#[test]
fn shards_of_the_cases_and_tests_merge_into_the_unsharded_run() {
    let dir = Dir::new("merge-shards");
    let (full, s1, s2) = two_shards(&dir);
    // 5 of 6 cases right meets the 70% minimum; shard 2 alone (2 of 3) does not. The gate of
    // the merged run is scored again over the union, not taken from a shard.
    assert_eq!(full.code, 0, "{full:?}");
    assert_eq!((s1.code, s2.code), (0, 1), "{s1:?} {s2:?}");
    let merged = merge(&dir, &["r2.json", "r1.json"], &[]);
    edit(&dir, "m.json", |v| {
        assert_eq!(v["config_digest"], "d1gest");
        v.as_object_mut().map(|o| o.remove("config_digest"));
    });
    assert_same_run(&dir, &merged, &full, "full.json", "full.xml");
    let m = report(&dir, "m.json");
    let model = &m["phases"]["evals"]["results"]["models"][0];
    assert_eq!((&model["total"], &model["correct"]), (&6.into(), &5.into()));
    assert_eq!(model["passed"], true);
    let names: Vec<&str> = m["phases"]["tests"]["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["echo answers", "add answers"]);
    assert_eq!(m["phases"]["checks"]["status"], "passed");
}

/// Runs a merge that must be refused, and returns its stderr.
fn refused(dir: &Dir, inputs: &[&str]) -> String {
    let out = merge(dir, inputs, &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("hint:"), "{out:?}");
    assert!(!dir.path("m.json").exists(), "nothing written: {out:?}");
    out.stderr
}

#[test]
fn reports_of_another_run_or_missing_and_duplicated_shards_are_refused() {
    let dir = Dir::new("merge-refused");
    two_shards(&dir);
    let copy = |from: &str, to: &str, change: &dyn Fn(&mut Value)| {
        dir.write(to, &dir.read(from));
        edit(&dir, to, change);
    };
    copy("r2.json", "digest.json", &|v| {
        v["config_digest"] = "other".into()
    });
    let e = refused(&dir, &["r1.json", "digest.json"]);
    assert!(
        e.contains("different configs") && e.contains("digest.json"),
        "{e}"
    );
    copy("r2.json", "version.json", &|v| {
        v["generator"]["version"] = "0.0.1".into()
    });
    let e = refused(&dir, &["r1.json", "version.json"]);
    assert!(
        e.contains("different toolproof versions") && e.contains("0.0.1"),
        "{e}"
    );
    copy("r2.json", "of3.json", &|v| v["shard"]["count"] = 3.into());
    copy("r1.json", "one-of3.json", &|v| {
        v["shard"]["count"] = 3.into()
    });
    let e = refused(&dir, &["one-of3.json", "of3.json"]);
    assert!(e.contains("shard 3/3 is missing"), "{e}");
    let e = refused(&dir, &["r1.json", "r2.json", "r1.json"]);
    assert!(
        e.contains("duplicated shard") && e.contains("r1.json"),
        "{e}"
    );
    // Shard 1's report again, called shard 2: its tests and cases are in two shards.
    copy("r1.json", "again.json", &|v| v["shard"]["index"] = 2.into());
    let e = refused(&dir, &["r1.json", "again.json"]);
    assert!(
        e.contains("duplicated shard") && e.contains("is in r1.json and in again.json"),
        "{e}"
    );
    dir.write("not.json", "hello");
    let e = refused(&dir, &["r1.json", "not.json"]);
    assert!(e.contains("not.json is not a toolproof JSON report"), "{e}");
    dir.write("other.json", "{\"name\": \"x\"}");
    let e = refused(&dir, &["r1.json", "other.json"]);
    assert!(
        e.contains("other.json is not a toolproof JSON report"),
        "{e}"
    );
    copy("r2.json", "inspect.json", &|v| {
        v["command"] = "inspect".into()
    });
    let e = refused(&dir, &["r1.json", "inspect.json"]);
    assert!(e.contains("inspect.json is the report of `inspect`"), "{e}");
    copy("r2.json", "schema.json", &|v| {
        v["schema_version"] = 9.into()
    });
    let e = refused(&dir, &["r1.json", "schema.json"]);
    assert!(e.contains("schema.json has schema_version 9"), "{e}");
}

#[test]
fn under_github_actions_the_merge_writes_one_job_summary_and_the_step_outputs() {
    let dir = Dir::new("merge-github");
    two_shards(&dir);
    let summary = dir.path("step-summary.md").display().to_string();
    let output = dir.path("github-output.txt").display().to_string();
    let out = toolproof_in(
        &dir.0,
        &["merge", "r1.json", "r2.json"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", &summary),
            ("GITHUB_OUTPUT", &output),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let summary = dir.read("step-summary.md");
    assert!(summary.contains("83.3%"), "{summary}");
    assert_eq!(
        summary.matches("toolproof passed").count(),
        1,
        "one summary: {summary}"
    );
    let outputs = dir.read("github-output.txt");
    for line in ["exit-code=0", "passed=true", "tests-failed=0"] {
        assert!(outputs.lines().any(|l| l == line), "{line} in {outputs}");
    }
    assert!(
        outputs.lines().any(|l| l.starts_with("accuracy=0.83")),
        "the union's accuracy: {outputs}"
    );
}
