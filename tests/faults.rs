//! The fault suite: toolproof against hostile and broken servers, HTTP endpoints, model APIs,
//! command providers, files, configs and signals. Every case asserts the exit code, that
//! nothing panicked, that every report asked for was written and is valid, that the message
//! names what happened, and that nothing was lost. See `tests/faults/harness.rs`.

#[path = "faults/harness.rs"]
mod harness;

#[path = "faults/servers.rs"]
mod servers;

#[path = "faults/secrets.rs"]
mod secrets;

#[path = "faults/files.rs"]
mod files;
