//! The GitHub step outputs of the fixture reports.
use super::fixtures;
use crate::report::step_outputs::*;

fn get<'a>(outputs: &'a [(&str, String)], name: &str) -> &'a str {
    outputs
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("<missing>", |(_, v)| v.as_str())
}

#[test]
fn one_model_gives_numbers_and_the_counts_come_from_the_report() {
    let report = fixtures::pull_request();
    let written = Written {
        junit: Some("out/j.xml".into()),
        ..Written::default()
    };
    let o = outputs(&report, 1, &written);
    assert_eq!(get(&o, "exit-code"), "1");
    assert_eq!(get(&o, "passed"), "false");
    assert_eq!(get(&o, "accuracy"), "0.2500");
    assert_eq!(get(&o, "miss-rate"), "0.7500");
    assert_eq!(get(&o, "critical-misses"), "1");
    assert_eq!(
        get(&o, "tests-failed"),
        "3",
        "failed and errored, not the one not run"
    );
    assert_eq!(get(&o, "check-errors"), "4");
    assert_eq!(get(&o, "junit"), "out/j.xml");
    assert_eq!(get(&o, "json"), "");
    assert_eq!(get(&o, "history"), "toolproof-history.jsonl");
    assert_eq!(get(&o, "badge"), "");
    assert_eq!(get(&o, "sarif"), "");
    assert_eq!(o.len(), 14);
}

#[test]
fn a_model_that_never_saw_the_tools_has_no_accuracy_output() {
    let o = outputs(&fixtures::evals_blind(), 1, &Written::default());
    assert_eq!(get(&o, "accuracy"), "");
    assert_eq!(get(&o, "miss-rate"), "");
}

#[test]
fn several_models_give_an_object_and_no_evals_give_nothing() {
    let o = outputs(&fixtures::evals_models(), 1, &Written::default());
    let accuracy: serde_json::Value = serde_json::from_str(get(&o, "accuracy")).unwrap_or_default();
    let map = accuracy.as_object().cloned().unwrap_or_default();
    assert_eq!(map.len(), 2, "{accuracy}");
    let miss: serde_json::Value = serde_json::from_str(get(&o, "miss-rate")).unwrap_or_default();
    for (model, a) in &map {
        let sum = a.as_f64().unwrap_or(9.0) + miss[model].as_f64().unwrap_or(9.0);
        assert!((sum - 1.0).abs() < 1e-9, "{model}: {a} + {}", miss[model]);
    }
    let none = outputs(&fixtures::failing(), 1, &Written::default());
    assert_eq!(get(&none, "accuracy"), "");
    assert_eq!(get(&none, "miss-rate"), "");
    let aborted = outputs(&fixtures::evals_abort(), 1, &Written::default());
    assert_eq!(
        get(&aborted, "accuracy"),
        "",
        "an unusable provider scored nothing"
    );
    assert_eq!(get(&aborted, "history"), "");
}
