//! The folding table against Python's own `casefold()` and `lower()`.

use super::*;

/// Every code point whose `casefold()` differs from its `lower()`, with both, as Python 3.11
/// computes them (`fixtures/casefold.txt`, from `scripts/gen/python_unicode.py`).
const CASEFOLD_FIXTURE: &str = include_str!("fixtures/casefold.txt");

#[test]
fn casefold_agrees_with_python_where_it_differs_from_lower() {
    let mut n = 0;
    for line in CASEFOLD_FIXTURE.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let cp = u32::from_str_radix(fields[0], 16).expect("hex code point");
        let c = char::from_u32(cp).expect("scalar value").to_string();
        let lower: String = serde_json::from_str(fields[1]).expect("json");
        let folded: String = serde_json::from_str(fields[2]).expect("json");
        assert_eq!(casefold(&c), folded, "U+{cp:04X}");
        assert_ne!(casefold(&c), lower, "U+{cp:04X}");
        n += 1;
    }
    assert!(n > 290, "fixture has {n} code points");
}

#[test]
fn casefold_examples_that_lowercase_gets_wrong() {
    assert_eq!(casefold("Straße"), casefold("STRASSE"));
    assert_ne!("Straße".to_lowercase(), "STRASSE".to_lowercase());
    assert_eq!(casefold("ΟΔΟΣ"), casefold("οδος"));
    assert_eq!(casefold("οδος"), "οδοσ");
    assert_eq!(casefold("ﬁ"), "fi");
}

#[test]
fn strip_removes_what_python_counts_as_space() {
    assert_eq!(strip("\u{1c}\u{85} x \u{3000}"), "x");
    assert_eq!(strip("\u{200b}x"), "\u{200b}x");
}
