//! A case's `context:`: the turns load in order, and every entry that is not one turn is an
//! error at its line with a hint.

use super::{SERVER, loaded, rendered};
use crate::config::Turn;
use serde_json::json;

const ORDER_CASE: &str = r#"evals:
  cases:
    - prompt: Cancel it
      expect_tool: cancel_order
      expect_args: {order_id: "55219"}
      context:
        - user: Where is my order 55219?
        - call: get_order
          args: {order_id: "55219"}
          result: {status: processing}
        - assistant: Order 55219 is still processing.
"#;

#[test]
fn the_turns_load_in_order_and_a_result_value_becomes_its_json_text() {
    let config = loaded("context", &format!("{SERVER}{ORDER_CASE}")).config;
    let case = &config.evals.expect("evals").cases[0];
    let turns = case.turns();
    assert_eq!(turns.len(), 3);
    assert_eq!(turns[0], Turn::User("Where is my order 55219?".into()));
    let Turn::Call { tool, args, result } = &turns[1] else {
        panic!("{turns:?}");
    };
    assert_eq!(tool, "get_order");
    assert_eq!(json!(args), json!({"order_id": "55219"}));
    assert_eq!(result, r#"{"status":"processing"}"#);
    assert_eq!(
        turns[2],
        Turn::Assistant("Order 55219 is still processing.".into())
    );
}

#[test]
fn an_entry_that_is_not_one_turn_is_an_error_at_its_line() {
    let bad = r#"evals:
  cases:
    - prompt: Cancel it
      expect_tool: null
      context:
        - system: be nice
        - result: "done"
        - user: hi
          assistant: hello
        - call: "  "
          result: x
        - call: get_order
          args: {order_id: "1"}
        - user: hi
          args: {a: 1}
        - assistant: ""
        - {}
"#;
    insta::assert_snapshot!(
        "context_errors",
        rendered("context-bad", format!("{SERVER}{bad}"))
    );
    insta::assert_snapshot!(
        "context_not_a_list",
        rendered(
            "context-string",
            format!(
                "{SERVER}evals:\n  cases:\n    - prompt: x\n      expect_tool: null\n      context: hello\n"
            )
        )
    );
}
