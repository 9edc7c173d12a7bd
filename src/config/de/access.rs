//! Walking sequences and mappings: each item gets its index, each value its key, in the path;
//! mapping keys are read as text, and a key that is not text is an error at its place.

use serde::de::{self, DeserializeSeed};

use super::*;

/// Text form of a scalar mapping key (`1:` becomes "1"); `None` for lists, mappings, null.
pub(crate) fn key_text(key: &Node) -> Option<String> {
    match &key.value {
        Value::Str(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Int(n) => Some(n.to_string()),
        Value::UInt(n) => Some(n.to_string()),
        Value::BigInt(digits) => Some(digits.clone()),
        Value::Float(x) => Some(fmt_float(*x)),
        Value::Null | Value::Seq(_) | Value::Map(_) => None,
    }
}

pub(super) fn bad_key(key: &Node, path: &KeyPath) -> DeError {
    let at = path.subject();
    DeError::located(
        format!(
            "{at} has a key that is {}; keys must be plain text",
            key.value.describe()
        ),
        None,
        key.pos,
    )
}

/// Walks a sequence, giving each item its index in the path.
pub(super) struct SeqDe<'p, 'a, I> {
    pub(super) items: I,
    pub(super) parent: &'p NodeDe<'a>,
}

impl<'de, 'p, 'a, I> de::SeqAccess<'de> for SeqDe<'p, 'a, I>
where
    I: Iterator<Item = (usize, &'a Node)>,
{
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        match self.items.next() {
            Some((i, node)) => {
                let child = self.parent.child(node, self.parent.path.index(i));
                let (node, path) = (child.node, child.path.clone());
                seed.deserialize(child)
                    .map(Some)
                    .map_err(|e| e.place(node, &path))
            }
            None => Ok(None),
        }
    }
}

/// One mapping entry whose key is text.
pub(super) struct Entry<'a> {
    pub(super) key: &'a Node,
    pub(super) text: String,
    pub(super) value: &'a Node,
    /// A stand-in for a missing required key.
    pub(super) quiet: bool,
}

/// Walks a mapping: keys as text, values with the key added to the path.
pub(super) struct MapDe<'a> {
    pub(super) entries: std::vec::IntoIter<Entry<'a>>,
    pub(super) pending: Option<(String, &'a Node, bool)>,
    pub(super) path: KeyPath,
    pub(super) pos: crate::config::node::Pos,
    pub(super) sink: &'a Sink,
}

impl<'de, 'a> de::MapAccess<'de> for MapDe<'a> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some(entry) = self.entries.next() else {
            return Ok(None);
        };
        let path = self.path.key(&entry.text);
        let result = seed
            .deserialize(de::value::StrDeserializer::<DeError>::new(&entry.text))
            .map_err(|e| e.place(entry.key, &path));
        self.pending = Some((entry.text, entry.value, entry.quiet));
        result.map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let Some((key, node, quiet)) = self.pending.take() else {
            return Err(DeError::located(
                "internal error: value asked for before its key".to_owned(),
                None,
                self.pos,
            ));
        };
        let path = self.path.key(&key);
        let child = NodeDe {
            node,
            path: path.clone(),
            sink: self.sink,
            quiet,
        };
        seed.deserialize(child).map_err(|e| e.place(node, &path))
    }
}
