//! Shards end to end: `--shard K/N` on the demo and on a 200-case set, through the binary. Every
//! eval case runs in exactly one shard, what is not split runs in shard 1, an empty shard says
//! so, and a bad shard is a usage error.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use serde_json::json;

/// The eval cases a report ran (name of each case of the first model).
fn cases_of(dir: &Dir, report: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.path(report)).unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    v["phases"]["evals"]["results"]["models"][0]["cases"]
        .as_array()
        .map(|cases| {
            cases
                .iter()
                .filter_map(|c| c["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn report(dir: &Dir, name: &str) -> Value {
    let text = std::fs::read_to_string(dir.path(name)).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

#[test]
fn the_demo_in_two_and_four_shards_runs_every_case_once_with_the_unsharded_verdict() {
    let (dir, whole) = demo("toolproof.yaml");
    assert_eq!(whole.code, 0, "{whole:?}");
    let all: BTreeSet<String> = cases_of(&dir, "r.json").into_iter().collect();
    assert_eq!(all.len(), 11, "{all:?}");
    for count in [1, 2, 4] {
        let mut seen: Vec<String> = Vec::new();
        for index in 1..=count {
            let shard = format!("{index}/{count}");
            let json = format!("s{index}of{count}.json");
            let out = toolproof_in(
                &dir.0,
                &[
                    "run",
                    "toolproof.yaml",
                    "--shard",
                    &shard,
                    "--json",
                    &json,
                    "--junit",
                    "j.xml",
                    "--html",
                    "h.html",
                ],
                &[],
            );
            assert_eq!(out.code, 0, "shard {shard}: {out:?}");
            // Every report says which part of the run it is.
            let junit = dir.read("j.xml");
            let property = format!("<property name=\"shard\" value=\"{shard}\"/>");
            assert_eq!(
                junit.matches(&property).count(),
                junit.matches("<testsuite ").count(),
                "{junit}"
            );
            assert!(
                dir.read("h.html")
                    .contains(&format!(" (shard {index} of {count})</title>")),
                "the HTML report's title"
            );
            let r = report(&dir, &json);
            assert_eq!(r["shard"], json!({"index": index, "count": count}));
            assert!(
                out.stdout.contains(&format!("(shard {index} of {count})")),
                "{}",
                out.stdout
            );
            let phases = &r["phases"];
            for phase in ["checks", "tests", "lint"] {
                if index == 1 {
                    assert_eq!(phases[phase]["status"], "passed", "{phase} in {shard}");
                } else {
                    assert_eq!(phases[phase]["status"], "skipped", "{phase} in {shard}");
                    assert_eq!(
                        phases[phase]["reason"],
                        format!("runs in shard 1 of {count}"),
                        "{phase} in {shard}"
                    );
                }
            }
            seen.extend(cases_of(&dir, &json));
        }
        let unique: BTreeSet<String> = seen.iter().cloned().collect();
        assert_eq!(
            seen.len(),
            unique.len(),
            "a case ran twice in {count} shards"
        );
        assert_eq!(unique, all, "{count} shards");
    }
}

/// A set of `n` cases for the demo's server and picker.
fn set_of(n: usize) -> String {
    let mut cases = String::new();
    for i in 1..=n {
        cases.push_str(&format!(
            "    - name: case {i}\n      prompt: delete note {i}\n      expect_tool: delete_note\n      expect_args: {{id: {i}}}\n"
        ));
    }
    format!(
        "server:\n  command: [\"{ex}demo_server\"]\nevals:\n  provider: command\n  command: [\"{ex}demo_picker\"]\n  min_accuracy: 1\n  cases:\n{cases}",
        ex = format!("{}/", crate::examples_dir().display())
    )
}

/// Which shard of 4 each case of the set in `dir` ran in.
fn homes(dir: &Dir) -> BTreeMap<String, u32> {
    let mut homes = BTreeMap::new();
    for index in 1..=4u32 {
        let json = format!("s{index}.json");
        let out = toolproof_in(
            &dir.0,
            &["eval", "--shard", &format!("{index}/4"), "--json", &json],
            &[],
        );
        assert_eq!(out.code, 0, "{out:?}");
        for case in cases_of(dir, &json) {
            assert!(homes.insert(case, index).is_none(), "a case ran twice");
        }
    }
    homes
}

#[test]
fn a_200_case_set_spreads_over_four_shards_and_a_new_case_moves_no_other() {
    let dir = Dir::new("shard-200");
    dir.write("toolproof.yaml", &set_of(200));
    let before = homes(&dir);
    assert_eq!(before.len(), 200);
    for index in 1..=4 {
        let n = before.values().filter(|&&h| h == index).count();
        assert!((25..=75).contains(&n), "shard {index} holds {n} of 200");
    }
    dir.write("toolproof.yaml", &set_of(201));
    let after = homes(&dir);
    assert_eq!(after.len(), 201);
    for (case, home) in &before {
        assert_eq!(after.get(case), Some(home), "{case} moved");
    }
}

#[test]
fn an_empty_shard_is_a_skip_that_says_so_and_a_bad_shard_is_a_usage_error() {
    let dir = Dir::new("shard-empty");
    dir.write("toolproof.yaml", &set_of(2));
    // Two cases in twenty shards: most shards hold none.
    let empty = (1..=20)
        .find(|index| {
            let out = toolproof_in(
                &dir.0,
                &[
                    "eval",
                    "--shard",
                    &format!("{index}/20"),
                    "--json",
                    "r.json",
                ],
                &[],
            );
            assert_eq!(out.code, 0, "{out:?}");
            report(&dir, "r.json")["phases"]["evals"]["status"] == "skipped"
        })
        .expect("an empty shard");
    let r = report(&dir, "r.json");
    assert_eq!(
        r["phases"]["evals"]["reason"],
        format!("no eval case in shard {empty} of 20")
    );
    for bad in ["0/2", "3/2", "x"] {
        let out = toolproof_in(&dir.0, &["eval", "--shard", bad], &[]);
        assert_eq!(out.code, 2, "{bad}: {out:?}");
        assert!(out.stderr.contains("K/N"), "{}", out.stderr);
    }
    let out = toolproof_in(&dir.0, &["eval"], &[("TOOLPROOF_SHARD", "2/1")]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("TOOLPROOF_SHARD"), "{}", out.stderr);
}

/// What runs in shard 1 runs in another shard too when a flag asks for it there: a job of its
/// own for the static checks, say.
#[test]
fn a_flag_asks_for_the_checks_and_set_lint_in_another_shard() {
    let (dir, whole) = demo("toolproof.yaml");
    assert_eq!(whole.code, 0, "{whole:?}");
    let out = toolproof_in(
        &dir.0,
        &[
            "run",
            "toolproof.yaml",
            "--shard",
            "2/4",
            "--checks",
            "--no-skip-lint",
            "--json",
            "s.json",
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let r = report(&dir, "s.json");
    assert_eq!(r["phases"]["checks"]["status"], "passed");
    assert_eq!(r["phases"]["lint"]["status"], "passed");
    assert_eq!(r["phases"]["tests"]["reason"], "runs in shard 1 of 4");
}

/// A shard's miss rate covers its own cases: the history line and the pull-request comment
/// are the merged run's, so a shard of several refuses them (wherever they are asked), and the
/// one shard of one keeps them.
#[test]
fn a_shard_of_several_refuses_the_history_and_pr_comment_of_the_whole_run() {
    let dir = Dir::new("shard-refuses");
    dir.write("toolproof.yaml", &set_of(4));
    type Asked<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Asked<'_>; 5] = [
        (
            &["--history", "h.jsonl"],
            &[],
            "--history asks shard 2/4 for a history line",
        ),
        (
            &[],
            &[("TOOLPROOF_HISTORY", "h.jsonl")],
            "TOOLPROOF_HISTORY asks shard 2/4",
        ),
        (
            &["--pr-comment", "always"],
            &[],
            "--pr-comment asks shard 2/4 for a pull-request comment",
        ),
        (
            &[],
            &[("TOOLPROOF_PR_COMMENT", "on-change")],
            "TOOLPROOF_PR_COMMENT=on-change asks shard 2/4",
        ),
        (&["--pr-comment-file", "c.md"], &[], "--pr-comment-file"),
    ];
    for (flags, env, says) in cases {
        let mut args = vec![
            "run",
            "toolproof.yaml",
            "--shard",
            "2/4",
            "--json",
            "r.json",
        ];
        args.extend_from_slice(flags);
        let out = toolproof_in(&dir.0, &args, env);
        assert_eq!(out.code, 2, "{flags:?} {env:?}: {out:?}");
        assert!(out.stderr.contains(says), "{says}: {}", out.stderr);
        assert!(
            out.stderr.contains("hint:") && out.stderr.contains("toolproof merge"),
            "{}",
            out.stderr
        );
        assert!(!dir.path("h.jsonl").exists() && !dir.path("c.md").exists());
    }
    let out = toolproof_in(
        &dir.0,
        &["eval", "--shard", "1/1", "--history", "h.jsonl"],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(dir.read("h.jsonl").lines().count(), 1);
}

/// The names a phase's rows carry in a JSON report (`fuzz` tools, `bench` targets).
fn rows(dir: &Dir, json: &str, phase: &str, list: &str, key: &str) -> Vec<String> {
    report(dir, json)["phases"][phase]["results"][list]
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter_map(|r| r[key].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn fuzzed_tools_and_bench_targets_are_split_too() {
    let dir = demo_dir("shard-fuzz-bench", "toolproof.yaml");
    // The demo's `add_note` is a write: included, so that each shard has a tool to fuzz.
    let fuzz_flags: &[&str] = &["--examples", "2", "--include-writes"];
    let bench_flags: &[&str] = &["--calls", "2"];
    for (command, extra, list, key) in [
        ("fuzz", fuzz_flags, "tools", "tool"),
        ("bench", bench_flags, "targets", "name"),
    ] {
        let run = |shard: Option<&str>, json: &str| {
            let mut args = vec![command, "-c", "toolproof.yaml"];
            args.extend_from_slice(extra);
            args.extend(["--json", json]);
            if let Some(s) = shard {
                args.extend(["--shard", s]);
            }
            toolproof_in(&dir.0, &args, &[]).code
        };
        let whole_code = run(None, "whole.json");
        let whole: BTreeSet<String> = rows(&dir, "whole.json", command, list, key)
            .into_iter()
            .collect();
        assert!(whole.len() >= 4, "{command}: {whole:?}");
        let mut seen = Vec::new();
        for index in 1..=2 {
            let json = format!("s{index}.json");
            assert_eq!(
                run(Some(&format!("{index}/2")), &json),
                whole_code,
                "{command}"
            );
            let here = rows(&dir, &json, command, list, key);
            assert!(
                !here.is_empty() && here.len() < whole.len(),
                "{command}: {here:?}"
            );
            seen.extend(here);
        }
        let unique: BTreeSet<String> = seen.iter().cloned().collect();
        assert_eq!(seen.len(), unique.len(), "{command}: a row in both shards");
        assert_eq!(unique, whole, "{command}");
    }
}

/// The config digest covers the files `evals:` names: shards that read two versions of the
/// cases file (a job of an older commit, say) are refused, though the YAML is the same.
#[test]
fn shards_of_two_versions_of_the_cases_file_are_refused() {
    let dir = Dir::new("shard-cases-file");
    let config = set_of(0).replace("  cases:\n", "  cases_file: cases.yaml\n");
    dir.write("toolproof.yaml", &config);
    let cases = |n: usize| -> String {
        (1..=n)
            .map(|i| {
                format!("- name: case {i}\n  prompt: delete note {i}\n  expect_tool: delete_note\n")
            })
            .collect()
    };
    dir.write("cases.yaml", &cases(6));
    let shard = |k: u32| {
        let json = format!("s{k}.json");
        let out = toolproof_in(
            &dir.0,
            &["eval", "--shard", &format!("{k}/2"), "--json", &json],
            &[],
        );
        assert_eq!(out.code, 0, "{out:?}");
    };
    shard(1);
    shard(2);
    let merged = toolproof_in(&dir.0, &["merge", "s1.json", "s2.json"], &[]);
    assert_eq!(merged.code, 0, "{merged:?}");
    dir.write("cases.yaml", &cases(7));
    shard(2);
    let merged = toolproof_in(&dir.0, &["merge", "s1.json", "s2.json"], &[]);
    assert_eq!(merged.code, 2, "{merged:?}");
    assert!(
        merged.stderr.contains("different configs"),
        "{}",
        merged.stderr
    );
}
