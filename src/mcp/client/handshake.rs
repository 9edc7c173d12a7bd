//! The handshake: a pinned revision, or the era detected (HTTP: `server/discover`, then
//! `initialize`; stdio: both at once, see [`probe_stdio`]), and what the server said about
//! itself.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::deviations::Deviations;
use super::{Client, Conn, result_of};
use crate::config::{ProtocolPin, TransportPref};
use crate::mcp::error::{McpError, Refusal, shorten};
use crate::mcp::protocol::{self, LATEST_LEGACY, LEGACY_VERSIONS, MODERN_VERSION};
use crate::mcp::stdio::StdioTransport;
use crate::mcp::types::Era;

impl Client {
    /// Brings the connection to a usable era before `deadline`. Over HTTP, the transport
    /// first: `sse` opens the 2024-11-05 event stream; `auto` falls back to it when the
    /// streamable HTTP handshake gets 400, 404 or 405 (the specification's
    /// backwards-compatibility procedure), keeping the first error when that fails too;
    /// `streamable-http` says when its refusal may come from an HTTP+SSE server.
    pub(super) fn handshake(&mut self, deadline: Instant) -> Result<(), McpError> {
        let Conn::Http(t) = &mut self.conn else {
            return self.handshake_era(deadline);
        };
        match t.transport() {
            TransportPref::StreamableHttp => self.handshake_era(deadline).map_err(hint_sse),
            TransportPref::Sse => {
                t.open_legacy(Self::remaining(deadline))?;
                self.handshake_legacy_sse(deadline)
            }
            TransportPref::Auto => match self.handshake_era(deadline) {
                Err(
                    e @ McpError::Http {
                        status: 400 | 404 | 405,
                        ..
                    },
                ) => {
                    let Conn::Http(t) = &mut self.conn else {
                        return Err(e);
                    };
                    t.reset_session();
                    t.set_protocol_none();
                    if t.open_legacy(Self::remaining(deadline)).is_err() {
                        return Err(e);
                    }
                    self.handshake_legacy_sse(deadline)
                }
                other => other,
            },
        }
    }

    /// The legacy handshake over HTTP+SSE (a transport that predates 2026-07-28).
    fn handshake_legacy_sse(&mut self, deadline: Instant) -> Result<(), McpError> {
        let version = match self.opts.pin {
            ProtocolPin::V20250326 => "2025-03-26",
            ProtocolPin::V20250618 => "2025-06-18",
            ProtocolPin::Auto | ProtocolPin::V20251125 | ProtocolPin::V20260728 => LATEST_LEGACY,
        };
        self.legacy_only(version, deadline)
    }

    /// The era: pinned, or detected.
    fn handshake_era(&mut self, deadline: Instant) -> Result<(), McpError> {
        let legacy_version = match self.opts.pin {
            ProtocolPin::Auto => None,
            ProtocolPin::V20250326 => Some("2025-03-26"),
            ProtocolPin::V20250618 => Some("2025-06-18"),
            ProtocolPin::V20251125 => Some("2025-11-25"),
            ProtocolPin::V20260728 => return self.modern_only(deadline),
        };
        if let Some(version) = legacy_version {
            return self.legacy_only(version, deadline);
        }
        match self.conn {
            Conn::Stdio(_) => self.stdio_auto(deadline),
            Conn::Http(_) => self.http_auto(deadline),
        }
    }

    fn remaining(deadline: Instant) -> Duration {
        deadline.saturating_duration_since(Instant::now())
    }

    fn modern_only(&mut self, deadline: Instant) -> Result<(), McpError> {
        self.era = Era::Modern;
        if let Conn::Http(t) = &mut self.conn {
            t.set_protocol(MODERN_VERSION, Era::Modern);
        }
        let response = self.roundtrip("server/discover", None, Self::remaining(deadline))?;
        let result = result_of("server/discover", response)?;
        if !protocol::supports_modern(&result) {
            return Err(McpError::NotModern {
                supported: result
                    .get("supportedVersions")
                    .unwrap_or(&Value::Null)
                    .to_string(),
            });
        }
        self.adopt_modern(&result);
        Ok(())
    }

    fn legacy_only(&mut self, version: &str, deadline: Instant) -> Result<(), McpError> {
        self.era = Era::Legacy;
        let response = self.roundtrip(
            "initialize",
            Some(protocol::initialize_params(
                version,
                &self.opts.capabilities,
            )),
            Self::remaining(deadline),
        )?;
        let result = result_of("initialize", response)?;
        self.adopt_legacy(&result)
    }

    fn http_auto(&mut self, deadline: Instant) -> Result<(), McpError> {
        match self.modern_only(deadline) {
            Ok(()) => Ok(()),
            Err(e @ (McpError::Connect { .. } | McpError::Timeout { .. })) => Err(e),
            Err(_) => {
                if let Conn::Http(t) = &mut self.conn {
                    t.reset_session();
                    t.set_protocol_none();
                }
                self.legacy_only(LATEST_LEGACY, deadline)
            }
        }
    }

    fn stdio_auto(&mut self, deadline: Instant) -> Result<(), McpError> {
        let Conn::Stdio(t) = &mut self.conn else {
            return Err(McpError::Protocol("not a stdio connection".into()));
        };
        let decision = probe_stdio(t, &mut self.deviations, &self.opts.capabilities, deadline);
        // Whatever the probe did not wait for is not awaited (a server that speaks both eras
        // answers the handshake it lost too).
        for id in [DISCOVER_ID, INIT_ID, FENCE_ID] {
            t.abandon(&Value::from(id));
        }
        let decision = decision?;
        self.next_id = 3;
        match decision {
            Decision::Modern(result) => {
                self.adopt_modern(&result);
                Ok(())
            }
            Decision::Legacy(result) => self.adopt_legacy(&result),
        }
    }

    fn adopt_modern(&mut self, result: &Value) {
        let server = result
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"));
        self.info = protocol::server_info(server, result, MODERN_VERSION);
        self.era = Era::Modern;
        if let Conn::Http(t) = &mut self.conn {
            t.set_protocol(MODERN_VERSION, Era::Modern);
        }
    }

    fn adopt_legacy(&mut self, result: &Value) -> Result<(), McpError> {
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !LEGACY_VERSIONS.contains(&version) {
            return Err(McpError::UnknownVersion {
                version: shorten(version, 40),
            });
        }
        self.info = protocol::server_info(result.get("serverInfo"), result, version);
        self.era = Era::Legacy;
        if let Conn::Http(t) = &mut self.conn {
            t.set_protocol(version, Era::Legacy);
        }
        self.notify("notifications/initialized")?;
        if let Conn::Http(t) = &mut self.conn {
            t.listen();
        }
        Ok(())
    }
}

/// What an HTTP+SSE (2024-11-05) server answers a POST to its stream URL: 400, 404 or 405,
/// the statuses `auto` falls back on. Such an error of a `streamable-http` handshake names
/// `transport: sse` as a way out.
fn hint_sse(error: McpError) -> McpError {
    match error {
        McpError::Http {
            status: status @ (400 | 404 | 405),
            url,
            detail,
            hint,
        } => {
            let sse = "if the server speaks the 2024-11-05 HTTP+SSE transport, set \
                       `server.transport: sse` or `auto`, with `server.url` its event stream";
            McpError::Http {
                status,
                url,
                detail,
                hint: Some(match hint {
                    Some(h) => format!("{h}; {sse}"),
                    None => sse.to_owned(),
                }),
            }
        }
        other => other,
    }
}

enum Decision {
    Modern(Value),
    Legacy(Value),
}

/// What each handshake request of the probe got so far.
#[derive(Default)]
struct Probe {
    discover: Option<Result<Value, Refusal>>,
    init: Option<Result<Value, Refusal>>,
    fence_sent: bool,
}

impl Probe {
    /// Records a response to one of our ids.
    fn record(&mut self, id: &Value, outcome: Result<Value, Refusal>) {
        match id.as_u64() {
            Some(DISCOVER_ID) => self.discover = Some(outcome),
            Some(INIT_ID) => self.init = Some(outcome),
            Some(FENCE_ID) if self.discover.is_none() => {
                self.discover = Some(Err(Refusal::NotAnswered));
            }
            _ => {}
        }
    }

    /// The era once the answers decide it, an error when both handshakes failed, or `None`
    /// to keep reading.
    fn decision(&self) -> Option<Result<Decision, McpError>> {
        if let Some(Ok(result)) = &self.discover
            && protocol::supports_modern(result)
        {
            return Some(Ok(Decision::Modern(result.clone())));
        }
        match (&self.discover, &self.init) {
            (Some(_), Some(Ok(result))) => Some(Ok(Decision::Legacy(result.clone()))),
            (Some(Err(d)), Some(Err(i))) => Some(Err(McpError::HandshakesRefused {
                initialize: i.clone(),
                discover: d.clone(),
            })),
            (Some(Ok(_)), Some(Err(i))) => Some(Err(McpError::NoHandshake {
                initialize: i.clone(),
            })),
            _ => None,
        }
    }

    /// Whether to send the `ping` fence: initialize answered, discover not yet.
    fn wants_fence(&self) -> bool {
        !self.fence_sent && self.discover.is_none() && matches!(self.init, Some(Ok(_)))
    }

    /// The request still awaited, for a timeout.
    fn waiting_for(&self) -> &'static str {
        if self.init.is_none() {
            "initialize"
        } else {
            "server/discover"
        }
    }
}

const DISCOVER_ID: u64 = 1;
const INIT_ID: u64 = 2;
const FENCE_ID: u64 = 3;

/// Sends `server/discover` and `initialize` back to back so neither kind of server makes us
/// wait: a modern server answers discover, a legacy one answers initialize. A legacy server
/// that ignores discover is detected with a `ping` fence after its initialize answer: servers
/// answer in order, so the fence's answer means discover will not be answered.
fn probe_stdio(
    t: &mut StdioTransport,
    deviations: &mut Deviations,
    capabilities: &Value,
    deadline: Instant,
) -> Result<Decision, McpError> {
    let discover = protocol::with_modern_meta(None, capabilities);
    t.send(&protocol::request(
        DISCOVER_ID,
        "server/discover",
        Some(discover),
    ))?;
    let initialize = protocol::initialize_params(LATEST_LEGACY, capabilities);
    t.send(&protocol::request(INIT_ID, "initialize", Some(initialize)))?;
    let mut probe = Probe::default();
    loop {
        let Some(incoming) = t
            .recv(deadline)
            .map_err(|e| e.answering(probe.waiting_for()))?
        else {
            return Err(McpError::Timeout {
                method: probe.waiting_for().into(),
                after: Duration::ZERO,
            });
        };
        for msg in protocol::flatten(incoming) {
            let id = msg.get("id").cloned();
            if let (Some(id), Some(m)) = (&id, msg.get("method").and_then(Value::as_str)) {
                t.send(&protocol::answer_server_request(id.clone(), m))?;
                continue;
            }
            let Some(id) = id else { continue };
            let method = match id.as_u64() {
                Some(DISCOVER_ID) => "server/discover",
                Some(INIT_ID) => "initialize",
                _ => "ping",
            };
            deviations.note(method, &msg);
            let outcome = protocol::split_response(msg).map_err(|e| Refusal::Rpc {
                code: e.code,
                message: shorten(&e.message, 200),
            });
            probe.record(&id, outcome);
        }
        if let Some(decision) = probe.decision() {
            return decision;
        }
        if probe.wants_fence() {
            t.send(&protocol::request(FENCE_ID, "ping", None))?;
            probe.fence_sent = true;
        }
    }
}
