//! checks (stub)
#![allow(missing_docs)]
use crate::config::ChecksConfig;
use crate::mcp::types::Tool;
use crate::report::model::ChecksResults;
pub struct CheckContext<'a> { pub server_name: Option<&'a str>, pub stdout_noise: &'a [String] }
pub fn run(_tools: &[Tool], _cfg: &ChecksConfig, _ctx: &CheckContext) -> ChecksResults { ChecksResults::default() }
