//! Every duration of the config has a ceiling: a value past it (or infinite) is a config error
//! at the value's line and column that names the allowed range, never a panic later when the
//! value becomes a `Duration`.

use super::{SERVER, loaded, rendered};

/// Each duration key, as a YAML snippet with `{}` where the value goes.
const FIELDS: [(&str, &str); 18] = [
    ("timeout_ms", "timeout_ms: {}\n"),
    ("retry_delay_ms", "retry_delay_ms: {}\n"),
    (
        "tests[0].timeout_ms",
        "tests:\n  - {name: t, tool: x, timeout_ms: {}}\n",
    ),
    (
        "tests[0].retry_delay_ms",
        "tests:\n  - {name: t, tool: x, retry_delay_ms: {}}\n",
    ),
    (
        "tests[0].expect.max_latency_ms",
        "tests:\n  - {name: t, tool: x, expect: {max_latency_ms: {}}}\n",
    ),
    ("fuzz.timeout_ms", "fuzz:\n  timeout_ms: {}\n"),
    ("fuzz.max_time_s", "fuzz:\n  max_time_s: {}\n"),
    ("bench.timeout_ms", "bench:\n  timeout_ms: {}\n"),
    (
        "bench.thresholds.p50_ms",
        "bench:\n  thresholds: {p50_ms: {}}\n",
    ),
    (
        "bench.thresholds.p95_ms",
        "bench:\n  thresholds: {p95_ms: {}}\n",
    ),
    (
        "bench.thresholds.p99_ms",
        "bench:\n  thresholds: {p99_ms: {}}\n",
    ),
    (
        "bench.targets[0].thresholds.p99_ms",
        "bench:\n  targets:\n    - {tool: x, thresholds: {p99_ms: {}}}\n",
    ),
    ("evals.timeout_s", "evals:\n  timeout_s: {}\n"),
    (
        "evals.request_timeout_s",
        "evals:\n  request_timeout_s: {}\n",
    ),
    ("evals.batch_poll_s", "evals:\n  batch_poll_s: {}\n"),
    ("evals.batch_deadline_s", "evals:\n  batch_deadline_s: {}\n"),
    ("server.startup_timeout_s", ""),
    ("server.startup_timeout_s (flow)", ""),
];

/// The config with `value` in the field.
fn config(field: &str, snippet: &str, value: &str) -> String {
    match field {
        "server.startup_timeout_s" => {
            format!("server:\n  command: [python]\n  startup_timeout_s: {value}\n")
        }
        "server.startup_timeout_s (flow)" => {
            format!("server: {{command: [python], startup_timeout_s: {value}}}\n")
        }
        _ => format!("{SERVER}{}", snippet.replace("{}", value)),
    }
}

/// The unit of a key: seconds for `_s`, else milliseconds.
fn ceiling(field: &str) -> &'static str {
    if field.ends_with("_s") || field.ends_with("_s (flow)") {
        "2592000"
    } else {
        "2592000000"
    }
}

#[test]
fn every_duration_past_thirty_days_is_an_error_naming_the_range() {
    for (field, snippet) in FIELDS {
        let key = field.trim_end_matches(" (flow)");
        // `.inf` is refused as not finite before the ranges are checked.
        let err = rendered(field, config(field, snippet, ".inf"));
        assert!(err.contains(&format!("`{key}` must be")), "{field}: {err}");
        for value in ["1e300", "1e19"] {
            let err = rendered(field, config(field, snippet, value));
            assert!(
                err.starts_with("toolproof.yaml:") && err.contains(&format!("`{key}` must be")),
                "{field} = {value}: {err}"
            );
            let range = format!("at most {} ", ceiling(field));
            assert!(
                err.contains(&range) && err.contains("(30 days)"),
                "{field}: {err}"
            );
        }
        // One past the ceiling fails; the ceiling itself loads.
        let past = format!("{}1", ceiling(field));
        let err = rendered(field, config(field, snippet, &past));
        assert!(err.contains("at most"), "{field} = {past}: {err}");
        loaded(field, &config(field, snippet, ceiling(field)));
    }
}

#[test]
fn huge_durations_are_config_errors() {
    insta::assert_snapshot!(
        "startup_timeout_huge",
        rendered(
            "startup-huge",
            "server:\n  command: [python]\n  startup_timeout_s: 1e19\n"
        )
    );
    insta::assert_snapshot!(
        "request_timeout_huge",
        rendered(
            "request-huge",
            format!("{SERVER}evals:\n  request_timeout_s: 1e300\n")
        )
    );
    insta::assert_snapshot!(
        "eval_timeout_huge",
        rendered("eval-huge", format!("{SERVER}evals:\n  timeout_s: 1e300\n"))
    );
    insta::assert_snapshot!(
        "retry_delay_huge",
        rendered("delay-huge", format!("{SERVER}retry_delay_ms: 1e300\n"))
    );
}
