//! The protocol phase: checks of the server's own protocol behaviour (lifecycle, JSON-RPC,
//! capabilities, tools, pagination, resources and prompts, and the streamable HTTP transport),
//! each on raw probe connections (fresh server processes over stdio, fresh sessions over HTTP)
//! so that state from one probe never hides a defect from another.
//! The checks and their severities are listed in [`crate::config::vocab::PROTOCOL_CHECKS`].

mod checks;
mod http;
pub(crate) mod probe;

use std::time::Duration;

use crate::config::TransportPref;
use crate::config::vocab::PROTOCOL_CHECKS;
use crate::mcp::ServerSpec;
use crate::report::model::{ProtocolCheck, ProtocolResults, Severity};

pub use crate::config::vocab::{PROTOCOL_CHECK_IDS, ProtocolCheckInfo};

/// What one check concluded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// The server behaved.
    Pass,
    /// It did not: what it did.
    Fail(String),
    /// The check could not apply: why.
    Skip(String),
}

/// What the phase needs besides the server.
pub struct ProtocolRun<'a> {
    /// Checks turned off.
    pub disabled: &'a [String],
    /// Failed warnings fail the phase.
    pub strict: bool,
    /// How long a probe waits for one answer.
    pub timeout: Duration,
    /// How long a fresh server process may take to give its first answer (`server.startup_timeout`).
    pub startup: Duration,
    /// Stop starting checks once set.
    pub interrupt: &'a crate::interrupt::Interrupt,
}

/// Runs every check against `spec` and returns one entry per check.
pub fn run(spec: &ServerSpec, run: &ProtocolRun<'_>) -> ProtocolResults {
    let mut results = ProtocolResults {
        strict: run.strict,
        ..ProtocolResults::default()
    };
    let verdicts: Vec<(&'static str, Verdict)> = match spec {
        ServerSpec::Http(h) if h.transport == TransportPref::Sse => {
            results.transport = "sse".into();
            let why = "the protocol probes speak stdio and streamable HTTP, not the 2024-11-05 \
                       HTTP+SSE transport";
            PROTOCOL_CHECKS
                .iter()
                .map(|c| (c.id, Verdict::Skip(why.into())))
                .collect()
        }
        _ => {
            results.transport = match spec {
                ServerSpec::Stdio(_) => "stdio",
                ServerSpec::Http(_) => "streamable-http",
            }
            .into();
            let mut session = checks::Session::new(spec, run);
            let verdicts = session.all();
            results.protocol_version = session.version();
            verdicts
        }
    };
    for info in PROTOCOL_CHECKS {
        let verdict = verdicts
            .iter()
            .find(|(id, _)| *id == info.id)
            .map_or(Verdict::Skip("not run".into()), |(_, v)| v.clone());
        results.checks.push(entry(info, verdict));
    }
    results
}

fn entry(info: &ProtocolCheckInfo, verdict: Verdict) -> ProtocolCheck {
    let severity = if info.summary.starts_with("error:") {
        Severity::Error
    } else {
        Severity::Warning
    };
    let (status, detail) = match verdict {
        Verdict::Pass => ("passed", None),
        Verdict::Fail(d) => ("failed", Some(d)),
        Verdict::Skip(d) => ("skipped", Some(d)),
    };
    ProtocolCheck {
        id: info.id.to_owned(),
        severity,
        status: status.to_owned(),
        detail,
    }
}
