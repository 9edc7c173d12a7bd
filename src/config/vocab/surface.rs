//! The rules that classify a difference between the server and `toolproof.lock`: one id, one
//! kind (`breaking`, `selection`, `compatible`), one line saying when it applies. The surface
//! engine applies them; `docs/surface.md` holds the same table, checked by a test; the SARIF
//! report names its rules after them.

/// One classification rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SurfaceRule {
    /// Stable id, in the JSON report's `rule` and the SARIF rule id (`surface-<id>`).
    pub id: &'static str,
    /// What the change is: `breaking`, `selection` or `compatible`.
    pub kind: &'static str,
    /// When it applies, one line.
    pub when: &'static str,
}

const fn rule(id: &'static str, kind: &'static str, when: &'static str) -> SurfaceRule {
    SurfaceRule { id, kind, when }
}

const BREAKING: &str = "breaking";
const SELECTION: &str = "selection";
const COMPATIBLE: &str = "compatible";

/// A tool the lock holds is gone.
pub(crate) const TOOL_REMOVED: &str = "tool-removed";
/// A tool is gone and a new one has its definition under another name.
pub(crate) const TOOL_RENAMED: &str = "tool-renamed";
/// A new required argument, or an argument that became required.
pub(crate) const REQUIRED_ARGUMENT: &str = "required-argument";
/// An argument (or a nested property) is gone.
pub(crate) const PROPERTY_REMOVED: &str = "property-removed";
/// A type or a bound narrowed.
pub(crate) const TYPE_NARROWED: &str = "type-narrowed";
/// An enum lost a value.
pub(crate) const ENUM_VALUE_REMOVED: &str = "enum-value-removed";
/// `readOnlyHint` true → false.
pub(crate) const READ_ONLY_DROPPED: &str = "read-only-dropped";
/// `destructiveHint` false → true.
pub(crate) const DESTRUCTIVE_ADDED: &str = "destructive-added";
/// A property of the output schema is gone, or the output schema is.
pub(crate) const OUTPUT_REMOVED: &str = "output-removed";
/// A prompt is gone.
pub(crate) const PROMPT_REMOVED: &str = "prompt-removed";
/// A prompt gained a required argument or lost one.
pub(crate) const PROMPT_ARGUMENTS: &str = "prompt-arguments";
/// A resource or resource template is gone.
pub(crate) const RESOURCE_REMOVED: &str = "resource-removed";
/// A resource's MIME type changed.
pub(crate) const MIME_TYPE_CHANGED: &str = "mime-type-changed";
/// A name changed (a prompt's or resource's; a tool's is a rename).
pub(crate) const NAME_CHANGED: &str = "name-changed";
/// A title changed.
pub(crate) const TITLE_CHANGED: &str = "title-changed";
/// A description changed.
pub(crate) const DESCRIPTION_CHANGED: &str = "description-changed";
/// A new tool, prompt, resource or template.
pub(crate) const ADDED: &str = "added";
/// A new optional argument (of a tool or a prompt).
pub(crate) const OPTIONAL_ARGUMENT: &str = "optional-argument";
/// A required argument became optional.
pub(crate) const ARGUMENT_OPTIONAL: &str = "argument-optional";
/// A type or a bound widened.
pub(crate) const TYPE_WIDENED: &str = "type-widened";
/// An enum gained a value.
pub(crate) const ENUM_VALUE_ADDED: &str = "enum-value-added";
/// Other annotation changes.
pub(crate) const ANNOTATIONS_CHANGED: &str = "annotations-changed";
/// Other schema changes.
pub(crate) const SCHEMA_CHANGED: &str = "schema-changed";

/// Every rule, breaking first, then selection-affecting, then compatible.
pub(crate) const RULES: &[SurfaceRule] = &[
    rule(
        TOOL_REMOVED,
        BREAKING,
        "a tool the lock holds is no longer listed",
    ),
    rule(
        TOOL_RENAMED,
        BREAKING,
        "a tool is gone and a new one has its schemas, annotations and description",
    ),
    rule(
        REQUIRED_ARGUMENT,
        BREAKING,
        "a new required argument, or an argument that became required",
    ),
    rule(
        PROPERTY_REMOVED,
        BREAKING,
        "an argument or a nested property of the input schema is gone",
    ),
    rule(
        TYPE_NARROWED,
        BREAKING,
        "an argument accepts less: a type dropped (`number` → `integer`), a bound tightened \
         (`maximum`, `maxLength`, `maxItems` lower, `minimum`, `minLength`, `minItems` higher)",
    ),
    rule(
        ENUM_VALUE_REMOVED,
        BREAKING,
        "an argument's `enum` lost a value",
    ),
    rule(
        READ_ONLY_DROPPED,
        BREAKING,
        "`readOnlyHint` went from true to false (or absent)",
    ),
    rule(
        DESTRUCTIVE_ADDED,
        BREAKING,
        "`destructiveHint` went from false to true (or absent)",
    ),
    rule(
        OUTPUT_REMOVED,
        BREAKING,
        "the output schema, or a property of it, is gone",
    ),
    rule(PROMPT_REMOVED, BREAKING, "a prompt the lock holds is gone"),
    rule(
        PROMPT_ARGUMENTS,
        BREAKING,
        "a prompt gained a required argument or lost an argument",
    ),
    rule(
        RESOURCE_REMOVED,
        BREAKING,
        "a resource or resource template the lock holds is gone",
    ),
    rule(
        MIME_TYPE_CHANGED,
        BREAKING,
        "a resource's or template's `mimeType` changed",
    ),
    rule(
        NAME_CHANGED,
        SELECTION,
        "a prompt's or resource's `name` changed",
    ),
    rule(
        TITLE_CHANGED,
        SELECTION,
        "a title changed (`title`, or a tool's `annotations.title`)",
    ),
    rule(DESCRIPTION_CHANGED, SELECTION, "a description changed"),
    rule(
        ADDED,
        COMPATIBLE,
        "a new tool, prompt, resource or resource template",
    ),
    rule(
        OPTIONAL_ARGUMENT,
        COMPATIBLE,
        "a new optional argument of a tool or a prompt",
    ),
    rule(
        ARGUMENT_OPTIONAL,
        COMPATIBLE,
        "a required argument became optional",
    ),
    rule(
        TYPE_WIDENED,
        COMPATIBLE,
        "an argument accepts more: a type added, a bound loosened or dropped",
    ),
    rule(
        ENUM_VALUE_ADDED,
        COMPATIBLE,
        "an argument's `enum` gained a value",
    ),
    rule(
        ANNOTATIONS_CHANGED,
        COMPATIBLE,
        "any other change of a tool's annotations",
    ),
    rule(
        SCHEMA_CHANGED,
        COMPATIBLE,
        "any other change of an input or output schema (an argument's description, a new \
         output property, a keyword the rules above do not read)",
    ),
];

/// The kind of a rule.
pub(crate) fn kind_of(id: &str) -> &'static str {
    RULES
        .iter()
        .find(|r| r.id == id)
        .map_or(COMPATIBLE, |r| r.kind)
}

/// The table's rows as `docs/surface.md` writes them.
#[cfg(test)]
pub(crate) fn table_rows() -> Vec<String> {
    RULES
        .iter()
        .map(|r| format!("| `{}` | {} | {} |", r.id, r.kind, r.when))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_has_the_rule_table_the_code_applies() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/surface.md"))
            .expect("docs/surface.md");
        let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with("| `")).collect();
        let want = table_rows();
        assert_eq!(
            rows,
            want.iter().map(String::as_str).collect::<Vec<_>>(),
            "docs/surface.md's rule table differs from surface::rules::RULES; paste:\n{}",
            want.join("\n")
        );
    }

    #[test]
    fn ids_are_unique_and_ordered_by_kind() {
        for (i, r) in RULES.iter().enumerate() {
            assert!(RULES[..i].iter().all(|o| o.id != r.id), "{} twice", r.id);
            let rank = |k: &str| {
                [BREAKING, SELECTION, COMPATIBLE]
                    .iter()
                    .position(|x| *x == k)
            };
            assert!(rank(r.kind).is_some(), "{}: kind {}", r.id, r.kind);
            if i > 0 {
                assert!(
                    rank(RULES[i - 1].kind) <= rank(r.kind),
                    "{} out of order",
                    r.id
                );
            }
        }
    }
}
