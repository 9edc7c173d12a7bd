//! Tool-selection evals: give a model the server's tool list, record which tool it picks for
//! each labelled prompt (nothing is called), score it, and gate the run.
//!
//! Two halves: [`asking`] puts the question to a model (providers, the engine, the answer cache,
//! the tool list as APIs take it, usage and prices); [`judging`] weighs the answers (one answer
//! against its label: `grade`; a whole run: `tally`; the set lint, the stress curve, the history
//! file, the statistics).
//!
//! Shared vocabulary of the evals modules lives here: what a model answered ([`Choice`]) and
//! the tool list as model APIs see it ([`ApiTool`]).

pub(crate) mod asking;
pub(crate) mod judging;

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub(crate) use crate::provider::{ApiTool, Stop};
use serde_json::Value;

/// Reads a whole file as UTF-8 text, refusing one larger than `limit` bytes without loading
/// it (a device such as /dev/zero never ends); the error says so and names `what` the file is.
pub(crate) fn read_capped(path: &Path, limit: u64, what: &str) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    // Sized from the file's length (a device says 0 and grows as read): one read of the whole
    // text and one of its end, where a bare `take` would start at 32 bytes and double.
    let size = file.metadata().map_or(0, |m| m.len()).min(limit) as usize;
    let mut bytes = Vec::with_capacity(size + 1);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("it is larger than the {} MiB limit for {what}", limit >> 20),
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// One call a model made, with the MCP tool name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Call {
    /// MCP tool name (mapped back from the API-safe name; unknown names kept as returned).
    pub tool: String,
    /// Parsed arguments (`{}` when the model sent none or they were malformed).
    pub args: Value,
    /// The raw arguments string, when it was not a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub malformed: Option<String>,
}

/// What a model answered to one prompt, in MCP terms: every call, in order, and the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Choice {
    /// Every tool call, in the order the model made them.
    pub calls: Vec<Call>,
    /// Text that came with the answer (joined with spaces).
    pub text: String,
    /// Why the model stopped.
    pub stop: Stop,
}

#[cfg(test)]
mod tests {
    use super::read_capped;

    #[test]
    fn a_file_is_read_whole_up_to_the_limit_and_refused_past_it() {
        let dir =
            std::env::temp_dir().join(format!("toolproof-read-capped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        let path = dir.join("entry.json");
        for size in [0, 1, 31, 32, 33, 4095, 4096, 4097, 10_000] {
            let text: String = (0..size)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            std::fs::write(&path, &text).expect("write");
            assert_eq!(
                read_capped(&path, 10_000, "a test file").expect("read"),
                text
            );
        }
        std::fs::write(&path, "x".repeat(10_001)).expect("write");
        let refused = read_capped(&path, 10_000, "a test file").expect_err("too large");
        assert_eq!(refused.kind(), std::io::ErrorKind::FileTooLarge);
        let endless = read_capped(std::path::Path::new("/dev/zero"), 1 << 20, "a device");
        assert_eq!(
            endless.map_err(|e| e.kind()).err(),
            Some(std::io::ErrorKind::FileTooLarge)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
