//! The content blocks of a tool result, checked as the SDKs validate them: a block the Python
//! SDK's `CallToolResult` refuses (a text block whose `text` is not a string, an image without
//! `data`) makes the whole result unreadable there, so mcp-toolproof gets no result at all.
//! A block of a type these checks do not know is left alone: a later protocol revision may
//! add one.

use serde_json::Value;

/// How many invalid blocks a message names before it counts the rest.
const NAMED: usize = 3;

/// What is wrong with the blocks of `content`, one `content[i]: why` per invalid block (the
/// first few, then how many more); `None` when every block is valid.
pub fn problems(content: &[Value]) -> Option<String> {
    let found: Vec<String> = content
        .iter()
        .enumerate()
        .filter_map(|(i, block)| problem(block).map(|why| format!("content[{i}]: {why}")))
        .collect();
    if found.is_empty() {
        return None;
    }
    let mut text = found[..found.len().min(NAMED)].join("; ");
    if found.len() > NAMED {
        text.push_str(&format!(
            "; and {} more invalid blocks",
            found.len() - NAMED
        ));
    }
    Some(text)
}

/// Why one block is invalid, if it is.
fn problem(block: &Value) -> Option<String> {
    let Value::Object(fields) = block else {
        return Some(format!(
            "a content block must be an object, got {}",
            got(block)
        ));
    };
    let kind = match fields.get("type") {
        None => return Some("a content block has no \"type\"".to_owned()),
        Some(Value::String(kind)) => kind.as_str(),
        Some(other) => {
            return Some(format!(
                "a content block's \"type\" must be a string, got {}",
                got(other)
            ));
        }
    };
    let (article, required): (&str, &[&str]) = match kind {
        "text" => ("a", &["text"]),
        "image" => ("an", &["data", "mimeType"]),
        "audio" => ("an", &["data", "mimeType"]),
        "resource_link" => ("a", &["uri", "name"]),
        "resource" => return resource(fields.get("resource")),
        _ => return None,
    };
    for field in required {
        match fields.get(*field) {
            Some(Value::String(_)) => {}
            None => return Some(format!("{article} {kind} block has no \"{field}\"")),
            Some(other) => {
                return Some(format!(
                    "{article} {kind} block's \"{field}\" must be a string, got {}",
                    got(other)
                ));
            }
        }
    }
    optional_objects(fields, &format!("{article} {kind} block's"))
}

/// An embedded resource: `resource` is an object with a `uri` and a `text` or a `blob`.
fn resource(resource: Option<&Value>) -> Option<String> {
    let fields = match resource {
        None => return Some("a resource block has no \"resource\"".to_owned()),
        Some(Value::Object(fields)) => fields,
        Some(other) => {
            return Some(format!(
                "a resource block's \"resource\" must be an object, got {}",
                got(other)
            ));
        }
    };
    match fields.get("uri") {
        Some(Value::String(_)) => {}
        None => return Some("a resource block's resource has no \"uri\"".to_owned()),
        Some(other) => {
            return Some(format!(
                "a resource block's resource \"uri\" must be a string, got {}",
                got(other)
            ));
        }
    }
    let text = matches!(fields.get("text"), Some(Value::String(_)));
    let blob = matches!(fields.get("blob"), Some(Value::String(_)));
    if !text && !blob {
        return Some("a resource block's resource needs a string \"text\" or \"blob\"".to_owned());
    }
    None
}

/// `annotations` and `_meta`, when present and not null, are objects.
fn optional_objects(fields: &serde_json::Map<String, Value>, whose: &str) -> Option<String> {
    ["annotations", "_meta"]
        .iter()
        .find_map(|key| match fields.get(*key) {
            None | Some(Value::Null | Value::Object(_)) => None,
            Some(other) => Some(format!(
                "{whose} \"{key}\" must be an object, got {}",
                got(other)
            )),
        })
}

/// A value as a message names it: scalars as JSON (cut short), containers by kind.
fn got(value: &Value) -> String {
    match value {
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "an object".to_owned(),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            let cut = if short.len() < s.len() { "…" } else { "" };
            format!("{}{cut}", Value::String(short))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(content: Value) -> Option<String> {
        problems(content.as_array().map_or(&[][..], Vec::as_slice))
    }

    #[test]
    fn valid_blocks_pass_whatever_extra_fields_they_carry() {
        let content = json!([
            {"type": "text", "text": "", "annotations": {"audience": ["user"]}, "_meta": null},
            {"type": "image", "data": "eA==", "mimeType": "image/png", "extra": 1},
            {"type": "audio", "data": "eA==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a", "name": "a"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "x"}},
            {"type": "resource", "resource": {"uri": "file:///a", "blob": "eA=="}},
            {"type": "from-a-later-revision", "anything": 5},
        ]);
        assert_eq!(of(content), None);
        assert_eq!(of(json!([])), None);
    }

    #[test]
    fn each_invalid_block_is_named_with_why() {
        let cases = [
            (
                json!({"type": "text", "text": 5}),
                r#"a text block's "text" must be a string, got 5"#,
            ),
            (json!({"type": "text"}), r#"a text block has no "text""#),
            (
                json!({"type": "text", "text": null}),
                r#"a text block's "text" must be a string, got null"#,
            ),
            (json!({"text": "hi"}), r#"a content block has no "type""#),
            (
                json!({"type": 3, "text": "hi"}),
                r#"a content block's "type" must be a string, got 3"#,
            ),
            (
                json!("hi"),
                r#"a content block must be an object, got "hi""#,
            ),
            (
                json!({"type": "image", "mimeType": "image/png"}),
                r#"an image block has no "data""#,
            ),
            (
                json!({"type": "audio", "data": "eA==", "mimeType": ["a"]}),
                r#"an audio block's "mimeType" must be a string, got a list"#,
            ),
            (
                json!({"type": "resource_link", "uri": "file:///x"}),
                r#"a resource_link block has no "name""#,
            ),
            (
                json!({"type": "resource", "resource": {"uri": "file:///x"}}),
                r#"a resource block's resource needs a string "text" or "blob""#,
            ),
            (
                json!({"type": "resource", "resource": "file:///x"}),
                r#"a resource block's "resource" must be an object, got "file:///x""#,
            ),
            (
                json!({"type": "text", "text": "ok", "annotations": 5}),
                r#"a text block's "annotations" must be an object, got 5"#,
            ),
        ];
        for (block, why) in cases {
            assert_eq!(
                of(json!([{"type": "text", "text": "fine"}, block])),
                Some(format!("content[1]: {why}")),
                "{block}"
            );
        }
    }

    #[test]
    fn many_invalid_blocks_are_counted_after_the_first_few() {
        let content = json!([{"type": "text"}, 1, 2, 3, {"type": "text", "text": "ok"}, 4]);
        assert_eq!(
            of(content).as_deref(),
            Some(concat!(
                r#"content[0]: a text block has no "text"; "#,
                "content[1]: a content block must be an object, got 1; ",
                "content[2]: a content block must be an object, got 2; ",
                "and 2 more invalid blocks"
            ))
        );
    }
}
