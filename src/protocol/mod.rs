//! The protocol phase: checks of the server's own protocol behaviour (lifecycle, JSON-RPC,
//! capabilities, tools, pagination, resources and prompts, and the streamable HTTP transport),
//! each on raw probe connections (fresh server processes over stdio, fresh sessions over HTTP)
//! so that state from one probe never hides a defect from another.
//! The checks and their severities are listed in [`crate::config::vocab::PROTOCOL_CHECKS`];
//! each one's probe function stands beside its id in `conformance::PROBES`, which must match
//! that list entry for entry or the crate does not compile.

mod conformance;
mod http;
pub(crate) mod probe;

use std::time::Duration;

use crate::config::TransportPref;
use crate::config::vocab::PROTOCOL_CHECKS;
use crate::mcp::ServerSpec;
use crate::outcome::{ProtocolCheck, ProtocolResults, Severity};

pub(crate) use crate::config::vocab::{PROTOCOL_CHECK_IDS, ProtocolCheckInfo};

/// What one check concluded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// The server behaved.
    Pass,
    /// It did not: what it did.
    Fail(String),
    /// It did not, but only in the milder way the check names after `info:` in its summary
    /// (a server that ignored bad input and kept answering): reported at info severity.
    Advice(String),
    /// The check could not apply: why.
    Skip(String),
}

/// What the phase needs besides the server.
pub(crate) struct ProtocolRun<'a> {
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

/// Why the phase could not check the server at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ProtocolError {
    /// The probe's own handshake failed: no process, no answer, or an answer that is neither
    /// a result nor an error. Nothing can be checked, and waiting out every probe would only
    /// hide that behind skipped checks.
    #[error("the protocol probes could not open a session: {0}")]
    Unusable(String),
}

/// Runs every check against `spec` and returns one entry per check; an error when the
/// server could not be reached at all.
pub(crate) fn run(
    spec: &ServerSpec,
    run: &ProtocolRun<'_>,
) -> Result<ProtocolResults, ProtocolError> {
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
            let mut session = conformance::Session::new(spec, run);
            match session.open() {
                Err(conformance::Setup::Unusable(why)) => return Err(ProtocolError::Unusable(why)),
                Err(conformance::Setup::OtherLifecycle(why)) => PROTOCOL_CHECKS
                    .iter()
                    .map(|c| (c.id, Verdict::Skip(why.clone())))
                    .collect(),
                Ok(()) => {
                    let verdicts = session.all();
                    results.protocol_version = session.version();
                    verdicts
                }
            }
        }
    };
    for info in PROTOCOL_CHECKS {
        let verdict = verdicts
            .iter()
            .find(|(id, _)| *id == info.id)
            .map_or(Verdict::Skip("not run".into()), |(_, v)| v.clone());
        results.checks.push(entry(info, verdict));
    }
    Ok(results)
}

fn entry(info: &ProtocolCheckInfo, verdict: Verdict) -> ProtocolCheck {
    let severity = if info.summary.starts_with("error:") {
        Severity::Error
    } else if info.summary.starts_with("info:") {
        Severity::Info
    } else {
        Severity::Warning
    };
    let (status, detail, severity) = match verdict {
        Verdict::Pass => ("passed", None, severity),
        Verdict::Fail(d) => ("failed", Some(d), severity),
        Verdict::Advice(d) => ("failed", Some(d), Severity::Info),
        Verdict::Skip(d) => ("skipped", Some(d), severity),
    };
    ProtocolCheck {
        id: info.id.to_owned(),
        severity,
        status: status.to_owned(),
        detail,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Instant;

    use super::*;
    use crate::mcp::stdio::StdioSpec;

    fn sh(script: &str) -> ServerSpec {
        ServerSpec::Stdio(StdioSpec {
            command: vec!["sh".into(), "-c".into(), script.into()],
            env: BTreeMap::new(),
            inherit_env: true,
            cwd: None,
        })
    }

    fn checked(spec: &ServerSpec) -> Result<ProtocolResults, ProtocolError> {
        let interrupt = crate::interrupt::Interrupt::new();
        let run = ProtocolRun {
            disabled: &[],
            strict: false,
            timeout: Duration::from_millis(300),
            startup: Duration::from_millis(300),
            interrupt: &interrupt,
        };
        super::run(spec, &run)
    }

    #[test]
    fn a_server_that_never_answers_the_handshake_is_an_error_after_one_timeout() {
        let started = Instant::now();
        let err = checked(&sh("sleep 30")).expect_err("nothing can be checked");
        assert!(
            err.to_string().contains("`initialize` got no answer"),
            "{err}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_refused_handshake_skips_every_check_with_the_reason() {
        // The first probe request has id 9001.
        let refusal = r#"{"jsonrpc":"2.0","id":9001,"error":{"code":-32601,"message":"no"}}"#;
        let results = checked(&sh(&format!("read line; echo '{refusal}'; sleep 30")))
            .expect("a refusal is an answer");
        assert_eq!(results.checks.len(), PROTOCOL_CHECKS.len());
        assert!(results.checks.iter().all(|c| c.status == "skipped"));
        let detail = results.checks[0].detail.clone().unwrap_or_default();
        assert!(detail.contains("`initialize` lifecycle"), "{detail}");
    }
}
