//! The `fz_*` tools of the `fuzz-targets` fault: each hides exactly one defect of one kind the
//! fuzzer reports, behind a condition on its input, and behaves well otherwise.

use serde_json::{Map, Value, json};

use crate::catalog::{Behaviour, ToolEntry, text_result};

/// Which defect a tool hides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// Exits when `order.qty` is negative.
    Crash,
    /// Never answers a `text` longer than 40 characters.
    Hang,
    /// Accepts anything, valid or not.
    Accept,
    /// `structuredContent.count` is a string for 3 items or more.
    Output,
    /// -32602 for a `name` with a space.
    Reject,
    /// -32603 when a tag's `label` is empty.
    Internal,
    /// A Python traceback for a `path` with a slash.
    Traceback,
    /// An error result for an odd `n`.
    Unexpected,
    /// Validates its arguments exactly: no defect.
    Strict,
    /// Blocks the whole server (ping included) for a `text` longer than 40 characters.
    Stuck,
    /// Exits when `city` is the empty string (and only then).
    EmptyCrash,
    /// Answers after the `duration` it is given (seconds, 1 by default): no defect, but slower
    /// than a short timeout.
    Wait,
    /// Answers after twice the `duration` it is given: slower than it says.
    WaitTwice,
}

/// What a call does.
pub enum Reply {
    /// A tool result.
    Result(Value),
    /// A JSON-RPC error.
    Rpc(i64, String),
    /// The process exits, after these last words on stderr.
    Crash(&'static str),
    /// No answer, ever (other requests still get theirs).
    Hang,
    /// No answer, and nothing else answered either, for a minute.
    Stuck,
    /// A tool result, after this many milliseconds (other requests are answered meanwhile).
    After(u64, Value),
}

fn read_only() -> Value {
    json!({"readOnlyHint": true})
}

fn tool(name: &str, description: &str, schema: Value, bug: Bug) -> ToolEntry {
    ToolEntry {
        def: json!({
            "name": name,
            "description": description,
            "inputSchema": schema,
            "annotations": read_only()
        }),
        behaviour: Behaviour::Fuzz(bug),
    }
}

/// The schema `fz_strict` checks its arguments against: most keywords the fuzzer generates from.
pub fn strict_schema() -> Value {
    json!({
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 2}
                },
                "required": ["id"],
                "additionalProperties": false
            }
        },
        "properties": {
            "code": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{3,5}$"},
            "email": {"type": "string", "format": "email"},
            "when": {"type": "string", "format": "date-time"},
            "site": {"type": "string", "format": "uri"},
            "level": {"enum": ["low", "mid", "high"]},
            "version": {"const": 2},
            "ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
            "step": {"type": "integer", "multipleOf": 5, "minimum": 10, "maximum": 100},
            "label": {"type": ["string", "null"], "minLength": 2, "maxLength": 12},
            "target": {"oneOf": [
                {"type": "object", "properties": {"host": {"type": "string", "format": "hostname"}}, "required": ["host"], "additionalProperties": false},
                {"type": "integer", "minimum": 1, "maximum": 65535}
            ]},
            "either": {"anyOf": [{"type": "boolean"}, {"type": "string", "maxLength": 3}]},
            "both": {"allOf": [
                {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"properties": {"b": {"type": "string"}}, "required": ["b"]}
            ]},
            "tree": {"$ref": "#/$defs/node"},
            "points": {"type": "array", "items": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "minItems": 2, "maxItems": 2}, "maxItems": 4, "uniqueItems": true},
            "meta": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
        },
        "required": ["code", "level", "tree"],
        "additionalProperties": false
    })
}

/// The tools, in list order.
pub fn tools() -> Vec<ToolEntry> {
    let object = |props: Value, required: Value| json!({"type": "object", "properties": props, "required": required, "additionalProperties": false});
    let mut list = vec![
        tool(
            "fz_crash",
            "Places an order; dies on a negative quantity.",
            object(
                json!({
                    "order": {"type": "object", "properties": {
                        "qty": {"type": "integer"},
                        "note": {"type": "string"}
                    }, "required": ["qty"]},
                    "customer": {"type": "string"}
                }),
                json!(["order"]),
            ),
            Bug::Crash,
        ),
        tool(
            "fz_hang",
            "Stores a text; never answers one over 40 characters.",
            object(
                json!({"text": {"type": "string", "maxLength": 500}}),
                json!(["text"]),
            ),
            Bug::Hang,
        ),
        tool(
            "fz_accept",
            "Sets a counter; accepts any arguments at all.",
            object(
                json!({
                    "count": {"type": "integer", "minimum": 1, "maximum": 10},
                    "mode": {"enum": ["fast", "slow"]}
                }),
                json!(["count", "mode"]),
            ),
            Bug::Accept,
        ),
        tool(
            "fz_reject",
            "Greets someone; refuses names with a space.",
            object(json!({"name": {"type": "string"}}), json!(["name"])),
            Bug::Reject,
        ),
        tool(
            "fz_internal",
            "Counts tags; fails inside on an empty label.",
            object(
                json!({"tags": {"type": "array", "items": {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}}}),
                json!(["tags"]),
            ),
            Bug::Internal,
        ),
        tool(
            "fz_traceback",
            "Reads a file; a path with a slash raises an exception.",
            object(json!({"path": {"type": "string"}}), json!(["path"])),
            Bug::Traceback,
        ),
        tool(
            "fz_stuck",
            "Stores a text; a text over 40 characters blocks the whole server.",
            object(
                json!({"text": {"type": "string", "maxLength": 500}}),
                json!(["text"]),
            ),
            Bug::Stuck,
        ),
        tool(
            "fz_unexpected",
            "Halves an even number; odd numbers get an error result.",
            object(json!({"n": {"type": "integer"}}), json!(["n"])),
            Bug::Unexpected,
        ),
        tool(
            "fz_weather",
            "Gives the weather in a city; dies on an empty city name.",
            object(json!({"city": {"type": "string"}}), json!(["city"])),
            Bug::EmptyCrash,
        ),
        tool(
            "fz_strict",
            "Checks a rich record against its schema, exactly.",
            strict_schema(),
            Bug::Strict,
        ),
    ];
    let mut output = tool(
        "fz_output",
        "Counts items; for 3 or more it reports the count as a word.",
        object(
            json!({"items": {"type": "array", "items": {"type": "string"}, "maxItems": 5}}),
            json!(["items"]),
        ),
        Bug::Output,
    );
    output.def["outputSchema"] = json!({
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"]
    });
    list.insert(3, output);
    list.push(ToolEntry {
        def: json!({
            "name": "fz_unannotated",
            "description": "Deletes nothing, but does not say so.",
            "inputSchema": object(json!({"x": {"type": "integer"}}), json!([]))
        }),
        behaviour: Behaviour::Fuzz(Bug::Accept),
    });
    list.push(ToolEntry {
        def: json!({
            "name": "fz_write",
            "description": "Creates a folder; changes state but destroys nothing.",
            "inputSchema": object(json!({"name": {"type": "string", "maxLength": 20}}), json!(["name"])),
            "annotations": {"readOnlyHint": false, "destructiveHint": false}
        }),
        behaviour: Behaviour::Fuzz(Bug::Strict),
    });
    list.push(tool(
        "fz_wait",
        "Waits as long as it is told, then answers.",
        object(
            json!({"duration": {
                "type": "number",
                "minimum": 0,
                "maximum": 1.5,
                "default": 1,
                "description": "How long to wait, in seconds"
            }}),
            json!([]),
        ),
        Bug::Wait,
    ));
    list.push(tool(
        "fz_wait_twice",
        "Waits twice as long as it is told, then answers.",
        object(
            json!({"duration": {
                "type": "number",
                "minimum": 0,
                "maximum": 0.5,
                "default": 0.2,
                "description": "How long to wait, in seconds"
            }}),
            json!([]),
        ),
        Bug::WaitTwice,
    ));
    list
}

fn ok(text: String) -> Reply {
    Reply::Result(text_result(text, false))
}

/// Runs one `fz_*` tool. Every tool but `fz_accept` first checks its arguments against its
/// input schema and refuses invalid ones with an error result, so each hides only its own bug.
pub fn call(bug: Bug, schema: &Value, args: &Map<String, Value>) -> Reply {
    if bug != Bug::Accept {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .expect("fz_* schemas compile");
        if let Some(e) = validator.iter_errors(&Value::Object(args.clone())).next() {
            return Reply::Result(text_result(format!("invalid arguments: {e}"), true));
        }
    }
    let str_arg = |k: &str| args.get(k).and_then(Value::as_str);
    match bug {
        Bug::Crash => match args.pointer_in("order", "qty").and_then(Value::as_i64) {
            Some(q) if q < 0 => Reply::Crash("fz_crash: negative quantity, giving up"),
            _ => ok("ordered".into()),
        },
        Bug::Hang | Bug::Stuck => match str_arg("text") {
            Some(t) if t.chars().count() > 40 && bug == Bug::Stuck => Reply::Stuck,
            Some(t) if t.chars().count() > 40 => Reply::Hang,
            Some(_) => ok("stored".into()),
            None => Reply::Result(text_result("`text` must be a string".into(), true)),
        },
        Bug::Accept => ok(format!("accepted {}", Value::Object(args.clone()))),
        Bug::Output => {
            let n = args.get("items").and_then(Value::as_array).map_or(0, Vec::len);
            let count = if n >= 3 { json!("many") } else { json!(n) };
            Reply::Result(json!({
                "content": [{"type": "text", "text": count.to_string()}],
                "structuredContent": {"count": count},
                "isError": false
            }))
        }
        Bug::Reject => match str_arg("name") {
            Some(n) if n.contains(' ') => Reply::Rpc(-32602, "Invalid params: no spaces, please".into()),
            Some(n) => ok(format!("hello {n}")),
            None => Reply::Rpc(-32602, "Invalid params: `name` is required".into()),
        },
        Bug::Internal => {
            let Some(tags) = args.get("tags").and_then(Value::as_array) else {
                return Reply::Rpc(-32602, "Invalid params: `tags` must be an array".into());
            };
            if tags.iter().any(|t| t.get("label").and_then(Value::as_str) == Some("")) {
                Reply::Rpc(-32603, "Internal error: index out of range".into())
            } else {
                ok(format!("{} tags", tags.len()))
            }
        }
        Bug::Traceback => match str_arg("path") {
            Some(p) if p.contains('/') => Reply::Result(text_result(
                "Traceback (most recent call last):\n  File \"server.py\", line 12, in read\nFileNotFoundError: no such file".into(),
                true,
            )),
            Some(_) => ok("read".into()),
            None => Reply::Result(text_result("`path` must be a string".into(), true)),
        },
        Bug::Unexpected => match args.get("n").and_then(Value::as_i64) {
            Some(n) if n % 2 == 0 => ok((n / 2).to_string()),
            Some(_) => Reply::Result(text_result("n must be even".into(), true)),
            None => Reply::Result(text_result("`n` must be an integer".into(), true)),
        },
        Bug::Strict => ok("valid".into()),
        Bug::Wait | Bug::WaitTwice => {
            let default = if bug == Bug::Wait { 1.0 } else { 0.2 };
            let seconds = args.get("duration").and_then(Value::as_f64).unwrap_or(default);
            let factor = if bug == Bug::Wait { 1000.0 } else { 2000.0 };
            let ms = (seconds * factor) as u64;
            Reply::After(ms, text_result(format!("waited {ms} ms"), false))
        }
        Bug::EmptyCrash => match str_arg("city") {
            Some("") => Reply::Crash("fz_weather: KeyError: '' (no such city), giving up"),
            Some(city) => ok(format!("sunny in {city}")),
            None => Reply::Result(text_result("`city` must be a string".into(), true)),
        },
    }
}

trait PointerIn {
    fn pointer_in(&self, outer: &str, inner: &str) -> Option<&Value>;
}

impl PointerIn for Map<String, Value> {
    fn pointer_in(&self, outer: &str, inner: &str) -> Option<&Value> {
        self.get(outer)?.get(inner)
    }
}
