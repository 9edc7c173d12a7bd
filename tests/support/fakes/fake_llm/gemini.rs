//! The Gemini API's wire format (`POST /v1beta/models/{MODEL}:generateContent`): the prompt,
//! tools and earlier turns of a request, answers with `functionCall` parts, `finishReason` and
//! `usageMetadata`, and errors in Google's shape (`{"error": {"code", "message", "status",
//! "details"}}`; a 429's wait is a `google.rpc.RetryInfo` detail, as the real API sends it,
//! not a header).
//!
//! Directives, as Gemini answers them: `[[refuse]]` is `finishReason: SAFETY` with no content;
//! `[[max_tokens]]` is `MAX_TOKENS`; `[[malformed NAME RAW]]` is `MALFORMED_FUNCTION_CALL` with
//! no content and a `finishMessage` quoting the raw call (the API never returns arguments that
//! are not an object). Usage: `promptTokenCount` counts the whole request (tools, system
//! instruction, contents) and includes `cachedContentTokenCount`, which is the tools and system
//! instruction once a request of the same model carried them (implicit caching); zero counts are
//! left out, as Google's JSON does.

use serde_json::{Map, Value, json};

use crate::script::{Call, Script, Status};
use crate::usage::{Input, PromptCache};
use crate::wire::{self, Out};

/// The model of a `generateContent` path: `/v1beta/models/MODEL:generateContent`.
pub fn model_of(path: &str) -> Option<&str> {
    path.strip_prefix("/v1beta/models/")?
        .strip_suffix(":generateContent")
        .filter(|m| !m.is_empty() && !m.contains('/'))
}

/// The text of the last `user` turn's text parts.
pub fn prompt(body: &Value) -> Option<String> {
    let contents = body.get("contents")?.as_array()?;
    let last = contents.iter().rev().find(|c| {
        c.get("role")
            .and_then(Value::as_str)
            .is_none_or(|r| r == "user")
    })?;
    let texts: Vec<&str> = last
        .get("parts")?
        .as_array()?
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    Some(texts.join(" "))
}

/// The declared function names.
pub fn tool_names(body: &Value) -> Vec<String> {
    body.get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("functionDeclarations").and_then(Value::as_array))
        .flatten()
        .filter_map(|d| d.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// The earlier turns' text, one part per line: text parts before the prompt, every
/// `functionCall`'s args and `functionResponse`'s response (never the system instruction).
pub fn earlier_text(body: &Value) -> String {
    let contents = body
        .get("contents")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let last_user = contents.iter().rposition(|c| {
        c.get("role")
            .and_then(Value::as_str)
            .is_none_or(|r| r == "user")
    });
    let mut out = Vec::new();
    for (i, turn) in contents.iter().enumerate() {
        let is_prompt = Some(i) == last_user;
        for part in turn
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                if !is_prompt {
                    out.push(text.to_owned());
                }
            } else if let Some(args) = part.pointer("/functionCall/args") {
                out.push(args.to_string());
            } else if let Some(response) = part.pointer("/functionResponse/response") {
                out.push(match response.get("result") {
                    Some(Value::String(s)) => s.clone(),
                    _ => response.to_string(),
                });
            }
        }
    }
    out.join("\n")
}

fn tokens(v: Option<&Value>) -> u64 {
    v.map_or(0, |v| (v.to_string().len() as u64).div_ceil(4))
}

/// The input side of the usage: the whole request, the tools and system instruction read from
/// the cache once seen.
pub fn input(model: &str, body: &Value, cache: &PromptCache) -> Input {
    let tools = body.get("tools");
    let system = body.get("systemInstruction");
    let prefix = tokens(tools) + tokens(system);
    let all = prefix + tokens(body.get("contents")) + 10;
    let key = format!(
        "gemini\n{model}\n{}\n{}",
        tools.unwrap_or(&Value::Null),
        system.unwrap_or(&Value::Null)
    );
    let cached = if prefix > 0 && cache.hit(key) {
        prefix
    } else {
        0
    };
    Input {
        fresh: all - cached,
        cache_read: cached,
        ..Input::default()
    }
}

/// `usageMetadata`, zero counts left out.
fn usage(script: &Script, input: &Input, output: u64) -> Option<Value> {
    if script.no_usage {
        return None;
    }
    let (prompt, cached, output) = match script.usage_tokens {
        Some(n) => (n, 0, n),
        None => (input.fresh + input.cache_read, input.cache_read, output),
    };
    let mut u = Map::new();
    for (key, n) in [
        ("promptTokenCount", prompt),
        ("candidatesTokenCount", output),
        ("totalTokenCount", prompt.saturating_add(output)),
        ("cachedContentTokenCount", cached),
    ] {
        if n > 0 {
            u.insert(key.into(), json!(n));
        }
    }
    if cached > 0 {
        u.insert(
            "cacheTokensDetails".into(),
            json!([{"modality": "TEXT", "tokenCount": cached}]),
        );
    }
    Some(Value::Object(u))
}

/// A complete answer for `script`.
pub fn answer(model: &str, script: &Script, input: &Input) -> Out {
    let mut candidate = json!({"index": 0});
    let malformed = script.calls.iter().find_map(|c| match c {
        Call::Malformed { raw, .. } => Some(raw),
        Call::Args { .. } => None,
    });
    let output = if script.refuse {
        candidate["finishReason"] = json!("SAFETY");
        candidate["safetyRatings"] = json!([
            {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}
        ]);
        0
    } else if let Some(raw) = malformed {
        candidate["finishReason"] = json!("MALFORMED_FUNCTION_CALL");
        candidate["finishMessage"] = json!(format!("Malformed function call: {raw}"));
        0
    } else {
        let mut parts = Vec::new();
        let text = script.text.join(" ");
        if !text.is_empty() {
            parts.push(json!({"text": text}));
        }
        for call in &script.calls {
            if let Call::Args { name, args } = call {
                parts.push(json!({"functionCall": {"name": name, "args": args}}));
            }
        }
        let n = parts.len() as u64;
        candidate["content"] = json!({"role": "model", "parts": parts});
        candidate["finishReason"] = json!(if script.max_tokens {
            "MAX_TOKENS"
        } else {
            "STOP"
        });
        5 + 10 * n
    };
    let mut body = json!({
        "candidates": [candidate],
        "modelVersion": model,
        "responseId": wire::id("resp_"),
    });
    if let Some(u) = usage(script, input, output) {
        body["usageMetadata"] = u;
    }
    Out {
        status: 200,
        headers: Vec::new(),
        content_type: "application/json; charset=UTF-8",
        body: body.to_string(),
    }
}

/// An error in Google's shape. A bad key is the API's 400 `INVALID_ARGUMENT` with an
/// `API_KEY_INVALID` reason; a 429's `retry-after=S` (or `retry-after-ms=MS`) becomes the
/// `RetryInfo` detail's `retryDelay`.
pub fn error(model: &str, status: &Status) -> Out {
    let code = status.code;
    let (name, default_msg) = match code {
        400 => (
            "INVALID_ARGUMENT",
            "Request contains an invalid argument.".to_owned(),
        ),
        401 => (
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials.".to_owned(),
        ),
        403 => (
            "PERMISSION_DENIED",
            "The caller does not have permission".to_owned(),
        ),
        404 => (
            "NOT_FOUND",
            format!(
                "models/{model} is not found for API version v1beta, or is not supported for generateContent."
            ),
        ),
        429 if status.quota => (
            "RESOURCE_EXHAUSTED",
            "You exceeded your current quota, please check your plan and billing details."
                .to_owned(),
        ),
        429 => (
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).".to_owned(),
        ),
        503 => (
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.".to_owned(),
        ),
        504 => (
            "DEADLINE_EXCEEDED",
            "Deadline expired before operation could complete.".to_owned(),
        ),
        c if c >= 500 => ("INTERNAL", "An internal error has occurred.".to_owned()),
        _ => ("FAILED_PRECONDITION", "error".to_owned()),
    };
    let message = status.msg.clone().unwrap_or(default_msg);
    let mut details = Vec::new();
    if status.quota {
        details.push(json!({"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
            {"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
             "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}
        ]}));
    }
    let delay = match (&status.retry_after, &status.retry_after_ms) {
        (_, Some(ms)) => ms.parse::<f64>().ok().map(|ms| format!("{}s", ms / 1000.0)),
        (Some(s), None) => Some(format!("{s}s")),
        (None, None) => None,
    };
    if let Some(delay) = delay {
        details.push(
            json!({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}),
        );
    }
    let mut error = json!({"code": code, "message": message, "status": name});
    if !details.is_empty() {
        error["details"] = Value::Array(details);
    }
    let mut out = Out {
        status: code,
        headers: Vec::new(),
        content_type: "application/json; charset=UTF-8",
        body: json!({ "error": error }).to_string(),
    };
    if let Some(v) = &status.should_retry {
        out.headers.push(("x-should-retry".into(), v.clone()));
    }
    out
}

/// The answer to a request without the right `x-goog-api-key`: the API's 400 for a key that
/// is not valid, or its 403 when none was sent.
pub fn bad_key(given: Option<&str>) -> Out {
    let (code, status, message, reason) = match given {
        Some(_) => (
            400,
            "INVALID_ARGUMENT",
            "API key not valid. Please pass a valid API key.",
            "API_KEY_INVALID",
        ),
        None => (
            403,
            "PERMISSION_DENIED",
            "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
            "CONSUMER_INVALID",
        ),
    };
    let body = json!({"error": {"code": code, "message": message, "status": status, "details": [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "googleapis.com",
         "metadata": {"service": "generativelanguage.googleapis.com"}}
    ]}});
    Out {
        status: code,
        headers: Vec::new(),
        content_type: "application/json; charset=UTF-8",
        body: body.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_comes_from_the_path() {
        assert_eq!(
            model_of("/v1beta/models/gemini-2.5-flash:generateContent"),
            Some("gemini-2.5-flash")
        );
        assert_eq!(model_of("/v1beta/models/:generateContent"), None);
        assert_eq!(model_of("/v1/models/x:generateContent"), None);
    }

    #[test]
    fn the_prompt_tools_and_earlier_turns_are_read() {
        let body = json!({
            "systemInstruction": {"parts": [{"text": "order 11111"}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Where is 55219?"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "g", "args": {"id": "4242"}}}]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "g", "response": {"result": "fine"}}},
                    {"text": "Cancel 99999"}
                ]}
            ],
            "tools": [{"functionDeclarations": [{"name": "get_order"}, {"name": "cancel"}]}]
        });
        assert_eq!(prompt(&body).as_deref(), Some("Cancel 99999"));
        assert_eq!(tool_names(&body), ["get_order", "cancel"]);
        assert_eq!(
            earlier_text(&body),
            "Where is 55219?\n{\"id\":\"4242\"}\nfine"
        );
    }
}
