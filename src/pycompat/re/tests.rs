//! Verdicts against Python's `re.search`.

use super::*;

/// `re.search` verdicts from the reference's Python (`../fixtures/re_search.txt`, written by
/// `scripts/gen/python_re_search.py`).
const FIXTURE: &str = include_str!("../fixtures/re_search.txt");

#[test]
fn search_agrees_with_python_on_the_fixture() {
    let mut wrong = Vec::new();
    let mut n = 0;
    let mut compiled: HashMap<String, Result<PyRegex, PyReError>> = HashMap::new();
    for line in FIXTURE.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let pattern: String = serde_json::from_str(fields[1]).expect("json pattern");
        let text: String = serde_json::from_str(fields[2]).expect("json text");
        let want = fields[0] == "match";
        n += 1;
        let regex = compiled
            .entry(pattern.clone())
            .or_insert_with(|| PyRegex::new(&pattern));
        match regex.as_ref().map(|r| r.search(&text)) {
            Ok(Ok(got)) if got == want => {}
            other => wrong.push(format!(
                "{pattern:?} on {text:?}: python {want}, here {other:?}"
            )),
        }
    }
    assert!(n > 5000, "fixture has {n} rows");
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn python_only_syntax_compiles_and_invalid_patterns_do_not() {
    for ok in [r"(?<=a)b", r"(\w)\1", r"(?P<n>x)(?P=n)", r"a{,3}", r"\Z"] {
        assert!(PyRegex::new(ok).is_ok(), "{ok}");
    }
    assert!(matches!(PyRegex::new(r"\p{L}"), Err(PyReError::Invalid(_))));
    assert!(matches!(
        PyRegex::new("("),
        Err(PyReError::Invalid(Some(_)))
    ));
    assert!(matches!(
        PyRegex::new(r"\N{LATIN SMALL LETTER A}"),
        Err(PyReError::Unsupported(_))
    ));
}
