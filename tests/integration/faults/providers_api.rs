//! Model APIs that fail: refusals (400, 401, 404), rate limits and overload that never end,
//! server errors, silence, and 200 answers that are no answer (cut, empty, huge, HTML). The
//! fake API (`examples/fake_llm.rs`) does what each prompt's `[[directive]]` says.

use super::harness::{Case, Outcome, fake_server};
use super::http::{Listening, listening};

/// The key the fake API is given; no output and no file may show it.
const KEY: &str = "sk-fault-suite-0123456789";

/// A config whose evals ask the Anthropic API one case with `prompt`, retrying `retries`
/// times and waiting at most `timeout_s` per request.
fn config(prompt: &str, retries: u32, timeout_s: f64) -> String {
    fake_server(
        &[],
        &format!(
            "  startup_timeout_s: 2\nchecks:\n  enabled: false\nevals:\n  provider: anthropic\n  model: fake-model-1\n  max_retries: {retries}\n  request_timeout_s: {timeout_s}\n  min_accuracy: 0\n  cache: false\n  cases:\n    - name: the case\n      prompt: {}\n      expect_tool: echo\n",
            serde_json::to_string(prompt).unwrap_or_default()
        ),
    )
}

/// Runs `toolproof eval` on `yaml` against the fake API.
fn eval(name: &str, api: &Listening, yaml: &str) -> Outcome {
    Case::new(name)
        .yaml(yaml)
        .args(&["eval", "-c", "toolproof.yaml"])
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", &api.url)
        .run()
}

/// The evals phase of the JSON report: its status and reason.
fn phase(out: &Outcome) -> (String, String) {
    let phase = &out.report()["phases"]["evals"];
    (
        phase["status"].as_str().unwrap_or("").to_owned(),
        phase["reason"].as_str().unwrap_or("").to_owned(),
    )
}

/// The run fails, the phase is an error whose reason says `reason`, and the key shows nowhere.
fn fails_with(out: &Outcome, reason: &str) {
    out.sound(1).never_shows(KEY);
    let (status, said) = phase(out);
    assert_eq!(status, "error", "{out:?}");
    assert!(said.contains(reason), "{said:?} does not say {reason:?}");
}

/// As [`fails_with`], and no case got an answer: the `answers` gate says so.
fn nothing_answered(out: &Outcome, reason: &str) {
    fails_with(
        out,
        "no case got an answer from the provider: 1 of 1 trial failed",
    );
    fails_with(out, reason);
}

fn api() -> Listening {
    listening("fake_llm", &[])
}

#[test]
fn a_400_stops_the_evals_and_points_at_the_params() {
    let api = api();
    let out = eval(
        "api-400",
        &api,
        &config("x [[status 400 msg=bad field]]", 2, 5.0),
    );
    fails_with(&out, "400 invalid_request_error: bad field");
    out.says("check evals.params and the model name");
}

#[test]
fn a_401_points_at_the_key_variable_and_never_shows_the_key() {
    let api = api();
    let prompt = "x [[status 401 echo-key msg=this key is not valid]]";
    let out = eval("api-401", &api, &config(prompt, 2, 5.0));
    fails_with(
        &out,
        "401 authentication_error: this key is not valid: [redacted]",
    );
    out.says("check ANTHROPIC_API_KEY");
}

#[test]
fn a_404_points_at_the_model_name() {
    let api = api();
    let out = eval("api-404", &api, &config("x [[status 404]]", 2, 5.0));
    fails_with(&out, "404");
    out.says("check the model name");
}

#[test]
fn a_429_that_never_ends_measures_nothing_and_fails_whatever_the_minimum() {
    let api = api();
    let yaml = config("x [[status 429 retry-after-ms=10]]", 2, 5.0);
    let out = eval("api-429", &api, &yaml);
    nothing_answered(&out, "429 rate_limit_error");
    out.says("(after 2 retries)");
}

#[test]
fn an_overloaded_api_that_stays_overloaded_measures_nothing() {
    let api = api();
    let out = eval(
        "api-529",
        &api,
        &config("x [[status 529 retry-after-ms=10]]", 1, 5.0),
    );
    nothing_answered(&out, "529 overloaded_error");
}

#[test]
fn a_500_that_stays_measures_nothing() {
    let api = api();
    let out = eval(
        "api-500",
        &api,
        &config("x [[status 500 retry-after-ms=10]]", 1, 5.0),
    );
    nothing_answered(&out, "500 api_error");
}

#[test]
fn an_api_that_does_not_answer_in_time_measures_nothing() {
    let api = api();
    let out = eval("api-timeout", &api, &config("x [[sleep 5000]]", 0, 0.3));
    nothing_answered(&out, "anthropic did not answer within 0.3s");
}

#[test]
fn a_200_with_cut_json_is_no_answer() {
    let api = api();
    let prompt = r#"x [[call echo {"text": "a"}]] [[truncated]]"#;
    let out = eval("api-truncated", &api, &config(prompt, 0, 5.0));
    nothing_answered(&out, "anthropic answered 200 with a body that is not JSON");
}

#[test]
fn a_200_with_an_empty_body_is_no_answer() {
    let api = api();
    let out = eval("api-empty", &api, &config("x [[empty]]", 0, 5.0));
    nothing_answered(
        &out,
        "anthropic answered 200 with a body that is not JSON: (empty body)",
    );
}

#[test]
fn a_200_over_the_body_limit_is_not_read_whole() {
    let api = api();
    let out = eval("api-huge", &api, &config("x [[huge 65]]", 0, 30.0));
    nothing_answered(&out, "anthropic sent an answer larger than 64 MiB");
}

#[test]
fn a_200_with_an_html_page_is_no_answer() {
    let api = api();
    let out = eval("api-html", &api, &config("x [[nonsense]]", 0, 5.0));
    nothing_answered(&out, "not JSON: <html><head><title>Welcome</title>");
}
