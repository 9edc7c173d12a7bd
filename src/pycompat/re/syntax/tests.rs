//! `compiles` against what CPython itself accepts.

use super::compiles;

/// Patterns and whether CPython 3.11.7's `re.compile` accepts them
/// (`fixtures/py_re.txt`, generated with the reference's interpreter).
const FIXTURE: &str = include_str!("../../fixtures/py_re.txt");

#[test]
fn agrees_with_python_on_the_fixture() {
    let mut wrong = Vec::new();
    let mut n = 0;
    for line in FIXTURE.lines().filter(|l| !l.is_empty()) {
        let Some((verdict, pattern)) = line.split_once('\t') else {
            continue;
        };
        let Ok(pattern) = serde_json::from_str::<String>(pattern) else {
            continue;
        };
        n += 1;
        let expected = verdict == "ok";
        if compiles(&pattern) != expected {
            wrong.push(format!("{verdict} {pattern:?}"));
        }
    }
    assert!(n > 100, "fixture has {n} patterns");
    assert!(wrong.is_empty(), "disagreements:\n{}", wrong.join("\n"));
}

#[test]
fn common_cases() {
    assert!(compiles(r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$"));
    assert!(compiles(r"^\d{4}-\d{2}-\d{2}$"));
    assert!(!compiles(r"^\p{L}+$"));
    assert!(!compiles("("));
    assert!(!compiles(r"a\"));
}
