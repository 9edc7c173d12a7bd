//! Deserialization errors: what serde reports, then placed on a node with its key path and
//! worded for a person (`` `retries` must be a whole number ≥ 0, got text "x" ``).

use std::fmt;

use serde::de;

use super::path::KeyPath;
use crate::config::node::{Node, Pos};
use crate::config::suggest;

/// A deserialization error with its place and wording.
#[derive(Debug)]
pub(crate) struct DeError {
    /// Set once the error knows its node; `None` while it travels up from serde.
    pub located: Option<Located>,
    pending: Pending,
}

/// A finished error: message, hint, position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located {
    pub message: String,
    pub hint: Option<String>,
    pub pos: Pos,
}

/// What serde reported, before the path and node are known.
#[derive(Debug)]
enum Pending {
    Custom(String),
    InvalidType(String),
    InvalidLength(usize, String),
    UnknownVariant(String, &'static [&'static str]),
    MissingField(&'static str),
    DuplicateField(&'static str),
    Done,
}

impl DeError {
    pub(super) fn located(message: String, hint: Option<String>, pos: Pos) -> Self {
        DeError {
            located: Some(Located { message, hint, pos }),
            pending: Pending::Done,
        }
    }

    /// Gives a serde-made error its node and path (a no-op for errors already placed).
    pub(super) fn place(mut self, node: &Node, path: &KeyPath) -> Self {
        if self.located.is_some() {
            return self;
        }
        let at = path.subject();
        let (message, hint) = match &self.pending {
            Pending::Custom(msg) => (
                if path.is_root() {
                    msg.clone()
                } else {
                    format!("{at}: {msg}")
                },
                None,
            ),
            Pending::InvalidType(expected) => (
                format!("{at} must be {expected}, got {}", node.value.describe()),
                None,
            ),
            Pending::InvalidLength(len, expected) => {
                (format!("{at} must be {expected}, got {len} items"), None)
            }
            Pending::UnknownVariant(got, expected) => {
                let hint = suggest::nearest(got, expected).map(|n| format!("did you mean `{n}`?"));
                (
                    format!(
                        "{at} must be one of {}, got {}",
                        suggest::list(expected),
                        node.value.describe()
                    ),
                    hint,
                )
            }
            Pending::MissingField(field) => {
                let message = if path.is_root() {
                    format!("missing required key `{field}`")
                } else {
                    format!("{at} is missing the required key `{field}`")
                };
                let hint = match *field {
                    "server" => Some(
                        "add a `server:` section with `command: [program, args…]` or `url: http://…`"
                            .to_owned(),
                    ),
                    _ => None,
                };
                (message, hint)
            }
            Pending::DuplicateField(field) => (
                format!("{at} sets `{field}` twice"),
                Some("remove one of them".to_owned()),
            ),
            Pending::Done => (format!("{at} is invalid"), None),
        };
        self.located = Some(Located {
            message,
            hint,
            pos: node.pos,
        });
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.located, &self.pending) {
            (Some(l), _) => f.write_str(&l.message),
            (None, Pending::Custom(m)) => f.write_str(m),
            (None, other) => write!(f, "{other:?}"),
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError {
            located: None,
            pending: Pending::Custom(msg.to_string()),
        }
    }

    fn invalid_type(_unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        DeError {
            located: None,
            pending: Pending::InvalidType(exp.to_string()),
        }
    }

    fn invalid_value(_unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        DeError {
            located: None,
            pending: Pending::InvalidType(exp.to_string()),
        }
    }

    fn invalid_length(len: usize, exp: &dyn de::Expected) -> Self {
        DeError {
            located: None,
            pending: Pending::InvalidLength(len, exp.to_string()),
        }
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        DeError {
            located: None,
            pending: Pending::UnknownVariant(variant.to_owned(), expected),
        }
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        // Never reached in practice: struct keys are checked before serde sees them.
        DeError {
            located: None,
            pending: Pending::Custom(format!(
                "unknown key `{field}` (valid keys: {})",
                suggest::list(expected)
            )),
        }
    }

    fn missing_field(field: &'static str) -> Self {
        DeError {
            located: None,
            pending: Pending::MissingField(field),
        }
    }

    fn duplicate_field(field: &'static str) -> Self {
        DeError {
            located: None,
            pending: Pending::DuplicateField(field),
        }
    }
}
