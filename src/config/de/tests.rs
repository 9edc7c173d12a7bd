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
