//! The arguments against the tool's input schema, as mcp-toolproof checks them: Draft 2020-12,
//! formats not asserted, and `pattern` matched with Python's `re.search` (so `\d` and `\w`
//! take Unicode digits and letters, and look-behinds and back-references work).

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
pub fn validator(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_keyword("pattern", py_pattern)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// The first way `args` breaks `schema`, with its location; `Err` when the schema cannot be
/// compiled, so the arguments were not checked.
pub fn first_problem(schema: &Value, args: &Value) -> Result<Option<String>, String> {
    let validator = validator(schema)?;
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
