use serde_json::{Value, json};

use super::*;
use crate::outcome::ChangeKind;

fn surface(tools: Value) -> Surface {
    Surface::of(None, None, tools.as_array().unwrap(), None, None, None)
}

/// (kind, item, rule) of every change from `old` to `new` tool lists.
fn changes(old: Value, new: Value) -> Vec<(ChangeKind, String, String)> {
    diff(&surface(old), &surface(new))
        .into_iter()
        .map(|c| (c.kind, c.item, c.rule))
        .collect()
}

fn tool(schema: Value) -> Value {
    json!([{"name": "t", "description": "T.", "inputSchema": schema}])
}

fn one(old: Value, new: Value) -> (ChangeKind, String) {
    let all = changes(tool(old), tool(new));
    assert_eq!(all.len(), 1, "{all:?}");
    (all[0].0, all[0].2.clone())
}

#[test]
fn the_same_surface_has_no_change() {
    let t = tool(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    assert!(changes(t.clone(), t).is_empty());
}

#[test]
fn argument_changes_follow_the_rule_table() {
    use ChangeKind::{Breaking, Compatible};
    let s = |props: Value, required: Value| json!({"type": "object", "properties": props, "required": required});
    let a = || json!({"a": {"type": "string"}});
    assert_eq!(
        one(
            s(a(), json!([])),
            s(
                json!({"a": {"type": "string"}, "b": {"type": "string"}}),
                json!(["b"])
            )
        ),
        (Breaking, "required-argument".into())
    );
    assert_eq!(
        one(s(a(), json!([])), s(a(), json!(["a"]))),
        (Breaking, "required-argument".into())
    );
    assert_eq!(
        one(s(a(), json!(["a"])), s(a(), json!([]))),
        (Compatible, "argument-optional".into())
    );
    assert_eq!(
        one(s(a(), json!([])), s(json!({}), json!([]))),
        (Breaking, "property-removed".into())
    );
    assert_eq!(
        one(
            s(a(), json!([])),
            s(json!({"a": {"type": "string"}, "b": {}}), json!([]))
        ),
        (Compatible, "optional-argument".into())
    );
    let n = |t: Value| s(json!({"a": {"type": t}}), json!([]));
    assert_eq!(
        one(n(json!("number")), n(json!("integer"))),
        (Breaking, "type-narrowed".into())
    );
    assert_eq!(
        one(n(json!("integer")), n(json!("number"))),
        (Compatible, "type-widened".into())
    );
    assert_eq!(
        one(n(json!(["string", "null"])), n(json!("string"))),
        (Breaking, "type-narrowed".into())
    );
    let b = |max: u32| {
        s(
            json!({"a": {"type": "string", "maxLength": max}}),
            json!([]),
        )
    };
    assert_eq!(one(b(10), b(5)), (Breaking, "type-narrowed".into()));
    assert_eq!(one(b(5), b(10)), (Compatible, "type-widened".into()));
    let e = |v: Value| s(json!({"a": {"type": "string", "enum": v}}), json!([]));
    assert_eq!(
        one(e(json!(["x", "y"])), e(json!(["x"]))),
        (Breaking, "enum-value-removed".into())
    );
    assert_eq!(
        one(e(json!(["x"])), e(json!(["x", "y"]))),
        (Compatible, "enum-value-added".into())
    );
    let d = |text: &str| {
        s(
            json!({"a": {"type": "string", "description": text}}),
            json!([]),
        )
    };
    assert_eq!(
        one(d("one"), d("two")),
        (Compatible, "schema-changed".into())
    );
    let nested = |p: Value| s(json!({"f": {"type": "object", "properties": p}}), json!([]));
    assert_eq!(
        one(nested(json!({"x": {}, "y": {}})), nested(json!({"x": {}}))),
        (Breaking, "property-removed".into())
    );
}

#[test]
fn renames_removals_additions_annotations_and_texts() {
    use ChangeKind::{Breaking, Compatible, Selection};
    let base = json!({"name": "a", "description": "A.", "inputSchema": {"type": "object"}});
    let mut renamed = base.clone();
    renamed["name"] = json!("b");
    assert_eq!(
        changes(json!([base.clone()]), json!([renamed])),
        [(Breaking, "tool:a".to_owned(), "tool-renamed".to_owned())]
    );
    let other = json!({"name": "c", "description": "C.", "inputSchema": {"type": "object", "properties": {"z": {}}}});
    assert_eq!(
        changes(json!([base.clone()]), json!([other])),
        [
            (Breaking, "tool:a".to_owned(), "tool-removed".to_owned()),
            (Compatible, "tool:c".to_owned(), "added".to_owned())
        ]
    );
    let with = |k: &str, v: Value| {
        let mut t = base.clone();
        t[k] = v;
        json!([t])
    };
    let rules = |old: Value, new: Value| -> Vec<String> {
        changes(old, new).into_iter().map(|c| c.2).collect()
    };
    assert_eq!(
        rules(
            with("annotations", json!({"readOnlyHint": true})),
            with("annotations", json!({}))
        ),
        ["read-only-dropped"]
    );
    assert_eq!(
        rules(
            with("annotations", json!({"destructiveHint": false})),
            json!([base.clone()])
        ),
        ["destructive-added"]
    );
    assert_eq!(
        rules(
            with("annotations", json!({"openWorldHint": true})),
            with("annotations", json!({"openWorldHint": false}))
        ),
        ["annotations-changed"]
    );
    assert_eq!(
        rules(
            json!([base.clone()]),
            with("annotations", json!({"title": "Hi"}))
        ),
        ["title-changed"]
    );
    let kinds: Vec<ChangeKind> = changes(json!([base.clone()]), with("description", json!("B.")))
        .into_iter()
        .map(|c| c.0)
        .collect();
    assert_eq!(kinds, [Selection]);
    assert_eq!(
        rules(
            with(
                "outputSchema",
                json!({"type": "object", "properties": {"r": {}}})
            ),
            json!([base.clone()])
        ),
        ["output-removed"]
    );
    assert_eq!(
        rules(
            with(
                "outputSchema",
                json!({"type": "object", "properties": {"r": {}}})
            ),
            with(
                "outputSchema",
                json!({"type": "object", "properties": {"s": {}}})
            )
        ),
        ["output-removed"]
    );
}

#[test]
fn prompts_and_resources_follow_the_rule_table() {
    let old = Surface::of(
        None,
        None,
        &[],
        Some(&[
            json!({"name": "p", "arguments": [{"name": "a", "required": true}, {"name": "b"}]}),
        ]),
        Some(&[
            json!({"uri": "u://1", "name": "one", "mimeType": "text/plain"}),
            json!({"uri": "u://2"}),
        ]),
        Some(&[json!({"uriTemplate": "u://{id}", "name": "t"})]),
    );
    let new = Surface::of(
        None,
        None,
        &[],
        Some(&[
            json!({"name": "p", "description": "P.", "arguments": [{"name": "a", "required": true}, {"name": "c", "required": true}]}),
        ]),
        Some(&[json!({"uri": "u://1", "name": "uno", "mimeType": "text/csv"})]),
        Some(&[
            json!({"uriTemplate": "u://{id}", "name": "t"}),
            json!({"uriTemplate": "v://{id}"}),
        ]),
    );
    let got: Vec<(String, String)> = diff(&old, &new)
        .into_iter()
        .map(|c| (c.item, c.rule))
        .collect();
    let want = [
        ("prompt:p", "prompt-arguments"),
        ("prompt:p", "prompt-arguments"),
        ("resource:u://1", "mime-type-changed"),
        ("resource:u://2", "resource-removed"),
        ("prompt:p", "description-changed"),
        ("resource:u://1", "name-changed"),
        ("resource:v://{id}", "added"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
}
