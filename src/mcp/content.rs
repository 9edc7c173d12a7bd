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
pub(crate) fn problems(content: &[Value]) -> Option<String> {
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

/// Longest text read as an error message: past it, a text that opens like one is more likely
/// content (a log, a document) than a message.
const ERROR_TEXT_CHARS: usize = 2000;

/// The text of a result whose only content reads as an error, for a result that says it
/// succeeded: one text block, no other block, no `structuredContent`, at most
/// [`ERROR_TEXT_CHARS`] characters, without content `annotations`, whose first line opens the
/// way error messages do:
/// `Error: …`, `ERROR: …`, `Database error: …` (one or two words, then `error:`),
/// `Error executing tool …`, `ValueError: …` (an exception name), `Traceback (most recent
/// call last):`, or a JSON object holding only an `error` (with `message`, `code`, `status`,
/// `details`, `type` or `success: false` beside it). Conservative on purpose: a document about
/// errors ("Error handling: …") or a text that merely mentions one does not count.
pub(crate) fn error_text(content: &[Value], structured: Option<&Value>) -> Option<String> {
    if structured.is_some() {
        return None;
    }
    let [block] = content else {
        return None;
    };
    if block.get("type").and_then(Value::as_str) != Some("text") {
        return None;
    }
    // A block annotated for an audience is content written for someone (server-everything's
    // `get-annotated-message` returns a sample "Error: Operation failed" so), not a failure.
    if block
        .get("annotations")
        .and_then(Value::as_object)
        .is_some_and(|a| !a.is_empty())
    {
        return None;
    }
    let text = block.get("text").and_then(Value::as_str)?.trim();
    if text.is_empty() || text.chars().count() > ERROR_TEXT_CHARS {
        return None;
    }
    let first = text.lines().next().unwrap_or("");
    (ERROR_OPENING.is_match(first) || json_error(text)).then(|| text.to_owned())
}

/// How an error message opens.
static ERROR_OPENING: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(concat!(
        r"^(?:",
        r"(?:Error|ERROR)\s*(?::|\s-\s)\s*\S",
        r"|[A-Z][A-Za-z]*(?: [a-z][A-Za-z]*)? (?:error|ERROR)\s*:\s*\S",
        r"|Error (?:executing|calling) tool\b",
        r"|(?:[a-z_][a-z0-9_]*\.)*[A-Z][A-Za-z0-9]*(?:Error|Exception)(?:\(|:\s*\S)",
        r"|Traceback \(most recent call last\):",
        r")",
    ))
    .expect("error opening pattern")
});

/// A JSON object that holds an error and nothing but its description.
fn json_error(text: &str) -> bool {
    if !text.starts_with('{') {
        return false;
    }
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let error = map.get("error").or_else(|| map.get("Error"));
    let meaningful = match error {
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        _ => false,
    };
    meaningful
        && map.iter().all(|(k, v)| {
            matches!(
                k.as_str(),
                "error" | "Error" | "message" | "code" | "status" | "details" | "type"
            ) || (k == "success" && v == &Value::Bool(false))
        })
}

#[cfg(test)]
mod error_text_tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Option<String> {
        error_text(&[json!({"type": "text", "text": text})], None)
    }

    #[test]
    fn what_real_servers_return_as_success_reads_as_an_error() {
        // mcp-server-sqlite's read_query, write_query and create_table, as they answer.
        for text in [
            "Error: Only SELECT queries are allowed for read_query",
            "Database error: no such table: nope",
            "Error: SELECT queries are not allowed for write_query",
            "ERROR: relation \"users\" does not exist",
            "Error executing tool read_query: boom",
            "ValueError: invalid literal for int() with base 10: 'x'",
            "sqlite3.OperationalError: near \"x\": syntax error",
            "Traceback (most recent call last):\n  File \"x.py\", line 1",
            "Input validation error: 'query' is a required property",
            r#"{"error": "not found", "code": 404}"#,
            r#"{"success": false, "error": {"message": "denied"}}"#,
        ] {
            assert_eq!(read(text).as_deref(), Some(text), "{text}");
        }
    }

    #[test]
    fn results_that_merely_mention_errors_do_not() {
        for text in [
            "[{'1': 1}]",
            "[]",
            "Error handling: use Result and the ? operator.",
            "No errors found.",
            "Found 3 errors in the log:\nERROR: disk full",
            "The request failed with an error: retry later",
            "error: lowercase log line",
            "Errors: 0",
            r#"{"title": "X", "error": "no summary"}"#,
            r#"{"error": null, "rows": []}"#,
            "Failed to fetch https://example.com: 404",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
        let long = format!("Error: {}", "x".repeat(ERROR_TEXT_CHARS));
        assert_eq!(read(&long), None);
        // Two blocks, another kind of block, or structured content: not the only text.
        let two = [
            json!({"type": "text", "text": "Error: x"}),
            json!({"type": "text", "text": "y"}),
        ];
        assert_eq!(error_text(&two, None), None);
        let image = [json!({"type": "image", "data": "", "mimeType": "image/png"})];
        assert_eq!(error_text(&image, None), None);
        let one = [json!({"type": "text", "text": "Error: x"})];
        assert_eq!(error_text(&one, Some(&json!({"ok": true}))), None);
        // server-everything's get-annotated-message with messageType "error": a sample message.
        let sample = [json!({"type": "text", "text": "Error: Operation failed",
                             "annotations": {"audience": ["user", "assistant"], "priority": 1.0}})];
        assert_eq!(error_text(&sample, None), None);
    }
}
