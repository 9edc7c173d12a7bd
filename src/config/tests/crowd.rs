//! `evals.neighbours`, `evals.host` and `evals.crowd`: the forms load, and a neighbour without
//! exactly one source, a name given twice, a bad gate or an unknown host is an error at its line.

use super::{SERVER, loaded, rendered};
use crate::config::{HostConfig, HostRules, OnDuplicate};

#[test]
fn the_presets_and_written_rules_load() {
    let host = |yaml: &str| {
        loaded("host", &format!("{SERVER}evals:\n  host: {yaml}\n"))
            .config
            .evals
            .map(|e| e.host)
    };
    assert_eq!(host("claude-code"), Some(HostConfig::ClaudeCode));
    assert_eq!(host("none"), Some(HostConfig::None));
    assert_eq!(
        host("{prefix: 'mcp_{server}_', max_tools: 60, on_duplicate: rename}"),
        Some(HostConfig::Custom(HostRules {
            prefix: "mcp_{server}_".into(),
            max_tools: Some(60),
            on_duplicate: OnDuplicate::Rename,
        }))
    );
}

#[test]
fn settings_the_crowd_cannot_use_are_errors_with_their_place() {
    let text = format!(
        "{SERVER}evals:\n  host: zed\n  neighbours:\n    - {{name: a, command: [x], tools_file: a.json}}\n    - {{name: a, url: 'http://127.0.0.1:1/mcp'}}\n    - {{name: b}}\n  crowd: {{min_accuracy: 2}}\n"
    );
    let got = rendered("crowd-bad", &text);
    assert!(got.contains("unknown host `zed`"), "{got}");
    let text = format!(
        "{SERVER}evals:\n  neighbours:\n    - {{name: a, command: [x], tools_file: a.json}}\n    - {{name: a, url: 'http://127.0.0.1:1/mcp'}}\n    - {{name: b}}\n  crowd: {{min_accuracy: 2}}\n"
    );
    let got = rendered("crowd-bad", &text);
    for said in [
        "toolproof.yaml:5:7: neighbour `a` needs exactly one of `command`, `url` or `tools_file`",
        "toolproof.yaml:6:14: two neighbours are named `a`",
        "toolproof.yaml:7:7: neighbour `b` needs exactly one of",
        "`evals.crowd.min_accuracy` must be between 0 and 1",
    ] {
        assert!(got.contains(said), "missing {said:?} in:\n{got}");
    }
}
