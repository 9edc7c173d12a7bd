//! The arguments against the tool's input schema, as mcp-toolproof checks them: Draft 2020-12,
//! formats not asserted, and `pattern` matched with Python's `re.search` (so `\d` and `\w`
//! take Unicode digits and letters, and look-behinds and back-references work).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use jsonschema::{Draft, Keyword, ValidationError, Validator};
use serde_json::{Map, Value};

use crate::pycompat::re::PyRegex;

/// `pattern` with Python's meaning.
struct PyPattern {
    regex: PyRegex,
    source: String,
}

impl PyPattern {
    fn failure(&self, instance: &Value) -> Option<String> {
        let Value::String(text) = instance else {
            return None;
        };
        match self.regex.search(text) {
            Ok(true) => None,
            Ok(false) => Some(format!("{instance} does not match {:?}", self.source)),
            Err(gave_up) => Some(format!(
                "{instance} could not be matched against {:?}: {gave_up}",
                self.source
            )),
        }
    }
}

impl<'i> Keyword<'i> for PyPattern {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        match self.failure(instance) {
            None => Ok(()),
            Some(message) => Err(ValidationError::custom(message)),
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        self.failure(instance).is_none()
    }
}

fn py_pattern<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _path: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    let Value::String(source) = value else {
        return Err(ValidationError::custom(format!(
            "`pattern` must be a string, got {value}"
        )));
    };
    let regex = PyRegex::new(source)
        .map_err(|e| ValidationError::custom(format!("`pattern` {source:?} is {e}")))?;
    Ok(Box::new(PyPattern {
        regex,
        source: source.clone(),
    }))
}

/// A validator for `schema` with the reference's semantics, or why it cannot be built.
pub(crate) fn validator(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_keyword("pattern", py_pattern)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// The first way `args` breaks `schema`, with its location; `Err` when the schema cannot be
/// compiled, so the arguments were not checked.
pub(crate) fn first_problem(schema: &Value, args: &Value) -> Result<Option<String>, String> {
    let validator = compiled(schema);
    let validator = validator.as_ref().as_ref().map_err(Clone::clone)?;
    let Some(error) = validator.iter_errors(args).next() else {
        return Ok(None);
    };
    let path = error.instance_path().to_string();
    Ok(Some(if path.is_empty() {
        error.to_string()
    } else {
        format!("{path}: {error}")
    }))
}

/// A compiled schema and the schema it was compiled from.
type Compiled = (Value, Rc<Result<Validator, String>>);

/// The most schemas [`compiled`] keeps: more tools than a server offers a model.
const COMPILED_KEPT: usize = 512;

thread_local! {
    /// Schemas compiled on this thread, by the address of the value they were compiled from.
    static COMPILED: RefCell<HashMap<usize, Compiled>> = RefCell::new(HashMap::new());
}

#[cfg(test)]
thread_local! {
    /// How many schemas [`compiled`] compiled on this thread.
    static COMPILES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// [`validator`] of `schema`, compiled once per schema and thread: a run judges every answer
/// against the same few tool schemas, and compiling one costs far more than checking
/// arguments against it. Found by address and kept only while the schema there is still equal
/// to the one compiled (a freed address may hold another schema later), so the result is
/// always exactly `validator(schema)`.
fn compiled(schema: &Value) -> Rc<Result<Validator, String>> {
    let at = std::ptr::from_ref(schema).addr();
    COMPILED.with_borrow_mut(|memo| {
        if let Some((seen, done)) = memo.get(&at)
            && seen == schema
        {
            return Rc::clone(done);
        }
        if memo.len() >= COMPILED_KEPT {
            memo.clear();
        }
        #[cfg(test)]
        COMPILES.set(COMPILES.get() + 1);
        let done = Rc::new(validator(schema));
        memo.insert(at, (schema.clone(), Rc::clone(&done)));
        done
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problem(schema: &Value, args: Value) -> Option<String> {
        first_problem(schema, &args).unwrap_or_else(|e| Some(format!("not compiled: {e}")))
    }

    #[test]
    fn a_schema_is_compiled_once_for_every_answer_judged_against_it() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let before = COMPILES.get();
        for i in 0..100 {
            assert_eq!(problem(&schema, json!({"n": i})), None);
        }
        assert!(problem(&schema, json!({"n": "x"})).is_some());
        assert_eq!(COMPILES.get() - before, 1);
    }

    #[test]
    fn a_schema_changed_in_place_is_compiled_again() {
        // The same address, another schema: the memo must not answer for the old one.
        let mut schema = json!({"type": "object", "required": ["a"]});
        assert!(problem(&schema, json!({})).is_some());
        schema = json!({"type": "object", "required": ["b"]});
        assert!(problem(&schema, json!({"a": 1})).is_some());
        assert_eq!(problem(&schema, json!({"b": 1})), None);
        schema = json!({"type": "object", "properties": {"p": {"pattern": "(?P<x"}}});
        assert!(first_problem(&schema, &json!({"p": "x"})).is_err());
    }
}
