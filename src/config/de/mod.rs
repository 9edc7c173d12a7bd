//! A serde `Deserializer` over the located YAML tree: it knows the key path and the line of
//! every value, so each error names both and says what was expected in plain words. The key
//! paths are in [`path`], the errors and their wording in [`error`].
//!
//! It does not stop at the first mistake: an unknown key, a value of the wrong type, an unknown
//! choice or a missing required key is recorded, and a stand-in (the key skipped, `false`, `0`,
//! empty text, an empty list) lets deserialization go on, so one pass finds them all. Only an
//! error raised by serde itself (a custom type that refuses a value) still ends the pass.

mod access;
mod error;
mod lax;
mod path;

pub(crate) use access::key_text;
use access::{Entry, MapDe, SeqDe, bad_key};
use lax::{float_to_whole, lax_bool, number_text};
#[cfg(test)]
mod tests;

use std::cell::RefCell;

use serde::de::{self, IntoDeserializer, Visitor};

pub(crate) use error::{DeError, Located};
pub(crate) use path::KeyPath;

use super::node::{Node, Value, fmt_float};
use super::suggest;
use crate::pycompat::bigint;

/// Deserializes `T` from `node`, which sits at `path`; the first error, if any.
#[cfg(test)]
pub(crate) fn from_node<'de, T: de::Deserialize<'de>>(
    node: &Node,
    path: KeyPath,
) -> Result<T, Located> {
    match from_node_all(node, path) {
        (Some(value), errors) if errors.is_empty() => Ok(value),
        (_, errors) => Err(errors.into_iter().next().unwrap_or(Located {
            message: "invalid value".to_owned(),
            hint: None,
            pos: node.pos,
        })),
    }
}

/// Deserializes `T` from `node`, which sits at `path`, and every error found on the way, in
/// the order met. The value is there unless serde itself gave up; when there are errors it
/// holds stand-ins and is only good for checks that report by position.
pub(crate) fn from_node_all<'de, T: de::Deserialize<'de>>(
    node: &Node,
    path: KeyPath,
) -> (Option<T>, Vec<Located>) {
    let sink = Sink::default();
    let result = T::deserialize(NodeDe {
        node,
        path,
        sink: &sink,
        quiet: false,
    });
    let mut errors = sink.0.into_inner();
    match result {
        Ok(value) => (Some(value), errors),
        Err(e) => {
            let message = e.to_string();
            let located = e.located.unwrap_or(Located {
                message,
                hint: None,
                pos: node.pos,
            });
            if !errors.contains(&located) {
                errors.push(located);
            }
            (None, errors)
        }
    }
}

/// The errors recorded so far.
#[derive(Default)]
struct Sink(RefCell<Vec<Located>>);

/// Keys a struct cannot do without, by the struct's name: checked up front so each missing one
/// is reported and a stand-in lets the rest of the struct be checked too.
const REQUIRED: &[(&str, &[&str])] = &[
    ("Config", &["server"]),
    ("TestCase", &["name", "tool"]),
    ("EvalCase", &["prompt"]),
    ("BenchTarget", &["tool"]),
];

/// The deserializer for one node.
struct NodeDe<'a> {
    node: &'a Node,
    path: KeyPath,
    sink: &'a Sink,
    /// A stand-in for a missing key: takes any shape without recording anything.
    quiet: bool,
}

impl<'a> NodeDe<'a> {
    /// Records an error (never twice, never for a stand-in).
    fn record(&self, err: DeError) {
        if self.quiet {
            return;
        }
        let located = err.place(self.node, &self.path).located;
        if let Some(l) = located {
            let mut errors = self.sink.0.borrow_mut();
            if !errors.contains(&l) {
                errors.push(l);
            }
        }
    }

    fn fail(&self, expected: &str, hint: Option<String>) -> DeError {
        let at = self.path.subject();
        DeError::located(
            format!(
                "{at} must be {expected}, got {}",
                self.node.value.describe()
            ),
            hint,
            self.node.pos,
        )
    }

    /// Hint for a scalar or mapping where a list was wanted.
    fn list_hint(&self) -> Option<String> {
        match &self.node.value {
            Value::Str(s) if !s.trim().is_empty() => Some(format!(
                "write it as a list: [{}]",
                s.split_whitespace().collect::<Vec<_>>().join(", ")
            )),
            Value::Map(_) => Some("start each entry of the list with `- `".to_owned()),
            _ => None,
        }
    }

    fn quote_hint(&self) -> Option<String> {
        match &self.node.value {
            Value::Int(_)
            | Value::UInt(_)
            | Value::BigInt(_)
            | Value::Float(_)
            | Value::Bool(_) => Some("put the value in quotes to make it text".to_owned()),
            _ => None,
        }
    }

    /// A whole number from an integer, an integral float, a boolean (1 or 0) or text holding
    /// one: what pydantic's lax mode takes for an `int` field in mcp-toolproof.
    fn whole(&self) -> Option<i128> {
        match &self.node.value {
            Value::Int(n) => Some(i128::from(*n)),
            Value::UInt(n) => Some(i128::from(*n)),
            Value::BigInt(digits) => digits.parse().ok(),
            Value::Float(x) => float_to_whole(*x),
            Value::Bool(b) => Some(i128::from(*b)),
            Value::Str(s) => {
                let s = number_text(s);
                s.parse::<i128>()
                    .ok()
                    .or_else(|| s.parse::<f64>().ok().and_then(float_to_whole))
            }
            _ => None,
        }
    }

    fn unsigned(&self, max: u64) -> Result<u64, DeError> {
        let n = self
            .whole()
            .ok_or_else(|| self.fail("a whole number ≥ 0", None))?;
        if n < 0 {
            return Err(self.fail("a whole number ≥ 0", None));
        }
        match u64::try_from(n) {
            Ok(v) if v <= max => Ok(v),
            _ => Err(self.fail(&format!("a whole number from 0 to {max}"), None)),
        }
    }

    fn signed(&self, min: i64, max: i64) -> Result<i64, DeError> {
        let n = self
            .whole()
            .ok_or_else(|| self.fail("a whole number", None))?;
        match i64::try_from(n) {
            Ok(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(self.fail(&format!("a whole number from {min} to {max}"), None)),
        }
    }

    fn number(&self) -> Result<f64, DeError> {
        // pydantic's lax `float`: booleans are 1.0 and 0.0, text may hold a number.
        let x = match &self.node.value {
            Value::Int(n) => Some(*n as f64),
            Value::UInt(n) => Some(*n as f64),
            Value::BigInt(digits) => digits.parse().ok(),
            Value::Float(x) => Some(*x),
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Str(s) => number_text(s).parse::<f64>().ok(),
            _ => None,
        };
        match x {
            Some(x) if x.is_finite() => Ok(x),
            Some(_) => Err(self.fail("a finite number", None)),
            None => Err(self.fail("a number", None)),
        }
    }

    /// Places errors the visitor raised on this node.
    fn placed<T>(&self, result: Result<T, DeError>) -> Result<T, DeError> {
        result.map_err(|e| e.place(self.node, &self.path))
    }

    fn child(&self, node: &'a Node, path: KeyPath) -> NodeDe<'a> {
        NodeDe {
            node,
            path,
            sink: self.sink,
            quiet: self.quiet,
        }
    }

    /// The entries of a mapping whose keys are text, with each other key recorded as an error.
    fn text_keyed(&self, entries: &'a [(Node, Node)]) -> Vec<Entry<'a>> {
        entries
            .iter()
            .filter_map(|(key, value)| match key_text(key) {
                Some(text) => Some(Entry {
                    key,
                    text,
                    value,
                    quiet: self.quiet,
                }),
                None => {
                    self.record(bad_key(key, &self.path));
                    None
                }
            })
            .collect()
    }

    /// `unknown key …` for an entry no field takes, with the nearest field or the list.
    fn unknown_key(&self, entry: &Entry<'_>, fields: &[&str]) -> DeError {
        let shown = entry.text.escape_debug().to_string();
        let place = if self.path.is_root() {
            String::new()
        } else {
            format!(" in `{}`", self.path)
        };
        let (message, hint) = match suggest::nearest(&entry.text, fields) {
            Some(near) => (
                format!("unknown key `{shown}`{place}, did you mean `{near}`?"),
                None,
            ),
            None => (
                format!("unknown key `{shown}`{place}"),
                Some(format!("valid keys here: {}", suggest::list(fields))),
            ),
        };
        DeError::located(message, hint, entry.key.pos)
    }

    /// The required keys of struct `name` that `entries` lacks, each recorded as an error.
    fn missing_required(&self, name: &str, entries: &[Entry<'_>]) -> Vec<&'static str> {
        let required = REQUIRED
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(&[][..], |(_, keys)| *keys);
        let missing: Vec<&'static str> = required
            .iter()
            .copied()
            .filter(|key| !entries.iter().any(|e| e.text == *key))
            .collect();
        // A value that is not a mapping at all was reported as such already.
        if matches!(self.node.value, Value::Map(_) | Value::Null) {
            for key in &missing {
                self.record(de::Error::missing_field(key));
            }
        }
        missing
    }

    fn map_access<'b>(&'b self, entries: Vec<Entry<'b>>) -> MapDe<'b>
    where
        'a: 'b,
    {
        MapDe {
            entries: entries.into_iter(),
            pending: None,
            path: self.path.clone(),
            pos: self.node.pos,
            sink: self.sink,
        }
    }
}

macro_rules! unsigned_method {
    ($method:ident, $visit:ident, $ty:ty) => {
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            let v = self
                .unsigned(u64::from(<$ty>::MAX))
                .and_then(|v| {
                    <$ty>::try_from(v).map_err(|_| self.fail("a smaller whole number", None))
                })
                .unwrap_or_else(|e| {
                    self.record(e);
                    0
                });
            self.placed(visitor.$visit(v))
        }
    };
}

macro_rules! signed_method {
    ($method:ident, $visit:ident, $ty:ty) => {
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            let v = self
                .signed(i64::from(<$ty>::MIN), i64::from(<$ty>::MAX))
                .and_then(|v| {
                    <$ty>::try_from(v).map_err(|_| self.fail("a smaller whole number", None))
                })
                .unwrap_or_else(|e| {
                    self.record(e);
                    0
                });
            self.placed(visitor.$visit(v))
        }
    };
}

impl<'de, 'a> de::Deserializer<'de> for NodeDe<'a> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let result = match &self.node.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Int(n) => visitor.visit_i64(*n),
            Value::UInt(n) => visitor.visit_u64(*n),
            // The nearest float; where toolproof sends the value as written, the loader puts
            // back every digit (see `crate::pycompat::bigint`).
            Value::BigInt(digits) => visitor.visit_f64(bigint::approx(digits)),
            Value::Float(x) if x.is_finite() => visitor.visit_f64(*x),
            Value::Float(_) => {
                self.record(
                    self.fail(
                        "a finite number",
                        Some(
                            "JSON has no NaN or infinity; put the value in quotes to send text"
                                .to_owned(),
                        ),
                    ),
                );
                visitor.visit_unit()
            }
            Value::Str(s) => visitor.visit_str(s),
            Value::Seq(items) => visitor.visit_seq(SeqDe {
                items: items.iter().enumerate(),
                parent: &self,
            }),
            Value::Map(entries) => {
                let entries = self.text_keyed(entries);
                visitor.visit_map(self.map_access(entries))
            }
        };
        result.map_err(|e| e.place(self.node, &self.path))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let b = lax_bool(&self.node.value).unwrap_or_else(|| {
            self.record(self.fail(
                "true or false",
                Some("also accepted: yes/no, on/off, 1/0, \"true\"/\"false\"".to_owned()),
            ));
            false
        });
        self.placed(visitor.visit_bool(b))
    }

    unsigned_method!(deserialize_u8, visit_u8, u8);
    unsigned_method!(deserialize_u16, visit_u16, u16);
    unsigned_method!(deserialize_u32, visit_u32, u32);
    unsigned_method!(deserialize_u64, visit_u64, u64);
    signed_method!(deserialize_i8, visit_i8, i8);
    signed_method!(deserialize_i16, visit_i16, i16);
    signed_method!(deserialize_i32, visit_i32, i32);
    signed_method!(deserialize_i64, visit_i64, i64);

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let x = self.number().unwrap_or_else(|e| {
            self.record(e);
            0.0
        });
        self.placed(visitor.visit_f64(x))
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match (&self.node.value, &self.node.was_text) {
            (Value::Str(s), _) | (_, Some(s)) => self.placed(visitor.visit_str(s)),
            _ => {
                self.record(self.fail("a string", self.quote_hint()));
                self.placed(visitor.visit_str(""))
            }
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let (node, path) = (self.node, self.path.clone());
        match &self.node.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .map_err(|e| e.place(node, &path))
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.node.value != Value::Null {
            self.record(self.fail("null", None));
        }
        self.placed(visitor.visit_unit())
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let (node, path) = (self.node, self.path.clone());
        visitor
            .visit_newtype_struct(self)
            .map_err(|e| e.place(node, &path))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        static EMPTY: Vec<Node> = Vec::new();
        let items = match &self.node.value {
            Value::Seq(items) => items,
            // `tests:` with every entry commented out means no tests.
            Value::Null => &EMPTY,
            _ => {
                self.record(self.fail("a list", self.list_hint()));
                &EMPTY
            }
        };
        visitor
            .visit_seq(SeqDe {
                items: items.iter().enumerate(),
                parent: &self,
            })
            .map_err(|e| e.place(self.node, &self.path))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let entries = match &self.node.value {
            Value::Map(entries) => self.text_keyed(entries),
            Value::Null => Vec::new(),
            _ => {
                self.record(self.fail("a mapping", None));
                Vec::new()
            }
        };
        visitor
            .visit_map(self.map_access(entries))
            .map_err(|e| e.place(self.node, &self.path))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let mut entries = match &self.node.value {
            Value::Map(entries) => self.text_keyed(entries),
            Value::Null => Vec::new(),
            _ => {
                self.record(self.fail("a mapping", None));
                Vec::new()
            }
        };
        entries.retain(|entry| {
            let known = fields.contains(&entry.text.as_str());
            if !known {
                self.record(self.unknown_key(entry, fields));
            }
            known
        });
        let missing = self.missing_required(name, &entries);
        let stand_ins: Vec<(Node, Node)> = missing
            .iter()
            .map(|field| {
                let stand_in = |value| Node {
                    value,
                    pos: self.node.pos,
                    defined_at: None,
                    was_text: None,
                };
                (
                    stand_in(Value::Str((*field).to_owned())),
                    stand_in(Value::Null),
                )
            })
            .collect();
        entries.extend(stand_ins.iter().map(|(key, value)| Entry {
            key,
            text: key_text(key).unwrap_or_default(),
            value,
            quiet: true,
        }));
        visitor
            .visit_map(self.map_access(entries))
            .map_err(|e| e.place(self.node, &self.path))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let choice = match &self.node.value {
            Value::Str(s) if variants.contains(&s.as_str()) || variants.is_empty() => s.as_str(),
            _ => {
                let hint = match &self.node.value {
                    Value::Str(s) => {
                        suggest::nearest(s, variants).map(|n| format!("did you mean `{n}`?"))
                    }
                    _ => None,
                };
                self.record(self.fail(&format!("one of {}", suggest::list(variants)), hint));
                variants[0]
            }
        };
        visitor
            .visit_enum(choice.into_deserializer())
            .map_err(|e: DeError| e.place(self.node, &self.path))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
}
