//! The compatibility suite: every config in `tests/integration/compat/configs/` is run by mcp-toolproof
//! 0.3.1 (the Python reference, installed by `scripts/test.sh` in `$TOOLPROOF_INTEROP_DIR/py-ref`)
//! and by toolproof, side by side, against the same servers (the fake MCP server over stdio and
//! HTTP, a server on the official Python SDK, the npm reference server `everything`) and the same
//! fake model API. Both JSON reports are reduced to one list of (kind, name, verdict) — every
//! static-check finding, test, eval case and phase verdict — plus the exit code, and the two
//! lists must be equal, except for the differences listed in [`DELIBERATE`] (each fixes a named
//! bug of the reference) and the configs in [`PENDING`] (fixed on other branches of issue 10).
//!
//! Each config starts with a header the harness reads:
//! `# compat: what it shows`, `# args: COMMAND FLAGS…` (the config, `--json` and its report
//! path are added), and optionally `# env: NAME=VALUE …`. Server commands name the test servers
//! through `${FAKE_MCP}`, `${FAKE_URL}`, `${PY_MCP2}`, `${SDK_SERVER}`, `${EVERYTHING}` and
//! `${PATTERN_SERVER}` (`tests/integration/compat/pattern_server.py`),
//! which both tools expand in the `server:` section.
//!
//! The reference runs through `tests/integration/compat/reference.py`, which imports it once per worker and
//! forks a child per run; each child runs the real `toolproof.cli:app` from a fresh import.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

use serde_json::Value;
use toolproof_test_support::{Listening, interop_dir};

mod verdicts;

use verdicts::{Difference, Verdicts};

/// A difference toolproof keeps on purpose: in `config` (`*` for any), a verdict of `kind`
/// whose name contains `name` may differ, because the reference behaviour is the bug `why`
/// names (numbers refer to section 11 of the reference's known issues).
struct Deliberate {
    config: &'static str,
    kind: &'static str,
    name: &'static str,
    why: &'static str,
}

const DELIBERATE: &[Deliberate] = &[
    Deliberate {
        config: "*",
        kind: "exit",
        name: "inspect",
        why: "B10: the reference's inspect exits 0 on check errors; toolproof's inspect uses run's exit codes",
    },
    Deliberate {
        config: "new-findings",
        kind: "check",
        name: "* stdout-noise",
        why: "new error: the MCP stdio transport forbids a server to write anything but MCP messages on stdout; the reference logs a traceback and goes on",
    },
    Deliberate {
        config: "new-findings",
        kind: "exit",
        name: "run",
        why: "the stdout-noise error above fails the run (checks.disable: [stdout-noise] turns it off)",
    },
    Deliberate {
        config: "*",
        kind: "check",
        name: " annotations-missing",
        why: "new info (never fails): a tool without any hint, which clients take as destructive and fuzz leaves out (the reference has no annotation checks)",
    },
    Deliberate {
        config: "*",
        kind: "check",
        name: " argument-description",
        why: "new info (never fails): arguments without a description, one finding per tool (the reference does not look at arguments)",
    },
    Deliberate {
        config: "*",
        kind: "check",
        name: " annotations",
        why: "new warning: readOnlyHint and destructiveHint both true (the reference has no annotation checks)",
    },
    Deliberate {
        config: "*",
        kind: "check",
        name: " name-clients",
        why: "new warning: a tool name model APIs reject once a client prefixes it (the reference has no name checks)",
    },
    Deliberate {
        config: "*",
        kind: "check",
        name: " similar-tools",
        why: "new warning: tools whose names and descriptions overlap (the reference has no such check)",
    },
    Deliberate {
        config: "*",
        kind: "check",
        name: " client-anthropic",
        why: "new warning: oneOf/allOf/anyOf at the root of an input schema, which the Claude API refuses with every request carrying the tool (the reference has no client checks; the other client-* checks are off unless checks.clients names them)",
    },
    Deliberate {
        config: "everything",
        kind: "check",
        name: " required-fields",
        why: "not a finding: the reference warns `properties but none are marked required` on any such tool; server-everything's four give every argument a default or say what happens without it, so nothing is missing from `required`",
    },
    Deliberate {
        config: "inspect-everything",
        kind: "check",
        name: " required-fields",
        why: "as for `everything`: every argument of the four tools is evidently optional",
    },
    Deliberate {
        config: "new-findings",
        kind: "check",
        name: "pick_route required-fields",
        why: "not a finding: pick_route says what it needs with an `anyOf` of `required` lists at the root (from and to, or lat and lon); the reference reads only the root `required`. The root anyOf is a client-anthropic finding instead",
    },
    Deliberate {
        config: "uncompilable-pattern",
        kind: "check",
        name: " input-schema",
        why: "new error: a schema `pattern` that is not ECMA-262, the dialect JSON Schema names and JavaScript clients compile; the reference never compiles input schemas in its checks (evals still judge the arguments with Python's meaning, as the reference does)",
    },
    Deliberate {
        config: "lint-errors",
        kind: "exit",
        name: "run",
        why: "new phase: the set lint fails the run on cases that cannot pass (a tool the server does not list, a prompt labelled two ways); the reference only counts them as misses (--skip-lint gives its verdict)",
    },
    Deliberate {
        config: "bench-errors-no-threshold",
        kind: "*",
        name: "",
        why: "A12: the reference passes a bench target at 100 % errors unless max_error_rate is set; toolproof fails it (max_error_rate defaults to 0) and shows the first error",
    },
    Deliberate {
        config: "fuzz-section",
        kind: "*",
        name: "",
        why: "A1: the reference's fuzz phase crashes with the hypothesis it installs and writes no report; toolproof fuzzes and reports what it finds",
    },
    Deliberate {
        config: "fuzz-command",
        kind: "*",
        name: "",
        why: "A1: the reference's fuzz command crashes with the hypothesis it installs and writes no report; toolproof accepts every flag, fuzzes and reports",
    },
];

/// Configs that exercise points of issue 10 fixed on other branches: a difference there is
/// accepted for now. Empty this list once those branches are merged; a config listed here that
/// no longer differs fails the suite, so the list cannot go stale.
const PENDING: &[(&str, u8)] = &[];

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fake's binary, built once per test run.
fn example(name: &str) -> String {
    crate::fake(name)
}

/// Starts `program` and returns it with the URL from its first stdout line
/// (`listening on URL`).
fn listening(program: &str, args: &[&str]) -> (Listening, String) {
    let server = toolproof_test_support::listening(program, args);
    let url = server.url.clone();
    (server, url)
}

/// One config file and its header.
struct Config {
    name: String,
    text: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

fn configs() -> Vec<Config> {
    let dir = manifest().join("tests/integration/compat/configs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/integration/compat/configs")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("read config");
            let header = |key: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(&format!("# {key}: ")))
                    .map(str::to_owned)
            };
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let args = header("args")
                .unwrap_or_else(|| panic!("{name}: no `# args:` line"))
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            let env = header("env")
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
            Config {
                name,
                text,
                args,
                env,
            }
        })
        .collect()
}

/// What both tools share: where the servers and the model API are.
struct World {
    env: Vec<(String, String)>,
    python: PathBuf,
    scratch: PathBuf,
}

const TOKEN: &str = "compat-t0ken";

/// Configs run at once. Most of a run is the reference's Python start-up and waiting on
/// servers, so a few more than the cores keeps them busy.
const WORKERS: usize = 4;

/// One tool's run of one config: exit code, verdicts and the JSON report.
struct Outcome {
    code: i32,
    verdicts: Option<Verdicts>,
    stderr: String,
    report: Option<Value>,
}

/// mcp-toolproof, run through `tests/integration/compat/reference.py`: one Python interpreter that imports
/// it once and forks a child per run (the import costs more CPU than most runs).
struct Reference {
    child: Child,
    answers: BufReader<std::process::ChildStdout>,
}

impl Reference {
    fn start(python: &Path) -> Reference {
        let mut child = Command::new(python)
            .arg(manifest().join("tests/integration/compat/reference.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", python.display()));
        let answers = BufReader::new(child.stdout.take().expect("reference stdout"));
        Reference { child, answers }
    }

    /// Runs `args` in `dir` with `env`; stdout and stderr land in `dir`'s `stdout`/`stderr`.
    fn run(&mut self, args: &[&str], dir: &Path, env: &BTreeMap<String, String>) -> i32 {
        let request = serde_json::json!({
            "args": args,
            "cwd": dir,
            "env": env,
            "stdout": dir.join("stdout"),
            "stderr": dir.join("stderr"),
        });
        let stdin = self.child.stdin.as_mut().expect("reference stdin");
        writeln!(stdin, "{request}").expect("send a run to reference.py");
        stdin.flush().expect("send a run to reference.py");
        let mut line = String::new();
        self.answers
            .read_line(&mut line)
            .expect("read reference.py's answer");
        line.trim()
            .parse()
            .unwrap_or_else(|_| panic!("reference.py answered {line:?}"))
    }
}

impl Drop for Reference {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// The environment of both runs: ours, without anything that would change what either tool
/// does, plus the servers, the model API and the config's own variables.
fn run_env(world: &World, cfg: &Config) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = std::env::vars()
        .filter(|(k, _)| {
            !(k.starts_with("TOOLPROOF_")
                || k.starts_with("GITHUB_")
                || k.starts_with("ANTHROPIC_")
                || k.starts_with("OPENAI_")
                || k == "CI")
        })
        .collect();
    env.extend(world.env.iter().cloned());
    env.extend(cfg.env.iter().cloned());
    env.insert("NO_COLOR".into(), "1".into());
    env
}

fn run_one(world: &World, cfg: &Config, reference: Option<&mut Reference>) -> Outcome {
    let side = if reference.is_some() {
        "reference"
    } else {
        "toolproof"
    };
    let dir = world.scratch.join(&cfg.name).join(side);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    std::fs::write(dir.join("toolproof.yaml"), &cfg.text).expect("write config");
    std::fs::copy(
        manifest().join("tests/integration/cli/picker.py"),
        dir.join("picker.py"),
    )
    .expect("copy picker.py");
    let command = cfg.args[0].as_str();
    let mut args: Vec<&str> = vec![command];
    if command == "run" {
        args.push("toolproof.yaml");
    } else {
        args.extend(["-c", "toolproof.yaml"]);
    }
    args.push("--json");
    if command != "inspect" {
        args.push("report.json");
    }
    args.extend(cfg.args[1..].iter().map(String::as_str));
    let env = run_env(world, cfg);
    let (code, stdout, stderr) = match reference {
        Some(r) => {
            let code = r.run(&args, &dir, &env);
            let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
            (code, read("stdout"), read("stderr"))
        }
        None => {
            let out = Command::new(env!("CARGO_BIN_EXE_toolproof"))
                .args(&args)
                .current_dir(&dir)
                .stdin(Stdio::null())
                .env_clear()
                .envs(&env)
                .output()
                .expect("run toolproof");
            (
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        }
    };
    let json = if command == "inspect" {
        stdout
    } else {
        std::fs::read_to_string(dir.join("report.json")).unwrap_or_default()
    };
    let report = serde_json::from_str::<Value>(&json).ok();
    let verdicts = report.as_ref().map(|v| {
        if side == "reference" {
            verdicts::reference(v)
        } else {
            verdicts::toolproof(v)
        }
    });
    Outcome {
        code,
        verdicts,
        stderr,
        report,
    }
}

/// How one config came out.
struct Compared {
    name: String,
    command: String,
    differences: Vec<Difference>,
    stderr: (String, String),
    /// Wall time of both runs (shown, never asserted on).
    seconds: (f64, f64),
}

fn compare(world: &World, cfg: &Config, runner: &mut Reference) -> Compared {
    let started = std::time::Instant::now();
    let reference = run_one(world, cfg, Some(runner));
    let between = std::time::Instant::now();
    let ours = run_one(world, cfg, None);
    let seconds = (
        between.duration_since(started).as_secs_f64(),
        between.elapsed().as_secs_f64(),
    );
    let mut differences = Vec::new();
    if reference.code != ours.code {
        differences.push(Difference {
            kind: "exit".into(),
            name: cfg.args[0].clone(),
            reference: Some(reference.code.to_string()),
            toolproof: Some(ours.code.to_string()),
        });
    }
    differences.extend(verdicts::differences(
        reference.verdicts.as_ref(),
        ours.verdicts.as_ref(),
    ));
    // `run --json` (and `eval`, `bench`, `fuzz`) keeps the reference's members beside
    // toolproof's: in the reference's shape, and telling the same verdicts as toolproof's own.
    if cfg.args[0] != "inspect"
        && let (Some(theirs), Some(ours)) = (&reference.report, &ours.report)
    {
        differences.extend(verdicts::member_shapes(theirs, ours));
        differences.extend(verdicts::members_agree(ours));
    }
    Compared {
        name: cfg.name.clone(),
        command: cfg.args[0].clone(),
        differences,
        stderr: (reference.stderr, ours.stderr),
        seconds,
    }
}

fn deliberate_for<'a>(config: &str, d: &Difference) -> Option<&'a Deliberate> {
    DELIBERATE.iter().find(|e| {
        (e.config == "*" || e.config == config)
            && (e.kind == "*" || e.kind == d.kind)
            && d.name.contains(e.name)
    })
}

#[test]
fn every_config_agrees_with_mcp_toolproof_but_for_listed_differences() {
    let interop = interop_dir();
    let reference = interop.join("py-ref/bin/toolproof");
    assert!(
        reference.exists(),
        "{} missing: scripts/test.sh installs it",
        reference.display()
    );
    let fake_mcp = example("fake_mcp");
    let (_llm, llm_url) = listening(&example("fake_llm"), &["--port", "0"]);
    let header = format!("X-Compat-Token: {TOKEN}");
    let (_http, fake_url) = listening(
        &fake_mcp,
        &["--http", "127.0.0.1:0", "--require-header", &header],
    );
    let scratch = std::env::temp_dir().join(format!("toolproof-compat-{}", std::process::id()));
    let world = World {
        env: vec![
            ("FAKE_MCP".into(), fake_mcp.clone()),
            ("FAKE_URL".into(), fake_url),
            ("COMPAT_TOKEN".into(), TOKEN.into()),
            (
                "PY_MCP2".into(),
                interop.join("py-mcp2/bin/python").display().to_string(),
            ),
            (
                "SDK_SERVER".into(),
                manifest()
                    .join("tests/integration/interop/sdk_server.py")
                    .display()
                    .to_string(),
            ),
            (
                "EVERYTHING".into(),
                interop
                    .join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
                    .display()
                    .to_string(),
            ),
            (
                "PATTERN_SERVER".into(),
                manifest()
                    .join("tests/integration/compat/pattern_server.py")
                    .display()
                    .to_string(),
            ),
            ("ANTHROPIC_BASE_URL".into(), llm_url.clone()),
            ("ANTHROPIC_API_KEY".into(), "compat-dummy-key".into()),
            ("OPENAI_BASE_URL".into(), format!("{llm_url}/v1")),
            ("OPENAI_API_KEY".into(), "compat-dummy-key".into()),
        ],
        python: interop.join("py-ref/bin/python"),
        scratch: scratch.clone(),
    };
    let all = configs();
    assert!(all.len() >= 25, "only {} configs", all.len());
    let queue = Mutex::new(all.iter().collect::<Vec<_>>());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| {
                let mut runner = Reference::start(&world.python);
                loop {
                    let next = queue.lock().map(|mut q| q.pop()).ok().flatten();
                    let Some(cfg) = next else { break };
                    let compared = compare(&world, cfg, &mut runner);
                    if let Ok(mut r) = results.lock() {
                        r.push(compared);
                    }
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by(|a, b| a.name.cmp(&b.name));
    let _ = std::fs::remove_dir_all(&scratch);
    judge(&results);
}

/// Every difference must be deliberate or in a pending config; every pending config and every
/// deliberate entry must still be needed.
fn judge(results: &[Compared]) {
    let mut problems = Vec::new();
    let mut used = vec![false; DELIBERATE.len()];
    let mut table = String::new();
    for r in results {
        let pending = PENDING.iter().find(|(n, _)| *n == r.name);
        table.push_str(&format!(
            "  {:<28} {:<7} reference {:.1}s, toolproof {:.1}s, {} difference(s)\n",
            r.name,
            r.command,
            r.seconds.0,
            r.seconds.1,
            r.differences.len()
        ));
        let mut unexplained = Vec::new();
        for d in &r.differences {
            match deliberate_for(&r.name, d) {
                Some(e) => {
                    if let Some(i) = DELIBERATE.iter().position(|x| std::ptr::eq(x, e)) {
                        used[i] = true;
                    }
                    table.push_str(&format!("      deliberate {d} ({})\n", e.why));
                }
                None if pending.is_some() => {
                    let point = pending.map_or(0, |p| p.1);
                    table.push_str(&format!("      pending (issue 10 point {point}) {d}\n"));
                }
                None => unexplained.push(d.to_string()),
            }
        }
        if let Some((_, point)) = pending
            && r.differences.is_empty()
        {
            problems.push(format!(
                "{}: agrees now; remove it from PENDING (issue 10 point {point})",
                r.name
            ));
        }
        if !unexplained.is_empty() {
            problems.push(format!(
                "{} ({}): {}\n    reference stderr: {}\n    toolproof stderr: {}",
                r.name,
                r.command,
                unexplained.join("; "),
                r.stderr.0.trim(),
                r.stderr.1.trim()
            ));
        }
    }
    for (entry, used) in DELIBERATE.iter().zip(used) {
        if !used {
            problems.push(format!(
                "DELIBERATE entry {}/{}/{:?} matched no difference: remove it",
                entry.config, entry.kind, entry.name
            ));
        }
    }
    eprintln!("compat: {} configs\n{table}", results.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn verdicts_of_both_report_shapes_line_up() {
    let reference = serde_json::json!({
        "error": null,
        "checks": [{"tool": "t", "check": "description", "severity": "error", "message": "m"}],
        "tests": [{"name": "a", "passed": true}, {"name": "b", "passed": false}],
        "evals": {"passed": false, "provider": "openai", "model": "m",
                  "cases": [{"name": null, "prompt": "p1", "passed": true}]}
    });
    let ours = serde_json::json!({
        "error": null,
        "phases": {
            "checks": {"status": "failed", "results": {"findings": [
                {"tool": "t", "check": "description", "severity": "error"}]}},
            "tests": {"status": "failed", "results": [
                {"name": "a", "status": "flaky"}, {"name": "b", "status": "passed"}]},
            "evals": {"status": "failed", "results": {"provider": "openai", "models": [
                {"model": "m", "cases": [{"name": "p1", "status": "correct"}]}]}}
        }
    });
    let diffs = verdicts::differences(
        Some(&verdicts::reference(&reference)),
        Some(&verdicts::toolproof(&ours)),
    );
    let shown: Vec<String> = diffs.iter().map(ToString::to_string).collect();
    assert_eq!(shown, ["test `b`: reference fail, toolproof pass"]);
    let none = verdicts::differences(Some(&verdicts::reference(&reference)), None);
    assert!(
        none.iter().any(|d| d.kind == "report"),
        "a missing report is a difference: {none:?}"
    );
}
