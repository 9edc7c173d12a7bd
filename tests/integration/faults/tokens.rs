//! A model API that reports absurd token counts: two answers of 2^64 − 1 tokens each must
//! neither wrap the totals around nor turn into a cost of millions; such an answer's usage is
//! taken as not reported, and the cost line says how many answers reported such a count.

use super::harness::{Case, fake_server};
use super::secrets::start_llm;

const KEY: &str = "sk-fault-tokens-0123456789";

#[test]
fn answers_reporting_u64_max_tokens_count_as_not_reported_and_totals_do_not_wrap() {
    let llm = start_llm(&[]);
    let most = u64::MAX;
    let cases = format!(
        "    - name: one\n      prompt: 'a [[usage-tokens {most}]] [[call echo {{\"text\": \"a\"}}]]'\n      expect_tool: echo\n    - name: two\n      prompt: 'b [[usage-tokens {most}]] [[call echo {{\"text\": \"b\"}}]]'\n      expect_tool: echo\n    - name: three\n      prompt: 'c [[call echo {{\"text\": \"c\"}}]]'\n      expect_tool: echo\n"
    );
    for provider in ["anthropic", "openai"] {
        let yaml = fake_server(
            &[],
            &format!(
                "  startup_timeout_s: 2\nchecks:\n  enabled: false\nevals:\n  provider: {provider}\n  model: fake-model-1\n  min_accuracy: 0\n  cache: false\n  prices:\n    fake-model-1: {{input: 3.0, output: 15.0}}\n  cases:\n{cases}"
            ),
        );
        let out = Case::new(&format!("tokens-{provider}"))
            .yaml(&yaml)
            .args(&["eval", "-c", "toolproof.yaml"])
            .env("ANTHROPIC_API_KEY", KEY)
            .env("ANTHROPIC_BASE_URL", &llm.url)
            .env("OPENAI_API_KEY", KEY)
            .env("OPENAI_BASE_URL", &format!("{}/v1", llm.url))
            .run();
        out.sound(0)
            .never_shows(KEY)
            .says("2 answers not reported")
            .says("2 answers reported over 1,000,000,000 tokens, a broken count not added in");
        let report = out.report();
        let cost = &report["phases"]["evals"]["results"]["models"][0]["cost"];
        assert_eq!(cost["reported"], 1, "{provider}: {cost:#}");
        assert_eq!(cost["not_reported"], 2, "{provider}: {cost:#}");
        assert_eq!(cost["unbelievable"], 2, "{provider}: {cost:#}");
        let tokens = &cost["tokens"];
        assert!(
            tokens["input"].as_u64().is_some_and(|n| n < 1_000_000),
            "{provider}: {tokens:#}"
        );
        assert!(
            cost["cost_usd"].as_f64().is_some_and(|c| c < 1.0),
            "{provider}: {cost:#}"
        );
        for text in [&out.stdout, &out.stderr] {
            assert!(!text.contains("18,446,744"), "{provider}: {text}");
        }
    }
}
