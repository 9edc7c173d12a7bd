//! stdio transport: spawns the server, writes newline-delimited JSON-RPC to its stdin and reads
//! its stdout on a thread. stderr is captured on another thread and can be sliced by request;
//! a third thread waits on the process so an exit is seen at once.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
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
use crate::process::{GroupGuard, Kill};

/// Most stderr kept per process (the tail wins).
const STDERR_CAP: usize = 1 << 20;
/// Most stdout noise lines kept.
const NOISE_CAP: usize = 200;
/// How long to wait for stdio to drain after the process ended.
const DRAIN: Duration = Duration::from_millis(500);
/// How long a closing server gets at each step (EOF, SIGTERM) before the next.
const GRACE: Duration = Duration::from_secs(2);

/// How to start a stdio server.
#[derive(Debug, Clone)]
pub struct StdioSpec {
    /// Program and arguments.
    pub command: Vec<String>,
    /// Environment added on top of ours.
    pub env: BTreeMap<String, String>,
    /// Working folder.
    pub cwd: Option<PathBuf>,
}

/// What the stdout and exit watchers tell the transport (`pub(crate)` for `crate::fuzzing`).
pub(crate) enum Event {
    Line(Value),
    Noise(String),
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
pub struct StdioTransport {
    stdin: Option<ChildStdin>,
    rx: Receiver<Event>,
    pid: u32,
    exit: Option<ExitStatus>,
    stdout_closed: bool,
    stderr: Arc<(Mutex<StderrBuf>, Condvar)>,
    noise: Vec<String>,
    noise_total: usize,
    /// Messages read while looking for something else, handed out first.
    pending: VecDeque<Value>,
    /// Keeps the server's process group known to the interrupt handler while it runs.
    _group: Option<GroupGuard>,
}

impl StdioTransport {
    /// Starts the server process.
    pub fn spawn(spec: &StdioSpec) -> Result<Self, McpError> {
        let Some((program, args)) = spec.command.split_first() else {
            return Err(McpError::Spawn {
                program: String::new(),
                reason: "the command is empty".into(),
            });
        };
        let mut cmd = Command::new(program);
        cmd.args(args)
            .envs(&spec.env)
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

        if let Some(stdout) = stdout {
            let tx = tx.clone();
            thread::spawn(move || read_stdout(stdout, tx));
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
            noise: Vec::new(),
            noise_total: 0,
            pending: VecDeque::new(),
            _group: group,
        })
    }

    /// Writes one message as a line.
    pub fn send(&mut self, msg: &Value) -> Result<(), McpError> {
        if let Some(err) = self.gone() {
            return Err(err);
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(McpError::Io("stdin is closed".into()));
        };
        let mut line = serde_json::to_vec(msg).map_err(|e| McpError::Io(e.to_string()))?;
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
    pub fn recv(&mut self, deadline: Instant) -> Result<Option<Value>, McpError> {
        if let Some(v) = self.pending.pop_front() {
            return Ok(Some(v));
        }
        if let Some(err) = self.gone() {
            return Err(err);
        }
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            match self.rx.recv_timeout(deadline - now) {
                Ok(Event::Line(v)) => return Ok(Some(v)),
                Ok(Event::Noise(line)) => self.push_noise(line),
                Ok(Event::StdoutClosed) => {
                    self.stdout_closed = true;
                    return Err(self.await_exit(DRAIN).unwrap_or_else(|| McpError::Exited {
                        how: "closed its stdout".into(),
                    }));
                }
                Ok(Event::Exited(status)) => {
                    self.exit = Some(status);
                    // Hand out what it wrote before it died, then report the exit.
                    self.drain_stdout();
                    if let Some(v) = self.pending.pop_front() {
                        return Ok(Some(v));
                    }
                    return Err(self.exit_error());
                }
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => return Err(self.exit_error()),
            }
        }
    }

    /// Sends a request and reads until its response, answering the server's own requests on
    /// the way; on timeout, tells the server the request is cancelled.
    pub fn roundtrip(&mut self, msg: &Value, timeout: Duration) -> Result<Value, McpError> {
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        self.send(msg)?;
        let deadline = Instant::now() + timeout;
        loop {
            let Some(incoming) = self.recv(deadline)? else {
                let _ = self.send(&protocol::cancelled(&id, "timed out"));
                return Err(McpError::Timeout {
                    method: method.to_owned(),
                    after: timeout,
                });
            };
            for m in protocol::flatten(incoming) {
                match (m.get("id"), m.get("method").and_then(Value::as_str)) {
                    (Some(rid), Some(server_method)) => {
                        self.send(&protocol::answer_server_request(rid.clone(), server_method))?;
                    }
                    (Some(rid), None) if *rid == id => return Ok(m),
                    // Notifications and answers to requests we gave up on.
                    _ => {}
                }
            }
        }
    }

    /// Puts a message back to be read first.
    pub fn unread(&mut self, v: Value) {
        self.pending.push_front(v);
    }

    fn push_noise(&mut self, line: String) {
        self.noise_total += 1;
        if self.noise.len() < NOISE_CAP {
            self.noise.push(line);
        }
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
                Ok(Event::Noise(line)) => self.push_noise(line),
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
                Ok(Event::Noise(line)) => self.push_noise(line),
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
    pub fn has_exited(&self) -> bool {
        self.exit.is_some()
    }

    /// A position in the stderr stream, for [`Self::stderr_since`].
    pub fn stderr_mark(&self) -> u64 {
        lock(&self.stderr.0).total
    }

    /// stderr written since `mark` (as much of it as is kept). When the process has ended,
    /// waits briefly for the pipe to drain so the last words are included.
    pub fn stderr_since(&self, mark: u64) -> String {
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

    /// Non-protocol lines seen on stdout (first [`NOISE_CAP`]) and how many there were.
    pub fn noise(&self) -> (&[String], usize) {
        (&self.noise, self.noise_total)
    }

    /// Kills the process group at once (a server that failed to start gets no grace).
    pub fn kill(&mut self) {
        self.stdin = None;
        if self.exit.is_none() {
            crate::process::signal_group(self.pid, Kill::Kill);
            let _ = self.await_exit(GRACE);
        }
    }

    /// Closes stdin, then escalates to SIGTERM and SIGKILL on the process group.
    pub fn close(&mut self) {
        self.stdin = None;
        if self.exit.is_some() {
            return;
        }
        if self.await_exit(GRACE).is_some() {
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

/// Reads the server's stdout line by line into messages and noise (`pub(crate)` for
/// `crate::fuzzing`).
pub(crate) fn read_stdout(stdout: impl Read, tx: Sender<Event>) {
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            continue;
        }
        let event = match serde_json::from_str::<Value>(text) {
            Ok(v) if v.is_object() || v.is_array() => Event::Line(v),
            _ => Event::Noise(text.to_owned()),
        };
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
pub fn describe_exit(status: ExitStatus) -> String {
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
