//! Configs written for mcp-toolproof 0.3.1 read the same here: YAML 1.1 values reach the server
//! and the eval cache key as the reference sends them, typed fields take what pydantic takes,
//! `base_dir` is accepted with a warning, and every config error is listed at once.

use super::*;

/// The `tools/call` arguments the fake server logged.
fn logged_arguments(log: &str) -> Vec<Value> {
    log.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["message"]["method"] == "tools/call")
        .map(|entry| entry["message"]["params"]["arguments"].clone())
        .collect()
}

/// The `tools/call` lines the fake server received, as text (every digit of a number kept).
fn logged_call_lines(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["message"]["method"] == "tools/call")
        .filter_map(|entry| entry["text"].as_str().map(str::to_owned))
        .collect()
}

/// The values are the ones mcp-toolproof 0.3.1 sent for the same YAML, read from the same
/// fake server's log (PyYAML `safe_load`, then pydantic's JSON). Integers beyond 64 bits go
/// out with every digit, as Python ints do.
#[test]
fn yaml_1_1_arguments_reach_the_server_as_mcp_toolproof_sends_them() {
    let dir = Dir::new("yaml11-args");
    let log = dir.path("calls.jsonl");
    let server = yaml_list(&[&fake(), "--log", &log.display().to_string()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            r#"server:
  command: {server}
checks:
  enabled: false
tests:
  - name: yaml 1.1 values
    tool: echo
    args:
      text: hi
      a: yes
      b: 0755
      c: 1e3
      d: 0x1F
      e: 1:30
      f: 2024-01-15
      g: 2024-01-15 10:00:00
      h: 2024-01-15T10:00:00Z
      i: 2024-01-15T10:00:00.5+02:00
      j: 1_000.5
      n: 0b101
      o: ~
      p: 190:20:30.15
      q: 2024-01-15 10:00:00.123456789
      r: 1.0
      s: 123456789012345678901234567890
      t: Off
      u: "yes"
      v: '0755'
      w: y
      x: 1.0e+3
      y: -.5
      z: 0x1_0000_0000_0000_0000_0000_0000_0000_0001
      k: {{yes: 1, 0x10: 2, 123456789012345678901234567890: 3}}
    expect:
      contains: hi
"#
        ),
    );
    let out = toolproof_in(&dir.0, &["run"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let sent = logged_arguments(&std::fs::read_to_string(&log).expect("the fake server's log"));
    let want = serde_json::json!({
        "text": "hi", "a": true, "b": 493, "c": "1e3", "d": 31, "e": 90, "f": "2024-01-15",
        "g": "2024-01-15T10:00:00", "h": "2024-01-15T10:00:00Z",
        "i": "2024-01-15T10:00:00.500000+02:00", "j": 1000.5, "n": 5, "o": null, "p": 685230.15,
        "q": "2024-01-15T10:00:00.123456", "r": 1.0, "s": 1.2345678901234568e29, "t": false,
        "u": "yes", "v": "0755", "w": "y", "x": 1000.0, "y": "-.5",
        "z": 3.402823669209385e38,
        "k": {"true": 1, "16": 2, "123456789012345678901234567890": 3},
    });
    assert_eq!(sent, vec![want]);
    let lines = logged_call_lines(&std::fs::read_to_string(&log).expect("the fake server's log"));
    for digits in [
        r#""s":123456789012345678901234567890"#,
        r#""z":340282366920938463463374607431768211457"#,
    ] {
        assert!(lines[0].contains(digits), "{digits} not in {lines:?}");
    }
}

/// `tests/fixtures/yaml11/bigint/.toolproof-cache` was written by mcp-toolproof 0.3.1 (see
/// `make_eval_fixture.py`) with integers beyond 64 bits in `params` (decimal, hex, sexagesimal,
/// negative, in a list) and in `expect_args`: toolproof hits it offline, and asked afresh it
/// sends every digit and writes the file under the same key.
#[test]
fn integers_beyond_64_bits_in_params_hit_a_cache_mcp_toolproof_wrote_and_go_out_exact() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/yaml11/bigint");
    let written: Vec<String> = std::fs::read_dir(fixture.join(".toolproof-cache/evals"))
        .expect("the fixture's cache")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    let fake_path = fake();

    let dir = Dir::new("bigint-cache");
    evals::copy_tree(&fixture, &dir.0);
    let (out, report) = evals::eval_in(
        &dir,
        &["--offline"],
        &[
            ("FAKE_MCP", fake_path.as_str()),
            ("OPENAI_API_KEY", ""),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let model = evals::model0(&report);
    assert_eq!(model["uncached"], serde_json::json!([]), "{out:?}");
    assert_eq!(model["cases"][0]["status"], "correct", "{report}");

    let fresh = Dir::new("bigint-ask");
    std::fs::copy(fixture.join("toolproof.yaml"), fresh.path("toolproof.yaml")).expect("copy");
    let log = fresh.path("llm.jsonl").display().to_string();
    let server = evals::llm(&["--log", &log]);
    let openai = format!("{}/v1", server.url);
    let (out, report) = evals::eval_in(
        &fresh,
        &[],
        &[
            ("FAKE_MCP", fake_path.as_str()),
            ("OPENAI_API_KEY", evals::KEY),
            ("OPENAI_BASE_URL", openai.as_str()),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(evals::model0(&report)["cases"][0]["status"], "correct");
    let sent = evals::requests(&fresh, "llm.jsonl");
    assert_eq!(sent.len(), 1, "{sent:?}");
    let raw = sent[0]["raw"].as_str().unwrap_or_default();
    for digits in [
        r#""seed":123456789012345678901234567890"#,
        r#""big":340282366920938463463374607431768211457"#,
        r#""neg":-340282366920938463463374607431768211457"#,
        r#""sexa":4738381338321616896000000000000000000000000"#,
        r#""list":[18446744073709551616,-9223372036854775809,7]"#,
    ] {
        assert!(raw.contains(digits), "{digits} not in {raw}");
    }
    let ours: Vec<String> = std::fs::read_dir(fresh.path(".toolproof-cache/evals"))
        .expect("the cache toolproof wrote")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(ours, written, "the key mcp-toolproof 0.3.1 computes");
}

/// `tests/fixtures/yaml11/eval/.toolproof-cache` was written by mcp-toolproof 0.3.1 (see
/// `make_eval_fixture.py`), with `temperature: 1e-1` (text under YAML 1.1),
/// `parallel_tool_calls: no` (false), `seed: 0x10` and `user: 0755` in `params`.
#[test]
fn yaml_1_1_params_and_expected_arguments_hit_a_cache_mcp_toolproof_wrote() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/yaml11/eval");
    let dir = Dir::new("yaml11-cache");
    evals::copy_tree(&fixture, &dir.0);
    let fake_path = fake();
    let (out, report) = evals::eval_in(
        &dir,
        &["--offline"],
        &[
            ("FAKE_MCP", fake_path.as_str()),
            ("OPENAI_API_KEY", ""),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let model = evals::model0(&report);
    assert_eq!(model["uncached"], serde_json::json!([]), "{out:?}");
    assert_eq!(report["phases"]["evals"]["results"]["cache"]["asked"], 0);
    let statuses: Vec<&str> = model["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["status"].as_str())
        .collect();
    assert_eq!(statuses, ["correct", "correct"], "{report}");
}

/// mcp-toolproof validates with pydantic's lax mode: quoted and numeric booleans, and numbers
/// in text, load there, so they load here with the same meaning.
#[test]
fn quoted_and_numeric_booleans_load_as_pydantic_reads_them() {
    let dir = Dir::new("lax-bool");
    let server = yaml_list(&[&fake()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            r#"server:
  command: {server}
checks:
  enabled: "off"
timeout_ms: "5_000"
tests:
  - name: quoted true
    tool: fail
    expect: {{is_error: "true"}}
  - name: numeric false
    tool: echo
    args: {{text: hi}}
    retries: "1"
    expect: {{is_error: 0, output_schema: "N"}}
  - name: quoted false fails on an error result
    tool: fail
    expect: {{is_error: "False"}}
"#
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let report: Value = serde_json::from_str(&dir.read("r.json")).expect("JSON report");
    let verdicts: Vec<(String, String)> = report["phases"]["tests"]["results"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or("").to_owned(),
                t["status"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("quoted true".to_owned(), "passed".to_owned()),
            ("numeric false".to_owned(), "passed".to_owned()),
            (
                "quoted false fails on an error result".to_owned(),
                "failed".to_owned()
            ),
        ]
    );
    assert_eq!(report["phases"]["checks"]["status"], "skipped", "{report}");
}

/// mcp-toolproof accepts a top-level `base_dir` and ignores it (its bug 16); here the file
/// runs too, and stderr and the JSON report say the key has no effect.
#[test]
fn base_dir_runs_with_a_warning_on_stderr_and_in_the_report() {
    let dir = Dir::new("base-dir");
    let server = yaml_list(&[&fake()]);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nbase_dir: /nowhere\ntests:\n  - name: echo\n    tool: echo\n    args: {{text: hi}}\n"
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(
            "warning: toolproof.yaml:3:1: `base_dir` has no effect: relative paths always resolve from the config file's folder"
        ),
        "{}",
        out.stderr
    );
    let report: Value = serde_json::from_str(&dir.read("r.json")).expect("JSON report");
    let warnings = report["config_warnings"]
        .as_array()
        .expect("config_warnings");
    assert_eq!(warnings.len(), 1, "{report}");
    assert!(
        warnings[0]
            .as_str()
            .is_some_and(|w| w.starts_with("toolproof.yaml:3:1: `base_dir` has no effect")),
        "{warnings:?}"
    );
    assert_eq!(report["phases"]["tests"]["status"], "passed");
}

/// mcp-toolproof lists every validation error at once; so does toolproof: exit 2, each error
/// on stderr with `file:line:column` and its hint, across sections, in document order.
#[test]
fn every_config_error_is_reported_at_once_with_exit_2() {
    let dir = Dir::new("many-errors");
    dir.write(
        "toolproof.yaml",
        r#"server:
  command: [python, server.py]
  startup_timeout_s: soon
checks:
  strict: maybe
tests:
  - name: t1
    tool: echo
    expect: {is_eror: true}
  - tool: add
bench:
  calls: 0
evals:
  provider: openia
"#,
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    let places: Vec<&str> = out
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("error: toolproof.yaml:"))
        .filter_map(|l| l.split(": ").next())
        .collect();
    assert_eq!(
        places,
        ["3:22", "5:11", "9:14", "10:5", "12:10", "14:13"],
        "{}",
        out.stderr
    );
    for needle in [
        "`server.startup_timeout_s` must be a number",
        "`checks.strict` must be true or false",
        "unknown key `is_eror` in `tests[0].expect`, did you mean `is_error`?",
        "`tests[1]` is missing the required key `name`",
        "`bench.calls` must be at least 1",
        "hint: did you mean `openai`?",
    ] {
        assert!(out.stderr.contains(needle), "{needle}: {}", out.stderr);
    }
    assert!(
        !dir.path("r.json").exists(),
        "no report is written for a config that cannot run"
    );
}
