//! Golden tests of the surface phase's views (console, job summary, PR comment) and of the
//! SARIF log, from a run with findings of every kind: static and security checks, a failed
//! protocol check, set-lint findings and breaking changes against the lock. Every SARIF log of
//! the fixtures validates against the SARIF 2.1.0 schema.

use std::collections::BTreeMap;

use serde_json::Value;

use super::fixtures;
use crate::outcome::{
    AffectedRow, CaseStatus, ChangeKind, Phase, PhaseStatus, ProtocolCheck, ProtocolResults,
    RunReport, Severity, SurfaceChange, SurfaceResults,
};
use crate::report::places::Places;

fn change(kind: ChangeKind, item: &str, what: &str, rule: &str, line: u32) -> SurfaceChange {
    SurfaceChange {
        kind,
        item: item.into(),
        what: what.into(),
        rule: rule.into(),
        lock_line: Some(line),
        rug_pull: Vec::new(),
        rows: Vec::new(),
    }
}

/// A protocol phase whose `ping` check failed.
fn failed_ping() -> Phase<Option<ProtocolResults>> {
    Phase {
        status: PhaseStatus::Failed,
        reason: None,
        duration_ms: 3.0,
        results: Some(ProtocolResults {
            strict: false,
            transport: "stdio".into(),
            protocol_version: Some("2025-06-18".into()),
            checks: vec![ProtocolCheck {
                id: "ping".into(),
                severity: Severity::Error,
                status: "failed".into(),
                detail: Some("`ping` was answered with error -32601".into()),
            }],
        }),
    }
}

/// `failing` with the set lint's findings, a failed protocol check, a poisoned tool, and a
/// `--locked` surface phase with a change of each kind.
pub(crate) fn with_surface() -> RunReport {
    let mut r = fixtures::failing();
    r.phases.lint = fixtures::lint_findings().phases.lint;
    r.phases.checks.results.findings.push(fixtures::finding(
        "weather",
        "security-instructions",
        Severity::Error,
        "has a tag block addressed to the model: description: \"Weather. <IMPORTANT>…\"",
    ));
    r.phases.protocol = failed_ping();
    let mut search = change(
        ChangeKind::Selection,
        "tool:search",
        "description changed",
        "description-changed",
        30,
    );
    search.rows.push(AffectedRow {
        model: "claude-haiku-4-5".into(),
        case: "find | by *text*".into(),
        expected: Some("search".into()),
        picked: vec!["search".into()],
        status: CaseStatus::Correct,
    });
    let mut weather = change(
        ChangeKind::Selection,
        "tool:weather",
        "description changed",
        "description-changed",
        44,
    );
    weather.rug_pull = vec!["security-instructions".into()];
    let results = SurfaceResults {
        locked: true,
        lock_file: "toolproof.lock".into(),
        changes: vec![
            change(
                ChangeKind::Breaking,
                "tool:get_order",
                "lost optional argument `limit`",
                "property-removed",
                8,
            ),
            change(
                ChangeKind::Breaking,
                "prompt:summary",
                "removed",
                "prompt-removed",
                60,
            ),
            search,
            weather,
            change(
                ChangeKind::Compatible,
                "tool:list_orders",
                "new tool",
                "added",
                0,
            ),
        ],
        lock_lines: BTreeMap::from([
            ("tool:get_order".into(), 8),
            ("tool:search".into(), 30),
            ("tool:weather".into(), 44),
            ("prompt:summary".into(), 60),
        ]),
    };
    r.phases.surface = Some(Phase {
        status: PhaseStatus::Failed,
        reason: Some(format!("{} against toolproof.lock", results.counts_text())),
        duration_ms: 1.0,
        results,
    });
    r
}

fn sarif(report: &RunReport) -> String {
    crate::report::sarif::render_with(report, &Places::default())
}

#[test]
fn snapshots() {
    let r = with_surface();
    fixtures::snapshot_settings().bind(|| {
        insta::assert_snapshot!("surface_sarif", sarif(&r));
        insta::assert_snapshot!(
            "surface_console",
            crate::report::console::render(
                &r,
                &crate::report::console::ConsoleOptions {
                    color: false,
                    width: 120
                }
            )
        );
        insta::assert_snapshot!(
            "surface_pr_comment",
            crate::report::markdown::pr_comment::render(&r, &Default::default())
        );
    });
}

#[test]
fn the_pr_comment_opens_with_the_surface_diff_then_the_verdict() {
    let body = crate::report::markdown::pr_comment::render(&with_surface(), &Default::default());
    let surface = body
        .find("⚠️ **API surface against toolproof.lock:** 2 breaking, 2 selection-affecting, 1 compatible: get\\_order lost optional argument")
        .expect(&body);
    let heading = body.find("## ❌").expect(&body);
    let phases = body.find("| Static checks").expect(&body);
    assert!(heading < surface && surface < phases, "{body}");
    // Untrusted text is escaped in the table.
    assert!(body.contains("find \\| by \\*text\\* (correct)"), "{body}");
    assert!(
        body.contains("**rug pull:** now trips security-instructions"),
        "{body}"
    );
}

#[test]
fn the_html_report_shows_the_surface_first_breaking_first_with_text_escaped() {
    let mut r = with_surface();
    r.phases.surface.as_mut().expect("surface").results.changes[2].rows[0].case =
        "<script>alert(1)</script> & co".into();
    let page = crate::report::html::render(&r);
    let surface = page
        .find("<section id=\"surface\"")
        .expect("a surface section");
    let checks = page
        .find("<section id=\"checks\"")
        .expect("a checks section");
    assert!(surface < checks, "the surface comes before the checks");
    let section = &page[surface..checks];
    assert!(
        section.contains("Against toolproof.lock: 2 breaking, 2 selection-affecting, 1 compatible"),
        "{section}"
    );
    // Locked: a breaking or selection change fails; a compatible one is only listed.
    let breaking = section.find("BREAKING").expect(section);
    let compatible = section.find("COMPATIBLE").expect(section);
    assert!(breaking < compatible, "{section}");
    assert!(
        section.contains("class=\"fail\" data-status=\"breaking\""),
        "{section}"
    );
    assert!(
        section.contains("rug pull: now trips security-instructions"),
        "{section}"
    );
    assert!(!section.contains("<script>"), "{section}");
    assert!(
        section
            .contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co [claude-haiku-4-5]: correct"),
        "{section}"
    );
}

#[test]
fn every_fixture_s_sarif_validates_against_the_schema() {
    let schema: Value =
        serde_json::from_str(include_str!("../../tests/sarif/sarif-schema-2.1.0.json"))
            .expect("schema");
    let validator = jsonschema::draft4::new(&schema).expect("the schema compiles");
    let mut all = fixtures::all();
    all.push(("surface", with_surface()));
    for (name, report) in all {
        let log: Value = serde_json::from_str(&sarif(&report)).expect("SARIF is JSON");
        let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
    }
}

#[test]
fn sarif_has_every_kind_of_finding_with_locations_and_stable_fingerprints() {
    let log: Value = serde_json::from_str(&sarif(&with_surface())).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let rule = |id: &str| {
        results
            .iter()
            .find(|r| r["ruleId"] == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    let poisoned = rule("security-instructions");
    assert_eq!(poisoned["level"], "error");
    assert_eq!(
        poisoned["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "toolproof.lock"
    );
    assert_eq!(
        poisoned["locations"][0]["physicalLocation"]["region"]["startLine"],
        44
    );
    assert_eq!(
        rule("protocol-ping")["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "toolproof.yaml"
    );
    let removed = rule("surface-property-removed");
    assert_eq!(
        removed["locations"][0]["physicalLocation"]["region"]["startLine"],
        8
    );
    assert_eq!(
        removed["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
        "demo-server/get_order"
    );
    let lint = results
        .iter()
        .find(|r| r["ruleId"].as_str().unwrap().starts_with("lint-"))
        .unwrap();
    assert!(
        lint["locations"][0]["physicalLocation"]["region"]["startLine"].is_u64(),
        "{lint}"
    );
    // Only breaking changes are findings.
    assert!(results.iter().all(|r| r["ruleId"] != "surface-added"));
    // The wording is no part of the fingerprint.
    let mut reworded = with_surface();
    for f in &mut reworded.phases.checks.results.findings {
        f.message.push_str(" (reworded)");
    }
    let again: Value = serde_json::from_str(&sarif(&reworded)).unwrap();
    let prints = |l: &Value| -> Vec<Value> {
        l["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["partialFingerprints"].clone())
            .collect()
    };
    assert_eq!(prints(&log), prints(&again));
    let distinct: std::collections::HashSet<String> =
        prints(&log).iter().map(Value::to_string).collect();
    assert_eq!(distinct.len(), results.len(), "fingerprints are unique");
    // Every rule the driver lists has the fields code scanning shows.
    for r in log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
    {
        for key in [
            "id",
            "shortDescription",
            "fullDescription",
            "helpUri",
            "defaultConfiguration",
        ] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
    }
}
