//! Reports: one data model ([`model::RunReport`]) and one renderer per format. Renderers are
//! pure functions from the model to text; [`write`] owns the files.

pub mod annotations;
pub mod console;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod model;
pub mod write;
