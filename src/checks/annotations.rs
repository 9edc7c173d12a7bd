//! `annotations`: tool hints that are malformed or say opposite things.
//!
//! MCP hint defaults (schema.ts, `ToolAnnotations`): `readOnlyHint` false, `destructiveHint`
//! true, `idempotentHint` false, `openWorldHint` true; `destructiveHint` and `idempotentHint`
//! are "meaningful only when `readOnlyHint == false`".
//!
//! - `readOnlyHint` and `destructiveHint` both true is a warning: the author wrote both, so one
//!   of them is wrong, and clients often run read-only tools without asking, so the wrong one
//!   may be `readOnlyHint`. Not an error: the specification defines the pair (`destructiveHint`
//!   is ignored while `readOnlyHint` is true), so a config that passed mcp-toolproof fails on it
//!   only under strict.
//! - `idempotentHint` is not looked at on a read-only tool: it is meaningful only while
//!   `readOnlyHint` is false, and `false` is its default, so an explicit `false` says what
//!   leaving it out says. SDKs that write every hint send it on every read-only tool (one
//!   Kubernetes server does on 12 tools); a finding there would name nothing to change.
//!   Hints that agree with `readOnlyHint` (`destructiveHint: false`) are not flagged either:
//!   spelling out all four is common practice (the reference `server-everything` does it).
//! - annotations that are not an object, hints that are not booleans and a `title` that is not a
//!   string are warnings: clients ignore them, so the author's intent is lost.
//! - `annotations-missing` (an info): no annotations, or none of the four hints (a `title`
//!   alone says nothing of what the tool does). Clients then take MCP's defaults, destructive
//!   and open-world, for a tool that may only read, and `toolproof fuzz` leaves it out. An
//!   info, not a warning: hints are optional in MCP and the tool works without them.

use serde_json::Value;

use crate::mcp::types::Tool;
use crate::outcome::Severity;

use super::{ANNOTATIONS, ANNOTATIONS_MISSING, Problem, Sink, kind};

/// The boolean hints MCP defines.
const HINTS: &[&str] = &[
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// Checks a tool's `annotations`, if it has any.
pub(super) fn check(tool: &Tool, shown: &str, out: &mut Sink) {
    missing(tool, shown, out);
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
}

/// `annotations-missing`: no hint at all (annotations absent, null, or an object without any of
/// the four hints).
fn missing(tool: &Tool, shown: &str, out: &mut Sink) {
    let what = match &tool.annotations {
        None | Some(Value::Null) => "tool has no annotations",
        Some(Value::Object(map)) if !HINTS.iter().any(|h| map.contains_key(*h)) => {
            "tool's annotations hold none of the four hints"
        }
        Some(_) => return,
    };
    out.add(
        shown,
        ANNOTATIONS_MISSING,
        Severity::Info,
        Problem::new(
            format!(
                "{what}: clients take MCP's defaults (not read-only, destructive, open-world) \
                 even if it only reads, and `toolproof fuzz` leaves it out unless told to \
                 include it"
            ),
            "add annotations: `readOnlyHint: true` if the tool changes nothing, else \
             `destructiveHint` (and `idempotentHint`), and `openWorldHint`",
        ),
    );
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
    fn idempotent_false_is_the_default_and_means_nothing_on_a_read_only_tool() {
        // What one Kubernetes server sends on every read-only tool: not a finding.
        let sent = json!({"readOnlyHint": true, "destructiveHint": false,
                          "idempotentHint": false, "openWorldHint": true});
        assert!(with(sent).is_empty());
        // A read-only tool that claims to be destructive still is.
        let got =
            with(json!({"readOnlyHint": true, "idempotentHint": false, "destructiveHint": true}));
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            got[0]
                .1
                .starts_with("readOnlyHint and destructiveHint are both true")
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

    #[test]
    fn a_tool_without_hints_is_an_info_that_never_fails() {
        for (annotations, what) in [
            (None, "tool has no annotations:"),
            (Some(Value::Null), "tool has no annotations:"),
            (
                Some(json!({"title": "Read"})),
                "tool's annotations hold none of the four hints:",
            ),
        ] {
            let mut raw = good("t");
            match annotations {
                Some(a) => raw["annotations"] = a,
                None => {
                    raw.as_object_mut().map(|m| m.remove("annotations"));
                }
            }
            let got = of(ANNOTATIONS_MISSING, vec![raw]);
            assert_eq!(got.len(), 1, "{what}");
            assert_eq!(got[0].1, Severity::Info);
            assert!(got[0].2.starts_with(what), "{}", got[0].2);
            assert!(got[0].2.contains("`toolproof fuzz` leaves it out"));
        }
        for a in [json!({"openWorldHint": false}), json!(["x"])] {
            let mut raw = good("t");
            raw["annotations"] = a.clone();
            assert!(of(ANNOTATIONS_MISSING, vec![raw]).is_empty(), "{a}");
        }
    }
}
