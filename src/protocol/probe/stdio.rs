//! A probe over stdio: a fresh server process whose stdout lines are read on a thread.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::Duration;

use super::{Line, Waited};
use crate::mcp::stdio::StdioSpec;

/// A fresh server process and its pipes.
pub(super) struct StdioWire {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Line>,
    timeout: Duration,
    /// The wait for the first line, until one came (a fresh process may start slowly).
    startup: Option<Duration>,
    _group: Option<crate::process::GroupGuard>,
}

impl StdioWire {
    /// Starts the server; stderr is discarded (the main connection shows it).
    pub(super) fn spawn(
        spec: &StdioSpec,
        timeout: Duration,
        startup: Duration,
    ) -> Result<StdioWire, String> {
        let Some((program, args)) = spec.command.split_first() else {
            return Err("the command is empty".into());
        };
        let mut cmd = Command::new(program);
        crate::process::server_env(&mut cmd, &spec.env, spec.inherit_env);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        if let Some(cwd) = &spec.cwd {
            cmd.current_dir(cwd);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("could not start `{program}`: {e}"))?;
        let group = crate::process::register(child.id());
        let (tx, rx) = channel();
        if let Some(out) = child.stdout.take() {
            thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    let text = line.trim();
                    if text.is_empty() {
                        continue;
                    }
                    let msg = serde_json::from_str(text)
                        .map_or_else(|_| Line::Text(text.to_owned()), Line::Json);
                    if tx.send(msg).is_err() {
                        break;
                    }
                }
            });
        }
        Ok(StdioWire {
            stdin: child.stdin.take(),
            child,
            rx,
            timeout,
            startup: Some(startup.max(timeout)),
            _group: group,
        })
    }

    /// Writes one raw line (a newline is added).
    pub(super) fn send_raw(&mut self, text: &str) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin
                .write_all(text.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush());
        }
    }

    /// The next line, waiting at most the probe timeout (the startup timeout for the first).
    pub(super) fn next(&mut self) -> Result<Line, Waited> {
        match self.rx.recv_timeout(self.startup.unwrap_or(self.timeout)) {
            Ok(line) => {
                self.startup = None;
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(Waited::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(Waited::Closed),
        }
    }
}

impl Drop for StdioWire {
    fn drop(&mut self) {
        self.stdin.take();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
