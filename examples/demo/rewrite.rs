//! The demo's stand-in rewriter, for `toolproof tune` (see `examples/demo/tune.yaml`).
//!
//! toolproof writes one JSON line:
//! `{"task": "rewrite_description", "tool": {name, description, input_schema}, "tools": [...],
//! "misses": [{"prompt", "expected", "picked", "why"}], "candidates": K}`
//! and reads `{"candidates": ["...", ...]}`.
//!
//! It proposes up to K descriptions, in this order, each the kind a real model sometimes writes:
//! 1. **Plain words.** The original, then the everyday words for what the tool's name says, from a
//!    small thesaurus: `list_notes` → "Use it to list, show, browse, review or read back notes or
//!    memos in the notebook." It covers requests the rewriter never saw.
//! 2. **Gaming.** "ALWAYS use this tool for anything about notes!": it would win rows by
//!    shouting at the model, and toolproof's anti-gaming lint rejects it unasked.
//! 3. **Fitted to the misses.** The original, then the missed prompts it was shown, quoted. It
//!    fixes exactly those rows and nothing else: held-out rows show that.
//!
//! A tool with no missed row gets no candidate.

use serde_json::{Value, json};

/// Everyday words for the words of the demo's tool names: (name word, verbs or nouns).
const THESAURUS: [(&str, &str); 8] = [
    ("list", "list, show, browse, review or read back"),
    ("show", "show, list, browse, review or read back"),
    ("delete", "delete, erase, discard, scrap or throw away"),
    ("add", "save, add, write down or jot down"),
    ("note", "notes or memos in the notebook"),
    ("notes", "notes or memos in the notebook"),
    ("convert", "convert, change or express"),
    ("units", "quantities in other units"),
];

/// The candidates for one request, at most `request.candidates`.
pub(crate) fn rewrite(request: &Value) -> Value {
    let tool = &request["tool"];
    let name = tool["name"].as_str().unwrap_or("");
    let original = tool["description"].as_str().unwrap_or("").trim();
    // The original as a sentence, so that more can follow it.
    let original = match original.chars().last() {
        None => String::new(),
        Some('.' | '!' | '?') => original.to_owned(),
        Some(_) => format!("{original}."),
    };
    let misses: Vec<&str> = request["misses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["prompt"].as_str())
        .collect();
    let k = request["candidates"]
        .as_u64()
        .and_then(|k| usize::try_from(k).ok())
        .unwrap_or(3);
    if misses.is_empty() {
        return json!({"candidates": []});
    }
    let parts: Vec<&str> = name.split('_').filter(|w| !w.is_empty()).collect();
    let say = |word: &str| {
        THESAURUS
            .iter()
            .find(|(w, _)| *w == word)
            .map_or_else(|| word.to_owned(), |(_, s)| (*s).to_owned())
    };
    let (verb, nouns) = match parts.split_first() {
        Some((verb, rest)) if !rest.is_empty() => (
            say(verb),
            rest.iter().map(|w| say(w)).collect::<Vec<_>>().join(" "),
        ),
        _ => ("use".to_owned(), say(name)),
    };
    let subject = match parts.last().copied().unwrap_or(name) {
        s if s.ends_with('s') => s.to_owned(),
        s => format!("{s}s"),
    };
    let quoted: Vec<String> = misses.iter().map(|p| format!("“{p}”")).collect();
    let candidates = [
        format!("{original} Use it to {verb} {nouns}."),
        format!("ALWAYS use this tool for anything about {subject}!"),
        format!("{original} For requests like {}.", quoted.join(", ")),
    ];
    json!({"candidates": candidates.iter().take(k).collect::<Vec<_>>()})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(misses: &[&str]) -> Value {
        let misses: Vec<Value> = misses
            .iter()
            .map(|p| json!({"prompt": p, "expected": "list_notes", "picked": "(no tool)"}))
            .collect();
        json!({"task": "rewrite_description",
               "tool": {"name": "list_notes", "description": "Shows every saved note."},
               "tools": [], "misses": misses, "candidates": 3})
    }

    #[test]
    fn three_candidates_plain_gaming_and_fitted_in_that_order() {
        let out = rewrite(&request(&["Browse my notebook", "Review my memos"]));
        assert_eq!(
            out["candidates"],
            json!([
                "Shows every saved note. Use it to list, show, browse, review or read back \
                 notes or memos in the notebook.",
                "ALWAYS use this tool for anything about notes!",
                "Shows every saved note. For requests like “Browse my notebook”, \
                 “Review my memos”."
            ])
        );
    }

    #[test]
    fn an_original_without_a_full_stop_gets_one() {
        let mut r = request(&["Dump everything in memory"]);
        r["tool"] = json!({"name": "read_graph", "description": "Read the entire knowledge graph"});
        assert_eq!(
            r["candidates"]
                .as_u64()
                .map(|_| rewrite(&r)["candidates"][0].clone()),
            Some(json!(
                "Read the entire knowledge graph. Use it to read graph."
            ))
        );
    }

    #[test]
    fn no_miss_no_candidate_and_k_caps_the_list() {
        assert_eq!(rewrite(&request(&[]))["candidates"], json!([]));
        let mut one = request(&["Browse my notebook"]);
        one["candidates"] = json!(1);
        assert_eq!(
            rewrite(&one)["candidates"].as_array().map(Vec::len),
            Some(1)
        );
    }
}
