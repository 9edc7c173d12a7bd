//! The difference between the lock and the server, classified by the rules of
//! [`super::rules`].

use serde_json::{Map, Value};

use super::lock::{Category, PROMPTS, RESOURCES, Surface, TEMPLATES, TOOLS, key_of};
use super::rules::{self as r, kind_of};
use crate::outcome::ChangeKind;
use crate::outcome::SurfaceChange;

type Item = Map<String, Value>;

/// Every difference from `old` (the lock) to `new` (the server), breaking first, then
/// selection-affecting, then compatible, each kind in the lock's order.
pub(crate) fn diff(old: &Surface, new: &Surface) -> Vec<SurfaceChange> {
    let mut out = Changes::default();
    tools(old.section(TOOLS), new.section(TOOLS), &mut out);
    for category in [PROMPTS, RESOURCES, TEMPLATES] {
        others(
            category,
            old.section(category),
            new.section(category),
            &mut out,
        );
    }
    let mut list = out.0;
    list.sort_by_key(|c| c.kind);
    list
}

#[derive(Default)]
struct Changes(Vec<SurfaceChange>);

impl Changes {
    fn add(&mut self, item: String, rule: &'static str, what: String) {
        self.0.push(SurfaceChange {
            kind: match kind_of(rule) {
                "breaking" => ChangeKind::Breaking,
                "selection" => ChangeKind::Selection,
                _ => ChangeKind::Compatible,
            },
            item,
            what,
            rule: rule.to_owned(),
            lock_line: None,
            rug_pull: Vec::new(),
            rows: Vec::new(),
        });
    }
}

fn find<'a>(category: Category, list: &'a [Item], key: &str) -> Option<&'a Item> {
    list.iter().find(|i| key_of(category, i) == key)
}

/// The item without its key and title: what stays the same under a rename.
fn body(item: &Item) -> Item {
    let mut b = item.clone();
    b.remove("name");
    b.remove("title");
    b
}

fn tools(old: &[Item], new: &[Item], out: &mut Changes) {
    let added: Vec<&Item> = new
        .iter()
        .filter(|n| find(TOOLS, old, key_of(TOOLS, n)).is_none())
        .collect();
    let mut renamed_to: Vec<&str> = Vec::new();
    for o in old {
        let name = key_of(TOOLS, o);
        let item = format!("tool:{name}");
        match find(TOOLS, new, name) {
            Some(n) => tool(&item, o, n, out),
            None => {
                let twin = added
                    .iter()
                    .find(|a| body(a) == body(o) && !renamed_to.contains(&key_of(TOOLS, a)));
                if let Some(twin) = twin {
                    let to = key_of(TOOLS, twin);
                    renamed_to.push(to);
                    out.add(item, r::TOOL_RENAMED, format!("renamed to `{to}`"));
                } else {
                    out.add(item, r::TOOL_REMOVED, "removed".into());
                }
            }
        }
    }
    for a in added {
        let name = key_of(TOOLS, a);
        if !renamed_to.contains(&name) {
            out.add(format!("tool:{name}"), r::ADDED, "new tool".into());
        }
    }
}

/// The title a client shows: `title`, else `annotations.title`.
fn title(item: &Item) -> Option<&Value> {
    item.get("title")
        .or_else(|| item.get("annotations").and_then(|a| a.get("title")))
}

fn texts(item: &str, o: &Item, n: &Item, out: &mut Changes) {
    if title(o) != title(n) {
        out.add(
            item.into(),
            r::TITLE_CHANGED,
            changed("title", title(o), title(n)),
        );
    }
    if o.get("description") != n.get("description") {
        out.add(
            item.into(),
            r::DESCRIPTION_CHANGED,
            "description changed".into(),
        );
    }
}

fn changed(what: &str, old: Option<&Value>, new: Option<&Value>) -> String {
    let show = |v: Option<&Value>| v.map_or_else(|| "(none)".to_owned(), short);
    format!("{what} changed from {} to {}", show(old), show(new))
}

/// A value as a message quotes it, cut at 60 characters.
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(59).collect();
        format!("{cut}…")
    } else {
        text
    }
}

fn tool(item: &str, o: &Item, n: &Item, out: &mut Changes) {
    let before = out.0.len();
    let empty = Value::Object(Map::new());
    let (oi, ni) = (
        o.get("inputSchema").unwrap_or(&empty),
        n.get("inputSchema").unwrap_or(&empty),
    );
    schema(item, "", oi, ni, out);
    if out.0.len() == before && oi != ni {
        out.add(
            item.into(),
            r::SCHEMA_CHANGED,
            "input schema changed".into(),
        );
    }
    output(item, o.get("outputSchema"), n.get("outputSchema"), out);
    annotations(item, o.get("annotations"), n.get("annotations"), out);
    texts(item, o, n, out);
}

fn output(item: &str, o: Option<&Value>, n: Option<&Value>, out: &mut Changes) {
    match (o, n) {
        (Some(_), None) => out.add(
            item.into(),
            r::OUTPUT_REMOVED,
            "output schema removed".into(),
        ),
        (None, Some(_)) => out.add(item.into(), r::SCHEMA_CHANGED, "new output schema".into()),
        (Some(o), Some(n)) if o != n => {
            let (op, np) = (props(o), props(n));
            let gone: Vec<&String> = op.keys().filter(|k| !np.contains_key(*k)).collect();
            if gone.is_empty() {
                out.add(
                    item.into(),
                    r::SCHEMA_CHANGED,
                    "output schema changed".into(),
                );
            } else {
                out.add(
                    item.into(),
                    r::OUTPUT_REMOVED,
                    format!("output lost {}", list(&gone)),
                );
            }
        }
        _ => {}
    }
}

fn list(names: &[&String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    quoted.join(", ")
}

fn hint(a: Option<&Value>, key: &str, default: bool) -> bool {
    a.and_then(|a| a.get(key))
        .and_then(Value::as_bool)
        .unwrap_or(default)
}

fn annotations(item: &str, o: Option<&Value>, n: Option<&Value>, out: &mut Changes) {
    if o == n {
        return;
    }
    let mut said = false;
    if hint(o, "readOnlyHint", false) && !hint(n, "readOnlyHint", false) {
        out.add(
            item.into(),
            r::READ_ONLY_DROPPED,
            "no longer read-only (`readOnlyHint` true → false)".into(),
        );
        said = true;
    }
    if !hint(o, "destructiveHint", true) && hint(n, "destructiveHint", true) {
        out.add(
            item.into(),
            r::DESTRUCTIVE_ADDED,
            "now destructive (`destructiveHint` false → true)".into(),
        );
        said = true;
    }
    let strip = |a: Option<&Value>| {
        let mut a = a.and_then(Value::as_object).cloned().unwrap_or_default();
        a.remove("title");
        a
    };
    if !said && strip(o) != strip(n) {
        out.add(
            item.into(),
            r::ANNOTATIONS_CHANGED,
            changed("annotations", o, n),
        );
    }
}

fn props(schema: &Value) -> Map<String, Value> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The changes of an object schema's arguments; `at` is the path of the object (`` for the
/// root, `filter.` for a nested one).
fn schema(item: &str, at: &str, o: &Value, n: &Value, out: &mut Changes) {
    let (op, np) = (props(o), props(n));
    let (or, nr) = (required(o), required(n));
    let arg = |name: &str| format!("`{at}{name}`");
    for (name, old) in &op {
        let was = if or.contains(name) {
            "required"
        } else {
            "optional"
        };
        let Some(new) = np.get(name) else {
            out.add(
                item.into(),
                r::PROPERTY_REMOVED,
                format!("lost {was} argument {}", arg(name)),
            );
            continue;
        };
        if !or.contains(name) && nr.contains(name) {
            out.add(
                item.into(),
                r::REQUIRED_ARGUMENT,
                format!("argument {} is now required", arg(name)),
            );
        } else if or.contains(name) && !nr.contains(name) {
            out.add(
                item.into(),
                r::ARGUMENT_OPTIONAL,
                format!("argument {} is now optional", arg(name)),
            );
        }
        property(item, &format!("{at}{name}"), old, new, out);
    }
    for name in np.keys().filter(|k| !op.contains_key(*k)) {
        if nr.contains(name) {
            out.add(
                item.into(),
                r::REQUIRED_ARGUMENT,
                format!("new required argument {}", arg(name)),
            );
        } else {
            out.add(
                item.into(),
                r::OPTIONAL_ARGUMENT,
                format!("new optional argument {}", arg(name)),
            );
        }
    }
}

/// The JSON types a schema accepts; `None`: any.
fn types(schema: &Value) -> Option<Vec<&str>> {
    match schema.get("type")? {
        Value::String(t) => Some(vec![t.as_str()]),
        Value::Array(a) => Some(a.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

/// Whether a schema of types `new` accepts every value of type `t`.
fn covers(new: &Option<Vec<&str>>, t: &str) -> bool {
    match new {
        None => true,
        Some(list) => list.contains(&t) || (t == "integer" && list.contains(&"number")),
    }
}

/// Narrowed and widened, as two flags, for types.
fn type_change(o: &Value, n: &Value) -> (bool, bool) {
    let (ot, nt) = (types(o), types(n));
    if ot == nt {
        return (false, false);
    }
    let narrowed = match &ot {
        None => true,
        Some(list) => list.iter().any(|t| !covers(&nt, t)),
    };
    let widened = match &nt {
        None => true,
        Some(list) => list.iter().any(|t| !covers(&ot, t)),
    };
    (narrowed, widened)
}

/// Bounds where a higher value accepts more, and those where a lower one does.
const UPPER: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
];
const LOWER: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
];

fn bound_change(o: &Value, n: &Value) -> (Vec<String>, Vec<String>) {
    let (mut narrowed, mut widened) = (Vec::new(), Vec::new());
    for (keys, upper) in [(UPPER, true), (LOWER, false)] {
        for key in keys {
            let (a, b) = (
                o.get(*key).and_then(Value::as_f64),
                n.get(*key).and_then(Value::as_f64),
            );
            let tighter = match (a, b) {
                (None, Some(_)) => Some(true),
                (Some(_), None) => Some(false),
                (Some(a), Some(b)) if a != b => Some(if upper { b < a } else { b > a }),
                _ => None,
            };
            let text = || changed(key, o.get(*key), n.get(*key));
            match tighter {
                Some(true) => narrowed.push(text()),
                Some(false) => widened.push(text()),
                None => {}
            }
        }
    }
    (narrowed, widened)
}

fn enum_values(schema: &Value) -> Option<&Vec<Value>> {
    schema.get("enum").and_then(Value::as_array)
}

/// The changes of one argument's schema.
fn property(item: &str, path: &str, o: &Value, n: &Value, out: &mut Changes) {
    if o == n {
        return;
    }
    let before = out.0.len();
    let (narrowed, widened) = type_change(o, n);
    let show = |s: &Value| types(s).map_or_else(|| "any".to_owned(), |t| t.join(" | "));
    if narrowed {
        out.add(
            item.into(),
            r::TYPE_NARROWED,
            format!("argument `{path}` narrowed from {} to {}", show(o), show(n)),
        );
    } else if widened {
        out.add(
            item.into(),
            r::TYPE_WIDENED,
            format!("argument `{path}` widened from {} to {}", show(o), show(n)),
        );
    }
    let (tight, loose) = bound_change(o, n);
    for t in tight {
        out.add(
            item.into(),
            r::TYPE_NARROWED,
            format!("argument `{path}`: {t}"),
        );
    }
    for l in loose {
        out.add(
            item.into(),
            r::TYPE_WIDENED,
            format!("argument `{path}`: {l}"),
        );
    }
    match (enum_values(o), enum_values(n)) {
        (Some(oe), Some(ne)) => {
            for v in oe.iter().filter(|v| !ne.contains(v)) {
                out.add(
                    item.into(),
                    r::ENUM_VALUE_REMOVED,
                    format!("argument `{path}` lost enum value {}", short(v)),
                );
            }
            for v in ne.iter().filter(|v| !oe.contains(v)) {
                out.add(
                    item.into(),
                    r::ENUM_VALUE_ADDED,
                    format!("argument `{path}` gained enum value {}", short(v)),
                );
            }
        }
        (None, Some(_)) => out.add(
            item.into(),
            r::TYPE_NARROWED,
            format!("argument `{path}` is now limited to an enum"),
        ),
        (Some(_), None) => out.add(
            item.into(),
            r::TYPE_WIDENED,
            format!("argument `{path}` is no longer limited to an enum"),
        ),
        (None, None) => {}
    }
    if o.get("properties").is_some() || n.get("properties").is_some() {
        schema(item, &format!("{path}."), o, n, out);
    }
    if let (Some(oi), Some(ni)) = (o.get("items"), n.get("items")) {
        property(item, &format!("{path}[]"), oi, ni, out);
    }
    if out.0.len() == before {
        let what = if o.get("description") == n.get("description") {
            format!("argument `{path}`'s schema changed")
        } else {
            format!("argument `{path}`'s description changed")
        };
        out.add(item.into(), r::SCHEMA_CHANGED, what);
    }
}

fn others(category: Category, old: &[Item], new: &[Item], out: &mut Changes) {
    let what = if category == TEMPLATES {
        "resource template"
    } else {
        category.prefix
    };
    for o in old {
        let key = key_of(category, o);
        let item = format!("{}:{key}", category.prefix);
        let Some(n) = find(category, new, key) else {
            let rule = if category == PROMPTS {
                r::PROMPT_REMOVED
            } else {
                r::RESOURCE_REMOVED
            };
            out.add(item, rule, "removed".into());
            continue;
        };
        if category == PROMPTS {
            prompt_arguments(&item, o, n, out);
        } else {
            if o.get("mimeType") != n.get("mimeType") {
                out.add(
                    item.clone(),
                    r::MIME_TYPE_CHANGED,
                    changed("mimeType", o.get("mimeType"), n.get("mimeType")),
                );
            }
            if o.get("name") != n.get("name") {
                out.add(
                    item.clone(),
                    r::NAME_CHANGED,
                    changed("name", o.get("name"), n.get("name")),
                );
            }
        }
        texts(&item, o, n, out);
    }
    for n in new {
        let key = key_of(category, n);
        if find(category, old, key).is_none() {
            out.add(
                format!("{}:{key}", category.prefix),
                r::ADDED,
                format!("new {what}"),
            );
        }
    }
}

fn prompt_arguments(item: &str, o: &Item, n: &Item, out: &mut Changes) {
    let args = |i: &Item| -> Vec<(String, bool)> {
        i.get("arguments")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|arg| {
                        let name = arg.get("name")?.as_str()?.to_owned();
                        let required = arg
                            .get("required")
                            .and_then(Value::as_bool)
                            .unwrap_or(false);
                        Some((name, required))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (oa, na) = (args(o), args(n));
    for (name, was) in &oa {
        match na.iter().find(|(n, _)| n == name) {
            None => out.add(
                item.into(),
                r::PROMPT_ARGUMENTS,
                format!("lost argument `{name}`"),
            ),
            Some((_, true)) if !was => out.add(
                item.into(),
                r::PROMPT_ARGUMENTS,
                format!("argument `{name}` is now required"),
            ),
            Some((_, false)) if *was => out.add(
                item.into(),
                r::ARGUMENT_OPTIONAL,
                format!("argument `{name}` is now optional"),
            ),
            _ => {}
        }
    }
    for (name, req) in na.iter().filter(|(n, _)| !oa.iter().any(|(o, _)| o == n)) {
        if *req {
            out.add(
                item.into(),
                r::PROMPT_ARGUMENTS,
                format!("new required argument `{name}`"),
            );
        } else {
            out.add(
                item.into(),
                r::OPTIONAL_ARGUMENT,
                format!("new optional argument `{name}`"),
            );
        }
    }
}

#[cfg(test)]
mod tests;
