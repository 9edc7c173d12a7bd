//! HTTP endpoints that redirect to themselves: a model API and an MCP server. toolproof
//! follows no redirect of a POST, so each is reported with where it points, and a loop is
//! named as one.

use super::harness::{Case, example, fake_server};

/// A `fake_llm` answering every request with `code` and `Location:` its own path.
fn looping(code: &str) -> toolproof_test_support::Listening {
    toolproof_test_support::listening(&example("fake_llm"), &["--redirect-self", code])
}

#[test]
fn an_mcp_server_that_redirects_to_itself_is_named_as_a_loop() {
    for code in ["302", "307"] {
        let server = looping(code);
        let url = format!("{}/mcp", server.url);
        Case::new("mcp-redirect-loop")
            .yaml(&format!("server:\n  url: {url}\n"))
            .run()
            .sound(1)
            .says(&format!(
                "HTTP {code} from {url}: a redirect to itself, a loop"
            ));
    }
}

#[test]
fn a_model_api_that_redirects_to_itself_is_named_as_a_loop() {
    let server = looping("307");
    let evals = "evals:\n  provider: anthropic\n  model: m\n  max_retries: 0\n  cases:\n    - {prompt: say hi, expect_tool: echo}\n";
    Case::new("api-redirect-loop")
        .yaml(&fake_server(&[], evals))
        .env("ANTHROPIC_API_KEY", "sk-fault")
        .env("ANTHROPIC_BASE_URL", &server.url)
        .run()
        .sound(1)
        .says("anthropic returned 307, a redirect to itself, a loop")
        .says("hint: the server redirects instead of answering; check ANTHROPIC_BASE_URL");
}
