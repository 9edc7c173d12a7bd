use std::time::Duration;

use serde_json::{Value, json};

use super::*;
use crate::config::Expect;
use crate::config::vocab::jsonpath_error;
use crate::mcp::types::{CallOutcome, CallResult};

fn expect(v: Value) -> Expect {
    serde_json::from_value(v).unwrap()
}

fn outcome(result: CallResult) -> CallOutcome {
    CallOutcome {
        latency: Duration::from_millis(5),
        result,
        stderr: String::new(),
    }
}

/// A successful result with one text block.
fn text(t: &str) -> CallOutcome {
    outcome(CallResult::Result {
        content: vec![json!({"type": "text", "text": t})],
        structured: None,
        is_error: false,
    })
}

/// A successful result with text and structured content.
fn structured(t: &str, s: Value) -> CallOutcome {
    outcome(CallResult::Result {
        content: vec![json!({"type": "text", "text": t})],
        structured: Some(s),
        is_error: false,
    })
}

fn tool_error(t: &str) -> CallOutcome {
    outcome(CallResult::Result {
        content: vec![json!({"type": "text", "text": t})],
        structured: None,
        is_error: true,
    })
}

fn protocol_error(message: &str) -> CallOutcome {
    outcome(CallResult::ProtocolError {
        code: -32602,
        message: message.into(),
        data: None,
    })
}

fn run(e: Value, o: &CallOutcome) -> Vec<String> {
    check(&expect(e), o, None)
}

// ---- is_error ----

#[test]
fn an_error_returned_as_success_fails_a_test_that_expects_success_and_names_its_kind() {
    // mcp-server-sqlite's read_query on a missing table answers this with isError false.
    let sqlite = text("Database error: no such table: nope");
    assert_eq!(
        run(json!({"is_error": false}), &sqlite),
        vec![
            "error-as-success: expected success; isError is false, but the tool's only text \
             reads as an error: Database error: no such table: nope"
                .to_owned()
        ]
    );
    assert_eq!(
        run(json!({"is_error": true}), &sqlite),
        vec![
            "expected an error but the tool succeeded: Database error: no such table: nope \
             (error-as-success: the text reads as an error, but isError is false)"
                .to_owned()
        ]
    );
    // A plain answer passes `is_error: false`; an error flagged as one passes `is_error: true`.
    assert!(run(json!({"is_error": false}), &text("[{'1': 1}]")).is_empty());
    assert!(run(json!({"is_error": true}), &tool_error("Database error: x")).is_empty());
}

#[test]
fn a_test_that_does_not_say_gets_a_warning_not_a_failure() {
    let refused = text("Error: Only SELECT queries are allowed for read_query");
    assert!(run(json!({}), &refused).is_empty());
    assert_eq!(
        warnings(&expect(json!({})), &refused),
        vec![
            "error-as-success: isError is false, but the tool's only text reads as an error: \
             Error: Only SELECT queries are allowed for read_query; with `is_error: false` in \
             its expect the test fails on this"
                .to_owned()
        ]
    );
    assert!(warnings(&expect(json!({"is_error": false})), &refused).is_empty());
    assert!(warnings(&expect(json!({})), &text("5")).is_empty());
    assert!(warnings(&expect(json!({})), &tool_error("Error: x")).is_empty());
}

#[test]
fn is_error_true_passes_on_an_error_result() {
    assert!(run(json!({"is_error": true}), &tool_error("boom")).is_empty());
}

#[test]
fn is_error_true_counts_a_protocol_error_as_an_error() {
    assert!(run(json!({"is_error": true}), &protocol_error("unknown tool")).is_empty());
}

#[test]
fn a_protocol_error_fails_a_test_that_expects_nothing() {
    assert_eq!(
        run(json!({}), &protocol_error("database unreachable")),
        ["protocol error -32602: database unreachable"]
    );
}

#[test]
fn a_protocol_error_fails_a_test_that_expects_success_and_says_what_it_was() {
    assert_eq!(
        run(json!({"is_error": false}), &protocol_error("no such row")),
        ["protocol error -32602: no such row"]
    );
}

#[test]
fn a_protocol_error_passes_a_test_that_expects_an_error_and_matches_its_text() {
    let e = protocol_error("no such row");
    assert!(run(json!({"is_error": true, "contains": "no such row"}), &e).is_empty());
    assert_eq!(
        run(json!({"is_error": true, "contains": "other"}), &e),
        [r#"result does not contain "other": no such row"#]
    );
}

#[test]
fn is_error_true_fails_on_success() {
    assert_eq!(
        run(
            json!({"is_error": true}),
            &text("Error: only SELECT\nqueries are allowed")
        ),
        [
            "expected an error but the tool succeeded: Error: only SELECT queries are allowed \
          (error-as-success: the text reads as an error, but isError is false)"
        ]
    );
    assert_eq!(
        run(json!({"is_error": true}), &text("")),
        ["expected an error but the tool succeeded, with no text"]
    );
}

#[test]
fn is_error_false_fails_on_an_error_with_its_text() {
    assert_eq!(
        run(json!({"is_error": false}), &tool_error("disk\nfull")),
        ["expected success but the tool returned an error: disk full"]
    );
    assert_eq!(
        run(
            json!({"is_error": false}),
            &protocol_error("Invalid params")
        ),
        ["protocol error -32602: Invalid params"]
    );
}

#[test]
fn is_error_false_passes_on_success() {
    assert!(run(json!({"is_error": false}), &text("ok")).is_empty());
}

#[test]
fn an_empty_expect_passes_even_an_error_result() {
    assert!(run(json!({}), &tool_error("boom")).is_empty());
}

// ---- equals ----

#[test]
fn equals_compares_structured_content_first() {
    let o = structured("5", json!({"result": 5}));
    assert!(run(json!({"equals": {"result": 5.0}}), &o).is_empty());
    assert_eq!(
        run(json!({"equals": 5}), &o),
        [r#"expected result 5, got {"result":5}"#]
    );
}

#[test]
fn equals_parses_text_as_json_when_there_is_no_structured_content() {
    assert!(run(json!({"equals": 5}), &text("5")).is_empty());
    assert!(
        run(
            json!({"equals": [1, {"a": null}]}),
            &text(r#"[1.0, {"a": null}]"#)
        )
        .is_empty()
    );
}

#[test]
fn equals_falls_back_to_the_text_as_a_string() {
    assert!(run(json!({"equals": "hello"}), &text("hello")).is_empty());
    assert_eq!(
        run(json!({"equals": "hello"}), &text("goodbye")),
        [r#"expected result "hello", got "goodbye""#]
    );
}

#[test]
fn equals_one_never_matches_true() {
    assert_eq!(
        run(json!({"equals": 1}), &text("true")),
        ["expected result 1, got true"]
    );
    assert_eq!(
        run(json!({"equals": true}), &text("1")),
        ["expected result true, got 1"]
    );
}

#[test]
fn equals_ignores_key_order() {
    let o = structured("", json!({"b": 2, "a": 1}));
    assert!(run(json!({"equals": {"a": 1, "b": 2}}), &o).is_empty());
}

#[test]
fn equals_null_is_an_assertion() {
    assert!(run(json!({"equals": null}), &text("null")).is_empty());
    assert_eq!(
        run(json!({"equals": null}), &text("x")),
        [r#"expected result null, got "x""#]
    );
}

#[test]
fn equals_cuts_long_values_to_200_characters() {
    let long = "y".repeat(500);
    let failures = run(json!({"equals": "short"}), &text(&long));
    assert_eq!(failures.len(), 1);
    let got = failures[0]
        .strip_prefix(r#"expected result "short", got "#)
        .unwrap();
    assert_eq!(got.chars().count(), 201);
    assert!(got.ends_with('…'));
}

#[test]
fn json_eq_follows_json_value_semantics() {
    assert!(json_eq(&json!(1), &json!(1.0)));
    assert!(json_eq(&json!(-0.0), &json!(0)));
    assert!(!json_eq(&json!(1), &json!(true)));
    assert!(!json_eq(&json!(0), &json!(false)));
    assert!(!json_eq(&json!(0), &json!(null)));
    assert!(!json_eq(&json!("1"), &json!(1)));
    assert!(json_eq(&json!(u64::MAX), &json!(u64::MAX)));
    assert!(!json_eq(&json!(u64::MAX), &json!(-1)));
    assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    assert!(!json_eq(&json!([1, 2]), &json!([2, 1])));
}

// ---- contains ----

#[test]
fn contains_one_needle() {
    assert!(run(json!({"contains": "ell"}), &text("hello")).is_empty());
    assert_eq!(
        run(json!({"contains": "ELL"}), &text("hello")),
        [r#"result does not contain "ELL": hello"#]
    );
}

#[test]
fn contains_a_list_reports_each_missing_needle() {
    assert!(run(json!({"contains": ["he", "lo"]}), &text("hello")).is_empty());
    assert_eq!(
        run(json!({"contains": ["he", "x", "y\"z"]}), &text("hello")),
        [
            r#"result does not contain "x": hello"#,
            r#"result does not contain "y\"z": hello"#
        ]
    );
}

#[test]
fn contains_searches_the_text_not_the_structured_content() {
    let o = structured("5", json!({"secret": "abc"}));
    assert_eq!(
        run(json!({"contains": "abc"}), &o),
        [r#"result does not contain "abc": 5"#]
    );
}

// ---- regex ----

#[test]
fn regex_matches_anywhere() {
    assert!(run(json!({"regex": r"\d{3}"}), &text("order 123 shipped")).is_empty());
}

#[test]
fn regex_failure_names_the_pattern() {
    assert_eq!(
        run(json!({"regex": "^shipped"}), &text("order 123 shipped")),
        ["result does not match /^shipped/: order 123 shipped"]
    );
}

#[test]
fn an_invalid_regex_is_a_failure_not_a_panic() {
    let failures = run(json!({"regex": "("}), &text("x"));
    assert_eq!(failures.len(), 1);
    assert!(
        failures[0].starts_with("/(/ is not a valid Python regular expression"),
        "{failures:?}"
    );
}

// ---- jsonpath ----

#[test]
fn jsonpath_reads_structured_content_when_present() {
    let o = structured("not json", json!({"result": 5}));
    assert!(run(json!({"jsonpath": {"$.result": {"equals": 5}}}), &o).is_empty());
}

#[test]
fn jsonpath_reads_the_text_as_json_otherwise() {
    let o = text(r#"{"user": {"name": "ada", "age": 36}}"#);
    let e = json!({"jsonpath": {
        "$.user.name": {"type": "string", "equals": "ada"},
        "$.user.age": {"type": "integer", "min": 18, "max": 36}
    }});
    assert!(run(e, &o).is_empty());
}

#[test]
fn jsonpath_on_text_that_is_not_json() {
    assert_eq!(
        run(json!({"jsonpath": {"$.a": {}}}), &text("hello")),
        ["$.a: the result is not JSON, so the path cannot be applied"]
    );
}

#[test]
fn jsonpath_invalid_path_gives_the_parser_message() {
    let failures = run(json!({"jsonpath": {"$.[": {}}}), &text("{}"));
    assert_eq!(failures.len(), 1);
    assert!(
        failures[0].starts_with("$.[: invalid JSONPath (at position "),
        "{failures:?}"
    );
    assert!(jsonpath_error("$.[").is_some());
    assert_eq!(
        jsonpath_error("result"),
        None,
        "a path without `$` starts at the root, as in jsonpath-ng"
    );
    assert_eq!(jsonpath_error("$.items[?@.price > 3].id"), None);
}

#[test]
fn jsonpath_no_match() {
    assert_eq!(
        run(json!({"jsonpath": {"$.missing": {}}}), &text(r#"{"a": 1}"#)),
        ["$.missing: no match in the result"]
    );
}

#[test]
fn jsonpath_exists_false() {
    let o = text(r#"{"a": 1}"#);
    assert!(run(json!({"jsonpath": {"$.b": {"exists": false}}}), &o).is_empty());
    assert_eq!(
        run(json!({"jsonpath": {"$.a": {"exists": false}}}), &o),
        ["$.a: expected no match, found 1"]
    );
}

#[test]
fn jsonpath_several_matches_are_checked_as_a_list() {
    let o = text(r#"{"items": [{"id": 1}, {"id": 2}]}"#);
    assert!(
        run(
            json!({"jsonpath": {"$.items[*].id": {"type": "array", "equals": [1, 2]}}}),
            &o
        )
        .is_empty()
    );
    assert_eq!(
        run(json!({"jsonpath": {"$.items[*].id": {"equals": 1}}}), &o),
        ["$.items[*].id: expected 1, got [1,2]"]
    );
}

#[test]
fn jsonpath_filters_follow_rfc_9535() {
    let o = text(r#"{"items": [{"id": 1, "price": 2}, {"id": 2, "price": 9}]}"#);
    assert!(
        run(
            json!({"jsonpath": {"$.items[?@.price > 3].id": {"equals": 2}}}),
            &o
        )
        .is_empty()
    );
}

#[test]
fn jsonpath_type_rules() {
    let o = text(r#"{"flag": true, "whole": 3.0, "half": 2.5, "n": null}"#);
    let pass = json!({"jsonpath": {
        "$.flag": {"type": "boolean"},
        "$.whole": {"type": "integer"},
        "$.half": {"type": "number"},
        "$.n": {"type": "null"}
    }});
    assert!(run(pass, &o).is_empty());
    let fail = json!({"jsonpath": {
        "$.flag": {"type": "number"},
        "$.half": {"type": "integer"},
        "$.whole": {"type": "string"}
    }});
    assert_eq!(
        run(fail, &o),
        [
            "$.flag: expected type number, got boolean",
            "$.half: expected type integer, got number",
            "$.whole: expected type string, got integer"
        ]
    );
}

#[test]
fn jsonpath_equals_uses_json_values() {
    let o = text(r#"{"count": 2, "on": true}"#);
    assert!(run(json!({"jsonpath": {"$.count": {"equals": 2.0}}}), &o).is_empty());
    assert_eq!(
        run(json!({"jsonpath": {"$.count": {"equals": "2"}}}), &o),
        [r#"$.count: expected "2", got 2"#]
    );
    assert_eq!(
        run(json!({"jsonpath": {"$.on": {"equals": 1}}}), &o),
        ["$.on: expected 1, got true"]
    );
}

#[test]
fn jsonpath_range_is_inclusive() {
    let o = text(r#"{"t": 20}"#);
    assert!(run(json!({"jsonpath": {"$.t": {"min": 20, "max": 20}}}), &o).is_empty());
    assert_eq!(
        run(json!({"jsonpath": {"$.t": {"min": 20.5}}}), &o),
        ["$.t: 20 is below min 20.5"]
    );
    assert_eq!(
        run(json!({"jsonpath": {"$.t": {"max": 0}}}), &o),
        ["$.t: 20 is above max 0"]
    );
}

#[test]
fn jsonpath_range_needs_a_number() {
    let o = text(r#"{"t": "20"}"#);
    assert_eq!(
        run(json!({"jsonpath": {"$.t": {"min": 1, "max": 30}}}), &o),
        ["$.t: range check needs a number, got string"]
    );
}

// ---- max_latency_ms ----

#[test]
fn max_latency() {
    let mut o = text("ok");
    o.latency = Duration::from_micros(312_200);
    assert!(run(json!({"max_latency_ms": 400}), &o).is_empty());
    assert_eq!(
        run(json!({"max_latency_ms": 250}), &o),
        ["took 312ms, limit is 250ms"]
    );
    // Rounding must not make a miss read like a pass.
    o.latency = Duration::from_micros(250_300);
    assert_eq!(
        run(json!({"max_latency_ms": 250}), &o),
        ["took 250.3ms, limit is 250ms"]
    );
}

// ---- output schema ----

fn result_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "result": {"type": "integer"},
            "items": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["result"]
    })
}

#[test]
fn output_schema_passes_valid_structured_content() {
    let o = structured("5", json!({"result": 5}));
    assert!(check(&expect(json!({})), &o, Some(&result_schema())).is_empty());
}

#[test]
fn output_schema_needs_structured_content() {
    assert_eq!(
        check(&expect(json!({})), &text("5"), Some(&result_schema())),
        ["tool declares an outputSchema but returned no structured content"]
    );
}

#[test]
fn output_schema_lists_every_error_sorted_by_path() {
    let mut items: Vec<Value> = (0..12).map(|i| json!(format!("s{i}"))).collect();
    items[10] = json!(10);
    items[2] = json!(2);
    let o = structured("", json!({"items": items, "result": "five"}));
    assert_eq!(
        check(&expect(json!({})), &o, Some(&result_schema())),
        [
            r#"output schema: /items/2: 2 is not of type "string""#,
            r#"output schema: /items/10: 10 is not of type "string""#,
            r#"output schema: /result: "five" is not of type "integer""#,
        ]
    );
}

#[test]
fn output_schema_error_at_the_root_has_no_path() {
    let o = structured("", json!({}));
    assert_eq!(
        check(&expect(json!({})), &o, Some(&result_schema())),
        [r#"output schema: "result" is a required property"#]
    );
}

#[test]
fn output_schema_is_skipped_for_errors_and_when_turned_off() {
    let schema = result_schema();
    assert!(check(&expect(json!({})), &tool_error("no"), Some(&schema)).is_empty());
    let expects_error = expect(json!({"is_error": true}));
    assert!(check(&expects_error, &protocol_error("no"), Some(&schema)).is_empty());
    let off = expect(json!({"output_schema": false}));
    assert!(check(&off, &text("5"), Some(&schema)).is_empty());
}

#[test]
fn output_schema_dialect_comes_from_dollar_schema() {
    // In draft-07 an array under `items` is a tuple; 2020-12 rejects that form.
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}]}}
    });
    let good = structured("", json!({"point": [1, 2]}));
    assert!(check(&expect(json!({})), &good, Some(&schema)).is_empty());
    let bad = structured("", json!({"point": [1, "two"]}));
    assert_eq!(
        check(&expect(json!({})), &bad, Some(&schema)),
        [r#"output schema: /point/1: "two" is not of type "number""#]
    );
}

#[test]
fn an_unusable_output_schema_is_reported() {
    let schema = json!({"type": "strng"});
    let failures = check(
        &expect(json!({})),
        &structured("", json!({})),
        Some(&schema),
    );
    assert_eq!(failures.len(), 1);
    assert!(
        failures[0].starts_with("output schema: the tool's outputSchema cannot be used"),
        "{failures:?}"
    );
}

#[test]
fn output_schema_caps_the_list() {
    let schema = json!({"type": "array", "items": {"type": "string"}});
    let o = structured("", json!((0..60).collect::<Vec<_>>()));
    let failures = check(&expect(json!({})), &o, Some(&schema));
    assert_eq!(failures.len(), 51);
    assert_eq!(failures[50], "output schema: 10 more errors not listed");
}

// ---- all together ----

#[test]
fn every_expectation_is_evaluated() {
    let mut o = tool_error("nope");
    o.latency = Duration::from_millis(900);
    let e = json!({
        "is_error": false,
        "equals": "yes",
        "contains": "yes",
        "regex": "^y",
        "jsonpath": {"$.a": {}},
        "max_latency_ms": 100
    });
    assert_eq!(
        run(e, &o),
        [
            "expected success but the tool returned an error: nope",
            r#"expected result "yes", got "nope""#,
            r#"result does not contain "yes": nope"#,
            "result does not match /^y/: nope",
            "$.a: the result is not JSON, so the path cannot be applied",
            "took 900ms, limit is 100ms",
        ]
    );
}
