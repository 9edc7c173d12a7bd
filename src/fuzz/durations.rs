//! How long a call asks to take: a tool whose arguments declare a duration (`duration`,
//! `delay`, `sleep_ms`, `wait_seconds`, or a number described as seconds or milliseconds to
//! wait) is given that time on top of the timeout, so that a tool doing what it was asked is
//! not called a hang (server-everything's `trigger-long-running-operation` runs 10 s by
//! default). The unit comes from the name or the description (milliseconds, minutes, else
//! seconds); an argument left out counts with its `default`.

use std::time::Duration;

use serde_json::Value;

/// Name words of an argument that sets how long a call takes.
const NAME_WORDS: &[&str] = &[
    "duration",
    "delay",
    "sleep",
    "wait",
    "seconds",
    "secs",
    "ms",
    "millis",
    "milliseconds",
];

/// Description phrases that say the same of a number.
const DESCRIPTION_PHRASES: &[&str] = &["duration", "how long", "delay", "to wait", "sleep"];

/// The longest duration the call's arguments declare, with the argument that declares it;
/// `None` when none does.
pub(super) fn declared(schema: &Value, input: &Value) -> Option<(Duration, String)> {
    let properties = schema.get("properties")?.as_object()?;
    let mut longest: Option<(Duration, String)> = None;
    for (name, property) in properties {
        if !is_duration(name, property) {
            continue;
        }
        let Some(amount) = input
            .get(name)
            .or_else(|| property.get("default"))
            .and_then(Value::as_f64)
        else {
            continue;
        };
        let Some(wait) = in_unit(amount, unit(name, property)) else {
            continue;
        };
        if longest.as_ref().is_none_or(|(l, _)| wait > *l) {
            longest = Some((wait, name.clone()));
        }
    }
    longest
}

/// A number whose name or description says it is a time to take.
fn is_duration(name: &str, property: &Value) -> bool {
    let numeric = match property.get("type") {
        Some(Value::String(t)) => t == "number" || t == "integer",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "number" || t == "integer"),
        _ => property.get("default").is_some_and(Value::is_number),
    };
    if !numeric {
        return false;
    }
    let description = description(property);
    words(name).iter().any(|w| NAME_WORDS.contains(&w.as_str()))
        || DESCRIPTION_PHRASES.iter().any(|p| description.contains(p))
}

/// Milliseconds, seconds or minutes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit {
    Millis,
    Seconds,
    Minutes,
}

fn unit(name: &str, property: &Value) -> Unit {
    let name_words = words(name);
    let description = description(property);
    let said = |w: &[&str]| {
        name_words.iter().any(|n| w.contains(&n.as_str()))
            || words(&description).iter().any(|d| w.contains(&d.as_str()))
    };
    if said(&["ms", "millis", "millisecond", "milliseconds"]) {
        Unit::Millis
    } else if said(&["minute", "minutes", "min", "mins"]) && !said(&["second", "seconds", "sec"]) {
        Unit::Minutes
    } else {
        Unit::Seconds
    }
}

/// `amount` in `unit` as a duration; negative amounts ask for no time, and amounts beyond a day
/// (or not finite) for more than any run waits.
fn in_unit(amount: f64, unit: Unit) -> Option<Duration> {
    let seconds = match unit {
        Unit::Millis => amount / 1000.0,
        Unit::Seconds => amount,
        Unit::Minutes => amount * 60.0,
    };
    if !seconds.is_finite() {
        return Some(Duration::MAX);
    }
    Some(Duration::from_secs_f64(seconds.clamp(0.0, 86_400.0)))
}

fn description(property: &Value) -> String {
    property
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase()
}

/// The lowercase words of a name or text: `sleepMs`, `sleep_ms` and `sleep ms` are
/// `["sleep", "ms"]`.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut last_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            last_lower = false;
            continue;
        }
        if c.is_uppercase() && last_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        last_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// server-everything's `trigger-long-running-operation`, as it lists it.
    fn long_running() -> Value {
        json!({"type": "object", "properties": {
            "duration": {"type": "number", "default": 10, "description": "Duration of the operation in seconds"},
            "steps": {"type": "number", "default": 5, "description": "Number of steps in the operation"}
        }})
    }

    #[test]
    fn a_declared_duration_counts_in_its_unit_and_with_its_default() {
        let schema = long_running();
        assert_eq!(
            declared(&schema, &json!({})),
            Some((Duration::from_secs(10), "duration".into()))
        );
        assert_eq!(
            declared(&schema, &json!({"duration": 2.5, "steps": 100})),
            Some((Duration::from_millis(2500), "duration".into()))
        );
        assert_eq!(
            declared(&schema, &json!({"duration": -3})),
            Some((Duration::ZERO, "duration".into()))
        );
        let ms = json!({"properties": {"sleepMs": {"type": "integer"}}});
        assert_eq!(
            declared(&ms, &json!({"sleepMs": 1500})),
            Some((Duration::from_millis(1500), "sleepMs".into()))
        );
        let described = json!({"properties": {"t": {"type": "integer", "description": "How long to wait, in milliseconds"}}});
        assert_eq!(
            declared(&described, &json!({"t": 20})),
            Some((Duration::from_millis(20), "t".into()))
        );
        let minutes = json!({"properties": {"delay_minutes": {"type": "number"}}});
        assert_eq!(
            declared(&minutes, &json!({"delay_minutes": 2})),
            Some((Duration::from_secs(120), "delay_minutes".into()))
        );
    }

    #[test]
    fn other_numbers_and_strings_declare_nothing() {
        let schema = json!({"properties": {
            "steps": {"type": "number", "default": 5},
            "count": {"type": "integer", "description": "Number of items"},
            "duration": {"type": "string", "description": "An ISO 8601 duration"}
        }});
        assert_eq!(
            declared(
                &schema,
                &json!({"steps": 9, "count": 3, "duration": "PT5S"})
            ),
            None
        );
        assert_eq!(declared(&json!({"type": "object"}), &json!({})), None);
    }
}
