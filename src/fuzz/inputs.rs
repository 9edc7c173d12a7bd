//! The inputs of one tool: valid ones generated from the input schema and invalid ones with one
//! planted defect, each kept only when the schema validator agrees (formats checked too), all
//! drawn from the tool's seeded stream.

use jsonschema::Validator;
use serde_json::Value;

use super::classify::Mode;
use super::rng::Rng;
use super::{invalid, values};

/// Generation attempts per input before the example is left out.
const TRIES: usize = 24;

/// A tool's input source.
pub struct Inputs {
    schema: Value,
    validator: Validator,
    rng: Rng,
}

impl Inputs {
    /// Inputs for `schema`, from `seed` mixed with the tool's name. `Err` when the schema
    /// cannot be compiled.
    pub fn new(schema: &Value, seed: u64, tool: &str) -> Result<Inputs, String> {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map_err(|e| e.to_string())?;
        Ok(Inputs {
            schema: schema.clone(),
            validator,
            rng: Rng::for_tool(seed, tool),
        })
    }

    /// A valid input (an object, since tool arguments are one), or `None` when none was found.
    pub fn valid(&mut self) -> Option<Value> {
        for _ in 0..TRIES {
            let v = values::Gen::new(&self.schema, &mut self.rng).value();
            if let Some(v) = v.filter(|v| v.is_object() && self.validator.is_valid(v)) {
                return Some(v);
            }
        }
        None
    }

    /// An input with exactly one planted defect that the schema rejects.
    pub fn invalid(&mut self) -> Option<Value> {
        for _ in 0..TRIES {
            let base = self.valid()?;
            if let Some((bad, _)) = invalid::plant(&self.schema, &base, &mut self.rng)
                && bad.is_object()
                && !self.validator.is_valid(&bad)
            {
                return Some(bad);
            }
        }
        None
    }

    /// Whether `v` satisfies the schema.
    pub fn mode_of(&self, v: &Value) -> Mode {
        if self.validator.is_valid(v) {
            Mode::Valid
        } else {
            Mode::Invalid
        }
    }

    /// The schema's first objection to `v` (`/order/qty: -1 is less than the minimum of 0`).
    pub fn why_invalid(&self, v: &Value) -> Option<String> {
        self.validator.iter_errors(v).next().map(|e| {
            let at = e.instance_path().as_str().to_owned();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
    }
}
