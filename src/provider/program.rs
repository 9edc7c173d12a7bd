//! Running the command provider's program once: its stdin fed, its stdout and stderr drained
//! to the end (kept up to a cap, the rest read and dropped, so the program never meets a
//! closed pipe), and its exit awaited up to the timeout. The program leads its own process
//! group; the group is ended when the program exits or runs out of time, so that a process it
//! left behind holding stdout cannot keep the answer waiting.

use std::io::{ErrorKind, Read, Write};
use std::process::{Child, ExitStatus};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::process::{Kill, signal_group};

/// Most bytes of stdout kept: an answer is one JSON object.
pub(super) const STDOUT_LIMIT: usize = 16 << 20;
/// [`STDOUT_LIMIT`] in words, for messages.
pub(super) const STDOUT_LIMIT_WORDS: &str = "16 MiB";
/// Bytes of the end of stderr kept (far more than is ever quoted).
const STDERR_KEEP: usize = 64 << 10;

/// What the program did before it exited.
#[derive(Debug)]
pub(super) struct Exited {
    /// How it exited.
    pub(super) status: ExitStatus,
    /// The start of its stdout, up to [`STDOUT_LIMIT`].
    pub(super) stdout: Vec<u8>,
    /// It printed more than [`STDOUT_LIMIT`] on stdout.
    pub(super) stdout_over: bool,
    /// The end of its stderr.
    pub(super) stderr: Vec<u8>,
}

/// Feeds `input` to `child`, drains its output and waits for its exit up to `timeout`.
/// `None` when the time ran out: the program and its group have been killed and reaped.
pub(super) fn run(mut child: Child, input: String, timeout: Duration) -> Option<Exited> {
    let deadline = Instant::now().checked_add(timeout);
    let left = || {
        deadline.map_or(Duration::MAX, |d| {
            d.saturating_duration_since(Instant::now())
        })
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A program may exit without reading everything; a broken pipe is fine.
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
    }
    let stdout = Drain::start(child.stdout.take(), Keep::Head(STDOUT_LIMIT));
    let stderr = Drain::start(child.stderr.take(), Keep::Tail(STDERR_KEEP));
    let pid = child.id();
    let (status_tx, status_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = status_tx.send(child.wait());
    });
    let status = match status_rx.recv_timeout(left()) {
        Ok(Ok(status)) => Some(status),
        Ok(Err(_)) | Err(_) => None,
    };
    // Whatever happened, nothing of the group may outlive this call: a process the program
    // started would otherwise hold its pipes open.
    signal_group(pid, Kill::Kill);
    let Some(status) = status else {
        // Reaped by the waiting thread once the kill lands.
        let _ = status_rx.recv();
        return None;
    };
    // Everything the program wrote is in the pipes; EOF follows the group's end. A process
    // that left the group can still hold them: then take what came until the deadline.
    let (stdout, stdout_over) = stdout.finish(left());
    let (stderr, _) = stderr.finish(left());
    Some(Exited {
        status,
        stdout,
        stdout_over,
        stderr,
    })
}

/// Which bytes of a stream are kept.
#[derive(Debug, Clone, Copy)]
enum Keep {
    /// The first n.
    Head(usize),
    /// The last n.
    Tail(usize),
}

/// The kept bytes of a stream and how many it held in all.
#[derive(Debug)]
struct Kept {
    keep: Keep,
    bytes: Vec<u8>,
    total: usize,
}

impl Kept {
    fn push(&mut self, chunk: &[u8]) {
        self.total = self.total.saturating_add(chunk.len());
        match self.keep {
            Keep::Head(n) => {
                let room = n.saturating_sub(self.bytes.len()).min(chunk.len());
                self.bytes.extend_from_slice(&chunk[..room]);
            }
            Keep::Tail(n) => {
                self.bytes.extend_from_slice(chunk);
                // Cut rarely: only once twice the size is held.
                if self.bytes.len() > 2 * n {
                    self.bytes.drain(..self.bytes.len() - n);
                }
            }
        }
    }

    /// The kept bytes, and whether any were dropped.
    fn take(&mut self) -> (Vec<u8>, bool) {
        let mut bytes = std::mem::take(&mut self.bytes);
        let n = match self.keep {
            Keep::Head(n) | Keep::Tail(n) => n,
        };
        if let Keep::Tail(n) = self.keep
            && bytes.len() > n
        {
            bytes.drain(..bytes.len() - n);
        }
        (bytes, self.total > n)
    }
}

/// A thread reading one stream to its end into a shared [`Kept`].
struct Drain {
    kept: Arc<Mutex<Kept>>,
    done: Receiver<()>,
}

impl Drain {
    fn start(stream: Option<impl Read + Send + 'static>, keep: Keep) -> Drain {
        let kept = Arc::new(Mutex::new(Kept {
            keep,
            bytes: Vec::new(),
            total: 0,
        }));
        let (done_tx, done) = mpsc::channel();
        let shared = Arc::clone(&kept);
        std::thread::spawn(move || {
            if let Some(mut stream) = stream {
                let mut buf = vec![0u8; 64 << 10];
                loop {
                    match stream.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => lock(&shared).push(&buf[..n]),
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
            }
            let _ = done_tx.send(());
        });
        Drain { kept, done }
    }

    /// Waits up to `wait` for the end of the stream, then gives what was kept.
    fn finish(self, wait: Duration) -> (Vec<u8>, bool) {
        let _ = self.done.recv_timeout(wait);
        lock(&self.kept).take()
    }
}

fn lock(kept: &Mutex<Kept>) -> std::sync::MutexGuard<'_, Kept> {
    kept.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(keep: Keep, chunks: &[&[u8]]) -> (Vec<u8>, bool) {
        let mut k = Kept {
            keep,
            bytes: Vec::new(),
            total: 0,
        };
        for c in chunks {
            k.push(c);
        }
        k.take()
    }

    #[test]
    fn the_head_keeps_the_first_bytes_and_says_when_more_came() {
        assert_eq!(
            kept(Keep::Head(4), &[b"ab", b"cd"]),
            (b"abcd".to_vec(), false)
        );
        assert_eq!(
            kept(Keep::Head(4), &[b"abc", b"def"]),
            (b"abcd".to_vec(), true)
        );
        assert_eq!(kept(Keep::Head(4), &[]), (Vec::new(), false));
    }

    #[test]
    fn the_tail_keeps_the_last_bytes() {
        assert_eq!(kept(Keep::Tail(3), &[b"ab"]), (b"ab".to_vec(), false));
        let many: Vec<&[u8]> = vec![b"abcd", b"efgh", b"ij"];
        assert_eq!(kept(Keep::Tail(3), &many), (b"hij".to_vec(), true));
    }
}
