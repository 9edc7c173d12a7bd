//! Tests of the located deserializer: values, coercions, and where errors point.

use super::*;
use crate::config::node::parse;
use serde::Deserialize;

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Inner {
    retries: u32,
    #[serde(default)]
    timeout: Option<f64>,
    #[serde(default)]
    flag: bool,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Outer {
    items: Vec<Inner>,
    #[serde(default)]
    kind: Option<Kind>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Alpha,
    Beta,
}

fn load(text: &str) -> Result<Outer, Located> {
    let node = parse(text)
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("test YAML must parse: {text}"));
    from_node(&node, KeyPath::root())
}

fn message(text: &str) -> String {
    match load(text) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(l) => format!("{}:{}: {}", l.pos.line, l.pos.column, l.message),
    }
}

#[test]
fn paths_render_like_the_yaml() {
    let p = KeyPath::root()
        .key("tests")
        .index(2)
        .key("expect")
        .key("jsonpath")
        .key("$.a");
    assert_eq!(p.to_string(), "tests[2].expect.jsonpath[\"$.a\"]");
}

#[test]
fn reads_values_with_coercions() {
    let v = load("items:\n  - {retries: 2.0, timeout: '30', flag: yes}\nkind: beta\n");
    let expected = Outer {
        items: vec![Inner {
            retries: 2,
            timeout: Some(30.0),
            flag: true,
        }],
        kind: Some(Kind::Beta),
    };
    assert_eq!(v.ok(), Some(expected));
}

#[test]
fn errors_name_path_and_position() {
    assert_eq!(
        message("items:\n  - retries: many\n"),
        "2:14: `items[0].retries` must be a whole number ≥ 0, got string \"many\""
    );
    assert_eq!(
        message("items:\n  - retries: -1\n"),
        "2:14: `items[0].retries` must be a whole number ≥ 0, got number -1"
    );
    assert_eq!(
        message("items:\n  - retries: 1\n    retires: 2\n"),
        "3:5: unknown key `retires` in `items[0]`, did you mean `retries`?"
    );
    assert_eq!(
        message("items:\n  - {}\n"),
        "2:5: `items[0]` is missing the required key `retries`"
    );
    assert_eq!(
        message("items: []\nkind: gamma\n"),
        "2:7: `kind` must be one of `alpha`, `beta`, got string \"gamma\""
    );
    assert_eq!(
        message("items: []\nkind: [alpha]\n"),
        "2:7: `kind` must be one of `alpha`, `beta`, got a list"
    );
    assert_eq!(
        message("items: 3\n"),
        "1:8: `items` must be a list, got number 3"
    );
    assert_eq!(
        message("items:\n  - retries: 1\n    timeout: .inf\n"),
        "3:14: `items[0].timeout` must be a finite number, got number .inf"
    );
    assert_eq!(
        message("items:\n  - retries: 99999999999\n"),
        "2:14: `items[0].retries` must be a whole number from 0 to 4294967295, got number 99999999999"
    );
}

#[test]
fn null_reads_as_an_empty_list() {
    assert_eq!(
        load("items:\n").ok(),
        Some(Outer {
            items: vec![],
            kind: None
        })
    );
}

#[derive(Debug, Deserialize, PartialEq)]
struct Typed {
    #[serde(default)]
    b: Option<bool>,
    #[serde(default)]
    i: Option<u32>,
    #[serde(default)]
    x: Option<f64>,
}

fn typed(yaml: &str) -> Result<Typed, Located> {
    let node = parse(yaml).ok().flatten().expect("test YAML parses");
    from_node(&node, KeyPath::root())
}

/// The verdicts of pydantic 2.14 (lax mode, as mcp-toolproof 0.3.1 validates) for a `bool`
/// field, measured in the reference's venv with `TypeAdapter(bool).validate_python`.
#[test]
fn bool_fields_take_exactly_what_pydantic_takes() {
    let accepted = [
        ("true", true),
        ("'true'", true),
        ("'false'", false),
        ("'True'", true),
        ("'TRUE'", true),
        ("'tRuE'", true),
        ("'t'", true),
        ("'f'", false),
        ("'T'", true),
        ("'y'", true),
        ("'n'", false),
        ("y", true),
        ("N", false),
        ("'yes'", true),
        ("'no'", false),
        ("yes", true),
        ("off", false),
        ("'ON'", true),
        ("'1'", true),
        ("'0'", false),
        ("1", true),
        ("0", false),
        ("1.0", true),
        ("0.0", false),
    ];
    for (text, want) in accepted {
        let got = typed(&format!("b: {text}\n")).map(|t| t.b);
        assert_eq!(got, Ok(Some(want)), "b: {text}");
    }
    let rejected = [
        "2",
        "-1",
        "1.5",
        "'2'",
        "' true'",
        "'true '",
        "''",
        "'0.0'",
        "'1.0'",
        "'5'",
        "1e3",
        "'1_000'",
        "'+5'",
        "'inf'",
        "'nan'",
        "[true]",
        "{a: 1}",
        "2024-01-15",
        "maybe",
    ];
    for text in rejected {
        let err = typed(&format!("b: {text}\n")).expect_err(text);
        assert!(
            err.message.contains("must be true or false"),
            "b: {text}: {err:?}"
        );
        assert_eq!((err.pos.line, err.pos.column), (1, 4), "b: {text}");
    }
}

/// pydantic's lax `int` and `float`: booleans count as 1 and 0, text may hold the number
/// (white space and `_` between digits allowed), a float with no fraction is a whole number.
#[test]
fn number_fields_take_what_pydantic_takes() {
    let whole = [
        ("true", 1),
        ("false", 0),
        ("'5'", 5),
        ("' 5 '", 5),
        ("'1_000'", 1000),
        ("'+5'", 5),
        ("5.0", 5),
        ("'5.0'", 5),
        ("'0755'", 755),
        ("0755", 493),
    ];
    for (text, want) in whole {
        assert_eq!(
            typed(&format!("i: {text}\n")).map(|t| t.i),
            Ok(Some(want)),
            "i: {text}"
        );
    }
    for text in ["1.5", "'5.5'", "'yes'", "'0x10'", "'1__0'", "'_1'", "[1]"] {
        let err = typed(&format!("i: {text}\n")).expect_err(text);
        assert!(err.message.contains("whole number"), "i: {text}: {err:?}");
    }
    let floats = [
        ("true", 1.0),
        ("no", 0.0),
        ("'1e3'", 1000.0),
        ("1e3", 1000.0),
        ("' 2.5 '", 2.5),
        ("'1_000.5'", 1000.5),
        ("1:30", 90.0),
    ];
    for (text, want) in floats {
        assert_eq!(
            typed(&format!("x: {text}\n")).map(|t| t.x),
            Ok(Some(want)),
            "x: {text}"
        );
    }
    for text in ["'yes'", "'0x10'", "''", "[1]"] {
        let err = typed(&format!("x: {text}\n")).expect_err(text);
        assert!(err.message.contains("number"), "x: {text}: {err:?}");
    }
}
