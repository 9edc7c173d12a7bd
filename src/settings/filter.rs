//! Which tests a run selects: `--filter` or `TOOLPROOF_FILTER`, a list of name parts and tags.

use super::env::Env;
use crate::cli::RunArgs;
use crate::config::{ConfigError, TestCase};

/// The tests `--filter` (else `TOOLPROOF_FILTER`) selects for `run`; every test for the other
/// commands. A filter that selects nothing is a usage error.
pub(super) fn selected(
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
pub fn select(tests: &[TestCase], filter: Option<&str>) -> Vec<usize> {
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
