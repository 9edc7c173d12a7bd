//! The protocol phase end to end: `toolproof protocol` against the fake server (over stdio and
//! streamable HTTP) finds nothing on a well-behaved server and finds each planted defect (one
//! per check) with the right severity; `run` leaves the phase off until the config has a `protocol:` section; a bad
//! `protocol.disable` id is a config error with its place.

use super::*;

/// `toolproof protocol` on the fake server with `fake_args`, writing `r.json` and `r.xml`.
fn protocol_fake(dir: &Dir, flags: &[&str], fake_args: &[&str]) -> (Out, Value) {
    let fake = fake();
    let mut args = vec!["protocol", "--json", "r.json", "--junit", "r.xml"];
    args.extend_from_slice(flags);
    args.extend(["--", fake.as_str()]);
    args.extend_from_slice(fake_args);
    let out = toolproof_in(&dir.0, &args, &[]);
    (out, read_report(dir))
}

/// The same over streamable HTTP: the fake listens on loopback, the config names its URL.
fn protocol_http_fake(dir: &Dir, flags: &[&str], fake_args: &[&str]) -> (Out, Value) {
    let server = http_fake(fake_args);
    dir.write(
        "toolproof.yaml",
        &format!("server:\n  url: {}\nprotocol: {{}}\n", server.url),
    );
    let mut args = vec!["protocol", "--json", "r.json", "--junit", "r.xml"];
    args.extend_from_slice(flags);
    let out = toolproof_in(&dir.0, &args, &[]);
    (out, read_report(dir))
}

fn read_report(dir: &Dir) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.path("r.json")).unwrap_or_default())
        .unwrap_or(Value::Null)
}

fn checks(report: &Value) -> Vec<Value> {
    report["phases"]["protocol"]["results"]["checks"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("no protocol checks in {report:#}"))
}

fn failed_ids(report: &Value) -> Vec<String> {
    checks(report)
        .iter()
        .filter(|c| c["status"] == "failed")
        .map(|c| c["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn skipped_ids(report: &Value) -> Vec<String> {
    checks(report)
        .iter()
        .filter(|c| c["status"] == "skipped")
        .map(|c| c["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The HTTP transport's own checks, which a stdio server skips.
fn http_ids() -> Vec<String> {
    toolproof::facade::PROTOCOL_CHECK_IDS
        .iter()
        .filter(|id| id.starts_with("http-"))
        .map(|id| (*id).to_owned())
        .collect()
}

#[test]
fn a_well_behaved_server_passes_every_protocol_check() {
    let dir = Dir::new("protocol-clean");
    let (out, report) = protocol_fake(&dir, &[], &["--resources", "--prompts", "--page-size", "1"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(failed_ids(&report), Vec::<String>::new(), "{report:#}");
    let all = checks(&report);
    assert_eq!(all.len(), toolproof::facade::PROTOCOL_CHECK_IDS.len());
    // `unadvertised` (everything is advertised), `logging` (not advertised) and the HTTP
    // transport's checks skip.
    let mut expected = vec!["unadvertised".to_owned(), "logging".to_owned()];
    expected.extend(http_ids());
    assert_eq!(skipped_ids(&report), expected, "{report:#}");
    assert_eq!(report["phases"]["protocol"]["status"], "passed");
    assert_eq!(
        report["phases"]["protocol"]["results"]["transport"],
        "stdio"
    );
    assert_eq!(report["phases"]["checks"]["status"], "skipped");
    assert!(out.stdout.contains("Protocol: PASS"), "{}", out.stdout);
}

#[test]
fn a_well_behaved_http_server_passes_every_protocol_check_the_transport_ones_too() {
    let dir = Dir::new("protocol-clean-http");
    let (out, report) =
        protocol_http_fake(&dir, &[], &["--resources", "--prompts", "--page-size", "1"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(failed_ids(&report), Vec::<String>::new(), "{report:#}");
    // Answers in JSON open no event stream to prime.
    assert_eq!(
        skipped_ids(&report),
        [
            "unadvertised",
            "logging",
            "http-sse-priming",
            "http-sse-retry"
        ],
        "{report:#}"
    );
    assert_eq!(
        report["phases"]["protocol"]["results"]["transport"],
        "streamable-http"
    );
    // Answering in event streams, primed with an id, is checked and passes; a stream that
    // carries its response needs no `retry`, so that check does not apply.
    let (out, report) = protocol_http_fake(
        &dir,
        &[],
        &["--sse", "--resources", "--prompts", "--page-size", "1"],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(failed_ids(&report), Vec::<String>::new(), "{report:#}");
    assert_eq!(
        skipped_ids(&report),
        ["unadvertised", "logging", "http-sse-retry"],
        "{report:#}"
    );
    let retry = checks(&report)
        .into_iter()
        .find(|c| c["id"] == "http-sse-retry")
        .expect("reported");
    assert!(
        retry["detail"]
            .as_str()
            .is_some_and(|d| d.contains("carried its response")),
        "{retry}"
    );
    // A server that closes a `ping`'s stream before the response, after an event id and a
    // `retry`, is resumed with a GET by every probe and passes the `retry` check.
    let (out, report) = protocol_http_fake(
        &dir,
        &[],
        &[
            "--sse",
            "--fault",
            "sse-close-ping",
            "--resources",
            "--prompts",
            "--page-size",
            "1",
        ],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(failed_ids(&report), Vec::<String>::new(), "{report:#}");
    assert_eq!(
        skipped_ids(&report),
        ["unadvertised", "logging"],
        "{report:#}"
    );
}

/// Where a planted defect is found: over stdio, over HTTP, or both.
#[derive(Clone, Copy, PartialEq)]
enum Over {
    Stdio,
    Http,
    Both,
}

/// Every planted defect is found by its check and by no other, with the check's severity
/// deciding the exit code, over each transport it applies to.
#[test]
fn each_planted_protocol_defect_is_found_by_its_check() {
    use Over::{Both, Http, Stdio};
    // The fake refuses batches, malformed bodies and session-less requests in its HTTP layer,
    // before the planted stdio defect could show.
    let rows: &[(&str, &[&str], &str, Over)] = &[
        ("init-version", &[], "error", Both),
        ("initialized", &[], "error", Both),
        ("before-initialize", &[], "info", Stdio),
        ("ping", &[], "error", Both),
        ("unknown-method", &[], "error", Both),
        ("notifications", &[], "error", Both),
        ("capabilities", &[], "error", Both),
        ("unadvertised", &[], "warning", Both),
        ("logging", &[], "error", Both),
        ("unknown-tool", &[], "warning", Both),
        ("invalid-arguments", &[], "error", Both),
        ("invalid-cursor", &[], "info", Both),
        ("pagination", &[], "error", Both),
        ("resources-read", &["--resources"], "warning", Both),
        ("prompts-get", &["--prompts"], "warning", Both),
        ("list-changed", &[], "warning", Both),
        ("batch", &[], "warning", Stdio),
        ("malformed", &[], "info", Both),
        ("http-session", &[], "error", Http),
        ("http-missing-session", &[], "warning", Http),
        ("http-unknown-session", &[], "warning", Http),
        ("http-delete", &[], "error", Http),
        ("http-protocol-version", &[], "error", Http),
        ("http-accept", &[], "warning", Http),
        ("http-notification", &[], "error", Http),
        ("http-get", &[], "error", Http),
        ("http-sse-priming", &["--sse"], "warning", Http),
        ("http-sse-retry", &["--sse"], "warning", Http),
        ("http-origin", &[], "error", Http),
    ];
    let ids: Vec<&str> = rows.iter().map(|r| r.0).collect();
    assert_eq!(ids, toolproof::facade::PROTOCOL_CHECK_IDS);
    let dir = Dir::new("protocol-faults");
    for (id, extra, severity, over) in rows {
        let fault = format!("protocol-{id}");
        let mut fake_args = vec!["--fault", fault.as_str()];
        fake_args.extend_from_slice(extra);
        let flags = ["--timeout-ms", "3000"];
        let mut runs = Vec::new();
        if *over != Http {
            runs.push(("stdio", protocol_fake(&dir, &flags, &fake_args)));
        }
        if *over != Stdio {
            runs.push(("http", protocol_http_fake(&dir, &flags, &fake_args)));
        }
        for (transport, (out, report)) in runs {
            let mut expected = vec![id.to_string()];
            // A notification answered with a body breaks the HTTP rule for notifications too.
            if *id == "notifications" && transport == "http" {
                expected.push("http-notification".into());
            }
            assert_eq!(
                failed_ids(&report),
                expected,
                "{fault} over {transport}: {report:#}"
            );
            let check = checks(&report)
                .into_iter()
                .find(|c| c["id"] == *id)
                .expect("the check is reported");
            assert_eq!(check["severity"], *severity, "{fault}");
            assert!(check["detail"].as_str().is_some_and(|d| !d.is_empty()));
            let code = if *severity == "error" { 1 } else { 0 };
            assert_eq!(out.code, code, "{fault}: {}\n{}", out.stdout, out.stderr);
            let xml = dir.read("r.xml");
            assert!(
                xml.contains(&format!("classname=\"toolproof.protocol.{id}\"")),
                "{xml}"
            );
        }
    }
}

/// The planted HTTP defects are found with details that say what the server did.
#[test]
fn http_findings_name_the_status_the_server_gave() {
    let dir = Dir::new("protocol-http-details");
    let cases = [
        ("http-origin", "was accepted (HTTP 200"),
        ("http-protocol-version", "was answered with HTTP 200"),
        ("http-unknown-session", "HTTP 400"),
        ("http-delete", "after its DELETE was answered with HTTP 200"),
        ("http-get", "HTTP 200 (application/json)"),
        ("http-session", "\"fake session"),
        ("http-sse-priming", "began with {id: "),
        ("http-sse-retry", "closed before its response, and no event"),
    ];
    for (id, words) in cases {
        let fault = format!("protocol-{id}");
        let (_, report) = protocol_http_fake(&dir, &[], &["--sse", "--fault", &fault]);
        let check = checks(&report)
            .into_iter()
            .find(|c| c["id"] == id)
            .expect("reported");
        let detail = check["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(words), "{id}: {detail}");
    }
}

#[test]
fn strict_makes_a_failed_warning_fail_and_disable_turns_a_check_off() {
    let dir = Dir::new("protocol-strict");
    let (out, _) = protocol_fake(&dir, &["--strict"], &["--fault", "protocol-unknown-tool"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    // Infos are advice: strict leaves them be.
    let (out, _) = protocol_fake(&dir, &["--strict"], &["--fault", "protocol-malformed"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: [\"{}\", \"--fault\", \"protocol-ping\"]\nprotocol:\n  disable: [ping]\n",
            fake()
        ),
    );
    let out = toolproof_in(&dir.0, &["protocol", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let ping = checks(&dir.json("r.json"))
        .into_iter()
        .find(|c| c["id"] == "ping")
        .expect("ping is reported");
    assert_eq!(ping["status"], "skipped");
}

#[test]
fn run_checks_the_protocol_only_when_the_config_asks() {
    let dir = Dir::new("protocol-run");
    let server = format!(
        "server:\n  command: [\"{}\", \"--fault\", \"protocol-ping\"]\n",
        fake()
    );
    dir.write("toolproof.yaml", &server);
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let report = dir.json("r.json");
    assert_eq!(report["phases"]["protocol"]["status"], "skipped");
    assert_eq!(
        report["phases"]["protocol"]["reason"],
        "no `protocol:` section in the config"
    );

    dir.write("toolproof.yaml", &format!("{server}protocol: {{}}\n"));
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(failed_ids(&dir.json("r.json")), vec!["ping".to_owned()]);

    let out = toolproof_in(&dir.0, &["run", "--skip-protocol", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
}

/// What is not the server's defect is not a warning: answering a request before `initialize`
/// (the SHOULD NOT binds the client) is advice; processing a batch on 2025-11-25 (batching was
/// removed without a MUST to refuse it) and refusing a read with a well-formed JSON-RPC error
/// (a backend that is not there) pass. Strict changes nothing, as infos never fail a run.
#[test]
fn leniency_and_a_refused_read_are_not_warnings() {
    let dir = Dir::new("protocol-lenient");
    let fake_args = [
        "--resources",
        "--fault",
        "lenient-batch",
        "--fault",
        "resources-unavailable",
        "--fault",
        "protocol-before-initialize",
    ];
    let (out, report) = protocol_fake(&dir, &["--strict"], &fake_args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(failed_ids(&report), ["before-initialize"], "{report:#}");
    let severities: Vec<(String, String)> = checks(&report)
        .iter()
        .filter(|c| c["status"] == "failed")
        .map(|c| (c["id"].to_string(), c["severity"].to_string()))
        .collect();
    assert_eq!(
        severities,
        [("\"before-initialize\"".into(), "\"info\"".into())]
    );
    assert!(
        out.stdout.contains("Protocol: PASS - 0 errors, 0 warnings"),
        "{}",
        out.stdout
    );
    // In JUnit too the info is no failure, strict or not, and says what it is.
    let xml = dir.read("r.xml");
    assert!(!xml.contains("<failure"), "{xml}");
    assert!(xml.contains("info: "), "{xml}");
}

/// The findings the SDKs cause, not the server's own code, say so.
#[test]
fn sdk_findings_are_infos_that_say_where_the_fix_belongs() {
    let dir = Dir::new("protocol-sdk");
    let (out, report) = protocol_fake(&dir, &[], &["--fault", "protocol-invalid-cursor"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let check = checks(&report)
        .into_iter()
        .find(|c| c["id"] == "invalid-cursor")
        .expect("reported");
    assert_eq!(check["severity"], "info", "{check}");
    let detail = check["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("common to the TypeScript and Python SDKs"),
        "{detail}"
    );
}

/// `malformed` judges what the server did, not which SDK it may be built on: ignoring a bad
/// line and answering on is advice (an info), while exiting on it is a warning, as exiting on
/// a batch is, and neither guesses at an SDK.
#[test]
fn malformed_input_is_judged_by_whether_the_server_keeps_answering() {
    let dir = Dir::new("protocol-malformed");
    let finding = |fault: &str| {
        let (out, report) = protocol_fake(&dir, &["--strict"], &["--fault", fault]);
        let check = checks(&report)
            .into_iter()
            .find(|c| c["id"] == "malformed")
            .expect("reported");
        assert_eq!(check["status"], "failed", "{fault}: {check}");
        let detail = check["detail"].as_str().unwrap_or_default().to_owned();
        assert!(!detail.contains("SDK"), "{fault}: {detail}");
        (
            out,
            check["severity"].as_str().unwrap_or_default().to_owned(),
            detail,
        )
    };
    let (out, severity, detail) = finding("protocol-malformed");
    assert_eq!(severity, "info");
    assert!(detail.contains("got no answer"), "{detail}");
    assert!(detail.contains("kept answering"), "{detail}");
    assert_eq!(
        out.code, 0,
        "infos never fail, strict or not: {}",
        out.stdout
    );

    let (out, severity, detail) = finding("malformed-exit");
    assert_eq!(severity, "warning");
    assert!(
        detail.contains("after a line that is not JSON the server stopped answering"),
        "{detail}"
    );
    assert_eq!(out.code, 1, "a warning fails with --strict: {}", out.stdout);
    // The same behaviour after a batch has the same severity.
    let (_, report) = protocol_fake(&dir, &[], &["--fault", "protocol-batch"]);
    let batch = checks(&report)
        .into_iter()
        .find(|c| c["id"] == "batch")
        .expect("reported");
    assert_eq!(batch["severity"], severity);
}

/// A server that never answers `initialize` cannot be checked: the phase stops at the failed
/// handshake with an error (exit 1, `error` in every report) instead of running every probe
/// into its timeout and reporting a pass with everything skipped; in `protocol` and in `run`.
#[test]
fn a_server_that_never_answers_initialize_is_a_protocol_error_not_a_pass() {
    let dir = Dir::new("protocol-hang");
    let cmd = yaml_list(&[&fake(), "--fault", "hang-initialize"]);
    let server = format!("server:\n  command: {cmd}\n  startup_timeout_s: 1\n");
    for (command, section) in [("protocol", ""), ("run", "protocol: {}\n")] {
        dir.write("toolproof.yaml", &format!("{server}{section}"));
        let args = [
            command,
            "--json",
            "r.json",
            "--junit",
            "r.xml",
            "--summary",
            "s.md",
            "--html",
            "r.html",
        ];
        let out = toolproof_in(&dir.0, &args, &[]);
        assert_eq!(out.code, 1, "{command}: {}\n{}", out.stdout, out.stderr);
        // One startup timeout (the main connection's), not one per probe.
        assert!(
            out.elapsed < Duration::from_secs(5),
            "{command} took {:?}",
            out.elapsed
        );
        let report = dir.json("r.json");
        let phase = &report["phases"]["protocol"];
        assert_eq!(phase["status"], "error", "{command}: {report:#}");
        let reason = phase["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("`initialize`"), "{command}: {reason}");
        assert!(
            out.stdout.contains("Protocol: ERROR") && !out.stdout.contains("Protocol: PASS"),
            "{command}: {}",
            out.stdout
        );
        let xml = dir.read("r.xml");
        let suite = xml
            .split("<testsuite ")
            .find(|s| s.starts_with("name=\"protocol\""))
            .unwrap_or_else(|| panic!("no protocol suite: {xml}"));
        assert!(
            suite.contains("<error") || suite.contains("<failure"),
            "{command}: {suite}"
        );
        let summary = dir.read("s.md");
        let row = summary
            .lines()
            .find(|l| l.contains("Protocol"))
            .unwrap_or_else(|| panic!("no protocol row: {summary}"));
        assert!(
            row.contains("❌") && row.contains("initialize") && !row.contains("✅"),
            "{command}: {row}"
        );
        assert!(dir.read("r.html").contains("Protocol"));
    }
}

#[test]
fn an_unknown_protocol_check_id_is_a_config_error_with_its_place() {
    let dir = Dir::new("protocol-bad-id");
    dir.write(
        "toolproof.yaml",
        &format!(
            "server:\n  command: [\"{}\"]\nprotocol:\n  disable:\n    - pingg\n",
            fake()
        ),
    );
    let out = toolproof_in(&dir.0, &["protocol"], &[]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("toolproof.yaml:5:7")
            && out.stderr.contains("unknown protocol check id `pingg`")
            && out.stderr.contains("did you mean `ping`?"),
        "{}",
        out.stderr
    );
}
