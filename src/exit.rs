//! toolproof's exit codes, which every command, report and step output agrees on.

/// Exit code: everything passed.
pub(crate) const EXIT_OK: i32 = 0;
/// Exit code: a check, test or gate failed, or the server could not be used.
pub(crate) const EXIT_FAILED: i32 = 1;
/// Exit code: bad config or usage.
pub(crate) const EXIT_USAGE: i32 = 2;
