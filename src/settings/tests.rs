//! Precedence, option by option, against the one resolver: a flag beats its environment
//! variable, which beats the YAML, which beats the default.

use std::path::{Path, PathBuf};

use clap::Parser;

use super::*;
use crate::cli::Cli;

/// Where a YAML line of a row goes.
#[derive(Clone, Copy)]
enum Slot {
    Top,
    Server,
    Checks,
    Evals,
}

/// One option: how each level sets it, and what the resolved value reads as with all levels,
/// without the flag, with the YAML only, and with nothing.
struct Row {
    name: &'static str,
    command: &'static [&'static str],
    flag: &'static [&'static str],
    env: (&'static str, &'static str),
    yaml: Option<(Slot, &'static str)>,
    read: fn(&Settings) -> String,
    expect: [&'static str; 4],
}

fn yaml(extra: Option<(Slot, &str)>) -> String {
    let pick = |slot: Slot| match extra {
        Some((s, text)) if std::mem::discriminant(&s) == std::mem::discriminant(&slot) => {
            format!("  {text}\n")
        }
        _ => String::new(),
    };
    let top = match extra {
        Some((Slot::Top, text)) => format!("{text}\n"),
        _ => String::new(),
    };
    format!(
        "server:\n  command: [\"true\"]\n{server}checks:\n  max_description_length: 1024\n{checks}{top}tests:\n  - {{name: alpha, tool: echo}}\n  - {{name: beta, tool: echo}}\nevals:\n  command: [\"picker\"]\n  cases:\n    - {{prompt: hi, expect_tool: null}}\n{evals}",
        server = pick(Slot::Server),
        checks = pick(Slot::Checks),
        evals = pick(Slot::Evals),
    )
}

fn resolve_in(dir: &Path, row: &Row, level: usize) -> Result<Settings, String> {
    let path = dir.join(format!("{}-{level}.yaml", row.name));
    let extra = if level <= 2 { row.yaml } else { None };
    std::fs::write(&path, yaml(extra)).map_err(|e| e.to_string())?;
    let mut args: Vec<String> = vec!["toolproof".into()];
    args.extend(row.command.iter().map(|s| s.to_string()));
    if row.command == ["run"] {
        args.push(path.display().to_string());
    } else {
        args.extend(["-c".to_string(), path.display().to_string()]);
    }
    if level == 0 {
        args.extend(row.flag.iter().map(|s| s.to_string()));
    }
    let cli = Cli::try_parse_from(&args).map_err(|e| e.to_string())?;
    let env = if level <= 1 {
        Env::from_pairs([row.env])
    } else {
        Env::default()
    };
    let loaded =
        crate::config::load_with(&path, &|_: &str| None, &crate::provider::registry::names())
            .map_err(|e| e.to_string())?;
    Settings::resolve(&cli, &env, loaded).map_err(|e| e.to_string())
}

fn target(o: Option<&Target>) -> String {
    match o {
        None => "none".into(),
        Some(Target::Stdout) => "stdout".into(),
        Some(Target::Path(p)) => p.display().to_string(),
    }
}

#[expect(clippy::too_many_lines, reason = "one row per option")]
fn rows() -> Vec<Row> {
    vec![
        Row {
            name: "strict",
            command: &["run"],
            flag: &["--strict"],
            env: ("TOOLPROOF_STRICT", "off"),
            yaml: Some((Slot::Checks, "strict: true")),
            read: |s| s.checks().strict().to_string(),
            expect: ["true", "false", "true", "false"],
        },
        Row {
            name: "checks-enabled",
            command: &["run"],
            flag: &["--no-checks"],
            env: ("TOOLPROOF_NO_CHECKS", "no"),
            yaml: Some((Slot::Checks, "enabled: false")),
            read: |s| s.checks().enabled().value.to_string(),
            expect: ["false", "true", "false", "true"],
        },
        Row {
            name: "no-strict",
            command: &["run"],
            flag: &["--no-strict"],
            env: ("TOOLPROOF_STRICT", "on"),
            yaml: Some((Slot::Checks, "strict: true")),
            read: |s| s.checks().strict().to_string(),
            expect: ["false", "true", "true", "false"],
        },
        Row {
            name: "strict-pair-last-wins",
            command: &["run"],
            flag: &["--no-strict", "--strict"],
            env: ("TOOLPROOF_STRICT", "0"),
            yaml: None,
            read: |s| s.checks().strict().to_string(),
            expect: ["true", "false", "false", "false"],
        },
        Row {
            name: "checks-on",
            command: &["run"],
            flag: &["--checks"],
            env: ("TOOLPROOF_NO_CHECKS", "yes"),
            yaml: Some((Slot::Checks, "enabled: false")),
            read: |s| s.checks().enabled().value.to_string(),
            expect: ["true", "false", "false", "true"],
        },
        Row {
            name: "checks-pair-last-wins",
            command: &["run"],
            flag: &["--checks", "--no-checks"],
            env: ("TOOLPROOF_NO_CHECKS", "no"),
            yaml: None,
            read: |s| s.checks().enabled().value.to_string(),
            expect: ["false", "true", "true", "true"],
        },
        Row {
            name: "timeout",
            command: &["run"],
            flag: &["--timeout-ms", "100"],
            env: ("TOOLPROOF_TIMEOUT_MS", "200"),
            yaml: Some((Slot::Top, "timeout_ms: 300")),
            read: |s| crate::config::limits::in_millis(s.tests().timeout()).to_string(),
            expect: ["100", "200", "300", "10000"],
        },
        Row {
            name: "retries",
            command: &["run"],
            flag: &["--retries", "1"],
            env: ("TOOLPROOF_RETRIES", "2"),
            yaml: Some((Slot::Top, "retries: 3")),
            read: |s| s.tests().retries().to_string(),
            expect: ["1", "2", "3", "0"],
        },
        Row {
            name: "filter",
            command: &["run"],
            flag: &["-k", "alpha"],
            env: ("TOOLPROOF_FILTER", "beta"),
            yaml: None,
            read: |s| format!("{:?}", s.tests().selected()),
            expect: ["[0]", "[1]", "[0, 1]", "[0, 1]"],
        },
        Row {
            name: "skip-evals",
            command: &["run"],
            flag: &["--skip-evals"],
            env: ("TOOLPROOF_SKIP_EVALS", "yes"),
            yaml: None,
            read: |s| format!("{:?}", s.skips().evals().map(ToString::to_string)),
            expect: [
                "Some(\"--skip-evals\")",
                "Some(\"TOOLPROOF_SKIP_EVALS=yes\")",
                "None",
                "None",
            ],
        },
        Row {
            name: "skip-lint",
            command: &["run"],
            flag: &["--skip-lint"],
            env: ("TOOLPROOF_SKIP_LINT", "1"),
            yaml: Some((Slot::Evals, "lint: {enabled: false}")),
            read: |s| format!("{:?}", s.skips().lint().map(ToString::to_string)),
            expect: [
                "Some(\"--skip-lint\")",
                "Some(\"TOOLPROOF_SKIP_LINT=1\")",
                "Some(\"evals.lint.enabled: false in the config\")",
                "None",
            ],
        },
        Row {
            name: "lint-strict",
            command: &["lint"],
            flag: &["--strict"],
            env: ("TOOLPROOF_LINT_STRICT", "off"),
            yaml: Some((Slot::Evals, "lint: {strict: true}")),
            read: |s| format!("{:?}", s.lint().map(LintSettings::strict)),
            expect: ["Some(true)", "Some(false)", "Some(true)", "Some(false)"],
        },
        Row {
            name: "tool-choice",
            command: &["eval"],
            flag: &["--tool-choice", "any"],
            env: ("TOOLPROOF_EVAL_TOOL_CHOICE", "none"),
            yaml: Some((Slot::Evals, "tool_choice: {tool: echo}")),
            read: |s| {
                s.evals()
                    .and_then(EvalSettings::tool_choice)
                    .map_or("unset".into(), ToolChoice::describe)
            },
            expect: ["any", "none", "{tool: echo}", "unset"],
        },
        Row {
            name: "skip-bench",
            command: &["run"],
            flag: &["--skip-bench"],
            env: ("TOOLPROOF_SKIP_BENCH", "1"),
            yaml: None,
            read: |s| s.skips().bench().is_some().to_string(),
            expect: ["true", "true", "false", "false"],
        },
        Row {
            name: "skip-fuzz",
            command: &["run"],
            flag: &["--skip-fuzz"],
            env: ("TOOLPROOF_SKIP_FUZZ", "on"),
            yaml: None,
            read: |s| s.skips().fuzz().is_some().to_string(),
            expect: ["true", "true", "false", "false"],
        },
        Row {
            name: "no-skip-evals",
            command: &["run"],
            flag: &["--no-skip-evals"],
            env: ("TOOLPROOF_SKIP_EVALS", "1"),
            yaml: Some((Slot::Evals, "enabled: false")),
            read: |s| s.skips().evals().is_none().to_string(),
            expect: ["true", "false", "false", "true"],
        },
        Row {
            name: "no-skip-bench",
            command: &["run"],
            flag: &["--no-skip-bench"],
            env: ("TOOLPROOF_SKIP_BENCH", "true"),
            yaml: Some((Slot::Top, "bench: {enabled: false}")),
            read: |s| s.skips().bench().map_or("on".into(), ToString::to_string),
            expect: [
                "on",
                "TOOLPROOF_SKIP_BENCH=true",
                "bench.enabled: false in the config",
                "on",
            ],
        },
        Row {
            name: "no-skip-fuzz",
            command: &["run"],
            flag: &["--no-skip-fuzz"],
            env: ("TOOLPROOF_SKIP_FUZZ", "yes"),
            yaml: Some((Slot::Top, "fuzz: {enabled: false}")),
            read: |s| s.skips().fuzz().map_or("run".into(), ToString::to_string),
            expect: [
                "run",
                "TOOLPROOF_SKIP_FUZZ=yes",
                "fuzz.enabled: false in the config",
                "run",
            ],
        },
        Row {
            name: "offline",
            command: &["run"],
            flag: &["--offline"],
            env: ("TOOLPROOF_OFFLINE", "false"),
            yaml: None,
            read: |s| s.evals().is_some_and(EvalSettings::offline).to_string(),
            expect: ["true", "false", "false", "false"],
        },
        Row {
            name: "prompt-cache",
            command: &["eval"],
            flag: &["--no-prompt-cache"],
            env: ("TOOLPROOF_PROMPT_CACHE", "true"),
            yaml: Some((Slot::Evals, "prompt_cache: false")),
            read: |s| {
                s.evals()
                    .is_some_and(EvalSettings::prompt_cache)
                    .to_string()
            },
            expect: ["false", "true", "false", "true"],
        },
        Row {
            name: "no-cache",
            command: &["eval"],
            flag: &["--no-cache"],
            env: ("TOOLPROOF_NO_CACHE", "true"),
            yaml: None,
            read: |s| s.evals().is_some_and(EvalSettings::no_cache).to_string(),
            expect: ["true", "true", "false", "false"],
        },
        Row {
            name: "dry-run",
            command: &["run"],
            flag: &["--dry-run"],
            env: ("TOOLPROOF_DRY_RUN", "no"),
            yaml: None,
            read: |s| s.evals().is_some_and(EvalSettings::dry_run).to_string(),
            expect: ["true", "false", "false", "false"],
        },
        Row {
            name: "max-requests",
            command: &["eval"],
            flag: &["--max-requests", "5"],
            env: ("TOOLPROOF_MAX_REQUESTS", "50"),
            yaml: Some((Slot::Evals, "budget: {requests: 500}")),
            read: |s| {
                let b = s.evals().map(EvalSettings::budget);
                format!(
                    "{:?} {}",
                    b.and_then(|b| b.requests.value),
                    b.map_or(String::new(), |b| b.requests.origin.to_string())
                )
            },
            expect: [
                "Some(5) --max-requests",
                "Some(50) TOOLPROOF_MAX_REQUESTS=50",
                "Some(500) evals.budget.requests in the config",
                "None the default",
            ],
        },
        Row {
            name: "max-cost",
            command: &["run"],
            flag: &["--max-cost", "0.5"],
            env: ("TOOLPROOF_MAX_COST", "2"),
            yaml: Some((Slot::Evals, "budget: {usd: 10}")),
            read: |s| format!("{:?}", s.evals().and_then(|e| e.budget().usd.value)),
            expect: ["Some(0.5)", "Some(2.0)", "Some(10.0)", "None"],
        },
        Row {
            name: "batch",
            command: &["run"],
            flag: &["--batch", "never"],
            env: ("TOOLPROOF_BATCH", "always"),
            yaml: Some((Slot::Evals, "batch: never")),
            read: |s| {
                s.evals()
                    .is_some_and(|e| e.batch().batches(true, 1))
                    .to_string()
            },
            expect: ["false", "true", "false", "false"],
        },
        Row {
            name: "batch-min",
            command: &["eval"],
            flag: &["--batch-min", "1"],
            env: ("TOOLPROOF_BATCH_MIN", "10"),
            yaml: Some((Slot::Evals, "batch_min: 3")),
            read: |s| {
                let batches = |n: u32| {
                    s.evals()
                        .is_some_and(|e| e.batch().batches(true, n as usize + 1))
                };
                (0..=200u32)
                    .find(|&n| batches(n))
                    .map_or("none".into(), |n| n.to_string())
            },
            expect: ["1", "10", "3", "100"],
        },
        Row {
            name: "batch-poll-s",
            command: &["eval"],
            flag: &["--batch-poll-s", "0.5"],
            env: ("TOOLPROOF_BATCH_POLL_S", "2"),
            yaml: Some((Slot::Evals, "batch_poll_s: 7")),
            read: |s| format!("{:?}", s.evals().map(|e| e.batch().poll())),
            expect: ["Some(500ms)", "Some(2s)", "Some(7s)", "Some(30s)"],
        },
        Row {
            name: "batch-deadline-s",
            command: &["eval"],
            flag: &["--batch-deadline-s", "90"],
            env: ("TOOLPROOF_BATCH_DEADLINE_S", "600"),
            yaml: Some((Slot::Evals, "batch_deadline_s: 60")),
            read: |s| format!("{:?}", s.evals().map(|e| e.batch().deadline())),
            expect: ["Some(90s)", "Some(600s)", "Some(60s)", "Some(7200s)"],
        },
        Row {
            name: "cancel-batch",
            command: &["eval"],
            flag: &["--cancel-batch"],
            env: ("TOOLPROOF_CANCEL_BATCH", "yes"),
            yaml: None,
            read: |s| {
                s.evals()
                    .is_some_and(|e| e.batch().cancel_on_interrupt())
                    .to_string()
            },
            expect: ["true", "true", "false", "false"],
        },
        Row {
            name: "history",
            command: &["run"],
            flag: &["--history", "flag.jsonl"],
            env: ("TOOLPROOF_HISTORY", "env.jsonl"),
            yaml: None,
            read: |s| format!("{:?}", s.outputs().history()),
            expect: [
                "Some(\"flag.jsonl\")",
                "Some(\"env.jsonl\")",
                "None",
                "None",
            ],
        },
        Row {
            name: "provider",
            command: &["eval", "--model", "m"],
            flag: &["--provider", "openai"],
            env: ("TOOLPROOF_EVAL_PROVIDER", "anthropic"),
            yaml: Some((Slot::Evals, "provider: command")),
            read: |s| match s.evals().map(EvalSettings::target) {
                Some(Ok(t)) => t.provider.name().to_owned(),
                // The message lists every provider of the registry (see the registry's tests).
                Some(Err(EvalSetupError::NoProvider)) => "no eval provider".into(),
                Some(Err(e)) => e.to_string(),
                None => "none".into(),
            },
            expect: ["openai", "anthropic", "command", "no eval provider"],
        },
        Row {
            name: "model",
            command: &["eval", "--provider", "openai"],
            flag: &["--model", "m-flag"],
            env: ("TOOLPROOF_EVAL_MODEL", "m-env"),
            yaml: Some((Slot::Evals, "models: [m-yaml, m-other]")),
            read: |s| match s.evals().map(EvalSettings::target) {
                Some(Ok(t)) => t.models.join("+"),
                Some(Err(e)) => e.to_string(),
                None => "none".into(),
            },
            expect: [
                "m-flag",
                "m-env",
                "m-yaml+m-other",
                "no eval model: set evals.model (or evals.models), TOOLPROOF_EVAL_MODEL or --model",
            ],
        },
        Row {
            name: "min-accuracy",
            command: &["eval"],
            flag: &["--min-accuracy", "0.1"],
            env: ("TOOLPROOF_MIN_ACCURACY", "0.2"),
            yaml: Some((Slot::Evals, "min_accuracy: 0.3")),
            read: |s| {
                s.evals()
                    .map_or(-1.0, EvalSettings::min_accuracy)
                    .to_string()
            },
            expect: ["0.1", "0.2", "0.3", "1"],
        },
        Row {
            name: "min-accuracy of run",
            command: &["run"],
            flag: &["--min-accuracy", "0.1"],
            env: ("TOOLPROOF_MIN_ACCURACY", "0.2"),
            yaml: Some((Slot::Evals, "min_accuracy: 0.3")),
            read: |s| {
                s.evals()
                    .map_or(-1.0, EvalSettings::min_accuracy)
                    .to_string()
            },
            expect: ["0.1", "0.2", "0.3", "1"],
        },
        Row {
            name: "protocol",
            command: &["inspect"],
            flag: &["--protocol", "2025-06-18"],
            env: ("TOOLPROOF_PROTOCOL", "2025-03-26"),
            yaml: Some((Slot::Server, "protocol: \"2025-11-25\"")),
            read: |s| format!("{:?}", s.loaded().config.server.protocol),
            expect: ["V20250618", "V20250326", "V20251125", "Auto"],
        },
        Row {
            name: "junit",
            command: &["run"],
            flag: &["--junit", "-"],
            env: ("TOOLPROOF_JUNIT", "env.xml"),
            yaml: None,
            read: |s| target(s.outputs().junit()),
            expect: ["stdout", "env.xml", "none", "none"],
        },
        Row {
            name: "junit-file-attrs",
            command: &["run"],
            flag: &["--junit-file-attrs"],
            env: ("TOOLPROOF_JUNIT_FILE_ATTRS", "yes"),
            yaml: None,
            read: |s| s.outputs().junit_options().file_attrs.to_string(),
            expect: ["true", "true", "false", "false"],
        },
        Row {
            name: "json",
            command: &["eval"],
            flag: &["--json", "flag.json"],
            env: ("TOOLPROOF_JSON", "-"),
            yaml: None,
            read: |s| target(s.outputs().json()),
            expect: ["flag.json", "stdout", "none", "none"],
        },
        Row {
            name: "html",
            command: &["run"],
            flag: &["--html", "flag.html"],
            env: ("TOOLPROOF_HTML", "env.html"),
            yaml: None,
            read: |s| target(s.outputs().html()),
            expect: ["flag.html", "env.html", "none", "none"],
        },
        Row {
            name: "summary",
            command: &["run"],
            flag: &["--summary", "flag.md"],
            env: ("TOOLPROOF_SUMMARY", "env.md"),
            yaml: None,
            read: |s| target(s.outputs().summary()),
            expect: ["flag.md", "env.md", "none", "none"],
        },
        Row {
            name: "pr-comment",
            command: &["run"],
            flag: &["--pr-comment", "always"],
            env: ("TOOLPROOF_PR_COMMENT", "on-failure"),
            yaml: None,
            read: |s| s.outputs().github().pr_comment().mode().as_str().to_owned(),
            expect: ["always", "on-failure", "off", "off"],
        },
        Row {
            name: "pr-comment-file",
            command: &["eval"],
            flag: &["--pr-comment-file", "flag.md"],
            env: ("TOOLPROOF_PR_COMMENT_FILE", "env.md"),
            yaml: None,
            read: |s| format!("{:?}", s.outputs().github().pr_comment().file()),
            expect: ["Some(\"flag.md\")", "Some(\"env.md\")", "None", "None"],
        },
        Row {
            name: "color",
            command: &["run"],
            flag: &["--color", "never"],
            env: ("TOOLPROOF_COLOR", "always"),
            yaml: None,
            read: |s| s.outputs().color().to_string(),
            expect: ["false", "true", "false", "false"],
        },
    ]
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("toolproof-settings-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    dir
}

#[test]
fn every_option_resolves_flag_then_environment_then_yaml_then_default() {
    let dir = scratch("precedence");
    let mut wrong = Vec::new();
    for row in rows() {
        for (level, want) in row.expect.iter().enumerate() {
            let got = match resolve_in(&dir, &row, level) {
                Ok(s) => (row.read)(&s),
                Err(e) => format!("error: {e}"),
            };
            if got != *want {
                wrong.push(format!(
                    "{} at level {level}: got {got}, want {want}",
                    row.name
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every flag of mcp-toolproof 0.3.1's `run`, `inspect` and `eval` (its `--help` and cli.py),
/// with a value where it takes one: each must parse here too. What each one does is checked
/// by the precedence table above.
const REFERENCE_FLAGS: &[(&str, &[&str])] = &[
    ("run", &["--junit", "j.xml"]),
    ("run", &["--json", "r.json"]),
    ("run", &["--html", "r.html"]),
    ("run", &["--summary", "s.md"]),
    ("run", &["--timeout-ms", "1500.5"]),
    ("run", &["--retries", "2"]),
    ("run", &["--strict"]),
    ("run", &["--no-strict"]),
    ("run", &["--checks"]),
    ("run", &["--no-checks"]),
    ("run", &["--skip-bench"]),
    ("run", &["--no-skip-bench"]),
    ("run", &["--skip-fuzz"]),
    ("run", &["--no-skip-fuzz"]),
    ("run", &["--skip-evals"]),
    ("run", &["--no-skip-evals"]),
    ("inspect", &["--json"]),
    ("inspect", &["--url", "http://127.0.0.1:9/mcp"]),
    ("inspect", &["--config", "CONFIG"]),
    ("inspect", &["-c", "CONFIG"]),
    ("inspect", &["--", "server", "--its-own-flag"]),
    ("eval", &["--provider", "openai"]),
    ("eval", &["--model", "m"]),
    ("eval", &["--min-accuracy", "0.5"]),
    ("eval", &["--no-cache"]),
    ("eval", &["--junit", "j.xml"]),
    ("eval", &["--json", "r.json"]),
    ("eval", &["--html", "r.html"]),
    ("eval", &["--summary", "s.md"]),
    ("eval", &["--url", "http://127.0.0.1:9/mcp"]),
    ("eval", &["--config", "CONFIG"]),
    ("eval", &["--", "server"]),
];

#[test]
fn every_reference_flag_parses_and_resolves() {
    let dir = scratch("reference-flags");
    let path = dir.join("toolproof.yaml");
    let _ = std::fs::write(&path, yaml(None));
    let config = path.display().to_string();
    let mut wrong = Vec::new();
    for (command, flags) in REFERENCE_FLAGS {
        let mut args = vec!["toolproof", command];
        if *command == "run" {
            args.push(&config);
        }
        args.extend(
            flags
                .iter()
                .map(|f| if *f == "CONFIG" { config.as_str() } else { f }),
        );
        let server_given = flags.contains(&"--") || flags.contains(&"--url");
        if *command == "eval" && !flags.contains(&"CONFIG") && !server_given {
            args.extend(["-c", &config]);
        }
        let cli = match Cli::try_parse_from(&args) {
            Ok(cli) => cli,
            Err(e) => {
                wrong.push(format!("{args:?}: {e}"));
                continue;
            }
        };
        if !server_given {
            let loaded = crate::config::load_with(
                &path,
                &|_: &str| None,
                &crate::provider::registry::names(),
            );
            let resolved = loaded.map_err(|e| e.to_string()).and_then(|l| {
                Settings::resolve(&cli, &Env::default(), l).map_err(|e| e.to_string())
            });
            if let Err(e) = resolved {
                wrong.push(format!("{args:?}: {e}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn boolean_environment_switches_take_the_usual_words_and_refuse_others() {
    let dir = scratch("switch");
    let row = Row {
        name: "strict-words",
        command: &["run"],
        flag: &[],
        env: ("TOOLPROOF_STRICT", "1"),
        yaml: None,
        read: |s| s.checks().strict().to_string(),
        expect: ["", "", "", ""],
    };
    for (value, want) in [
        ("1", "true"),
        ("yes", "true"),
        ("ON", "true"),
        ("0", "false"),
    ] {
        let row = Row {
            env: ("TOOLPROOF_STRICT", value),
            ..row_clone(&row)
        };
        let got = resolve_in(&dir, &row, 1).map(|s| (row.read)(&s));
        assert_eq!(got.as_deref(), Ok(want), "{value}");
    }
    let bad = Row {
        env: ("TOOLPROOF_STRICT", "maybe"),
        ..row_clone(&row)
    };
    let err = resolve_in(&dir, &bad, 1).err().unwrap_or_default();
    assert!(
        err.starts_with("environment variable TOOLPROOF_STRICT=\"maybe\" is not a boolean"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn row_clone(row: &Row) -> Row {
    Row {
        name: row.name,
        command: row.command,
        flag: row.flag,
        env: row.env,
        yaml: row.yaml,
        read: row.read,
        expect: row.expect,
    }
}

#[test]
fn the_step_summary_is_the_default_unless_turned_off() {
    let dir = scratch("summary");
    let path = dir.join("t.yaml");
    let _ = std::fs::write(&path, yaml(None));
    let run = |args: &[&str], env: &[(&str, &str)]| -> String {
        let mut all = vec!["toolproof", "run"];
        let p = path.display().to_string();
        all.push(&p);
        all.extend(args);
        let cli = Cli::try_parse_from(&all).ok();
        let env = Env::from_pairs(env.iter().copied());
        let loaded =
            crate::config::load_with(&path, &|_: &str| None, &crate::provider::registry::names())
                .ok();
        match (cli, loaded) {
            (Some(cli), Some(loaded)) => Settings::resolve(&cli, &env, loaded)
                .map(|s| target(s.outputs().summary()))
                .unwrap_or_else(|e| e.to_string()),
            _ => "bad".into(),
        }
    };
    let gh = [("GITHUB_STEP_SUMMARY", "step.md")];
    assert_eq!(run(&[], &gh), "step.md");
    assert_eq!(run(&["--no-summary"], &gh), "none");
    assert_eq!(
        run(
            &[],
            &[
                ("GITHUB_STEP_SUMMARY", "step.md"),
                ("TOOLPROOF_NO_SUMMARY", "1")
            ]
        ),
        "none"
    );
    assert_eq!(
        run(&["--summary", "mine.md", "--no-summary"], &gh),
        "mine.md"
    );
    assert!(run(&["--json", "-", "--junit", "-"], &[]).contains("2 reports are sent to stdout"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_junit_file_attrs_flag_beats_its_variable_set_off() {
    let dir = scratch("file-attrs");
    let row = Row {
        name: "file-attrs-off",
        command: &["run"],
        flag: &["--junit-file-attrs"],
        env: ("TOOLPROOF_JUNIT_FILE_ATTRS", "off"),
        yaml: None,
        read: |s| s.outputs().junit_options().file_attrs.to_string(),
        expect: ["", "", "", ""],
    };
    let got = [0, 1].map(|level| resolve_in(&dir, &row, level).map(|s| (row.read)(&s)));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(got, [Ok("true".to_string()), Ok("false".to_string())]);
}

#[test]
fn annotations_point_at_the_config_from_the_workspace_root() {
    let dir = scratch("workspace");
    let sub = dir.join("ci");
    let _ = std::fs::create_dir_all(&sub);
    let path = sub.join("toolproof.yaml");
    let _ = std::fs::write(&path, yaml(None));
    let places = |pairs: &[(&str, &str)]| {
        let p = path.display().to_string();
        let cli = Cli::try_parse_from(["toolproof", "run", p.as_str()]).ok()?;
        let env = Env::from_pairs(pairs.iter().copied());
        let loaded =
            crate::config::load_with(&path, &|_: &str| None, &crate::provider::registry::names())
                .ok()?;
        let s = Settings::resolve(&cli, &env, loaded).ok()?;
        let places = s.outputs().places().clone();
        Some((
            places.file(&p).to_string(),
            places.checks_line(),
            places.evals_line(),
        ))
    };
    let ws = dir.display().to_string();
    let got = places(&[("GITHUB_WORKSPACE", ws.as_str())]);
    // Outside the workspace the path stays as given (GitHub cannot attach it anyway).
    let outside = places(&[("GITHUB_WORKSPACE", "/nonexistent/toolproof-ws")]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        got,
        Some(("ci/toolproof.yaml".to_string(), Some(3), Some(8)))
    );
    assert_eq!(outside.map(|o| o.0), Some(path.display().to_string()));
}

#[test]
fn the_config_comes_from_the_argument_the_environment_or_the_default() {
    let env = Env::from_pairs([("TOOLPROOF_CONFIG", "ci.yaml")]);
    let source = |args: &[&str], env: &Env| {
        Cli::try_parse_from(args)
            .ok()
            .and_then(|cli| config_source(&cli, env).ok())
    };
    let file = |p: &str| Some(source::ConfigSource::File(PathBuf::from(p)));
    assert_eq!(
        source(&["toolproof", "run", "given.yaml"], &env),
        file("given.yaml")
    );
    assert_eq!(source(&["toolproof", "run"], &env), file("ci.yaml"));
    assert_eq!(
        source(&["toolproof", "run"], &Env::default()),
        file("toolproof.yaml")
    );
    assert_eq!(
        source(&["toolproof", "eval", "-c", "x.yaml"], &env),
        file("x.yaml")
    );
}

#[test]
fn progress_is_a_bar_only_on_a_terminal_outside_ci_and_groups_only_under_github() {
    let dir = scratch("live");
    let path = dir.join("t.yaml");
    let _ = std::fs::write(&path, yaml(None));
    let live = |args: &[&str], pairs: &[(&str, &str)], stderr_tty: bool| {
        let mut all = vec!["toolproof"];
        all.extend(args);
        let cli = Cli::try_parse_from(&all).ok()?;
        let env = Env::from_pairs(pairs.iter().copied()).with_terminals(false, stderr_tty);
        let loaded =
            crate::config::load_with(&path, &|_: &str| None, &crate::provider::registry::names())
                .ok()?;
        Settings::resolve(&cli, &env, loaded)
            .ok()
            .map(|s| s.outputs().live())
    };
    let p = path.display().to_string();
    let run = ["run", p.as_str()];
    let on_tty = live(&run, &[], true);
    assert!(on_tty.is_some_and(|l| l.bar && !l.quiet && !l.groups));
    assert!(live(&run, &[("CI", "true")], true).is_some_and(|l| !l.bar));
    assert!(live(&run, &[], false).is_some_and(|l| !l.bar));
    let gha = live(&run, &[("GITHUB_ACTIONS", "true"), ("CI", "true")], false);
    assert!(gha.is_some_and(|l| l.groups && !l.bar));
    let inspect = live(&["inspect", "-c", p.as_str()], &[], true);
    assert!(inspect.is_some_and(|l| l.quiet));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_timeout_past_thirty_days_from_the_flag_or_the_environment_is_refused() {
    let dir = scratch("timeout-ceiling");
    let row = |flag: &'static [&'static str], value: &'static str| Row {
        name: "timeout-ceiling",
        command: &["run"],
        flag,
        env: ("TOOLPROOF_TIMEOUT_MS", value),
        yaml: None,
        read: |s| crate::config::limits::in_millis(s.tests().timeout()).to_string(),
        expect: ["", "", "", ""],
    };
    let flag = resolve_in(&dir, &row(&["--timeout-ms", "1e300"], "1"), 0);
    let err = flag.err().unwrap_or_default();
    assert_eq!(
        err,
        "--timeout-ms must be above 0 and at most 2592000000 milliseconds (30 days), got 1e300"
    );
    for value in ["1e300", "inf", "2592000001"] {
        let err = resolve_in(&dir, &row(&[], value), 1)
            .err()
            .unwrap_or_default();
        assert!(
            err.starts_with(&format!(
                "environment variable TOOLPROOF_TIMEOUT_MS={value:?} is not valid: must be a number of milliseconds above 0 and at most 2592000000 (30 days)"
            )),
            "{value}: {err}"
        );
    }
    let at_ceiling = resolve_in(&dir, &row(&["--timeout-ms", "2592000000"], "1"), 0);
    assert_eq!(
        at_ceiling.map(|s| (row(&[], "").read)(&s)).ok().as_deref(),
        Some("2592000000")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_timeout_flag_is_held_to_one_range_with_one_message() {
    let dir = scratch("timeout-flags");
    for (command, names) in [
        ("run", "--timeout-ms"),
        ("fuzz", "--timeout-ms / fuzz.timeout_ms"),
        ("protocol", "--timeout-ms / protocol.timeout_ms"),
    ] {
        let row = |flag: &'static [&'static str]| Row {
            name: "timeout-flags",
            command: match command {
                "run" => &["run"],
                "fuzz" => &["fuzz"],
                _ => &["protocol"],
            },
            flag,
            env: ("TOOLPROOF_UNUSED", ""),
            yaml: None,
            read: |_| String::new(),
            expect: ["", "", "", ""],
        };
        let past: [(&'static [&'static str], &str); 2] = [
            (&["--timeout-ms", "1e300"], "1e300"),
            (&["--timeout-ms", "2592000001"], "2592000001"),
        ];
        for (flag, shown) in past {
            let err = resolve_in(&dir, &row(flag), 0).err().unwrap_or_default();
            assert_eq!(
                err,
                format!(
                    "{names} must be above 0 and at most 2592000000 milliseconds (30 days), got {shown}"
                ),
                "{command}"
            );
        }
        let at_ceiling = resolve_in(&dir, &row(&["--timeout-ms", "2592000000"]), 0);
        assert!(at_ceiling.is_ok(), "{command}: {:?}", at_ceiling.err());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_provider_the_error_lists_every_provider_of_the_registry() {
    let none = EvalSetupError::NoProvider.to_string();
    let names = crate::provider::registry::names().join(", ");
    assert!(none.contains(&format!("({names})")), "{none}");
    assert!(names.starts_with("anthropic, openai, "), "{names}");
}
