//! Integers beyond 64 bits where toolproof sends a value as written (`evals.params`, a test's
//! `args`, `elicitation.content`, `bench.targets[].args`, the `args` and `result` of a case's
//! `context` calls, inline or in `cases_file`): the typed config holds the nearest
//! float, which is put back here as the marked integer of [`crate::pycompat::bigint`], so the
//! request carries, and the cache key hashes, every digit as mcp-toolproof sends the Python int.

use serde_json::{Map, Value as Json};

use super::super::de::key_text;
use super::super::node::{Node, Step, Value};
use super::super::{Config, EvalCase};
use crate::pycompat::bigint;

/// Puts every digit back into the values toolproof sends.
pub(super) fn keep_big_integers(config: &mut Config, root: &Node) {
    let at = |steps: &[Step<'_>]| root.at(steps);
    if let Some(evals) = &mut config.evals {
        restore(
            &mut evals.params,
            at(&[Step::Key("evals"), Step::Key("params")]),
        );
        if let Some(list) = at(&[Step::Key("evals"), Step::Key("cases")]) {
            keep_in_cases(&mut evals.cases, list);
        }
    }
    if let Some(content) = config.elicitation.as_mut().and_then(|e| e.content.as_mut()) {
        restore(
            content,
            at(&[Step::Key("elicitation"), Step::Key("content")]),
        );
    }
    for (i, test) in config.tests.iter_mut().enumerate() {
        let test_at = [Step::Key("tests"), Step::Index(i)];
        restore(
            &mut test.args,
            at(&[test_at[0], test_at[1], Step::Key("args")]),
        );
        if let Some(content) = test.elicitation.as_mut().and_then(|e| e.content.as_mut()) {
            let steps = [
                test_at[0],
                test_at[1],
                Step::Key("elicitation"),
                Step::Key("content"),
            ];
            restore(content, at(&steps));
        }
    }
    if let Some(bench) = &mut config.bench {
        for (i, target) in bench.targets.iter_mut().enumerate() {
            let steps = [
                Step::Key("bench"),
                Step::Key("targets"),
                Step::Index(i),
                Step::Key("args"),
            ];
            restore(&mut target.args, at(&steps));
        }
    }
}

/// Puts every digit back into the `context` calls of `cases`, read from the list `list`.
pub(super) fn keep_in_cases(cases: &mut [EvalCase], list: &Node) {
    let Value::Seq(items) = &list.value else {
        return;
    };
    for (case, node) in cases.iter_mut().zip(items) {
        let Some(Node {
            value: Value::Seq(turns),
            ..
        }) = node.get("context")
        else {
            continue;
        };
        for (turn, node) in case.context.iter_mut().zip(turns) {
            if let Some(args) = &mut turn.args {
                restore(args, node.get("args"));
            }
            if let (Some(result), Some(node)) = (&mut turn.result, node.get("result")) {
                restore_value(result, node);
            }
        }
    }
}

/// Walks `map` beside the mapping it was read from.
fn restore(map: &mut Map<String, Json>, node: Option<&Node>) {
    let Some(Node {
        value: Value::Map(entries),
        ..
    }) = node
    else {
        return;
    };
    for (key, value) in entries {
        if let Some(held) = key_text(key).and_then(|k| map.get_mut(&k)) {
            restore_value(held, value);
        }
    }
}

fn restore_value(held: &mut Json, node: &Node) {
    match (&node.value, held) {
        (Value::BigInt(digits), held @ Json::Number(_)) => *held = bigint::value(digits),
        (Value::Seq(items), Json::Array(held)) => {
            for (item, node) in held.iter_mut().zip(items) {
                restore_value(item, node);
            }
        }
        (Value::Map(_), Json::Object(held)) => restore(held, Some(node)),
        _ => {}
    }
}
