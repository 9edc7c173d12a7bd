//! A case's conversation (`context:`) as reports show it, collapsed: a summary, `after 3
//! turns`, and one line per turn (`user: …`, `call get_order {"order_id":"55219"} → …`,
//! `assistant: …`). Text is raw and cut to length; each renderer escapes it.

use crate::outcome::ContextEntry;
use crate::report::escape::truncate_chars;

/// Longest message or result quoted in a turn's line, in characters.
const TURN_CHARS: usize = 120;

/// `after N turns` (`after 1 turn`), when the case has context.
pub(super) fn summary(context: &[ContextEntry]) -> Option<String> {
    match context.len() {
        0 => None,
        1 => Some("after 1 turn".to_owned()),
        n => Some(format!("after {n} turns")),
    }
}

/// One line per turn, each on one line (whitespace runs become one space) and shortened.
pub(super) fn lines(context: &[ContextEntry]) -> Vec<String> {
    context.iter().map(line).collect()
}

fn line(entry: &ContextEntry) -> String {
    let flat = |text: &str| {
        let words: Vec<&str> = text.split_whitespace().collect();
        truncate_chars(&words.join(" "), TURN_CHARS).into_owned()
    };
    if let Some(text) = &entry.user {
        return format!("user: {}", flat(text));
    }
    if let Some(text) = &entry.assistant {
        return format!("assistant: {}", flat(text));
    }
    let args = entry
        .args
        .as_ref()
        .map(|a| format!(" {}", flat(&a.to_string())))
        .unwrap_or_default();
    let result = entry.result.as_deref().map(flat).unwrap_or_default();
    format!(
        "call {}{args} → {result}",
        entry.call.as_deref().unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_conversation_is_summed_up_and_each_turn_is_one_line() {
        let context = vec![
            ContextEntry {
                user: Some("Where is my\norder 55219?".into()),
                ..ContextEntry::default()
            },
            ContextEntry {
                call: Some("get_order".into()),
                args: Some(json!({"order_id": "55219"})),
                result: Some("{\"status\": \"processing\"}".into()),
                ..ContextEntry::default()
            },
            ContextEntry {
                assistant: Some("x".repeat(200)),
                ..ContextEntry::default()
            },
        ];
        assert_eq!(summary(&context).as_deref(), Some("after 3 turns"));
        assert_eq!(summary(&context[..1]).as_deref(), Some("after 1 turn"));
        assert_eq!(summary(&[]), None);
        let lines = lines(&context);
        assert_eq!(lines[0], "user: Where is my order 55219?");
        assert_eq!(
            lines[1],
            r#"call get_order {"order_id":"55219"} → {"status": "processing"}"#
        );
        assert!(lines[2].chars().count() <= TURN_CHARS + 12, "{}", lines[2]);
    }
}
