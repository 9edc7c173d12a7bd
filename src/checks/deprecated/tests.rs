use serde_json::{Value, json};

use super::super::tests::{good, of};
use super::*;

fn with(title: Option<&str>, description: &str) -> Value {
    let mut raw = good("read_file");
    raw["description"] = json!(description);
    if let Some(t) = title {
        raw["title"] = json!(t);
    }
    raw
}

fn found(list: Vec<Value>) -> Vec<(String, Severity, String)> {
    of(DEPRECATED_TOOL, list)
}

#[test]
fn the_filesystem_servers_read_file_names_its_listed_replacement() {
    // server-filesystem 2026.8.31, as listed.
    let got = found(vec![
        with(
            Some("Read File (Deprecated)"),
            "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
        ),
        good("read_text_file"),
    ]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "read_file");
    assert_eq!(got[0].1, Severity::Warning);
    assert_eq!(
        got[0].2,
        "tool is deprecated but still listed (title: \"Read File (Deprecated)\"); models still \
         pick it over `read_text_file`, which replaces it"
    );
}

#[test]
fn a_replacement_the_server_does_not_list_or_none_at_all_is_said() {
    let got = found(vec![with(None, "Deprecated in favor of `fetch_v2`.")]);
    assert!(
        got[0]
            .2
            .contains("its replacement `fetch_v2` is not in the tool list"),
        "{}",
        got[0].2
    );
    let got = found(vec![with(None, "[DEPRECATED] Reads a file.")]);
    assert!(
        got[0].2.ends_with("nothing says what replaces it"),
        "{}",
        got[0].2
    );
    let got = found(vec![with(
        None,
        "This tool is deprecated; use it sparingly.",
    )]);
    assert!(
        got[0].2.ends_with("nothing says what replaces it"),
        "{}",
        got[0].2
    );
}

#[test]
fn tools_about_deprecated_things_are_not_deprecated() {
    for text in [
        "Lists deprecated API versions in the cluster.",
        "Find resources that use deprecated apiVersions, and suggest replacements.",
        "Deprecated APIs finder: scans manifests.",
        "Returns the deprecation status of a package.",
    ] {
        let mut t = with(None, text);
        if text.starts_with("Deprecated APIs") {
            t["title"] = json!("Deprecated APIs");
        }
        assert!(found(vec![t]).is_empty(), "{text}");
    }
}
