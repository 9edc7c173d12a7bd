//! `inspect`'s output for the fixtures: snapshots, a failed start, stdout noise.
use super::fixtures;
use crate::config::vocab::STDOUT_NOISE;
use crate::report::inspect::*;

#[test]
fn snapshots() {
    fixtures::snapshot_settings().bind(|| {
        for (name, report) in fixtures::all() {
            insta::assert_snapshot!(format!("inspect_{name}"), render(&report.redacted()));
        }
    });
}

#[test]
fn a_failed_start_keeps_the_stderr_as_written_and_both_ends_of_it() {
    let out = render(&fixtures::failed_start());
    assert!(
        out.contains("  │ starting sqlite server on ./data.db\n"),
        "{out}"
    );
    assert!(
        out.contains("  │     return next_layer(request)\n  │            ^^^^"),
        "{out}"
    );
    assert!(out.contains("  │ … 5 lines left out …\n"), "{out}");
    assert!(out.contains("  │ AttributeError: 'Server' object"), "{out}");
    fixtures::snapshot_settings().bind(|| {
        insta::assert_snapshot!("inspect_failed_start", out);
    });
}

#[test]
fn stdout_noise_is_said_once() {
    let mut report = fixtures::all_passed();
    report.stdout_noise = vec!["Starting demo-server...".into()];
    report.stdout_noise_total = 1;
    let out = render(&report);
    assert_eq!(out.matches("non-protocol").count(), 1, "{out}");
    // With a finding for it, the finding says it.
    report.phases.checks.results.findings = vec![fixtures::finding(
        "*",
        STDOUT_NOISE,
        crate::outcome::Severity::Error,
        "server printed 1 non-protocol line on stdout",
    )];
    let out = render(&report);
    assert_eq!(out.matches("non-protocol").count(), 1, "{out}");
    assert!(out.contains("[stdout-noise]"), "{out}");
}
