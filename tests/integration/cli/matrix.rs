//! One run split every way a CI matrix splits it, and merged back: the demo (passing and
//! broken) and a 200-case set over the fake Anthropic API, each run unsharded, in 1, 2 and 4
//! shards (`--shard K/N`), in a job per model (`--model`) and in both at once; every merge must
//! write the unsharded run's reports: the same exit code, JSON report (but for times), JUnit
//! testcases, Markdown summary and HTML report.

use super::evals::{KEY, llm};
use super::merge::{junit_cases, report, steady_without};
use super::*;

/// The jobs of one split: the extra flags of each job.
fn splits(models: &[&str]) -> Vec<(String, Vec<Vec<String>>)> {
    let shards = |count: u32, extra: &[String]| -> Vec<Vec<String>> {
        (1..=count)
            .map(|k| {
                let mut job = vec!["--shard".to_owned(), format!("{k}/{count}")];
                job.extend_from_slice(extra);
                job
            })
            .collect()
    };
    let mut all: Vec<(String, Vec<Vec<String>>)> = [1, 2, 4]
        .into_iter()
        .map(|n| (format!("{n} shards"), shards(n, &[])))
        .collect();
    if models.len() > 1 {
        let model = |m: &str| vec!["--model".to_owned(), m.to_owned()];
        all.push((
            "a job per model".into(),
            models.iter().map(|m| model(m)).collect(),
        ));
        all.push((
            "2 shards of a job per model".into(),
            models.iter().flat_map(|m| shards(2, &model(m))).collect(),
        ));
    }
    all
}

/// Where two JSON values differ, as `path: merged != unsharded` lines.
fn differences(path: &str, got: &Value, want: &Value) -> Vec<String> {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            let mut keys: Vec<&String> = g.keys().chain(w.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .flat_map(|k| {
                    let (a, b) = (
                        g.get(k).unwrap_or(&Value::Null),
                        w.get(k).unwrap_or(&Value::Null),
                    );
                    differences(&format!("{path}.{k}"), a, b)
                })
                .collect()
        }
        (Value::Array(g), Value::Array(w)) if g.len() == w.len() => g
            .iter()
            .zip(w)
            .enumerate()
            .flat_map(|(i, (a, b))| differences(&format!("{path}[{i}]"), a, b))
            .collect(),
        _ if got == want => Vec::new(),
        _ => vec![format!("{path}: {got} != {want}")],
    }
}

/// A JSON value whose strings say no times (`took 2001ms, limit is 1000ms`).
fn untimed(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), untimed(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(untimed).collect()),
        Value::String(s) => Value::String(untimed_line(s)),
        other => other.clone(),
    }
}

/// A line without its times: `<time>` elements, and numbers of ms or s, become `<time>`.
fn untimed_line(line: &str) -> String {
    static MASKS: std::sync::OnceLock<[regex::Regex; 2]> = std::sync::OnceLock::new();
    let [stamp, duration] = MASKS.get_or_init(|| {
        [
            regex::Regex::new(r#"<time datetime="[^"]*">[^<]*</time>"#).expect("regex"),
            regex::Regex::new(r"\b\d+(\.\d+)?\s?(ms|s)\b").expect("regex"),
        ]
    });
    let line = stamp.replace_all(line, "<time>");
    duration.replace_all(&line, "<time>").into_owned()
}

/// A Markdown or HTML report without what differs between two runs of the same thing.
fn steady_text(text: &str) -> Vec<String> {
    text.lines().map(untimed_line).collect()
}

/// Runs `command` unsharded and split every way in `dir`, merges each split, and asserts that
/// each merge wrote the unsharded run's reports. Returns the unsharded exit code.
fn assert_every_split_merges(
    dir: &Dir,
    command: &[&str],
    models: &[&str],
    env: &[(&str, &str)],
) -> i32 {
    let job = |extra: &[String], json: &str| {
        let mut args: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
        args.extend_from_slice(extra);
        args.extend(["--json".to_owned(), json.to_owned()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        toolproof_in(&dir.0, &args, env)
    };
    let reports = [
        "--junit".to_owned(),
        "full.xml".to_owned(),
        "--summary".to_owned(),
        "full.md".to_owned(),
        "--html".to_owned(),
        "full.html".to_owned(),
    ];
    // A summary file is appended to: each run starts anew.
    std::fs::remove_file(dir.path("full.md")).ok();
    let full = job(&reports, "full.json");
    assert!(full.code < 2, "{full:?}");
    let want = untimed(&steady_without(&report(dir, "full.json"), &[]));
    for (split, jobs) in splits(models) {
        let mut inputs = Vec::new();
        for (i, extra) in jobs.iter().enumerate() {
            let json = format!("job{i}.json");
            let out = job(extra, &json);
            assert!(out.code < 2, "{split}, job {extra:?}: {out:?}");
            inputs.push(json);
        }
        // The jobs' reports in another order than they ran: the merge does not care.
        inputs.reverse();
        let mut args = vec!["merge"];
        args.extend(inputs.iter().map(String::as_str));
        args.extend([
            "--json",
            "m.json",
            "--junit",
            "m.xml",
            "--summary",
            "m.md",
            "--html",
            "m.html",
        ]);
        // A summary file is appended to (as `$GITHUB_STEP_SUMMARY` is): each merge starts anew.
        std::fs::remove_file(dir.path("m.md")).ok();
        let merged = toolproof_in(&dir.0, &args, env);
        assert_eq!(merged.code, full.code, "{split}: {merged:?}");
        let got = untimed(&steady_without(&report(dir, "m.json"), &[]));
        let differ = differences("", &got, &want);
        assert!(
            differ.is_empty(),
            "{split}: the merged JSON report differs from the unsharded one:\n{}",
            differ.join("\n")
        );
        let cases = junit_cases(&dir.read("m.xml"));
        assert_eq!(cases, junit_cases(&dir.read("full.xml")), "{split}: JUnit");
        assert!(!cases.is_empty());
        for (kind, merged, unsharded) in [
            ("Markdown summary", "m.md", "full.md"),
            ("HTML report", "m.html", "full.html"),
        ] {
            let (got, want) = (
                steady_text(&dir.read(merged)),
                steady_text(&dir.read(unsharded)),
            );
            let differ: Vec<String> = got
                .iter()
                .zip(&want)
                .filter(|(g, w)| g != w)
                .map(|(g, w)| format!("merged:    {g}\nunsharded: {w}"))
                .collect();
            assert!(
                differ.is_empty() && got.len() == want.len(),
                "{split}: the {kind} differs ({} lines, unsharded {}):\n{}",
                got.len(),
                want.len(),
                differ.join("\n")
            );
        }
    }
    full.code
}

#[test]
fn the_demo_split_every_way_merges_into_the_unsharded_run() {
    let dir = super::demo_dir("matrix-demo", "toolproof.yaml");
    // With the stress curve, which runs in shard 1 over the whole set.
    let code = assert_every_split_merges(&dir, &["run", "toolproof.yaml", "--stress"], &[], &[]);
    assert_eq!(code, 0);
    // The same demo asking two models, so a job per model is a split too.
    let text = dir.read("toolproof.yaml").replace(
        "  model: demo-picker\n  prices:\n    demo-picker: {input: 3.0, output: 15.0}\n",
        "  models: [picker-a, picker-b]\n  prices:\n    picker-a: {input: 3.0, output: 15.0}\n    picker-b: {input: 1.0, output: 5.0}\n",
    );
    assert!(text.contains("picker-b"));
    dir.write("toolproof.yaml", &text);
    let code = assert_every_split_merges(
        &dir,
        &["run", "toolproof.yaml"],
        &["picker-a", "picker-b"],
        &[],
    );
    assert_eq!(code, 0);
}

#[test]
fn the_broken_demo_split_every_way_merges_into_the_same_failure() {
    let dir = super::demo_dir("matrix-broken", "broken.yaml");
    let code = assert_every_split_merges(&dir, &["run", "broken.yaml"], &[], &[]);
    assert_eq!(code, 1);
}

/// 200 cases over the fake Anthropic API: every tenth picks the wrong tool, every fiftieth is
/// critical (one of them missed), and every 25th wants no tool.
fn two_hundred() -> String {
    let mut cases = String::new();
    for i in 1..=200 {
        let (prompt, expect) = if i % 25 == 0 {
            (
                format!("thanks {i} [[text you are welcome]]"),
                "null".to_owned(),
            )
        } else if i % 10 == 0 {
            (
                format!("add {i} [[call echo {{\"text\": \"{i}\"}}]]"),
                "add".to_owned(),
            )
        } else {
            (
                format!("add {i} [[call add {{\"a\": {i}, \"b\": 1}}]]"),
                "add".to_owned(),
            )
        };
        cases.push_str(&format!(
            "    - name: case {i}\n      prompt: '{prompt}'\n      expect_tool: {expect}\n"
        ));
        if i % 50 == 0 || i == 70 {
            cases.push_str("      critical: true\n");
        }
    }
    format!(
        "server:\n  command: {}\nevals:\n  provider: anthropic\n  models: [claude-a, claude-b]\n  cache: false\n  batch: never\n  prompt_cache: false\n  min_accuracy: 0.85\n  min_wilson_lower: 0.8\n  cases:\n{cases}",
        yaml_list(&[&fake()])
    )
}

#[test]
fn a_200_case_set_over_two_models_split_every_way_merges_into_the_unsharded_run() {
    let dir = Dir::new("matrix-200");
    dir.write("toolproof.yaml", &two_hundred());
    let server = llm(&[]);
    let env = [
        ("ANTHROPIC_API_KEY", KEY),
        ("ANTHROPIC_BASE_URL", server.url.as_str()),
    ];
    let code = assert_every_split_merges(
        &dir,
        &["eval", "-c", "toolproof.yaml"],
        &["claude-a", "claude-b"],
        &env,
    );
    // 184 of 200 right meets the 85% minimum, but case 70 (critical) is missed.
    assert_eq!(code, 1);
    let full = report(&dir, "full.json");
    let model = &full["phases"]["evals"]["results"]["models"][0];
    assert_eq!(
        (&model["total"], &model["correct"]),
        (&200.into(), &184.into())
    );
}
