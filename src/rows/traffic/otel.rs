//! OpenTelemetry GenAI spans exported as OTLP JSON (one `ExportTraceServiceRequest`, or one a
//! line as the collector's file exporter writes them). A `chat` span whose
//! `gen_ai.input.messages` and `gen_ai.output.messages` hold the messages (parts `text`,
//! `tool_call`, `tool_call_response`) is read as one conversation, as a request log line is;
//! an `execute_tool` span (`gen_ai.tool.name`, `gen_ai.tool.call.id`) whose status is an
//! error marks that call's result as an error. A row cites the line its span starts on.

use std::collections::HashMap;

use serde_json::Value;

use super::{Conversation, Event, Read, args_of, json_lines, not_json, says_rejected, text_of};

/// One span, flattened.
struct Span {
    trace: String,
    start: u64,
    attrs: HashMap<String, Value>,
    error: bool,
    line: u32,
}

pub(super) fn read(file: &str, text: &str) -> Read {
    let mut out = Read::default();
    let docs: Vec<Value> = match serde_json::from_str::<Value>(text.trim()) {
        Ok(doc) => vec![doc],
        Err(_) => json_lines(text)
            .filter_map(|(line, v)| match v {
                Ok(v) => Some(v),
                Err(e) => {
                    out.skipped.push(not_json(file, line, &e));
                    None
                }
            })
            .collect(),
    };
    let mut spans: Vec<Span> = docs.iter().flat_map(|d| spans_of(d, text)).collect();
    spans.sort_by(|a, b| a.trace.cmp(&b.trace).then(a.start.cmp(&b.start)));
    let failed: HashMap<String, bool> = spans
        .iter()
        .filter(|s| op(s) == "execute_tool")
        .filter_map(|s| Some((attr_str(s, "gen_ai.tool.call.id")?.to_owned(), s.error)))
        .collect();
    for span in spans
        .iter()
        .filter(|s| s.attrs.contains_key("gen_ai.input.messages"))
    {
        let mut events = Vec::new();
        for m in messages(span, "gen_ai.input.messages") {
            message(&m, span.line, &failed, &mut events);
        }
        for m in messages(span, "gen_ai.output.messages") {
            message(&m, span.line, &failed, &mut events);
        }
        out.conversations.push(Conversation {
            file: file.to_owned(),
            events,
        });
    }
    out
}

fn op(span: &Span) -> &str {
    attr_str(span, "gen_ai.operation.name").unwrap_or("")
}

fn attr_str<'s>(span: &'s Span, key: &str) -> Option<&'s str> {
    span.attrs.get(key).and_then(Value::as_str)
}

/// The messages of a JSON-string (or structured) attribute.
fn messages(span: &Span, key: &str) -> Vec<Value> {
    let value = match span.attrs.get(key) {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
        Some(other) => other.clone(),
        None => Value::Null,
    };
    value.as_array().cloned().unwrap_or_default()
}

fn message(m: &Value, line: u32, failed: &HashMap<String, bool>, events: &mut Vec<Event>) {
    let role = m["role"].as_str().unwrap_or("");
    for part in m["parts"].as_array().into_iter().flatten() {
        match part["type"].as_str() {
            Some("text") => {
                let text = text_of(&part["content"]).trim().to_owned();
                if text.is_empty() {
                    continue;
                }
                match role {
                    "user" => events.push(Event::User { text, line }),
                    "assistant" => events.push(Event::Assistant(text)),
                    _ => {}
                }
            }
            Some("tool_call") => events.push(Event::Call {
                id: part["id"].as_str().map(str::to_owned),
                tool: part["name"].as_str().unwrap_or("").to_owned(),
                args: args_of(part.get("arguments")),
                line,
            }),
            Some("tool_call_response") => {
                let id = part["id"].as_str().map(str::to_owned);
                let text = text_of(&part["response"]);
                let rejected = says_rejected(&text);
                let flagged = id.as_ref().and_then(|i| failed.get(i)).copied();
                events.push(Event::Result {
                    id,
                    error: flagged.unwrap_or(false)
                        || rejected
                        || part["response"]["isError"] == true,
                    rejected,
                    text,
                    line,
                });
            }
            _ => {}
        }
    }
}

/// Every span of one OTLP document.
fn spans_of(doc: &Value, text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    for rs in doc["resourceSpans"].as_array().into_iter().flatten() {
        for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
            for s in ss["spans"].as_array().into_iter().flatten() {
                let attrs = s["attributes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|a| Some((a["key"].as_str()?.to_owned(), any_value(&a["value"]))))
                    .collect();
                let id = s["spanId"].as_str().unwrap_or("");
                out.push(Span {
                    trace: s["traceId"].as_str().unwrap_or("").to_owned(),
                    start: number(&s["startTimeUnixNano"]),
                    attrs,
                    error: s["status"]["code"] == 2 || s["status"]["code"] == "STATUS_CODE_ERROR",
                    line: line_of(text, id),
                });
            }
        }
    }
    out
}

/// An OTLP `AnyValue` as plain JSON.
fn any_value(v: &Value) -> Value {
    if let Some(s) = v.get("stringValue") {
        return s.clone();
    }
    if let Some(b) = v.get("boolValue") {
        return b.clone();
    }
    if let Some(i) = v.get("intValue") {
        return Value::from(number(i));
    }
    if let Some(d) = v.get("doubleValue") {
        return d.clone();
    }
    if let Some(values) = v["arrayValue"]["values"].as_array() {
        return Value::Array(values.iter().map(any_value).collect());
    }
    Value::Null
}

/// A number OTLP JSON writes as a string (64-bit integers) or a number.
fn number(v: &Value) -> u64 {
    match v {
        Value::String(s) => s.parse().unwrap_or(0),
        other => other.as_u64().unwrap_or(0),
    }
}

/// The line of `text` where the span with this id is written (1 when it cannot be found).
fn line_of(text: &str, span_id: &str) -> u32 {
    if span_id.is_empty() {
        return 1;
    }
    let needle = format!("\"{span_id}\"");
    text.find(&needle).map_or(1, |at| {
        u32::try_from(text[..at].matches('\n').count() + 1).unwrap_or(u32::MAX)
    })
}
