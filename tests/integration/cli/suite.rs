//! YAML tool-call tests end to end: assertions, honest timeouts, crashes and restarts, retries,
//! tags and filters, and every report format, through the `toolproof` binary and the fake
//! server.

use super::*;

fn config(dir: &Dir, server_args: &[&str], extra: &str, tests: &str) {
    let mut server = vec![fake()];
    server.extend(server_args.iter().map(|s| s.to_string()));
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {}\nchecks:\n  enabled: false\n{extra}tests:\n{tests}",
            yaml_list(&server)
        ),
    );
}

fn run_tests(dir: &Dir, extra: &[&str]) -> (Out, Value) {
    let mut args = vec![
        "run",
        "--json",
        "r.json",
        "--junit",
        "j.xml",
        "--summary",
        "s.md",
        "--html",
        "r.html",
    ];
    args.extend_from_slice(extra);
    let out = toolproof_in(&dir.0, &args, &[]);
    let report =
        serde_json::from_str(&std::fs::read_to_string(dir.path("r.json")).unwrap_or_default())
            .unwrap_or(Value::Null);
    (out, report)
}

fn results(report: &Value) -> Vec<Value> {
    report["phases"]["tests"]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn by_name<'a>(results: &'a [Value], name: &str) -> &'a Value {
    results
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test named {name}: {results:#?}"))
}

const ASSERTIONS: &str = r#"  - name: is_error false passes
    tool: echo
    args: {text: hi}
    expect: {is_error: false}
  - name: is_error true fails
    tool: echo
    args: {text: hi}
    expect: {is_error: true}
  - name: equals on structured content
    tool: add
    args: {a: 2, b: 3}
    expect: {equals: {result: 5.0}}
  - name: equals is JSON, 1 is not true
    tool: echo
    args: {text: "1"}
    expect: {equals: true}
  - name: contains a list
    tool: echo
    args: {text: alpha beta}
    expect: {contains: [alpha, beta]}
  - name: contains fails
    tool: echo
    args: {text: alpha}
    expect: {contains: gamma}
  - name: regex
    tool: echo
    args: {text: order 42}
    expect: {regex: "\\d+$"}
  - name: regex fails
    tool: echo
    args: {text: order}
    expect: {regex: "^\\d+$"}
  - name: jsonpath on structured content
    tool: add
    args: {a: 20, b: 22}
    expect:
      jsonpath:
        $.result: {type: integer, equals: 42, min: 0, max: 100}
  - name: jsonpath that matches nothing
    tool: add
    args: {a: 1, b: 1}
    expect:
      jsonpath:
        $.missing: {}
  - name: jsonpath on text that is not JSON
    tool: echo
    args: {text: plain words}
    expect:
      jsonpath:
        $.x: {}
  - name: output schema is checked whenever declared
    tool: wrong_structured
    expect: {}
  - name: output schema check can be turned off
    tool: wrong_structured
    expect: {output_schema: false}
  - name: latency limit
    tool: slow
    args: {ms: 200}
    expect: {max_latency_ms: 50}
  - name: unknown tool
    tool: ecko
"#;

#[test]
fn every_assertion_kind_passes_and_fails_with_a_clear_message() {
    let dir = Dir::new("suite-asserts");
    config(&dir, &["--fault", "wrong-structured"], "", ASSERTIONS);
    let (out, report) = run_tests(&dir, &["--junit-file-attrs"]);
    assert_eq!(out.code, 1, "{out:?}");
    let r = results(&report);
    let status = |n: &str| by_name(&r, n)["status"].as_str().unwrap_or("").to_owned();
    let first = |n: &str| {
        by_name(&r, n)["failures"][0]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    for passing in [
        "is_error false passes",
        "equals on structured content",
        "contains a list",
        "regex",
        "jsonpath on structured content",
        "output schema check can be turned off",
    ] {
        assert_eq!(
            status(passing),
            "passed",
            "{passing}: {:#}",
            by_name(&r, passing)
        );
    }
    assert_eq!(
        first("is_error true fails"),
        "expected an error but the tool succeeded: hi"
    );
    assert!(
        first("equals is JSON, 1 is not true").contains("expected result true, got 1"),
        "{}",
        first("equals is JSON, 1 is not true")
    );
    assert!(
        first("contains fails").contains("\"gamma\""),
        "{}",
        first("contains fails")
    );
    assert!(
        first("regex fails").contains("^\\d+$"),
        "{}",
        first("regex fails")
    );
    assert!(
        first("jsonpath that matches nothing").contains("$.missing: no match"),
        "{}",
        first("jsonpath that matches nothing")
    );
    assert!(
        first("jsonpath on text that is not JSON").contains("not JSON"),
        "{}",
        first("jsonpath on text that is not JSON")
    );
    assert!(
        first("output schema is checked whenever declared").starts_with("output schema: /count"),
        "{}",
        first("output schema is checked whenever declared")
    );
    assert!(
        first("latency limit").contains("limit is 50ms"),
        "{}",
        first("latency limit")
    );
    assert!(
        first("unknown tool").contains("did you mean 'echo'"),
        "{}",
        first("unknown tool")
    );
    // With --junit-file-attrs the testcase points at the test's YAML line; its class is the
    // tool it calls.
    let junit = dir.read("j.xml");
    assert!(
        junit.contains(
            "<testcase classname=\"toolproof.tests.echo\" name=\"is_error true fails\" time=\""
        ),
        "{junit}"
    );
    assert!(
        junit.contains("file=\"toolproof.yaml\" line=\"10\""),
        "{junit}"
    );
    assert!(dir.read("s.md").contains("contains fails"));
}

#[test]
fn a_crash_mid_call_is_reported_with_its_own_stderr_and_the_next_tests_run() {
    let dir = Dir::new("suite-crash");
    let tests = r#"  - name: before
    tool: echo
    args: {text: a}
  - name: crashes
    tool: crash
  - name: after the restart
    tool: echo
    args: {text: b}
    expect: {contains: b}
"#;
    config(&dir, &[], "", tests);
    let (out, report) = run_tests(&dir, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let r = results(&report);
    let crash = by_name(&r, "crashes");
    assert_eq!(crash["status"], "error");
    assert!(
        crash["failures"][0]
            .as_str()
            .is_some_and(|f| f.contains("exited with code 3")),
        "{crash:#}"
    );
    assert!(
        crash["stderr"]
            .as_str()
            .is_some_and(|s| s.contains("about to crash")),
        "{crash:#}"
    );
    assert_eq!(by_name(&r, "after the restart")["status"], "passed");
    assert!(out.stdout.contains("about to crash"), "{out:?}");
}

#[test]
fn a_server_that_cannot_be_restarted_leaves_the_rest_not_run_and_reports_written() {
    let dir = Dir::new("suite-norestart");
    // Starts the fake server the first time only; every later start fails.
    let wrapper = dir.write(
        "once.sh",
        &format!(
            "#!/bin/sh\nif [ -e \"$0.used\" ]; then echo 'cannot start twice' >&2; exit 1; fi\ntouch \"$0.used\"\nexec {} \"$@\"\n",
            fake()
        ),
    );
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    dir.write(
        "toolproof.yaml",
        "server:\n  command: [./once.sh]\nchecks:\n  enabled: false\ntests:\n  - name: crashes\n    tool: crash\n  - name: never runs\n    tool: echo\n    args: {text: a}\n  - name: neither\n    tool: echo\n    args: {text: b}\n",
    );
    let (out, report) = run_tests(&dir, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let r = results(&report);
    for name in ["never runs", "neither"] {
        let t = by_name(&r, name);
        assert_eq!(t["status"], "not_run", "{t:#}");
        assert!(
            t["failures"][0]
                .as_str()
                .is_some_and(|f| f.contains("could not be restarted")),
            "{t:#}"
        );
    }
    assert!(dir.read("j.xml").contains("could not be restarted"));
    assert!(dir.read("r.html").contains("could not be restarted"));
}

#[test]
fn a_hang_past_the_timeout_is_a_timeout_after_that_many_milliseconds() {
    let dir = Dir::new("suite-hang");
    let tests = r#"  - name: hangs
    tool: slow
    args: {ms: 20000}
    timeout_ms: 400
    expect: {is_error: true}
  - name: next
    tool: echo
    args: {text: x}
"#;
    config(&dir, &[], "", tests);
    let (_, report) = run_tests(&dir, &[]);
    let r = results(&report);
    let hang = by_name(&r, "hangs");
    // Never an error result: `is_error: true` must not pass on a timeout.
    assert_eq!(hang["status"], "error", "{hang:#}");
    assert_eq!(hang["failures"][0], "no answer within 400ms (timeout_ms)");
    assert!(
        hang["latency_ms"]
            .as_f64()
            .is_some_and(|ms| (400.0..2000.0).contains(&ms)),
        "{hang:#}"
    );
    assert_eq!(by_name(&r, "next")["status"], "passed");
}

#[test]
fn a_timeout_longer_than_thirty_seconds_is_honoured() {
    let dir = Dir::new("suite-long");
    let tests = "  - name: thirty-one seconds\n    tool: slow\n    args: {ms: 31000}\n    timeout_ms: 40000\n    expect: {is_error: false}\n";
    config(&dir, &[], "", tests);
    let (out, report) = run_tests(&dir, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let t = &results(&report)[0];
    assert_eq!(t["status"], "passed", "{t:#}");
    assert!(
        t["latency_ms"].as_f64().is_some_and(|ms| ms >= 31000.0),
        "{t:#}"
    );
}

#[test]
fn a_huge_result_is_checked_whole() {
    let dir = Dir::new("suite-huge");
    let tests = "  - name: ten megabytes\n    tool: echo\n    args: {text: x}\n    expect: {regex: \"^x+$\"}\n";
    config(&dir, &["--fault", "huge-result"], "", tests);
    let (out, report) = run_tests(&dir, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(results(&report)[0]["status"], "passed");
    // The report keeps a bounded excerpt, not the 10 MB.
    assert!(std::fs::metadata(dir.path("r.json")).is_ok_and(|m| m.len() < 1 << 20));
}

#[test]
fn a_test_that_passes_on_a_retry_is_flaky_in_every_report() {
    let dir = Dir::new("suite-flaky");
    let tests = "  - name: wobbles\n    tool: flaky\n    retries: 2\n    retry_delay_ms: 50\n    expect: {is_error: false}\n";
    config(&dir, &["--fault", "flaky"], "", tests);
    let (out, report) = run_tests(&dir, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let t = &results(&report)[0];
    assert_eq!(t["status"], "flaky", "{t:#}");
    assert_eq!(t["attempts"], 2);
    assert!(
        t["failures"][0]
            .as_str()
            .is_some_and(|f| f.starts_with("attempt 1:")),
        "{t:#}"
    );
    assert!(out.stdout.to_lowercase().contains("flaky"), "{out:?}");
    assert!(dir.read("j.xml").to_lowercase().contains("flaky"));
    assert!(dir.read("s.md").to_lowercase().contains("flaky"));
    assert!(dir.read("r.html").to_lowercase().contains("flaky"));
}

#[test]
fn tags_and_filters_select_tests_and_an_empty_selection_is_an_error() {
    let dir = Dir::new("suite-filter");
    let tests = r#"  - name: smoke echo
    tool: echo
    args: {text: a}
    tags: [smoke]
  - name: slow path
    tool: slow
    args: {ms: 1}
    tags: [slow]
  - name: another echo
    tool: echo
    args: {text: b}
"#;
    config(&dir, &[], "", tests);
    let (out, report) = run_tests(&dir, &["-k", "tag:smoke"]);
    assert_eq!(out.code, 0, "{out:?}");
    let names: Vec<String> = results(&report)
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(names, ["smoke echo"]);
    let (_, report) = run_tests(&dir, &["--filter", "ECHO"]);
    assert_eq!(results(&report).len(), 2);
    let none = toolproof_in(&dir.0, &["run", "-k", "nothing-matches"], &[]);
    assert_eq!(none.code, 2, "{none:?}");
    assert!(none.stderr.contains("selects none"), "{none:?}");
}

#[test]
fn the_html_report_covers_every_phase_with_failures_first() {
    let dir = Dir::new("suite-html");
    config(
        &dir,
        &[],
        "",
        "  - name: passes\n    tool: echo\n    args: {text: a}\n  - name: fails <b>bold</b>\n    tool: echo\n    args: {text: a}\n    expect: {contains: zzz}\n",
    );
    let (out, _) = run_tests(&dir, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let html = dir.read("r.html");
    assert!(
        html.contains("<!DOCTYPE html>") || html.contains("<!doctype html>"),
        "{html}"
    );
    for section in [
        "id=\"checks\"",
        "id=\"tests\"",
        "id=\"evals\"",
        "id=\"bench\"",
        "id=\"fuzz\"",
    ] {
        assert!(html.contains(section), "{section} missing");
    }
    assert!(
        !html.contains("<b>bold</b>"),
        "untrusted text must be escaped"
    );
    let fail = html.find("fails &lt;b&gt;").expect("failing row");
    let pass = html.find(">passes<").expect("passing row");
    assert!(fail < pass, "failing rows come first");
}

/// Patterns and paths as mcp-toolproof reads them; each verdict here is the one mcp-toolproof
/// 0.3.1 gives on the same config (checked side by side when the test was written).
const PYTHON_FORMS: &str = r#"  - name: look-behind
    tool: echo
    args: {text: "order #42"}
    expect: {regex: "(?<=#)\\d+"}
  - name: back-reference
    tool: echo
    args: {text: hello hello}
    expect: {regex: "^(\\w+) \\1$"}
  - name: named groups
    tool: echo
    args: {text: abba}
    expect: {regex: "^(?P<a>a)(?P<b>b)(?P=b)(?P=a)\\Z"}
  - name: dollar before a final newline
    tool: echo
    args: {text: "done\n"}
    expect: {regex: "done$"}
  - name: connector punctuation is not a word character
    tool: echo
    args: {text: "\u203f"}
    expect: {regex: "^\\w$"}
  - name: path without dollar and len
    tool: add
    args: {a: 2, b: 3}
    expect:
      jsonpath:
        result: {equals: 5}
        "`len`": {equals: 1}
"#;

#[test]
fn python_regexes_and_jsonpath_ng_paths_get_the_reference_verdicts() {
    let dir = Dir::new("suite-python-forms");
    config(&dir, &[], "", PYTHON_FORMS);
    let (out, report) = run_tests(&dir, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let r = results(&report);
    let status = |n: &str| by_name(&r, n)["status"].as_str().unwrap_or("").to_owned();
    for passing in [
        "look-behind",
        "back-reference",
        "named groups",
        "dollar before a final newline",
        "path without dollar and len",
    ] {
        assert_eq!(status(passing), "passed", "{:#}", by_name(&r, passing));
    }
    assert_eq!(
        by_name(&r, "connector punctuation is not a word character")["failures"][0],
        "result does not match /^\\w$/: \u{203f}"
    );
}

#[test]
fn jsonpath_ng_only_syntax_is_a_config_error_with_the_rfc_9535_form() {
    let dir = Dir::new("suite-jsonpath-ng");
    config(
        &dir,
        &[],
        "",
        "  - name: union\n    tool: add\n    args: {a: 1, b: 2}\n    expect:\n      jsonpath:\n        \"$.result | $.other\": {}\n",
    );
    let (out, _) = run_tests(&dir, &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("toolproof.yaml:11:31: `$.result | $.other` is not a valid JSONPath: `|` (union) or `&` (intersection) of paths is jsonpath-ng syntax, not RFC 9535"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("hint: write one `jsonpath:` entry per path"),
        "{}",
        out.stderr
    );
}

/// mcp-server-sqlite answers a refused or failed query with its error as text and `isError`
/// false; the fake's `read_query` does the same.
const ERRORS_AS_SUCCESS: &str = r#"  - name: expects success
    tool: read_query
    args: {query: DELETE FROM t}
    expect: {is_error: false}
  - name: says nothing
    tool: read_query
    args: {query: "SELECT * FROM"}
  - name: a real answer
    tool: read_query
    args: {query: SELECT 1}
    expect: {is_error: false}
  - name: wants an error
    tool: read_query
    args: {query: DROP TABLE t}
    expect: {is_error: true}
"#;

#[test]
fn an_error_returned_as_success_is_named_with_its_text_in_every_report() {
    let dir = Dir::new("suite-error-as-success");
    config(
        &dir,
        &["--fault", "error-as-success"],
        "",
        ERRORS_AS_SUCCESS,
    );
    let (out, report) = run_tests(&dir, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let r = results(&report);
    let refused = "Error: Only SELECT queries are allowed for read_query";

    // Expecting success, the test fails on it, naming the kind and the text.
    let t = by_name(&r, "expects success");
    assert_eq!(t["status"], "failed", "{t:#}");
    assert_eq!(
        t["failures"][0],
        format!(
            "error-as-success: expected success; isError is false, but the tool's only text \
             reads as an error: {refused}"
        )
    );
    // Saying nothing, the test passes as in mcp-toolproof, with a warning.
    let t = by_name(&r, "says nothing");
    assert_eq!(t["status"], "passed", "{t:#}");
    let warning = t["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.starts_with(
            "error-as-success: isError is false, but the tool's only text reads as an error: \
             Database error: near \"SELECT * FROM\": syntax error;"
        ),
        "{warning}"
    );
    // A real answer is none.
    let t = by_name(&r, "a real answer");
    assert_eq!(t["status"], "passed", "{t:#}");
    assert!(t.get("warnings").is_none(), "{t:#}");
    // Expecting an error, the test still fails (the flag is wrong), and says why.
    let t = by_name(&r, "wants an error");
    assert_eq!(t["status"], "failed", "{t:#}");
    assert_eq!(
        t["failures"][0],
        format!(
            "expected an error but the tool succeeded: {refused} (error-as-success: the text \
             reads as an error, but isError is false)"
        )
    );

    // The console, JUnit and HTML show the warning of the passing test too.
    assert!(
        out.stdout
            .contains("warning: error-as-success: isError is false"),
        "{}",
        out.stdout
    );
    let junit = dir.read("j.xml");
    assert!(
        junit.contains("warning: error-as-success: isError is false"),
        "{junit}"
    );
    let html = dir.read("r.html");
    assert!(
        html.contains("warning: error-as-success: isError is false"),
        "{html}"
    );
}
