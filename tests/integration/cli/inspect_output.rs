//! What `inspect` and the `run` console show a maintainer when something is off: a server
//! that fails to start (its stderr as written, both ends of it, on stderr for `inspect`), a
//! server printing on stdout (said once), and a test that wanted an error but got a success
//! (the text that came back). Each is a snapshot of the real binary's output against the fake.

use super::*;

/// Snapshots beside the other CLI snapshots, in `tests/snapshots/`.
fn snapshot(name: &str, text: &str) {
    insta::with_settings!({snapshot_path => "../snapshots"}, {
        insta::assert_snapshot!(name, text);
    });
}

/// A console table with its borders dropped and its cells' padding squeezed, so that the
/// width of the time column (`4ms`, `0.4ms`) does not change the snapshot.
fn flat_tables(text: &str) -> String {
    let borders = regex::Regex::new(r"^[┌├└][─┬┼┴┐┤┘]+$").expect("valid pattern");
    let padding = regex::Regex::new(r" *│ *").expect("valid pattern");
    let times = regex::Regex::new(r"(\b\d+\.)?(\[ms\]|\d+ms\b)").expect("valid pattern");
    text.lines()
        .filter(|line| !borders.is_match(line))
        .map(|line| {
            if line.starts_with('│') {
                padding
                    .replace_all(&times.replace_all(line, "[ms]"), " │ ")
                    .trim()
                    .to_owned()
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn inspect_shows_a_failed_start_on_stderr_as_written_with_both_ends() {
    let dir = Dir::new("inspect-usage");
    let fake = fake();
    let out = toolproof_in(
        &dir.0,
        &["inspect", "--", &fake, "--fault", "usage-exit"],
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.stdout, "", "the connection error belongs on stderr");
    // The cause (the first line) and the indentation of the flags survive.
    assert!(
        out.stderr.contains("│ Error: no current context is set"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("│       --flag-42 string"),
        "{}",
        out.stderr
    );
    snapshot("inspect_failed_start", &normalize(&out.stderr, &dir));
}

#[test]
fn run_shows_both_ends_of_the_stderr_of_a_failed_start() {
    let cmd = yaml_list(&[&fake(), "--fault", "usage-exit"]);
    let (dir, out) = run_with_server("run-usage", &format!("  command: {cmd}\n"), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let report = dir.json("r.json");
    let kept = report["error"]["stderr"].as_str().unwrap_or_default();
    assert_eq!(
        kept.lines().count(),
        47,
        "the JSON report keeps all of it: {kept}"
    );
    snapshot("run_failed_start", &normalize(&out.stdout, &dir));
}

#[test]
fn inspect_says_stdout_noise_once() {
    let dir = Dir::new("inspect-noise");
    let fake = fake();
    let out = toolproof_in(
        &dir.0,
        &["inspect", "--", &fake, "--fault", "stdout-noise"],
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.stdout.matches("on stdout").count(), 1, "{}", out.stdout);
    snapshot("inspect_stdout_noise", &normalize(&out.stdout, &dir));
}

#[test]
fn a_test_that_wanted_an_error_shows_the_text_that_came_back() {
    let dir = Dir::new("wanted-error");
    let cmd = yaml_list(&[&fake()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {cmd}\nchecks:\n  enabled: false\ntests:\n  \
             - name: a write is refused\n    tool: echo\n    \
             args: {{text: \"Error: only SELECT allowed\"}}\n    expect: {{is_error: true}}\n"
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[("COLUMNS", "120")]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        dir.json("r.json")["phases"]["tests"]["results"][0]["failures"][0],
        "expected an error but the tool succeeded: Error: only SELECT allowed \
         (error-as-success: the text reads as an error, but isError is false)"
    );
    snapshot(
        "run_wanted_error",
        &flat_tables(&normalize(&out.stdout, &dir)),
    );
}

#[test]
fn inspect_weighs_each_tool_and_the_list_a_model_is_sent() {
    let dir = Dir::new("inspect-tokens");
    let fake = fake();
    let out = toolproof_in(&dir.0, &["inspect", "--", &fake], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let head = out
        .stdout
        .lines()
        .find(|l| l.starts_with("tool list as a model is sent it: about "))
        .unwrap_or_else(|| panic!("no tool list line in {}", out.stdout));
    let total: u64 = head
        .strip_prefix("tool list as a model is sent it: about ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no total in {head:?}"));
    let each: Vec<u64> = out
        .stdout
        .lines()
        .filter_map(|l| l.strip_suffix(" tokens")?.rsplit_once(" ~"))
        .filter_map(|(_, n)| n.replace(',', "").parse().ok())
        .collect();
    assert_eq!(each.len(), 5, "{}", out.stdout);
    // The list is its tools plus its brackets and commas, each rounded up.
    let sum: u64 = each.iter().sum();
    assert!(total <= sum + 2 && total + 5 >= sum, "{total} vs {each:?}");
    let json = toolproof_in(&dir.0, &["inspect", "--json", "--", &fake], &[]);
    let v: Value = serde_json::from_str(&json.stdout).unwrap_or(Value::Null);
    assert_eq!(v["inventory"]["tool_list_tokens"], total, "{v:#}");
    assert_eq!(v["inventory"]["tools"][0]["tokens"], each[0], "{v:#}");
}
