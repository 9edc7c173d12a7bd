//! The outputs of a GitHub Actions step (`$GITHUB_OUTPUT`): computed from the report, its exit
//! code and the report files the writer wrote ([`outputs`]), and written in the file's syntax
//! ([`format`]): `name=value`, or `name<<DELIMITER` … `DELIMITER` for a value with a line break,
//! with a random delimiter that does not occur in the value.

use crate::outcome::{RunReport, TestStatus};

/// The report files written, as their paths were given (`None`: not asked for, sent to
/// stdout, or not written).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Written {
    /// `--junit`.
    pub junit: Option<String>,
    /// `--json`.
    pub json: Option<String>,
    /// `--html`.
    pub html: Option<String>,
    /// `--summary` or `$GITHUB_STEP_SUMMARY`.
    pub summary: Option<String>,
    /// `--badge`.
    pub badge: Option<String>,
    /// `--sarif`.
    pub sarif: Option<String>,
}

/// Every output, in a fixed order: `exit-code`, `passed`, `accuracy`, `miss-rate`,
/// `critical-misses`, `tests-failed`, `check-errors`, `junit`, `json`, `html`, `summary`,
/// `history`, `badge`, `sarif`. Rates are numbers in 0..1 with 4 decimals for one model, a JSON object
/// `{"model": number}` for several, and empty when no model was scored.
pub(crate) fn outputs(
    report: &RunReport,
    exit_code: i32,
    written: &Written,
) -> Vec<(&'static str, String)> {
    let report = report.redacted();
    let r = &*report;
    let (accuracy, miss_rate) = rates(r);
    let evals = r.phases.evals.results.as_ref();
    let critical: usize = evals.map_or(0, |e| {
        e.models.iter().map(|m| m.critical_misses.len()).sum()
    });
    let tests_failed = r
        .phases
        .tests
        .results
        .iter()
        .filter(|t| matches!(t.status, TestStatus::Failed | TestStatus::Error))
        .count();
    let check_errors = r
        .phases
        .checks
        .results
        .findings
        .iter()
        .filter(|f| f.fails)
        .count();
    let history = r
        .history
        .as_ref()
        .filter(|h| h.recorded)
        .map(|h| h.path.clone());
    let path = |p: &Option<String>| p.clone().unwrap_or_default();
    vec![
        ("exit-code", exit_code.to_string()),
        ("passed", (exit_code == 0).to_string()),
        ("accuracy", accuracy),
        ("miss-rate", miss_rate),
        ("critical-misses", critical.to_string()),
        ("tests-failed", tests_failed.to_string()),
        ("check-errors", check_errors.to_string()),
        ("junit", path(&written.junit)),
        ("json", path(&written.json)),
        ("html", path(&written.html)),
        ("summary", path(&written.summary)),
        ("history", history.unwrap_or_default()),
        ("badge", path(&written.badge)),
        ("sarif", path(&written.sarif)),
    ]
}

/// Accuracy and miss rate: one model as a number, several as a JSON object of the models that
/// were scored (a model whose provider failed has no rate).
fn rates(r: &RunReport) -> (String, String) {
    let Some(evals) = r
        .phases
        .evals
        .results
        .as_ref()
        .filter(|_| r.phases.evals.ran())
    else {
        return (String::new(), String::new());
    };
    let scored: Vec<(&str, f64)> = evals
        .models
        .iter()
        .filter(|m| m.error.is_none() && m.total > 0)
        .map(|m| (m.model.as_str(), m.correct as f64 / m.total as f64))
        .collect();
    let four = |x: f64| (x * 10_000.0).round() / 10_000.0;
    match (evals.models.len(), scored.as_slice()) {
        (_, []) => (String::new(), String::new()),
        (1, [(_, accuracy)]) => (
            format!("{:.4}", four(*accuracy)),
            format!("{:.4}", four(1.0 - accuracy)),
        ),
        _ => {
            let object = |f: &dyn Fn(f64) -> f64| {
                let map: serde_json::Map<String, serde_json::Value> = scored
                    .iter()
                    .map(|(model, accuracy)| ((*model).to_owned(), four(f(*accuracy)).into()))
                    .collect();
                serde_json::Value::Object(map).to_string()
            };
            (object(&|a| a), object(&|a| 1.0 - a))
        }
    }
}

/// The outputs in `$GITHUB_OUTPUT` syntax. `seed` makes the delimiters (any number will do;
/// a value that contains a delimiter gets another).
pub(crate) fn format(outputs: &[(&str, String)], seed: u64) -> String {
    let mut state = seed;
    let mut out = String::new();
    for (name, value) in outputs {
        if !value.contains(['\n', '\r']) {
            out.push_str(&format!("{name}={value}\n"));
            continue;
        }
        let delimiter = loop {
            let candidate = format!("ghadelimiter_{:016x}", next(&mut state));
            if !value.contains(&candidate) {
                break candidate;
            }
        };
        out.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
    }
    out
}

/// splitmix64: delimiters need to be unguessable by the text they wrap, not cryptographic.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_lines_are_plain_and_multi_line_values_get_a_fresh_delimiter() {
        let text = format(
            &[("a", "1".into()), ("b", "x\nghadelimiter_y\nz".into())],
            7,
        );
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("a=1"));
        let open = lines.next().unwrap_or_default();
        let delimiter = open.strip_prefix("b<<").unwrap_or_default();
        assert!(delimiter.starts_with("ghadelimiter_") && delimiter.len() > 20);
        assert_eq!(
            lines.collect::<Vec<_>>(),
            vec!["x", "ghadelimiter_y", "z", delimiter]
        );
        assert_ne!(
            format(&[("b", "\n".into())], 1),
            format(&[("b", "\n".into())], 2)
        );
    }

    #[test]
    fn a_value_holding_the_first_delimiter_gets_another() {
        let mut state = 5;
        let first = format!("ghadelimiter_{:016x}", next(&mut state));
        let value = format!("before\n{first}\nafter");
        let text = format(&[("v", value.clone())], 5);
        assert!(!text.starts_with(&format!("v<<{first}\n")), "{text}");
        assert!(text.contains(&value));
    }
}
