//! The HTTP providers against a scripted fake API on 127.0.0.1: the exact requests, retries and
//! their waits, fatal statuses, timeouts, dropped connections, and the key kept out of errors.

use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::testserver::{Reply, Server};
use super::{
    Answer, Pacer, Provider, ProviderError, RawCall, Request, RetryPolicy, anthropic_at, openai_at,
};
use crate::provider::usage::Usage;
use crate::provider::{ApiTool, Stop};

const KEY: &str = "sk-test-0123456789-secret";

fn tools() -> Vec<ApiTool> {
    vec![
        ApiTool {
            exact_numbers: Vec::new(),
            name: "math_add".into(),
            description: "Add a and b.".into(),
            input_schema: json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
        },
        ApiTool {
            exact_numbers: Vec::new(),
            name: "echo".into(),
            description: "Echo text.".into(),
            input_schema: json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        },
    ]
}

/// Tiny waits so retry tests run fast.
fn fast(max_retries: u32) -> Pacer {
    Pacer::new(RetryPolicy::quick(max_retries))
}

fn ask(provider: &dyn Provider, pacer: &Pacer) -> Result<Answer, ProviderError> {
    let tools = tools();
    let params = json!({"stop_sequences": ["STOP"]});
    let params: Map<String, Value> = params.as_object().cloned().unwrap_or_default();
    provider.ask(
        &Request {
            model: "fake-model-1",
            system: Some("You pick tools."),
            prompt: "Please add 2 and 3",
            context: &[],
            tools: &tools,
            params: &params,
            tool_choice: None,
            max_tokens: 16000,
            prompt_cache: false,
        },
        pacer,
    )
}

fn anthropic_ok() -> Reply {
    Reply::json(
        200,
        json!({
            "id": "msg_01", "type": "message", "role": "assistant", "model": "fake-model-1",
            "content": [
                {"type": "text", "text": "Adding."},
                {"type": "tool_use", "id": "toolu_01", "name": "math_add", "input": {"a": 2, "b": 3}},
                {"type": "tool_use", "id": "toolu_02", "name": "echo", "input": {"text": "5"}}
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 7}
        }),
    )
}

fn anthropic_error(status: u16, kind: &str, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}),
    )
}

fn openai_ok() -> Reply {
    Reply::json(
        200,
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1764500000, "model": "fake-model-1",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null, "refusal": null,
                "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "math_add", "arguments": "{\"a\": 2, \"b\": 3}"}}]
            }}],
            "usage": {"prompt_tokens": 80, "completion_tokens": 18, "total_tokens": 98}
        }),
    )
}

fn openai_error(status: u16, kind: &str, code: Value, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"error": {"message": message, "type": kind, "param": null, "code": code}}),
    )
}

fn anthropic(server: &Server) -> Box<dyn Provider> {
    anthropic_at(&server.base, KEY)
}

fn openai(server: &Server) -> Box<dyn Provider> {
    openai_at(&format!("{}/v1", server.base), KEY)
}

#[test]
fn anthropic_request_is_exact_and_every_call_comes_back() {
    let server = Server::start(|_, _| anthropic_ok());
    let answer = ask(&anthropic(&server), &fast(0)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        answer,
        Answer {
            calls: vec![
                RawCall {
                    name: "math_add".into(),
                    args: Ok(json!({"a": 2, "b": 3}))
                },
                RawCall {
                    name: "echo".into(),
                    args: Ok(json!({"text": "5"}))
                },
            ],
            text: "Adding.".into(),
            stop: Stop::ToolUse,
            usage: Some(Usage {
                input: 10,
                output: 7,
                ..Usage::default()
            }),
            usage_unbelievable: false,
        }
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("authorization"), None);
    assert!(
        r.header("user-agent")
            .is_some_and(|u| u.starts_with("toolproof/"))
    );
    assert_eq!(
        r.body,
        json!({
            "model": "fake-model-1",
            "max_tokens": 16000,
            "messages": [{"role": "user", "content": "Please add 2 and 3"}],
            "tools": tools(),
            "tool_choice": {"type": "auto"},
            "stop_sequences": ["STOP"],
            "system": "You pick tools."
        })
    );
    let keys: Vec<&String> = r
        .body
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "model",
            "max_tokens",
            "messages",
            "tools",
            "tool_choice",
            "stop_sequences",
            "system"
        ]
    );
}

#[test]
fn openai_request_is_exact_and_the_call_comes_back() {
    let server = Server::start(|_, _| openai_ok());
    let answer = ask(&openai(&server), &fast(0)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.calls.len(), 1);
    assert_eq!(answer.calls[0].args, Ok(json!({"a": 2, "b": 3})));
    assert_eq!(answer.stop, Stop::ToolUse);
    let reqs = server.requests();
    let r = &reqs[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(r.header("x-api-key"), None);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.body,
        json!({
            "model": "fake-model-1",
            "messages": [
                {"role": "system", "content": "You pick tools."},
                {"role": "user", "content": "Please add 2 and 3"}
            ],
            "tools": [
                {"type": "function", "function": {"name": "math_add", "description": "Add a and b.", "parameters": tools()[0].input_schema}},
                {"type": "function", "function": {"name": "echo", "description": "Echo text.", "parameters": tools()[1].input_schema}}
            ],
            "tool_choice": "auto",
            "stop_sequences": ["STOP"]
        })
    );
}

#[test]
fn a_429_with_retry_after_ms_is_waited_out_then_answered() {
    let server = Server::start(|n, _| {
        if n == 0 {
            anthropic_error(429, "rate_limit_error", "slow down").header("retry-after-ms", "300")
        } else {
            anthropic_ok()
        }
    });
    let answer = ask(&anthropic(&server), &fast(4)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.calls.len(), 2);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let gap = reqs[1].at - reqs[0].at;
    assert!(gap >= Duration::from_millis(300), "retried after {gap:?}");
}

#[test]
fn a_429_with_retry_after_seconds_is_waited_out() {
    let server = Server::start(|n, _| {
        if n == 0 {
            openai_error(
                429,
                "requests",
                json!("rate_limit_exceeded"),
                "Rate limit reached",
            )
            .header("retry-after", "1")
        } else {
            openai_ok()
        }
    });
    ask(&openai(&server), &fast(4)).unwrap_or_else(|e| panic!("{e}"));
    let reqs = server.requests();
    let gap = reqs[1].at - reqs[0].at;
    assert!(gap >= Duration::from_secs(1), "retried after {gap:?}");
}

#[test]
fn a_429_holds_back_the_other_workers_too() {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let server = Server::start(move |n, req| {
        let prompt = req
            .body
            .pointer("/messages/0/content")
            .and_then(Value::as_str);
        if n == 0 && prompt == Some("first") {
            if let Ok(tx) = tx.lock() {
                let _ = tx.send(Instant::now());
            }
            anthropic_error(429, "rate_limit_error", "slow down").header("retry-after-ms", "400")
        } else {
            anthropic_ok()
        }
    });
    let provider = anthropic(&server);
    let pacer = fast(4);
    let tools = tools();
    let params = Map::new();
    let request = |prompt| Request {
        model: "m",
        system: None,
        prompt,
        context: &[],
        tools: &tools,
        params: &params,
        tool_choice: None,
        max_tokens: 100,
        prompt_cache: false,
    };
    std::thread::scope(|s| {
        let first = s.spawn(|| provider.ask(&request("first"), &pacer));
        // The second worker starts once the 429 has been sent: it must wait out the same hold.
        let limited_at = rx.recv().unwrap_or_else(|e| panic!("{e}"));
        // Let the first worker read the 429 and place its hold before the second one asks.
        while first_hold_missing(&pacer) {
            std::thread::yield_now();
        }
        let second = provider.ask(&request("second"), &pacer);
        assert!(second.is_ok());
        let reqs = server.requests();
        let second_at = reqs
            .iter()
            .find(|r| r.body.pointer("/messages/0/content") == Some(&json!("second")))
            .map(|r| r.at)
            .unwrap_or_else(|| panic!("second request not seen"));
        assert!(
            second_at - limited_at >= Duration::from_millis(350),
            "second worker sent {:?} after the 429",
            second_at - limited_at
        );
        assert!(first.join().is_ok_and(|r| r.is_ok()));
    });
}

/// Whether no hold is in place yet (the first worker has not read its 429).
fn first_hold_missing(pacer: &Pacer) -> bool {
    !pacer.is_holding()
}

#[test]
fn overloaded_and_server_errors_are_retried_then_transient() {
    let server = Server::start(|_, _| anthropic_error(529, "overloaded_error", "Overloaded"));
    let err = ask(&anthropic(&server), &fast(2)).unwrap_err();
    assert_eq!(
        err,
        ProviderError::Transient(
            "anthropic returned 529 overloaded_error: Overloaded (after 2 retries)".into()
        )
    );
    assert_eq!(server.requests().len(), 3);

    let server = Server::start(|_, _| openai_error(500, "server_error", Value::Null, "oops"));
    let err = ask(&openai(&server), &fast(3)).unwrap_err();
    assert_eq!(
        err,
        ProviderError::Transient("openai returned 500 server_error: oops (after 3 retries)".into())
    );
    assert_eq!(server.requests().len(), 4);

    let server = Server::start(|_, _| anthropic_error(429, "rate_limit_error", "slow down"));
    let err = ask(&anthropic(&server), &fast(4)).unwrap_err();
    assert_eq!(
        err.message(),
        "anthropic returned 429 rate_limit_error: slow down (after 4 retries)"
    );
}

#[test]
fn rejected_requests_are_fatal_at_once_with_the_providers_message() {
    let cases = [
        (
            400,
            "invalid_request_error",
            "max_tokens: must be positive",
            "check evals.params",
        ),
        (
            401,
            "authentication_error",
            "invalid x-api-key",
            "check ANTHROPIC_API_KEY",
        ),
        (
            403,
            "permission_error",
            "no access",
            "no access to this model",
        ),
        (
            404,
            "not_found_error",
            "model: fake-model-1",
            "check the model name",
        ),
        (413, "request_too_large", "too big", "too large"),
    ];
    for (status, kind, message, hint) in cases {
        let server = Server::start(move |_, _| anthropic_error(status, kind, message));
        let err = ask(&anthropic(&server), &fast(4)).unwrap_err();
        assert!(err.is_fatal(), "{status}: {err}");
        assert_eq!(
            err.message(),
            format!("anthropic returned {status} {kind}: {message}"),
            "{err}"
        );
        assert!(err.hint().is_some_and(|h| h.contains(hint)), "{err}");
        let shown = err.to_string();
        assert!(
            shown.starts_with(&format!(
                "anthropic returned {status} {kind}: {message}\nhint: "
            )),
            "{shown}"
        );
        assert_eq!(server.requests().len(), 1, "{status} must not be retried");
    }
    let server = Server::start(|_, _| {
        openai_error(
            404,
            "invalid_request_error",
            json!("model_not_found"),
            "The model `x` does not exist",
        )
    });
    let err = ask(&openai(&server), &fast(4)).unwrap_err();
    assert!(err.is_fatal());
    assert_eq!(
        err.to_string(),
        "openai returned 404 model_not_found: The model `x` does not exist\nhint: check the model name (evals.model, --model) and OPENAI_BASE_URL",
    );
    let server =
        Server::start(|_, _| openai_error(422, "invalid_request_error", Value::Null, "bad params"));
    assert!(ask(&openai(&server), &fast(4)).unwrap_err().is_fatal());
}

#[test]
fn a_redirect_is_fatal_and_points_at_the_base_url() {
    let server = Server::start(|_, _| {
        Reply::raw(301, "").header("location", "https://api.example.com/v1/messages")
    });
    let err = ask(&anthropic(&server), &fast(4)).unwrap_err();
    assert!(err.is_fatal(), "{err}");
    assert_eq!(
        err.to_string(),
        "anthropic returned 301, a redirect to https://api.example.com/v1/messages\n\
         hint: the server redirects instead of answering; check ANTHROPIC_BASE_URL (http or https, the /v1 part)"
    );
    assert_eq!(
        err.message(),
        "anthropic returned 301, a redirect to https://api.example.com/v1/messages"
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn an_exhausted_quota_is_fatal_not_retried() {
    let server = Server::start(|_, _| {
        openai_error(
            429,
            "insufficient_quota",
            json!("insufficient_quota"),
            "You exceeded your current quota",
        )
    });
    let err = ask(&openai(&server), &fast(4)).unwrap_err();
    assert!(err.is_fatal(), "{err}");
    assert!(
        err.hint().is_some_and(|h| h.contains("out of credit")),
        "{err}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn x_should_retry_overrides_the_status() {
    let server = Server::start(|_, _| {
        anthropic_error(503, "api_error", "down").header("x-should-retry", "false")
    });
    let err = ask(&anthropic(&server), &fast(4)).unwrap_err();
    assert_eq!(
        err,
        ProviderError::Transient("anthropic returned 503 api_error: down".into())
    );
    assert_eq!(server.requests().len(), 1);

    let server = Server::start(|n, _| {
        if n == 0 {
            anthropic_error(400, "invalid_request_error", "try again")
                .header("x-should-retry", "true")
        } else {
            anthropic_ok()
        }
    });
    assert!(ask(&anthropic(&server), &fast(4)).is_ok());
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_slow_answer_hits_the_request_timeout() {
    let server = Server::start(|_, _| anthropic_ok().after(Duration::from_secs(3)));
    let pacer = Pacer::new(RetryPolicy {
        max_retries: 1,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(5),
        request_timeout: Duration::from_millis(200),
    });
    let started = Instant::now();
    let err = ask(&anthropic(&server), &pacer).unwrap_err();
    assert_eq!(
        err,
        ProviderError::Transient("anthropic did not answer within 0.2s (after 1 retry)".into())
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_dropped_connection_is_retried() {
    let server = Server::start(|n, _| {
        if n == 0 {
            Reply::dropped()
        } else {
            openai_ok()
        }
    });
    let answer = ask(&openai(&server), &fast(2)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.calls[0].name, "math_add");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_refused_connection_is_transient_after_the_retries() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(9);
    let provider = anthropic_at(&format!("http://127.0.0.1:{port}"), KEY);
    let err = ask(&provider, &fast(1)).unwrap_err();
    assert!(!err.is_fatal());
    assert!(
        err.message()
            .starts_with("anthropic: connection refused by http://127.0.0.1:"),
        "{err}"
    );
    assert!(err.message().ends_with("(after 1 retry)"), "{err}");
}

#[test]
fn a_200_that_is_not_the_api_is_retried_once_then_transient() {
    let server =
        Server::start(|_, _| Reply::raw(200, "<html><body>Welcome to nginx</body></html>"));
    let err = ask(&anthropic(&server), &fast(4)).unwrap_err();
    assert!(!err.is_fatal());
    assert_eq!(
        err.to_string(),
        "anthropic answered 200 with a body that is not JSON: <html><body>Welcome to nginx</body></html> (after 1 retry)\n\
         hint: check ANTHROPIC_BASE_URL (it must point at the API)"
    );
    assert_eq!(server.requests().len(), 2);

    let server = Server::start(|_, _| Reply::json(200, json!({"object": "list", "data": []})));
    let err = ask(&openai(&server), &fast(4)).unwrap_err();
    assert_eq!(
        err.message(),
        "openai answered 200 but not in its API's format: no `choices[0].message` (after 1 retry)"
    );
}

#[test]
fn the_key_never_appears_in_an_error() {
    let echo = |_, req: &super::testserver::Captured| {
        let key = req
            .header("x-api-key")
            .or(req.header("authorization"))
            .unwrap_or("")
            .to_owned();
        anthropic_error(401, "authentication_error", &format!("invalid key {key}"))
    };
    let server = Server::start(echo);
    let err = ask(&anthropic(&server), &fast(0)).unwrap_err();
    assert!(!err.message().contains(KEY), "{err}");
    assert!(err.message().contains("invalid key [redacted]"), "{err}");

    let server = Server::start(|_, req: &super::testserver::Captured| {
        let auth = req.header("authorization").unwrap_or("").to_owned();
        Reply::raw(500, &format!("upstream rejected {auth}"))
    });
    let err = ask(&openai(&server), &fast(1)).unwrap_err();
    assert!(!err.message().contains(KEY), "{err}");
    assert!(err.message().contains("Bearer [redacted]"), "{err}");
}
