//! Files the loader must not read whole: a config (or a file it names) past the size cap, and
//! a device that never ends.

use super::{SERVER, load_text, rendered, temp_folder};
use crate::config::load;

/// A valid config padded with comment lines to just past 8 MiB.
fn padded(extra: usize) -> String {
    let line = format!("# {}\n", "x".repeat(1021));
    let mut text = String::from(SERVER);
    while text.len() < (8 << 20) + extra {
        text.push_str(&line);
    }
    text
}

#[test]
fn a_config_file_past_eight_mib_is_refused_naming_the_limit() {
    let err = rendered("huge", padded(1));
    assert_eq!(
        err,
        "toolproof.yaml: the file is larger than 8 MiB, the most toolproof reads of a config\nhint: is this the config file? keep tool-call tests and eval cases in YAML, not data"
    );
}

#[test]
fn a_device_that_never_ends_is_read_up_to_the_limit() {
    let err = load(std::path::Path::new("/dev/zero")).err();
    let text = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        text.starts_with("/dev/zero: the file is larger than 8 MiB"),
        "{text}"
    );
}

#[test]
fn a_cases_file_past_the_limit_is_refused_too() {
    let dir = temp_folder("huge-cases");
    let cases = dir.join("cases.yaml");
    std::fs::write(&cases, padded(1)).unwrap_or_else(|e| panic!("{e}"));
    let yaml = format!("{SERVER}evals:\n  cases_file: {}\n", cases.display());
    let err = load_text("huge-cases", yaml)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("cases.yaml: the file is larger than 8 MiB"),
        "{err}"
    );
}
