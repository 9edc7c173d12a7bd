//! Tests of `config::load` and friends on YAML files written to a temp folder.

use std::collections::HashMap;
use std::env::VarError;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;

use super::load::load_with_env;
use super::*;

mod context;
mod crowd;
mod durations;
mod files;
mod stress;

/// A folder under the system temp dir, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

/// A fresh folder for one test.
fn temp_folder(name: &str) -> Scratch {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "toolproof-config-{}-{n}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
    Scratch(dir)
}

/// A `toolproof.yaml` in its own folder; both go away when dropped.
struct YamlFile {
    path: PathBuf,
    _dir: Scratch,
}

impl std::ops::Deref for YamlFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

/// Writes `toolproof.yaml` with `text` into a fresh folder.
fn write(name: &str, text: impl AsRef<[u8]>) -> YamlFile {
    let dir = temp_folder(name);
    let path = dir.join("toolproof.yaml");
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    YamlFile { path, _dir: dir }
}

/// The provider names the loader is given (the registry's, in the binary).
const PROVIDERS: Option<&[&str]> = Some(&["anthropic", "openai", "command"]);

fn fake_env(name: &str) -> Result<String, VarError> {
    let vars: HashMap<&str, &str> = HashMap::from([
        ("TP_TEST_TOKEN", "s3cret-token"),
        ("TP_TEST_HOST", "mcp.example.test"),
        ("TP_TEST_EMPTY", ""),
        ("TP_TEST_DIR", "work"),
        ("TP_TEST_BIN", "srv"),
    ]);
    vars.get(name)
        .map(|v| (*v).to_owned())
        .ok_or(VarError::NotPresent)
}

fn load_text(name: &str, text: impl AsRef<[u8]>) -> Result<LoadedConfig, ConfigError> {
    load_with_env(&write(name, text), &fake_env, PROVIDERS)
}

fn loaded(name: &str, text: &str) -> LoadedConfig {
    load_text(name, text).unwrap_or_else(|e| panic!("expected {name} to load, got:\n{e}"))
}

/// The rendered error with the temp path replaced by `toolproof.yaml`.
fn rendered(name: &str, text: impl AsRef<[u8]>) -> String {
    match load_text(name, text) {
        Ok(_) => panic!("expected {name} to fail"),
        Err(mut e) => {
            assert!(
                !e.message.contains("internal error"),
                "{name}: the loader panicked: {e}"
            );
            e.file = e.file.map(|_| PathBuf::from("toolproof.yaml"));
            if let Some(others) = &mut e.others {
                for other in &mut others.errors {
                    other.file = other.file.as_ref().map(|_| PathBuf::from("toolproof.yaml"));
                }
            }
            e.to_string()
        }
    }
}

const SERVER: &str = "server:\n  command: [python, server.py]\n";

// ---------------------------------------------------------------- errors, one per kind

#[test]
fn error_file_not_found() {
    let dir = temp_folder("missing");
    let err = load(&dir.join("nope.yaml"))
        .err()
        .map(|e| e.to_string().replace(&dir.display().to_string(), "[TMP]"));
    insta::assert_snapshot!("file_not_found", err.unwrap_or_default());
}

#[test]
fn error_path_is_a_folder() {
    let dir = temp_folder("folder");
    let err = load(&dir)
        .err()
        .map(|e| e.to_string().replace(&dir.display().to_string(), "[TMP]"));
    insta::assert_snapshot!("path_is_a_folder", err.unwrap_or_default());
}

#[test]
fn error_yaml_syntax() {
    insta::assert_snapshot!(
        "yaml_syntax",
        rendered("syntax", "server:\n  command: [python, server.py\n")
    );
}

#[test]
fn error_yaml_tabs() {
    insta::assert_snapshot!(
        "yaml_tabs",
        rendered("tabs", "server:\n\tcommand: [python]\n")
    );
}

#[test]
fn error_duplicate_key() {
    insta::assert_snapshot!(
        "duplicate_key",
        rendered("dup", format!("{SERVER}retries: 1\nretries: 2\n"))
    );
}

#[test]
fn error_duplicate_key_in_free_form_args() {
    insta::assert_snapshot!(
        "duplicate_key_in_args",
        rendered(
            "dup-args",
            format!("{SERVER}tests:\n  - name: t\n    tool: x\n    args: {{a: 1, a: 2}}\n")
        )
    );
}

#[test]
fn error_multiple_documents() {
    insta::assert_snapshot!(
        "multiple_documents",
        rendered("docs", format!("{SERVER}---\n{SERVER}"))
    );
}

#[test]
fn error_top_level_not_a_mapping() {
    insta::assert_snapshot!(
        "top_level_not_a_mapping",
        rendered("list", "- server: {url: http://x}\n")
    );
}

#[test]
fn error_empty_file() {
    insta::assert_snapshot!("empty_file", rendered("empty", "# just a comment\n"));
    // Whitespace only is empty too.
    assert!(rendered("blank", "\n  \n").contains("the config file is empty"));
}

#[test]
fn error_unknown_top_level_key_suggests() {
    insta::assert_snapshot!(
        "unknown_key_top_level",
        rendered("typo-top", format!("{SERVER}timout_ms: 5\n"))
    );
}

#[test]
fn error_unknown_nested_key_suggests() {
    insta::assert_snapshot!(
        "unknown_key_server",
        rendered("typo-server", "server:\n  comand: [python, server.py]\n")
    );
}

#[test]
fn error_unknown_key_deep_suggests() {
    insta::assert_snapshot!(
        "unknown_key_expect",
        rendered(
            "typo-expect",
            format!("{SERVER}tests:\n  - name: t\n    tool: x\n    expect:\n      is_eror: true\n")
        )
    );
}

#[test]
fn error_unknown_key_without_near_lists_keys() {
    insta::assert_snapshot!(
        "unknown_key_list",
        rendered("far", format!("{SERVER}checks:\n  banana: 1\n"))
    );
}

#[test]
fn error_unknown_key_in_jsonpath_check() {
    insta::assert_snapshot!(
        "unknown_key_jsonpath",
        rendered(
            "typo-jsonpath",
            format!(
                "{SERVER}tests:\n  - name: t\n    tool: x\n    expect:\n      jsonpath:\n        \"$.a\": {{typ: string}}\n"
            )
        )
    );
}

#[test]
fn error_messages_stay_on_one_line() {
    let msg = rendered("newline-key", format!("{SERVER}\"a\\nb\": 1\n"));
    assert_eq!(msg.lines().count(), 2, "{msg}");
    assert!(msg.contains("unknown key `a\\nb`"), "{msg}");
}

#[test]
fn error_mapping_where_a_list_belongs() {
    insta::assert_snapshot!(
        "tests_not_a_list",
        rendered(
            "tests-map",
            format!("{SERVER}tests:\n  name: t\n  tool: x\n")
        )
    );
}

/// mcp-toolproof accepts a top-level `base_dir` and ignores it (its bug 16): the file loads
/// here too, `base_dir` stays the file's folder, and a warning says the key does nothing.
#[test]
fn base_dir_loads_with_a_warning_and_changes_nothing() {
    let c = loaded("base-dir", &format!("{SERVER}base_dir: /srv\n"));
    let warnings: Vec<(Option<u64>, Option<u64>, String)> = c
        .warnings
        .iter()
        .map(|w| (w.line, w.column, w.message.clone()))
        .collect();
    assert_eq!(
        warnings,
        [(
            Some(3),
            Some(1),
            "`base_dir` has no effect: relative paths always resolve from the config file's folder"
                .to_owned()
        )]
    );
    assert_ne!(c.base_dir, std::path::Path::new("/srv"));
    assert!(
        c.base_dir.ends_with(
            c.path
                .parent()
                .and_then(|p| p.file_name())
                .unwrap_or_default()
        )
    );
    assert!(loaded("no-base-dir", SERVER).warnings.is_empty());
}

#[test]
fn error_wrong_type_whole_number() {
    insta::assert_snapshot!(
        "wrong_type_retries",
        rendered("retries", format!("{SERVER}retries: many\n"))
    );
}

#[test]
fn error_wrong_type_negative() {
    insta::assert_snapshot!(
        "wrong_type_negative",
        rendered(
            "neg",
            format!("{SERVER}tests:\n  - name: t\n    tool: x\n    retries: -2\n")
        )
    );
}

#[test]
fn error_wrong_type_command_string() {
    insta::assert_snapshot!(
        "wrong_type_command_string",
        rendered("cmd-string", "server:\n  command: python server.py\n")
    );
}

#[test]
fn error_wrong_type_boolean() {
    insta::assert_snapshot!(
        "wrong_type_boolean",
        rendered("bool", format!("{SERVER}checks:\n  strict: maybe\n"))
    );
}

#[test]
fn error_wrong_type_string_from_number() {
    insta::assert_snapshot!(
        "wrong_type_name_number",
        rendered(
            "name-num",
            format!("{SERVER}tests:\n  - name: 2024\n    tool: x\n")
        )
    );
}

#[test]
fn error_contains_not_string_or_list() {
    insta::assert_snapshot!(
        "contains_wrong_type",
        rendered(
            "contains",
            format!(
                "{SERVER}tests:\n  - name: t\n    tool: x\n    expect: {{contains: {{a: 1}}}}\n"
            )
        )
    );
    insta::assert_snapshot!(
        "contains_item_wrong_type",
        rendered(
            "contains-item",
            format!(
                "{SERVER}tests:\n  - name: t\n    tool: x\n    expect: {{contains: [ok, [nested]]}}\n"
            )
        )
    );
}

#[test]
fn error_enum_value_suggests() {
    insta::assert_snapshot!(
        "enum_provider",
        rendered(
            "provider",
            format!("{SERVER}evals:\n  provider: antropic\n  cases: []\n")
        )
    );
    insta::assert_snapshot!(
        "enum_protocol",
        rendered(
            "protocol",
            "server:\n  url: http://127.0.0.1:1/mcp\n  protocol: latest\n"
        )
    );
}

#[test]
fn error_missing_server() {
    insta::assert_snapshot!("missing_server", rendered("no-server", "retries: 1\n"));
}

#[test]
fn error_missing_required_test_key() {
    insta::assert_snapshot!(
        "missing_test_tool",
        rendered("no-tool", format!("{SERVER}tests:\n  - name: t\n"))
    );
}

#[test]
fn error_non_text_key() {
    insta::assert_snapshot!(
        "non_text_key",
        rendered("list-key", format!("{SERVER}? [a, b]\n: 1\n"))
    );
}

#[test]
fn error_non_finite_number_in_args() {
    insta::assert_snapshot!(
        "nan_in_args",
        rendered(
            "nan",
            format!("{SERVER}tests:\n  - name: t\n    tool: x\n    args: {{x: .nan}}\n")
        )
    );
}

#[test]
fn error_server_both_command_and_url() {
    insta::assert_snapshot!(
        "server_both",
        rendered(
            "both",
            "server:\n  command: [python]\n  url: http://x/mcp\n"
        )
    );
}

#[test]
fn error_server_neither_command_nor_url() {
    insta::assert_snapshot!(
        "server_neither",
        rendered("neither", "server:\n  env: {A: b}\n")
    );
    // `server:` with nothing under it is the same mistake.
    assert!(rendered("server-null", "server:\n").contains("neither `command` nor `url`"));
}

#[test]
fn error_headers_with_command_server() {
    insta::assert_snapshot!(
        "headers_with_command",
        rendered(
            "headers",
            "server:\n  command: [python]\n  headers:\n    Authorization: Bearer x\n"
        )
    );
}

#[test]
fn error_empty_command() {
    insta::assert_snapshot!(
        "empty_command",
        rendered("empty-cmd", "server:\n  command: []\n")
    );
    insta::assert_snapshot!(
        "empty_program",
        rendered("empty-prog", "server:\n  command: ['', x]\n")
    );
}

#[test]
fn inherit_env_is_off_unless_set_and_only_for_a_command_server() {
    let plain = load_text("inherit-off", "server:\n  command: [python]\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!plain.config.server.inherit_env);
    let on = load_text(
        "inherit-on",
        "server:\n  command: [python]\n  inherit_env: yes\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(on.config.server.inherit_env);
    let msg = rendered(
        "inherit-url",
        "server:\n  url: http://127.0.0.1:1/mcp\n  inherit_env: true\n",
    );
    assert!(
        msg.starts_with(
            "toolproof.yaml:3:16: `server.inherit_env` only applies to `command` servers"
        ),
        "{msg}"
    );
}

#[test]
fn error_url_scheme() {
    insta::assert_snapshot!(
        "url_scheme",
        rendered("scheme", "server:\n  url: 127.0.0.1:3000/mcp\n")
    );
}

#[test]
fn error_url_scheme_does_not_print_expanded_values() {
    let msg = rendered(
        "scheme-secret",
        "server:\n  url: \"${TP_TEST_TOKEN}/mcp\"\n",
    );
    assert!(msg.contains("${TP_TEST_TOKEN}/mcp"), "{msg}");
    assert!(!msg.contains("s3cret"), "{msg}");
}

#[test]
fn error_unset_env_var() {
    insta::assert_snapshot!(
        "env_unset",
        rendered(
            "unset",
            "server:\n  url: https://x.test/mcp\n  headers:\n    Authorization: \"Bearer ${TP_TEST_MISSING}\"\n"
        )
    );
}

#[test]
fn error_unset_env_var_through_the_real_environment() {
    // A name no environment sets; `load` reads the process environment.
    let path = write(
        "real-env",
        "server:\n  command: [python, \"${TOOLPROOF_CONFIG_TEST_UNSET_9F3A2}\"]\n",
    );
    let err = load(&path).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        err.contains(
            "2:21: environment variable TOOLPROOF_CONFIG_TEST_UNSET_9F3A2 is not set (used in server.command[1])"
        ),
        "{err}"
    );
}

#[test]
fn error_ranges() {
    insta::assert_snapshot!(
        "range_timeout_ms",
        rendered("timeout0", format!("{SERVER}timeout_ms: 0\n"))
    );
    insta::assert_snapshot!(
        "range_startup_timeout",
        rendered(
            "startup",
            "server:\n  command: [python]\n  startup_timeout_s: -1\n"
        )
    );
    insta::assert_snapshot!(
        "range_min_accuracy",
        rendered(
            "accuracy",
            format!("{SERVER}evals:\n  min_accuracy: 1.5\n  cases: []\n")
        )
    );
    insta::assert_snapshot!(
        "range_similarity",
        rendered(
            "similarity",
            format!("{SERVER}checks:\n  similarity_threshold: 2\n")
        )
    );
    insta::assert_snapshot!(
        "unknown_check_id",
        rendered(
            "checkid",
            format!("{SERVER}checks:\n  disable: [similar-tool]\n")
        )
    );
    insta::assert_snapshot!(
        "unknown_client",
        rendered(
            "client",
            format!("{SERVER}checks:\n  clients:\n    - anthropic\n    - gemeni\n    - openai\n")
        )
    );
    insta::assert_snapshot!(
        "range_bench_calls",
        rendered("calls", format!("{SERVER}bench:\n  calls: 0\n"))
    );
    insta::assert_snapshot!(
        "range_bench_concurrency",
        rendered("concurrency", format!("{SERVER}bench:\n  concurrency: 0\n"))
    );
    insta::assert_snapshot!(
        "range_fuzz_examples",
        rendered("examples", format!("{SERVER}fuzz:\n  max_examples: 0\n"))
    );
    insta::assert_snapshot!(
        "range_test_timeout",
        rendered(
            "test-timeout",
            format!("{SERVER}tests:\n  - name: t\n    tool: x\n    timeout_ms: -5\n")
        )
    );
    insta::assert_snapshot!(
        "range_error_rate",
        rendered(
            "error-rate",
            format!(
                "{SERVER}bench:\n  targets:\n    - tool: x\n      thresholds: {{max_error_rate: 5}}\n"
            )
        )
    );
}

#[test]
fn error_eval_case_without_expect_tool() {
    insta::assert_snapshot!(
        "eval_expect_tool_missing",
        rendered(
            "expect-tool",
            format!(
                "{SERVER}evals:\n  cases:\n    - prompt: add 2 and 3\n      expect_tool: add\n    - prompt: tell a joke\n"
            )
        )
    );
}

#[test]
fn error_command_provider_without_command() {
    insta::assert_snapshot!(
        "eval_command_missing",
        rendered(
            "provider-cmd",
            format!("{SERVER}evals:\n  provider: command\n  cases: []\n")
        )
    );
}

#[test]
fn error_invalid_regex() {
    insta::assert_snapshot!(
        "invalid_regex",
        rendered(
            "regex",
            format!("{SERVER}tests:\n  - name: t\n    tool: x\n    expect: {{regex: \"a(b\"}}\n")
        )
    );
}

#[test]
fn error_jsonpath_min_above_max() {
    insta::assert_snapshot!(
        "jsonpath_min_max",
        rendered(
            "minmax",
            format!(
                "{SERVER}tests:\n  - name: t\n    tool: x\n    expect:\n      jsonpath:\n        $.n: {{min: 5, max: 1}}\n"
            )
        )
    );
}

#[test]
fn error_not_utf8() {
    let mut bytes = b"server:\n  command: [py".to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    bytes.extend_from_slice(b"]\n");
    insta::assert_snapshot!("not_utf8", rendered("utf8", bytes));
}

// ---------------------------------------------------------------- hostile input

#[test]
fn hostile_inputs_give_errors_not_panics() {
    let bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n";
    let deep_block: String = (0..200)
        .map(|i| format!("{}k:\n", "  ".repeat(i)))
        .collect();
    let deep_flow = format!("server: {}{}", "[".repeat(500), "]".repeat(500));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("bomb", bomb.as_bytes().to_vec()),
        ("deep-block", deep_block.into_bytes()),
        ("deep-flow", deep_flow.into_bytes()),
        ("tabs", b"server:\n\t\tcommand:\t[x]\n".to_vec()),
        ("nul", b"server:\n  command: [\0]\n".to_vec()),
        ("binary", (0u8..=255).cycle().take(4096).collect()),
        ("utf16", b"\xff\xfes\0e\0r\0".to_vec()),
        ("lone-colon", b":".to_vec()),
        ("anchor-loop", b"a: &a\n  b: *a\n".to_vec()),
        ("bad-tag", b"server: !!int {url: x}\n".to_vec()),
        (
            "merge",
            b"base: &b {url: http://x}\nserver:\n  <<: *b\n".to_vec(),
        ),
        (
            "huge-int",
            b"retries: 99999999999999999999999999999999999999\n".to_vec(),
        ),
        ("bom", b"\xef\xbb\xbfserver: {url: 'ftp://x'}\n".to_vec()),
    ];
    for (name, bytes) in cases {
        // `rendered` fails the test if the loader panicked (caught on its thread).
        let _ = load_text(name, &bytes).map(|_| ()).map_err(|e| {
            assert!(!e.message.contains("internal error"), "{name}: {e}");
            assert!(!e.message.is_empty(), "{name}");
        });
    }
    // Just under the nesting limit: loads, whatever the calling thread's stack.
    let deep = load_text(
        "deep-args",
        format!(
            "{SERVER}tests:\n  - name: t\n    tool: x\n    args: {}1{}\n",
            "{a: ".repeat(58),
            "}".repeat(58)
        ),
    );
    assert!(
        deep.is_ok(),
        "58 levels of args must load: {:?}",
        deep.err()
    );
    let too_deep = rendered(
        "too-deep",
        format!(
            "{SERVER}tests:\n  - name: t\n    tool: x\n    args: {}1{}\n",
            "{a: ".repeat(70),
            "}".repeat(70)
        ),
    );
    assert!(too_deep.contains("nested too deeply"), "{too_deep}");
}

#[test]
fn mutated_configs_never_panic() {
    // A small deterministic fuzz: cut, duplicate and swap bytes of a full config.
    let base = FULL.as_bytes();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let dir = temp_folder("mutations");
    let path = dir.join("toolproof.yaml");
    for _ in 0..150 {
        let mut bytes = base.to_vec();
        for _ in 0..(1 + next() % 4) {
            let len = bytes.len().max(1) as u64;
            let at = (next() % len) as usize;
            match next() % 4 {
                0 => {
                    bytes.truncate(at);
                }
                1 => bytes.insert(
                    at.min(bytes.len()),
                    b"\t:-[{&*!|>'\"#%@`"[(next() % 16) as usize],
                ),
                2 => {
                    if at < bytes.len() {
                        bytes.remove(at);
                    }
                }
                _ => {
                    let other = (next() % len) as usize;
                    if at < bytes.len() && other < bytes.len() {
                        bytes.swap(at, other);
                    }
                }
            }
        }
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("write: {e}"));
        if let Err(e) = load_with_env(&path, &fake_env, PROVIDERS) {
            assert!(
                !e.message.contains("internal error"),
                "panicked on:\n{}\n{e}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }
}

// ---------------------------------------------------------------- happy paths

const FULL: &str = r#"# every key of mcp-toolproof 0.3.1, plus toolproof's own
server:
  command: [./bin/server, --stdio]
  env:
    API_TOKEN: "${TP_TEST_TOKEN}"
    PLAIN: plain
  cwd: work
  startup_timeout_s: 12
  protocol: "2025-06-18"
timeout_ms: 2500
retries: 2
checks:
  enabled: true
  max_description_length: 300
  strict: true
  disable: [similar-tools]
  similarity_threshold: 0.9
  max_tool_list_tokens: 5000
  clients: [openai-strict, gemini, anthropic-strict]
tests:
  - name: adds
    tool: add
    args: {a: 2, b: 3, flag: NO, mode: 0755, on: yes, t: true}
    expect:
      is_error: false
      equals: {result: 5}
      contains: "5"
      regex: "^\\d+$"
      jsonpath:
        $.result: {type: integer, equals: 5, min: 0, max: 10, exists: true}
      max_latency_ms: 250
      output_schema: false
    timeout_ms: 1000
    retries: 1
  - name: equals null
    tool: nothing
    expect:
      equals: null
      contains: [a, b]
fuzz:
  enabled: false
  max_examples: 20
  timeout_ms: 500
  max_time_s: 30
  seed: 7
  tools: [add]
  skip: [delete]
  include_destructive: true
  valid_must_succeed: true
  invalid_must_fail: false
bench:
  enabled: true
  calls: 40
  concurrency: 4
  warmup: 1
  timeout_ms: 3000
  thresholds: {p50_ms: 10, p95_ms: 20, p99_ms: 30, max_error_rate: 0.01, min_throughput: 100}
  targets:
    - tool: add
      args: {a: 1, b: 2}
      name: add small
      thresholds: {p50_ms: 5}
evals:
  enabled: true
  provider: command
  model: fake-model
  command: [python, picker.py]
  system: You pick tools.
  params: {temperature: 0, stop: ["STOP"]}
  min_accuracy: 0.75
  cache: false
  cache_dir: cache
  timeout_s: 60
  cases:
    - prompt: add 2 and 3
      name: adding
      expect_tool: add
      expect_args: {a: 2, b: 3}
    - prompt: tell me a joke
      expect_tool: null
"#;

#[test]
#[expect(clippy::too_many_lines, reason = "one assertion per key of the file")]
fn every_key_is_read() {
    let l = loaded("full", FULL);
    let base = l.base_dir.clone();
    let c = &l.config;

    assert_eq!(
        c.server.command,
        Some(vec![
            base.join("bin/server").display().to_string(),
            "--stdio".to_owned()
        ])
    );
    assert_eq!(c.server.url, None);
    assert_eq!(
        c.server.env.get("API_TOKEN").map(String::as_str),
        Some("s3cret-token")
    );
    assert_eq!(c.server.env.get("PLAIN").map(String::as_str), Some("plain"));
    assert_eq!(c.server.cwd, Some(base.join("work")));
    assert_eq!(c.server.startup_timeout_s, 12.0);
    assert_eq!(c.server.protocol, ProtocolPin::V20250618);
    assert_eq!(c.timeout_ms, 2500.0);
    assert_eq!(c.retries, 2);

    assert!(c.checks.enabled && c.checks.strict);
    assert_eq!(c.checks.max_description_length, 300);
    assert_eq!(c.checks.disable, vec!["similar-tools"]);
    assert_eq!(c.checks.similarity_threshold, 0.9);
    assert_eq!(c.checks.max_tool_list_tokens, 5000);
    assert_eq!(
        c.checks.clients,
        vec!["openai-strict", "gemini", "anthropic-strict"]
    );

    assert_eq!(c.tests.len(), 2);
    let t = &c.tests[0];
    assert_eq!((t.name.as_str(), t.tool.as_str()), ("adds", "add"));
    assert_eq!(
        serde_json::Value::Object(t.args.clone()),
        json!({"a": 2, "b": 3, "flag": false, "mode": 493, "true": true, "t": true}),
        "free-form values take their YAML 1.1 meaning, keys too, as in mcp-toolproof"
    );
    assert_eq!(t.expect.is_error, Some(false));
    assert_eq!(t.expect.equals, Some(json!({"result": 5})));
    assert_eq!(t.expect.contains, Some(StringOrList::One("5".into())));
    assert_eq!(t.expect.regex.as_deref(), Some("^\\d+$"));
    let jp = &t.expect.jsonpath["$.result"];
    assert_eq!(jp.kind, Some(JsonType::Integer));
    assert_eq!(jp.equals, Some(json!(5)));
    assert_eq!((jp.min, jp.max, jp.exists), (Some(0.0), Some(10.0), true));
    assert_eq!(t.expect.max_latency_ms, Some(250.0));
    assert!(!t.expect.output_schema);
    assert_eq!((t.timeout_ms, t.retries), (Some(1000.0), Some(1)));
    assert_eq!(t.line, Some(21));

    let t = &c.tests[1];
    assert_eq!(
        t.expect.equals,
        Some(serde_json::Value::Null),
        "equals: null is an assertion"
    );
    assert_eq!(
        t.expect.contains,
        Some(StringOrList::Many(vec!["a".into(), "b".into()]))
    );
    assert!(t.expect.output_schema, "output_schema defaults to true");
    assert_eq!((t.timeout_ms, t.retries), (None, None));
    assert_eq!(t.line, Some(35));

    let f = c.fuzz.as_ref().map(|f| {
        (
            f.enabled,
            f.max_examples,
            f.timeout_ms,
            f.max_time_s,
            f.seed,
            f.tools.clone(),
            f.skip.clone(),
            f.include_destructive,
            f.valid_must_succeed,
            f.invalid_must_fail,
        )
    });
    assert_eq!(
        f,
        Some((
            false,
            20,
            500.0,
            30.0,
            Some(7),
            vec!["add".to_owned()],
            vec!["delete".to_owned()],
            true,
            true,
            false
        ))
    );

    let b = c.bench.as_ref().unwrap_or_else(|| panic!("bench section"));
    assert_eq!(
        (b.enabled, b.calls, b.concurrency, b.warmup, b.timeout_ms),
        (true, 40, 4, 1, 3000.0)
    );
    assert_eq!(
        (
            b.thresholds.p50_ms,
            b.thresholds.p95_ms,
            b.thresholds.p99_ms,
            b.thresholds.max_error_rate,
            b.thresholds.min_throughput
        ),
        (Some(10.0), Some(20.0), Some(30.0), Some(0.01), Some(100.0))
    );
    assert_eq!(b.targets.len(), 1);
    assert_eq!(b.targets[0].name.as_deref(), Some("add small"));
    assert_eq!(
        serde_json::Value::Object(b.targets[0].args.clone()),
        json!({"a": 1, "b": 2})
    );
    assert_eq!(
        b.targets[0].thresholds.as_ref().and_then(|t| t.p50_ms),
        Some(5.0)
    );

    let e = c.evals.as_ref().unwrap_or_else(|| panic!("evals section"));
    assert!(e.enabled && !e.cache);
    assert_eq!(e.provider, Some(Provider("command".into())));
    assert_eq!(e.model.as_deref(), Some("fake-model"));
    assert_eq!(
        e.command,
        Some(vec!["python".to_owned(), "picker.py".to_owned()])
    );
    assert_eq!(e.system.as_deref(), Some("You pick tools."));
    assert_eq!(
        serde_json::Value::Object(e.params.clone()),
        json!({"temperature": 0, "stop": ["STOP"]})
    );
    assert_eq!(e.min_accuracy, 0.75);
    assert_eq!(e.cache_dir, base.join("cache"));
    assert_eq!(e.timeout_s, 60.0);
    assert_eq!(e.cases.len(), 2);
    assert_eq!(e.cases[0].expect_tool, Some(Some("add".to_owned())));
    assert_eq!(e.cases[0].name.as_deref(), Some("adding"));
    assert_eq!(
        serde_json::Value::Object(e.cases[0].expect_args.clone()),
        json!({"a": 2, "b": 3})
    );
    assert_eq!(e.cases[1].expect_tool, Some(None), "null means no tool");
    assert_eq!((e.cases[0].line, e.cases[1].line), (Some(75), Some(79)));

    assert_eq!(l.secrets, vec!["s3cret-token".to_owned()]);
    assert_eq!(l.target, "./bin/server --stdio");
}

#[test]
fn defaults_match_the_reference() {
    let l = loaded("minimal", "server:\n  url: http://127.0.0.1:3000/mcp\n");
    let c = &l.config;
    assert_eq!(c.timeout_ms, 10_000.0);
    assert_eq!(c.retries, 0);
    assert!(c.checks.enabled && !c.checks.strict);
    assert_eq!(c.checks.max_description_length, 1024);
    assert!(c.checks.disable.is_empty());
    assert_eq!(c.checks.similarity_threshold, 0.8);
    assert_eq!(c.checks.max_tool_list_tokens, 10_000);
    assert_eq!(
        c.checks.clients,
        vec!["anthropic"],
        "toolproof's own default"
    );
    assert_eq!(c.checks.line, None, "no `checks:` key");
    assert!(c.tests.is_empty());
    assert!(c.fuzz.is_none() && c.bench.is_none() && c.evals.is_none());
    assert_eq!(c.server.startup_timeout_s, 30.0);
    assert_eq!(c.server.protocol, ProtocolPin::Auto);
    assert!(c.server.env.is_empty() && c.server.headers.is_empty());
    assert_eq!(c.server.cwd, None, "an HTTP server has no working folder");
    assert_eq!(l.target, "http://127.0.0.1:3000/mcp");
    assert!(l.secrets.is_empty());

    let l = loaded(
        "sections",
        &format!(
            "{SERVER}fuzz: {{}}\nbench: {{}}\nevals: {{cases: []}}\ntests:\n  - name: t\n    tool: x\n"
        ),
    );
    let c = &l.config;
    let f = c.fuzz.as_ref().unwrap_or_else(|| panic!("fuzz"));
    assert!(f.enabled && f.invalid_must_fail && !f.valid_must_succeed && !f.include_destructive);
    assert_eq!(
        (f.max_examples, f.timeout_ms, f.max_time_s, f.seed),
        (50, 2000.0, 60.0, None)
    );
    let b = c.bench.as_ref().unwrap_or_else(|| panic!("bench"));
    assert!(b.enabled);
    assert_eq!(
        (b.calls, b.concurrency, b.warmup, b.timeout_ms),
        (100, 10, 3, 10_000.0)
    );
    assert!(b.thresholds.p50_ms.is_none() && b.targets.is_empty());
    let e = c.evals.as_ref().unwrap_or_else(|| panic!("evals"));
    assert!(e.enabled && e.cache && e.provider.is_none() && e.model.is_none());
    assert_eq!(e.min_accuracy, 1.0);
    assert_eq!(e.cache_dir, l.base_dir.join(".toolproof-cache"));
    assert_eq!(e.timeout_s, 120.0);
    let t = &c.tests[0];
    assert!(t.args.is_empty() && t.expect.output_schema);
    assert!(t.expect.equals.is_none() && t.expect.is_error.is_none());
    assert_eq!(t.line, Some(7));

    // The Default impls other modules use agree with an empty YAML section.
    assert_eq!(format!("{f:?}"), format!("{:?}", FuzzConfig::default()));
    assert_eq!(format!("{b:?}"), format!("{:?}", BenchConfig::default()));
    assert_eq!(e.line, Some(5));
    let e_default = EvalConfig {
        cache_dir: l.base_dir.join(".toolproof-cache"),
        line: Some(5),
        ..EvalConfig::default()
    };
    assert_eq!(format!("{e:?}"), format!("{e_default:?}"));
    assert_eq!(
        format!("{:?}", t.expect),
        format!("{:?}", Expect::default())
    );
}

#[test]
fn the_checks_and_evals_keys_have_their_lines() {
    let l = loaded(
        "key-lines",
        &format!(
            "{SERVER}\n# findings point here\nchecks:\n  strict: true\nevals: {{cases: []}}\n"
        ),
    );
    assert_eq!(l.config.checks.line, Some(5));
    assert_eq!(l.config.evals.as_ref().and_then(|e| e.line), Some(7));
}

#[test]
fn null_sections_read_as_empty_or_absent() {
    let l = loaded("nulls", &format!("{SERVER}tests:\nchecks:\nfuzz:\n"));
    assert!(l.config.tests.is_empty());
    assert!(l.config.checks.enabled);
    assert!(
        l.config.fuzz.is_none(),
        "`fuzz:` with nothing under it is no fuzz section"
    );
}

#[test]
fn typed_booleans_accept_yaml_1_1_words() {
    let l = loaded(
        "yes-no",
        &format!("{SERVER}checks:\n  strict: yes\n  enabled: On\n"),
    );
    assert!(l.config.checks.strict && l.config.checks.enabled);
}

#[test]
fn env_expansion_in_server_only() {
    let l = loaded(
        "expand",
        r#"server:
  url: "https://${TP_TEST_HOST}/mcp"
  headers:
    Authorization: "Bearer ${TP_TEST_TOKEN}"
    ${TP_TEST_TOKEN}: key-not-expanded
    X-Literal: "$TP_TEST_TOKEN ${TP_TEST_TOKEN:-d} ${1X} $${TP_TEST_EMPTY}"
tests:
  - name: "${TP_TEST_TOKEN}"
    tool: x
    args: {v: "${TP_TEST_TOKEN}"}
"#,
    );
    let s = &l.config.server;
    assert_eq!(s.url.as_deref(), Some("https://mcp.example.test/mcp"));
    assert_eq!(
        s.headers.get("Authorization").map(String::as_str),
        Some("Bearer s3cret-token")
    );
    assert_eq!(
        s.headers.get("${TP_TEST_TOKEN}").map(String::as_str),
        Some("key-not-expanded"),
        "keys are not expanded"
    );
    assert_eq!(
        s.headers.get("X-Literal").map(String::as_str),
        Some("$TP_TEST_TOKEN ${TP_TEST_TOKEN:-d} ${1X} $"),
        "only ${{NAME}} is a reference"
    );
    assert_eq!(
        l.config.tests[0].name, "${TP_TEST_TOKEN}",
        "tests are used as written"
    );
    assert_eq!(
        l.config.tests[0].args.get("v"),
        Some(&json!("${TP_TEST_TOKEN}"))
    );
    assert_eq!(
        l.secrets,
        vec!["mcp.example.test".to_owned(), "s3cret-token".to_owned()],
        "longest first, no empty values"
    );
    assert_eq!(l.target, "https://${TP_TEST_HOST}/mcp");
    assert!(!l.target.contains("mcp.example.test"));
}

#[test]
fn env_expansion_in_command_env_and_cwd() {
    let l = loaded(
        "expand-cmd",
        "server:\n  command: [\"./${TP_TEST_BIN}\", \"--token=${TP_TEST_TOKEN}\"]\n  env: {T: \"${TP_TEST_TOKEN}\"}\n  cwd: \"${TP_TEST_DIR}\"\n",
    );
    let s = &l.config.server;
    assert_eq!(
        s.command,
        Some(vec![
            l.base_dir.join("srv").display().to_string(),
            "--token=s3cret-token".to_owned()
        ])
    );
    assert_eq!(s.env.get("T").map(String::as_str), Some("s3cret-token"));
    assert_eq!(s.cwd, Some(l.base_dir.join("work")));
    assert_eq!(l.target, "./${TP_TEST_BIN} --token=${TP_TEST_TOKEN}");
    assert!(!l.target.contains("s3cret"));
    assert_eq!(l.secrets, vec!["s3cret-token", "work", "srv"]);
}

#[test]
fn env_expansion_reads_the_process_environment() {
    let Ok(path_value) = std::env::var("PATH") else {
        return; // nothing to compare against without PATH
    };
    let path = write(
        "real-path",
        "server:\n  command: [x]\n  env: {P: \"${PATH}\"}\n",
    );
    let l = load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(l.config.server.env.get("P"), Some(&path_value));
    assert_eq!(l.secrets.contains(&path_value), !path_value.is_empty());
}

#[test]
fn relative_paths_resolve_from_the_yaml_folder() {
    let l = loaded(
        "paths",
        "server:\n  command: [../bin/x, ./arg-stays]\n  cwd: ./sub/dir\nevals:\n  command: [./picker.py]\n  cache_dir: ../cache\n  cases: []\n",
    );
    let base = &l.base_dir;
    assert!(base.is_absolute());
    assert_eq!(
        l.config.server.command,
        Some(vec![
            base.join("../bin/x").display().to_string(),
            "./arg-stays".to_owned()
        ])
    );
    assert_eq!(l.config.server.cwd, Some(base.join("sub/dir")));
    let e = l.config.evals.as_ref().unwrap_or_else(|| panic!("evals"));
    assert_eq!(e.cache_dir, base.join("../cache"));
    assert_eq!(
        e.command,
        Some(vec![base.join("picker.py").display().to_string()])
    );

    let l = loaded("bare", "server:\n  command: [python3, s.py]\n");
    assert_eq!(
        l.config.server.command,
        Some(vec!["python3".to_owned(), "s.py".to_owned()]),
        "bare names are looked up on PATH"
    );
    assert_eq!(
        l.config.server.cwd,
        Some(l.base_dir.clone()),
        "the server runs in base_dir"
    );

    let l = loaded(
        "absolute",
        "server:\n  command: [/usr/bin/env, x]\n  cwd: /tmp\n",
    );
    assert_eq!(
        l.config.server.command.as_ref().map(|c| c[0].as_str()),
        Some("/usr/bin/env")
    );
    assert_eq!(l.config.server.cwd, Some(PathBuf::from("/tmp")));
}

#[test]
fn base_dir_is_the_absolute_folder_of_the_file() {
    let path = write("base", SERVER);
    let l = load_with_env(&path, &fake_env, PROVIDERS).unwrap_or_else(|e| panic!("{e}"));
    let folder = path.parent().map(super::load::absolute);
    assert_eq!(Some(l.base_dir.clone()), folder);
    assert_eq!(l.path.as_path(), &*path);
    assert!(l.base_dir.is_absolute());
}

#[test]
fn find_default_looks_for_toolproof_yaml() {
    let dir = temp_folder("find");
    assert_eq!(find_default(&dir), None);
    std::fs::create_dir_all(dir.join("toolproof.yaml").join("x")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        find_default(&dir),
        None,
        "a folder named toolproof.yaml is not a config"
    );
    let dir = temp_folder("find2");
    std::fs::write(dir.join("toolproof.yaml"), SERVER).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(find_default(&dir), Some(dir.join("toolproof.yaml")));
}

#[test]
fn from_target_builds_a_default_config() {
    let cwd = temp_folder("target");
    let l = from_target(Some("http://127.0.0.1:9/mcp".into()), vec![], &cwd)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        l.config.server.url.as_deref(),
        Some("http://127.0.0.1:9/mcp")
    );
    assert_eq!(l.target, "http://127.0.0.1:9/mcp");
    assert_eq!(l.base_dir, super::load::absolute(&cwd));
    assert_eq!(l.path, PathBuf::new());

    let l = from_target(None, vec!["./srv".into(), "--x".into()], &cwd)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        l.config.server.command,
        Some(vec![
            l.base_dir.join("srv").display().to_string(),
            "--x".into()
        ])
    );
    assert_eq!(l.config.server.cwd, Some(l.base_dir.clone()));
    assert_eq!(l.target, "./srv --x");

    // Same defaults as a file with only a server in it.
    let from_file = loaded("target-file", "server:\n  command: [./srv, --x]\n");
    assert_eq!(
        format!(
            "{:?}",
            (
                l.config.timeout_ms,
                l.config.retries,
                &l.config.checks,
                &l.config.tests
            )
        ),
        format!(
            "{:?}",
            (
                from_file.config.timeout_ms,
                from_file.config.retries,
                &from_file.config.checks,
                &from_file.config.tests
            )
        )
    );

    let errors: Vec<String> = [
        from_target(Some("localhost:3000".into()), vec![], &cwd),
        from_target(None, vec![], &cwd),
        from_target(Some("http://x".into()), vec!["y".into()], &cwd),
        from_target(None, vec![String::new()], &cwd),
    ]
    .into_iter()
    .map(|r| r.err().map(|e| e.to_string()).unwrap_or_default())
    .collect();
    insta::assert_snapshot!("from_target_errors", errors.join("\n---\n"));
}

#[test]
fn display_without_hint_or_position() {
    let e = ConfigError::new("plain");
    assert_eq!(e.to_string(), "plain");
    let e = ConfigError::new("m")
        .in_file(Path::new("a.yaml"))
        .at(3, 4)
        .hint("h");
    assert_eq!(e.to_string(), "a.yaml:3:4: m\nhint: h");
}

// ---------------------------------------------------------------- evals additions

#[test]
fn eval_cases_and_system_prompt_from_their_own_files() {
    let dir = temp_folder("cases-file");
    std::fs::create_dir_all(dir.join("evals")).unwrap_or_default();
    std::fs::write(
        dir.join("evals/cases.yaml"),
        "# labelled set\n- prompt: weather in Lisbon?\n  expect_tool: get_weather\n  why: canonical\n\n- prompt: thanks\n  expect_tool: null\n  critical: true\n  trials: 3\n",
    )
    .unwrap_or_default();
    std::fs::write(dir.join("evals/system.txt"), "You are a helpful agent.\n").unwrap_or_default();
    let path = dir.join("toolproof.yaml");
    std::fs::write(
        &path,
        format!(
            "{SERVER}evals:\n  provider: anthropic\n  models: [m1, m2]\n  system_file: evals/system.txt\n  cases_file: evals/cases.yaml\n  trials: 2\n  min_wilson_lower: 0.8\n  multiple_calls: miss\n  cases:\n    - prompt: inline\n      expect_tool: echo\n"
        ),
    )
    .unwrap_or_default();
    let c = load_with_env(&path, &fake_env, PROVIDERS).unwrap_or_else(|e| panic!("{e}"));
    let evals = c.config.evals.expect("evals");
    assert_eq!(evals.system.as_deref(), Some("You are a helpful agent.\n"));
    assert_eq!(evals.models, vec!["m1", "m2"]);
    assert_eq!(evals.cases.len(), 3);
    assert_eq!(evals.cases[0].prompt, "inline");
    assert_eq!(evals.cases[0].file, None);
    assert_eq!(evals.cases[1].why.as_deref(), Some("canonical"));
    assert_eq!(evals.cases[1].line, Some(2));
    assert_eq!(evals.cases[2].line, Some(6));
    assert!(evals.cases[2].critical);
    assert_eq!(evals.cases[2].trials, Some(crate::config::Trials::Fixed(3)));
    assert_eq!(evals.cases[2].expect_tool, Some(None));
    assert!(
        evals.cases[1]
            .file
            .as_ref()
            .is_some_and(|f| f.ends_with("evals/cases.yaml"))
    );
    assert_eq!(evals.multiple_calls, MultipleCalls::Miss);
    assert_eq!(evals.min_wilson_lower, Some(0.8));
}

#[test]
fn eval_file_errors_point_into_the_cases_file() {
    let dir = temp_folder("cases-file-bad");
    std::fs::write(
        dir.join("cases.yaml"),
        "- prompt: ok\n  expect_tool: a\n- prompt: no label\n  expect_tol: b\n",
    )
    .unwrap_or_default();
    let path = dir.join("toolproof.yaml");
    std::fs::write(&path, format!("{SERVER}evals:\n  cases_file: cases.yaml\n"))
        .unwrap_or_default();
    let err = load_with_env(&path, &fake_env, PROVIDERS)
        .err()
        .map(|e| e.to_string().replace(&dir.display().to_string(), "[TMP]"));
    insta::assert_snapshot!("cases_file_unknown_key", err.unwrap_or_default());
    std::fs::write(
        &path,
        format!("{SERVER}evals:\n  cases_file: missing.yaml\n"),
    )
    .unwrap_or_default();
    let err = load_with_env(&path, &fake_env, PROVIDERS)
        .err()
        .map(|e| e.to_string().replace(&dir.display().to_string(), "[TMP]"));
    insta::assert_snapshot!("cases_file_missing", err.unwrap_or_default());
}

#[test]
fn eval_settings_are_range_checked() {
    insta::assert_snapshot!(
        "evals_trials_zero",
        rendered("trials", format!("{SERVER}evals:\n  trials: 0\n"))
    );
    insta::assert_snapshot!(
        "evals_model_and_models",
        rendered(
            "models",
            format!("{SERVER}evals:\n  model: a\n  models: [b]\n")
        )
    );
    insta::assert_snapshot!(
        "evals_wilson_range",
        rendered(
            "wilson",
            format!("{SERVER}evals:\n  min_wilson_lower: 1.5\n")
        )
    );
    insta::assert_snapshot!(
        "evals_multiple_calls_value",
        rendered("multi", format!("{SERVER}evals:\n  multiple_calls: all\n"))
    );
}

#[test]
fn prices_are_read_and_a_negative_one_names_its_line() {
    let c = load_text(
        "prices-ok",
        format!("{SERVER}evals:\n  prompt_cache: false\n  prices:\n    m-1: {{input: 3, output: 15.0, cache_read: 0.3}}\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let evals = c.config.evals.expect("evals");
    assert!(!evals.prompt_cache);
    let p = evals.prices["m-1"];
    assert_eq!(
        (p.input, p.output, p.cache_write, p.cache_read),
        (3.0, 15.0, None, Some(0.3))
    );
    let err = rendered(
        "prices-bad",
        format!("{SERVER}evals:\n  prices:\n    m-1: {{input: -1, output: 1, cache_wrte: 2}}\n"),
    );
    assert!(err.contains("cache_wrte"), "{err}");
    let err = rendered(
        "prices-negative",
        format!("{SERVER}evals:\n  prices:\n    m-1: {{input: -1, output: 1}}\n"),
    );
    assert!(
        err.contains("toolproof.yaml:") && err.contains("0 or more"),
        "{err}"
    );
}

#[test]
fn openai_api_is_chat_by_default_and_responses_when_asked() {
    let c = load_text(
        "openai-api-default",
        format!("{SERVER}evals:\n  provider: openai\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.config.evals.expect("evals").openai_api, OpenAiApi::Chat);
    let c = load_text(
        "openai-api-responses",
        format!("{SERVER}evals:\n  provider: openai\n  openai_api: responses\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        c.config.evals.expect("evals").openai_api,
        OpenAiApi::Responses
    );
    let err = rendered(
        "openai-api-bad",
        format!("{SERVER}evals:\n  openai_api: completions\n"),
    );
    assert!(
        err.contains("toolproof.yaml:") && err.contains("chat") && err.contains("responses"),
        "{err}"
    );
}

#[test]
fn max_tokens_field_is_read_checked_and_chooses_by_host() {
    insta::assert_snapshot!(
        "evals_max_tokens_field_value",
        rendered(
            "max-tokens-field",
            format!("{SERVER}evals:\n  max_tokens: 64\n  max_tokens_field: max_output_tokens\n")
        )
    );
    let c = load_text(
        "max-tokens-field-ok",
        format!("{SERVER}evals:\n  max_tokens_field: max_tokens\n  adaptive_concurrency: false\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let evals = c.config.evals.expect("evals");
    assert_eq!(evals.max_tokens_field, MaxTokensField::MaxTokens);
    assert!(!evals.adaptive_concurrency);
    let auto = MaxTokensField::Auto;
    for openai in [
        "https://api.openai.com/v1",
        "https://API.OpenAI.com:443/v1/",
        "http://user@api.openai.com./v1",
    ] {
        assert_eq!(auto.key_for(openai), "max_completion_tokens", "{openai}");
    }
    for other in [
        "http://127.0.0.1:8080/v1",
        "http://localhost:11434/v1",
        "https://api.openai.com.example.net/v1",
        "https://example.net/api.openai.com/v1",
        "https://myresource.openai.azure.com/openai",
    ] {
        assert_eq!(auto.key_for(other), "max_tokens", "{other}");
    }
    let local = "http://127.0.0.1:8080/v1";
    assert_eq!(
        MaxTokensField::MaxCompletionTokens.key_for(local),
        "max_completion_tokens"
    );
    assert_eq!(
        MaxTokensField::MaxTokens.key_for("https://api.openai.com/v1"),
        "max_tokens"
    );
}

#[test]
fn tool_choice_and_lint_errors_name_the_key_and_the_fix() {
    insta::assert_snapshot!(
        "evals_tool_choice_twice",
        rendered(
            "choice-twice",
            format!(
                "{SERVER}evals:\n  params: {{extra_body: {{tool_choice: required}}}}\n  tool_choice: any\n"
            )
        )
    );
    insta::assert_snapshot!(
        "evals_tool_choice_value",
        rendered(
            "choice-value",
            format!("{SERVER}evals:\n  tool_choice: always\n")
        )
    );
    insta::assert_snapshot!(
        "evals_tool_choice_mapping",
        rendered(
            "choice-map",
            format!("{SERVER}evals:\n  tool_choice: {{tool: echo, why: x}}\n")
        )
    );
    insta::assert_snapshot!(
        "evals_lint_disable_unknown",
        rendered(
            "lint-disable",
            format!("{SERVER}evals:\n  lint:\n    disable: [missing-whys]\n")
        )
    );
    insta::assert_snapshot!(
        "evals_lint_unknown_key",
        rendered(
            "lint-key",
            format!("{SERVER}evals:\n  lint:\n    strcit: true\n")
        )
    );
    let ok = load_text(
        "choice-ok",
        format!(
            "{SERVER}evals:\n  tool_choice: required\n  lint: {{strict: true, disable: [missing-why]}}\n"
        ),
    );
    let evals = ok.ok().and_then(|l| l.config.evals).expect("loads");
    assert_eq!(evals.tool_choice, Some(ToolChoice::Any));
    assert!(evals.lint.strict && evals.lint.enabled);
}

/// mcp-toolproof (pydantic) lists every validation error; so does toolproof, each with its
/// place and hint, in document order, one per mistake (a stand-in for a value that failed its
/// type does not set off a second error at the same place).
const MANY_ERRORS: &str = r#"server:
  comand: [python, server.py]
  startup_timeout_s: soon
timeout_ms: -5
checks:
  strict: maybe
  disable: [no-such-check]
tests:
  - name: t1
    tool: echo
    retries: many
    expect:
      regex: "("
  - tool: add
evals:
  provider: openia
  min_accuracy: 2
  cases:
    - prompt: hi
"#;

#[test]
fn every_config_error_is_listed_at_once_with_its_place() {
    let text = rendered("many-errors", MANY_ERRORS);
    let places: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("error: ").or(Some(l)))
        .filter(|l| l.starts_with("toolproof.yaml:"))
        .filter_map(|l| l.split(": ").next())
        .collect();
    assert_eq!(
        places,
        [
            "toolproof.yaml:2:3",
            "toolproof.yaml:3:22",
            "toolproof.yaml:4:13",
            "toolproof.yaml:6:11",
            "toolproof.yaml:7:13",
            "toolproof.yaml:11:14",
            "toolproof.yaml:13:14",
            "toolproof.yaml:14:5",
            "toolproof.yaml:16:13",
            "toolproof.yaml:17:17",
            "toolproof.yaml:19:7",
        ],
        "{text}"
    );
    insta::assert_snapshot!("many_errors", text);
}

#[test]
fn past_twenty_errors_the_rest_are_counted() {
    let keys: String = (0..25).map(|i| format!("unknown_{i:02}: 1\n")).collect();
    let text = rendered("too-many-errors", format!("{SERVER}{keys}"));
    let shown = text.lines().filter(|l| l.contains("unknown key")).count();
    assert_eq!(shown, 20, "{text}");
    assert!(text.contains("unknown key `unknown_19`"), "{text}");
    assert!(!text.contains("unknown key `unknown_20`"), "{text}");
    assert!(
        text.ends_with("error: … and 5 more errors (fix these and run again to see them)"),
        "{text}"
    );
}

#[test]
fn a_yaml_syntax_error_stops_at_the_first() {
    let text = rendered(
        "syntax",
        format!("{SERVER}tests: [\n  unknown: 1\nbad: [\n"),
    );
    assert_eq!(text.matches("invalid YAML").count(), 1, "{text}");
    assert!(!text.contains("\nerror: "), "{text}");
}

/// Text settings still take a plain `yes`, `0755` or `1:30` as the text written (toolproof took
/// them so before it read YAML 1.1), while free-form values get the YAML 1.1 meaning.
#[test]
fn text_settings_keep_plain_words_and_digits_as_written() {
    let c = loaded(
        "text-settings",
        "server:\n  command: [python, server.py, on]\n  env: {DEBUG: yes, MODE: 0755, AT: 1:30}\ntests:\n  - {name: no, tool: off, args: {flag: no}}\n",
    );
    let env = &c.config.server.env;
    assert_eq!(env.get("DEBUG").map(String::as_str), Some("yes"));
    assert_eq!(env.get("MODE").map(String::as_str), Some("0755"));
    assert_eq!(env.get("AT").map(String::as_str), Some("1:30"));
    assert_eq!(
        c.config
            .server
            .command
            .as_deref()
            .and_then(|c| c.get(2))
            .map(String::as_str),
        Some("on")
    );
    let t = &c.config.tests[0];
    assert_eq!((t.name.as_str(), t.tool.as_str()), ("no", "off"));
    assert_eq!(t.args.get("flag"), Some(&serde_json::json!(false)));
}

// ---------------------------------------------------------------- scripted answers

#[test]
fn scripted_answers_load_at_the_top_and_per_test() {
    let cfg = loaded(
        "answers",
        &format!(
            "{SERVER}roots: [\"file:///srv\"]\nsampling: {{text: top}}\ntests:\n  - name: t\n    tool: book\n    elicitation: {{action: accept, content: {{time: \"19:00\"}}}}\n    sampling: {{text: \"a short summary\", model: m1}}\n  - name: u\n    tool: book\n    elicitation: {{action: cancel}}\n"
        ),
    )
    .config;
    assert_eq!(cfg.roots, Some(vec!["file:///srv".to_owned()]));
    assert_eq!(cfg.sampling.map(|s| s.text).as_deref(), Some("top"));
    let first = &cfg.tests[0];
    let e = first
        .elicitation
        .clone()
        .unwrap_or_else(|| panic!("no elicitation"));
    assert_eq!(e.action, crate::config::ElicitationAction::Accept);
    assert_eq!(
        e.content.and_then(|c| c.get("time").cloned()),
        Some("19:00".into())
    );
    assert_eq!(
        first.sampling.as_ref().and_then(|s| s.model.as_deref()),
        Some("m1")
    );
    let second = cfg.tests[1].elicitation.as_ref().map(|e| e.action);
    assert_eq!(second, Some(crate::config::ElicitationAction::Cancel));
}

#[test]
fn bad_scripted_answers_are_located_errors() {
    let tests = "tests:\n  - name: t\n    tool: book\n";
    let unknown_action = rendered(
        "answers-action",
        format!("{SERVER}{tests}    elicitation: {{action: maybe}}\n"),
    );
    assert!(
        unknown_action.contains("toolproof.yaml:6:"),
        "{unknown_action}"
    );
    assert!(unknown_action.contains("maybe"), "{unknown_action}");
    let content = rendered(
        "answers-content",
        format!("{SERVER}{tests}    elicitation: {{action: decline, content: {{a: 1}}}}\n"),
    );
    assert!(
        content.contains("toolproof.yaml:6:")
            && content.contains(
                "`tests[0].elicitation.content` is only sent with `action: accept`, not with `decline`"
            ),
        "{content}"
    );
    let root = rendered("answers-root", format!("{SERVER}roots: [/tmp/x]\n"));
    assert!(
        root.contains("toolproof.yaml:3:9")
            && root.contains("`roots[0]` must be a `file://` URI")
            && root.contains("hint:"),
        "{root}"
    );
    let sampling = rendered(
        "answers-sampling",
        format!("{SERVER}{tests}    sampling: {{txt: hi}}\n"),
    );
    assert!(
        sampling.contains("toolproof.yaml:6:") && sampling.contains("txt"),
        "{sampling}"
    );
}

#[test]
fn trials_auto_is_read_with_its_bounds_per_set_and_per_case() {
    use crate::config::{CaseTrials, Trials};
    let c = load_text(
        "trials-auto",
        format!("{SERVER}evals:\n  trials: auto\n  max_trials: 6\n  cases:\n    - prompt: a\n      expect_tool: echo\n    - prompt: b\n      expect_tool: echo\n      min_trials: 2\n      max_trials: 3\n    - prompt: c\n      expect_tool: echo\n      trials: 4\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let evals = c.config.evals.expect("evals");
    assert_eq!(evals.trials, Trials::Auto);
    let of = |i: usize| evals.trials_of(&evals.cases[i]);
    let auto = |min, max| CaseTrials {
        auto: true,
        min,
        max,
    };
    assert_eq!(of(0), auto(1, 6));
    assert_eq!(of(1), auto(2, 3));
    assert_eq!(
        of(2),
        CaseTrials {
            auto: false,
            min: 4,
            max: 4
        }
    );
    // A case may be adaptive in a fixed set.
    let c = load_text(
        "trials-auto-case",
        format!("{SERVER}evals:\n  trials: 3\n  cases:\n    - prompt: a\n      expect_tool: echo\n      trials: auto\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let evals = c.config.evals.expect("evals");
    assert_eq!(evals.trials_of(&evals.cases[0]), auto(1, 10));
}

#[test]
fn trials_that_are_neither_a_number_nor_auto_and_crossed_bounds_are_errors() {
    insta::assert_snapshot!(
        "evals_trials_word",
        rendered(
            "trials-word",
            format!("{SERVER}evals:\n  trials: sometimes\n")
        )
    );
    insta::assert_snapshot!(
        "evals_min_trials_above_max",
        rendered(
            "trials-crossed",
            format!("{SERVER}evals:\n  trials: auto\n  min_trials: 5\n  max_trials: 3\n")
        )
    );
    insta::assert_snapshot!(
        "evals_case_max_trials_zero",
        rendered(
            "trials-case-zero",
            format!(
                "{SERVER}evals:\n  cases:\n    - prompt: a\n      expect_tool: echo\n      max_trials: 0\n"
            )
        )
    );
}

#[test]
fn budget_and_tool_order_are_read_and_checked() {
    let c = load_text(
        "budget-ok",
        format!("{SERVER}evals:\n  budget: {{requests: 40, usd: 1.5}}\n  tool_order: shuffled\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let evals = c.config.evals.expect("evals");
    assert_eq!(evals.budget.requests, Some(40));
    assert_eq!(evals.budget.usd, Some(1.5));
    assert_eq!(evals.tool_order, ToolOrderMode::Shuffled);
    let plain = load_text("budget-none", format!("{SERVER}evals:\n  trials: 2\n"))
        .unwrap_or_else(|e| panic!("{e}"));
    let evals = plain.config.evals.expect("evals");
    assert_eq!(evals.budget, BudgetConfig::default());
    assert_eq!(evals.tool_order, ToolOrderMode::Server);
    insta::assert_snapshot!(
        "evals_budget_errors",
        rendered(
            "budget-bad",
            format!("{SERVER}evals:\n  budget: {{usd: -1, dollars: 3}}\n  tool_order: random\n")
        )
    );
}
