//! toolproof tests MCP servers in CI: static checks on tool definitions, YAML tool-call tests,
//! tool-selection evals, and the reports CI systems read.

pub mod checks;
pub mod config;
pub mod mcp;
pub mod report;

/// Runs the command line and returns the process exit code.
pub fn main_entry<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let _ = args.into_iter().count();
    0
}
