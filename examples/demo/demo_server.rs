//! `demo_server`: the small MCP server the README runs toolproof against. It speaks stdio,
//! both the `initialize` handshake (2025-03-26 to 2025-11-25) and the stateless 2026-07-28
//! revision (`server/discover`, `_meta` on every request), and offers five tools: a unit
//! converter, a calendar helper and a tiny in-memory notebook.
//!
//! `--broken` plants defects so the README can show a failing run. Three are in the tool list,
//! for the static checks and the evals: `delete_note` loses its description, `convert_units`
//! gets an input schema with a misspelt type, and a `show_notes` tool nearly duplicates
//! `list_notes`. The others are in what the tools do, one per kind of failing tool-call test
//! (all of them live in `Demo::planted_bug`):
//!
//! | tool | planted bug | what `broken.yaml` sees |
//! |---|---|---|
//! | `day_of_week` | answers the day after | a wrong value (`equals`) |
//! | `day_of_week` | forgets that 2000 was a leap year | an error where success was expected |
//! | `convert_units` | leaves the unit out of its text | missing text (`contains`) |
//! | `convert_units` | takes a mile for 1.609344 m, not km | a value out of range (`jsonpath`) |
//! | `convert_units` | returns temperatures as strings | an `outputSchema` violation |
//! | `add_note` | says "saved" without the note's number | a regex mismatch |
//! | `add_note` | an empty title writes `panic: empty title` and exits 101 | a crash mid-call |
//! | `delete_note` | "deletes" notes that do not exist | success where an error was expected |
//! | `list_notes` | every second call fails: "the notebook is busy" | a flaky test, passing on retry |
//! | `show_notes` | takes 2 s | latency over `max_latency_ms`, and a timeout |
//!
//! Without `--broken` none of this happens: every tool answers correctly and at once.
//!
//! Build with `cargo build --release` (the `toolproof-demo` package); see `examples/demo/toolproof.yaml` and `broken.yaml`.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use serde_json::{Map, Value, json};

const MODERN: &str = "2026-07-28";
/// The longest note title (`maxLength` in `add_note`'s input schema).
const TITLE_CHARS: usize = 80;
const LEGACY: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// Units `convert_units` knows: (symbol, dimension, factor to the base unit). Temperatures are
/// handled apart because they have offsets.
const UNITS: [(&str, &str, f64); 12] = [
    ("mm", "length", 0.001),
    ("cm", "length", 0.01),
    ("m", "length", 1.0),
    ("km", "length", 1000.0),
    ("in", "length", 0.0254),
    ("ft", "length", 0.3048),
    ("yd", "length", 0.9144),
    ("mi", "length", 1609.344),
    ("g", "mass", 0.001),
    ("kg", "mass", 1.0),
    ("oz", "mass", 0.028_349_523_125),
    ("lb", "mass", 0.453_592_37),
];
const TEMPERATURES: [&str; 3] = ["C", "F", "K"];

struct Note {
    id: u64,
    title: String,
    text: String,
}

struct Demo {
    broken: bool,
    notes: Vec<Note>,
    next_id: u64,
    /// Calls of `list_notes` so far (its broken twin fails every second one).
    list_calls: u64,
    /// The arguments each tool's input schema declares (every schema is closed).
    declared: Vec<(String, Vec<String>)>,
}

/// Weekday names, Sunday first.
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// How long `show_notes` takes in broken mode.
const SLOW: Duration = Duration::from_secs(2);

fn unit_symbols() -> Vec<&'static str> {
    UNITS
        .iter()
        .map(|(s, _, _)| *s)
        .chain(TEMPERATURES)
        .collect()
}

impl Demo {
    fn new(broken: bool) -> Self {
        let mut demo = Demo {
            broken,
            notes: Vec::new(),
            next_id: 1,
            list_calls: 0,
            declared: Vec::new(),
        };
        demo.declared = demo
            .tools()
            .iter()
            .map(|t| {
                let name = t["name"].as_str().unwrap_or_default().to_owned();
                let args = t["inputSchema"]["properties"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                (name, args)
            })
            .collect();
        demo
    }

    fn tools(&self) -> Vec<Value> {
        let units = unit_symbols();
        let value_type = if self.broken { "numbr" } else { "number" };
        let mut tools = vec![
            json!({
                "name": "convert_units",
                "title": "Convert units",
                "description": "Converts a quantity between units of length, mass or temperature, \
                                for example km to mi, kg to lb or C to F.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "value": {"type": value_type, "description": "The quantity to convert."},
                        "from": {"type": "string", "enum": units, "description": "Unit of `value`."},
                        "to": {"type": "string", "enum": units, "description": "Unit wanted."}
                    },
                    "required": ["value", "from", "to"],
                    "additionalProperties": false
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "number", "description": "The converted quantity."},
                        "unit": {"type": "string", "description": "Its unit."}
                    },
                    "required": ["value", "unit"]
                },
                "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
            }),
            json!({
                "name": "day_of_week",
                "title": "Day of the week",
                "description": "Tells which day of the week a calendar date (YYYY-MM-DD) falls on.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                                 "description": "A date such as 2024-02-29."}
                    },
                    "required": ["date"],
                    "additionalProperties": false
                },
                "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
            }),
            json!({
                "name": "add_note",
                "title": "Add a note",
                "description": "Saves a short note in this session's notebook and returns its number.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string", "maxLength": TITLE_CHARS, "description": "A few words."},
                        "text": {"type": "string", "description": "The note itself."}
                    },
                    "required": ["title", "text"],
                    "additionalProperties": false
                },
                "annotations": {"readOnlyHint": false, "destructiveHint": false,
                                "idempotentHint": false, "openWorldHint": false}
            }),
            json!({
                "name": "list_notes",
                "title": "List notes",
                "description": "Shows the number and title of every saved note, oldest first.",
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
                "annotations": {"readOnlyHint": true, "openWorldHint": false}
            }),
            json!({
                "name": "delete_note",
                "title": "Delete a note",
                "description": "Removes one saved note by its number. This cannot be undone.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "minimum": 1, "description": "The note's number."}
                    },
                    "required": ["id"],
                    "additionalProperties": false
                },
                "annotations": {"readOnlyHint": false, "destructiveHint": true,
                                "idempotentHint": true, "openWorldHint": false}
            }),
        ];
        if self.broken {
            if let Some(delete) = tools.last_mut().and_then(Value::as_object_mut) {
                delete.remove("description");
            }
            tools.push(json!({
                "name": "show_notes",
                "description": "Shows the number and title of every saved note, oldest first.",
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
                "annotations": {"readOnlyHint": true, "openWorldHint": false}
            }));
        }
        tools
    }

    fn call(&mut self, name: &str, args: &Map<String, Value>) -> Result<Value, String> {
        if self.broken
            && let Some(answer) = self.planted_bug(name, args)
        {
            return Ok(answer);
        }
        // Every input schema is closed (`additionalProperties: false`): an argument it does not
        // declare is refused, as the schema says.
        let declared = self.declared.iter().find(|(tool, _)| tool == name);
        if let Some(unknown) =
            declared.and_then(|(_, known)| args.keys().find(|k| !known.contains(*k)))
        {
            return Ok(error_result(&format!(
                "{name} takes no argument `{unknown}`"
            )));
        }
        let text = |key: &str| args.get(key).and_then(Value::as_str);
        match name {
            "convert_units" => {
                let value = args.get("value").and_then(Value::as_f64);
                let (Some(value), Some(from), Some(to)) = (value, text("from"), text("to")) else {
                    return Ok(error_result(
                        "convert_units needs a number `value` and units `from` and `to`",
                    ));
                };
                Ok(match convert(value, from, to) {
                    Ok(out) => {
                        let out = (out * 10_000.0).round() / 10_000.0;
                        json!({
                            "content": [{"type": "text", "text": format!("{out} {to}")}],
                            "structuredContent": {"value": out, "unit": to},
                            "isError": false
                        })
                    }
                    Err(why) => error_result(&why),
                })
            }
            "day_of_week" => Ok(match text("date").map(day_of_week) {
                Some(Ok(day)) => text_result(day),
                Some(Err(why)) => error_result(&why),
                None => error_result("day_of_week needs a `date` such as 2024-02-29"),
            }),
            "add_note" => {
                let (Some(title), Some(body)) = (text("title"), text("text")) else {
                    return Ok(error_result("add_note needs a `title` and a `text`"));
                };
                if title.chars().count() > TITLE_CHARS {
                    return Ok(error_result(&format!(
                        "a title has at most {TITLE_CHARS} characters"
                    )));
                }
                let id = self.save(title, body);
                Ok(text_result(&format!("saved as note {id}")))
            }
            "list_notes" | "show_notes" if name == "list_notes" || self.broken => {
                if self.notes.is_empty() {
                    return Ok(text_result("the notebook is empty"));
                }
                let lines: Vec<String> = self
                    .notes
                    .iter()
                    .map(|n| {
                        format!(
                            "{}. {} ({} characters)",
                            n.id,
                            n.title,
                            n.text.chars().count()
                        )
                    })
                    .collect();
                Ok(text_result(&lines.join("\n")))
            }
            "delete_note" => {
                let Some(id) = args.get("id").and_then(Value::as_u64) else {
                    return Ok(error_result("delete_note needs a note number `id`"));
                };
                let before = self.notes.len();
                self.notes.retain(|n| n.id != id);
                Ok(if self.notes.len() < before {
                    text_result(&format!("deleted note {id}"))
                } else {
                    error_result(&format!("there is no note {id}"))
                })
            }
            _ => Err(format!("Unknown tool: {name}")),
        }
    }

    /// Saves a note and returns its number.
    fn save(&mut self, title: &str, text: &str) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.notes.push(Note {
            id,
            title: title.to_owned(),
            text: text.to_owned(),
        });
        id
    }

    /// The behavioural bugs of `--broken`: the wrong answer when a call hits one of them,
    /// `None` when it should be answered as in the good mode.
    fn planted_bug(&mut self, name: &str, args: &Map<String, Value>) -> Option<Value> {
        let text = |key: &str| args.get(key).and_then(Value::as_str);
        match name {
            "day_of_week" => {
                let date = text("date")?;
                // The leap-year rule without its 400-year exception: 2000-02-29 "does not exist".
                let year = date.get(..4).and_then(|y| y.parse::<u32>().ok())?;
                if date.ends_with("-02-29") && year.is_multiple_of(100) {
                    return Some(error_result(&format!(
                        "{date} is not a day of the calendar"
                    )));
                }
                // Off by one: the day after.
                let day = day_of_week(date).ok()?;
                let next = WEEKDAYS
                    .iter()
                    .position(|d| *d == day)
                    .map(|i| (i + 1) % 7)?;
                Some(text_result(WEEKDAYS[next]))
            }
            "convert_units" => {
                let value = args.get("value").and_then(Value::as_f64)?;
                let (from, to) = (text("from")?, text("to")?);
                let mut out = convert(value, from, to).ok()?;
                if to == "mi" {
                    // A mile taken as 1.609344 metres instead of kilometres.
                    out *= 1000.0;
                }
                let out = (out * 10_000.0).round() / 10_000.0;
                // Temperatures come back as text, against the tool's own outputSchema.
                let value = if TEMPERATURES.contains(&to) {
                    json!(out.to_string())
                } else {
                    json!(out)
                };
                Some(json!({
                    // The text forgets the unit.
                    "content": [{"type": "text", "text": out.to_string()}],
                    "structuredContent": {"value": value, "unit": to},
                    "isError": false
                }))
            }
            "add_note" => {
                let (title, body) = (text("title")?, text("text")?);
                if title.is_empty() {
                    // A crash: the client sees the process die in the middle of the call.
                    eprintln!("panic: empty title");
                    std::process::exit(101);
                }
                self.save(title, body);
                // The reply leaves out the note's number.
                Some(text_result("saved"))
            }
            "delete_note" => {
                let id = args.get("id").and_then(Value::as_u64)?;
                // Success for a note that does not exist.
                let missing = self.notes.iter().all(|n| n.id != id);
                missing.then(|| text_result(&format!("deleted note {id}")))
            }
            "list_notes" => {
                // Flaky: every second call fails.
                self.list_calls += 1;
                self.list_calls
                    .is_multiple_of(2)
                    .then(|| error_result("the notebook is busy, try again"))
            }
            "show_notes" => {
                // Slow, then correct.
                std::thread::sleep(SLOW);
                None
            }
            _ => None,
        }
    }
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

fn error_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

fn convert(value: f64, from: &str, to: &str) -> Result<f64, String> {
    if TEMPERATURES.contains(&from) && TEMPERATURES.contains(&to) {
        let celsius = match from {
            "F" => (value - 32.0) * 5.0 / 9.0,
            "K" => value - 273.15,
            _ => value,
        };
        return Ok(match to {
            "F" => celsius * 9.0 / 5.0 + 32.0,
            "K" => celsius + 273.15,
            _ => celsius,
        });
    }
    let find = |u: &str| UNITS.iter().find(|(s, _, _)| *s == u);
    let dimension = |u: &str| match find(u) {
        Some((_, d, _)) => Ok(*d),
        None if TEMPERATURES.contains(&u) => Ok("temperature"),
        None => Err(format!(
            "unknown unit `{u}`; known units: {}",
            unit_symbols().join(", ")
        )),
    };
    let (df, dt) = (dimension(from)?, dimension(to)?);
    match (find(from), find(to)) {
        (Some((_, _, f)), Some((_, _, t))) if df == dt => Ok(value * f / t),
        _ => Err(format!("cannot convert {df} ({from}) to {dt} ({to})")),
    }
}

/// The weekday of a `YYYY-MM-DD` date (proleptic Gregorian calendar).
fn day_of_week(date: &str) -> Result<&'static str, String> {
    let bad = || format!("`{date}` is not a date of the form YYYY-MM-DD");
    let mut parts = date.split('-');
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return Err(bad());
    }
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<i64>(), m.parse::<usize>(), d.parse::<i64>()) else {
        return Err(bad());
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in_month = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month[m - 1] {
        return Err(format!("{date} is not a day of the calendar"));
    }
    // Sakamoto's method: 0 = Sunday.
    const OFFSETS: [i64; 12] = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];
    let y = if m < 3 { y - 1 } else { y };
    let w = (y + y / 4 - y / 100 + y / 400 + OFFSETS[m - 1] + d).rem_euclid(7);
    Ok(WEEKDAYS[w as usize])
}

fn send(msg: &Value) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{msg}")?;
    out.flush()
}

fn error(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn capabilities() -> Value {
    json!({"tools": {"listChanged": false}})
}

fn server_info() -> Value {
    json!({"name": "toolproof-demo", "version": env!("CARGO_PKG_VERSION")})
}

/// Answers one request; `Err` is a JSON-RPC error (code, message, data).
fn answer(
    demo: &mut Demo,
    method: &str,
    params: &Value,
) -> Result<Value, (i64, String, Option<Value>)> {
    let meta_version = params
        .get("_meta")
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    let modern = meta_version.is_some();
    if let Some(v) = meta_version
        && v != MODERN
    {
        let data = json!({"supported": [MODERN], "requested": v});
        return Err((-32022, "Unsupported protocol version".into(), Some(data)));
    }
    let mut result = match method {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str);
            let version = asked.filter(|v| LEGACY.contains(v)).unwrap_or(LEGACY[2]);
            return Ok(json!({
                "protocolVersion": version,
                "capabilities": capabilities(),
                "serverInfo": server_info(),
                "instructions": "Unit conversions, weekdays and a small notebook."
            }));
        }
        "server/discover" => {
            if !modern {
                let data = json!({"supported": [MODERN], "requested": Value::Null});
                return Err((-32022, "Unsupported protocol version".into(), Some(data)));
            }
            return Ok(json!({
                "resultType": "complete",
                "supportedVersions": [MODERN],
                "capabilities": capabilities(),
                "instructions": "Unit conversions, weekdays and a small notebook.",
                "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
                "ttlMs": 3_600_000,
                "cacheScope": "public"
            }));
        }
        "ping" if !modern => json!({}),
        "tools/list" => json!({"tools": demo.tools()}),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or("");
            let empty = Map::new();
            let args = params
                .get("arguments")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            demo.call(name, args).map_err(|e| (-32602, e, None))?
        }
        _ => return Err((-32601, format!("Method not found: {method}"), None)),
    };
    if modern && let Some(obj) = result.as_object_mut() {
        obj.insert("resultType".into(), json!("complete"));
        if method == "tools/list" {
            obj.insert("ttlMs".into(), json!(3_600_000));
            obj.insert("cacheScope".into(), json!("public"));
        }
    }
    Ok(result)
}

fn main() {
    let mut demo = Demo::new(false);
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--broken" => demo.broken = true,
            "-h" | "--help" => {
                println!(
                    "demo_server [--broken]: a small MCP server on stdio for toolproof's README"
                );
                return;
            }
            other => {
                eprintln!(
                    "demo_server: error: unknown option `{other}`\nhint: the only option is --broken"
                );
                std::process::exit(2);
            }
        }
    }
    let stdin = io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Value>(&line) {
            Err(e) => Some(error(
                &Value::Null,
                -32700,
                &format!("Parse error: {e}"),
                None,
            )),
            Ok(msg) => {
                let id = msg.get("id").cloned();
                let method = msg.get("method").and_then(Value::as_str);
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                match (id, method) {
                    // Notifications (notifications/initialized, cancellations) need no answer.
                    (None, Some(_)) => None,
                    (Some(id), Some(method)) => Some(match answer(&mut demo, method, &params) {
                        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                        Err((code, message, data)) => error(&id, code, &message, data),
                    }),
                    // Answers to requests we never send.
                    (Some(_), None)
                        if msg.get("result").is_some() || msg.get("error").is_some() =>
                    {
                        None
                    }
                    (id, None) => Some(error(
                        &id.unwrap_or(Value::Null),
                        -32600,
                        "Invalid Request",
                        None,
                    )),
                }
            }
        };
        if let Some(reply) = reply
            && send(&reply).is_err()
        {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_units() {
        assert_eq!(convert(100.0, "C", "F"), Ok(212.0));
        assert!(convert(10.0, "km", "mi").is_ok_and(|v| (v - 6.213_711_9).abs() < 1e-6));
        assert!(convert(1.0, "kg", "km").is_err_and(|e| e.contains("cannot convert mass")));
        assert!(convert(1.0, "C", "kg").is_err());
        assert!(convert(1.0, "parsec", "m").is_err_and(|e| e.contains("unknown unit")));
    }

    #[test]
    fn knows_the_weekday() {
        assert_eq!(day_of_week("2024-02-29"), Ok("Thursday"));
        assert_eq!(day_of_week("2000-01-01"), Ok("Saturday"));
        assert_eq!(day_of_week("1970-01-01"), Ok("Thursday"));
        assert!(day_of_week("2023-02-29").is_err());
        assert!(day_of_week("2024-2-9").is_err());
    }

    #[test]
    fn broken_mode_plants_three_defects() {
        let good = Demo::new(false).tools();
        let bad = Demo::new(true).tools();
        assert_eq!(good.len(), 5);
        assert_eq!(bad.len(), 6);
        assert!(good.iter().all(|t| t.get("description").is_some()));
        assert!(bad[4].get("description").is_none());
        assert_eq!(
            bad[0]["inputSchema"]["properties"]["value"]["type"],
            "numbr"
        );
        assert_eq!(bad[3]["description"], bad[5]["description"]);
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    /// The text of a call's answer, and whether it is an error result.
    fn ask(demo: &mut Demo, tool: &str, a: Value) -> (String, bool) {
        let out = demo.call(tool, &args(a)).unwrap_or_else(|e| panic!("{e}"));
        let text = out["content"][0]["text"].as_str().unwrap_or("").to_owned();
        (text, out["isError"] == true)
    }

    #[test]
    fn broken_mode_plants_behavioural_bugs_the_good_mode_does_not_have() {
        let mut good = Demo::new(false);
        let mut bad = Demo::new(true);
        let leap = json!({"date": "2024-02-29"});
        assert_eq!(ask(&mut good, "day_of_week", leap.clone()).0, "Thursday");
        assert_eq!(ask(&mut bad, "day_of_week", leap).0, "Friday");
        let y2k = json!({"date": "2000-02-29"});
        assert_eq!(
            ask(&mut good, "day_of_week", y2k.clone()),
            ("Tuesday".into(), false)
        );
        assert!(ask(&mut bad, "day_of_week", y2k).1);

        let km = args(json!({"value": 10, "from": "km", "to": "mi"}));
        let right = good.call("convert_units", &km).unwrap_or_default();
        let wrong = bad.call("convert_units", &km).unwrap_or_default();
        assert_eq!(right["content"][0]["text"], "6.2137 mi");
        assert_eq!(right["structuredContent"]["value"], 6.2137);
        assert_eq!(wrong["content"][0]["text"], "6213.7119");
        assert_eq!(wrong["structuredContent"]["value"], 6213.7119);
        let boil = args(json!({"value": 100, "from": "C", "to": "F"}));
        assert_eq!(
            good.call("convert_units", &boil).unwrap_or_default()["structuredContent"]["value"],
            212.0
        );
        assert_eq!(
            bad.call("convert_units", &boil).unwrap_or_default()["structuredContent"]["value"],
            "212"
        );
        let mixed = json!({"value": 1, "from": "kg", "to": "km"});
        assert_eq!(
            ask(&mut good, "convert_units", mixed.clone()),
            ask(&mut bad, "convert_units", mixed)
        );

        let note = json!({"title": "groceries", "text": "eggs"});
        assert_eq!(
            ask(&mut good, "add_note", note.clone()).0,
            "saved as note 1"
        );
        assert_eq!(ask(&mut bad, "add_note", note).0, "saved");
        let missing = json!({"id": 999});
        assert!(ask(&mut good, "delete_note", missing.clone()).1);
        assert_eq!(
            ask(&mut bad, "delete_note", missing),
            ("deleted note 999".into(), false)
        );

        let busy: Vec<bool> = (0..4)
            .map(|_| ask(&mut bad, "list_notes", json!({})).1)
            .collect();
        assert_eq!(busy, [false, true, false, true]);
        assert!((0..4).all(|_| !ask(&mut good, "list_notes", json!({})).1));
    }
}
