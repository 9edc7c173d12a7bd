//! The connection a loaded config describes: where the server is, the client's options, and
//! the answers the config scripts for the server's own requests (which decide the client
//! capabilities declared at `initialize`).

use std::time::Duration;

use serde_json::Value;

use super::http::HttpSpec;
use super::requests::Script;
use super::stdio::StdioSpec;
use crate::config::{Config, LoadedConfig, ProtocolPin, TestCase};

/// Where the server is.
#[derive(Debug, Clone)]
pub enum ServerSpec {
    /// A program speaking stdio.
    Stdio(StdioSpec),
    /// A streamable HTTP endpoint.
    Http(HttpSpec),
}

/// Knobs of a connection.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Era or revision to speak.
    pub pin: ProtocolPin,
    /// Budget for start-up and the handshake.
    pub startup_timeout: Duration,
    /// Budget for listings and other non-tool requests.
    pub request_timeout: Duration,
    /// Client capabilities declared at `initialize` (and in stateless `_meta`): `{}`, or what
    /// the config's scripted answers need (see [`Script::capabilities`]).
    pub capabilities: Value,
}

/// The connection settings a loaded config implies (its protocol pin already resolved).
pub(crate) fn server_spec(loaded: &LoadedConfig) -> (ServerSpec, ClientOptions) {
    let server = &loaded.config.server;
    let spec = match (&server.url, &server.command) {
        (Some(url), _) => ServerSpec::Http(HttpSpec {
            url: url.clone(),
            transport: server.transport,
            headers: server
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }),
        (None, command) => ServerSpec::Stdio(StdioSpec {
            command: command.clone().unwrap_or_default(),
            env: server.env.clone(),
            inherit_env: server.inherit_env,
            cwd: Some(
                server
                    .cwd
                    .clone()
                    .unwrap_or_else(|| loaded.base_dir.clone()),
            ),
        }),
    };
    let startup = crate::config::limits::seconds(server.startup_timeout_s.max(0.001));
    let opts = ClientOptions {
        pin: server.protocol,
        startup_timeout: startup,
        request_timeout: startup.max(Duration::from_secs(30)),
        capabilities: declared_answers(&loaded.config).capabilities(),
    };
    (spec, opts)
}

/// The answers a test scripts for the server's own requests (the loader already filled in the
/// top-level ones).
pub(crate) fn script_of(test: &TestCase) -> Script {
    Script {
        elicitation: test.elicitation.clone(),
        sampling: test.sampling.clone(),
        roots: test.roots.clone(),
    }
}

/// Every kind of answer the config scripts anywhere, so the connection declares the matching
/// client capabilities at `initialize`.
pub(crate) fn declared_answers(cfg: &Config) -> Script {
    let top = Script {
        elicitation: cfg.elicitation.clone(),
        sampling: cfg.sampling.clone(),
        roots: cfg.roots.clone(),
    };
    cfg.tests.iter().fold(top, |all, t| all.or(&script_of(t)))
}
