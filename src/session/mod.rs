//! `toolproof session` (hidden from `--help`): one server connection held open and driven by
//! JSON lines, so the pytest plugin in the Python package (`python/toolproof/`) calls tools
//! through this MCP client instead of a second one written in Python.
//!
//! # Choosing the server
//!
//! As `inspect` does: `-c FILE`, `--url URL` or `-- COMMAND…` (with `--protocol` and
//! `--transport`), else `TOOLPROOF_CONFIG`, else `./toolproof.yaml`. With `--server-on-stdin`
//! the first line on stdin is the server instead, as a JSON object with the fields of
//! mcp-toolproof's `ServerConfig`:
//!
//! ```text
//! {"command": ["python", "server.py"], "env": {"K": "v"}, "cwd": "/abs/dir", "startup_timeout_s": 30}
//! {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer …"}}
//! ```
//!
//! `cwd` is the stdio server's working folder and the folder a relative program resolves from
//! (default: the session's own). The line travels on stdin rather than in the arguments so that
//! `env` and `headers` values never show in the process list.
//!
//! # The conversation
//!
//! The session first writes one line saying whether it is connected:
//!
//! ```text
//! {"ready": true, "server": {"name": …, "version": …, "protocol_version": …}, "transport": "stdio", "era": "legacy"}
//! {"ready": false, "usage": false, "error": "could not connect to the server: …", "stderr": "…"}
//! ```
//!
//! After `ready: false` it exits (2 when `usage` is true: a bad config or server line; else 1).
//! After `ready: true` it reads one request per line and writes one reply per line, in order:
//!
//! ```text
//! {"id": 1, "op": "call", "tool": "add", "arguments": {"a": 1}, "timeout_s": 30}
//!   → {"id": 1, "ok": true, "result": {"is_error": false, "text": "…", "structured": {…} or null,
//!      "latency_ms": 1.2, "transport_error": null, "timed_out": false, "protocol_error": false,
//!      "error_code": null}}
//! {"id": 2, "op": "list_tools"}   → {"id": 2, "ok": true, "tools": [every tool as sent]}
//! {"id": 3, "op": "close"}        → ends the session, as the end of stdin does
//! a line it cannot read, or a listing that failed → {"id": …, "ok": false, "error": "…"}
//! a line over the 64 MiB message limit → {"id": null, "ok": false, "error": "the request line is … bytes, …"}
//! ```
//!
//! A request line is held up to the client's limit for one message (64 MiB); a longer one is
//! skipped to its end unread and never reaches the server, and the session goes on. Every
//! message it writes masks the config's `${VAR}` values and toolproof's own credentials in the
//! environment (the providers' keys, the CI tokens), as every other command does.
//!
//! `id` is echoed as sent (`null` when absent); `arguments` defaults to `{}` and `timeout_s` to
//! 30. A call's result has the meaning of mcp-toolproof's `CallResult`: a JSON-RPC error
//! answer is `is_error` and `protocol_error` with the message as `text` and the code as
//! `error_code`; no answer sets `transport_error` (and `timed_out` for a timeout), and a server
//! that died mid-call reads "connection lost, server probably crashed (…)".
//!
//! # When the server dies or hangs
//!
//! The session outlives its server. A server that exited (or whose pipes broke) is started
//! again before the next request; a call that timed out is followed by a `ping`, and a server
//! that does not answer it is restarted at once, as the YAML tests do. Each restart is said on
//! stderr. When a restart fails, that request gets `transport_error` (a call) or `ok: false`
//! (a listing) saying the server could not be restarted and why, and the next request tries
//! again. stdout carries the protocol only; everything meant for a person goes to stderr.

#[cfg(test)]
mod tests;
mod wire;

use std::io::{self, BufRead, Read, Write};

use serde_json::Value;

use crate::cli::{Cli, SessionArgs};
use crate::config::{self, ConfigError, LoadedConfig};
use crate::exit::{EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use crate::mcp::Client;
use crate::mcp::error::McpError;
use crate::mcp::protocol::MESSAGE_LIMIT;
use crate::output::to_stderr;
use crate::report::redact::Redactor;
use crate::settings::{self, Env, Settings};
use wire::{CallReply, Op};

/// Runs a session on this process's stdin and stdout; returns the exit code.
pub(crate) fn main(cli: &Cli, args: &SessionArgs, env: &Env) -> i32 {
    let stdin = io::stdin();
    run(cli, args, env, &mut stdin.lock(), &mut io::stdout().lock())
}

/// Runs a session reading requests from `input` and writing replies to `out`.
fn run(
    cli: &Cli,
    args: &SessionArgs,
    env: &Env,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> i32 {
    let (loaded, redact) = match load(cli, args, env, input) {
        Ok(loaded) => loaded,
        Err(e) => {
            // The environment's credentials are known before any config is: a server line
            // or URL that carries one is still masked.
            let redact = Redactor::new(&settings::environment_secrets(env));
            let message = redact.apply(&e.to_string()).into_owned();
            to_stderr(&format!("error: {message}"));
            let _ = send(out, &wire::not_ready_line(&message, true, ""));
            return EXIT_USAGE;
        }
    };
    let (spec, opts) = crate::mcp::spec::server_spec(&loaded);
    let client = match Client::connect(spec, opts) {
        Ok(client) => client,
        Err(e) => {
            let message = redact
                .apply(&format!("could not connect to the server: {}", e.error))
                .into_owned();
            to_stderr(&format!("error: {message}"));
            let stderr = redact.apply(&e.stderr).into_owned();
            let _ = send(out, &wire::not_ready_line(&message, false, &stderr));
            return EXIT_FAILED;
        }
    };
    let mut session = Session {
        client,
        restart_due: false,
        redact,
    };
    let ready = wire::ready_line(
        session.client.info(),
        session.client.transport_name(),
        session.client.era(),
    );
    if send(out, &ready).is_ok() {
        session.serve(input, out);
    }
    session.client.close();
    EXIT_OK
}

/// The config of the server: from the command line as `inspect` reads it, or from the server
/// line on stdin; the protocol pin and transport resolved as for every command. With it, what
/// every message of the session masks: the config's `${VAR}` values and the environment's
/// credentials, as every other command masks them.
fn load(
    cli: &Cli,
    args: &SessionArgs,
    env: &Env,
    input: &mut impl BufRead,
) -> Result<(LoadedConfig, Redactor), ConfigError> {
    let loaded = if args.server_on_stdin {
        let mut bytes = Vec::new();
        let line = match read_request(input, &mut bytes) {
            Ok(Some(Line::Whole)) | Ok(None) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(Some(Line::TooLong(len))) => {
                return Err(ConfigError::new(format!(
                    "the server line is {len} bytes, over the {} MiB limit for one message",
                    MESSAGE_LIMIT >> 20
                )));
            }
            Err(e) => {
                return Err(ConfigError::new(format!(
                    "could not read the server line: {e}"
                )));
            }
        };
        let server = wire::parse_server(line.trim_end()).map_err(|message| {
            ConfigError::new(message).hint(
                "send one JSON object such as {\"command\": [\"python\", \"server.py\"]} or {\"url\": \"http://127.0.0.1:8000/mcp\"}",
            )
        })?;
        from_server_line(server, env)?
    } else {
        let source = settings::config_source(cli, env)?;
        let loaded = source.load(env)?;
        let mut secrets = settings::environment_secrets(env);
        secrets.extend(loaded.secrets.iter().cloned());
        let redact = Redactor::new(&secrets);
        for warning in &loaded.warnings {
            to_stderr(&redact.apply(&format!("warning: {warning}")));
        }
        loaded
    };
    let settings = Settings::resolve(cli, env, loaded)?;
    Ok((settings.loaded().clone(), Redactor::new(settings.secrets())))
}

/// What [`read_request`] read.
#[derive(Debug, PartialEq)]
enum Line {
    /// The whole line is in the buffer (without its `\n`).
    Whole,
    /// The line was longer than [`MESSAGE_LIMIT`]: this many bytes (without its `\n`), of
    /// which the buffer holds none, the rest skipped unread.
    TooLong(u64),
}

/// Reads one line of at most [`MESSAGE_LIMIT`] bytes into `buf` (cleared first); a longer one
/// is skipped to its end without being held, as the client skips a server's over-long line.
/// `None` at the end of input.
fn read_request(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<Line>> {
    buf.clear();
    let limit = MESSAGE_LIMIT as u64;
    let n = input.by_ref().take(limit + 1).read_until(b'\n', buf)? as u64;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Some(Line::Whole));
    }
    if n <= limit {
        // The input ended without a `\n`.
        return Ok(Some(Line::Whole));
    }
    // Over the limit: count the rest of the line away in small pieces.
    let mut len = n;
    buf.clear();
    loop {
        let (used, newline) = {
            let chunk = input.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (chunk.len(), false),
            }
        };
        input.consume(used);
        len += used as u64 - u64::from(newline);
        if newline {
            break;
        }
    }
    buf.shrink_to(0);
    Ok(Some(Line::TooLong(len)))
}

/// The config a server line stands for: `--url` or `-- COMMAND` run from its `cwd`, with its
/// `env`, `headers` and start-up timeout.
fn from_server_line(server: wire::ServerLine, env: &Env) -> Result<LoadedConfig, ConfigError> {
    let cwd = match &server.cwd {
        Some(dir) => env.cwd().join(dir),
        None => env.cwd().to_path_buf(),
    };
    let mut loaded = config::from_target(server.url, server.command.unwrap_or_default(), &cwd)?;
    let target = &mut loaded.config.server;
    target.env = server.env;
    target.headers = server.headers;
    if let Some(secs) = server.startup_timeout_s {
        target.startup_timeout_s = secs;
    }
    Ok(loaded)
}

/// Writes one line and flushes it.
fn send(out: &mut impl Write, line: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, line)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// A connected server and what the session knows about its health.
struct Session {
    client: Client,
    /// The last call left the server dead or hung: start it again before the next request.
    restart_due: bool,
    /// Hides `${VAR}` values of the config in the messages the session writes.
    redact: Redactor,
}

impl Session {
    /// Answers requests until stdin ends, a `close` comes, or stdout goes away.
    fn serve(&mut self, input: &mut impl BufRead, out: &mut impl Write) {
        let mut bytes = Vec::new();
        loop {
            let line = match read_request(input, &mut bytes) {
                Ok(None) => return,
                Ok(Some(Line::Whole)) => String::from_utf8_lossy(&bytes),
                Ok(Some(Line::TooLong(len))) => {
                    // Neither held nor passed on: that request is refused, the session goes on.
                    let message = format!(
                        "the request line is {len} bytes, over the {} MiB limit for one message",
                        MESSAGE_LIMIT >> 20
                    );
                    if send(out, &wire::error_line(&Value::Null, &message)).is_err() {
                        return;
                    }
                    continue;
                }
                Err(e) => {
                    to_stderr(&format!("toolproof session: could not read stdin: {e}"));
                    return;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let reply = match wire::parse_request(line.trim_end()) {
                Err(bad) => wire::error_line(&bad.id, &bad.message),
                Ok(request) => match request.op {
                    Op::Close => return,
                    Op::ListTools => match self.list_tools() {
                        Ok(tools) => wire::tools_line(&request.id, &tools),
                        Err(message) => wire::error_line(&request.id, &message),
                    },
                    Op::Call {
                        tool,
                        arguments,
                        timeout,
                    } => {
                        let reply = self.call(&tool, &arguments, timeout);
                        wire::call_line(&request.id, &reply)
                    }
                },
            };
            if send(out, &reply).is_err() {
                return;
            }
        }
    }

    /// Starts the server again when the last request left it dead or hung, or it has exited.
    fn ensure_up(&mut self) -> Result<(), String> {
        if !self.restart_due && !self.client.has_exited() {
            return Ok(());
        }
        match self.client.restart() {
            Ok(()) => {
                self.restart_due = false;
                to_stderr("toolproof session: the server was gone; restarted it");
                Ok(())
            }
            Err(e) => {
                self.restart_due = true;
                Err(self.hide(&format!(
                    "the server could not be restarted: {}",
                    crate::suite::restart_reason(&e)
                )))
            }
        }
    }

    fn list_tools(&mut self) -> Result<Vec<crate::mcp::types::Tool>, String> {
        self.ensure_up()?;
        self.client.list_tools().map_err(|e| {
            if e.is_fatal() || self.client.has_exited() {
                self.restart_due = true;
            }
            self.hide(&format!("could not list the server's tools: {e}"))
        })
    }

    fn call(
        &mut self,
        tool: &str,
        arguments: &serde_json::Map<String, Value>,
        timeout: std::time::Duration,
    ) -> CallReply {
        if let Err(why) = self.ensure_up() {
            return CallReply::not_sent(why);
        }
        let failure = match self.client.call_tool(tool, arguments, timeout) {
            Ok(outcome) => return CallReply::answered(&outcome),
            Err(failure) => failure,
        };
        let crashed = failure.error.is_fatal() || self.client.has_exited();
        let mut reply = CallReply::failed(&failure.error, crashed, failure.latency);
        reply.transport_error = reply.transport_error.map(|m| self.hide(&m));
        if crashed {
            self.restart_due = true;
        } else if matches!(failure.error, McpError::Timeout { .. }) {
            self.after_timeout();
        }
        reply
    }

    /// A server stuck in the timed-out call would time out every later call too: one that
    /// does not answer a `ping` is restarted now (or before the next request, if that fails).
    fn after_timeout(&mut self) {
        if self.client.answers_ping() {
            return;
        }
        match self.client.restart_hung() {
            Ok(()) => to_stderr(
                "toolproof session: the server did not answer a ping after a call timed out; restarted it",
            ),
            Err(e) => {
                self.restart_due = true;
                to_stderr(&self.hide(&format!(
                    "toolproof session: the server did not answer a ping after a call timed out and could not be restarted: {}",
                    crate::suite::restart_reason(&e)
                )));
            }
        }
    }

    fn hide(&self, text: &str) -> String {
        self.redact.apply(text).into_owned()
    }
}
