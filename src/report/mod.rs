//! Reports: one renderer per format of the run's result model ([`crate::outcome::RunReport`],
//! which engines fill). Renderers are pure functions from the model to text; each redacts the
//! model's secrets first ([`crate::outcome::RunReport::redacted`]) and escapes untrusted text for its format. [`write`] owns
//! the files.
//!
//! The evals are worded once, in `evals_view` (rates and verdicts by `evals::judging::tally`, the pure
//! scoring module), and every renderer lays that view out; so is the stress curve, in
//! `stress_view`.

pub(crate) mod annotations;
pub(crate) mod badge;
pub(crate) mod cache;
pub(crate) mod console;
pub(crate) mod escape;
pub(crate) mod evals_view;
pub(crate) mod html;
pub(crate) mod inspect;
pub(crate) mod json;
pub(crate) mod json_reference;
pub(crate) mod junit;
pub(crate) mod markdown;

pub(crate) mod places;
pub(crate) mod redact;
pub(crate) mod sarif;
pub(crate) mod step_outputs;
mod stress_view;
mod table;
pub(crate) mod write;
