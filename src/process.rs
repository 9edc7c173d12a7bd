//! Child processes: every server and command provider toolproof starts leads its own process
//! group and is registered here while it runs, so that an interrupt can stop all of them at
//! once (the one place that sends signals); and the secrets of toolproof's own environment that
//! a child never inherits.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Process groups of running children.
static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Set once the run is being stopped: a group registered after that is stopped at once.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Set by a second signal, under its lock: from then on no file is put in place, so a report
/// renamed into place and toolproof's exit never cross.
static LEAVING: Mutex<bool> = Mutex::new(false);

/// Runs `put` (what puts a finished file in place: a rename, an append) unless toolproof is
/// leaving at once; then it is an error and nothing is put.
pub(crate) fn unless_leaving<T>(put: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<T> {
    let leaving = LEAVING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if *leaving {
        return Err(std::io::Error::other(
            "toolproof is exiting at once (a second signal)",
        ));
    }
    put()
}

/// From now on [`unless_leaving`] puts nothing in place; returns once a put in progress has
/// ended.
pub(crate) fn leave() {
    *LEAVING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
}

/// A signal toolproof sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kill {
    /// SIGTERM: please stop.
    Term,
    /// SIGKILL: stop now.
    Kill,
}

/// Keeps a process group registered until dropped.
#[derive(Debug)]
pub(crate) struct GroupGuard {
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
pub(crate) fn register(pid: u32) -> Option<GroupGuard> {
    let pgid = i32::try_from(pid).ok()?;
    groups().insert(pgid);
    if STOPPING.load(Ordering::SeqCst) {
        signal_group(pid, Kill::Term);
    }
    Some(GroupGuard { pgid })
}

/// Sends `kill` to every registered group, and to every group registered from now on.
pub(crate) fn stop_all(kill: Kill) {
    STOPPING.store(true, Ordering::SeqCst);
    let all: Vec<i32> = groups().iter().copied().collect();
    for pgid in all {
        send(pgid, kill);
    }
}

/// After [`stop_all`] with [`Kill::Kill`]: waits (at most `limit`) until the leader of each
/// registered group, a child of toolproof, has died, and reaps it, so that toolproof does not
/// exit while a server it killed still runs. A leader another thread already reaped is skipped.
#[allow(unsafe_code)]
pub(crate) fn reap_all(limit: std::time::Duration) {
    let deadline = std::time::Instant::now() + limit;
    let all: Vec<i32> = groups().iter().copied().collect();
    for pgid in all.into_iter().filter(|p| *p > 1) {
        loop {
            let mut status = 0;
            // SAFETY: waitpid(2) writes only the status integer it is given; WNOHANG never
            // blocks, and a pid that is not (or no longer) our child yields -1 (ECHILD).
            let got = unsafe { libc::waitpid(pgid, &mut status, libc::WNOHANG) };
            if got != 0 || std::time::Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

/// Signals the process group led by `pid`.
pub(crate) fn signal_group(pid: u32, kill: Kill) {
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

/// The tokens a CI runner gives the job: toolproof's own credentials, beside the model
/// providers' keys and account ids (each provider names its own, and [`withhold`] adds them).
/// A server under test or a command provider is someone else's program: it gets none of
/// them unless its own `env` setting names one.
pub(crate) const RUNNER_VARS: [&str; 4] = [
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
];

/// The providers' credential variables, added at start by [`withhold`].
static PROVIDER_VARS: std::sync::RwLock<Vec<&'static str>> = std::sync::RwLock::new(Vec::new());

/// Adds variables to what every child is denied: the binary adds the model providers'
/// credentials first thing, as the provider registry lists them (this layer sits below the
/// providers). Adding a variable twice keeps it once.
pub(crate) fn withhold(vars: impl IntoIterator<Item = &'static str>) {
    let mut held = PROVIDER_VARS
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for var in vars {
        if !held.contains(&var) {
            held.push(var);
        }
    }
}

/// Every variable no child gets unless its `env` names it: the runner's tokens and the
/// providers' credentials.
pub(crate) fn withheld() -> Vec<&'static str> {
    let held = PROVIDER_VARS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    RUNNER_VARS
        .iter()
        .copied()
        .chain(held.iter().copied())
        .collect()
}

/// The variables a stdio server inherits by default: the list of the MCP Python SDK's
/// `get_default_environment()` (the TypeScript SDK's is the same), which mcp-toolproof's stdio
/// client uses. Everything else a server needs comes from `server.env`, or from the whole
/// environment with `server.inherit_env: true`.
pub(crate) const SERVER_INHERITED_VARS: &[&str] = if cfg!(windows) {
    &[
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PATHEXT",
        "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
    ]
} else {
    &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]
};

/// Sets up the environment of a stdio server: with `inherit` the whole inherited environment
/// as [`child_env`] passes it; without, only [`SERVER_INHERITED_VARS`] (a value starting with
/// `()`, a shell function, skipped as the SDKs skip it), then `env`.
pub(crate) fn server_env(cmd: &mut Command, env: &BTreeMap<String, String>, inherit: bool) {
    if !inherit {
        cmd.env_clear();
        for var in SERVER_INHERITED_VARS {
            if let Some(value) = std::env::var_os(var)
                && !value.as_encoded_bytes().starts_with(b"()")
            {
                cmd.env(var, value);
            }
        }
    }
    child_env(cmd, env);
}

/// Sets up the environment of a child: the inherited one without the [`withheld`] variables, then
/// `env` (the child's own setting, which may name a withheld variable to pass it on).
pub(crate) fn child_env(cmd: &mut Command, env: &BTreeMap<String, String>) {
    for var in withheld() {
        if !env.contains_key(var) {
            cmd.env_remove(var);
        }
    }
    cmd.envs(env);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(cmd: &Command) -> BTreeMap<String, Option<String>> {
        cmd.get_envs()
            .map(|(k, v)| {
                let text = |s: &std::ffi::OsStr| s.to_string_lossy().into_owned();
                (text(k), v.map(text))
            })
            .collect()
    }

    /// What the binary registers at start (the provider registry's credentials; the
    /// registry's own test checks that it lists every variable a provider reads).
    fn registered() -> Vec<&'static str> {
        withhold(["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]);
        withheld()
    }

    #[test]
    fn a_child_gets_no_credential_unless_its_env_names_it() {
        let all = registered();
        let mut cmd = Command::new("true");
        let named = BTreeMap::from([
            ("OPENAI_API_KEY".to_owned(), "passed-on".to_owned()),
            ("MODE".to_owned(), "test".to_owned()),
        ]);
        child_env(&mut cmd, &named);
        let env = env_of(&cmd);
        assert!(all.contains(&"ANTHROPIC_API_KEY") && all.contains(&"GITHUB_TOKEN"));
        for var in all.iter().filter(|v| **v != "OPENAI_API_KEY") {
            assert_eq!(env.get(*var), Some(&None), "{var} is not removed");
        }
        assert_eq!(env["OPENAI_API_KEY"].as_deref(), Some("passed-on"));
        assert_eq!(env["MODE"].as_deref(), Some("test"));
    }

    #[test]
    fn a_server_gets_the_sdk_list_unless_it_inherits_everything() {
        let named = BTreeMap::from([("MODE".to_owned(), "test".to_owned())]);
        let seen = |inherit: bool| {
            let mut cmd = Command::new("/usr/bin/env");
            server_env(&mut cmd, &named, inherit);
            let out = cmd.output().expect("run env");
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_owned()))
                .collect::<Vec<_>>()
        };
        let listed = seen(false);
        for var in &listed {
            assert!(
                SERVER_INHERITED_VARS.contains(&var.as_str()) || var == "MODE",
                "{var} reaches the server"
            );
        }
        assert!(listed.contains(&"MODE".to_owned()), "{listed:?}");
        assert_eq!(
            listed.contains(&"PATH".to_owned()),
            std::env::var_os("PATH").is_some()
        );
        // Inheriting: every variable of ours but the credentials.
        let withheld = registered();
        let all = seen(true);
        let ours = std::env::vars_os().count();
        assert!(all.len() + withheld.len() >= ours, "{all:?}");
        assert!(!all.iter().any(|v| withheld.contains(&v.as_str())));
    }
}
