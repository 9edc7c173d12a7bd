//! `annotations`: tool hints that are malformed or say opposite things.
//!
//! MCP hint defaults: `readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
//! `openWorldHint` true; the last three only mean something while `readOnlyHint` is false.
//!
//! - `readOnlyHint` and `destructiveHint` both true is a warning: one of them is wrong, and
//!   clients often run read-only tools without asking, so the wrong one may be `readOnlyHint`.
//!   Not an error: the specification defines the pair (`destructiveHint` is ignored while
//!   `readOnlyHint` is true), so a config that passed mcp-toolproof fails on it only under
//!   strict.
//! - `idempotentHint: false` on a read-only tool is a warning: a tool without side effects is
//!   idempotent, so the hint contradicts `readOnlyHint`. Hints that agree with it
//!   (`destructiveHint: false`, `idempotentHint: true`) are not flagged: spelling out all four is
//!   common practice (the reference `server-everything` does it on every read-only tool).
//! - annotations that are not an object, hints that are not booleans and a `title` that is not a
//!   string are warnings: clients ignore them, so the author's intent is lost.

use serde_json::Value;

use crate::mcp::types::Tool;
use crate::report::model::Severity;

use super::{ANNOTATIONS, Problem, Sink, kind};

/// The boolean hints MCP defines.
const HINTS: &[&str] = &[
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// Checks a tool's `annotations`, if it has any.
pub(super) fn check(tool: &Tool, shown: &str, out: &mut Sink) {
    let Some(annotations) = &tool.annotations else {
        return;
    };
    let Some(map) = annotations.as_object() else {
        if !annotations.is_null() {
            out.add(
                shown,
                ANNOTATIONS,
                Severity::Warning,
                format!(
                    "annotations is {}, not an object; clients ignore it",
                    kind(annotations)
                ),
            );
        }
        return;
    };

    let mut malformed = Vec::new();
    for hint in HINTS {
        match map.get(*hint) {
            None | Some(Value::Bool(_)) | Some(Value::Null) => {}
            Some(other) => malformed.push(format!("{hint} is {}", kind(other))),
        }
    }
    match map.get("title") {
        None | Some(Value::String(_)) | Some(Value::Null) => {}
        Some(other) => malformed.push(format!("title is {}", kind(other))),
    }
    if !malformed.is_empty() {
        out.add(
            shown,
            ANNOTATIONS,
            Severity::Warning,
            format!(
                "annotations: {}; hints must be booleans and title a string, \
                 clients ignore anything else",
                malformed.join(", ")
            ),
        );
    }

    let hint = |key: &str| map.get(key).and_then(Value::as_bool);
    if hint("readOnlyHint") != Some(true) {
        return;
    }
    if hint("destructiveHint") == Some(true) {
        out.add(
            shown,
            ANNOTATIONS,
            Severity::Warning,
            Problem::new(
                "readOnlyHint and destructiveHint are both true; clients may run a destructive \
                 tool without asking because it claims to be read-only",
                "keep readOnlyHint true only if the tool changes nothing, \
                 else set it false and keep destructiveHint",
            ),
        );
    }
    if hint("idempotentHint") == Some(false) {
        out.add(
            shown,
            ANNOTATIONS,
            Severity::Warning,
            Problem::new(
                "idempotentHint is false on a read-only tool; a tool that changes nothing is \
                 idempotent, and clients ignore idempotentHint while readOnlyHint is true",
                "drop idempotentHint, or set readOnlyHint false if the tool has side effects",
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{good, of};
    use super::*;
    use serde_json::json;

    fn with(annotations: Value) -> Vec<(Severity, String)> {
        let mut raw = good("t");
        raw["annotations"] = annotations;
        of(ANNOTATIONS, vec![raw])
            .into_iter()
            .map(|(_, s, m)| (s, m))
            .collect()
    }

    #[test]
    fn consistent_hints_pass() {
        for a in [
            json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}),
            json!({"readOnlyHint": true, "openWorldHint": false}),
            json!({"readOnlyHint": false, "idempotentHint": false, "destructiveHint": true}),
            json!({"title": "Weather"}),
            json!({}),
            Value::Null,
        ] {
            assert!(with(a.clone()).is_empty(), "{a}");
        }
    }

    #[test]
    fn read_only_and_destructive_is_a_warning_the_specification_allows() {
        let got = with(json!({"readOnlyHint": true, "destructiveHint": true}));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, Severity::Warning);
        assert!(
            got[0]
                .1
                .starts_with("readOnlyHint and destructiveHint are both true")
        );
    }

    #[test]
    fn not_idempotent_while_read_only_warns() {
        let got = with(json!({"readOnlyHint": true, "idempotentHint": false}));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, Severity::Warning);
        assert!(
            got[0]
                .1
                .starts_with("idempotentHint is false on a read-only tool")
        );
    }

    #[test]
    fn malformed_annotations_warn() {
        let got = with(json!(["readOnlyHint"]));
        assert_eq!(
            got,
            vec![(
                Severity::Warning,
                "annotations is an array, not an object; clients ignore it".to_owned()
            )]
        );
        let got = with(json!({"readOnlyHint": "true", "openWorldHint": 1, "title": false}));
        assert_eq!(got.len(), 1);
        assert!(
            got[0].1.starts_with(
                "annotations: readOnlyHint is a string, openWorldHint is a number, title is a boolean;"
            ),
            "{}",
            got[0].1
        );
    }

    #[test]
    fn a_string_read_only_hint_does_not_count_as_true() {
        let got = with(json!({"readOnlyHint": "true", "destructiveHint": true}));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, Severity::Warning);
    }
}
