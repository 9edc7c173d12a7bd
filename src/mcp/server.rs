//! What the phases that call tools (tests, fuzz) need from a connection: [`ToolServer`], which
//! [`Client`] is in production.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::interrupt::Interrupt;
use crate::mcp::client::{CallFailure, Client, ConnectError};
use crate::mcp::requests::{Script, ServerRequest};
use crate::mcp::types::CallOutcome;

/// A connection to call tools on, restart when it dies or hangs, and script the answers to the
/// server's own requests on.
pub(crate) trait ToolServer {
    /// One `tools/call`.
    fn call(
        &mut self,
        tool: &str,
        args: &Map<String, Value>,
        timeout: Duration,
    ) -> Result<CallOutcome, CallFailure>;
    /// Whether the server process has ended.
    fn has_exited(&self) -> bool;
    /// Starts the server again after it died.
    fn restart(&mut self) -> Result<(), ConnectError>;
    /// Whether the server still answers, after a call timed out.
    fn answers_ping(&mut self) -> bool;
    /// Restarts a server that does not answer any more.
    fn restart_hung(&mut self) -> Result<(), ConnectError>;
    /// Answers the server's own requests from `script` from now on.
    fn script_answers(&mut self, _script: Script) {}
    /// The server's own requests since the last call of this.
    fn server_requests(&mut self) -> Vec<ServerRequest> {
        Vec::new()
    }
    /// Waits between attempts (less when the run is interrupted).
    fn pause(&mut self, d: Duration, interrupt: &Interrupt) {
        interrupt.sleep(d);
    }
}

impl ToolServer for Client {
    fn call(
        &mut self,
        tool: &str,
        args: &Map<String, Value>,
        timeout: Duration,
    ) -> Result<CallOutcome, CallFailure> {
        self.call_tool(tool, args, timeout)
    }

    fn has_exited(&self) -> bool {
        Client::has_exited(self)
    }

    fn restart(&mut self) -> Result<(), ConnectError> {
        Client::restart(self)
    }

    fn answers_ping(&mut self) -> bool {
        Client::answers_ping(self)
    }

    fn restart_hung(&mut self) -> Result<(), ConnectError> {
        Client::restart_hung(self)
    }

    fn script_answers(&mut self, script: Script) {
        Client::script_answers(self, script);
    }

    fn server_requests(&mut self) -> Vec<ServerRequest> {
        self.take_server_requests()
    }
}
