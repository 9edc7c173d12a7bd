//! The `bedrock` provider end to end: Amazon Bedrock's Converse API on loopback (`fake_llm`
//! checks every request's Signature Version 4 with its own code, `--aws-secret`), through the
//! `toolproof` binary: calls, text, cut-offs, guardrails, usage with the prompt cache and its
//! cost, throttling retried, a refused signature, credentials kept from the server under test
//! and out of every output, the answer cache replayed offline, context turns and tool_choice.

use super::evals::{eval_in, llm, model0, requests};
use super::*;

const KEY_ID: &str = "AKIDTOOLPROOFTEST";
const SECRET: &str = "bedrock-secret-access-key-0123456789";
const TOKEN: &str = "bedrock-session-token-0123456789";
/// An inference profile id: the `:` travels percent-encoded (and is signed encoded twice).
const MODEL: &str = "us.amazon.nova-pro-v1:0";

/// A fake Bedrock that checks signatures against [`SECRET`] and logs every request.
fn bedrock(dir: &Dir) -> Listening {
    let log = dir.path("llm.jsonl").display().to_string();
    llm(&[
        "--log",
        &log,
        "--aws-secret",
        SECRET,
        "--aws-key-id",
        KEY_ID,
    ])
}

/// The AWS variables that point toolproof at `api`, with a session token.
fn aws_env(api: &Listening) -> Vec<(&'static str, &str)> {
    vec![
        ("AWS_ACCESS_KEY_ID", KEY_ID),
        ("AWS_SECRET_ACCESS_KEY", SECRET),
        ("AWS_SESSION_TOKEN", TOKEN),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", api.url.as_str()),
    ]
}

fn config(dir: &Dir, server: &str, extra: &str, cases: &str) {
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: {server}\nevals:\n  provider: bedrock\n  model: {MODEL}\n{extra}  cases:\n{cases}"
        ),
    );
}

fn plain_config(dir: &Dir, extra: &str, cases: &str) {
    config(dir, &yaml_list(&[&fake()]), extra, cases);
}

fn cases_of(report: &Value) -> Vec<Value> {
    model0(report)["cases"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(u64::MAX)
}

/// Nothing the run wrote or printed holds a credential.
fn shows_no_secret(dir: &Dir, out: &Out) {
    for secret in [SECRET, TOKEN, KEY_ID] {
        assert!(!out.stdout.contains(secret), "{secret} in stdout");
        assert!(!out.stderr.contains(secret), "{secret} in stderr");
        for file in ["r.json", "j.xml", "s.md"] {
            let text = std::fs::read_to_string(dir.path(file)).unwrap_or_default();
            assert!(!text.contains(secret), "{secret} in {file}");
        }
    }
}

const CASES: &str = r#"    - name: adds
      prompt: 'add 2 and 3 [[call add {"a": 2, "b": 3}]]'
      expect_tool: add
      expect_args: {a: 2, b: 3}
    - name: chats
      prompt: thanks [[text you are welcome]]
      expect_tool: null
    - name: cut off
      prompt: 'echo hi [[call echo {"text": "hi"}]] [[max_tokens]]'
      expect_tool: echo
    - name: guarded
      prompt: 'say something rude [[refuse]]'
      expect_tool: null
"#;

#[test]
fn bedrock_answers_are_read_signed_priced_and_replayed_offline() {
    let dir = Dir::new("bedrock-answers");
    let api = bedrock(&dir);
    plain_config(
        &dir,
        "  system: You pick tools.\n  concurrency: 1\n  min_accuracy: 0\n",
        CASES,
    );
    let env = aws_env(&api);
    let (out, report) = eval_in(&dir, &[], &env);
    assert_eq!(out.code, 0, "{out:?}");
    shows_no_secret(&dir, &out);

    // Every request was signed (the fake checked it) and went to the model's Converse URL.
    let sent = requests(&dir, "llm.jsonl");
    assert_eq!(sent.len(), 4, "{sent:#?}");
    for r in &sent {
        assert_eq!(r["path"], "/model/us.amazon.nova-pro-v1%3A0/converse");
        assert_eq!(r["headers"]["x-amz-security-token"], TOKEN);
        let auth = r["headers"]["authorization"].as_str().unwrap_or_default();
        assert!(
            auth.starts_with(&format!("AWS4-HMAC-SHA256 Credential={KEY_ID}/"))
                && auth.contains("/us-east-1/bedrock/aws4_request"),
            "{auth}"
        );
        let body = &r["body"];
        assert_eq!(
            body["system"],
            serde_json::json!([{"text": "You pick tools."}, {"cachePoint": {"type": "default"}}])
        );
        assert_eq!(
            body["toolConfig"]["toolChoice"],
            serde_json::json!({"auto": {}})
        );
        assert!(body.get("model").is_none(), "the model id is in the path");
    }

    let cases = cases_of(&report);
    let statuses: Vec<&str> = cases.iter().filter_map(|c| c["status"].as_str()).collect();
    assert_eq!(
        statuses,
        ["correct", "correct", "miss", "correct"],
        "{report:#}"
    );
    assert_eq!(
        cases[0]["trials"][0]["calls"][0]["args"],
        serde_json::json!({"a": 2, "b": 3})
    );
    assert_eq!(cases[1]["trials"][0]["text"], "you are welcome");
    assert_eq!(cases[2]["trials"][0]["kind"], "truncated");

    // Usage: the first request wrote the tool list and system prompt to the cache, the
    // others read it; priced with the built-in on-demand price of Nova Pro.
    let cost = &model0(&report)["cost"];
    assert_eq!(
        (n(&cost["requests"]), n(&cost["reported"])),
        (4, 4),
        "{cost:#}"
    );
    let t = &cost["tokens"];
    let (input, output, write, read) = (
        n(&t["input"]),
        n(&t["output"]),
        n(&t["cache_write"]),
        n(&t["cache_read"]),
    );
    assert!(input > 0 && output > 0 && write > 0, "{t}");
    assert_eq!(read, 3 * write, "{t}");
    let expected =
        (input as f64 * 0.80 + output as f64 * 3.20 + write as f64 * 0.80 + read as f64 * 0.20)
            / 1e6;
    let estimated = cost["cost_usd"].as_f64().unwrap_or(-1.0);
    assert!(
        (estimated - expected).abs() < 1e-12,
        "{estimated} vs {expected}: {cost:#}"
    );

    // A replay asks nothing, and needs no credentials.
    let (out, report) = eval_in(&dir, &["--offline"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 4, "nothing asked");
    let statuses: Vec<String> = cases_of(&report)
        .iter()
        .filter_map(|c| c["status"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(statuses, ["correct", "correct", "miss", "correct"]);
    assert_eq!(n(&model0(&report)["cost"]["replayed"]), 4);
}

#[test]
fn bedrock_throttling_is_retried_after_its_retry_after() {
    let dir = Dir::new("bedrock-throttled");
    let api = bedrock(&dir);
    let cases = "    - prompt: 'add [[status 429 times=1 retry-after=1]] [[call add {\"a\": 1, \"b\": 2}]]'\n      expect_tool: add\n";
    plain_config(&dir, "  max_retries: 2\n  cache: false\n", cases);
    let (out, report) = eval_in(&dir, &[], &aws_env(&api));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(requests(&dir, "llm.jsonl").len(), 2);
    assert_eq!(cases_of(&report)[0]["status"], "correct");
    assert!(
        out.stderr
            .contains("retrying in 1.0s: bedrock returned 429 ThrottlingException"),
        "{}",
        out.stderr
    );

    // Throttled for good: the reason names AWS's error type.
    let dir = Dir::new("bedrock-throttled-for-good");
    let api = bedrock(&dir);
    let cases = "    - prompt: 'add [[status 429 retry-after-ms=10]]'\n      expect_tool: add\n";
    plain_config(&dir, "  max_retries: 1\n  cache: false\n", cases);
    let (out, report) = eval_in(&dir, &[], &aws_env(&api));
    assert_eq!(out.code, 1, "{out:?}");
    let reason = report["phases"]["evals"]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.contains("bedrock returned 429 ThrottlingException: Too many requests"),
        "{reason}"
    );
}

#[test]
fn a_refused_signature_is_fatal_names_the_variables_and_shows_no_secret() {
    let dir = Dir::new("bedrock-bad-key");
    let log = dir.path("llm.jsonl").display().to_string();
    let api = llm(&["--log", &log, "--aws-secret", "another-secret"]);
    plain_config(
        &dir,
        "  max_retries: 3\n",
        "    - {prompt: add 2 and 3, expect_tool: add}\n",
    );
    let (out, report) = eval_in(&dir, &[], &aws_env(&api));
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        requests(&dir, "llm.jsonl").len(),
        1,
        "a refused signature is not retried"
    );
    let phase = &report["phases"]["evals"];
    assert_eq!(phase["status"], "error", "{phase:#}");
    let reason = phase["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("403 InvalidSignatureException"), "{reason}");
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains("check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN"),
        "{all}"
    );
    shows_no_secret(&dir, &out);

    // No credentials at all: said before any request.
    let (out, _) = eval_in(
        &dir,
        &[],
        &[
            ("AWS_REGION", "us-east-1"),
            ("AWS_ENDPOINT_URL", api.url.as_str()),
        ],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains("AWS_ACCESS_KEY_ID is not set"),
        "{out:?}"
    );
    assert_eq!(requests(&dir, "llm.jsonl").len(), 1);
}

#[test]
fn aws_credentials_are_withheld_from_the_server_under_test() {
    let dir = Dir::new("bedrock-withheld");
    let api = bedrock(&dir);
    let server = format!(
        "[sh, -c, 'env > server.env; exec \"$0\"', '{}']\n  inherit_env: true",
        fake()
    );
    config(
        &dir,
        &server,
        "",
        "    - {prompt: 'add [[call add {\"a\": 1, \"b\": 2}]]', expect_tool: add}\n",
    );
    let (out, _) = eval_in(&dir, &[], &aws_env(&api));
    assert_eq!(out.code, 0, "{out:?}");
    let seen = dir.read("server.env");
    assert!(
        seen.contains("AWS_REGION=us-east-1"),
        "not a secret: {seen}"
    );
    for secret in [KEY_ID, SECRET, TOKEN] {
        assert!(!seen.contains(secret), "{secret} reached the server");
    }
}

#[test]
fn context_turns_are_tool_use_and_tool_result_blocks() {
    let dir = Dir::new("bedrock-context");
    let api = bedrock(&dir);
    let cases = r#"    - name: from the talk
      prompt: 'Echo it back [[from-context echo text]]'
      expect_tool: echo
      expect_args: {text: "55219"}
      context:
        - user: Where is order 55219?
        - call: echo
          args: {text: "looking"}
          result: order 55219 is processing
        - assistant: It is processing.
"#;
    plain_config(&dir, "  cache: false\n", cases);
    let (out, report) = eval_in(&dir, &[], &aws_env(&api));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(cases_of(&report)[0]["status"], "correct", "{report:#}");
    let sent = requests(&dir, "llm.jsonl");
    let messages = &sent[0]["body"]["messages"];
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"][0]["toolUse"],
        serde_json::json!({"toolUseId": "tooluse_ctx_1", "name": "echo", "input": {"text": "looking"}})
    );
    assert_eq!(
        messages[2]["content"][0]["toolResult"],
        serde_json::json!({"toolUseId": "tooluse_ctx_1", "content": [{"text": "order 55219 is processing"}]})
    );
}

#[test]
fn tool_choice_reaches_converse_and_none_offers_no_tool() {
    let call = "    - {prompt: 'echo hi [[call echo {\"text\": \"hi\"}]]', expect_tool: echo}\n";
    let text = "    - {prompt: 'echo hi [[text fine]]', expect_tool: null}\n";
    for (choice, want, case) in [
        ("any", Some(serde_json::json!({"any": {}})), call),
        (
            "tool:echo",
            Some(serde_json::json!({"tool": {"name": "echo"}})),
            call,
        ),
        ("none", None, text),
    ] {
        let dir = Dir::new(&format!("bedrock-choice-{}", choice.replace(':', "-")));
        let api = bedrock(&dir);
        plain_config(&dir, "  cache: false\n  min_accuracy: 0\n", case);
        let (out, _) = eval_in(&dir, &["--tool-choice", choice], &aws_env(&api));
        assert_eq!(out.code, 0, "{choice}: {out:?}");
        let sent = requests(&dir, "llm.jsonl");
        let config = sent[0]["body"].get("toolConfig");
        assert_eq!(config.map(|c| c["toolChoice"].clone()), want, "{choice}");
    }
}

#[test]
fn batch_is_refused_with_the_reason() {
    let dir = Dir::new("bedrock-batch");
    plain_config(&dir, "", "    - {prompt: add 2 and 3, expect_tool: add}\n");
    let out = toolproof_in(
        &dir.0,
        &["eval", "-c", "toolproof.yaml", "--batch", "always"],
        &[("AWS_REGION", "us-east-1")],
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("S3 bucket"), "{}", out.stderr);
}
