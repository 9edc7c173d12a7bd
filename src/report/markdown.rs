//! markdown (stub)
#![allow(missing_docs)]
pub fn render(_report: &super::model::RunReport) -> String { String::new() }
