//! A walk over every subschema of an input schema, each met with its JSON Pointer, for the
//! client rules to look at. It follows only the keywords whose values are schemas, so `enum`,
//! `const`, `default` and `examples` values are never mistaken for schemas; `$ref` is not
//! followed (definitions are walked where they are written).

use serde_json::{Map, Value};

use crate::mcp::pointer::escape;

/// Levels the walk goes down at most (parsed JSON is at most 128 deep anyway).
const MAX_DEPTH: usize = 200;

/// How a keyword holds subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// An object of named schemas (`properties`, `$defs`…).
    Named,
    /// One schema, or for `items` (draft-04 tuples) possibly a list.
    One,
    /// A list of schemas (`anyOf`, `prefixItems`…).
    List,
}

/// Every JSON Schema keyword (draft-04 to 2020-12) whose value holds subschemas.
const SCHEMA_KEYWORDS: &[(&str, Holds)] = &[
    ("properties", Holds::Named),
    ("patternProperties", Holds::Named),
    ("$defs", Holds::Named),
    ("definitions", Holds::Named),
    ("dependentSchemas", Holds::Named),
    ("dependencies", Holds::Named),
    ("items", Holds::One),
    ("additionalItems", Holds::One),
    ("additionalProperties", Holds::One),
    ("unevaluatedItems", Holds::One),
    ("unevaluatedProperties", Holds::One),
    ("contains", Holds::One),
    ("propertyNames", Holds::One),
    ("not", Holds::One),
    ("if", Holds::One),
    ("then", Holds::One),
    ("else", Holds::One),
    ("contentSchema", Holds::One),
    ("prefixItems", Holds::List),
    ("anyOf", Holds::List),
    ("oneOf", Holds::List),
    ("allOf", Holds::List),
];

/// The keywords of Gemini's `Schema` that hold schemas: what the API itself descends into.
const GEMINI_KEYWORDS: &[(&str, Holds)] = &[
    ("properties", Holds::Named),
    ("items", Holds::One),
    ("anyOf", Holds::List),
];

/// Which keywords a walk follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every keyword that holds subschemas.
    JsonSchema,
    /// Only `properties`, `items` (a single schema) and `anyOf`: the rest is refused as a
    /// whole by Gemini, so what is inside it does not matter.
    Gemini,
}

impl Scope {
    fn keyword(self, key: &str) -> Option<(&'static str, Holds)> {
        let table = match self {
            Scope::JsonSchema => SCHEMA_KEYWORDS,
            Scope::Gemini => GEMINI_KEYWORDS,
        };
        table.iter().find(|(k, _)| *k == key).copied()
    }
}

/// One subschema, as the walk meets it.
#[derive(Debug)]
pub(crate) struct Node<'s> {
    /// The subschema.
    pub map: &'s Map<String, Value>,
    /// Its JSON Pointer from the root of the input schema (`""` for the root).
    pub pointer: String,
    /// Object schemas from the root down to this one, this one included; a definition under
    /// `$defs` or `definitions` counts from 1 again, since where it is used is not known.
    pub objects: usize,
}

/// Whether a subschema describes an object: its `type` is `object` or a list holding it.
pub(crate) fn is_object(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => false,
    }
}

/// Calls `visit` on `root` and every subschema below it that `scope` follows, parents first,
/// in the order the keys are written.
pub(crate) fn walk<'s>(
    root: &'s Map<String, Value>,
    scope: Scope,
    visit: &mut dyn FnMut(&Node<'s>),
) {
    step(root, String::new(), 0, scope, 0, visit);
}

fn step<'s>(
    map: &'s Map<String, Value>,
    pointer: String,
    objects_above: usize,
    scope: Scope,
    depth: usize,
    visit: &mut dyn FnMut(&Node<'s>),
) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = Node {
        map,
        objects: objects_above + usize::from(is_object(map)),
        pointer,
    };
    visit(&node);
    let Node {
        pointer, objects, ..
    } = node;
    for (key, value) in map {
        let Some((keyword, holds)) = scope.keyword(key) else {
            continue;
        };
        let here = format!("{pointer}/{}", escape(keyword));
        let mut child = |child: &'s Value, at: String, objects: usize| {
            if let Value::Object(c) = child {
                step(c, at, objects, scope, depth + 1, visit);
            }
        };
        match (holds, value) {
            (Holds::Named, Value::Object(children)) => {
                let restart = matches!(keyword, "$defs" | "definitions");
                for (name, c) in children {
                    let at = format!("{here}/{}", escape(name));
                    child(c, at, if restart { 0 } else { objects });
                }
            }
            (Holds::One, Value::Object(_)) => child(value, here, objects),
            (Holds::One | Holds::List, Value::Array(items)) => {
                for (i, c) in items.iter().enumerate() {
                    child(c, format!("{here}/{i}"), objects);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pointers(schema: Value, scope: Scope) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        walk(schema.as_object().unwrap(), scope, &mut |n| {
            out.push((n.pointer.clone(), n.objects))
        });
        out
    }

    #[test]
    fn walks_every_schema_keyword_but_no_value() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a/b": {"type": "array", "items": {"type": "object", "properties": {}}},
                "c": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": {"type": "x"}}
            },
            "enum": [{"type": "object"}],
            "$defs": {"d~": {"type": "object"}}
        });
        assert_eq!(
            pointers(schema.clone(), Scope::JsonSchema),
            vec![
                ("".to_owned(), 1),
                ("/properties/a~1b".to_owned(), 1),
                ("/properties/a~1b/items".to_owned(), 2),
                ("/properties/c".to_owned(), 1),
                ("/properties/c/anyOf/0".to_owned(), 1),
                ("/properties/c/anyOf/1".to_owned(), 1),
                ("/$defs/d~0".to_owned(), 1),
            ]
        );
        let gemini: Vec<String> = pointers(schema, Scope::Gemini)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert!(
            !gemini.iter().any(|p| p.starts_with("/$defs")),
            "{gemini:?}"
        );
        assert!(gemini.contains(&"/properties/c/anyOf/1".to_owned()));
    }

    #[test]
    fn draft04_tuple_items_are_walked_by_index() {
        let schema =
            json!({"type": "object", "properties": {"p": {"items": [{}, {"type": "object"}]}}});
        let got = pointers(schema, Scope::JsonSchema);
        assert!(
            got.contains(&("/properties/p/items/1".to_owned(), 2)),
            "{got:?}"
        );
    }
}
