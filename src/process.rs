//! Child process groups: every server and command provider toolproof starts leads its own
//! process group and is registered here while it runs, so that an interrupt can stop all of
//! them at once. The one place that sends signals.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Process groups of running children.
static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Set once the run is being stopped: a group registered after that is stopped at once.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// A signal toolproof sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kill {
    /// SIGTERM: please stop.
    Term,
    /// SIGKILL: stop now.
    Kill,
}

/// Keeps a process group registered until dropped.
#[derive(Debug)]
pub struct GroupGuard {
    pgid: i32,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        groups().remove(&self.pgid);
    }
}

fn groups() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    GROUPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Registers the group led by `pid` (a child spawned with `process_group(0)`). When the run
/// is already stopping, the group is sent SIGTERM straight away.
pub fn register(pid: u32) -> Option<GroupGuard> {
    let pgid = i32::try_from(pid).ok()?;
    groups().insert(pgid);
    if STOPPING.load(Ordering::SeqCst) {
        signal_group(pid, Kill::Term);
    }
    Some(GroupGuard { pgid })
}

/// Sends `kill` to every registered group, and to every group registered from now on.
pub fn stop_all(kill: Kill) {
    STOPPING.store(true, Ordering::SeqCst);
    let all: Vec<i32> = groups().iter().copied().collect();
    for pgid in all {
        send(pgid, kill);
    }
}

/// Signals the process group led by `pid`.
pub fn signal_group(pid: u32, kill: Kill) {
    if let Ok(pgid) = i32::try_from(pid) {
        send(pgid, kill);
    }
}

#[allow(unsafe_code)]
fn send(pgid: i32, kill: Kill) {
    if pgid <= 1 {
        return;
    }
    let sig = match kill {
        Kill::Term => libc::SIGTERM,
        Kill::Kill => libc::SIGKILL,
    };
    // SAFETY: kill(2) takes plain integers and has no memory effects; a stale group id only
    // yields ESRCH, which is ignored.
    unsafe {
        libc::kill(-pgid, sig);
    }
}
