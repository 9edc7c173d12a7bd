//! The resolver against PyYAML: `tests/fixtures/yaml11/scalars.json` holds how PyYAML's
//! `safe_load` reads each of several hundred plain scalars (written by `make_fixture.py` in the
//! same folder; the interop tests re-run it live so the file cannot drift from PyYAML).

use super::*;
use crate::pycompat::float::float_repr;

#[derive(serde::Deserialize)]
struct Entry {
    scalar: String,
    kind: String,
    value: serde_json::Value,
}

fn fixture() -> Vec<Entry> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/yaml11/scalars.json"
    );
    let text = std::fs::read_to_string(path).expect("read the PyYAML fixture");
    serde_json::from_str(&text).expect("the PyYAML fixture is JSON")
}

/// Our resolution in the fixture's terms: (kind, value).
fn ours(scalar: &str) -> (String, serde_json::Value) {
    use serde_json::Value as J;
    match resolve(scalar) {
        Scalar::Null => ("null".into(), J::Null),
        Scalar::Bool(b) => ("bool".into(), J::Bool(b)),
        Scalar::Int(n) => ("int".into(), J::String(n.to_string())),
        Scalar::BigInt(digits) => ("int".into(), J::String(digits)),
        Scalar::Float(x) => ("float".into(), J::String(py_repr(x))),
        Scalar::Timestamp(t) => ("timestamp".into(), J::String(t)),
        Scalar::Str(s) => ("str".into(), J::String(s)),
    }
}

/// Python's `repr` of a float.
fn py_repr(x: f64) -> String {
    match float_repr(x).as_str() {
        "Infinity" => "inf".into(),
        "-Infinity" => "-inf".into(),
        "NaN" => "nan".into(),
        other => other.to_owned(),
    }
}

#[test]
fn plain_scalars_resolve_as_pyyaml_safe_load_does() {
    let entries = fixture();
    assert!(
        entries.len() >= 300,
        "the corpus has {} scalars",
        entries.len()
    );
    let mut wrong = Vec::new();
    for e in &entries {
        let (kind, value) = ours(&e.scalar);
        let agrees = match e.kind.as_str() {
            // PyYAML refuses these; the file fails to load there, and we keep the text.
            "error" => kind == "str" && value == e.scalar.as_str(),
            _ => kind == e.kind && value == e.value,
        };
        if !agrees {
            wrong.push(format!(
                "{:?}: PyYAML {} {}, ours {kind} {value}",
                e.scalar, e.kind, e.value
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_corpus_covers_every_kind() {
    let entries = fixture();
    for kind in ["null", "bool", "int", "float", "timestamp", "str", "error"] {
        let n = entries.iter().filter(|e| e.kind == kind).count();
        assert!(n >= 4, "only {n} `{kind}` scalars in the corpus");
    }
}

#[test]
fn the_values_the_issue_names() {
    assert_eq!(resolve("yes"), Scalar::Bool(true));
    assert_eq!(resolve("OFF"), Scalar::Bool(false));
    assert_eq!(resolve("y"), Scalar::Str("y".into()));
    assert_eq!(resolve("0755"), Scalar::Int(493));
    assert_eq!(resolve("0x1F"), Scalar::Int(31));
    assert_eq!(resolve("1:30"), Scalar::Int(90));
    assert_eq!(resolve("1e3"), Scalar::Str("1e3".into()));
    assert_eq!(resolve("1e-1"), Scalar::Str("1e-1".into()));
    assert_eq!(resolve("1.0e+3"), Scalar::Float(1000.0));
    assert_eq!(resolve("1_000.5"), Scalar::Float(1000.5));
    assert_eq!(resolve("~"), Scalar::Null);
    assert_eq!(resolve(""), Scalar::Null);
    assert_eq!(
        resolve("2024-01-15 10:00:00 +00:00"),
        Scalar::Timestamp("2024-01-15T10:00:00Z".into())
    );
    assert_eq!(resolve("2024-1-5"), Scalar::Str("2024-1-5".into()));
    // Beyond 128 bits: every digit, as the Python int.
    assert_eq!(
        resolve("-0x1_0000_0000_0000_0000_0000_0000_0000_0001"),
        Scalar::BigInt("-340282366920938463463374607431768211457".into())
    );
    assert_eq!(
        resolve("1:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0"),
        Scalar::BigInt("4738381338321616896000000000000000000000000".into())
    );
    assert_eq!(
        resolve("-170141183460469231731687303715884105728"),
        Scalar::Int(i128::MIN)
    );
}
