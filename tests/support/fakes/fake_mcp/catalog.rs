//! What the fake server offers: the tool list (default tools, generated tools and the tools each
//! fault plants), the one resource and the one prompt, and what calling each tool does.

use serde_json::{Map, Value, json};

use crate::opts::{Fault, Options};

/// What happens when a tool is called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Behaviour {
    /// Returns `text` unchanged (10 MiB of text under `huge-result`).
    Echo,
    /// Adds the integers `a` and `b`; text plus `structuredContent {result}`.
    Add,
    /// Always an `isError` result.
    Fail,
    /// Sleeps `ms` milliseconds, then answers.
    Slow,
    /// Writes to stderr and exits with status 3.
    Crash,
    /// Returns structured content that breaks its own outputSchema.
    WrongStructured,
    /// Answers `<name> ok` with the arguments echoed.
    Plain,
    /// Fails on the 1st, 3rd, 5th… call and succeeds on the others.
    Flaky,
    /// Answers `[{'1': 1}]` to `SELECT 1`, and its errors with `isError` false.
    ErrorAsSuccess,
    /// One of the `fz_*` tools (fault `fuzz-targets`).
    Fuzz(crate::fuzz_targets::Bug),
    /// Asks the client during the call (fault `client-requests`).
    AsksClient,
}

/// Calls of the `flaky` tool so far in this process.
static FLAKY_CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// One tool: its wire definition and its behaviour.
#[derive(Debug, Clone)]
pub struct ToolEntry {
    /// The object sent in `tools/list`.
    pub def: Value,
    /// What a call does.
    pub behaviour: Behaviour,
}

/// Size of the text `echo` returns under the `huge-result` fault.
pub const HUGE_RESULT_BYTES: usize = 10 * 1024 * 1024;

/// Longest sleep `slow` accepts, in milliseconds.
const MAX_SLOW_MS: u64 = 600_000;

/// Builds the whole tool list, in the order `tools/list` returns it.
pub fn tools(opts: &Options) -> Vec<ToolEntry> {
    if let Some(listed) = opts.surface.as_ref().and_then(|s| s.get("tools")) {
        let defs = listed.as_array().cloned().unwrap_or_default();
        return defs
            .into_iter()
            .map(|d| entry(d, Behaviour::Echo))
            .collect();
    }
    let mut list = default_tools();
    for i in 1..=opts.extra_tools {
        list.push(generated_tool(i));
    }
    for fault in &opts.faults {
        list.extend(fault_tools(*fault));
    }
    list
}

fn entry(def: Value, behaviour: Behaviour) -> ToolEntry {
    ToolEntry { def, behaviour }
}

fn no_args() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

fn default_tools() -> Vec<ToolEntry> {
    vec![
        entry(
            json!({
                "name": "echo",
                "title": "Echo",
                "description": "Returns the text it is given, unchanged.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"text": {"type": "string", "description": "Text to send back."}},
                    "required": ["text"],
                    "additionalProperties": false
                },
                "annotations": {"readOnlyHint": true, "openWorldHint": false}
            }),
            Behaviour::Echo,
        ),
        entry(
            json!({
                "name": "add",
                "title": "Add",
                "description": "Adds two integers and reports their sum.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "integer", "description": "First addend."},
                        "b": {"type": "integer", "description": "Second addend."}
                    },
                    "required": ["a", "b"],
                    "additionalProperties": false
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {"result": {"type": "integer"}},
                    "required": ["result"]
                },
                "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
            }),
            Behaviour::Add,
        ),
        entry(
            json!({
                "name": "fail",
                "description": "Always answers with an error result, to exercise isError handling.",
                "inputSchema": no_args(),
                "annotations": {"readOnlyHint": true, "openWorldHint": false}
            }),
            Behaviour::Fail,
        ),
        entry(
            json!({
                "name": "slow",
                "description": "Waits the given number of milliseconds before it replies.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "ms": {"type": "integer", "minimum": 0, "maximum": MAX_SLOW_MS,
                               "description": "How long to wait."}
                    },
                    "required": ["ms"],
                    "additionalProperties": false
                },
                "annotations": {"readOnlyHint": true, "openWorldHint": false}
            }),
            Behaviour::Slow,
        ),
        entry(
            json!({
                "name": "crash",
                "description": "Kills the server process with exit status 3 to simulate a crash.",
                "inputSchema": no_args(),
                "annotations": {"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false}
            }),
            Behaviour::Crash,
        ),
    ]
}

const VERBS: [&str; 23] = [
    "Counts",
    "Lists",
    "Archives",
    "Validates",
    "Exports",
    "Summarises",
    "Renames",
    "Schedules",
    "Measures",
    "Translates",
    "Indexes",
    "Compresses",
    "Audits",
    "Forecasts",
    "Merges",
    "Ranks",
    "Tags",
    "Imports",
    "Locks",
    "Restores",
    "Signs",
    "Plots",
    "Deduplicates",
];
const NOUNS: [&str; 29] = [
    "invoices",
    "photos",
    "tickets",
    "orders",
    "sensors",
    "contracts",
    "playlists",
    "recipes",
    "vehicles",
    "shipments",
    "patients",
    "lessons",
    "repositories",
    "budgets",
    "satellites",
    "greenhouses",
    "turbines",
    "libraries",
    "parcels",
    "glaciers",
    "vaccines",
    "telescopes",
    "orchards",
    "bridges",
    "harbours",
    "volcanoes",
    "beehives",
    "vineyards",
    "lighthouses",
];
const PLACES: [&str; 31] = [
    "Oslo", "Lagos", "Quito", "Hanoi", "Perth", "Tunis", "Bergen", "Cusco", "Dakar", "Kyoto",
    "Malmo", "Nairobi", "Porto", "Riga", "Sapporo", "Tbilisi", "Utrecht", "Valencia", "Windhoek",
    "Yerevan", "Zagreb", "Accra", "Brno", "Cork", "Durban", "Essen", "Fukuoka", "Galway", "Hobart",
    "Izmir", "Jaipur",
];

/// `tool_NNNN`: a short description made of a verb, a noun and a place picked so that no two
/// tools below 20,677 share all three.
fn generated_tool(i: usize) -> ToolEntry {
    let verb = VERBS[i % VERBS.len()];
    let noun = NOUNS[(i * 7) % NOUNS.len()];
    let place = PLACES[(i * 11) % PLACES.len()];
    entry(
        json!({
            "name": format!("tool_{i:04}"),
            "description": format!("{verb} {noun} in {place}."),
            "inputSchema": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "What to look for."}},
                "required": ["query"]
            },
            "annotations": {"readOnlyHint": true}
        }),
        Behaviour::Plain,
    )
}

/// A deterministic pseudo-word generator, so that bulky descriptions share almost no words or
/// letter runs (they must trip the size check and nothing else).
struct Babble(u64);

impl Babble {
    fn next(&mut self) -> u64 {
        // xorshift64
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn word(&mut self) -> String {
        const CONSONANTS: &[u8] = b"bcdfghjklmnprstvwz";
        const VOWELS: &[u8] = b"aeiou";
        let syllables = 2 + (self.next() % 3) as usize;
        let mut w = String::new();
        for _ in 0..syllables {
            w.push(CONSONANTS[(self.next() % CONSONANTS.len() as u64) as usize] as char);
            w.push(VOWELS[(self.next() % VOWELS.len() as u64) as usize] as char);
        }
        w
    }

    fn sentence_of(&mut self, max_chars: usize) -> String {
        let mut s = String::new();
        while s.len() + 12 < max_chars {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&self.word());
        }
        s.push('.');
        s
    }
}

fn bulky_tool(i: u64) -> ToolEntry {
    let mut b = Babble(0x9E37_79B9_7F4A_7C15 ^ (i.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1));
    let mut properties = Map::new();
    let mut required = Vec::new();
    for _ in 0..20 {
        let key = b.word();
        properties.insert(
            key.clone(),
            json!({"type": "string", "description": b.sentence_of(90)}),
        );
        required.push(Value::String(key));
    }
    entry(
        json!({
            "name": format!("bulk_{i:02}"),
            "description": b.sentence_of(800),
            "inputSchema": {"type": "object", "properties": properties, "required": required}
        }),
        Behaviour::Plain,
    )
}

/// The tools a fault adds to the list; faults that change behaviour rather than the list add
/// nothing.
fn fault_tools(fault: Fault) -> Vec<ToolEntry> {
    let string_arg = |name: &str| {
        json!({
            "type": "object",
            "properties": {name: {"type": "string", "description": "Input value."}},
            "required": [name]
        })
    };
    let plain = |def: Value| vec![entry(def, Behaviour::Plain)];
    let plain_all = |defs: Vec<Value>| -> Vec<ToolEntry> {
        defs.into_iter()
            .map(|d| entry(d, Behaviour::Plain))
            .collect()
    };
    match fault {
        Fault::NoDescription => plain(json!({
            "name": "undocumented",
            "inputSchema": string_arg("value")
        })),
        Fault::LongDescription => plain(json!({
            "name": "verbose",
            "description": "Explains itself at far too much length. ".repeat(40),
            "inputSchema": string_arg("value")
        })),
        Fault::BadInputSchema => plain(json!({
            "name": "bad_schema",
            "description": "Takes a query whose schema names a type that does not exist.",
            "inputSchema": {
                "type": "object",
                "properties": {"query": {"type": "strng"}},
                "required": ["query"]
            }
        })),
        Fault::NoInputSchema => plain(json!({
            "name": "no_schema",
            "description": "Lists no input schema at all."
        })),
        Fault::NonObjectSchema => plain(json!({
            "name": "array_schema",
            "description": "Declares an array as its input schema instead of an object.",
            "inputSchema": {"type": "array", "items": {"type": "string"}}
        })),
        Fault::RequiredMissing => plain(json!({
            "name": "required_missing",
            "description": "Requires a field that its schema never defines.",
            "inputSchema": {
                "type": "object",
                "properties": {"present": {"type": "string"}},
                "required": ["present", "absent"]
            }
        })),
        Fault::NoRequired => plain(json!({
            "name": "nothing_required",
            "description": "Has properties but marks none of them as required.",
            "inputSchema": {
                "type": "object",
                "properties": {"optional": {"type": "string"}}
            }
        })),
        Fault::BadOutputSchema => plain(json!({
            "name": "bad_output",
            "description": "Declares an output schema with a misspelt type.",
            "inputSchema": string_arg("value"),
            "outputSchema": {
                "type": "object",
                "properties": {"count": {"type": "integr"}}
            }
        })),
        Fault::DuplicateName => plain(json!({
            "name": "echo",
            "description": "A second tool that reuses the name of an existing one.",
            "inputSchema": string_arg("text")
        })),
        Fault::BadName => plain(json!({
            "name": "bad name/with slash",
            "description": "Has a space and a slash in its name.",
            "inputSchema": string_arg("value")
        })),
        Fault::LongName => plain(json!({
            "name": "a_tool_name_that_goes_on_and_on_well_past_what_model_apis_accept_xyz12",
            "description": "Has a seventy-character name.",
            "inputSchema": string_arg("value")
        })),
        Fault::ContradictoryAnnotations => plain(json!({
            "name": "wipe_cache",
            "description": "Claims to be read-only and destructive at the same time.",
            "inputSchema": no_args(),
            "annotations": {"readOnlyHint": true, "destructiveHint": true}
        })),
        Fault::OrderTools => {
            let schema = json!({
                "type": "object",
                "properties": {"order_id": {"type": "string", "description": "The order number."}},
                "required": ["order_id"]
            });
            vec![
                entry(
                    json!({
                        "name": "get_order",
                        "description": "Look up an order: its status and items.",
                        "inputSchema": schema.clone()
                    }),
                    Behaviour::Plain,
                ),
                entry(
                    json!({
                        "name": "cancel_order",
                        "description": "Cancel an order that has not shipped yet.",
                        "inputSchema": schema
                    }),
                    Behaviour::Plain,
                ),
            ]
        }
        Fault::SimilarTools => {
            let schema = json!({
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name."}},
                "required": ["city"]
            });
            vec![
                entry(
                    json!({
                        "name": "get_weather",
                        "description": "Get the current weather for a city: temperature, wind and conditions.",
                        "inputSchema": schema.clone()
                    }),
                    Behaviour::Plain,
                ),
                entry(
                    json!({
                        "name": "fetch_weather",
                        "description": "Fetch the current weather for a city: temperature, wind and conditions.",
                        "inputSchema": schema
                    }),
                    Behaviour::Plain,
                ),
            ]
        }
        Fault::HugeToolList => (1..=40).map(bulky_tool).collect(),
        Fault::Draft07Schema => plain(json!({
            "name": "draft07_point",
            "description": "Takes a point as a two-number tuple, written in JSON Schema draft-07.",
            "inputSchema": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {
                    "point": {
                        "type": "array",
                        "description": "The point as [x, y].",
                        "items": [{"type": "number"}, {"type": "number"}],
                        "additionalItems": false
                    }
                },
                "required": ["point"],
                "definitions": {"unused": {"type": "string"}}
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        })),
        Fault::WrongStructured => vec![entry(
            json!({
                "name": "wrong_structured",
                "description": "Promises an integer count but returns it as a string.",
                "inputSchema": no_args(),
                "outputSchema": {
                    "type": "object",
                    "properties": {"count": {"type": "integer"}},
                    "required": ["count"]
                }
            }),
            Behaviour::WrongStructured,
        )],
        Fault::Flaky => vec![entry(
            json!({
                "name": "flaky",
                "description": "Fails every other call: the first, the third, and so on.",
                "inputSchema": no_args()
            }),
            Behaviour::Flaky,
        )],
        Fault::ErrorAsSuccess => vec![entry(
            json!({
                "name": "read_query",
                "description": "Runs a SELECT query on the database and returns the rows.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"query": {"type": "string", "description": "The SELECT query."}},
                    "required": ["query"]
                },
                "annotations": {"readOnlyHint": true, "openWorldHint": false}
            }),
            Behaviour::ErrorAsSuccess,
        )],
        Fault::FuzzTargets => crate::fuzz_targets::tools(),
        Fault::HostileSchemas => plain_all(crate::hostile::schema_tools()),
        Fault::ClientCompat => plain_all(crate::client_compat::tools()),
        Fault::ClientRequests => crate::asking::tools(),
        _ => Vec::new(),
    }
}

/// The one resource offered under `--resources`.
pub fn resource() -> Value {
    json!({
        "uri": "fake://readme",
        "name": "readme",
        "title": "Read me",
        "description": "A short text resource served by the fake server.",
        "mimeType": "text/plain"
    })
}

/// The text of [`resource`].
pub const RESOURCE_TEXT: &str = "This is the fake server's only resource.";

/// The one prompt offered under `--prompts`.
pub fn prompt() -> Value {
    json!({
        "name": "greet",
        "description": "Writes a friendly greeting for someone.",
        "arguments": [{"name": "who", "description": "Who to greet.", "required": true}]
    })
}

/// What a finished call produced: a `CallToolResult` object.
pub fn text_result(text: String, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": is_error})
}

/// How long `slow` should sleep, or the error result for bad arguments.
pub fn slow_millis(args: &Map<String, Value>) -> Result<u64, Value> {
    match args.get("ms").and_then(Value::as_u64) {
        Some(ms) if ms <= MAX_SLOW_MS => Ok(ms),
        _ => Err(text_result(
            format!("argument `ms` must be an integer from 0 to {MAX_SLOW_MS}"),
            true,
        )),
    }
}

/// Runs a tool that answers at once. `Slow` and `Crash` are handled by the caller.
pub fn call_now(tool: &ToolEntry, args: &Map<String, Value>, huge_result: bool) -> Value {
    let name = tool.def.get("name").and_then(Value::as_str).unwrap_or("");
    match tool.behaviour {
        Behaviour::Echo => match args.get("text").and_then(Value::as_str) {
            Some(_) if huge_result => text_result("x".repeat(HUGE_RESULT_BYTES), false),
            Some(text) => text_result(text.to_owned(), false),
            None => text_result("argument `text` must be a string".to_owned(), true),
        },
        Behaviour::Add => {
            let a = args.get("a").and_then(Value::as_i64);
            let b = args.get("b").and_then(Value::as_i64);
            match (a, b) {
                (Some(a), Some(b)) => match a.checked_add(b) {
                    Some(sum) => json!({
                        "content": [{"type": "text", "text": sum.to_string()}],
                        "structuredContent": {"result": sum},
                        "isError": false
                    }),
                    None => text_result("the sum does not fit in 64 bits".to_owned(), true),
                },
                _ => text_result("arguments `a` and `b` must be integers".to_owned(), true),
            }
        }
        Behaviour::Fail => text_result("this tool always fails".to_owned(), true),
        Behaviour::Flaky => {
            let n = FLAKY_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            if n % 2 == 1 {
                text_result(format!("flaky: call {n} fails"), true)
            } else {
                text_result(format!("flaky: call {n} works"), false)
            }
        }
        Behaviour::ErrorAsSuccess => {
            let query = args.get("query").and_then(Value::as_str).unwrap_or("");
            let text = if query.trim().eq_ignore_ascii_case("select 1") {
                "[{'1': 1}]".to_owned()
            } else if query
                .trim_start()
                .to_ascii_lowercase()
                .starts_with("select")
            {
                format!("Database error: near {:?}: syntax error", query.trim())
            } else {
                "Error: Only SELECT queries are allowed for read_query".to_owned()
            };
            text_result(text, false)
        }
        Behaviour::WrongStructured => json!({
            "content": [{"type": "text", "text": "{\"count\": \"three\"}"}],
            "structuredContent": {"count": "three"},
            "isError": false
        }),
        Behaviour::Plain
        | Behaviour::Slow
        | Behaviour::Crash
        | Behaviour::Fuzz(_)
        | Behaviour::AsksClient => {
            text_result(format!("{name} ok: {}", Value::Object(args.clone())), false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn names(list: &[ToolEntry]) -> Vec<String> {
        list.iter()
            .map(|t| t.def["name"].as_str().unwrap_or("").to_owned())
            .collect()
    }

    #[test]
    fn default_list_has_unique_names_and_descriptions() {
        let list = tools(&Options::default());
        let n = names(&list);
        assert_eq!(n, ["echo", "add", "fail", "slow", "crash"]);
        let descriptions: HashSet<_> = list.iter().map(|t| t.def["description"].clone()).collect();
        assert_eq!(descriptions.len(), list.len());
    }

    #[test]
    fn generated_tools_are_distinct() {
        let opts = Options {
            extra_tools: 2000,
            ..Options::default()
        };
        let list = tools(&opts);
        let descriptions: HashSet<_> = list.iter().map(|t| t.def["description"].clone()).collect();
        assert_eq!(list.len(), 2005);
        assert_eq!(descriptions.len(), 2005);
        assert_eq!(list[5].def["name"], "tool_0001");
    }

    #[test]
    fn huge_tool_list_is_large() {
        let opts = Options {
            faults: vec![Fault::HugeToolList],
            ..Options::default()
        };
        let size: usize = tools(&opts).iter().map(|t| t.def.to_string().len()).sum();
        assert!(size > 100_000, "only {size} bytes");
        for t in tools(&opts) {
            let d = t.def["description"].as_str().unwrap_or("").len();
            assert!(d < 1024, "description of {} is {d} long", t.def["name"]);
        }
    }

    #[test]
    fn fault_tools_have_the_promised_shape() {
        let opts = Options {
            faults: vec![Fault::LongName, Fault::LongDescription, Fault::BadName],
            ..Options::default()
        };
        let list = tools(&opts);
        assert_eq!(list[5].def["name"].as_str().map(str::len), Some(70));
        let long = list[6].def["description"]
            .as_str()
            .unwrap_or("")
            .trim()
            .len();
        assert!(long > 1024, "{long}");
        assert_eq!(list[7].def["name"], "bad name/with slash");
    }

    #[test]
    fn add_overflow_is_an_error_result() {
        let add = &default_tools()[1];
        let mut args = Map::new();
        args.insert("a".into(), json!(i64::MAX));
        args.insert("b".into(), json!(1));
        assert_eq!(call_now(add, &args, false)["isError"], true);
        args.insert("b".into(), json!(-1));
        assert_eq!(
            call_now(add, &args, false)["structuredContent"]["result"],
            i64::MAX - 1
        );
    }
}
