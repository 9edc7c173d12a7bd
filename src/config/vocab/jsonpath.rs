//! JSONPath as configs written for mcp-toolproof use it: RFC 9535, plus the two forms of
//! jsonpath-ng (the reference's dialect) that tests commonly rely on, with jsonpath-ng's
//! meaning:
//!
//! - a path without the leading `$` starts at the root (`content[0].text` is
//!   `$.content[0].text`);
//! - a final `` .`len` `` gives the length of each match: items of a list, members of an
//!   object, characters of a string; other values give no match.
//!
//! Any other jsonpath-ng-only form is an error that shows how RFC 9535 writes it.

use serde_json::Value;
use serde_json_path::JsonPath;

/// A parsed path, ready to query.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    path: JsonPath,
    /// Ends in `` `len` ``: each match is replaced by its length.
    len: bool,
}

impl Query {
    /// The values the path selects in `data`, in document order.
    pub(crate) fn query(&self, data: &Value) -> Vec<Value> {
        let nodes = self.path.query(data).all();
        if !self.len {
            return nodes.into_iter().cloned().collect();
        }
        nodes
            .into_iter()
            .filter_map(|v| {
                let n = match v {
                    Value::Array(a) => a.len(),
                    Value::Object(o) => o.len(),
                    Value::String(s) => s.chars().count(),
                    _ => return None,
                };
                Some(Value::from(n))
            })
            .collect()
    }
}

/// Why a path cannot be used, and how to write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathError {
    /// What is wrong.
    pub problem: String,
    /// The RFC 9535 way, or the rule.
    pub hint: String,
}

const RULE: &str = "paths follow RFC 9535, e.g. `$.items[0].name` (the `$` may be left out)";

/// Parses a JSONPath (see the module documentation for what is accepted).
pub(crate) fn jsonpath(path: &str) -> Result<Query, PathError> {
    let (body, len) = match path.strip_suffix("`len`") {
        Some("") => ("", true),
        Some(rest) => match rest.strip_suffix('.') {
            Some(rest) => (rest, true),
            None => return Err(ng_only(path).unwrap_or_else(|| parse_error(path, "bad `len`"))),
        },
        None => (path, false),
    };
    let rooted = if body.starts_with('$') {
        body.to_owned()
    } else if body.is_empty() || body.starts_with('[') {
        format!("${body}")
    } else {
        format!("$.{body}")
    };
    match JsonPath::parse(&rooted) {
        Ok(path) => Ok(Query { path, len }),
        Err(e) => Err(ng_only(path).unwrap_or_else(|| parse_error(path, &e.to_string()))),
    }
}

/// Why `path` cannot be used, or `None` when it can.
pub(crate) fn jsonpath_error(path: &str) -> Option<PathError> {
    jsonpath(path).err()
}

fn parse_error(_path: &str, reason: &str) -> PathError {
    PathError {
        problem: reason.to_owned(),
        hint: RULE.to_owned(),
    }
}

/// A jsonpath-ng form that RFC 9535 does not have, with the RFC 9535 way to write it.
fn ng_only(path: &str) -> Option<PathError> {
    let found = |what: &str, hint: &str| {
        Some(PathError {
            problem: format!("{what} is jsonpath-ng syntax, not RFC 9535"),
            hint: hint.to_owned(),
        })
    };
    if path.contains("`this`") || path.starts_with('@') {
        return found(
            "`this` (or a path starting with `@`)",
            "start the path at the root: `$.items`",
        );
    }
    if path.contains("`parent`") {
        return found(
            "`parent`",
            "select the parent directly, e.g. `$.items[?@.id == 3]` instead of `$.items[*].id.`parent``",
        );
    }
    if path.contains("`len`") {
        return found(
            "`len` in the middle of a path",
            "`len` works only at the end: `$.items.`len``",
        );
    }
    if path.contains('`') {
        return found(
            "a named operator (`keys`, `str()`, `sub()`, `split()`…)",
            "RFC 9535 has no operators; select the values and compare them with `equals`",
        );
    }
    if path.contains(" where ") || path.contains(" wherenot ") {
        return found(
            "`where`",
            "use a filter: `$.items[?@.enabled]` (or `[?!@.enabled]` for `wherenot`)",
        );
    }
    if path.contains('|') || path.contains('&') {
        return found(
            "`|` (union) or `&` (intersection) of paths",
            "write one `jsonpath:` entry per path",
        );
    }
    if path.contains("[/") || path.contains("[\\") || path.contains("[~") {
        return found(
            "sorting (`[/key]`, `[\\key]`)",
            "RFC 9535 cannot sort; select by index or with a filter",
        );
    }
    if [" + ", " - ", " * ", " / "]
        .iter()
        .any(|op| path.contains(op))
    {
        return found(
            "arithmetic",
            "RFC 9535 has no arithmetic; select each value and check it with `equals`, `min` or `max`",
        );
    }
    if path.contains("[?") && (path.contains(" = ") || !path.contains('@')) {
        return found(
            "this filter",
            "RFC 9535 filters refer to the item as `@` and compare with `==`: `$.items[?@.price == 3]`",
        );
    }
    if path.starts_with("..") {
        return found("a path starting with `..`", "write `$..name`");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(path: &str, data: &Value) -> Vec<Value> {
        jsonpath(path).expect(path).query(data)
    }

    #[test]
    fn paths_without_a_dollar_start_at_the_root() {
        let data = json!({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"result": 7}});
        assert_eq!(run("content[0].text", &data), [json!("hi")]);
        assert_eq!(run("structuredContent.result", &data), [json!(7)]);
        assert_eq!(run("content[*].text", &data), [json!("hi")]);
        assert_eq!(run("['structuredContent']", &data).len(), 1);
    }

    #[test]
    fn len_counts_items_members_and_characters() {
        let data = json!({"items": [1, 2, 3], "obj": {"a": 1, "b": 2}, "s": "héllo", "n": 5});
        assert_eq!(run("$.items.`len`", &data), [json!(3)]);
        assert_eq!(run("items.`len`", &data), [json!(3)]);
        assert_eq!(run("$.obj.`len`", &data), [json!(2)]);
        assert_eq!(run("$.s.`len`", &data), [json!(5)]);
        assert_eq!(run("$.n.`len`", &data), Vec::<Value>::new());
        assert_eq!(run("`len`", &data), [json!(4)]);
        assert_eq!(run("$.`len`", &data), [json!(4)]);
    }

    #[test]
    fn other_jsonpath_ng_forms_say_how_rfc_9535_writes_them() {
        for (path, hint) in [
            ("$.items | $.obj", "one `jsonpath:` entry per path"),
            ("$.obj where a", "use a filter"),
            ("$.items[/x]", "cannot sort"),
            ("$.n + 1", "no arithmetic"),
            ("$.obj.`keys`", "no operators"),
            ("@.items", "start the path at the root"),
            ("$.items[?(@ = 2)]", "compare with `==`"),
            ("$.items[?price > 3]", "refer to the item as `@`"),
            ("$.a.`len`.b", "only at the end"),
            ("..a", "write `$..name`"),
        ] {
            let err = jsonpath_error(path).expect(path);
            assert!(
                err.problem.contains("jsonpath-ng syntax"),
                "{path}: {err:?}"
            );
            assert!(err.hint.contains(hint), "{path}: {err:?}");
        }
        let plain = jsonpath_error("$.[").expect("invalid");
        assert!(plain.hint.contains("RFC 9535"), "{plain:?}");
    }
}
