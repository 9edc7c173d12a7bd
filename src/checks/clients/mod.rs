//! The `client-*` checks: input schemas that one model client accepts and another rejects.
//! `checks.clients` selects which run (`openai-strict`, `gemini`, `anthropic`,
//! `anthropic-strict`; only `anthropic` by default), and `checks.disable` can still turn each
//! off by its check id.
//!
//! Each client's rules live in its own module and cite the documentation (or, where the
//! provider documents nothing, the error the API answers with) they enforce. Every finding is a
//! warning: the schema is valid MCP, only some clients refuse it. A finding names the rule and
//! the JSON Pointer of the place in the input schema, and its hint says what to change there.
//! Only the input schema is looked at: clients send it to the model, not the output schema.
//! A schema the `input-schema` check rejects (missing, not an object, no `type: object` at the
//! root) is left to that check.
//!
//! At most [`MAX_PER_TOOL`] places are reported per tool and check, the first place of every
//! rule before the second of any; one more finding counts the rest, so a large generated schema
//! cannot bury the report.

mod anthropic;
mod anthropic_strict;
mod gemini;
mod openai;
mod walk;

use serde_json::{Map, Value};

use crate::mcp::types::Tool;
use crate::outcome::Severity;

use super::{
    CLIENT_ANTHROPIC, CLIENT_ANTHROPIC_STRICT, CLIENT_GEMINI, CLIENT_OPENAI_STRICT, Problem, Sink,
};

pub(crate) use walk::{Node, Scope, is_object, walk};

/// Places reported per tool and check before the rest are only counted.
const MAX_PER_TOOL: usize = 6;

/// One place in one input schema that breaks one rule of one client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    /// The rule's short id, as the README lists it (`additional-properties`…).
    pub rule: &'static str,
    /// JSON Pointer into the input schema (`""` for the root).
    pub pointer: String,
    /// What is wrong there.
    pub what: String,
    /// What to change there.
    pub hint: String,
}

impl Hit {
    pub(crate) fn new(
        rule: &'static str,
        pointer: &str,
        what: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Hit {
            rule,
            pointer: pointer.to_owned(),
            what: what.into(),
            hint: hint.into(),
        }
    }
}

/// One client's rules: how findings name it and what breaking a rule costs there.
struct Client {
    check: &'static str,
    id: &'static str,
    label: &'static str,
    effect: &'static str,
    rules: fn(&Map<String, Value>) -> Vec<Hit>,
}

const CLIENTS: &[Client] = &[
    Client {
        check: CLIENT_OPENAI_STRICT,
        id: "openai-strict",
        label: "OpenAI strict mode",
        effect: "sent with `strict: true`, the whole request fails (HTTP 400)",
        rules: openai::rules,
    },
    Client {
        check: CLIENT_GEMINI,
        id: "gemini",
        label: "Gemini",
        effect: "sent as a function declaration's `parameters`, the whole request fails \
                 (HTTP 400)",
        rules: gemini::rules,
    },
    Client {
        check: CLIENT_ANTHROPIC,
        id: "anthropic",
        label: "Claude API",
        effect: "every request carrying this tool fails (HTTP 400), whatever tool the model \
                 was going to use",
        rules: anthropic::rules,
    },
    Client {
        check: CLIENT_ANTHROPIC_STRICT,
        id: "anthropic-strict",
        label: "Claude strict tool use",
        effect: "sent with `strict: true`, the whole request fails (HTTP 400)",
        rules: anthropic_strict::rules,
    },
];

impl Sink<'_> {
    /// Whether the rules of client `id` (holding check `check`) run: selected in
    /// `checks.clients` and not turned off in `checks.disable`.
    fn client_on(&self, id: &str, check: &str) -> bool {
        self.enabled(check) && self.cfg.clients.iter().any(|c| c == id)
    }
}

/// The selected clients' rules over one tool's input schema.
pub(super) fn check(tool: &Tool, shown: &str, out: &mut Sink) {
    let Some(schema) = object_root(tool) else {
        return;
    };
    for client in CLIENTS {
        if !out.client_on(client.id, client.check) {
            continue;
        }
        let hits = (client.rules)(schema);
        report(client, shown, hits, out);
    }
}

/// The findings about the whole tool list: Claude's per-request limits under strict tool use.
pub(super) fn check_list(tools: &[Tool], shown: &[String], out: &mut Sink) {
    if !out.client_on("anthropic-strict", CLIENT_ANTHROPIC_STRICT) {
        return;
    }
    let schemas: Vec<(&str, &Map<String, Value>)> = tools
        .iter()
        .zip(shown)
        .filter_map(|(tool, shown)| object_root(tool).map(|s| (shown.as_str(), s)))
        .collect();
    if let Some(problem) = anthropic_strict::request_limits(&schemas) {
        out.add("*", CLIENT_ANTHROPIC_STRICT, Severity::Warning, problem);
    }
}

/// The tool's input schema when it is an object schema with `type: object` at the root: the
/// shape every client expects and the `input-schema` check demands.
fn object_root(tool: &Tool) -> Option<&Map<String, Value>> {
    let map = tool.input_schema.as_ref()?.as_object()?;
    (map.get("type").and_then(Value::as_str) == Some("object")).then_some(map)
}

/// Files the first [`MAX_PER_TOOL`] hits as findings and counts the rest in one more. The
/// first place of each rule comes before the second place of any, so the cap keeps every kind
/// of problem in view.
fn report(client: &Client, shown: &str, mut hits: Vec<Hit>, out: &mut Sink) {
    let total = hits.len();
    let mut seen: std::collections::HashMap<&'static str, usize> = Default::default();
    let rank: Vec<usize> = hits
        .iter()
        .map(|h| {
            let n = seen.entry(h.rule).or_default();
            *n += 1;
            *n
        })
        .collect();
    let mut ranked: Vec<(usize, Hit)> = rank.into_iter().zip(hits.drain(..)).collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    let hits = ranked.into_iter().map(|(_, h)| h);
    for hit in hits.take(MAX_PER_TOOL) {
        let message = format!(
            "{} rule `{}` at {}: {}; {}",
            client.label,
            hit.rule,
            place(&hit.pointer),
            hit.what,
            client.effect
        );
        out.add(
            shown,
            client.check,
            Severity::Warning,
            Problem::new(message, hit.hint),
        );
    }
    if total > MAX_PER_TOOL {
        out.add(
            shown,
            client.check,
            Severity::Warning,
            Problem::new(
                format!(
                    "{} more places in this input schema break {} rules (the first {} are \
                     reported above)",
                    total - MAX_PER_TOOL,
                    client.label,
                    MAX_PER_TOOL
                ),
                "fix the places above, then run again to see the rest",
            ),
        );
    }
}

/// How a message shows a JSON Pointer: `the root`, or the pointer as [`escaped`].
pub(crate) fn place(pointer: &str) -> String {
    if pointer.is_empty() {
        "the root".to_owned()
    } else {
        escaped(pointer)
    }
}

/// Text from the server (a property name, a pointer built from them) with control characters
/// escaped and cut to 120 characters.
pub(crate) fn escaped(text: &str) -> String {
    let mut shown = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == 120 {
            shown.push('…');
            break;
        }
        if c.is_control() {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Words, each in backticks (escaped when they came from the server), joined with commas; at
/// most `max`, then how many more.
pub(crate) fn names<'a>(items: impl IntoIterator<Item = &'a str>, max: usize) -> String {
    let items: Vec<&str> = items.into_iter().collect();
    let mut shown: Vec<String> = items
        .iter()
        .take(max)
        .map(|s| format!("`{}`", escaped(s)))
        .collect();
    if items.len() > max {
        shown.push(format!("{} more", items.len() - max));
    }
    shown.join(", ")
}

/// The `keywords` that `schema` has, in the order given.
fn present<'k>(schema: &Map<String, Value>, keywords: &[&'k str]) -> Vec<&'k str> {
    keywords
        .iter()
        .copied()
        .filter(|k| schema.contains_key(*k))
        .collect()
}

/// The rules `schema` breaks under one client's `rules`, as `(rule, pointer)`.
#[cfg(test)]
fn broken_by(
    rules: fn(&Map<String, Value>) -> Vec<Hit>,
    schema: &Value,
) -> Vec<(&'static str, String)> {
    let root = schema.as_object().expect("a test schema is an object");
    rules(root)
        .into_iter()
        .map(|h| (h.rule, h.pointer))
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;
