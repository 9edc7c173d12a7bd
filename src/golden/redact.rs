//! Redaction of every string of a fixture report.
use super::fixtures;
use std::borrow::Cow;

#[test]
fn every_string_of_the_report_is_redacted() {
    let mut report = fixtures::failing();
    let secret = "hunter2-secret".to_string();
    report.secrets = vec![secret.clone()];
    report.target = format!("https://x.example/?key={secret}");
    report.phases.tests.results[0].failures = vec![format!("got {secret}")];
    report.phases.checks.results.findings[0].message = format!("has {secret}");
    if let Some(server) = report.server.as_mut() {
        server.capabilities = serde_json::json!({ secret.clone(): [secret.clone()] });
    }
    let redacted = report.redacted();
    let json = serde_json::to_string(&*redacted).unwrap_or_default();
    assert!(!json.is_empty());
    assert!(!json.contains(&secret), "{json}");
    assert!(json.contains("key=***"));
}

#[test]
fn no_secrets_borrows() {
    let report = fixtures::all_passed();
    assert!(matches!(report.redacted(), Cow::Borrowed(_)));
}
