//! Property tests of the input generators: over many seeds, what [`Gen`] produces for a corpus
//! of schemas validates against the schema (the raw walk, before any filtering), and what
//! [`Inputs::invalid`] produces never does.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::Inputs;
use super::values::Gen;
use crate::rng::Rng;

/// Schemas the raw walk must satisfy without help from the validator filter.
fn corpus() -> Vec<Value> {
    vec![
        json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": -3, "maximum": 7}, "b": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 3, "maxLength": 5}}, "required": ["s"], "additionalProperties": false}),
        json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{3}$"}}, "required": ["code"]}),
        json!({"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}, "mail": {"type": "string", "format": "email"}, "id": {"type": "string", "format": "uuid"}, "site": {"type": "string", "format": "uri"}, "ip": {"type": "string", "format": "ipv4"}, "day": {"type": "string", "format": "date"}}, "required": ["when", "mail", "id", "site", "ip", "day"]}),
        json!({"type": "object", "properties": {"level": {"enum": ["a", "b", 3]}, "v": {"const": {"x": 1}}}, "required": ["level", "v"]}),
        json!({"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 7, "minimum": 10, "maximum": 60}}, "required": ["n"]}),
        json!({"type": "object", "properties": {"maybe": {"type": ["string", "null"], "maxLength": 4}}, "required": ["maybe"]}),
        json!({"type": "object", "properties": {"order": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string", "minLength": 1}, "qty": {"type": "integer", "minimum": 1}}, "required": ["sku", "qty"], "additionalProperties": false}, "minItems": 1, "maxItems": 3}}, "required": ["items"]}}, "required": ["order"]}),
        json!({"type": "object", "$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}}, "required": ["v"]}}, "properties": {"list": {"$ref": "#/$defs/node"}}, "required": ["list"]}),
        json!({"type": "object", "definitions": {"p": {"type": "string", "maxLength": 2}}, "properties": {"x": {"$ref": "#/definitions/p"}}, "required": ["x"]}),
        json!({"type": "object", "properties": {"t": {"anyOf": [{"type": "boolean"}, {"type": "integer", "maximum": 0}]}}, "required": ["t"]}),
        json!({"type": "object", "properties": {"o": {"oneOf": [{"type": "string", "maxLength": 1}, {"type": "integer", "minimum": 100}]}}, "required": ["o"]}),
        json!({"type": "object", "properties": {"both": {"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]}}, "required": ["both"]}),
        json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}, "minProperties": 1}}, "required": ["m"]}),
        json!({"type": "object", "properties": {"u": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 9}, "uniqueItems": true, "minItems": 2, "maxItems": 5}, "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "minItems": 2, "maxItems": 2}}, "required": ["u", "pair"]}),
        json!({"type": "object", "properties": {"e": {"type": "number", "minimum": 1.5, "maximum": 1.5}}, "required": ["e"]}),
    ]
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("corpus schema compiles")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_generated_valid_input_validates(seed in any::<u64>()) {
        for schema in corpus() {
            let v = validator(&schema);
            let mut rng = Rng::new(seed);
            for _ in 0..8 {
                let value = Gen::new(&schema, &mut rng).value();
                prop_assert!(value.is_some(), "no value for {}", schema);
                let value = value.unwrap_or_default();
                let errors: Vec<String> = v.iter_errors(&value).map(|e| e.to_string()).collect();
                prop_assert!(errors.is_empty(), "{} does not validate against {}: {:?}", value, schema, errors);
            }
        }
    }

    #[test]
    fn every_invalid_input_is_an_object_the_schema_rejects(seed in any::<u64>()) {
        for schema in corpus() {
            let v = validator(&schema);
            let mut inputs = Inputs::new(&schema, seed, "t", 4).expect("compiles");
            if let Some(bad) = inputs.invalid() {
                prop_assert!(bad.is_object());
                prop_assert!(!v.is_valid(&bad), "{} should be invalid for {}", bad, schema);
            }
        }
    }
}

#[test]
fn invalid_inputs_reach_nested_places_and_every_defect_kind() {
    use super::invalid::{Defect, candidates};
    let schema = &corpus()[7];
    let value = json!({"order": {"items": [{"sku": "a", "qty": 2}]}});
    let all = candidates(schema, &value);
    let at = |p: &str| {
        all.iter()
            .filter(|c| c.at == p)
            .map(|c| c.defect.clone())
            .collect::<Vec<_>>()
    };
    let item = at("/order/items/0");
    assert!(item.contains(&Defect::Missing("sku".into())));
    assert!(item.contains(&Defect::Extra));
    assert!(at("/order/items/0/qty").contains(&Defect::OutOfRange(json!(0.0))));
    assert!(at("/order/items/0/sku").contains(&Defect::TooShort(0)));
    assert!(
        at("/order/items/0/qty")
            .iter()
            .any(|d| matches!(d, Defect::WrongType(_)))
    );
    assert!(at("/order/items/0/qty").contains(&Defect::Null));
    let enums = candidates(&corpus()[4], &json!({"level": "a", "v": {"x": 1}}));
    assert!(
        enums
            .iter()
            .any(|c| c.at == "/level" && matches!(c.defect, Defect::NotInEnum(_)))
    );
    let long = candidates(&corpus()[1], &json!({"s": "abcd"}));
    assert!(long.iter().any(|c| c.defect == Defect::TooLong(6)));
}

#[test]
fn inputs_are_the_same_for_the_same_seed_and_tool() {
    let schema = &corpus()[7];
    let draw = |seed, tool| {
        let mut i = Inputs::new(schema, seed, tool, 2).expect("compiles");
        (0..5).map(|_| (i.valid(), i.invalid())).collect::<Vec<_>>()
    };
    assert_eq!(draw(1, "a"), draw(1, "a"));
    assert_ne!(draw(1, "a"), draw(2, "a"));
    assert_ne!(draw(1, "a"), draw(1, "b"));
}

#[test]
fn a_schema_that_does_not_compile_is_reported() {
    assert!(Inputs::new(&json!({"type": "strng"}), 1, "t", 0).is_err());
}

#[test]
fn boundary_values_come_before_random_ones() {
    let schema = json!({
        "type": "object",
        "properties": {
            "s": {"type": "string", "maxLength": 5},
            "n": {"type": "integer", "minimum": -3, "maximum": 7},
            "x": {"type": "number", "exclusiveMinimum": 0, "maximum": 2.5},
            "xs": {"type": "array", "items": {"type": "integer"}},
            "o": {"type": "object"},
            "note": {"type": "string"}
        },
        "required": ["s", "n", "x", "xs", "o"],
        "additionalProperties": false
    });
    let draw = |seed| {
        let mut inputs = Inputs::new(&schema, seed, "t", 8).expect("compiles");
        let valid: Vec<Value> = (0..8).filter_map(|_| inputs.valid()).collect();
        let invalid: Vec<Value> = (0..8).filter_map(|_| inputs.invalid()).collect();
        (valid, invalid)
    };
    let (valid, invalid) = draw(1);
    // The smallest input first, whatever the seed: required properties only, each at its
    // simplest value that fits.
    assert_eq!(
        valid[0],
        json!({"s": "", "n": 0, "x": 0.001, "xs": [], "o": {}})
    );
    assert_eq!(draw(2).0[0], valid[0]);
    let seen = |key: &str, v: Value| valid.iter().any(|i| i[key] == v);
    for n in [0, -1, -3, 7] {
        assert!(seen("n", json!(n)), "n = {n} never tried: {valid:#?}");
    }
    assert!(seen("s", json!("aaaaa")), "{valid:#?}");
    assert!(seen("x", json!(2.5)), "{valid:#?}");
    assert!(valid.iter().any(|i| i.get("note").is_some()), "{valid:#?}");
    // Invalid ones: one past each end first.
    let bad = |key: &str, v: Value| invalid.iter().any(|i| i[key] == v);
    assert!(bad("n", json!(-4.0)) || bad("n", json!(-4)), "{invalid:#?}");
    assert!(bad("n", json!(8.0)) || bad("n", json!(8)), "{invalid:#?}");
    assert!(bad("s", json!("xxxxxx")), "{invalid:#?}");
    let v = validator(&schema);
    assert!(valid.iter().all(|i| v.is_valid(i)));
    assert!(invalid.iter().all(|i| !v.is_valid(i)));
}
