//! One labelled eval case of `evals.cases` (or `cases_file`), and the turns of its `context:`.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

/// One labelled eval case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalCase {
    /// The user prompt.
    pub prompt: String,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Expected tool; the key must be present, `null` meaning no tool.
    #[serde(default, deserialize_with = "present_string")]
    pub expect_tool: Option<Option<String>>,
    /// Expected arguments (subset match).
    #[serde(default)]
    pub expect_args: serde_json::Map<String, Value>,
    /// Why this row exists; shown with every miss.
    #[serde(default)]
    pub why: Option<String>,
    /// Must be right on every trial, whatever the accuracy.
    #[serde(default)]
    pub critical: bool,
    /// Trials for this case (beats `evals.trials`): a number or `auto`.
    #[serde(default)]
    pub trials: Option<super::Trials>,
    /// `min_trials` of this case under `trials: auto` (beats `evals.min_trials`).
    #[serde(default)]
    pub min_trials: Option<u32>,
    /// `max_trials` of this case under `trials: auto` (beats `evals.max_trials`).
    #[serde(default)]
    pub max_trials: Option<u32>,
    /// The conversation before the prompt (toolproof's own): earlier user and assistant
    /// messages and earlier tool calls with their results, sent before the prompt.
    #[serde(default)]
    pub context: Vec<ContextTurn>,
    /// `false` on a row `toolproof rows` proposed that no one has read yet (the set lint's
    /// `unreviewed-row`); absent on rows typed by hand.
    #[serde(default)]
    pub reviewed: Option<bool>,
    /// YAML line of this entry (filled by the loader).
    #[serde(skip)]
    pub line: Option<u32>,
    /// The file holding this entry when it came from `cases_file` (filled by the loader).
    #[serde(skip)]
    pub file: Option<PathBuf>,
}

impl EvalCase {
    /// The case's `context` as turns; a turn the loader would reject is left out.
    pub fn turns(&self) -> Vec<Turn> {
        self.context.iter().filter_map(ContextTurn::turn).collect()
    }
}

fn present_string<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// One entry of a case's `context:` as written: exactly one of `user`, `assistant` or `call`
/// (a call also has `args` and its `result`). One mapping with optional keys rather than an
/// enum, so a mistake gets a message naming the entry and the key (see the loader's checks).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextTurn {
    /// A message the user sent.
    #[serde(default)]
    pub user: Option<String>,
    /// A message the assistant answered with.
    #[serde(default)]
    pub assistant: Option<String>,
    /// An earlier tool call: the tool's MCP name.
    #[serde(default)]
    pub call: Option<String>,
    /// The earlier call's arguments.
    #[serde(default)]
    pub args: Option<serde_json::Map<String, Value>>,
    /// What the earlier call returned: text, or any value (sent as its JSON text).
    #[serde(default)]
    pub result: Option<Value>,
}

impl ContextTurn {
    /// The turn this entry stands for; `None` when it is not exactly one kind of turn (the
    /// loader reports it).
    pub fn turn(&self) -> Option<Turn> {
        match (&self.user, &self.assistant, &self.call) {
            (Some(text), None, None) if self.args.is_none() && self.result.is_none() => {
                Some(Turn::User(text.clone()))
            }
            (None, Some(text), None) if self.args.is_none() && self.result.is_none() => {
                Some(Turn::Assistant(text.clone()))
            }
            (None, None, Some(tool)) => Some(Turn::Call {
                tool: tool.clone(),
                args: self.args.clone().unwrap_or_default(),
                result: result_text(self.result.as_ref()?),
            }),
            _ => None,
        }
    }
}

/// A result as the model reads it: text as is, any other value as its JSON text (an integer
/// beyond 64 bits as its digits).
fn result_text(value: &Value) -> String {
    match value {
        Value::String(s) => match crate::pycompat::bigint::digits(s) {
            Some(digits) => digits.to_owned(),
            None => s.clone(),
        },
        other => crate::pycompat::bigint::to_string(other),
    }
}

/// One earlier turn of a case's conversation, provider-neutral: each provider sends it in its
/// own shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// A user message.
    User(String),
    /// An assistant message.
    Assistant(String),
    /// A tool call the assistant made, and the result it got back.
    Call {
        /// The tool's MCP name.
        tool: String,
        /// Its arguments.
        args: serde_json::Map<String, Value>,
        /// The result's text.
        result: String,
    },
}
