//! stdio transport: spawns the server, writes newline-delimited JSON-RPC to its stdin and reads
//! its stdout on a thread (in bounded memory, see [`lines`]). stderr is captured on another
//! thread and can be sliced by request; a third thread waits on the process so an exit is seen
//! at once. A response is matched to the request in flight by id: one that cannot be read, or
//! carries another id, fails that request at once.

pub(crate) mod lines;

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::io::{BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::error::McpError;
use super::protocol;
use super::requests::Responder;
use crate::process::{GroupGuard, Kill};
use crate::pycompat::bigint;
use lines::{Line, Noise};

/// Most stderr kept per process (the tail wins).
const STDERR_CAP: usize = 1 << 20;
/// How long to wait for stdio to drain after the process ended.
const DRAIN: Duration = Duration::from_millis(500);
/// How long a closing server gets at each step (EOF, SIGTERM) before the next.
const GRACE: Duration = Duration::from_secs(2);

/// How to start a stdio server.
#[derive(Debug, Clone)]
pub struct StdioSpec {
    /// Program and arguments.
    pub command: Vec<String>,
    /// Environment added on top of what the server inherits.
    pub env: BTreeMap<String, String>,
    /// Inherit our whole environment (less credentials), not only the SDKs' list.
    pub inherit_env: bool,
    /// Working folder.
    pub cwd: Option<PathBuf>,
}

enum Event {
    Line(Value),
    /// A line that starts like a message but cannot be read: why, and how it begins.
    Unreadable(String, String),
    StdoutClosed,
    Exited(ExitStatus),
}

#[derive(Default)]
struct StderrBuf {
    /// Bytes ever written.
    total: u64,
    /// The last bytes written (at most [`STDERR_CAP`]).
    tail: VecDeque<u8>,
    closed: bool,
}

/// A running stdio server.
pub(crate) struct StdioTransport {
    stdin: Option<ChildStdin>,
    rx: Receiver<Event>,
    pid: u32,
    exit: Option<ExitStatus>,
    stdout_closed: bool,
    stderr: Arc<(Mutex<StderrBuf>, Condvar)>,
    /// Non-protocol stdout lines, kept and counted by the reader thread.
    noise: Arc<Mutex<Noise>>,
    /// Messages read while looking for something else, handed out first.
    pending: VecDeque<Value>,
    /// Ids of requests given up on (timed out, or failed by a stray answer): their late
    /// answers are dropped without a word.
    abandoned: HashSet<String>,
    /// Keeps the server's process group known to the interrupt handler while it runs.
    _group: Option<GroupGuard>,
    /// Answers the server's own requests.
    responder: Responder,
}

impl StdioTransport {
    /// Starts the server process.
    pub(crate) fn spawn(spec: &StdioSpec) -> Result<Self, McpError> {
        let Some((program, args)) = spec.command.split_first() else {
            return Err(McpError::Spawn {
                program: String::new(),
                reason: "the command is empty".into(),
            });
        };
        let mut cmd = Command::new(program);
        crate::process::server_env(&mut cmd, &spec.env, spec.inherit_env);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(cwd) = &spec.cwd {
            cmd.current_dir(cwd);
        }
        let mut child = cmd.spawn().map_err(|e| McpError::Spawn {
            program: program.clone(),
            reason: spawn_reason(&e, spec.cwd.as_ref()),
        })?;
        let pid = child.id();
        let group = crate::process::register(pid);
        let (tx, rx) = channel();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr_pipe = child.stderr.take();
        let stderr = Arc::new((Mutex::new(StderrBuf::default()), Condvar::new()));
        let noise = Arc::new(Mutex::new(Noise::default()));

        if let Some(stdout) = stdout {
            let tx = tx.clone();
            let noise = Arc::clone(&noise);
            thread::spawn(move || read_stdout(stdout, tx, noise));
        }
        if let Some(pipe) = stderr_pipe {
            let buf = Arc::clone(&stderr);
            thread::spawn(move || read_stderr(pipe, buf));
        }
        thread::spawn(move || {
            if let Ok(status) = child.wait() {
                let _ = tx.send(Event::Exited(status));
            }
        });
        Ok(StdioTransport {
            stdin,
            rx,
            pid,
            exit: None,
            stdout_closed: false,
            stderr,
            noise,
            pending: VecDeque::new(),
            abandoned: HashSet::new(),
            _group: group,
            responder: Responder::default(),
        })
    }

    /// From now on, answers the server's requests with `responder`.
    pub(crate) fn answer_with(&mut self, responder: Responder) {
        self.responder = responder;
    }

    /// Writes one message as a line.
    pub(crate) fn send(&mut self, msg: &Value) -> Result<(), McpError> {
        if let Some(err) = self.gone() {
            return Err(err);
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(McpError::Io("stdin is closed".into()));
        };
        let mut line = bigint::to_vec(msg).map_err(|e| McpError::Io(e.to_string()))?;
        line.push(b'\n');
        if let Err(e) = stdin.write_all(&line).and_then(|()| stdin.flush()) {
            // A broken pipe means the process is gone: report how it ended.
            return Err(self
                .await_exit(DRAIN)
                .unwrap_or_else(|| McpError::Io(format!("writing to the server failed: {e}"))));
        }
        Ok(())
    }

    /// Reads the next JSON-RPC message, waiting until `deadline`.
    pub(crate) fn recv(&mut self, deadline: Instant) -> Result<Option<Value>, McpError> {
        if let Some(v) = self.pending.pop_front() {
            return Ok(Some(v));
        }
        if let Some(err) = self.gone() {
            return Err(err);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        match self.rx.recv_timeout(deadline - now) {
            Ok(Event::Line(v)) => Ok(Some(v)),
            Ok(Event::Unreadable(reason, start)) => Err(McpError::Unreadable {
                method: String::new(),
                reason,
                start,
            }),
            Ok(Event::StdoutClosed) => {
                self.stdout_closed = true;
                Err(self.await_exit(DRAIN).unwrap_or_else(|| McpError::Exited {
                    how: "closed its stdout".into(),
                }))
            }
            Ok(Event::Exited(status)) => {
                self.exit = Some(status);
                // Hand out what it wrote before it died, then report the exit.
                self.drain_stdout();
                match self.pending.pop_front() {
                    Some(v) => Ok(Some(v)),
                    None => Err(self.exit_error()),
                }
            }
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(self.exit_error()),
        }
    }

    /// Sends a request and reads until its response, answering the server's own requests on
    /// the way; on timeout, tells the server the request is cancelled. A line that cannot be
    /// read, or a response with another id, fails the request at once (see
    /// [`McpError::Unreadable`], [`McpError::StrayAnswer`]).
    pub(crate) fn roundtrip(&mut self, msg: &Value, timeout: Duration) -> Result<Value, McpError> {
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        self.send(msg)?;
        let deadline = Instant::now() + timeout;
        let answer = self.await_answer(&id, method, deadline);
        if answer.is_err() {
            self.abandoned.insert(id.to_string());
        }
        if let Err(McpError::Timeout { .. }) = answer {
            let _ = self.send(&protocol::cancelled(&id, "timed out"));
        }
        answer.map_err(|e| match e {
            McpError::Timeout { .. } => McpError::Timeout {
                method: method.to_owned(),
                after: timeout,
            },
            e => e.answering(method),
        })
    }

    fn await_answer(
        &mut self,
        id: &Value,
        method: &str,
        deadline: Instant,
    ) -> Result<Value, McpError> {
        loop {
            let Some(incoming) = self.recv(deadline)? else {
                return Err(McpError::Timeout {
                    method: method.to_owned(),
                    after: Duration::ZERO,
                });
            };
            for m in protocol::flatten(incoming) {
                match (m.get("id"), m.get("method").and_then(Value::as_str)) {
                    (Some(_), Some(_)) => {
                        let reply = self.responder.answer(&m);
                        self.send(&reply)?;
                    }
                    (Some(rid), None) if rid == id => return Ok(m),
                    (Some(rid), None) if !self.abandoned.contains(&rid.to_string()) => {
                        return Err(McpError::stray(method, id, rid));
                    }
                    // Notifications and answers to requests we gave up on.
                    _ => {}
                }
            }
        }
    }

    /// From now on, drops answers to `id` without a word (a request whose answer is no longer
    /// awaited).
    pub(crate) fn abandon(&mut self, id: &Value) {
        self.abandoned.insert(id.to_string());
    }

    fn drain_stdout(&mut self) {
        let until = Instant::now() + DRAIN;
        while !self.stdout_closed {
            let now = Instant::now();
            if now >= until {
                break;
            }
            match self.rx.recv_timeout(until - now) {
                Ok(Event::Line(v)) => self.pending.push_back(v),
                Ok(Event::Unreadable(..)) => {}
                Ok(Event::StdoutClosed) | Err(_) => self.stdout_closed = true,
                Ok(Event::Exited(status)) => self.exit = Some(status),
            }
        }
    }

    /// Waits up to `limit` for the process to end; returns its exit as an error.
    fn await_exit(&mut self, limit: Duration) -> Option<McpError> {
        if self.exit.is_some() {
            return Some(self.exit_error());
        }
        let until = Instant::now() + limit;
        loop {
            let now = Instant::now();
            if now >= until {
                return None;
            }
            match self.rx.recv_timeout(until - now) {
                Ok(Event::Exited(status)) => {
                    self.exit = Some(status);
                    return Some(self.exit_error());
                }
                Ok(Event::Line(v)) => self.pending.push_back(v),
                Ok(Event::Unreadable(..)) => {}
                Ok(Event::StdoutClosed) => self.stdout_closed = true,
                Err(_) => return None,
            }
        }
    }

    fn gone(&self) -> Option<McpError> {
        self.exit.map(|_| self.exit_error())
    }

    fn exit_error(&self) -> McpError {
        McpError::Exited {
            how: self.exit.map_or_else(|| "ended".to_owned(), describe_exit),
        }
    }

    /// Whether the process has ended.
    pub(crate) fn has_exited(&self) -> bool {
        self.exit.is_some()
    }

    /// A position in the stderr stream, for [`Self::stderr_since`].
    pub(crate) fn stderr_mark(&self) -> u64 {
        lock(&self.stderr.0).total
    }

    /// stderr written since `mark` (as much of it as is kept). When the process has ended,
    /// waits briefly for the pipe to drain so the last words are included.
    pub(crate) fn stderr_since(&self, mark: u64) -> String {
        let (lock_, cvar) = &*self.stderr;
        let mut buf = lock(lock_);
        if self.exit.is_some() || self.stdout_closed {
            let until = Instant::now() + DRAIN;
            while !buf.closed {
                let now = Instant::now();
                if now >= until {
                    break;
                }
                buf = match cvar.wait_timeout(buf, until - now) {
                    Ok((b, _)) => b,
                    Err(poisoned) => poisoned.into_inner().0,
                };
            }
        }
        let kept_from = buf.total - buf.tail.len() as u64;
        let start = mark.max(kept_from);
        let skip = (start - kept_from) as usize;
        let bytes: Vec<u8> = buf.tail.iter().skip(skip).copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Non-protocol lines seen on stdout so far: the first ones (see [`lines::Noise`]) and
    /// how many there were in all.
    pub(crate) fn noise(&self) -> Noise {
        lock(&self.noise).clone()
    }

    /// Kills the process group at once (a server that failed to start gets no grace).
    pub(crate) fn kill(&mut self) {
        self.stdin = None;
        if self.exit.is_none() {
            crate::process::signal_group(self.pid, Kill::Kill);
            let _ = self.await_exit(GRACE);
        }
        self.drain_stdout();
    }

    /// Closes stdin, then escalates to SIGTERM and SIGKILL on the process group; then reads
    /// what is left of stdout, so that [`Self::noise`] is complete.
    pub(crate) fn close(&mut self) {
        self.stdin = None;
        self.end(true);
        self.drain_stdout();
    }

    /// Stops a server that no longer answers: SIGTERM at once, SIGKILL after a grace period.
    pub(crate) fn terminate(&mut self) {
        self.stdin = None;
        self.end(false);
        self.drain_stdout();
    }

    fn end(&mut self, wait_first: bool) {
        if self.exit.is_some() || (wait_first && self.await_exit(GRACE).is_some()) {
            return;
        }
        crate::process::signal_group(self.pid, Kill::Term);
        if self.await_exit(GRACE).is_some() {
            return;
        }
        crate::process::signal_group(self.pid, Kill::Kill);
        let _ = self.await_exit(GRACE);
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        if self.exit.is_none() {
            self.stdin = None;
            crate::process::signal_group(self.pid, Kill::Kill);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Reads stdout to its end: messages and unreadable lines go to the client, noise into
/// `noise`. Memory stays bounded whatever the server prints (see [`lines`]).
fn read_stdout(stdout: impl Read, tx: Sender<Event>, noise: Arc<Mutex<Noise>>) {
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut buf = Vec::new();
    loop {
        let event = match lines::next(&mut reader, &mut buf) {
            Ok(Some(Line::Noise(text))) => {
                lock(&noise).push(text);
                continue;
            }
            Ok(Some(Line::Message(v))) => Event::Line(v),
            Ok(Some(Line::Unreadable { reason, start })) => Event::Unreadable(reason, start),
            Ok(None) | Err(_) => break,
        };
        if buf.capacity() > 1 << 20 {
            // Let go of a huge line's memory.
            buf = Vec::new();
        }
        if tx.send(event).is_err() {
            return;
        }
    }
    let _ = tx.send(Event::StdoutClosed);
}

fn read_stderr(mut pipe: impl Read, buf: Arc<(Mutex<StderrBuf>, Condvar)>) {
    let mut chunk = [0u8; 8192];
    loop {
        let n = match pipe.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut b = lock(&buf.0);
        b.total += n as u64;
        b.tail.extend(&chunk[..n]);
        let excess = b.tail.len().saturating_sub(STDERR_CAP);
        b.tail.drain(..excess);
    }
    lock(&buf.0).closed = true;
    buf.1.notify_all();
}

fn spawn_reason(e: &std::io::Error, cwd: Option<&PathBuf>) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => match cwd {
            Some(dir) if !dir.is_dir() => format!("the folder {} does not exist", dir.display()),
            _ => "no such file or program on PATH".into(),
        },
        std::io::ErrorKind::PermissionDenied => "permission denied (is it executable?)".into(),
        _ => e.to_string(),
    }
}

/// `exited with code 3`, `was killed by signal 9 (SIGKILL)`.
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code}");
    }
    match status.signal() {
        Some(sig) => {
            let name = match sig {
                1 => " (SIGHUP)",
                2 => " (SIGINT)",
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                13 => " (SIGPIPE)",
                15 => " (SIGTERM)",
                _ => "",
            };
            format!("was killed by signal {sig}{name}")
        }
        None => "ended".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn(script: &str) -> StdioTransport {
        let spec = StdioSpec {
            command: vec!["sh".into(), "-c".into(), script.into()],
            env: BTreeMap::new(),
            inherit_env: true,
            cwd: None,
        };
        match StdioTransport::spawn(&spec) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn every_noise_line_is_counted_though_no_request_read_them() {
        let mut t = spawn("seq 100000");
        t.close();
        let noise = t.noise();
        assert_eq!(noise.total, 100_000);
        assert_eq!(noise.lines.len(), lines::NOISE_LINES_KEPT);
        assert_eq!(
            (noise.lines[0].as_str(), noise.lines[199].as_str()),
            ("1", "200")
        );
    }

    #[test]
    fn an_unreadable_line_fails_the_request_in_flight_at_once() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let mut t = spawn(&format!("read line; echo '{deep}'; read line"));
        let ping = protocol::request(7, "ping", None);
        let got = t.roundtrip(&ping, Duration::from_secs(600));
        match got {
            Err(McpError::Unreadable { method, reason, .. }) => {
                assert_eq!(method, "ping");
                assert!(
                    reason.starts_with("it is nested deeper than 128 levels"),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
        t.kill();
    }
}
