//! The set lint's rules: their ids (validated in `evals.lint.disable`) and what each flags,
//! with its severity, for the README table and the reports.

/// `expect_tool` names no tool of the server.
pub(crate) const UNKNOWN_TOOL: &str = "unknown-tool";
/// Two or more cases share a name.
pub(crate) const DUPLICATE_CASE_NAME: &str = "duplicate-case-name";
/// The same prompt is labelled two ways.
pub(crate) const CONFLICTING_LABELS: &str = "conflicting-labels";
/// An `expect_args` key the input schema does not list.
pub(crate) const UNKNOWN_ARG: &str = "unknown-arg";
/// An `expect_args` value the property's schema rejects.
pub(crate) const INVALID_ARG: &str = "invalid-arg";
/// `expect_args` on a case that expects no tool.
pub(crate) const ARGS_ON_NO_TOOL: &str = "args-on-no-tool";
/// A tool no case expects.
pub(crate) const UNCOVERED_TOOL: &str = "uncovered-tool";
/// A tool whose every case quotes its name or copies its description.
pub(crate) const QUOTED_ONLY: &str = "quoted-only";
/// A pair of tools a model may confuse without a genuine case on both sides.
pub(crate) const NO_CONTRAST: &str = "no-contrast";
/// No case expects no tool.
pub(crate) const NO_NO_TOOL_CASES: &str = "no-no-tool-cases";
/// No ambiguous no-tool case.
pub(crate) const NO_AMBIGUOUS_CASES: &str = "no-ambiguous-cases";
/// A case without `why`.
pub(crate) const MISSING_WHY: &str = "missing-why";
/// A critical case right on some trials and wrong on others.
pub(crate) const FLIPPED_CRITICAL: &str = "flipped-critical";
/// A case `tool_choice` keeps from passing.
pub(crate) const TOOL_CHOICE_CONFLICT: &str = "tool-choice-conflict";
/// `tool_choice` names a tool the server does not list.
pub(crate) const UNKNOWN_TOOL_CHOICE: &str = "unknown-tool-choice";
/// An earlier call in a case's `context` names a tool the server does not list.
pub(crate) const UNKNOWN_CONTEXT_TOOL: &str = "unknown-context-tool";
/// An ambiguous case whose `context` already settles what its prompt leaves open.
pub(crate) const CONTEXT_RESOLVES_AMBIGUOUS: &str = "context-resolves-ambiguous";
/// A row `toolproof rows` proposed that no one has reviewed yet.
pub(crate) const UNREVIEWED_ROW: &str = "unreviewed-row";

/// One lint rule: its id and what it flags, starting with its severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LintRuleInfo {
    /// Stable id, as used in `evals.lint.disable` and in findings.
    pub id: &'static str,
    /// `error: …`, `warning: …` or `info …: …`: what it flags, one line.
    pub summary: &'static str,
}

/// Every lint rule, in the order its findings appear.
pub const LINT_RULES: &[LintRuleInfo] = &[
    LintRuleInfo {
        id: UNKNOWN_TOOL,
        summary: "error: `expect_tool` names no tool of the server (with the nearest name, and \
                  \"renamed or split?\" when the last run in the history file listed it)",
    },
    LintRuleInfo {
        id: DUPLICATE_CASE_NAME,
        summary: "warning: two or more cases share a `name` (reports, JUnit and the history \
                  tell cases apart by name)",
    },
    LintRuleInfo {
        id: CONFLICTING_LABELS,
        summary: "error: the same prompt (ignoring case and spacing) after the same `context` \
                  expects different tools, or different values for one argument",
    },
    LintRuleInfo {
        id: UNKNOWN_ARG,
        summary: "error: an `expect_args` key the tool's input schema forbids (not in \
                  `properties` under `additionalProperties: false`); warning: a key it only \
                  does not list",
    },
    LintRuleInfo {
        id: INVALID_ARG,
        summary: "error: an `expect_args` value that the property's schema rejects, so no \
                  valid answer can match it",
    },
    LintRuleInfo {
        id: ARGS_ON_NO_TOOL,
        summary: "warning: `expect_args` on a case with `expect_tool: null`, where they are \
                  never checked",
    },
    LintRuleInfo {
        id: UNCOVERED_TOOL,
        summary: "warning: a tool no case expects",
    },
    LintRuleInfo {
        id: QUOTED_ONLY,
        summary: "warning: every case expecting the tool quotes its name or copies its \
                  description, which proves little about selection",
    },
    LintRuleInfo {
        id: NO_CONTRAST,
        summary: "warning: a pair of tools that `similar-tools` flags, or that the model \
                  confused in the last run of the history file, lacks a genuine case for one \
                  side or both",
    },
    LintRuleInfo {
        id: NO_NO_TOOL_CASES,
        summary: "warning: no case expects no tool, so nothing catches a tool-happy model",
    },
    LintRuleInfo {
        id: NO_AMBIGUOUS_CASES,
        summary: "info (warning with strict): no ambiguous case (a no-tool case whose `why` \
                  starts with \"ambiguous\")",
    },
    LintRuleInfo {
        id: MISSING_WHY,
        summary: "info (warning with strict): a case without `why`",
    },
    LintRuleInfo {
        id: FLIPPED_CRITICAL,
        summary: "warning: a `critical` case was right on some trials and wrong on others: \
                  it belongs in the ambiguous set, not the exact set",
    },
    LintRuleInfo {
        id: TOOL_CHOICE_CONFLICT,
        summary: "error: `tool_choice` (or `params.tool_choice`) keeps a case from passing: \
                  a forced call with a no-tool case, `none` with a case expecting a tool, a \
                  named tool with a case expecting another",
    },
    LintRuleInfo {
        id: UNKNOWN_TOOL_CHOICE,
        summary: "error: `tool_choice: {tool: NAME}` names no tool of the server",
    },
    LintRuleInfo {
        id: UNKNOWN_CONTEXT_TOOL,
        summary: "error: an earlier call in a case's `context` names no tool of the server, \
                  so the conversation is not one the model could have had",
    },
    LintRuleInfo {
        id: CONTEXT_RESOLVES_AMBIGUOUS,
        summary: "warning: an ambiguous case (no tool, `why` starting with \"ambiguous\") whose \
                  `context` holds an earlier call with arguments: the conversation already \
                  names what the prompt leaves open",
    },
    LintRuleInfo {
        id: UNREVIEWED_ROW,
        summary: "warning: a row with `reviewed: false` (proposed by `toolproof rows` from \
                  traffic or a model) that no one has read yet; strict fails on it",
    },
];

/// Every lint rule id, in order (validates `evals.lint.disable`).
pub(crate) const LINT_RULE_IDS: &[&str] = &lint_ids();

const fn lint_ids() -> [&'static str; LINT_RULES.len()] {
    let mut out = [""; LINT_RULES.len()];
    let mut i = 0;
    while i < LINT_RULES.len() {
        out[i] = LINT_RULES[i].id;
        i += 1;
    }
    out
}
