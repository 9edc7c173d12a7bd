//! `deprecated-tool`: a tool whose title or description says it is deprecated, still listed.
//! Models read the list, not changelogs: a deprecated tool keeps being picked (on the
//! filesystem reference server, a model asked to read a file picked `read_file`, "DEPRECATED:
//! Use read_text_file instead"). The finding quotes the text that says so and names the
//! replacement when the text names one.
//!
//! Only the tool itself being deprecated counts, not a tool about deprecated things ("Lists
//! deprecated API versions"): the word must be marked (`DEPRECATED:`, `(Deprecated)`,
//! `[deprecated]`), open the text (`Deprecated.`), have the tool as its subject ("This tool is
//! deprecated"), or point elsewhere ("deprecated in favor of x", "deprecated, use x").
//! A warning: calls still work, and a server may keep the tool for old clients on purpose.

use std::sync::LazyLock;

use regex::Regex;

use crate::mcp::types::Tool;
use crate::outcome::Severity;

use super::{DEPRECATED_TOOL, Problem, Sink, quote};

/// What marks the tool itself as deprecated.
static MARK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)[(\[]\s*deprecated\s*[)\]]",
        r"|\bdeprecated\s*:",
        r"|^\s*deprecated\s*(?:[.!:\-–—]|$)",
        r"|\b(?:this|the)\s+(?:tool|function|endpoint|command|method|operation)\s+(?:is|has\s+been|was)\s+(?:now\s+)?deprecated\b",
        r"|\bdeprecated\b[,;]?\s*(?:[-–—]\s*)?(?:in\s+favou?r\s+of|(?:please\s+)?use|replaced\s+by|superseded\s+by)\b",
    ))
    .expect("deprecation pattern")
});

/// What names the replacement: `use x instead`, `in favor of x`, `replaced by x`.
static REPLACEMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(?:\buse\s+(?:the\s+)?`?([A-Za-z0-9_.\-]{0,63}[A-Za-z0-9_])`?(?:\s+tool)?\s+instead\b",
        r"|\bin\s+favou?r\s+of\s+(?:the\s+)?`?([A-Za-z0-9_.\-]{0,63}[A-Za-z0-9_])`?",
        r"|\b(?:replaced|superseded)\s+by\s+(?:the\s+)?`?([A-Za-z0-9_.\-]{0,63}[A-Za-z0-9_])`?",
        r"|\bdeprecated\b[,;:]?\s*(?:[-–—]\s*)?(?:please\s+)?use\s+(?:the\s+)?`?([A-Za-z0-9_.\-]{0,63}[A-Za-z0-9_])`?)",
    ))
    .expect("replacement pattern")
});

/// Flags `tool` when its title (its own or the annotations') or description marks it
/// deprecated; `names` are the names of every tool listed.
pub(super) fn check(tool: &Tool, shown: &str, names: &[&str], out: &mut Sink) {
    let annotation_title = tool
        .annotations
        .as_ref()
        .and_then(|a| a.get("title"))
        .and_then(|t| t.as_str());
    let texts = [
        ("title", tool.title.as_deref()),
        ("title", annotation_title),
        ("description", tool.description.as_deref()),
    ];
    let Some((field, text)) = texts
        .iter()
        .find_map(|(field, text)| text.filter(|t| MARK.is_match(t)).map(|t| (*field, t)))
    else {
        return;
    };
    let replacement = texts.iter().filter_map(|(_, t)| *t).find_map(|t| {
        REPLACEMENT
            .captures_iter(t)
            .filter_map(|c| c.iter().skip(1).flatten().next())
            .map(|m| m.as_str())
            .find(|name| *name != tool.name && !is_word(name))
    });
    let said = quote(&sentence_of(text), 120);
    let (message, hint) = match replacement {
        Some(name) if names.contains(&name) => (
            format!(
                "tool is deprecated but still listed ({field}: {said}); models still pick it \
                 over `{name}`, which replaces it"
            ),
            format!("stop listing it once clients have moved to `{name}`"),
        ),
        Some(name) => (
            format!(
                "tool is deprecated but still listed ({field}: {said}); its replacement \
                 `{name}` is not in the tool list"
            ),
            format!("list `{name}`, or name the tool that replaces it"),
        ),
        None => (
            format!(
                "tool is deprecated but still listed ({field}: {said}); models still pick it, \
                 and nothing says what replaces it"
            ),
            "stop listing it, or say in its description which tool to use instead".to_owned(),
        ),
    };
    out.add(
        shown,
        DEPRECATED_TOOL,
        Severity::Warning,
        Problem::new(message, hint),
    );
}

/// An English word a phrase like "use it instead" names, which is no tool.
fn is_word(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "it" | "this"
            | "that"
            | "these"
            | "those"
            | "them"
            | "another"
            | "other"
            | "a"
            | "an"
            | "one"
            | "something"
            | "new"
            | "newer"
            | "latest"
    )
}

/// The sentence of `text` that marks the deprecation (the whole text when short).
fn sentence_of(text: &str) -> String {
    if text.chars().count() <= 120 {
        return text.trim().to_owned();
    }
    let Some(m) = MARK.find(text) else {
        return text.trim().to_owned();
    };
    let start = text[..m.start()].rfind(['.', '\n']).map_or(0, |i| i + 1);
    text[start..].trim().to_owned()
}

#[cfg(test)]
mod tests;
