//! The inputs of one tool: valid ones generated from the input schema and invalid ones with one
//! planted defect, each kept only when the schema validator agrees (formats checked too), all
//! drawn from the tool's seeded stream. Boundary inputs come first, up to a budget: the
//! boundary passes of the schema ([`values::Gen::boundary`]), and each of them with every
//! defect it can carry, off-by-one values (minimum - 1, maximum + 1, one character too many or
//! too few) first. Random inputs follow.

use std::collections::VecDeque;

use jsonschema::Validator;
use serde_json::Value;

use super::classify::Mode;
use super::invalid::Defect;
use super::{invalid, values};
use crate::rng::Rng;

/// Generation attempts per input before the example is left out.
const TRIES: usize = 24;

/// A tool's input source.
pub(crate) struct Inputs {
    schema: Value,
    validator: Validator,
    rng: Rng,
    boundary: Boundary,
}

/// The boundary inputs still to give.
#[derive(Default)]
struct Boundary {
    /// Valid ones left in the budget.
    valid_left: usize,
    /// Invalid ones left in the budget.
    invalid_left: usize,
    /// The next boundary pass.
    pass: usize,
    /// Valid boundary inputs given, in order: the bases of the invalid ones.
    given: Vec<Value>,
    /// Bases whose defects are queued already.
    based: usize,
    /// Invalid inputs queued, and those given.
    queued: VecDeque<Value>,
    planted: Vec<Value>,
}

impl Inputs {
    /// Inputs for `schema`, from `seed` mixed with the tool's name, the first `boundary` valid
    /// and `boundary` invalid ones on the schema's boundaries (fewer when it has fewer). `Err`
    /// when the schema cannot be compiled.
    pub(crate) fn new(
        schema: &Value,
        seed: u64,
        tool: &str,
        boundary: usize,
    ) -> Result<Inputs, String> {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map_err(|e| e.to_string())?;
        Ok(Inputs {
            schema: schema.clone(),
            validator,
            rng: Rng::for_tool(seed, tool),
            boundary: Boundary {
                valid_left: boundary,
                invalid_left: boundary,
                ..Boundary::default()
            },
        })
    }

    /// A valid input (an object, since tool arguments are one), or `None` when none was found:
    /// a boundary one while the budget lasts, then random ones.
    pub(crate) fn valid(&mut self) -> Option<Value> {
        self.boundary_valid().or_else(|| self.random_valid())
    }

    fn boundary_valid(&mut self) -> Option<Value> {
        while self.boundary.valid_left > 0 && self.boundary.pass < values::BOUNDARY_PASSES {
            let k = self.boundary.pass;
            self.boundary.pass += 1;
            let v = values::Gen::boundary(&self.schema, &mut self.rng, k).value();
            if let Some(v) = v.filter(|v| {
                v.is_object() && self.validator.is_valid(v) && !self.boundary.given.contains(v)
            }) {
                self.boundary.valid_left -= 1;
                self.boundary.given.push(v.clone());
                return Some(v);
            }
        }
        None
    }

    fn random_valid(&mut self) -> Option<Value> {
        for _ in 0..TRIES {
            let v = values::Gen::new(&self.schema, &mut self.rng).value();
            if let Some(v) = v.filter(|v| v.is_object() && self.validator.is_valid(v)) {
                return Some(v);
            }
        }
        None
    }

    /// An input with exactly one planted defect that the schema rejects: a boundary one while
    /// the budget lasts, then random ones.
    pub(crate) fn invalid(&mut self) -> Option<Value> {
        self.boundary_invalid().or_else(|| self.random_invalid())
    }

    fn boundary_invalid(&mut self) -> Option<Value> {
        let b = &mut self.boundary;
        while b.invalid_left > 0 {
            if let Some(bad) = b.queued.pop_front() {
                b.invalid_left -= 1;
                b.planted.push(bad.clone());
                return Some(bad);
            }
            let base = b.given.get(b.based)?.clone();
            b.based += 1;
            let mut all = invalid::candidates(&self.schema, &base);
            all.sort_by_key(|p| rank(&p.defect));
            for planted in all {
                let bad = invalid::apply(&base, &planted);
                if bad.is_object()
                    && !self.validator.is_valid(&bad)
                    && !b.planted.contains(&bad)
                    && !b.queued.contains(&bad)
                {
                    b.queued.push_back(bad);
                }
            }
        }
        None
    }

    fn random_invalid(&mut self) -> Option<Value> {
        for _ in 0..TRIES {
            let base = self.random_valid()?;
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
    pub(crate) fn mode_of(&self, v: &Value) -> Mode {
        if self.validator.is_valid(v) {
            Mode::Valid
        } else {
            Mode::Invalid
        }
    }

    /// The schema's first objection to `v` (`/order/qty: -1 is less than the minimum of 0`).
    pub(crate) fn why_invalid(&self, v: &Value) -> Option<String> {
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

/// The order boundary defects are tried in: off-by-one values first, then the other kinds.
fn rank(d: &Defect) -> u8 {
    match d {
        Defect::OutOfRange(_) | Defect::TooLong(_) | Defect::TooShort(_) => 0,
        Defect::NotInEnum(_) => 1,
        Defect::Missing(_) => 2,
        Defect::Null | Defect::WrongType(_) => 3,
        Defect::Extra => 4,
    }
}
