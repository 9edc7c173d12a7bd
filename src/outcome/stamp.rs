//! What stamps a report: when it was made and which config made it; and the verdict, the one
//! place the exit code of a run (or of merged reports) is decided.

use std::time::SystemTime;

use super::{CacheAudit, Phases};

/// RFC 3339 UTC time with second precision.
pub fn rfc3339(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t)
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// sha256 of what the run read as its config: the config file, and the files `evals:` names; `None` without a config file.
/// (`system_file`, `cases_file`), so `merge` refuses the jobs of two versions of any of them.
pub fn config_digest(loaded: &crate::config::LoadedConfig) -> Option<String> {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(std::fs::read(&loaded.path).ok()?);
    let evals = loaded.config.evals.as_ref();
    let named = evals
        .into_iter()
        .flat_map(|e| [&e.system_file, &e.cases_file]);
    for file in named.flatten() {
        hash.update(b"\0");
        hash.update(file.to_string_lossy().as_bytes());
        hash.update(b"\0");
        hash.update(std::fs::read(loaded.base_dir.join(file)).unwrap_or_default());
    }
    Some(hex(&hash.finalize()))
}

/// Bytes as lowercase hexadecimal, two digits a byte: how a digest is written in the report,
/// the config digest and the eval cache's keys.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Whether the run passed and its exit code: the signal's code when interrupted, else 2 when
/// the evals' plan was over its budget (nothing was asked), else 1 when
/// the server could not be used, a phase failed or errored, the cache audit found missing
/// answers (`cache_status`: the run is `cache status`), or a prune could not remove a stale file; else 0. The one place the exit code is decided.
pub fn verdict(
    phases: &Phases,
    server_error: bool,
    cache: Option<&CacheAudit>,
    cache_status: bool,
    interrupted: Option<i32>,
) -> (bool, i32) {
    let cache_failed = cache.is_some_and(|c| {
        c.error.is_some() || !c.not_removed.is_empty() || (cache_status && c.missing() > 0)
    });
    let failed = server_error
        || cache_failed
        || phases.checks.fails()
        || phases.tests.fails()
        || phases.evals.fails()
        || phases.lint.fails()
        || phases.stress.fails()
        || phases.bench.fails()
        || phases.fuzz.fails()
        || phases.protocol.fails()
        || phases.surface.as_ref().is_some_and(super::Phase::fails);
    // A plan over the evals' budget asked nothing: the budget is the usage to fix.
    let over_budget = phases
        .evals
        .results
        .as_ref()
        .and_then(|r| r.plan.as_ref())
        .and_then(|p| p.budget.as_ref())
        .is_some_and(|b| b.over_plan);
    // Overrides naming a tool the server does not list are a config error.
    let bad_overrides = phases
        .evals
        .results
        .as_ref()
        .and_then(|r| r.overrides.as_ref())
        .is_some_and(|o| !o.errors.is_empty());
    match interrupted {
        Some(code) => (false, code),
        None if over_budget || bad_overrides => (false, crate::exit::EXIT_USAGE),
        None if failed => (false, crate::exit::EXIT_FAILED),
        None => (true, crate::exit::EXIT_OK),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn hex_writes_two_lowercase_digits_a_byte() {
        assert_eq!(hex(&[]), "");
        assert_eq!(hex(&[0, 9, 0xab, 0xff]), "0009abff");
        use sha2::{Digest, Sha256};
        assert_eq!(
            hex(&Sha256::digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn formats_rfc3339() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_042_553);
        assert_eq!(rfc3339(t), "2026-11-30T12:42:33Z");
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let leap = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }
}
