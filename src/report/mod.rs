//! Reports: one renderer per format of the run's result model ([`crate::outcome::RunReport`],
//! which engines fill). Renderers are pure functions from the model to text; each redacts the
//! model's secrets first ([`crate::outcome::RunReport::redacted`]) and escapes untrusted text for its format. [`write`] owns
//! the files.
//!
//! The evals are worded once, in `evals_view` (rates and verdicts by `evals::judging::tally`, the pure
//! scoring module), and every renderer lays that view out; so is the stress curve, in
//! `stress_view`.

pub mod annotations;
pub mod badge;
pub mod cache;
pub mod console;
pub mod escape;
pub mod evals_view;
pub mod html;
pub mod inspect;
pub mod json;
pub mod json_reference;
pub mod junit;
pub mod markdown;

pub mod places;
pub mod redact;
pub mod step_outputs;
mod stress_view;
mod table;
pub mod write;
