//! The stress curve end to end through the `toolproof` binary: the bundled demo with its
//! command provider, and the fake model API on loopback (Anthropic and OpenAI wire formats),
//! whose request log shows what each tool list held and that a committed curve replays offline
//! with no request at all.

use super::evals::{KEY, api_env, llm, requests};
use super::*;

/// The demo's config, pointed at this build's examples.
fn demo_dir(name: &str) -> Dir {
    let dir = Dir::new(name);
    let yaml = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo/toolproof.yaml"),
    )
    .expect("demo config");
    let examples = format!("{}/", crate::examples_dir().display());
    dir.write(
        "toolproof.yaml",
        &yaml.replace("../../target/release/", &examples),
    );
    dir
}

fn stress_of(report: &Value) -> &Value {
    &report["phases"]["stress"]
}

/// (distractors, order) of every point of the first model.
fn points(report: &Value) -> Vec<(u64, String)> {
    stress_of(report)["results"]["models"][0]["points"]
        .as_array()
        .map(|p| {
            p.iter()
                .map(|p| {
                    let n = p["distractors"].as_u64().unwrap_or(u64::MAX);
                    (n, p["order"].as_str().unwrap_or_default().to_owned())
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_demo_curve_runs_offline_with_the_default_lists_in_every_report() {
    let dir = demo_dir("stress-demo");
    let args = [
        "eval",
        "--stress",
        "--offline",
        "-c",
        "toolproof.yaml",
        "--json",
        "r.json",
        "--html",
        "r.html",
        "--summary",
        "s.md",
        "--junit",
        "j.xml",
    ];
    let out = toolproof_in(&dir.0, &args, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("r.json");
    let stress = stress_of(&report);
    assert_eq!(stress["status"], "passed", "{stress:#}");
    let server = |n: u64| (n, "server".to_owned());
    let other = |n: u64, o: &str| (n, o.to_owned());
    assert_eq!(
        points(&report),
        [
            server(0),
            other(0, "shuffled"),
            other(0, "reversed"),
            server(10),
            server(25),
            server(50),
            server(100),
            other(100, "shuffled"),
            other(100, "reversed"),
        ]
    );
    let results = &stress["results"];
    assert_eq!(results["server_tools"], 5);
    assert_eq!(results["distractors"].as_array().map(Vec::len), Some(100));
    assert!(results["corpus"].as_u64().is_some_and(|n| n >= 300));
    // 8 lists beyond the evals phase's own, 11 cases each: the picker is no API, so --offline
    // does not stop it and the command provider is never cached.
    assert_eq!(results["answers"], 88);
    assert_eq!(results["cache"]["asked"], 88);
    let model = &results["models"][0];
    for p in model["points"].as_array().into_iter().flatten() {
        let n = p["distractors"].as_u64().unwrap_or(0);
        assert_eq!(p["tools"].as_u64(), Some(5 + n), "{p:#}");
        assert_eq!(p["total"], 11);
        assert_eq!(p["from_evals"], n == 0 && p["order"] == "server");
    }
    // The evals phase's own list is the curve's first point, with its accuracy.
    let evals = &report["phases"]["evals"]["results"]["models"][0];
    assert_eq!(model["points"][0]["accuracy"], evals["accuracy"]);
    assert_eq!(
        model["points"][0]["tool_list_hash"],
        report["phases"]["evals"]["results"]["tool_list_hash"]
    );
    // Every report shows it: the console table, the summary's section, the chart, JUnit.
    assert!(
        out.stdout.contains("Stress: PASS") && out.stdout.contains("│ Distractors │"),
        "{out:?}"
    );
    assert!(dir.read("s.md").contains("### Tool-count stress"));
    let html = dir.read("r.html");
    assert!(html.contains("<svg class=\"stress-chart\""));
    assert_eq!(html.matches("<circle class=\"pt s0 server").count(), 5);
    assert!(!html.contains("<script"));
    let junit = dir.read("j.xml");
    assert!(
        junit.contains("name=\"100 distractors, reversed\""),
        "{junit}"
    );
    // The same seed draws the same lists: a second run agrees to the hash.
    let again = toolproof_in(&dir.0, &args, &[]);
    assert_eq!(again.code, 0, "{again:?}");
    let hashes = |r: &Value| -> Vec<Value> {
        stress_of(r)["results"]["models"][0]["points"]
            .as_array()
            .map(|p| p.iter().map(|p| p["tool_list_hash"].clone()).collect())
            .unwrap_or_default()
    };
    assert_eq!(hashes(&dir.json("r.json")), hashes(&report));
}

#[test]
fn the_demo_run_stays_as_it_was_unless_stress_is_asked_for() {
    let dir = demo_dir("stress-demo-run");
    let out = toolproof_in(&dir.0, &["run", "toolproof.yaml", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("r.json");
    assert_eq!(stress_of(&report)["status"], "skipped");
    assert_eq!(
        stress_of(&report)["reason"],
        "not asked for: pass --stress or set `evals.stress` in the config"
    );
    let out = toolproof_in(
        &dir.0,
        &["run", "toolproof.yaml", "--json", "r.json"],
        &[("TOOLPROOF_EVAL_STRESS", "1")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("r.json");
    assert_eq!(stress_of(&report)["status"], "passed", "{out:?}");
    assert_eq!(points(&report).len(), 9);
    // `evals.stress` in the YAML runs it in `run` too, with its own lists.
    let yaml = dir.read("toolproof.yaml");
    dir.write(
        "toolproof.yaml",
        &yaml.replace(
            "  min_accuracy: 0.85\n",
            "  min_accuracy: 0.85\n  stress: {distractors: [0, 10], orders: [server]}\n",
        ),
    );
    let out = toolproof_in(&dir.0, &["run", "toolproof.yaml", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = dir.json("r.json");
    assert_eq!(
        points(&report),
        [(0, "server".to_owned()), (10, "server".to_owned())]
    );
    assert_eq!(stress_of(&report)["results"]["answers"], 11);
    // The flag beats the environment and the YAML.
    let out = toolproof_in(
        &dir.0,
        &["run", "toolproof.yaml", "--json", "r.json", "--no-stress"],
        &[("TOOLPROOF_EVAL_STRESS", "1")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        stress_of(&dir.json("r.json"))["reason"],
        "turned off with --no-stress"
    );
}

#[test]
fn a_stress_section_the_curve_cannot_use_is_a_config_error() {
    let dir = demo_dir("stress-bad-config");
    let yaml = dir.read("toolproof.yaml");
    dir.write(
        "toolproof.yaml",
        &yaml.replace(
            "  min_accuracy: 0.85\n",
            "  min_accuracy: 0.85\n  stress: {distractors: [0, 500], orderz: [server]}\n",
        ),
    );
    let out = toolproof_in(&dir.0, &["eval", "-c", "toolproof.yaml"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("`evals.stress.distractors[1]` is 500")
            && out.stderr.contains("did you mean `orders`?"),
        "{out:?}"
    );
}

// ---------------------------------------------------------------- the fake model API

/// The fake MCP server's tools, in its order.
const SERVER: [&str; 5] = ["echo", "add", "fail", "slow", "crash"];

/// Writes a config asking `provider` with these cases and a stress section.
fn api_stress_config(dir: &Dir, provider: &str, stress: &str, cases: &str) {
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {}\nevals:\n  provider: {provider}\n  model: fake-model-1\n  min_accuracy: 0.9\n  stress: {stress}\n  cases:\n{cases}",
            yaml_list(&[&fake()])
        ),
    );
}

/// The tool names a logged request offered, in order, for either wire format.
fn offered(request: &Value) -> Vec<String> {
    request["body"]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| {
                    t["name"]
                        .as_str()
                        .or_else(|| t["function"]["name"].as_str())
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn eval_json(dir: &Dir, extra: &[&str], env: &[(&str, &str)]) -> (Out, Value) {
    let mut args = vec!["eval", "-c", "toolproof.yaml", "--json", "r.json"];
    args.extend_from_slice(extra);
    let out = toolproof_in(&dir.0, &args, env);
    let report = dir.json("r.json");
    (out, report)
}

const STEADY: &str = "    - name: steady\n      prompt: run the fail tool once\n      expect_tool: fail\n    - name: chat\n      prompt: thanks, that's all\n      expect_tool: null\n";

const STRESS: &str = "{distractors: [0, 10, 25], seed: 7}";

#[test]
fn each_request_carries_its_distractors_in_its_order_and_a_second_run_asks_nothing() {
    let dir = Dir::new("stress-anthropic");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let openai = format!("{}/v1", server.url);
    let env = api_env(&server, &openai);
    api_stress_config(&dir, "anthropic", STRESS, STEADY);
    let (out, report) = eval_json(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let sent = requests(&dir, "llm.jsonl");
    // The evals phase asks 2 cases; the curve asks them again on 6 more lists (its list
    // without distractors in server order is the evals phase's, not asked again).
    assert_eq!(sent.len(), 2 + 6 * 2, "{sent:#?}");
    let drawn: Vec<String> = stress_of(&report)["results"]["distractors"]
        .as_array()
        .map(|d| {
            d.iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(drawn.len(), 25);
    let server_order = |n: usize| -> Vec<String> {
        SERVER
            .iter()
            .map(|s| s.to_string())
            .chain(drawn[..n].iter().cloned())
            .collect()
    };
    let mut by_size = std::collections::BTreeMap::new();
    for r in &sent {
        *by_size.entry(offered(r).len()).or_insert(0) += 1;
    }
    assert_eq!(
        by_size.into_iter().collect::<Vec<_>>(),
        [(5, 6), (15, 2), (30, 6)],
        "tools per request are the server's 5 plus N"
    );
    for n in [0, 25] {
        let plain = server_order(n);
        let mut reversed = plain.clone();
        reversed.reverse();
        let lists: Vec<Vec<String>> = sent
            .iter()
            .map(offered)
            .filter(|l| l.len() == plain.len())
            .collect();
        assert!(lists.contains(&plain), "server order at {n}");
        assert!(lists.contains(&reversed), "reversed at {n}");
        let shuffled: Vec<&Vec<String>> = lists
            .iter()
            .filter(|l| **l != plain && **l != reversed)
            .collect();
        assert_eq!(shuffled.len(), 2, "shuffled at {n}: one per case");
        let mut sorted = shuffled[0].clone();
        sorted.sort();
        let mut want = plain.clone();
        want.sort();
        assert_eq!(sorted, want, "a shuffle keeps every tool");
    }
    let ten = sent.iter().map(offered).find(|l| l.len() == 15);
    assert_eq!(
        ten,
        Some(server_order(10)),
        "the list at 10 is a prefix of the one at 25"
    );

    // A case that names a distractor drawn between 10 and 25: the fake picks the longest
    // offered name it finds, so the case holds up to 10 and falls at 25, in every order.
    let thief = &drawn[15];
    let cases = format!(
        "{STEADY}    - name: named\n      prompt: run the fail tool, not {thief}\n      expect_tool: fail\n"
    );
    api_stress_config(&dir, "anthropic", STRESS, &cases);
    let (out, report) = eval_json(&dir, &[], &env);
    assert_eq!(
        out.code, 0,
        "a falling curve does not fail the run: {out:?}"
    );
    assert_eq!(
        requests(&dir, "llm.jsonl").len(),
        14 + 1 + 6,
        "only the new case is asked"
    );
    let model = &stress_of(&report)["results"]["models"][0];
    assert_eq!(
        model["breaks_at"],
        serde_json::json!({"distractors": 25, "order": "server", "accuracy": 2.0 / 3.0}),
        "{model:#}"
    );
    let at = |n: u64, order: &str| {
        model["points"]
            .as_array()
            .and_then(|p| {
                p.iter()
                    .find(|p| p["distractors"] == n && p["order"] == order)
            })
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(at(10, "server")["correct"], 3);
    for order in ["server", "shuffled", "reversed"] {
        let p = at(25, order);
        assert_eq!(p["correct"], 2, "{order}: {p:#}");
        assert_eq!(p["misses"][0]["picked"], thief.as_str());
        assert_eq!(p["misses"][0]["distractor"], true);
    }
    assert!(
        out.stdout
            .contains("Stress: PASS - selection breaks at 25 distractors"),
        "{out:?}"
    );

    // Committed, the curve replays with no key, no request, and the same verdict.
    let offline = [("ANTHROPIC_API_KEY", "")];
    let (out, again) = eval_json(&dir, &["--offline", "--stress"], &offline);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 21, "no request offline");
    let cache = &stress_of(&again)["results"]["cache"];
    assert_eq!(
        (cache["hits"].clone(), cache["asked"].clone()),
        (18.into(), 0.into())
    );
    assert_eq!(
        stress_of(&again)["results"]["models"][0]["breaks_at"],
        model["breaks_at"]
    );

    // must_hold makes the break a failure when it comes too soon, and only then.
    let gate = |n: u32| format!("{{distractors: [0, 10, 25], seed: 7, must_hold: {n}}}");
    api_stress_config(&dir, "anthropic", &gate(25), &cases);
    let (out, gated) = eval_json(&dir, &["--offline"], &offline);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(stress_of(&gated)["status"], "failed");
    api_stress_config(&dir, "anthropic", &gate(10), &cases);
    let (out, _) = eval_json(&dir, &["--offline"], &offline);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 21);

    // The cache commands count the curve's answers: status finds them, prune keeps them.
    let status = toolproof_in(&dir.0, &["cache", "status", "-c", "toolproof.yaml"], &[]);
    assert_eq!(status.code, 0, "{status:?}");
    assert!(
        status.stdout.contains("[stress: 25 distractors, reversed]")
            && status.stdout.contains("21 of 21 answers cached"),
        "{status:?}"
    );
    let prune = toolproof_in(&dir.0, &["cache", "prune", "-c", "toolproof.yaml"], &[]);
    assert!(prune.stdout.contains("nothing to prune"), "{prune:?}");
}

#[test]
fn openai_requests_carry_the_distractors_and_replay_offline() {
    let dir = Dir::new("stress-openai");
    let log = dir.path("llm.jsonl").display().to_string();
    let server = llm(&["--log", &log, "--require-key", KEY]);
    let openai = format!("{}/v1", server.url);
    api_stress_config(
        &dir,
        "openai",
        "{distractors: [10], orders: [reversed]}",
        STEADY,
    );
    let (out, report) = eval_json(&dir, &[], &api_env(&server, &openai));
    assert_eq!(out.code, 0, "{out:?}");
    let sent = requests(&dir, "llm.jsonl");
    assert_eq!(
        sent.len(),
        2 + 2 * 2,
        "evals, then 10 in server order and reversed"
    );
    let stressed: Vec<&Value> = sent.iter().filter(|r| offered(r).len() == 15).collect();
    assert_eq!(stressed.len(), 4);
    for r in &stressed {
        assert_eq!(r["path"], "/v1/chat/completions");
        assert_eq!(r["body"]["tools"][0]["type"], "function");
    }
    let drawn = &stress_of(&report)["results"]["distractors"];
    let names = offered(stressed[0]);
    assert!(
        names[..5] == SERVER || names[10..] == ["crash", "slow", "fail", "add", "echo"],
        "{names:?}"
    );
    assert!(names.iter().any(|n| {
        drawn
            .as_array()
            .is_some_and(|d| d.contains(&n.as_str().into()))
    }));
    assert_eq!(
        points(&report),
        [(10, "server".to_owned()), (10, "reversed".to_owned())]
    );
    let (out, _) = eval_json(&dir, &["--offline", "--stress"], &[("OPENAI_API_KEY", "")]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 6, "no request offline");
}
