//! Files that fight back: an answer cache that cannot be written or holds junk, a history
//! file with bad lines or that is a device, report paths that are missing, unwritable or
//! special files.
//!
//! These run as root in CI containers, where permission bits mean nothing: "cannot write" is
//! made with a regular file where a folder must be, or a path under `/proc`, never with
//! `chmod`.

use super::harness::{Case, Outcome, fake_server, walk};
use super::secrets::{Llm, start_llm};

/// Two cases the fake model answers with a call of `echo`.
const TWO: &str = r#"    - name: first
      prompt: 'one [[call echo {"text": "a"}]]'
      expect_tool: echo
    - name: second
      prompt: 'two [[call echo {"text": "b"}]]'
      expect_tool: echo
"#;

fn evals_yaml(extra: &str) -> String {
    fake_server(
        &[],
        &format!("evals:\n  provider: anthropic\n  model: fake-model\n{extra}  cases:\n{TWO}"),
    )
}

/// `eval` against the fake model API with the files given.
fn eval_case(name: &str, llm: &Llm, extra: &str) -> Case {
    Case::new(name)
        .yaml(&evals_yaml(extra))
        .args(&["eval", "-c", "toolproof.yaml"])
        .env("ANTHROPIC_API_KEY", "sk-files-0123456789")
        .env("ANTHROPIC_BASE_URL", &llm.url)
}

fn cache_of(out: &Outcome) -> serde_json::Value {
    out.report()["phases"]["evals"]["results"]["cache"].clone()
}

#[test]
fn answers_that_cannot_be_saved_are_said_counted_and_still_scored() {
    let llm = start_llm(&[]);
    // A regular file where the `evals` folder goes; and a folder under /proc, which not
    // even root can create.
    for (name, case) in [
        (
            "cache-is-a-file",
            eval_case("cache-is-a-file", &llm, "").file(".toolproof-cache/evals", b"not a folder"),
        ),
        (
            "cache-under-proc",
            eval_case(
                "cache-under-proc",
                &llm,
                "  cache_dir: /proc/toolproof-cache\n",
            ),
        ),
    ] {
        let out = case.run();
        out.sound(0).says("2 answers not saved");
        let cache = cache_of(&out);
        assert_eq!(cache["asked"], 2, "{name}: {cache:#}");
        assert_eq!(cache["write_errors"], 2, "{name}: {cache:#}");
        let first = cache["write_error"].as_str().unwrap_or_default();
        assert!(first.contains("cache"), "{name}: {cache:#}");
        let model = &out.report()["phases"]["evals"]["results"]["models"][0];
        assert_eq!(model["correct"], 2, "{name}: the answers still count");
        for file in ["summary.md", "report.html", "junit.xml"] {
            assert!(out.read(file).contains("not saved"), "{name}: {file}");
        }
    }
}

#[test]
fn junk_cache_entries_are_counted_asked_again_and_replaced() {
    let llm = start_llm(&[]);
    let recorded = eval_case("record", &llm, "").run();
    recorded.sound(0);
    let mut names: Vec<String> = walk(&recorded.dir.join(".toolproof-cache/evals"))
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    // 8 MiB of JSON whose `args` is a string, not an object.
    let huge = format!(
        "{{\"tool\": \"echo\", \"args\": \"{}\"}}",
        "x".repeat(8 << 20)
    );
    for (what, bytes) in [
        ("invalid", b"{\"tool\": \"echo\", \"ar".to_vec()),
        ("wrong-shaped", b"[\"echo\", {}]".to_vec()),
        ("wrong-typed", b"{\"tool\": 7, \"args\": []}".to_vec()),
        ("not-utf8", vec![0xff, 0xfe, 0x00, 0x7b]),
        ("huge", huge.clone().into_bytes()),
    ] {
        let mut case = eval_case(&format!("junk-{what}"), &llm, "");
        for name in &names {
            case = case.file(&format!(".toolproof-cache/evals/{name}"), &bytes);
        }
        let out = case.run();
        out.sound(0).says("2 unreadable cache files asked again");
        let cache = cache_of(&out);
        assert_eq!(
            (cache["corrupt"].as_u64(), cache["asked"].as_u64()),
            (Some(2), Some(2))
        );
        assert_eq!(cache["write_errors"], 0, "{what}: {cache:#}");
        // The junk was replaced by the new answers, which parse.
        for name in &names {
            let text = out.read(&format!(".toolproof-cache/evals/{name}"));
            let entry: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            assert_eq!(entry["tool"], "echo", "{what}: {text:.200}");
        }
    }
}

#[test]
fn a_folder_where_a_cache_entry_should_be_is_unreadable_and_unwritable_but_not_fatal() {
    let llm = start_llm(&[]);
    let recorded = eval_case("record-dir", &llm, "").run();
    recorded.sound(0);
    let name = walk(&recorded.dir.join(".toolproof-cache/evals"))
        .first()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let out = eval_case("entry-is-a-folder", &llm, "")
        .file(&format!(".toolproof-cache/evals/{name}/inside"), b"x")
        .run();
    out.sound(0).says("1 answer not saved");
    let cache = cache_of(&out);
    assert_eq!(
        (cache["corrupt"].as_u64(), cache["write_errors"].as_u64()),
        (Some(1), Some(1))
    );
}

#[test]
fn cache_prune_removes_what_it_can_and_names_what_it_cannot() {
    let stale = |c: char| format!(".toolproof-cache/evals/{}.json", c.to_string().repeat(64));
    let out = Case::new("prune-folder-entry")
        .yaml(&evals_yaml(""))
        .args(&["cache", "prune", "-c", "toolproof.yaml", "--apply"])
        .no_reports()
        .file(&stale('a'), b"{\"tool\": null}")
        .file(
            &format!("{}/keep", stale('b')),
            b"a folder named like an entry",
        )
        .file(&stale('c'), b"{\"tool\": null}")
        .file(&stale('d'), b"{\"tool\": null}")
        .run();
    out.sound(1).says("could not remove").says("bbbbbbbb");
    for (c, gone) in [('a', true), ('b', false), ('c', true), ('d', true)] {
        assert_eq!(!out.dir.join(stale(c)).exists(), gone, "{c}: {out:#?}");
    }
    assert!(out.stdout.contains("removed 3 file(s)"), "{out:#?}");
}

#[test]
fn bad_history_lines_are_skipped_counted_and_kept() {
    let llm = start_llm(&[]);
    let long = format!("{{\"time\": \"{}\"}}\n", "9".repeat(100_000));
    let mut history = String::from("not json at all\n{\"time\": 5}\n[1, 2, 3]\n\u{0}\u{0}\u{0}\n");
    history.push_str(&long);
    let out = eval_case("bad-history", &llm, "")
        .file("history.jsonl", history.as_bytes())
        .args(&["eval", "-c", "toolproof.yaml", "--history", "history.jsonl"])
        .run();
    out.sound(0);
    let trend = &out.report()["phases"]["evals"]["results"]["history"];
    assert_eq!(trend["skipped_lines"], 5, "{trend:#}");
    assert_eq!(
        trend["points"].as_array().map(Vec::len),
        Some(1),
        "{trend:#}"
    );
    let text = out.read("history.jsonl");
    assert!(text.starts_with(&history), "the bad lines were not kept");
    assert_eq!(text.lines().count(), 6);
}

#[test]
fn a_history_file_that_is_a_device_or_a_folder_is_refused_before_the_run() {
    for (name, path) in [("history-dev-full", "/dev/full"), ("history-folder", "sub")] {
        let out = Case::new(name)
            .yaml(&fake_server(&["--log", "server.log"], ""))
            .args(&["run", "toolproof.yaml", "--history", path])
            .file("sub/x", b"")
            .run();
        out.sound(2).says("history");
        assert!(out.stderr.contains(path), "{name}: {out:#?}");
        assert!(
            !out.dir.join("server.log").exists(),
            "{name}: the server was started"
        );
    }
    assert!(
        std::fs::metadata("/dev/full").is_ok_and(|m| !m.is_file()),
        "/dev/full was replaced by a file"
    );
}

#[test]
fn report_paths_missing_unwritable_and_special() {
    let yaml = fake_server(&[], "");
    // Missing folders are created.
    let out = Case::new("report-missing-folder")
        .yaml(&yaml)
        .args(&["run", "toolproof.yaml", "--json", "a/b/c/r.json"])
        .no_reports()
        .run();
    out.sound(0);
    assert!(out.read("a/b/c/r.json").contains("\"exit_code\": 0"));
    // A file where a folder must be: a usage error before anything runs.
    let out = Case::new("report-unwritable")
        .yaml(&yaml)
        .file("blocker", b"x")
        .args(&["run", "toolproof.yaml", "--junit", "blocker/j.xml"])
        .no_reports()
        .run();
    out.sound(2)
        .says("cannot write the JUnit report to blocker/j.xml");
    // /dev/null takes a report in place; /dev/full fails the write at the end, said, exit 1.
    let out = Case::new("report-dev-full")
        .yaml(&yaml)
        .args(&[
            "run",
            "toolproof.yaml",
            "--junit",
            "/dev/null",
            "--json",
            "/dev/full",
            "--html",
            "r.html",
        ])
        .no_reports()
        .run();
    out.sound(1)
        .says("could not write the JSON report to /dev/full");
    assert!(out.read("r.html").trim_end().ends_with("</html>"));
    assert!(std::fs::metadata("/dev/null").is_ok_and(|m| !m.is_file()));
    assert!(std::fs::metadata("/dev/full").is_ok_and(|m| !m.is_file()));
}
