//! The fault suite: toolproof against hostile and broken servers, HTTP endpoints, model APIs,
//! command providers, files, configs and signals. Every case asserts the exit code, that
//! nothing panicked, that every report asked for was written and is valid, that the message
//! names what happened, and that nothing was lost. See `tests/faults/harness.rs`.

#[path = "faults/harness.rs"]
mod harness;

#[path = "faults/servers.rs"]
mod servers;

#[path = "faults/config.rs"]
mod config;

#[path = "faults/providers_command.rs"]
mod providers_command;

#[path = "faults/http_redirects.rs"]
mod http_redirects;

#[path = "faults/protocol.rs"]
mod protocol;

#[path = "faults/http.rs"]
mod http;

#[path = "faults/providers_api.rs"]
mod providers_api;

#[path = "faults/secrets.rs"]
mod secrets;

#[path = "faults/files.rs"]
mod files;
