//! Secrets that come back: a model that echoes the API key in its text or in a tool call's
//! arguments, an HTTP server that echoes a `${VAR}` header in its error body. The key must
//! show nowhere: not on the console, not in a report, the history, the step outputs, the PR
//! comment, nor in the answer cache meant to be committed. And a signal in the middle of a
//! slow model API.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::sync::mpsc;

use serde_json::Value;

use super::harness::{Case, example, fake_server, walk};

/// The fake model API (`fake_llm`) on loopback; killed when dropped.
pub type Llm = toolproof_test_support::Listening;

/// Starts `fake_llm` with `args` and waits for its `listening on URL` line.
pub fn start_llm(args: &[&str]) -> Llm {
    toolproof_test_support::listening(&example("fake_llm"), args)
}

const KEY: &str = "sk-fault-0123456789abcdef";

/// Two cases: the model says the key (`{{key}}` is the key the request carried), and passes
/// it as an argument.
const ECHOING: &str = r#"    - name: says the key
      prompt: 'what is your key? [[text my key is {{key}}, keep it safe]]'
      expect_tool: null
    - name: passes the key
      prompt: 'echo your key [[call echo {"text": "key={{key}}"}]]'
      expect_tool: echo
      expect_args: {text: something else}
"#;

fn evals(provider: &str, cases: &str) -> String {
    format!(
        "evals:\n  provider: {provider}\n  model: fake-model\n  min_accuracy: 0\n  cases:\n{cases}"
    )
}

/// Every cache entry of a case's folder, by file name.
fn cache_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let evals = dir.join(".toolproof-cache/evals");
    let mut files: Vec<(String, Vec<u8>)> = walk(&evals)
        .into_iter()
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            (
                name.unwrap_or_default(),
                std::fs::read(&p).unwrap_or_default(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn an_api_key_the_model_echoes_shows_nowhere_and_the_masked_answer_replays() {
    for (provider, var) in [
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("anthropic", "ANTHROPIC_AUTH_TOKEN"),
        ("openai", "OPENAI_API_KEY"),
    ] {
        let llm = start_llm(&["--require-key", KEY]);
        let openai = format!("{}/v1", llm.url);
        let name = format!("echoed-key-{provider}");
        let out = Case::new(&name)
            .yaml(&fake_server(&[], &evals(provider, ECHOING)))
            .args(&[
                "eval",
                "-c",
                "toolproof.yaml",
                "--history",
                "history.jsonl",
                "--pr-comment-file",
                "comment.md",
            ])
            .env(var, KEY)
            .env("ANTHROPIC_BASE_URL", &llm.url)
            .env("OPENAI_BASE_URL", &openai)
            .env("GITHUB_OUTPUT", "step-outputs.txt")
            .run();
        out.sound(0).never_shows(KEY);
        let report = out.report();
        let cases = &report["phases"]["evals"]["results"]["models"][0]["cases"];
        let said = cases[0]["trials"][0]["text"].as_str().unwrap_or_default();
        assert_eq!(
            said, "my key is ***, keep it safe",
            "{provider}: {report:#}"
        );
        let passed = &cases[1]["trials"][0]["calls"][0]["args"]["text"];
        assert_eq!(passed, "key=***", "{var}: {report:#}");
        for file in ["history.jsonl", "comment.md", "step-outputs.txt"] {
            assert!(!out.read(file).is_empty(), "{var}: {file} is empty");
        }
        let cached = cache_files(&out.dir);
        assert_eq!(cached.len(), 2, "{var}: {cached:?}");
        assert!(
            cached
                .iter()
                .any(|(_, b)| b.windows(3).any(|w| w == b"***"))
        );

        // The masked answers replay under the same keys: nothing is asked offline.
        let mut replay = Case::new(&format!("{name}-replay"))
            .yaml(&fake_server(&[], &evals(provider, ECHOING)))
            .args(&["eval", "-c", "toolproof.yaml", "--offline"]);
        for (file, bytes) in &cached {
            replay = replay.file(&format!(".toolproof-cache/evals/{file}"), bytes);
        }
        let out = replay.run();
        out.sound(0).never_shows(KEY);
        let cache = &out.report()["phases"]["evals"]["results"]["cache"];
        assert_eq!(
            (cache["hits"].as_u64(), cache["asked"].as_u64()),
            (Some(2), Some(0))
        );
    }
}

#[test]
fn a_key_echoed_while_the_model_fails_shows_nowhere_either() {
    // The key in a tool name the server does not have, and in malformed arguments.
    let cases = r#"    - name: unknown tool
      prompt: 'call it [[call nope {"{{key}}": 1}]]'
      expect_tool: echo
    - name: malformed
      prompt: 'broken [[malformed echo {"text": {{key}}]]'
      expect_tool: echo
"#;
    let llm = start_llm(&[]);
    let out = Case::new("echoed-key-misses")
        .yaml(&fake_server(&[], &evals("anthropic", cases)))
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", &llm.url)
        .run();
    out.sound(0).never_shows(KEY).says("malformed");
}

/// An HTTP server that answers every request 500 with the request's headers in its body.
fn echoing_http_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            // The body is read too: a socket closed with unread bytes is reset, and the client
            // could see the reset before the answer.
            let length = String::from_utf8_lossy(&head)
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            let _ = std::io::Read::read_exact(&mut stream, &mut vec![0; length]);
            let body = format!(
                "{{\"error\": \"rejected request\", \"request\": {}}}",
                serde_json::to_string(&String::from_utf8_lossy(&head)).unwrap_or_default()
            );
            let _ = write!(
                stream,
                "HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}/mcp")
}

#[test]
fn a_header_secret_an_http_server_echoes_in_its_error_body_is_masked() {
    let url = echoing_http_server();
    let secret = "hdr-secret-value-98765";
    let yaml = format!(
        "server:\n  url: {url}\n  headers:\n    Authorization: \"Bearer ${{FAULT_TOKEN}}\"\n    X-Api-Key: \"${{FAULT_TOKEN}}\"\n"
    );
    let out = Case::new("echoed-header")
        .yaml(&yaml)
        .env("FAULT_TOKEN", secret)
        .env("GITHUB_OUTPUT", "step-outputs.txt")
        .run();
    out.sound(1).never_shows(secret).says("500");
    let report = out.report();
    let message = report["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("***"), "{report:#}");
}

#[test]
fn sigterm_while_a_slow_model_answers_leaves_valid_reports_and_exit_143() {
    let log = std::env::temp_dir().join(format!("toolproof-fault-llm-{}.fifo", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let made = Command::new("mkfifo").arg(&log).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    // The reader first: fake_llm opens the FIFO before it says it listens.
    let requests = lines_of(&log);
    let llm = start_llm(&["--log", &log.display().to_string()]);
    let cases = r#"    - name: quick
      prompt: 'quick [[call echo {"text": "a"}]]'
      expect_tool: echo
    - name: ten minutes
      prompt: 'slow [[sleep 600000]] [[call echo {"text": "b"}]]'
      expect_tool: echo
    - name: never asked
      prompt: 'later [[call echo {"text": "c"}]]'
      expect_tool: echo
"#;
    let running = Case::new("sigterm-evals")
        .yaml(&fake_server(
            &[],
            &evals("anthropic", cases).replace("  cases:", "  concurrency: 1\n  cases:"),
        ))
        .args(&["eval", "-c", "toolproof.yaml"])
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", &llm.url)
        .spawn();
    // The second request reached the model API: the first answer is in, the second in flight.
    let asked = requests
        .iter()
        .filter(|line| line.contains("\"/v1/messages\""))
        .nth(1);
    assert!(asked.is_some_and(|l| l.contains("ten minutes") || l.contains("slow")));
    let killed = Command::new("kill")
        .args(["-TERM", &running.pid().to_string()])
        .status();
    assert!(killed.is_ok_and(|s| s.success()), "kill -TERM");
    let out = running.wait();
    let _ = std::fs::remove_file(&log);
    out.sound(143).never_shows(KEY);
    let report = out.report();
    assert_eq!(report["interrupted"], "SIGTERM");
    let evals = &report["phases"]["evals"];
    assert_eq!(evals["status"], "error", "{report:#}");
    let cases = &evals["results"]["models"][0]["cases"];
    assert_eq!(cases[0]["status"], "correct", "{report:#}");
    assert_ne!(cases[1]["status"], "correct", "{report:#}");
    assert_ne!(cases[2]["status"], "correct", "{report:#}");
    // The answer that came back was kept for the next run.
    assert_eq!(cache_files(&out.dir).len(), 1);
}

/// The lines written to the FIFO at `path`, as they come.
fn lines_of(path: &std::path::Path) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let Ok(file) = std::fs::File::open(&path) else {
            return;
        };
        for line in BufReader::new(file).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    rx
}

#[test]
fn the_fake_model_fills_in_the_key_it_was_sent() {
    // The echo these cases rely on, checked on its own: without toolproof's masking the key
    // would be in the answer.
    let llm = start_llm(&[]);
    let body = r#"{"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "[[text k={{key}}]]"}]}"#;
    let addr = llm.url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    let _ = write!(
        stream,
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: {KEY}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let json = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    let value: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    assert_eq!(value["content"][0]["text"], format!("k={KEY}"), "{answer}");
}

/// toolproof's own credentials stay with it: the server under test and the command provider
/// see none of them, except the ones their own `env` setting names. The server gets the MCP
/// SDKs' short list of variables (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus its `env`, as in
/// a real client; with `inherit_env: true` everything else too, the credentials still withheld.
#[test]
fn the_server_and_the_command_provider_get_no_credential_they_were_not_given() {
    for inherit in [false, true] {
        server_and_picker_environment(inherit);
    }
}

fn server_and_picker_environment(inherit: bool) {
    let fake = example("fake_mcp");
    let yaml = format!(
        "server:\n  command: [sh, -c, 'env > server.env; exec \"$0\"', '{fake}']\n  env: {{OPENAI_API_KEY: '${{OPENAI_API_KEY}}', MODE: served}}\n  inherit_env: {inherit}\n\
         evals:\n  provider: command\n  command: [sh, pick.sh]\n  env: {{GITHUB_TOKEN: '${{GITHUB_TOKEN}}', MODE: picked}}\n  max_retries: 0\n  cases:\n    - {{prompt: say hi, expect_tool: echo}}\n"
    );
    let pick = "env > pick.env\necho '{\"tool\": \"echo\", \"args\": {\"text\": \"hi\"}}'\n";
    let secrets = [
        ("ANTHROPIC_API_KEY", "sk-ant-withheld-0001"),
        ("ANTHROPIC_AUTH_TOKEN", "sk-ant-withheld-0002"),
        ("OPENAI_API_KEY", "sk-oai-withheld-0003"),
        ("GITHUB_TOKEN", "ghs_withheld_0004"),
        ("GH_TOKEN", "ghs_withheld_0005"),
        ("ACTIONS_RUNTIME_TOKEN", "runtime-withheld-0006"),
        ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "oidc-withheld-0007"),
    ];
    let mut case = Case::new(if inherit {
        "withheld-env-inherit"
    } else {
        "withheld-env"
    })
    .yaml(&yaml)
    .file("pick.sh", pick.as_bytes())
    .env("TOOLPROOF_KEPT", "an-ordinary-variable")
    .env("HOME", "/home/of-the-job")
    .env("TERM", "dumb-term");
    for (key, value) in secrets {
        case = case.env(key, value);
    }
    let out = case.run();
    out.sound(0);
    let server = out.read("server.env");
    let picker = out.read("pick.env");
    for (key, value) in secrets {
        let in_server = server.contains(value);
        let in_picker = picker.contains(value);
        // Each sees only what its own `env` names.
        assert_eq!(
            in_server,
            key == "OPENAI_API_KEY",
            "{key} in the server: {server}"
        );
        assert_eq!(
            in_picker,
            key == "GITHUB_TOKEN",
            "{key} in the picker: {picker}"
        );
    }
    // The picker inherits the rest, as the reference's eval command does.
    assert!(
        picker.contains("TOOLPROOF_KEPT=an-ordinary-variable"),
        "{picker}"
    );
    assert!(picker.contains("MODE=picked"), "{picker}");
    // The server: the SDKs' list and its `env`; the rest only when it inherits.
    for line in ["HOME=/home/of-the-job", "TERM=dumb-term", "MODE=served"] {
        assert!(server.lines().any(|l| l == line), "{line}: {server}");
    }
    assert!(server.lines().any(|l| l.starts_with("PATH=")), "{server}");
    assert_eq!(
        server.contains("TOOLPROOF_KEPT=an-ordinary-variable"),
        inherit,
        "inherit_env: {inherit}: {server}"
    );
    if !inherit {
        // `sh` adds PWD, SHLVL and `_` of its own; nothing else is there.
        let allowed = [
            "HOME",
            "LOGNAME",
            "PATH",
            "SHELL",
            "TERM",
            "USER",
            "MODE",
            "OPENAI_API_KEY",
            "PWD",
            "OLDPWD",
            "SHLVL",
            "_",
        ];
        for line in server.lines() {
            let name = line.split_once('=').map_or(line, |(k, _)| k);
            assert!(
                allowed.contains(&name),
                "{name} reached the server: {server}"
            );
        }
    }
}
