//! `evals.stress`: the shorthand and the mapping load to the same settings, and every value the
//! curve cannot use is an error at its line with a hint.

use super::{SERVER, loaded, rendered};
use crate::config::{StressConfig, StressOrder};

fn stress_of(name: &str, yaml: &str) -> Option<StressConfig> {
    loaded(name, &format!("{SERVER}evals:\n{yaml}"))
        .config
        .evals
        .and_then(|e| e.stress)
}

#[test]
fn true_false_and_a_mapping_load() {
    assert_eq!(
        stress_of("stress-true", "  stress: true\n"),
        Some(StressConfig::default())
    );
    let off = stress_of("stress-false", "  stress: false\n");
    assert_eq!(off.map(|s| s.enabled), Some(false));
    let full = stress_of(
        "stress-map",
        "  stress:\n    distractors: [0, 5, 40]\n    orders: [reversed]\n    orders_at: [40]\n    seed: 7\n    must_hold: 5\n",
    );
    assert_eq!(
        full,
        Some(StressConfig {
            enabled: true,
            distractors: vec![0, 5, 40],
            orders: vec![StressOrder::Reversed],
            orders_at: Some(vec![40]),
            seed: 7,
            must_hold: Some(5),
            distractors_from: Vec::new(),
            distractor_snapshots: Vec::new(),
        })
    );
    assert_eq!(stress_of("no-stress", "  model: m\n"), None);
}

#[test]
fn values_the_curve_cannot_use_are_errors_with_their_place() {
    insta::assert_snapshot!(
        "stress_errors",
        rendered(
            "stress-bad",
            format!(
                "{SERVER}evals:\n  stress:\n    distractors: [0, 10, 10, 301]\n    orders: [shuffled, shuffled]\n    orders_at: [0, 30]\n    must_hold: 500\n"
            )
        )
    );
    insta::assert_snapshot!(
        "stress_empty_and_unknown",
        rendered(
            "stress-empty",
            format!("{SERVER}evals:\n  stress:\n    distractors: []\n    order: [server]\n")
        )
    );
    insta::assert_snapshot!(
        "stress_not_a_mapping",
        rendered("stress-number", format!("{SERVER}evals:\n  stress: 25\n"))
    );
    insta::assert_snapshot!(
        "stress_unknown_order",
        rendered(
            "stress-order",
            format!("{SERVER}evals:\n  stress: {{orders: [random]}}\n")
        )
    );
}
