//! Tests of the evals view: the words every renderer shares.

use serde_json::json;

use super::answer::{picked_lines, picked_names, short_json, trial_picks};
use super::*;
use crate::outcome::{AnswerKind, HistoryPoint, HistoryTrend, PickedCall, TrialResult};

#[test]
fn json_is_spaced_and_cut() {
    assert_eq!(
        short_json(&json!({"a": 2, "b": [1, "x"]}), 60),
        r#"{"a": 2, "b": [1, "x"]}"#
    );
    assert_eq!(
        short_json(&json!({"t": "\u{1b}[31m"}), 60),
        r#"{"t": "\u001b[31m"}"#
    );
    let long = short_json(&json!({"text": "x".repeat(1_000_000)}), 20);
    assert_eq!(long.chars().count(), 20);
    assert!(long.ends_with('…'));
}

fn trial(kind: AnswerKind, tools: &[&str]) -> TrialResult {
    TrialResult {
        notes: Vec::new(),
        passed: false,
        kind,
        calls: tools
            .iter()
            .map(|t| PickedCall {
                tool: t.to_string(),
                args: json!({}),
                malformed_args: None,
            })
            .collect(),
        text: None,
        failures: Vec::new(),
        cached: false,
        provider_error: None,
        latency_ms: 0.0,
    }
}

#[test]
fn picks_are_named_by_kind() {
    assert_eq!(
        picked_names(&trial(AnswerKind::ToolCall, &["a", "b"])),
        "a, b"
    );
    assert_eq!(picked_names(&trial(AnswerKind::TextOnly, &[])), "(no tool)");
    assert_eq!(picked_names(&trial(AnswerKind::Refusal, &[])), "(refused)");
    assert_eq!(
        picked_lines(&trial(AnswerKind::Truncated, &["a"]), 60),
        ["a {}", "(cut off)"]
    );
    let mut bad = trial(AnswerKind::ToolCall, &["a"]);
    bad.calls[0].malformed_args = Some("{\"x\": ".into());
    assert_eq!(
        picked_lines(&bad, 60),
        [r#"a (malformed arguments: "{\"x\": ")"#]
    );
}

#[test]
fn history_rates_use_the_one_rounding_rule() {
    let point = |rate: f64| HistoryPoint {
        time: "t".into(),
        commit: None,
        model: "m".into(),
        miss_rate: rate,
        cost_usd: None,
        replayed: false,
    };
    let trend = HistoryTrend {
        path: "h.jsonl".into(),
        points: vec![point(0.0), point(2.0 / 7.0), point(3.0 / 7.0)],
        rising: true,
        skipped_lines: 1,
    };
    let view = HistoryView::new(&trend, true);
    assert_eq!(
        view.lines[0].text(),
        "Miss rate over the last 3 runs: 0% → 28.6% → 42.9% (rising)"
    );
    assert!(
        view.warnings[0].starts_with(
            "the miss rate is rising: 0% → 42.9% over the last 3 runs while the gates still pass"
        ),
        "{:?}",
        view.warnings
    );
    assert_eq!(
        view.warnings[1],
        "1 line of h.jsonl could not be read and was skipped"
    );
}

#[test]
fn a_replayed_run_is_marked_in_the_cost_trend_not_priced_at_zero() {
    let point = |cost: Option<f64>, replayed: bool| HistoryPoint {
        time: "t".into(),
        commit: None,
        model: "m".into(),
        miss_rate: 0.1,
        cost_usd: cost,
        replayed,
    };
    let trend = HistoryTrend {
        path: "h.jsonl".into(),
        points: vec![
            point(Some(0.021), false),
            point(None, false),
            point(Some(0.0), true),
        ],
        rising: false,
        skipped_lines: 0,
    };
    let view = HistoryView::new(&trend, true);
    assert_eq!(
        view.cost_lines,
        ["Cost over the last 3 runs: $0.0210 → – → replayed"]
    );
}

#[test]
fn every_trials_pick_is_counted_in_the_order_first_seen() {
    let two = trial(AnswerKind::ToolCall, &["get_order", "get_order"]);
    let one = trial(AnswerKind::ToolCall, &["get_order"]);
    let other = trial(AnswerKind::ToolCall, &["get_weather"]);
    let cut = trial(AnswerKind::Truncated, &["get_order"]);
    let failed = trial(AnswerKind::ProviderError, &[]);
    assert_eq!(
        trial_picks(&[two.clone(), other.clone(), two.clone()]).as_deref(),
        Some("get_order ×2 (2 calls), get_weather ×1")
    );
    // The same tool with another number of calls, cut off, or no answer: each its own group.
    assert_eq!(
        trial_picks(&[
            one,
            two,
            cut,
            failed.clone(),
            trial(AnswerKind::TextOnly, &[])
        ])
        .as_deref(),
        Some(
            "get_order ×1, get_order ×1 (2 calls), get_order (cut off) ×1, (provider error) ×1, (no tool) ×1"
        )
    );
    assert_eq!(trial_picks(&[other]), None, "one trial says it all");
    assert_eq!(trial_picks(&[]), None);
}

#[test]
fn timeouts_while_others_are_answered_are_said_with_the_concurrency_to_set() {
    let lowered = ConcurrencyUse {
        configured: 8,
        adaptive: true,
        lowest: 1,
        last: 1,
        lowered: 3,
        timeouts: 5,
        answered: 9,
    };
    assert_eq!(
        concurrency_note(&lowered).as_deref(),
        Some(
            "Concurrency lowered from 8 to 1 in flight: 5 requests timed out while others were answered\nhint: the server answers fewer requests at once than `concurrency` asks; set `evals.concurrency: 1` to start there"
        )
    );
    let fixed = ConcurrencyUse {
        adaptive: false,
        lowest: 8,
        last: 8,
        lowered: 0,
        ..lowered
    };
    let note = concurrency_note(&fixed).unwrap_or_default();
    assert!(
        note.starts_with("Concurrency 8 in flight throughout: 5 requests timed out"),
        "{note}"
    );
    assert!(note.contains("\nhint: "), "{note}");
    // Nothing answered in time: said so, with what else to check.
    let none = concurrency_note(&ConcurrencyUse {
        answered: 0,
        ..lowered
    })
    .unwrap_or_default();
    assert!(
        none.contains("5 requests timed out, and none was answered in time"),
        "{none}"
    );
    assert!(
        none.ends_with("or raise `evals.request_timeout_s`"),
        "{none}"
    );
    // No timeout, or timeouts at a concurrency of 1 that nothing could lower: nothing to say.
    assert_eq!(
        concurrency_note(&ConcurrencyUse {
            timeouts: 0,
            ..lowered
        }),
        None
    );
    let one = ConcurrencyUse {
        configured: 1,
        lowest: 1,
        last: 1,
        lowered: 0,
        ..lowered
    };
    assert_eq!(concurrency_note(&one), None);
    let fixed_one = ConcurrencyUse {
        adaptive: false,
        ..one
    };
    assert_eq!(concurrency_note(&fixed_one), None);
}

#[test]
fn a_confusion_pair_dominates_past_half_of_at_least_two_prompts() {
    use crate::outcome::{Confusion, ModelEval, Share, ToolScore};
    let share = |count, of| Share {
        count,
        of,
        rate: count as f64 / of as f64,
        ..Share::default()
    };
    let pair = |expected: &str, picked: &str, count| Confusion {
        expected: expected.into(),
        picked: picked.into(),
        count,
        cases: Vec::new(),
    };
    let m = ModelEval {
        per_tool: vec![
            ToolScore {
                tool: "start_refund".into(),
                recall: Some(share(0, 2)),
                precision: None,
            },
            ToolScore {
                tool: "get_order".into(),
                recall: Some(share(1, 1)),
                precision: Some(share(1, 3)),
            },
            ToolScore {
                tool: "get_weather".into(),
                recall: Some(share(2, 4)),
                precision: Some(share(2, 2)),
            },
            ToolScore {
                tool: "lone".into(),
                recall: Some(share(0, 1)),
                precision: None,
            },
        ],
        over_trigger: Some(share(2, 3)),
        confusion: vec![
            pair("start_refund", "get_order", 2),
            pair("(no tool)", "get_order", 2),
            pair("get_weather", "(no tool)", 2),
            pair("lone", "get_order", 1),
        ],
        ..ModelEval::default()
    };
    assert_eq!(
        picks::dominant_lines(&m),
        [
            "get_order takes 100% of the prompts meant for start_refund (2/2)",
            "get_order takes 66.7% of the prompts meant for no tool (2/3)",
        ]
    );
}

#[test]
fn the_weight_line_names_the_heaviest_tools_with_their_share() {
    use crate::outcome::{ToolListTokens, ToolTokens};
    let w = ToolListTokens {
        total: 402,
        tools: (1..=7)
            .map(|i| ToolTokens {
                tool: format!("t{i}"),
                tokens: if i == 3 { 200 } else { 30 },
            })
            .collect(),
    };
    assert_eq!(
        picks::weights_line(&w).unwrap(),
        "Tool list sent on every request: about 402 tokens, 7 tools; heaviest: t3 200 (49.8%), t1 30 (7.5%), t2 30 (7.5%), t4 30 (7.5%), t5 30 (7.5%), … 2 more"
    );
    assert_eq!(picks::weights_line(&ToolListTokens::default()), None);
}
