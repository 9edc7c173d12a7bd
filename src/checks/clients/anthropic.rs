//! `client-anthropic`: what the Claude Messages API refuses in a tool's `input_schema` without
//! strict tool use, which every Claude client (Claude Code, Claude Desktop, the SDKs) sends.
//!
//! The documented rules are checked elsewhere, so they are not repeated here: `input_schema`
//! must be a JSON Schema with `type: object` at the root (Messages API reference, `tools`,
//! <https://docs.anthropic.com/en/api/messages>, read 2026-12-01), which the `input-schema`
//! check already requires; the tool name must match `^[a-zA-Z0-9_-]{1,64}$`, which
//! `name-clients` checks.
//!
//! - `root-combinator`: `oneOf`, `allOf` or `anyOf` at the root. Not documented (the tool-use
//!   pages say nothing of it, as marianfoo/mcp-sap-docs#51, 2026-05-21, notes), but the API
//!   answers "tools.N.custom.input_schema: input_schema does not support oneOf, allOf, or
//!   anyOf at the top level" (anthropics/claude-code#657, 2025-03-30; #5319, 2025-08-07;
//!   #40075, 2026-03-28; kenn-io/kata#365, 2026-09-14). The request fails as a whole, so one
//!   such tool breaks a Claude session for every tool of every server: the one rule on by
//!   default. Other keywords at the root (`not`, `if`/`then`/`else`) are accepted
//!   (kenn-io/kata#365 moved its rules there) and not flagged.

use serde_json::{Map, Value};

use super::{Hit, names, present};

/// Keywords the root may not have.
const NOT_AT_ROOT: &[&str] = &["oneOf", "allOf", "anyOf"];

/// Every place in `root` the Claude API refuses.
pub(super) fn rules(root: &Map<String, Value>) -> Vec<Hit> {
    let found = present(root, NOT_AT_ROOT);
    if found.is_empty() {
        return Vec::new();
    }
    vec![Hit::new(
        "root-combinator",
        "",
        format!("the root has {}", names(found, 3)),
        "keep the root a plain object: list every field under `properties`, leave the ones \
         that depend on each other out of `required` and check the combination in the tool, \
         or put the alternatives under one property",
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn root_combinator_is_refused_at_the_root_only() {
        let ok = json!({
            "type": "object",
            "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
            "not": {"required": ["a", "b"]},
            "if": {"required": ["a"]},
            "then": {"required": ["b"]}
        });
        assert_eq!(rules(ok.as_object().unwrap()), vec![]);

        let bad = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
            "allOf": [{"required": ["a"]}]
        });
        let hits = rules(bad.as_object().unwrap());
        assert_eq!(hits.len(), 1);
        assert_eq!(
            (hits[0].rule, hits[0].pointer.as_str()),
            ("root-combinator", "")
        );
        assert_eq!(hits[0].what, "the root has `allOf`, `anyOf`");
    }
}
