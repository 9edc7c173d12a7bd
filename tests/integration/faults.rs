//! The fault suite: toolproof against hostile and broken servers, HTTP endpoints, model APIs,
//! command providers, files, configs and signals. Every case asserts the exit code, that
//! nothing panicked, that every report asked for was written and is valid, that the message
//! names what happened, and that nothing was lost. See `tests/faults/harness.rs`.

mod harness;

mod servers;

mod config;

mod providers_command;

mod http_redirects;

mod protocol;

mod http;

mod providers_api;

mod secrets;

mod files;

mod merge;

mod session;

mod batches;

mod tokens;
