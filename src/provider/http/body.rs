//! An error body as the reports quote it: on one line, cut short, in the shapes Anthropic,
//! OpenAI and compatible servers use.

use serde_json::Value;

/// Longest part of a server's message quoted in an error.
pub(super) const QUOTE: usize = 500;

/// `429 rate_limit_error: slow down` from an error body, in the shapes Anthropic, OpenAI and
/// compatible servers use; the start of the body when it is not one of them.
pub(crate) fn describe(status: u16, parsed: Option<&Value>, text: &str) -> String {
    let err = parsed.and_then(|v| v.get("error"));
    let kind = err.and_then(|e| {
        e.get("code")
            .and_then(Value::as_str)
            .or_else(|| e.get("type").and_then(Value::as_str))
    });
    let message = err
        .and_then(|e| e.get("message").and_then(Value::as_str).or(e.as_str()))
        .or_else(|| {
            parsed
                .and_then(|v| v.get("message"))
                .and_then(Value::as_str)
        })
        .or_else(|| parsed.and_then(|v| v.get("detail")).and_then(Value::as_str))
        .map(quote)
        .unwrap_or_else(|| quote_body(text));
    // llama-cpp-python answers `tool_choice: required` with a 500 whose message is "".
    let said = if message.is_empty() {
        " with an empty message".to_owned()
    } else {
        format!(": {message}")
    };
    match kind {
        Some(k) => format!("{status} {k}{said}"),
        None => format!("{status}{said}"),
    }
}

/// Whether a 429 says the money ran out rather than the rate (retrying cannot help).
pub(super) fn quota_exhausted(body: &Value) -> bool {
    let Some(err) = body.get("error") else {
        return false;
    };
    let is = |v: Option<&Value>, what: &str| v.and_then(Value::as_str) == Some(what);
    is(err.get("code"), "insufficient_quota")
        || is(err.get("type"), "insufficient_quota")
        || is(
            err.pointer("/details/error_code"),
            "enforced_spend_limit_reached",
        )
}

/// The text on one line, cut to [`QUOTE`] characters.
pub(super) fn quote(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= QUOTE {
        one_line
    } else {
        let cut: String = one_line.chars().take(QUOTE).collect();
        format!("{cut}…")
    }
}

/// A body as [`quote`] shows it, or `(empty body)`.
pub(super) fn quote_body(text: &str) -> String {
    if text.trim().is_empty() {
        "(empty body)".to_owned()
    } else {
        quote(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn describe_reads_anthropic_openai_and_other_error_bodies() {
        let anthropic = json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}});
        assert_eq!(
            describe(401, Some(&anthropic), ""),
            "401 authentication_error: invalid x-api-key"
        );
        let openai = json!({"error": {"message": "The model `x` does not exist", "type": "invalid_request_error", "param": null, "code": "model_not_found"}});
        assert_eq!(
            describe(404, Some(&openai), ""),
            "404 model_not_found: The model `x` does not exist"
        );
        let ollama = json!({"error": "model \"x\" not found, try pulling it first"});
        assert_eq!(
            describe(404, Some(&ollama), ""),
            "404: model \"x\" not found, try pulling it first"
        );
        let fastapi = json!({"detail": "Not Found"});
        assert_eq!(describe(404, Some(&fastapi), ""), "404: Not Found");
        assert_eq!(
            describe(502, None, "<html>\n  <h1>Bad   gateway</h1></html>"),
            "502: <html> <h1>Bad gateway</h1></html>"
        );
        assert_eq!(describe(500, None, "  "), "500: (empty body)");
        let llama = json!({"error": {"message": "", "type": "internal_server_error", "param": null, "code": null}});
        assert_eq!(
            describe(500, Some(&llama), ""),
            "500 internal_server_error with an empty message"
        );
        let blank = json!({"error": {"message": " \n ", "code": "server_error"}});
        assert_eq!(
            describe(500, Some(&blank), ""),
            "500 server_error with an empty message"
        );
        let long = "x".repeat(2000);
        assert_eq!(describe(500, None, &long).chars().count(), 5 + QUOTE + 1);
    }

    #[test]
    fn quota_exhaustion_is_recognised() {
        assert!(quota_exhausted(
            &json!({"error": {"type": "insufficient_quota", "code": "insufficient_quota", "message": "You exceeded your current quota"}})
        ));
        assert!(quota_exhausted(
            &json!({"type": "error", "error": {"type": "rate_limit_error", "message": "spend limit", "details": {"error_code": "enforced_spend_limit_reached"}}})
        ));
        assert!(!quota_exhausted(
            &json!({"error": {"type": "requests", "code": "rate_limit_exceeded", "message": "slow down"}})
        ));
    }
}
