//! Cache keys of cases with `context:`: the material gains a sorted-first `"context"` member,
//! byte-exact Python `json.dumps` (hashes below computed with Python 3), and a case without
//! context keeps the reference's key.

use serde_json::{Map, json};

use super::*;
use crate::config::Turn;
use crate::evals::ApiTool;

fn tools() -> Vec<ApiTool> {
    vec![ApiTool {
        name: "cancel_order".into(),
        description: "Cancel an order.".into(),
        input_schema: json!({"type": "object", "properties": {"order_id": {"type": "string"}}}),
        exact_numbers: Vec::new(),
    }]
}

fn talk(order: &str) -> Vec<Turn> {
    let mut args = Map::new();
    args.insert("order_id".into(), json!(order));
    vec![
        Turn::User(format!("Où est ma commande {order} ?")),
        Turn::Call {
            tool: "get_order".into(),
            args,
            result: r#"{"status": "processing"}"#.into(),
        },
        Turn::Assistant(format!("Order {order} is still processing.")),
    ]
}

#[test]
fn a_case_without_context_keeps_the_reference_key() {
    let keyer = Keyer::new("anthropic", "m1", None, &tools(), &Map::new());
    // json.dumps({"v": 1, "provider", "model", "system": None, "prompt", "tools", "params"},
    // sort_keys=True, ensure_ascii=False), as mcp-toolproof 0.3.1 hashes it.
    let reference = "5901b3518216f38c930faf389137d895f11714e7cabb83321191ce20ff6c52f2";
    assert_eq!(keyer.key_in(&[], "Cancel it", 1), reference);
    assert_eq!(keyer.key("Cancel it", 1), reference);
}

#[test]
fn context_is_hashed_as_python_dumps_it_and_two_contexts_never_share_a_key() {
    let keyer = Keyer::new("anthropic", "m1", None, &tools(), &Map::new());
    // The same material with "context": [{"user"}, {"call", "args", "result"}, {"assistant"}].
    assert_eq!(
        keyer.key_in(&talk("55219"), "Cancel it", 1),
        "4354fb6e545a007d566c7c0eee999d5b22c29da8e794d438ed9f306b42635c85"
    );
    assert_eq!(
        keyer.key_in(&talk("55219"), "Cancel it", 2),
        "1e9b1db6eea30da60564a6ae45c8a5ff9a22586acb502ef014785c1be48c6034"
    );
    let other = keyer.key_in(&talk("55220"), "Cancel it", 1);
    assert_ne!(other, keyer.key_in(&talk("55219"), "Cancel it", 1));
    // Fewer turns, or a different result, is another conversation.
    assert_ne!(
        keyer.key_in(&talk("55219")[..2], "Cancel it", 1),
        keyer.key_in(&talk("55219"), "Cancel it", 1)
    );
    let mut changed = talk("55219");
    if let Turn::Call { result, .. } = &mut changed[1] {
        *result = "{\"status\": \"shipped\"}".into();
    }
    assert_ne!(
        keyer.key_in(&changed, "Cancel it", 1),
        keyer.key_in(&talk("55219"), "Cancel it", 1)
    );
}
