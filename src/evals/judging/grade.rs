//! Scoring one answer against its label: the expected tool (or none), every listed argument
//! (strings compare as Python's `strip().casefold()` does, numbers by value, objects key by
//! key, lists element by element), and the arguments valid against the tool's input schema,
//! checked as mcp-toolproof checks them ([`schema`]). An answer cut off at `max_tokens` is
//! never right: what the model would have done is unknown (the reference scores it as if it
//! were whole, so a cut-off text answer passes a no-tool case there).

pub(crate) mod schema;

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::config::MultipleCalls;
use crate::evals::Choice;
use crate::evals::Stop;
use crate::mcp::types::Tool;
use crate::pycompat::{casefold, strip};

/// What a case expects.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Label<'a> {
    /// The tool, or `None` for "no tool".
    pub tool: Option<&'a str>,
    /// Arguments that must match (others are not checked).
    pub args: &'a Map<String, Value>,
}

/// What judging one answer found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Judged {
    /// Why the answer is wrong; empty when it is right.
    pub failures: Vec<String>,
    /// What could not be checked, and why (the answer is judged without it).
    pub notes: Vec<String>,
}

/// Judges `choice` against `label`: its failures, and what could not be checked.
pub(crate) fn judge(
    label: Label<'_>,
    choice: &Choice,
    tools: &HashMap<&str, &Tool>,
    multiple: MultipleCalls,
) -> Judged {
    let mut notes = Vec::new();
    let failures = failures(label, choice, tools, multiple, &mut notes);
    Judged { failures, notes }
}

/// Why `choice` is wrong for `label`; empty when it is right.
fn failures(
    label: Label<'_>,
    choice: &Choice,
    tools: &HashMap<&str, &Tool>,
    multiple: MultipleCalls,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let first = choice.calls.first();
    let cut = choice.stop == Stop::MaxTokens;
    let Some(expected) = label.tool else {
        return match first {
            None if cut => vec![format!("expected no tool call, but {CUT_OFF}")],
            None => Vec::new(),
            Some(call) => vec![format!("expected no tool call, got {}", call.tool)],
        };
    };
    let Some(call) = first else {
        let why = match choice.stop {
            Stop::Refusal => "the model refused to answer",
            Stop::MaxTokens => "the answer was cut off at max_tokens before any call",
            _ => "the model called no tool",
        };
        return vec![format!("expected {expected}, but {why}")];
    };
    if choice.calls.len() > 1 && multiple == MultipleCalls::Miss {
        let names: Vec<&str> = choice.calls.iter().map(|c| c.tool.as_str()).collect();
        return vec![format!(
            "the model made {} calls ({}) and multiple_calls is `miss`",
            names.len(),
            names.join(", ")
        )];
    }
    if call.tool != expected {
        return vec![format!("expected {expected}, got {}", call.tool)];
    }
    if let Some(raw) = &call.malformed {
        // On one line: raw arguments often hold newlines (the report shows them exactly,
        // JSON-escaped, beside the tool's name).
        let flat = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        return vec![format!(
            "the arguments are not a JSON object: {}",
            crate::mcp::error::shorten(&flat, 120)
        )];
    }
    let mut failures = Vec::new();
    // An integer beyond 64 bits is compared as its nearest float, as the reference does.
    let approx = crate::pycompat::bigint::approx_value(&call.args);
    let args = approx.as_object();
    for (key, want) in label.args {
        match args.and_then(|a| a.get(key)) {
            None => failures.push(format!(
                "argument `{key}` missing (expected {})",
                show(want)
            )),
            Some(got) if !same(want, got) => failures.push(format!(
                "argument `{key}` is {}, expected {}",
                show(got),
                show(want)
            )),
            Some(_) => {}
        }
    }
    if let Some(schema) = tools
        .get(call.tool.as_str())
        .and_then(|t| t.input_schema.as_ref())
    {
        match schema::first_problem(schema, &approx) {
            Ok(None) => {}
            Ok(Some(problem)) => {
                failures.push(format!("arguments don't match the input schema: {problem}"));
            }
            Err(why) => notes.push(format!(
                "arguments not checked against the input schema of {}: {why}",
                call.tool
            )),
        }
    }
    if cut && failures.is_empty() {
        failures.push(format!("the call is right so far, but {CUT_OFF}"));
    }
    failures
}

/// Why a cut-off answer is not right, whatever it holds so far.
const CUT_OFF: &str =
    "the answer was cut off at max_tokens: what the model would have done is unknown";

/// Whether an expected argument value matches the one the model gave.
pub(crate) fn same(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::String(e), Value::String(a)) => casefold(strip(e)) == casefold(strip(a)),
        (Value::Bool(e), Value::Bool(a)) => e == a,
        (Value::Number(e), Value::Number(a)) => match (e.as_f64(), a.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => e == a,
        },
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|got| same(v, got))),
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(x, y)| same(x, y))
        }
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

/// JSON, shortened for a message.
fn show(v: &Value) -> String {
    crate::mcp::error::shorten(&v.to_string(), 80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evals::Call;
    use serde_json::json;

    fn tool() -> Tool {
        Tool::from_wire(json!({
            "name": "get_forecast",
            "description": "Forecast",
            "inputSchema": {"type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 7}},
                "required": ["city"]}
        }))
    }

    fn pick(tool: &str, args: Value) -> Choice {
        Choice {
            calls: vec![Call {
                tool: tool.into(),
                args,
                malformed: None,
            }],
            text: String::new(),
            stop: Stop::ToolUse,
        }
    }

    fn none(stop: Stop) -> Choice {
        Choice {
            calls: Vec::new(),
            text: "hi".into(),
            stop,
        }
    }

    fn check(expect: Option<&str>, args: Value, choice: &Choice) -> Vec<String> {
        let t = tool();
        let tools = HashMap::from([("get_forecast", &t)]);
        let args = args.as_object().cloned().unwrap_or_default();
        judge(
            Label {
                tool: expect,
                args: &args,
            },
            choice,
            &tools,
            MultipleCalls::First,
        )
        .failures
    }

    #[test]
    fn right_tool_and_matching_args_pass() {
        let c = pick("get_forecast", json!({"city": "  calgary ", "days": 5.0}));
        assert!(
            check(
                Some("get_forecast"),
                json!({"city": "Calgary", "days": 5}),
                &c
            )
            .is_empty()
        );
    }

    #[test]
    fn wrong_tool_missing_and_wrong_args_fail() {
        let c = pick("get_weather", json!({}));
        assert_eq!(
            check(Some("get_forecast"), json!({}), &c),
            ["expected get_forecast, got get_weather"]
        );
        let c = pick("get_forecast", json!({"city": "Paris", "days": 3}));
        assert_eq!(
            check(
                Some("get_forecast"),
                json!({"city": "Calgary", "units": "c"}),
                &c
            ),
            [
                "argument `city` is \"Paris\", expected \"Calgary\"",
                "argument `units` missing (expected \"c\")"
            ]
        );
    }

    #[test]
    fn schema_violations_are_reported_with_their_path() {
        let c = pick("get_forecast", json!({"city": "Oslo", "days": 9}));
        assert_eq!(
            check(Some("get_forecast"), json!({}), &c),
            ["arguments don't match the input schema: /days: 9 is greater than the maximum of 7"]
        );
    }

    #[test]
    fn no_tool_rows() {
        assert!(check(None, json!({}), &none(Stop::EndTurn)).is_empty());
        assert_eq!(
            check(None, json!({}), &pick("get_forecast", json!({}))),
            ["expected no tool call, got get_forecast"]
        );
        assert_eq!(
            check(Some("get_forecast"), json!({}), &none(Stop::Refusal)),
            ["expected get_forecast, but the model refused to answer"]
        );
    }

    #[test]
    fn a_cut_off_answer_is_never_right() {
        let cut = "the answer was cut off at max_tokens: what the model would have done is unknown";
        // A no-tool row: the text may have been a call being written out.
        let text = none(Stop::MaxTokens);
        assert_eq!(
            check(None, json!({}), &text),
            [format!("expected no tool call, but {cut}")]
        );
        assert!(check(None, json!({}), &none(Stop::EndTurn)).is_empty());
        // The right call with the right arguments so far.
        let mut call = pick("get_forecast", json!({"city": "Oslo"}));
        call.stop = Stop::MaxTokens;
        assert_eq!(
            check(Some("get_forecast"), json!({"city": "oslo"}), &call),
            [format!("the call is right so far, but {cut}")]
        );
        // Already wrong: said as it is.
        assert_eq!(
            check(Some("get_weather"), json!({}), &call),
            ["expected get_weather, got get_forecast"]
        );
        assert_eq!(
            check(Some("get_forecast"), json!({}), &none(Stop::MaxTokens)),
            ["expected get_forecast, but the answer was cut off at max_tokens before any call"]
        );
    }

    #[test]
    fn several_calls_score_the_first_or_miss() {
        let mut c = pick("get_forecast", json!({"city": "Oslo"}));
        c.calls.push(Call {
            tool: "get_weather".into(),
            args: json!({}),
            malformed: None,
        });
        assert!(check(Some("get_forecast"), json!({}), &c).is_empty());
        let t = tool();
        let tools = HashMap::from([("get_forecast", &t)]);
        let empty = Map::new();
        let label = Label {
            tool: Some("get_forecast"),
            args: &empty,
        };
        assert_eq!(
            judge(label, &c, &tools, MultipleCalls::Miss).failures,
            ["the model made 2 calls (get_forecast, get_weather) and multiple_calls is `miss`"]
        );
    }

    #[test]
    fn malformed_arguments_are_a_miss() {
        let c = Choice {
            calls: vec![Call {
                tool: "get_forecast".into(),
                args: json!({}),
                malformed: Some("{city: Oslo".into()),
            }],
            text: String::new(),
            stop: Stop::ToolUse,
        };
        assert_eq!(
            check(Some("get_forecast"), json!({}), &c),
            ["the arguments are not a JSON object: {city: Oslo"]
        );
        // On one line, whatever whitespace the raw text holds.
        let mut c = c;
        c.calls[0].malformed = Some("{\"city\":\r\n  \"Oslo\",\u{2028}\n".into());
        assert_eq!(
            check(Some("get_forecast"), json!({}), &c),
            ["the arguments are not a JSON object: {\"city\": \"Oslo\","]
        );
    }

    #[test]
    fn values_compare_by_json_value() {
        assert!(same(&json!(1), &json!(1.0)));
        assert!(!same(&json!(1), &json!(true)));
        assert!(!same(&json!("5"), &json!(5)));
        assert!(same(
            &json!({"a": [1, "X "]}),
            &json!({"a": [1.0, "x"], "b": 2})
        ));
        assert!(!same(&json!([1, 2]), &json!([1])));
        assert!(same(&json!("ÉCOLE"), &json!("école")));
    }

    /// Judges a `pick` of `code` with `args` against a tool whose `code` property has `pattern`.
    fn with_pattern(pattern: &str, code: &str) -> Judged {
        let t = Tool::from_wire(json!({
            "name": "lookup",
            "inputSchema": {"type": "object",
                "properties": {"code": {"type": "string", "pattern": pattern}}}
        }));
        let tools = HashMap::from([("lookup", &t)]);
        let empty = Map::new();
        let label = Label {
            tool: Some("lookup"),
            args: &empty,
        };
        judge(
            label,
            &pick("lookup", json!({ "code": code })),
            &tools,
            MultipleCalls::First,
        )
    }

    #[test]
    fn schema_patterns_have_python_meaning() {
        // Python's \d takes Arabic-Indic digits, ECMA's does not.
        assert_eq!(with_pattern(r"^\d+$", "٣٤٥"), Judged::default());
        // Python's $ matches before a final newline.
        assert_eq!(with_pattern(r"^\d+$", "12\n"), Judged::default());
        // A look-behind and a back-reference, which ECMA-in-Rust cannot compile.
        assert_eq!(with_pattern(r"(?<=#)\d", "#1"), Judged::default());
        assert_eq!(with_pattern(r"^(\w)\1$", "zz"), Judged::default());
        let bad = with_pattern(r"^(?P<c>\w)(?P=c)$", "zy");
        assert_eq!(bad.failures.len(), 1, "{bad:?}");
        assert!(bad.failures[0].contains("does not match"), "{bad:?}");
        assert!(bad.notes.is_empty());
    }

    #[test]
    fn a_schema_that_cannot_be_compiled_is_noted_not_passed_quietly() {
        let judged = with_pattern(r"^\N{DIGIT ONE}$", "1");
        assert!(judged.failures.is_empty(), "{judged:?}");
        assert_eq!(judged.notes.len(), 1, "{judged:?}");
        assert!(
            judged.notes[0]
                .starts_with("arguments not checked against the input schema of lookup:"),
            "{judged:?}"
        );
        assert!(judged.notes[0].contains("\\N{"), "{judged:?}");
    }

    #[test]
    fn strings_compare_with_python_casefold() {
        assert!(same(&json!("Straße"), &json!("STRASSE")));
        assert!(same(&json!("ΟΔΟΣ"), &json!("οδος")));
        assert!(same(&json!("\u{1c}Paris"), &json!("paris")));
        assert!(!same(&json!("Paris"), &json!("Pariss")));
    }
}
