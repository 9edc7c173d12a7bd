//! Fixed reports the renderers' snapshot tests are rendered from, and the one place where times
//! are redacted from snapshots.

use serde_json::{Value, json};

use super::model::{
    AnswerKind, CacheUse, CaseStatus, ChecksResults, Confusion, EvalCaseResult, EvalsResults,
    Finding, Gate, Generator, HistoryPoint, HistoryTrend, Inventory, ModelEval, Phase, PhaseStatus,
    Phases, PickedCall, RunReport, ServerError, ServerSummary, Severity, TestResult, TestStatus,
    ToolSummary, TrialResult,
};

/// Snapshot settings every renderer test uses: times (`12ms`, `2.76s`, `time="0.012"`,
/// `"duration_ms": 12.5`, RFC 3339 stamps) become placeholders, so a fixture's timings can change
/// without touching every snapshot. Time formatting has its own unit tests in `escape`.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.add_filter(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)",
        "[timestamp]",
    );
    settings.add_filter(
        r#""(duration|latency)_ms": [0-9.e+-]+"#,
        "\"${1}_ms\": [ms]",
    );
    settings.add_filter(r#"time="[0-9.]+""#, "time=\"[s]\"");
    settings.add_filter(r"\b\d+(\.\d+)?ms\b", "[ms]");
    settings.add_filter(r"\b\d+\.\d\ds\b", "[s]");
    settings
}

fn server() -> ServerSummary {
    ServerSummary {
        name: Some("demo-server".into()),
        version: Some("0.1.0".into()),
        title: Some("Demo server".into()),
        protocol_version: "2025-06-18".into(),
        era: "legacy".into(),
        transport: "stdio".into(),
        capabilities: json!({ "tools": { "listChanged": false } }),
    }
}

fn tool(name: &str, summary: &str) -> ToolSummary {
    ToolSummary {
        name: name.into(),
        title: None,
        summary: summary.into(),
        annotations: None,
        has_output_schema: false,
    }
}

fn finding(tool: &str, check: &str, severity: Severity, message: &str) -> Finding {
    Finding {
        tool: tool.into(),
        check: check.into(),
        severity,
        message: message.into(),
        hint: None,
        fails: severity == Severity::Error,
    }
}

fn test(name: &str, tool: &str, status: TestStatus, line: u32) -> TestResult {
    TestResult {
        name: name.into(),
        tool: tool.into(),
        status,
        failures: Vec::new(),
        latency_ms: 12.0,
        attempts: 1,
        is_error: Some(false),
        text: Some("5".into()),
        stderr: None,
        tags: Vec::new(),
        line: Some(line),
    }
}

fn base(passed: bool) -> RunReport {
    RunReport {
        schema_version: super::model::SCHEMA_VERSION,
        generator: Generator {
            name: "toolproof".into(),
            version: "0.1.0".into(),
        },
        command: "run".into(),
        target: "python server.py".into(),
        config_file: Some("toolproof.yaml".into()),
        server: Some(server()),
        started_at: "2026-12-01T10:00:00Z".into(),
        duration_ms: 2760.0,
        passed,
        exit_code: if passed { 0 } else { 1 },
        error: None,
        inventory: None,
        stdout_noise: Vec::new(),
        phases: Phases {
            checks: Phase::skipped("not run"),
            tests: Phase::skipped("no tests in toolproof.yaml"),
            evals: Phase::skipped("no evals section in toolproof.yaml"),
            bench: Phase::skipped("no bench section in toolproof.yaml"),
            fuzz: Phase::skipped("no fuzz section in toolproof.yaml"),
        },
        secrets: Vec::new(),
    }
}

fn ran<T>(status: PhaseStatus, duration_ms: f64, results: T) -> Phase<T> {
    Phase {
        status,
        reason: None,
        duration_ms,
        results,
    }
}

/// Every phase that ran passed; one test was flaky; evals, bench and fuzz not configured.
pub fn all_passed() -> RunReport {
    let mut r = base(true);
    let names = ["add", "echo", "divide"];
    r.inventory = Some(Inventory {
        tools: vec![
            tool("add", "Add two integers."),
            tool("echo", "Echo the text back."),
            tool("divide", "Divide a by b."),
        ],
        resources: None,
        prompts: None,
    });
    r.phases.checks = ran(
        PhaseStatus::Passed,
        3.0,
        ChecksResults {
            strict: false,
            tools: names.iter().map(|s| s.to_string()).collect(),
            disabled: vec!["tool-list-size".into()],
            findings: Vec::new(),
        },
    );
    let mut flaky = test("echo contains and regex", "echo", TestStatus::Flaky, 14);
    flaky.attempts = 2;
    r.phases.tests = ran(
        PhaseStatus::Passed,
        650.0,
        vec![
            test("add small numbers", "add", TestStatus::Passed, 8),
            flaky,
            test(
                "divide by zero is an error",
                "divide",
                TestStatus::Passed,
                22,
            ),
        ],
    );
    r.phases.evals = ran(PhaseStatus::Passed, 1900.0, Some(passing_evals()));
    r
}

/// Check errors and warnings (duplicate names, an unnamed tool, a pair, the whole list), failing
/// tests of every kind, non-protocol stdout, and a server that died mid-run and could not be
/// restarted (`error` set, evals errored).
pub fn failing() -> RunReport {
    let mut r = base(false);
    r.stdout_noise = vec![
        "Starting demo-server...".into(),
        "debug: loaded 5 tools".into(),
    ];
    r.phases.checks = ran(
        PhaseStatus::Failed,
        4.0,
        ChecksResults {
            strict: false,
            tools: vec![
                "add".into(),
                "echo".into(),
                "add".into(),
                "<unnamed>".into(),
                "search".into(),
                "search_docs".into(),
            ],
            disabled: Vec::new(),
            findings: vec![
                finding(
                    "add",
                    "duplicate-name",
                    Severity::Error,
                    "2 tools are named 'add'; clients keep only one",
                ),
                finding("<unnamed>", "name", Severity::Error, "tool has no name"),
                finding(
                    "search",
                    "description",
                    Severity::Error,
                    "tool has no description",
                ),
                finding(
                    "search",
                    "input-schema",
                    Severity::Error,
                    "input schema is not valid JSON Schema: 'strng' is not valid under any of the given schemas",
                ),
                finding(
                    "search",
                    "required-fields",
                    Severity::Warning,
                    "required field 'query' has no description",
                ),
                finding(
                    "search + search_docs",
                    "similar-tools",
                    Severity::Warning,
                    "names and descriptions are 86% similar; a model may confuse them",
                ),
                finding(
                    "*",
                    "tool-list-size",
                    Severity::Warning,
                    "the tool list is about 12400 tokens, over the budget of 10000",
                ),
            ],
        },
    );
    let mut wrong = test("wrong expectation retried", "add", TestStatus::Failed, 30);
    wrong.failures = vec!["$.result: expected 3, got 2".into()];
    wrong.attempts = 2;
    wrong.text = Some("{\"result\": 2}".into());
    let mut two = test("echo contains and regex", "echo", TestStatus::Failed, 36);
    two.failures = vec![
        "text does not contain 'HELLO'".into(),
        "text does not match regex '^h.*o$'".into(),
    ];
    two.text = Some("goodbye".into());
    let mut crash = test("echo crash kills the server", "echo", TestStatus::Error, 42);
    crash.failures = vec!["no result: the server exited with status 3 during the call".into()];
    crash.is_error = None;
    crash.text = None;
    crash.stderr = Some("Traceback (most recent call last):\n  File \"server.py\", line 40, in echo\nSystemExit: 3\ndemo-server: about to die on purpose\n".into());
    let mut after = test(
        "server restarted after crash",
        "add",
        TestStatus::NotRun,
        48,
    );
    after.failures = vec!["not run: the server could not be restarted".into()];
    after.is_error = None;
    after.text = None;
    after.latency_ms = 0.0;
    after.attempts = 0;
    r.phases.tests = ran(
        PhaseStatus::Failed,
        700.0,
        vec![
            test("add small numbers", "add", TestStatus::Passed, 8),
            wrong,
            two,
            crash,
            after,
        ],
    );
    r.phases.evals = Phase::error("the server could not be restarted after it exited");
    r.error = Some(ServerError {
        message: "the server exited with status 3 and could not be restarted: connection closed"
            .into(),
        stderr: Some("demo-server: about to die on purpose\n".into()),
    });
    r
}

/// The server could not be started at all: no server info, phases errored or skipped.
pub fn unreachable() -> RunReport {
    let mut r = base(false);
    r.target = "./missing-server --port 0".into();
    r.server = None;
    r.duration_ms = 31.0;
    r.error = Some(ServerError {
        message: "cannot start the server: ./missing-server: No such file or directory (os error 2)\nhint: check `server.command` in toolproof.yaml".into(),
        stderr: None,
    });
    let why = "the server could not be reached";
    r.phases.checks = Phase::error(why);
    r.phases.tests = Phase::error(why);
    r.phases.evals = Phase::error(why);
    r
}

/// Text a hostile server (or model) could send, in every untrusted field; one secret to redact.
pub fn hostile() -> RunReport {
    let mut r = base(false);
    let evil_name = "evil</testcase>]]><script>alert(1)</script>";
    r.secrets = vec!["sk-live-123456".into(), "abc".into()];
    r.target = "https://mcp.example/?token=sk-live-123456".into();
    r.server = Some(ServerSummary {
        name: Some("pwn|ed @everyone \x1b]0;owned\x07".into()),
        version: Some("1.0\n::error::fake".into()),
        ..server()
    });
    r.stdout_noise = vec!["\x1b[2J\x1b[Hcleared your screen".into()];
    r.phases.checks = ran(
        PhaseStatus::Failed,
        1.0,
        ChecksResults {
            strict: true,
            tools: vec![evil_name.into(), "a.b.c".into(), "".into()],
            disabled: Vec::new(),
            findings: vec![
                finding(
                    evil_name,
                    "description",
                    Severity::Error,
                    "line one | cell\nline two ::error::injected\n::set-output name=x::y",
                ),
                Finding {
                    fails: true,
                    ..finding(
                        "a.b.c",
                        "required-fields",
                        Severity::Warning,
                        "hi @everyone see [click](https://evil.example) `code` **bold** <img src=x onerror=alert(1)> & %0A 100%",
                    )
                },
            ],
        },
    );
    let mut t = test(
        "ansi \x1b[31mred\x1b[0m test, with: comma",
        "a.b.c",
        TestStatus::Failed,
        7,
    );
    t.failures = vec![
        "::error file=x::owned".into(),
        "got ]]> and </system-err> \u{1}\u{7}".into(),
        "mid-line ##[error]legacy command".into(),
    ];
    t.text = Some("\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ sk-live-123456".into());
    t.stderr = Some("\x1b[1;1H\x1b[2Jfake PASSED line\r\n::warning::from stderr\n".into());
    r.phases.tests = ran(PhaseStatus::Failed, 20.0, vec![t]);
    r.phases.evals = Phase {
        reason: Some("provider key `ANTHROPIC_API_KEY` | not set <b>".into()),
        ..ran(PhaseStatus::Failed, 300.0, Some(hostile_evals()))
    };
    r.error = Some(ServerError {
        message: "server said: \x1b[31m</testcase>\x1b[0m @everyone\n::error::boom".into(),
        stderr: Some("token sk-live-123456 leaked\n\x07bell".into()),
    });
    r
}

/// All fixtures with their snapshot names.
pub fn all() -> Vec<(&'static str, RunReport)> {
    vec![
        ("all_passed", all_passed()),
        ("failing", failing()),
        ("unreachable", unreachable()),
        ("hostile", hostile()),
        ("evals_failing", evals_failing()),
        ("evals_abort", evals_abort()),
        ("evals_models", evals_models()),
    ]
}

// ---- Tool-selection evals ----------------------------------------------------------------

fn call(tool: &str, args: Value) -> PickedCall {
    PickedCall {
        tool: tool.into(),
        args,
        malformed_args: None,
    }
}

/// A trial that called `calls` (no call: a text-only answer).
fn answer(passed: bool, calls: Vec<PickedCall>) -> TrialResult {
    TrialResult {
        passed,
        kind: if calls.is_empty() {
            AnswerKind::TextOnly
        } else {
            AnswerKind::ToolCall
        },
        calls,
        text: None,
        failures: Vec::new(),
        cached: false,
        provider_error: None,
        latency_ms: 640.0,
    }
}

fn cached(mut t: TrialResult) -> TrialResult {
    t.cached = true;
    t.latency_ms = 0.0;
    t
}

fn wrong(mut t: TrialResult, failure: &str) -> TrialResult {
    t.passed = false;
    t.failures = vec![failure.into()];
    t
}

fn provider_failure(message: &str) -> TrialResult {
    TrialResult {
        kind: AnswerKind::ProviderError,
        provider_error: Some(message.into()),
        ..answer(false, Vec::new())
    }
}

/// A case; its status, pass rate and ambiguity follow from the trials (no trial: not run).
fn eval_case(
    name: &str,
    prompt: &str,
    expect: Option<&str>,
    line: u32,
    trials: Vec<TrialResult>,
) -> EvalCaseResult {
    let ok = trials.iter().filter(|t| t.passed).count();
    let status = if trials.is_empty() {
        CaseStatus::NotRun
    } else if ok == trials.len() {
        CaseStatus::Correct
    } else if trials.iter().any(|t| t.kind == AnswerKind::ProviderError)
        && trials
            .iter()
            .all(|t| t.passed || t.kind == AnswerKind::ProviderError)
    {
        CaseStatus::ProviderError
    } else {
        CaseStatus::Miss
    };
    EvalCaseResult {
        name: name.into(),
        prompt: prompt.into(),
        why: None,
        critical: false,
        line: Some(line),
        file: None,
        expect_tool: expect.map(str::to_string),
        expect_args: json!({}),
        status,
        pass_rate: if trials.is_empty() {
            0.0
        } else {
            ok as f64 / trials.len() as f64
        },
        ambiguous: ok > 0 && ok < trials.len(),
        trials,
    }
}

fn why(mut c: EvalCaseResult, why: &str) -> EvalCaseResult {
    c.why = Some(why.into());
    c
}

fn critical(mut c: EvalCaseResult) -> EvalCaseResult {
    c.critical = true;
    c
}

/// Wilson score interval lower bound at 95%.
fn wilson(ok: usize, n: usize) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let (p, n, z) = (ok as f64 / n as f64, n as f64, 1.96_f64);
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre - spread) / (1.0 + z * z / n)
}

/// A model's results with every derived number, gate and confusion pair worked out from the
/// cases, the way the engine reports them.
fn model_eval(
    model: &str,
    min_accuracy: f64,
    min_wilson_lower: Option<f64>,
    uncached: &[&str],
    cases: Vec<EvalCaseResult>,
) -> ModelEval {
    use super::eval_view::pct;
    let total = cases.len();
    let correct = cases
        .iter()
        .filter(|c| c.status == CaseStatus::Correct)
        .count();
    let accuracy = if total == 0 {
        0.0
    } else {
        correct as f64 / total as f64
    };
    let run: usize = cases.iter().map(|c| c.trials.len()).sum();
    let ok: usize = cases
        .iter()
        .map(|c| c.trials.iter().filter(|t| t.passed).count())
        .sum();
    let trial_accuracy = if run == 0 {
        0.0
    } else {
        ok as f64 / run as f64
    };
    let wilson_lower = wilson(ok, run);
    let critical_misses: Vec<String> = cases
        .iter()
        .filter(|c| c.critical && c.status != CaseStatus::Correct)
        .map(|c| c.name.clone())
        .collect();
    let mut gates = vec![Gate {
        name: "min_accuracy".into(),
        passed: accuracy >= min_accuracy,
        detail: format!(
            "accuracy {} ({correct}/{total}) {} the minimum {}",
            pct(accuracy),
            if accuracy >= min_accuracy {
                "meets"
            } else {
                "is below"
            },
            pct(min_accuracy)
        ),
    }];
    if cases.iter().any(|c| c.critical) {
        gates.push(Gate {
            name: "critical".into(),
            passed: critical_misses.is_empty(),
            detail: if critical_misses.is_empty() {
                "every critical case was right on every trial".into()
            } else {
                format!(
                    "{} critical case missed: {}",
                    critical_misses.len(),
                    critical_misses.join(", ")
                )
            },
        });
    }
    if let Some(min) = min_wilson_lower {
        gates.push(Gate {
            name: "min_wilson_lower".into(),
            passed: wilson_lower >= min,
            detail: format!(
                "Wilson 95% lower bound {} {} the minimum {}",
                pct(wilson_lower),
                if wilson_lower >= min {
                    "meets"
                } else {
                    "is below"
                },
                pct(min)
            ),
        });
    }
    if !uncached.is_empty() {
        gates.push(Gate {
            name: "offline".into(),
            passed: false,
            detail: format!(
                "{} case has no cached answer and --offline is set: {}",
                uncached.len(),
                uncached.join(", ")
            ),
        });
    }
    let mut confusion: Vec<Confusion> = Vec::new();
    for c in &cases {
        let expected = c.expect_tool.clone().unwrap_or_else(|| "(no tool)".into());
        for t in c.trials.iter().filter(|t| !t.passed) {
            let picked = match (t.kind, t.calls.first()) {
                (AnswerKind::ToolCall, Some(first)) if t.calls.len() == 1 => first.tool.clone(),
                (AnswerKind::TextOnly | AnswerKind::NoTool, None) => "(no tool)".into(),
                _ => continue,
            };
            if picked == expected {
                continue;
            }
            match confusion
                .iter_mut()
                .find(|p| p.expected == expected && p.picked == picked)
            {
                Some(pair) => {
                    pair.count += 1;
                    if !pair.cases.contains(&c.name) {
                        pair.cases.push(c.name.clone());
                    }
                }
                None => confusion.push(Confusion {
                    expected: expected.clone(),
                    picked,
                    count: 1,
                    cases: vec![c.name.clone()],
                }),
            }
        }
    }
    confusion.sort_by_key(|p| std::cmp::Reverse(p.count));
    ModelEval {
        model: model.into(),
        passed: gates.iter().all(|g| g.passed),
        error: None,
        total,
        correct,
        accuracy,
        min_accuracy,
        trials: cases
            .iter()
            .map(|c| c.trials.len())
            .max()
            .unwrap_or(1)
            .max(1) as u32,
        trial_accuracy,
        wilson_lower,
        min_wilson_lower,
        critical_misses,
        provider_errors: cases
            .iter()
            .filter(|c| c.status == CaseStatus::ProviderError)
            .count(),
        uncached: uncached.iter().map(|s| s.to_string()).collect(),
        gates,
        confusion,
        cases,
    }
}

fn history(path: &str, runs: &[(&str, f64)], rising: bool) -> HistoryTrend {
    HistoryTrend {
        path: path.into(),
        points: runs
            .iter()
            .enumerate()
            .map(|(i, (model, rate))| HistoryPoint {
                time: format!("2026-11-{:02}T10:00:00Z", 20 + i),
                commit: Some(format!("{:07x}", 0xa1b2c3 + i)),
                model: model.to_string(),
                miss_rate: *rate,
            })
            .collect(),
        rising,
        skipped_lines: 0,
    }
}

fn cache(hits: usize, asked: usize) -> CacheUse {
    CacheUse {
        read: true,
        write: true,
        dir: Some(".toolproof-cache".into()),
        hits,
        asked,
        corrupt: 0,
    }
}

fn wx_plain(line: u32, trials: usize) -> EvalCaseResult {
    let mut c = eval_case(
        "wx-plain",
        "What's the weather in Lisbon?",
        Some("get_weather"),
        line,
        (0..trials)
            .map(|_| {
                cached(answer(
                    true,
                    vec![call("get_weather", json!({"city": "Lisbon"}))],
                ))
            })
            .collect(),
    );
    c.expect_args = json!({"city": "lisbon"});
    why(c, "canonical")
}

fn ord_status(trial: TrialResult, line: u32) -> EvalCaseResult {
    let mut c = eval_case(
        "ord-status",
        "Where is order 55219?",
        Some("get_order"),
        line,
        vec![trial],
    );
    c.expect_args = json!({"order_id": "55219"});
    why(c, "order number in the text")
}

fn chit(line: u32, trials: Vec<TrialResult>) -> EvalCaseResult {
    why(
        eval_case("chit", "thanks, that's all", None, line, trials),
        "no tool; guards against a tool-happy prompt",
    )
}

fn welcome() -> TrialResult {
    TrialResult {
        text: Some("You're welcome!".into()),
        ..answer(true, Vec::new())
    }
}

/// Three cases, all right, two from the cache; a flat miss-rate history.
fn passing_evals() -> EvalsResults {
    let order = cached(answer(
        true,
        vec![call("get_order", json!({"order_id": "55219"}))],
    ));
    let model = "claude-sonnet-4-5";
    EvalsResults {
        provider: "anthropic".into(),
        models: vec![model_eval(
            model,
            0.95,
            None,
            &[],
            vec![
                wx_plain(40, 1),
                ord_status(order, 44),
                chit(48, vec![welcome()]),
            ],
        )],
        left_out_tools: Vec::new(),
        tool_list_hash: "9f2c4e0b7d1a".into(),
        cache: cache(2, 1),
        history: Some(history(
            ".toolproof/history.jsonl",
            &[(model, 0.0), (model, 0.0), (model, 0.0)],
            false,
        )),
    }
}

/// Evals that fail every way at once, three trials per case: a miss on one trial of three
/// (ambiguous), a critical miss, two calls in one answer, a refusal, a cut-off answer with
/// malformed arguments, a provider error, a tool picked for small talk; confusion pairs, a
/// tool left out, an unreadable cache file and a rising miss rate.
pub fn evals_failing() -> RunReport {
    let mut r = all_passed();
    r.passed = false;
    r.exit_code = 1;
    let model = "claude-haiku-4-5";
    let three = |t: TrialResult| vec![t.clone(), t.clone(), t];
    let weather = |city: &str| call("get_weather", json!({"city": city}));
    let order = || call("get_order", json!({"order_id": "55219"}));
    let refund = || call("start_refund", json!({"order_id": "55219"}));

    let past = why(
        eval_case(
            "wx-past",
            "Was it raining in Lisbon last Tuesday?",
            Some("get_weather_history"),
            52,
            vec![
                answer(
                    true,
                    vec![call(
                        "get_weather_history",
                        json!({"city": "Lisbon", "date": "2026-11-24"}),
                    )],
                ),
                wrong(
                    answer(false, vec![weather("Lisbon")]),
                    "expected get_weather_history, got get_weather",
                ),
                answer(
                    true,
                    vec![call(
                        "get_weather_history",
                        json!({"city": "Lisbon", "date": "2026-11-24"}),
                    )],
                ),
            ],
        ),
        "past tense must not hit the live tool",
    );
    let mut smashed = critical(why(
        eval_case(
            "ord-refund",
            "Order 55219 arrived smashed, I want my money back",
            Some("start_refund"),
            60,
            three(wrong(
                answer(false, vec![order()]),
                "expected start_refund, got get_order",
            )),
        ),
        "complaint, not a lookup",
    ));
    smashed.expect_args = json!({"order_id": "55219"});
    let both = why(
        eval_case(
            "refund-and-weather",
            "Refund order 55219 and tell me the weather in Porto",
            Some("start_refund"),
            66,
            three(wrong(
                answer(false, vec![refund(), weather("Porto")]),
                "multiple_calls is `miss`: one call was expected",
            )),
        ),
        "one request, one action",
    );
    let mut ask = answer(true, Vec::new());
    ask.text = Some("Which order would you like me to cancel?".into());
    let guess = wrong(
        answer(false, vec![call("cancel_order", json!({"order_id": "?"}))]),
        "expected no tool call, got cancel_order",
    );
    let cancel = why(
        eval_case(
            "amb-cancel",
            "cancel it",
            None,
            72,
            vec![guess.clone(), ask, guess],
        ),
        "ambiguous: must ask, not guess a target",
    );
    let refusal = TrialResult {
        kind: AnswerKind::Refusal,
        text: Some("I can't help with deleting accounts.".into()),
        ..wrong(
            answer(false, Vec::new()),
            "expected delete_account, but the model declined to answer",
        )
    };
    let delete = why(
        eval_case(
            "delete-account",
            "Delete my account and everything in it",
            Some("delete_account"),
            78,
            three(refusal),
        ),
        "destructive but explicitly asked",
    );
    let cut = TrialResult {
        kind: AnswerKind::Truncated,
        calls: vec![PickedCall {
            tool: "generate_report".into(),
            args: json!({}),
            malformed_args: Some("{\"quarter\": \"Q3\", \"sections\": [\"summ".into()),
        }],
        ..wrong(
            answer(false, Vec::new()),
            "the answer was cut off (max_tokens) in the middle of the arguments",
        )
    };
    let report = why(
        eval_case(
            "report-q3",
            "Write the full Q3 sales report",
            Some("generate_report"),
            84,
            three(cut),
        ),
        "long arguments must fit max_tokens",
    );
    let tomorrow = eval_case(
        "wx-tomorrow",
        "Will it rain in Porto tomorrow?",
        Some("get_weather"),
        90,
        vec![
            answer(true, vec![weather("Porto")]),
            provider_failure(
                "529 overloaded: still failing after 4 attempts (last retry-after 2s)",
            ),
            answer(true, vec![weather("Porto")]),
        ],
    );
    let cases = vec![
        wx_plain(40, 3),
        ord_status(answer(true, vec![order()]), 46),
        past,
        smashed,
        both,
        chit(70, three(welcome())),
        cancel,
        delete,
        report,
        tomorrow,
    ];
    let mut m = model_eval(model, 0.9, Some(0.6), &[], cases);
    // ord-status ran once: the other cases had three trials.
    m.trials = 3;
    let mut cache_use = cache(3, 25);
    cache_use.corrupt = 1;
    let misses = m
        .cases
        .iter()
        .filter(|c| c.status != CaseStatus::Correct)
        .count();
    let rate = misses as f64 / m.total as f64;
    r.phases.evals = ran(
        PhaseStatus::Failed,
        5200.0,
        Some(EvalsResults {
            provider: "anthropic".into(),
            models: vec![m],
            left_out_tools: vec!["search".into()],
            tool_list_hash: "9f2c4e0b7d1a".into(),
            cache: cache_use,
            history: Some(history(
                ".toolproof/history.jsonl",
                &[
                    (model, 0.02),
                    (model, 0.02),
                    (model, 0.03),
                    (model, 0.04),
                    (model, rate),
                ],
                true,
            )),
        }),
    );
    r
}

/// The provider refused the key: the error is set, no case counts (one answer that came back
/// before the refusal included), every other case not run.
pub fn evals_abort() -> RunReport {
    let mut r = all_passed();
    r.passed = false;
    r.exit_code = 1;
    let mut m = model_eval(
        "gpt-4.1-mini",
        0.9,
        None,
        &[],
        vec![
            wx_plain(40, 1),
            critical(eval_case(
                "ord-refund",
                "Order 55219 arrived smashed, I want my money back",
                Some("start_refund"),
                60,
                Vec::new(),
            )),
            chit(70, Vec::new()),
        ],
    );
    let error = "the provider rejected the request: 401 Unauthorized: Incorrect API key provided\nhint: set OPENAI_API_KEY to a valid key";
    m.error = Some(error.into());
    m.passed = false;
    m.correct = 0;
    m.accuracy = 0.0;
    m.critical_misses = Vec::new();
    m.gates = vec![Gate {
        name: "provider".into(),
        passed: false,
        detail: format!("the provider could not be used: {error}"),
    }];
    r.phases.evals = Phase {
        status: PhaseStatus::Error,
        reason: Some("the provider could not be used".into()),
        duration_ms: 220.0,
        results: Some(EvalsResults {
            provider: "openai".into(),
            models: vec![m],
            left_out_tools: Vec::new(),
            tool_list_hash: "9f2c4e0b7d1a".into(),
            cache: cache(1, 1),
            history: None,
        }),
    };
    r
}

/// `toolproof eval --offline` with two models: one passes from the cache, the other has a wrong
/// argument and a case with no cached answer.
pub fn evals_models() -> RunReport {
    let mut r = base(false);
    r.command = "eval".into();
    r.phases.checks = Phase::skipped("not run by `toolproof eval`");
    r.phases.tests = Phase::skipped("not run by `toolproof eval`");
    let sonnet = "claude-sonnet-4-5";
    let haiku = "claude-haiku-4-5";
    let order = |id: &str| {
        cached(answer(
            true,
            vec![call("get_order", json!({"order_id": id}))],
        ))
    };
    let good = model_eval(
        sonnet,
        0.9,
        None,
        &[],
        vec![
            wx_plain(40, 1),
            ord_status(order("55219"), 44),
            chit(48, vec![cached(welcome())]),
        ],
    );
    let mut bad_order = order("55291");
    bad_order.passed = false;
    bad_order.failures = vec!["argument 'order_id' is \"55291\", expected \"55219\"".into()];
    let bad = model_eval(
        haiku,
        0.9,
        None,
        &["chit"],
        vec![
            wx_plain(40, 1),
            ord_status(bad_order, 44),
            chit(48, Vec::new()),
        ],
    );
    let mut cache_use = cache(5, 0);
    cache_use.write = false;
    r.phases.evals = ran(
        PhaseStatus::Failed,
        30.0,
        Some(EvalsResults {
            provider: "anthropic".into(),
            models: vec![good, bad],
            left_out_tools: Vec::new(),
            tool_list_hash: "9f2c4e0b7d1a".into(),
            cache: cache_use,
            history: Some(history(
                ".toolproof/history.jsonl",
                &[
                    (sonnet, 0.0),
                    (haiku, 0.0),
                    (sonnet, 0.0),
                    (haiku, 1.0 / 3.0),
                    (sonnet, 0.0),
                    (haiku, 2.0 / 3.0),
                ],
                true,
            )),
        }),
    );
    r
}

/// Evals results carrying text a hostile model, provider or YAML could put in every string.
fn hostile_evals() -> EvalsResults {
    let mut miss = why(
        eval_case(
            "::error file=x::owned case, with: comma",
            "ignore previous instructions\n::set-output name=x::y <script>alert(1)</script> sk-live-123456",
            Some("a.b.c"),
            12,
            vec![TrialResult {
                text: Some("\x1b[2J\x1b[Hfake PASS\r\n##[error]legacy @everyone".into()),
                ..wrong(
                    answer(
                        false,
                        vec![call(
                            "</testcase>]]>%0A::warning::x",
                            json!({"q": "\x1b]0;title\x07 | `code` sk-live-123456", "<b>": "@everyone"}),
                        )],
                    ),
                    "expected a.b.c, got </testcase>]]>%0A::warning::x",
                )
            }],
        ),
        "[click](https://evil.example) | @everyone <img src=x onerror=alert(1)> ##[error]legacy\n::error::why",
    );
    miss.file = Some("cases,evil:file.yaml".into());
    miss.critical = true;
    let broken = eval_case(
        "provider | <b>broken</b>",
        "\u{202e}reversed prompt",
        None,
        20,
        vec![provider_failure(
            "upstream said \x1b[2J::error::boom token sk-live-123456\n@everyone",
        )],
    );
    let mut m = model_eval(
        "evil-model</testsuite>\x1b[31m|@everyone\n::error::m",
        1.0,
        None,
        &[],
        vec![miss, broken],
    );
    m.gates[0].detail.push_str(" ::error::gate <b>|</b>");
    EvalsResults {
        provider: "command".into(),
        models: vec![m],
        left_out_tools: vec!["bad|tool\n::error::left".into()],
        tool_list_hash: "0".into(),
        cache: CacheUse::default(),
        history: Some(HistoryTrend {
            skipped_lines: 2,
            ..history(
                "hist\n::error::x.jsonl",
                &[("m|<b>", 0.1), ("m|<b>", 0.5)],
                true,
            )
        }),
    }
}
