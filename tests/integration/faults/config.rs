//! Configs that are wrong in ways a user can cause: durations past the 30-day ceiling (from
//! the YAML, the flag and the environment), files too large or endless to read, bytes that are
//! not text. Each is exit code 2 with the place and the allowed range, never a panic or a hang.

use super::harness::{Case, fake_server};

/// A picker that always answers "no tool", for configs whose `evals:` must be complete.
const EVALS: &str = "evals:\n  provider: command\n  command: [sh, -c, 'echo {\"tool\": null}']\n  cases:\n    - {prompt: hi, expect_tool: null}\n";

#[test]
fn a_startup_timeout_of_1e19_seconds_is_a_config_error_not_a_panic() {
    let yaml = fake_server(&[], "").replace("server:\n", "server:\n  startup_timeout_s: 1e19\n");
    Case::new("startup-1e19").yaml(&yaml).run().sound(2).says(
        "toolproof.yaml:2:22: `server.startup_timeout_s` must be greater than 0 and at most 2592000 seconds (30 days), got number 1e19",
    );
}

#[test]
fn an_eval_request_timeout_of_1e300_is_a_config_error() {
    let yaml = fake_server(&[], &format!("{EVALS}  request_timeout_s: 1e300\n"));
    Case::new("request-timeout-1e300")
        .yaml(&yaml)
        .run()
        .sound(2)
        .says("`evals.request_timeout_s` must be greater than 0 and at most 2592000 seconds (30 days), got number 1e300");
}

#[test]
fn an_eval_command_timeout_of_1e300_is_a_config_error() {
    let yaml = fake_server(&[], &format!("{EVALS}  timeout_s: 1e300\n"));
    Case::new("eval-timeout-1e300")
        .yaml(&yaml)
        .args(&["eval", "-c", "toolproof.yaml"])
        .run()
        .sound(2)
        .says("`evals.timeout_s` must be greater than 0 and at most 2592000 seconds (30 days)");
}

#[test]
fn every_other_duration_past_the_ceiling_is_refused_at_its_line() {
    let fields = [
        ("timeout_ms: 3e9\n", "3:13: `timeout_ms`"),
        ("retry_delay_ms: 1e300\n", "3:17: `retry_delay_ms`"),
        (
            "tests:\n  - {name: t, tool: echo, timeout_ms: 1e300}\n",
            "4:39: `tests[0].timeout_ms`",
        ),
        (
            "tests:\n  - {name: t, tool: echo, retry_delay_ms: 1e300}\n",
            "4:43: `tests[0].retry_delay_ms`",
        ),
        (
            "tests:\n  - {name: t, tool: echo, expect: {max_latency_ms: 1e300}}\n",
            "4:52: `tests[0].expect.max_latency_ms`",
        ),
        ("fuzz:\n  max_time_s: 1e300\n", "4:15: `fuzz.max_time_s`"),
        ("fuzz:\n  timeout_ms: 1e300\n", "4:15: `fuzz.timeout_ms`"),
        ("bench:\n  timeout_ms: 1e300\n", "4:15: `bench.timeout_ms`"),
        (
            "bench:\n  thresholds: {p95_ms: 1e300}\n",
            "4:24: `bench.thresholds.p95_ms`",
        ),
    ];
    for (rest, said) in fields {
        Case::new("duration-field")
            .yaml(&fake_server(&[], rest))
            .run()
            .sound(2)
            .says(&format!("toolproof.yaml:{said} must be"))
            .says("(30 days)");
    }
}

#[test]
fn a_huge_timeout_flag_or_variable_is_a_usage_error() {
    Case::new("timeout-flag")
        .yaml(&fake_server(&[], ""))
        .args(&["run", "toolproof.yaml", "--timeout-ms", "1e300"])
        .run()
        .sound(2)
        .says(
            "--timeout-ms must be above 0 and at most 2592000000 milliseconds (30 days), got 1e300",
        );
    Case::new("timeout-env")
        .yaml(&fake_server(&[], ""))
        .env("TOOLPROOF_TIMEOUT_MS", "1e300")
        .run()
        .sound(2)
        .says("TOOLPROOF_TIMEOUT_MS=\"1e300\" is not valid")
        .says("at most 2592000000 (30 days)");
}

#[test]
fn a_config_read_from_dev_zero_stops_at_the_limit() {
    Case::new("dev-zero")
        .args(&["run", "/dev/zero"])
        .no_reports()
        .run()
        .sound(2)
        .says("/dev/zero: the file is larger than 8 MiB");
}

#[test]
fn a_config_file_past_eight_mib_is_refused() {
    let mut yaml = fake_server(&[], "");
    let line = format!("# {}\n", "x".repeat(1000));
    while yaml.len() <= 8 << 20 {
        yaml.push_str(&line);
    }
    Case::new("huge-config")
        .yaml(&yaml)
        .run()
        .sound(2)
        .says("toolproof.yaml: the file is larger than 8 MiB");
}

#[test]
fn a_cases_file_that_never_ends_stops_at_the_limit() {
    let yaml = fake_server(
        &[],
        "evals:\n  provider: command\n  command: [picker]\n  cases_file: /dev/zero\n",
    );
    Case::new("cases-dev-zero")
        .yaml(&yaml)
        .run()
        .sound(2)
        .says("/dev/zero: the file is larger than 8 MiB");
}

#[test]
fn a_config_that_is_not_utf8_names_the_line_and_column() {
    let mut bytes = fake_server(&[], "tests:\n  - {name: caf").into_bytes();
    bytes.extend_from_slice(b"\xe9, tool: echo}\n");
    Case::new("not-utf8")
        .file("toolproof.yaml", &bytes)
        .run()
        .sound(2)
        .says("toolproof.yaml:4:15: the file is not valid UTF-8")
        .says("hint: save the file as UTF-8");
}

#[test]
fn a_config_error_never_shows_an_expanded_secret() {
    let yaml = fake_server(&[], "timeout_ms: 1e300\n").replace(
        "server:\n",
        "server:\n  env: {TOKEN: \"${TP_FAULT_SECRET}\"}\n",
    );
    Case::new("secret")
        .yaml(&yaml)
        .env("TP_FAULT_SECRET", "hunter2-fault-secret")
        .run()
        .sound(2)
        .says("`timeout_ms` must be")
        .never_shows("hunter2-fault-secret");
}
