//! The tool-call tests' settings: `--timeout-ms` > `TOOLPROOF_TIMEOUT_MS` > `timeout_ms`, the
//! same for the retries, and which tests run (`--filter` or `TOOLPROOF_FILTER`, a list of name
//! parts and tags).

use super::TestSettings;
use super::env::Env;
use super::resolve::{checked_timeout_ms, env_value, pick, timeout_in_range};
use crate::cli::RunArgs;
use crate::config::{Config, ConfigError, TestCase, limits};

/// The tool-call tests' settings: the timeout, retries and retry delay every test falls back to,
/// and which tests run.
pub(super) fn resolve(
    run: Option<&RunArgs>,
    env: &Env,
    cfg: &Config,
) -> Result<TestSettings, ConfigError> {
    let positive = |s: &str| -> Result<f64, String> {
        match s.parse::<f64>() {
            Ok(v) if timeout_in_range(v) => Ok(v),
            _ => Err(format!(
                "must be a number of milliseconds above 0 and at most {} ({}), got `{s}`",
                limits::MAX_DURATION_MS,
                limits::MAX_DURATION_WORDS
            )),
        }
    };
    let flag_timeout = match run.and_then(|r| r.timeout_ms) {
        Some(ms) => Some((checked_timeout_ms(ms, "--timeout-ms")?, "--timeout-ms")),
        None => None,
    };
    let timeout_ms = pick(
        flag_timeout,
        env_value(env, "TOOLPROOF_TIMEOUT_MS", positive)?,
        Some((cfg.timeout_ms, "timeout_ms")),
        cfg.timeout_ms,
    );
    let retries = pick(
        run.and_then(|r| r.retries).map(|r| (r, "--retries")),
        env_value(env, "TOOLPROOF_RETRIES", |s| {
            s.parse::<u32>()
                .map_err(|_| format!("must be a whole number of retries, got `{s}`"))
        })?,
        Some((cfg.retries, "retries")),
        cfg.retries,
    );
    let selected = selected(&cfg.tests, run, env)?;
    Ok(TestSettings {
        timeout: timeout_ms.map(limits::millis),
        retries,
        retry_delay: limits::millis(cfg.retry_delay_ms),
        selected,
    })
}

/// The tests `--filter` (else `TOOLPROOF_FILTER`) selects for `run`; every test for the other
/// commands. A filter that selects nothing is a usage error.
fn selected(
    tests: &[TestCase],
    run: Option<&RunArgs>,
    env: &Env,
) -> Result<Vec<usize>, ConfigError> {
    let filter = if run.is_some() {
        run.and_then(|r| r.filter.clone())
            .or_else(|| env.get("TOOLPROOF_FILTER").map(str::to_owned))
    } else {
        None
    };
    let selected = select(tests, filter.as_deref());
    if let Some(filter) = &filter
        && selected.is_empty()
    {
        return Err(ConfigError::new(format!(
            "--filter `{filter}` selects none of the {} tests",
            tests.len()
        ))
        .hint("match part of a test name (case-insensitive) or `tag:NAME`; separate several with commas"));
    }
    Ok(selected)
}

/// Indexes into `tests` of the tests `filter` selects, in YAML order. The filter is a list of
/// terms separated by commas, any of which selects a test: `tag:NAME` selects the tests tagged
/// exactly NAME, any other term the tests whose name contains it, ignoring case. No filter (or
/// only blank terms) selects every test.
pub(crate) fn select(tests: &[TestCase], filter: Option<&str>) -> Vec<usize> {
    let terms: Vec<&str> = filter
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    let lowered: Vec<String> = terms.iter().map(|t| t.to_lowercase()).collect();
    tests
        .iter()
        .enumerate()
        .filter(|(_, test)| {
            terms.is_empty()
                || terms
                    .iter()
                    .zip(&lowered)
                    .any(|(term, low)| match term.strip_prefix("tag:") {
                        Some(tag) => test.tags.iter().any(|t| t == tag.trim()),
                        None => test.name.to_lowercase().contains(low.as_str()),
                    })
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn named(tests: &[(&str, &[&str])]) -> Vec<TestCase> {
        let list: Vec<Value> = tests
            .iter()
            .map(|(name, tags)| json!({"name": name, "tool": "echo", "tags": tags}))
            .collect();
        serde_json::from_value(Value::Array(list)).expect("test cases")
    }

    #[test]
    fn select_by_name_tag_or_either() {
        let tests = named(&[
            ("Echo hello", &["smoke"]),
            ("add numbers", &["math", "smoke"]),
            ("weather", &["Slow"]),
        ]);
        assert_eq!(select(&tests, None), [0, 1, 2]);
        assert_eq!(select(&tests, Some("")), [0, 1, 2]);
        assert_eq!(select(&tests, Some("ECHO")), [0]);
        assert_eq!(select(&tests, Some("tag:smoke")), [0, 1]);
        assert_eq!(select(&tests, Some("tag:slow")), Vec::<usize>::new());
        assert_eq!(select(&tests, Some("tag:Slow, hello")), [0, 2]);
        assert_eq!(select(&tests, Some("tag:sm")), Vec::<usize>::new());
        assert_eq!(select(&tests, Some("nothing")), Vec::<usize>::new());
    }
}
