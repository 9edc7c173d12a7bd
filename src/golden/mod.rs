//! Golden tests of every report format, rendered from fixture runs. The fixtures go through the
//! engines' own judge, scoring, set lint and stress curve, so these tests sit above both the
//! engines and the report: the report itself depends on no engine.

pub(crate) mod fixtures;

mod annotations;
mod console;
mod evals_view;
mod fuzz;
mod html;
mod inspect;
mod json;
mod junit;
mod junit_schema;
mod markdown;
mod pr_comment;
mod redact;
mod step_outputs;
mod surface;
