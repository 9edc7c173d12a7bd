//! The words a config may use that engines define: the static-check ids (with the one-line
//! summaries docs show) and JSONPath ([`jsonpath`]). The loader validates `checks.disable` and
//! `expect.jsonpath` against this module; `checks` and `suite` use the same list and parser, so
//! config imports no engine and there is one of each.

mod jsonpath;

pub use jsonpath::{PathError, Query, jsonpath, jsonpath_error};

/// Id of the check that flags a name used by more than one tool.
pub const DUPLICATE_NAME: &str = "duplicate-name";
/// Id of the check that flags a tool without a name.
pub const NAME: &str = "name";
/// Id of the check that flags names outside MCP's tool-name rule.
pub const NAME_FORMAT: &str = "name-format";
/// Id of the check that flags names model APIs or client prefixes reject.
pub const NAME_CLIENTS: &str = "name-clients";
/// Id of the check that flags a tool without a description.
pub const DESCRIPTION: &str = "description";
/// Id of the check that flags an overlong description.
pub const DESCRIPTION_LENGTH: &str = "description-length";
/// Id of the check that flags malformed or contradictory annotations.
pub const ANNOTATIONS: &str = "annotations";
/// Id of the check that flags an unusable input schema.
pub const INPUT_SCHEMA: &str = "input-schema";
/// Id of the check that compares `required` with `properties`.
pub const REQUIRED_FIELDS: &str = "required-fields";
/// Id of the check that flags an unusable output schema.
pub const OUTPUT_SCHEMA: &str = "output-schema";
/// Id of the check that flags pairs of tools a model will confuse.
pub const SIMILAR_TOOLS: &str = "similar-tools";
/// Id of the check that flags a tool list too large for a model's context.
pub const TOOL_LIST_SIZE: &str = "tool-list-size";
/// Id of the check that flags non-protocol output on the server's stdout.
pub const STDOUT_NOISE: &str = "stdout-noise";
/// Id of the check that flags responses bending JSON-RPC 2.0 or MCP.
pub const PROTOCOL: &str = "protocol";

/// One static check: its id and a one-line description (for docs and `--help`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckInfo {
    /// Stable id, as used in `checks.disable` and in findings.
    pub id: &'static str,
    /// What it looks for and how severe it is, one line.
    pub summary: &'static str,
}

/// Every check, in the order its findings appear.
pub const CHECKS: &[CheckInfo] = &[
    CheckInfo {
        id: DUPLICATE_NAME,
        summary: "error: two or more tools share a name",
    },
    CheckInfo {
        id: NAME,
        summary: "error: the tool's name is missing, empty or only whitespace",
    },
    CheckInfo {
        id: NAME_FORMAT,
        summary: "warning: the name is outside MCP's 1-128 characters of A-Z a-z 0-9 _ - .",
    },
    CheckInfo {
        id: NAME_CLIENTS,
        summary: "warning: model APIs reject the name (A-Z a-z 0-9 _ -, at most 64), \
                  also once a client prefixes it as `mcp__<server>__<tool>`",
    },
    CheckInfo {
        id: DESCRIPTION,
        summary: "error: the tool has no description",
    },
    CheckInfo {
        id: DESCRIPTION_LENGTH,
        summary: "warning: the description is longer than checks.max_description_length",
    },
    CheckInfo {
        id: ANNOTATIONS,
        summary: "warning: readOnlyHint and destructiveHint both true, annotations malformed, \
                  or a hint contradicts readOnlyHint",
    },
    CheckInfo {
        id: INPUT_SCHEMA,
        summary: "error: inputSchema missing, invalid for its JSON Schema dialect, \
                  not compilable, or not type object",
    },
    CheckInfo {
        id: REQUIRED_FIELDS,
        summary: "error: required names a field not in properties; \
                  warning: properties but nothing required",
    },
    CheckInfo {
        id: OUTPUT_SCHEMA,
        summary: "error: outputSchema invalid for its JSON Schema dialect, not compilable, \
                  or not type object",
    },
    CheckInfo {
        id: SIMILAR_TOOLS,
        summary: "warning: two tools' names and descriptions overlap at or above \
                  checks.similarity_threshold",
    },
    CheckInfo {
        id: TOOL_LIST_SIZE,
        summary: "warning: the tool list is estimated above checks.max_tool_list_tokens",
    },
    CheckInfo {
        id: STDOUT_NOISE,
        summary: "error: the server printed lines on stdout that are not JSON-RPC",
    },
    CheckInfo {
        id: PROTOCOL,
        summary: "warning: responses up to the checks lacked `\"jsonrpc\": \"2.0\"` or \
                  carried `result: null`, which strict clients refuse",
    },
];

/// Every check id, in the order its findings appear (validates `checks.disable`). Derived
/// from [`CHECKS`], so the two cannot drift apart.
pub const CHECK_IDS: &[&str] = &ids();

const fn ids() -> [&'static str; CHECKS.len()] {
    let mut out = [""; CHECKS.len()];
    let mut i = 0;
    while i < CHECKS.len() {
        out[i] = CHECKS[i].id;
        i += 1;
    }
    out
}

/// The one-line description of a check id, if the id exists.
pub fn describe(id: &str) -> Option<&'static str> {
    CHECKS.iter().find(|c| c.id == id).map(|c| c.summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_checks_in_order() {
        let ids: Vec<&str> = CHECKS.iter().map(|c| c.id).collect();
        assert_eq!(ids, CHECK_IDS);
        assert_eq!(CHECK_IDS.first(), Some(&DUPLICATE_NAME));
        assert_eq!(CHECK_IDS.last(), Some(&PROTOCOL));
        assert_eq!(describe("name-format"), Some(CHECKS[2].summary));
        assert_eq!(describe("nope"), None);
    }

    #[test]
    fn jsonpath_accepts_rfc_9535_and_names_the_problem_otherwise() {
        assert!(jsonpath("$.items[?@.price > 3].id").is_ok());
        assert_eq!(jsonpath_error("$.items[0]"), None);
        assert!(jsonpath_error("$.[").is_some());
        assert_eq!(jsonpath_error("result"), None);
    }
}
