//! `unknown-context-tool`, `context-resolves-ambiguous`, and `conflicting-labels` with context.

use super::*;
use crate::config::ContextTurn;

fn turn(user: Option<&str>, call: Option<(&str, Value)>) -> ContextTurn {
    ContextTurn {
        user: user.map(str::to_owned),
        assistant: None,
        call: call.as_ref().map(|(t, _)| (*t).to_owned()),
        args: call.and_then(|(_, a)| a.as_object().cloned()),
        result: Some(json!("ok")).filter(|_| user.is_none()),
    }
}

fn with_context(mut c: EvalCase, context: Vec<ContextTurn>) -> EvalCase {
    c.context = context;
    c
}

fn ids(r: &LintResults) -> Vec<&str> {
    r.findings.iter().map(|f| f.id.as_str()).collect()
}

#[test]
fn a_context_call_of_a_tool_the_server_lacks_is_an_error_with_the_nearest_name() {
    let mut cases = clean();
    cases.push(with_context(
        case(
            "refund-after",
            "do that",
            Some("start_refund"),
            "follow-up",
            30,
        ),
        vec![
            turn(Some("order 55219 broke"), None),
            turn(None, Some(("get_wether", json!({"city": "x"})))),
        ],
    ));
    let r = Fixture::of(cases).run();
    assert_eq!(ids(&r), [UNKNOWN_CONTEXT_TOOL], "{:#?}", r.findings);
    let f = &r.findings[0];
    assert_eq!(f.severity, Severity::Error);
    assert!(f.fails);
    assert!(
        f.message.contains("context[1] calls `get_wether`"),
        "{}",
        f.message
    );
    assert!(f.message.contains("(toolproof.yaml:30)"), "{}", f.message);
    assert!(
        f.hint
            .as_deref()
            .is_some_and(|h| h.starts_with("did you mean `get_weather`?")),
        "{:?}",
        f.hint
    );
    assert_eq!(f.tool.as_deref(), Some("get_wether"));
}

#[test]
fn an_ambiguous_case_whose_context_made_a_call_with_arguments_is_flagged() {
    let mut cases = clean();
    // Resolved: the conversation looked the order up.
    cases.push(with_context(
        case(
            "amb-after-lookup",
            "cancel it",
            None,
            "ambiguous: which one?",
            30,
        ),
        vec![turn(None, Some(("start_refund", json!({"order": 55219}))))],
    ));
    // Not flagged: messages only, a call without arguments, a no-tool case not labelled
    // ambiguous.
    cases.push(with_context(
        case(
            "amb-after-talk",
            "cancel it",
            None,
            "ambiguous: talk only",
            34,
        ),
        vec![turn(Some("my order 55219"), None)],
    ));
    cases.push(with_context(
        case(
            "amb-after-bare-call",
            "cancel it",
            None,
            "ambiguous: bare",
            38,
        ),
        vec![turn(None, Some(("start_refund", json!({}))))],
    ));
    cases.push(with_context(
        case("no-tool-after-lookup", "thanks", None, "no tool", 42),
        vec![turn(None, Some(("start_refund", json!({"order": 1}))))],
    ));
    let r = Fixture::of(cases).run();
    assert_eq!(ids(&r), [CONTEXT_RESOLVES_AMBIGUOUS], "{:#?}", r.findings);
    let f = &r.findings[0];
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(f.case.as_deref(), Some("amb-after-lookup"));
    assert!(
        f.message.contains(r#"`start_refund` with {"order":55219}"#),
        "{}",
        f.message
    );
}

#[test]
fn the_same_prompt_after_another_conversation_is_not_a_conflicting_label() {
    let mut cases = clean();
    // clean() has "cancel it" as an ambiguous no-tool case; after a refund was asked for, it
    // expects the refund tool.
    cases.push(with_context(
        case(
            "cancel-after",
            "Cancel it",
            Some("start_refund"),
            "follow-up",
            30,
        ),
        vec![turn(Some("refund order 55219"), None)],
    ));
    let r = Fixture::of(cases.clone()).run();
    assert!(!ids(&r).contains(&CONFLICTING_LABELS), "{:#?}", r.findings);
    // Without its context it conflicts, as before.
    if let Some(c) = cases.last_mut() {
        c.context.clear();
    }
    let r = Fixture::of(cases).run();
    assert!(ids(&r).contains(&CONFLICTING_LABELS), "{:#?}", r.findings);
}
