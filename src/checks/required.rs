//! `required-fields`: names in `required` that the schema does not declare (error), and an
//! input schema that marks nothing required although some argument looks needed (warning).
//!
//! The warning (mcp-toolproof's "properties but none are marked required") guesses that the
//! author forgot `required`. On real servers that guess was mostly wrong, so it is made only
//! when nothing in the schema shows that the author decided:
//! - `required` in a root `allOf`/`anyOf`/`oneOf` branch or `then`/`else`, or `minProperties`
//!   of 1 or more, already says what a call needs;
//! - every property is evidently optional ([`optional`]): it has a `default` (JSON Schema's
//!   meta-data keyword for the value an absent instance stands for), accepts `null`, its
//!   description says what happens without it or ties it to one mode of the tool, or it
//!   filters, sorts, pages or limits what comes back;
//! - a mode selector with a default (`mode`, `operation`, `action`…) picks what a call does:
//!   an argument only one mode needs cannot be in `required`, which holds for every call;
//! - the tool lists or snapshots (`list`, `ls`, `snapshot`, `log`, `history` in its name): its
//!   arguments narrow what comes back, and a call without any returns everything.
//!
//! When descriptions offer arguments as alternatives ("use either manifest or filename",
//! "provide either text or regex", "use `commitish` … instead"), the gap is real but `required`
//! cannot close it, since each alternative is optional on its own: the finding names them and
//! suggests an `anyOf` of `required` lists. That test comes first, as such arguments are often
//! described as optional too.

use serde_json::{Map, Value};

use crate::mcp::pointer::unescape;
use crate::mcp::types::Tool;
use crate::outcome::Severity;

use super::similarity::split;
use super::{Problem, REQUIRED_FIELDS, Sink, quote};

/// Checks `required` against the declared properties, then whether nothing required is a gap.
pub(super) fn check(schema: &Map<String, Value>, tool: &Tool, shown: &str, out: &mut Sink) {
    let required = names(schema.get("required"));
    let declared = declared_properties(schema);
    let missing: Vec<String> = required
        .iter()
        .filter(|name| !declared.contains(name))
        .map(|name| quote(name, 60))
        .collect();
    if !missing.is_empty() {
        out.add(
            shown,
            REQUIRED_FIELDS,
            Severity::Error,
            Problem::new(
                format!(
                    "required fields not listed in properties: {}; a model cannot know their \
                     type or meaning",
                    missing.join(", ")
                ),
                "add them to properties or remove them from required",
            ),
        );
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(properties) = properties.filter(|p| !p.is_empty())
        && required.is_empty()
        && let Some(problem) = nothing_required(schema, properties, tool)
    {
        out.add(shown, REQUIRED_FIELDS, Severity::Warning, problem);
    }
}

/// The warning for a schema with properties and an empty root `required`, if it is one.
fn nothing_required(
    schema: &Map<String, Value>,
    properties: &Map<String, Value>,
    tool: &Tool,
) -> Option<Problem> {
    if states_what_is_needed(schema) {
        return None;
    }
    let groups = alternatives(properties, tool.description.as_deref().unwrap_or(""));
    if !groups.is_empty() {
        return Some(one_of(&groups, properties));
    }
    if lists(&tool.name)
        || has_mode_selector(properties)
        || properties.iter().all(|(name, p)| optional(name, p))
    {
        return None;
    }
    Some(Problem::new(
        "input schema has properties but none are marked required",
        "list the arguments the tool cannot do without in required (or, when it needs one of \
         several, an anyOf of required lists); if every argument is optional, give each a \
         default or say \"optional\" in its description",
    ))
}

/// The finding for arguments the descriptions offer as alternatives. JSON Schema says "one of
/// these is needed" with an `anyOf` of `required` lists; the hint also says where else to put
/// it, since the Anthropic Messages API refuses such a schema ("input_schema does not support
/// oneOf, allOf, or anyOf at the top level") and clients that pass schemas through fail.
///
/// The `anyOf` it suggests must accept every call the schema and descriptions allow now: the
/// descriptions name one way to call the tool, not every way (kubectl_delete offers `manifest`
/// or `filename`, and deletes by `resourceType` and `name` too). So every other argument
/// without a `default` gets a branch of its own after the alternatives, and the hint says to
/// drop the branches of those that cannot make a call alone.
fn one_of(groups: &[Vec<&str>], properties: &Map<String, Value>) -> Problem {
    let offered: Vec<String> = groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|n| quote(n, 60))
                .collect::<Vec<_>>()
                .join(" or ")
        })
        .collect();
    let others: Vec<&str> = properties
        .iter()
        .filter(|(name, p)| p.get("default").is_none() && !groups[0].contains(&name.as_str()))
        .map(|(name, _)| name.as_str())
        .collect();
    let hint = if others.is_empty() {
        let any_of: Vec<String> = groups[0]
            .iter()
            .map(|n| format!("{{\"required\": [{}]}}", Value::from(*n)))
            .collect();
        format!(
            "state it as \"anyOf\": [{}], or, for clients that pass schemas to the Anthropic \
             API (which refuses anyOf at the root), in the tool description",
            any_of.join(", ")
        )
    } else {
        let names: Vec<String> = groups[0]
            .iter()
            .chain(&others)
            .map(|n| Value::from(*n).to_string())
            .collect();
        format!(
            "state what a call needs as \"anyOf\" with a {{\"required\": [name]}} branch for \
             each of {} (the alternatives, then every other argument without a default, so \
             that no call the tool takes now is refused; drop those that cannot make a call \
             alone), or in the tool description for clients that pass schemas to the Anthropic \
             API (which refuses anyOf at the root)",
            names.join(", ")
        )
    };
    Problem::new(
        format!(
            "input schema marks nothing required, but its descriptions offer {} as \
             alternatives; a model may send none of them",
            offered.join(", and ")
        ),
        hint,
    )
}

/// Whether the schema says what a call needs other than in the root `required`.
fn states_what_is_needed(schema: &Map<String, Value>) -> bool {
    let requires = |v: &Value| !names(v.get("required")).is_empty();
    let in_branches = ["allOf", "anyOf", "oneOf"].iter().any(|key| {
        schema
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(requires))
    });
    let in_conditional = ["then", "else"]
        .iter()
        .any(|key| schema.get(*key).is_some_and(requires));
    let at_least_one = schema
        .get("minProperties")
        .and_then(Value::as_f64)
        .is_some_and(|n| n >= 1.0);
    in_branches || in_conditional || at_least_one
}

/// Words in a property's description that say it may be left out (`optional`, `default: 3`,
/// `if omitted`, `unless`…).
const OPTIONAL_PHRASES: &[&str] = &[
    "optional",
    "default",
    "omit",
    "unless",
    "leave empty",
    "leave blank",
    "if empty",
    "if absent",
    "if missing",
    "if unset",
];

/// Phrases that tie an argument to a case of the call (`(for manual resize)`, `only applies when
/// …`, `required for start mode`): needed in that case only, so not in `required`.
const CONDITIONAL_PHRASES: &[&str] = &[
    "(if ",
    "(for ",
    "(only ",
    "(when ",
    "only applies",
    "only applicable",
    "only used",
    "only needed",
    "required for",
    "required when",
    "required if",
    "needed for",
    "needed when",
    "when using",
];

/// Phrases of an argument that narrows a result (`only show namespaced resources`, `maximum
/// number of logs to return`): without it the result is not narrowed.
const NARROWING_PHRASES: &[&str] = &[
    "only show",
    "only return",
    "only include",
    "maximum number",
    "max number",
    "cap the number",
];

/// Description words of an argument that narrows or pages a result.
const NARROWING_WORDS: &[&str] = &[
    "filter",
    "filters",
    "filtering",
    "limit",
    "limits",
    "pagination",
    "paginate",
    "paging",
];

/// Description words of an argument that belongs to one mode or operation of the tool
/// (`Branch name for create/delete/rename operations`).
const MODE_WORDS: &[&str] = &["operation", "operations", "mode", "modes"];

/// Argument names (lowercase, without `_`/`-`) that filter, sort, page or limit a result; each has
/// an obvious meaning when left out (everything, in the default order, from the start).
const NARROWING_NAMES: &[&str] = &[
    "limit", "offset", "cursor", "page", "pagesize", "perpage", "skip", "sort", "sortby", "order",
    "orderby", "filter", "filters", "since", "until", "depth", "top",
];

/// Whether an argument is evidently optional (see the module documentation). `default` is
/// JSON Schema 2020-12's meta-data keyword (Validation, section 9.2) for the value an absent
/// instance stands for; MCP passes input schemas to models as they are, so what a description
/// says is what the model reads.
fn optional(name: &str, property: &Value) -> bool {
    let Some(p) = property.as_object() else {
        return false;
    };
    if p.contains_key("default") || accepts_null(p) {
        return true;
    }
    let key = normalized(name);
    if NARROWING_NAMES.contains(&key.as_str()) || key.starts_with("max") {
        return true;
    }
    let text = description(property).to_lowercase();
    OPTIONAL_PHRASES
        .iter()
        .chain(CONDITIONAL_PHRASES)
        .chain(NARROWING_PHRASES)
        .any(|phrase| text.contains(phrase))
        || words(&text).any(|w| NARROWING_WORDS.contains(&w) || MODE_WORDS.contains(&w))
        || sentences(&text).any(says_what_happens_without)
}

/// `If not given, …`, `when no namespace is set …`: the sentence describes the call without it.
fn says_what_happens_without(sentence: &str) -> bool {
    let mut seen_condition = false;
    for word in words(sentence) {
        match word {
            "if" | "when" => seen_condition = true,
            "not" | "no" if seen_condition => return true,
            _ => {}
        }
    }
    false
}

/// Whether a property schema accepts `null` (`type: [..., "null"]`, a `null` branch, OpenAPI's
/// `nullable`): no value is then a valid answer, which is what leaving it out says.
fn accepts_null(p: &Map<String, Value>) -> bool {
    let is_null_type = |t: Option<&Value>| match t {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    is_null_type(p.get("type"))
        || p.get("nullable") == Some(&Value::Bool(true))
        || ["anyOf", "oneOf"].iter().any(|key| {
            p.get(*key)
                .and_then(Value::as_array)
                .is_some_and(|bs| bs.iter().any(|b| is_null_type(b.get("type"))))
        })
}

/// Names of a selector argument that picks what a call does.
const MODE_NAMES: &[&str] = &["mode", "operation", "action", "op", "command", "subcommand"];

/// Whether a mode selector with a default decides what a call without arguments does.
fn has_mode_selector(properties: &Map<String, Value>) -> bool {
    properties.iter().any(|(name, p)| {
        MODE_NAMES.contains(&normalized(name).as_str()) && p.get("default").is_some()
    })
}

/// Name words of a tool that lists or snapshots.
const LISTING_WORDS: &[&str] = &["list", "ls", "snapshot", "log", "logs", "history"];

/// Whether the tool's name says it lists or snapshots something.
fn lists(name: &str) -> bool {
    split(name)
        .iter()
        .any(|w| LISTING_WORDS.contains(&w.to_lowercase().as_str()))
}

/// Words that offer an alternative in a sentence naming two arguments.
const ALTERNATIVE_WORDS: &[&str] = &["either", "instead", "both", "alternatively"];
/// Phrases that do the same.
const ALTERNATIVE_PHRASES: &[&str] = &["rather than", "one of", "in place of"];

/// Groups of arguments the descriptions (each property's and the tool's) offer as alternatives:
/// a sentence with an alternative word naming two arguments, or one argument in another's
/// description. Arguments with a default are never missing, and an argument tied to an
/// operation or mode is needed there only, so neither counts. In property order.
fn alternatives<'p>(properties: &'p Map<String, Value>, tool: &str) -> Vec<Vec<&'p str>> {
    let candidates: Vec<&str> = properties
        .iter()
        .filter(|(_, p)| p.get("default").is_none() && !tied_to_a_mode(p))
        .map(|(name, _)| name.as_str())
        .collect();
    let texts = properties
        .iter()
        .map(|(name, p)| (Some(name.as_str()), description(p)))
        .chain([(None, tool)]);
    let mut groups: Vec<Vec<&str>> = Vec::new();
    for (owner, text) in texts {
        let lower = text.to_lowercase();
        for sentence in sentences(&lower).filter(|s| offers_alternative(s)) {
            let group: Vec<&str> = candidates
                .iter()
                .copied()
                .filter(|c| Some(*c) == owner || mentions(sentence, &c.to_lowercase()))
                .collect();
            if group.len() >= 2 {
                merge(&mut groups, group, &candidates);
            }
        }
    }
    groups
}

/// Adds `group` to `groups`, joining every group it shares a name with (in `order`).
fn merge<'p>(groups: &mut Vec<Vec<&'p str>>, group: Vec<&'p str>, order: &[&'p str]) {
    let (joined, mut rest): (Vec<_>, Vec<_>) = std::mem::take(groups)
        .into_iter()
        .partition(|g| g.iter().any(|n| group.contains(n)));
    let all: Vec<&str> = joined.into_iter().flatten().chain(group).collect();
    rest.push(order.iter().copied().filter(|n| all.contains(n)).collect());
    *groups = rest;
}

fn offers_alternative(sentence: &str) -> bool {
    words(sentence).any(|w| ALTERNATIVE_WORDS.contains(&w))
        || ALTERNATIVE_PHRASES.iter().any(|p| sentence.contains(p))
}

fn tied_to_a_mode(property: &Value) -> bool {
    let text = description(property).to_lowercase();
    words(&text).any(|w| MODE_WORDS.contains(&w))
}

/// Whether `name` (lowercase) appears in `sentence` (lowercase) as a word of its own.
fn mentions(sentence: &str, name: &str) -> bool {
    if name.chars().count() < 2 {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    sentence.match_indices(name).any(|(at, _)| {
        let before = sentence[..at].chars().next_back();
        let after = sentence[at + name.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// The sentences of a text: cut at a line break, and after `.`, `;`, `!` or `?` before a space.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let next = chars.peek().map(|&(_, n)| n);
            let end = c == '\n'
                || (matches!(c, '.' | ';' | '!' | '?') && next.is_none_or(char::is_whitespace));
            if end {
                let (sentence, after) = rest.split_at(i + c.len_utf8());
                rest = after;
                return Some(sentence);
            }
        }
        Some(std::mem::take(&mut rest))
    })
}

/// The runs of letters and digits in a text.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// A name lowercased without separators: `page_size` and `pageSize` are `pagesize`.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn description(property: &Value) -> &str {
    property
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn names(value: Option<&Value>) -> Vec<&str> {
    value
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Property names the root declares directly, through a local root `$ref`, or in a root
/// `allOf`/`anyOf`/`oneOf` branch (so that `required` at the root is not misread as missing).
fn declared_properties(schema: &Map<String, Value>) -> Vec<&str> {
    let mut parts: Vec<&Map<String, Value>> = vec![schema];
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            parts.extend(branches.iter().filter_map(Value::as_object));
        }
    }
    let mut names = Vec::new();
    for part in parts {
        if let Some(p) = part.get("properties").and_then(Value::as_object) {
            names.extend(p.keys().map(String::as_str));
        }
        if let Some(pointer) = part
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            && let Some(p) = pointer_in(schema, pointer)
                .and_then(|target| target.get("properties"))
                .and_then(Value::as_object)
        {
            names.extend(p.keys().map(String::as_str));
        }
    }
    names
}

/// Resolves a JSON Pointer (`/$defs/args`) inside a schema object.
fn pointer_in<'s>(schema: &'s Map<String, Value>, pointer: &str) -> Option<&'s Value> {
    let mut segments = pointer.split('/').skip(1);
    let first = segments.next()?;
    let mut at = schema.get(&unescape(first))?;
    for segment in segments {
        at = match at {
            Value::Object(m) => m.get(&unescape(segment))?,
            Value::Array(a) => a.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

#[cfg(test)]
mod tests;
