//! The protocol phase end to end: `toolproof protocol` against the fake server finds nothing on
//! a well-behaved server and finds each planted defect (one per check) with the right
//! severity; `run` leaves the phase off until the config has a `protocol:` section; a bad
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
    let report =
        serde_json::from_str(&std::fs::read_to_string(dir.path("r.json")).unwrap_or_default())
            .unwrap_or(Value::Null);
    (out, report)
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

#[test]
fn a_well_behaved_server_passes_every_protocol_check() {
    let dir = Dir::new("protocol-clean");
    let (out, report) = protocol_fake(&dir, &[], &["--resources", "--prompts", "--page-size", "1"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(failed_ids(&report), Vec::<String>::new(), "{report:#}");
    let all = checks(&report);
    assert_eq!(all.len(), toolproof::protocol::PROTOCOL_CHECK_IDS.len());
    let passed = all.iter().filter(|c| c["status"] == "passed").count();
    // Only `unadvertised` (everything is advertised) and `logging` (not advertised) skip.
    assert_eq!(passed, all.len() - 2, "{report:#}");
    assert_eq!(report["phases"]["protocol"]["status"], "passed");
    assert_eq!(report["phases"]["checks"]["status"], "skipped");
    assert!(out.stdout.contains("Protocol: PASS"), "{}", out.stdout);
}

/// Every planted defect is found by its check and by no other, with the check's severity
/// deciding the exit code.
#[test]
fn each_planted_protocol_defect_is_found_by_its_check() {
    let rows: &[(&str, &[&str], &str)] = &[
        ("init-version", &[], "error"),
        ("initialized", &[], "error"),
        ("before-initialize", &[], "warning"),
        ("ping", &[], "error"),
        ("unknown-method", &[], "error"),
        ("notifications", &[], "error"),
        ("capabilities", &[], "error"),
        ("unadvertised", &[], "warning"),
        ("logging", &[], "error"),
        ("unknown-tool", &[], "warning"),
        ("invalid-arguments", &[], "error"),
        ("invalid-cursor", &[], "warning"),
        ("pagination", &[], "error"),
        ("resources-read", &["--resources"], "warning"),
        ("prompts-get", &["--prompts"], "warning"),
        ("batch", &[], "warning"),
        ("malformed", &[], "warning"),
    ];
    assert_eq!(rows.len(), toolproof::protocol::PROTOCOL_CHECK_IDS.len());
    let dir = Dir::new("protocol-faults");
    for (id, extra, severity) in rows {
        let fault = format!("protocol-{id}");
        let mut fake_args = vec!["--fault", fault.as_str()];
        fake_args.extend_from_slice(extra);
        let (out, report) = protocol_fake(&dir, &["--timeout-ms", "3000"], &fake_args);
        assert_eq!(
            failed_ids(&report),
            vec![id.to_string()],
            "{fault}: {report:#}"
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

#[test]
fn strict_makes_a_failed_warning_fail_and_disable_turns_a_check_off() {
    let dir = Dir::new("protocol-strict");
    let (out, _) = protocol_fake(&dir, &["--strict"], &["--fault", "protocol-malformed"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
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
