//! `tests:`: one YAML tool-call test and what its `expect:` may say.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::yes;

/// One entry of `tests:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCase {
    /// Test name.
    pub name: String,
    /// Tool to call.
    pub tool: String,
    /// Arguments, as written.
    #[serde(default)]
    pub args: serde_json::Map<String, Value>,
    /// What the result must look like.
    #[serde(default)]
    pub expect: Expect,
    /// Call timeout; beats the top-level value and `--timeout-ms`.
    #[serde(default)]
    pub timeout_ms: Option<f64>,
    /// Retries; beats the top-level value and `--retries`.
    #[serde(default)]
    pub retries: Option<u32>,
    /// Wait between attempts; beats the top-level value.
    #[serde(default)]
    pub retry_delay_ms: Option<f64>,
    /// Labels for `--filter`/`-k`.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The answer to `elicitation/create` during the call; beats the top-level value.
    #[serde(default)]
    pub elicitation: Option<ElicitationAnswer>,
    /// The answer to `sampling/createMessage` during the call; beats the top-level value.
    #[serde(default)]
    pub sampling: Option<SamplingAnswer>,
    /// The roots answered to `roots/list` during the call; beats the top-level value.
    #[serde(default)]
    pub roots: Option<Vec<String>>,
    /// YAML line of this entry (filled by the loader).
    #[serde(skip)]
    pub line: Option<u32>,
}

/// `elicitation:`: how the user answers the server's `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElicitationAnswer {
    /// `accept`, `decline` or `cancel`.
    pub action: ElicitationAction,
    /// With `accept`: the form's content; without it, the requested schema's defaults.
    #[serde(default)]
    pub content: Option<serde_json::Map<String, Value>>,
}

/// `elicitation.action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitationAction {
    /// The user submitted the form.
    Accept,
    /// The user refused.
    Decline,
    /// The user dismissed the form without a choice.
    Cancel,
}

impl ElicitationAction {
    /// The word on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitationAction::Accept => "accept",
            ElicitationAction::Decline => "decline",
            ElicitationAction::Cancel => "cancel",
        }
    }
}

/// `sampling:`: what the model answers to the server's `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SamplingAnswer {
    /// The assistant message's text.
    pub text: String,
    /// The `model` reported (default `toolproof-scripted`).
    #[serde(default)]
    pub model: Option<String>,
}

/// `expect:` of a test.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The result's `isError` must be this.
    #[serde(default)]
    pub is_error: Option<bool>,
    /// The result must equal this JSON value; `Some(Value::Null)` when `equals: null` is written.
    #[serde(default, deserialize_with = "present")]
    pub equals: Option<Value>,
    /// Substrings the text must contain.
    #[serde(default)]
    pub contains: Option<StringOrList>,
    /// A regex the text must match.
    #[serde(default)]
    pub regex: Option<String>,
    /// JSONPath checks keyed by path.
    #[serde(default)]
    pub jsonpath: BTreeMap<String, JsonPathCheck>,
    /// Soft latency limit.
    #[serde(default)]
    pub max_latency_ms: Option<f64>,
    /// Validate against the tool's outputSchema (default true).
    #[serde(default = "yes")]
    pub output_schema: bool,
}

impl Default for Expect {
    /// No expectations, except the outputSchema check, which is on unless turned off.
    fn default() -> Self {
        Self {
            is_error: None,
            equals: None,
            contains: None,
            regex: None,
            jsonpath: BTreeMap::new(),
            max_latency_ms: None,
            output_schema: true,
        }
    }
}

/// Deserializes a key that is present (even as `null`) into `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// A string or a list of strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StringOrList {
    /// One needle.
    One(String),
    /// Several needles.
    Many(Vec<String>),
}

impl StringOrList {
    /// The needles, one or many.
    pub fn items(&self) -> &[String] {
        match self {
            StringOrList::One(s) => std::slice::from_ref(s),
            StringOrList::Many(v) => v,
        }
    }
}

/// Hand-written instead of `untagged`, so a wrong value gets a message that names both forms.
impl<'de> Deserialize<'de> for StringOrList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Needles;

        impl<'de> serde::de::Visitor<'de> for Needles {
            type Value = StringOrList;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or a list of strings")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<StringOrList, E> {
                Ok(StringOrList::One(v.to_owned()))
            }

            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<StringOrList, E> {
                Ok(StringOrList::One(v))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<StringOrList, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<String>()? {
                    items.push(item);
                }
                Ok(StringOrList::Many(items))
            }
        }

        d.deserialize_any(Needles)
    }
}

/// One `jsonpath:` entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonPathCheck {
    /// JSON type the match must have.
    #[serde(default, rename = "type")]
    pub kind: Option<JsonType>,
    /// Value the match must equal (present counts, even null).
    #[serde(default, deserialize_with = "present")]
    pub equals: Option<Value>,
    /// Inclusive lower bound.
    #[serde(default)]
    pub min: Option<f64>,
    /// Inclusive upper bound.
    #[serde(default)]
    pub max: Option<f64>,
    /// The path must match (default) or must not.
    #[serde(default = "yes")]
    pub exists: bool,
}

/// JSON value types for `jsonpath.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JsonType {
    /// string
    String,
    /// number (integers too)
    Number,
    /// integer
    Integer,
    /// boolean
    Boolean,
    /// array
    Array,
    /// object
    Object,
    /// null
    Null,
}
