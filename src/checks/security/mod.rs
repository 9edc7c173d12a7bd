//! The `security-*` checks: text in a tool's definition aimed at the model rather than at
//! describing the tool. Hidden characters ([`hidden`]); instructions to the model, exfiltration
//! cues and shadowing of other tools ([`prose`]); long encoded blobs ([`blob`]).
//!
//! Precision first: each rule looks for the published shapes of these attacks (the tag
//! characters that spell a hidden message, `<IMPORTANT>` blocks, "do not tell the user",
//! "send … to attacker@…", "when you call `send_email`, …"), not for words a plain description
//! uses, and every finding quotes the text that tripped it and says where it is.

mod blob;
mod hidden;
mod prose;

use serde_json::Value;

use super::{Problem, Sink};
use crate::config::vocab::{
    SECURITY_ENCODED_BLOB, SECURITY_EXFILTRATION, SECURITY_HIDDEN_TEXT, SECURITY_INSTRUCTIONS,
    SECURITY_SHADOWING,
};
use crate::mcp::types::Tool;
use crate::outcome::Severity;

/// One piece of a tool's text and where it is (`description`, `inputSchema/properties/a/description`).
pub(crate) struct Field<'t> {
    /// Where: a field name or a schema's JSON pointer.
    pub where_: String,
    /// The text.
    pub text: &'t str,
    /// Prose a model reads as such (a title or a description), not a name, key or value.
    pub prose: bool,
}

/// Every string of the tool a model is shown: its name, titles, description, and every key
/// and string of its schemas.
fn fields(tool: &Tool) -> Vec<Field<'_>> {
    let mut out = vec![Field {
        where_: "name".into(),
        text: &tool.name,
        prose: false,
    }];
    let texts = [
        ("title", tool.title.as_deref()),
        (
            "annotations/title",
            tool.annotations
                .as_ref()
                .and_then(|a| a.get("title"))
                .and_then(Value::as_str),
        ),
        ("description", tool.description.as_deref()),
    ];
    for (where_, value) in texts {
        if let Some(text) = value {
            out.push(Field {
                where_: where_.into(),
                text,
                prose: true,
            });
        }
    }
    for (name, schema) in [
        ("inputSchema", &tool.input_schema),
        ("outputSchema", &tool.output_schema),
    ] {
        if let Some(schema) = schema {
            walk(schema, name.to_owned(), &mut out);
        }
    }
    out
}

fn walk<'t>(value: &'t Value, at: String, out: &mut Vec<Field<'t>>) {
    match value {
        Value::String(s) => {
            let prose = at.ends_with("/description") || at.ends_with("/title");
            out.push(Field {
                where_: at,
                text: s,
                prose,
            });
        }
        Value::Array(list) => {
            for (i, v) in list.iter().enumerate() {
                walk(v, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let child = format!("{at}/{}", crate::mcp::pointer::escape(k));
                out.push(Field {
                    where_: format!("{child} (key)"),
                    text: k,
                    prose: false,
                });
                walk(v, child, out);
            }
        }
        _ => {}
    }
}

/// What one rule found: its id, and the problem.
type Hit = (&'static str, Severity, Problem);

/// Every hit on `tool`; `names` are the names of the tools the server lists.
fn scan(tool: &Tool, names: &[&str]) -> Vec<Hit> {
    let fields = fields(tool);
    let mut hits = Vec::new();
    if let Some(p) = hidden::check(&fields) {
        hits.push((SECURITY_HIDDEN_TEXT, Severity::Error, p));
    }
    let prose: Vec<&Field> = fields.iter().filter(|f| f.prose).collect();
    if let Some(p) = prose::instructions(&prose) {
        hits.push((SECURITY_INSTRUCTIONS, Severity::Error, p));
    }
    if let Some(p) = prose::exfiltration(&prose) {
        hits.push((SECURITY_EXFILTRATION, Severity::Error, p));
    }
    if let Some(p) = prose::shadowing(&prose, &tool.name, names) {
        hits.push((SECURITY_SHADOWING, Severity::Error, p));
    }
    if let Some(p) = blob::check(&prose) {
        hits.push((SECURITY_ENCODED_BLOB, Severity::Warning, p));
    }
    hits
}

/// Files the `security-*` findings of one tool.
pub(super) fn check(tool: &Tool, shown: &str, names: &[&str], out: &mut Sink) {
    for (id, severity, problem) in scan(tool, names) {
        out.add(shown, id, severity, problem);
    }
}

/// The ids of the `security-*` checks a tool trips (a rug pull, for the surface phase).
pub(crate) fn tripped(tool: &Tool, names: &[&str]) -> Vec<&'static str> {
    scan(tool, names).into_iter().map(|(id, _, _)| id).collect()
}

/// `description: "…the text…"`, the match with up to 40 characters either side.
fn excerpt(field: &Field, start: usize, end: usize) -> String {
    let text = field.text;
    let mut from = start.saturating_sub(40);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (end + 40).min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    shown.push_str(&text[from..to]);
    if to < text.len() {
        shown.push('…');
    }
    format!("{}: {}", field.where_, super::quote(&shown, 200))
}

#[cfg(test)]
mod tests;
