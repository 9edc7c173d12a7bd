//! `demo_picker`: a deterministic stand-in for a model, so the README's demo runs toolproof's
//! tool-selection evals with no API key and no network. Real runs use `provider: anthropic` or
//! `provider: openai`; this is a program for `provider: command`, which works the same way for
//! your own agent or model wrapper.
//!
//! toolproof writes one JSON request on stdin:
//! `{"model": "", "system": null, "prompt": "...", "tools": [{"name", "description", "input_schema"}]}`
//! and reads the choice from stdout: `{"tool": "delete_note", "args": {"id": 3}}` or `{"tool": null}`.
//!
//! How it "thinks":
//! - Words are lowercased, split on anything that is not a letter or digit, stopwords dropped and
//!   simple plurals folded (`notes` → `note`).
//! - Each tool scores 2 per prompt word in its name, 1 per word in its description and 1 per
//!   prompt word that is one of its enum values (`km`, `Fahrenheit` → `F`). The best score of at
//!   least 2 wins; a tie goes to the tool listed first. Below 2 it calls nothing ("thanks!").
//! - Arguments come from the prompt, led by the chosen tool's input schema: numbers for `number`
//!   and `integer` properties, enum values in the order they appear, a `YYYY-MM-DD` date for a
//!   date property, quoted text or the words after "titled"/"called" for a `title` or `name`, and
//!   the text after a colon for any other string.
//! - When a required argument is nowhere in the prompt it calls nothing, as a careful model asks
//!   rather than guesses ("delete it": which note?), unless the conversation before the prompt
//!   (the request's `context`, see below) mentions a number: then the last number said there
//!   fills it ("delete it" after "what is in note 7?" deletes note 7).
//!
//! A case with `context:` adds the earlier turns to the request:
//! `"context": [{"user": "..."}, {"call": "list_notes", "args": {}, "result": "..."}, {"assistant": "..."}]`.
//!
//! A request with `"task": "rewrite_description"` comes from `toolproof tune` instead: the demo's
//! stand-in rewriter answers it (see `rewrite.rs`).
//!
//! Build with `cargo build --release` (the `toolproof-demo` package); `examples/demo/toolproof.yaml` runs it.

mod rewrite;

use std::io::Read;

use serde_json::{Map, Value, json};

/// Words that say nothing about which tool is meant.
const STOPWORDS: [&str; 40] = [
    "a", "all", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "have", "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "please",
    "s", "t", "that", "the", "this", "to", "was", "what", "which", "will", "with", "you",
];

/// Lowercased words of `text`, without stopwords, plurals folded.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(&w.as_str()))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if w.len() > 3 && !["ss", "us", "is"].iter().any(|e| w.ends_with(e)) => {
                stem.to_owned()
            }
            _ => w,
        })
        .collect()
}

/// The enum value a prompt word stands for: the value itself, or a unit spelled out.
fn enum_value<'a>(raw: &str, values: &'a [Value]) -> Option<&'a str> {
    let spelled = match raw.to_lowercase().as_str() {
        "kilometre" | "kilometres" | "kilometer" | "kilometers" => "km",
        "metre" | "metres" | "meter" | "meters" => "m",
        "mile" | "miles" => "mi",
        "inch" | "inches" => "in",
        "foot" | "feet" => "ft",
        "kilogram" | "kilograms" | "kilo" | "kilos" => "kg",
        "pound" | "pounds" | "lbs" => "lb",
        "celsius" => "C",
        "fahrenheit" => "F",
        "kelvin" => "K",
        _ if STOPWORDS.contains(&raw) => return None,
        _ => raw,
    };
    values
        .iter()
        .filter_map(Value::as_str)
        .find(|v| *v == spelled)
}

/// The prompt's tokens as written, split on anything but letters, digits, `.` and `-`.
fn tokens(prompt: &str) -> Vec<&str> {
    prompt
        .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '-'))
        .map(|t| t.trim_matches(|c| c == '.' || c == '-'))
        .filter(|t| !t.is_empty())
        .collect()
}

/// Every enum value listed anywhere in a tool's input schema properties.
fn enum_values(tool: &Value) -> Vec<Value> {
    let props = tool["input_schema"]["properties"].as_object();
    props
        .into_iter()
        .flat_map(|p| p.values())
        .filter_map(|p| p["enum"].as_array())
        .flatten()
        .cloned()
        .collect()
}

fn score(prompt: &str, tool: &Value) -> usize {
    let asked = words(prompt);
    let name = words(tool["name"].as_str().unwrap_or(""));
    let description = words(tool["description"].as_str().unwrap_or(""));
    let values = enum_values(tool);
    let count = |list: &[String]| asked.iter().filter(|w| list.contains(w)).count();
    let enum_hits = tokens(prompt)
        .iter()
        .filter(|t| enum_value(t, &values).is_some())
        .count();
    2 * count(&name) + count(&description) + enum_hits
}

fn is_date(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

/// Text in quotes, or the words after "titled", "called" or "named" up to punctuation.
fn title(prompt: &str) -> Option<String> {
    for quote in ['"', '“'] {
        let close = if quote == '“' { '”' } else { quote };
        if let Some((_, rest)) = prompt.split_once(quote)
            && let Some((inner, _)) = rest.split_once(close)
        {
            return Some(inner.to_owned());
        }
    }
    let lower = prompt.to_lowercase();
    let at = ["titled ", "called ", "named "]
        .iter()
        .find_map(|k| lower.find(k).map(|i| i + k.len()))?;
    let rest = prompt.get(at..)?;
    let end = rest
        .find([',', '.', ':', ';', '!', '?'])
        .unwrap_or(rest.len());
    Some(rest[..end].trim().to_owned()).filter(|t| !t.is_empty())
}

/// Arguments for `tool` found in the prompt, or `None` when a required one is missing.
fn arguments(prompt: &str, tool: &Value) -> Option<Map<String, Value>> {
    let toks = tokens(prompt);
    let mut numbers = toks.iter().filter(|t| !is_date(t)).filter_map(|t| {
        t.parse::<i64>()
            .map(Value::from)
            .or_else(|_| t.parse::<f64>().map(Value::from))
            .ok()
    });
    let mut used_enum_tokens = 0;
    let mut args = Map::new();
    let empty = Map::new();
    let props = tool["input_schema"]["properties"]
        .as_object()
        .unwrap_or(&empty);
    for (name, prop) in props {
        let value = match (prop["type"].as_str(), prop["enum"].as_array()) {
            (_, Some(values)) => {
                let mut hits = toks.iter().filter_map(|t| enum_value(t, values));
                let hit = hits.nth(used_enum_tokens).map(Value::from);
                used_enum_tokens += 1;
                hit
            }
            (Some("integer"), _) => numbers.find(Value::is_i64),
            (Some("number"), _) => numbers.next(),
            (Some("string"), _) if name == "date" || prop.to_string().contains("YYYY-MM-DD") => {
                toks.iter().find(|t| is_date(t)).map(|d| Value::from(*d))
            }
            (Some("string"), _) if name == "title" || name == "name" => {
                title(prompt).map(Value::from)
            }
            (Some("string"), _) => prompt
                .split_once(':')
                .map(|(_, text)| text.trim())
                .filter(|t| !t.is_empty())
                .map(Value::from),
            _ => None,
        };
        if let Some(value) = value {
            args.insert(name.clone(), value);
        }
    }
    let required = tool["input_schema"]["required"].as_array();
    let missing = required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|r| !args.contains_key(r));
    (!missing).then_some(args)
}

/// The choice for one request, as toolproof reads it.
fn pick(request: &Value) -> Value {
    let prompt = request["prompt"].as_str().unwrap_or("");
    let tools = request["tools"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut best: Option<(&Value, usize)> = None;
    for tool in tools {
        let s = score(prompt, tool);
        if s >= 2 && best.is_none_or(|(_, b)| s > b) {
            best = Some((tool, s));
        }
    }
    let with_context = last_number(&context_text(request)).map(|n| format!("{prompt} {n}"));
    let args = |tool: &Value| {
        arguments(prompt, tool).or_else(|| arguments(with_context.as_deref()?, tool))
    };
    match best.and_then(|(tool, _)| Some((tool, args(tool)?))) {
        Some((tool, args)) => json!({"tool": tool["name"], "args": args}),
        None => json!({"tool": null}),
    }
}

/// The text of the earlier turns: messages, calls' arguments and results, in order.
fn context_text(request: &Value) -> String {
    let turns = request["context"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    turns
        .iter()
        .flat_map(|turn| {
            ["user", "assistant", "result"]
                .into_iter()
                .filter_map(|k| turn[k].as_str().map(str::to_owned))
                .chain(turn.get("args").map(Value::to_string))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last whole number in `text`.
fn last_number(text: &str) -> Option<&str> {
    text.split(|c: char| !c.is_ascii_digit())
        .rfind(|t| !t.is_empty())
}

/// The choice with the tokens a model would have used: the request read (four bytes a token)
/// and the answer written, as the command provider's `usage` member.
fn with_usage(mut choice: Value, request: &str) -> Value {
    let tokens = |bytes: usize| bytes.div_ceil(4);
    let output = tokens(choice.to_string().len());
    if let Some(map) = choice.as_object_mut() {
        map.insert(
            "usage".into(),
            json!({"input_tokens": tokens(request.len()), "output_tokens": output}),
        );
    }
    choice
}

fn main() {
    let mut input = String::new();
    let request = match std::io::stdin().read_to_string(&mut input) {
        Ok(_) => serde_json::from_str::<Value>(&input).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match request {
        Ok(request) if request["task"] == "rewrite_description" => {
            println!("{}", rewrite::rewrite(&request));
        }
        Ok(request) => println!("{}", with_usage(pick(&request), &input)),
        Err(e) => {
            eprintln!("demo_picker: error: stdin is not a JSON request: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notebook() -> Value {
        json!([
            {"name": "list_notes", "description": "Shows every saved note.",
             "input_schema": {"type": "object", "properties": {}}},
            {"name": "delete_note", "description": "Removes one saved note by its number.",
             "input_schema": {"type": "object", "properties": {"id": {"type": "integer"}},
                              "required": ["id"]}}
        ])
    }

    fn ask(prompt: &str) -> Value {
        pick(&json!({"prompt": prompt, "tools": notebook()}))
    }

    #[test]
    fn a_missing_argument_comes_from_the_conversation_before_the_prompt() {
        assert_eq!(ask("delete it"), json!({"tool": null}));
        let after = |context: Value| {
            pick(&json!({"prompt": "delete it", "tools": notebook(), "context": context}))
        };
        let context = json!([
            {"user": "What is in note 7?"},
            {"call": "list_notes", "args": {}, "result": "7: groceries"},
            {"assistant": "Note 7 is your grocery list."}
        ]);
        assert_eq!(
            after(context),
            json!({"tool": "delete_note", "args": {"id": 7}})
        );
        assert_eq!(after(json!([{"user": "hello"}])), json!({"tool": null}));
    }

    #[test]
    fn reports_the_tokens_a_model_would_have_used() {
        let choice = with_usage(json!({"tool": null}), &"x".repeat(400));
        assert_eq!(
            choice,
            json!({"tool": null, "usage": {"input_tokens": 100, "output_tokens": 4}})
        );
    }

    #[test]
    fn folds_plurals_and_drops_stopwords() {
        assert_eq!(words("Show me all my notes, please"), ["show", "note"]);
        assert_eq!(words("Celsius address"), ["celsius", "address"]);
    }

    #[test]
    fn picks_the_best_tool_with_its_arguments() {
        assert_eq!(
            ask("delete note 3"),
            json!({"tool": "delete_note", "args": {"id": 3}})
        );
        assert_eq!(
            ask("list my notes"),
            json!({"tool": "list_notes", "args": {}})
        );
    }

    #[test]
    fn calls_nothing_for_chat_or_a_missing_required_argument() {
        assert_eq!(ask("thanks, that's all"), json!({"tool": null}));
        assert_eq!(ask("delete it"), json!({"tool": null}));
    }

    #[test]
    fn reads_units_dates_and_titles() {
        let units = json!(["km", "mi", "C", "F"]);
        let values = units.as_array().map(Vec::as_slice).unwrap_or(&[]);
        assert_eq!(enum_value("miles", values), Some("mi"));
        assert_eq!(enum_value("Fahrenheit", values), Some("F"));
        assert_eq!(enum_value("in", values), None);
        assert!(is_date("2024-02-29") && !is_date("2024-2-29"));
        assert_eq!(
            title("a note titled groceries: eggs").as_deref(),
            Some("groceries")
        );
        assert_eq!(title("save \"to do\" now").as_deref(), Some("to do"));
    }
}
