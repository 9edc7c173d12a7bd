//! `similar-tools`: pairs of tools whose names and descriptions overlap so much that a model
//! choosing between them is likely to pick the wrong one.
//!
//! The score of a pair is lexical and lies in 0..1:
//! - each name is split on `_ - .`, camelCase and letter/digit boundaries; each description on
//!   anything that is not a letter or digit; words are lowercased, plurals folded (`files` →
//!   `file`), common verbs that mean the same to a model folded to one (`fetch`, `retrieve`,
//!   `read` → `get`; `remove` → `delete`…), and stopwords and one-letter words dropped;
//! - `name` = Jaccard similarity of the two names' word sets, `description` = the same for the
//!   descriptions; the score is their mean. When neither tool has a description, the name alone
//!   decides.
//!
//! Word sets are interned once per tool (sorted ids), so a pair costs two merges of short
//! vectors; pairs that cannot reach the threshold given their set sizes are skipped.

use std::collections::HashMap;

use crate::mcp::types::Tool;
use crate::report::model::Severity;

use super::{SIMILAR_TOOLS, Sink};

/// Shared words shown in a finding.
const SHOWN_WORDS: usize = 10;

/// Words that carry no meaning for choosing a tool.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "do", "does", "each", "either", "for", "from", "given", "has", "have", "how",
    "if", "in", "into", "is", "it", "its", "may", "more", "most", "must", "no", "not", "of", "on",
    "one", "only", "or", "other", "our", "out", "over", "per", "should", "so", "some", "such",
    "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "through", "to", "tool", "up", "use", "used", "using", "via", "was", "we", "were", "what",
    "when", "where", "whether", "which", "while", "who", "will", "with", "within", "without",
    "would", "you", "your",
];

/// Verbs a model reads as the same action, folded to the first of each group.
const SYNONYMS: &[&[&str]] = &[
    &[
        "get", "fetch", "retrieve", "obtain", "read", "load", "show", "view", "lookup",
    ],
    &["list", "enumerate"],
    &["search", "find", "query"],
    &["create", "add", "new", "make", "insert"],
    &["update", "edit", "modify", "change", "set", "patch"],
    &["delete", "remove", "destroy", "drop", "erase", "rm", "del"],
    &["run", "execute", "exec", "invoke", "call"],
];

/// A tool's words as sorted, distinct ids.
struct Profile {
    name: Vec<u32>,
    description: Vec<u32>,
}

/// Words and their ids.
#[derive(Default)]
struct Words {
    ids: HashMap<String, u32>,
    words: Vec<String>,
}

impl Words {
    fn intern(&mut self, word: String) -> u32 {
        if let Some(&id) = self.ids.get(&word) {
            return id;
        }
        let id = self.words.len() as u32;
        self.words.push(word.clone());
        self.ids.insert(word, id);
        id
    }

    fn profile(&mut self, text: &str) -> Vec<u32> {
        let mut ids: Vec<u32> = words(text).into_iter().map(|w| self.intern(w)).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// Pairs reported one by one; beyond that one finding counts the rest.
const MAX_PAIRS: usize = 25;

/// Flags every pair of tools (with different names) scoring at least `threshold`, the first
/// [`MAX_PAIRS`] one by one and the rest in one finding on `*`.
pub(super) fn check(tools: &[Tool], shown: &[String], threshold: f64, out: &mut Sink) {
    if threshold.is_nan() {
        return;
    }
    let mut words = Words::default();
    let profiles: Vec<Profile> = tools
        .iter()
        .map(|t| Profile {
            name: words.profile(&t.name),
            description: words.profile(t.description.as_deref().unwrap_or("")),
        })
        .collect();

    let mut pairs = 0usize;
    for i in 0..tools.len() {
        for j in i + 1..tools.len() {
            if tools[i].name == tools[j].name {
                continue; // `duplicate-name` already says so
            }
            let (a, b) = (&profiles[i], &profiles[j]);
            if bound(a, b) < threshold {
                continue;
            }
            let score = score(a, b);
            if score < threshold {
                continue;
            }
            pairs += 1;
            if pairs > MAX_PAIRS {
                continue;
            }
            let shared = shared(a, b, &words.words);
            out.add(
                &format!("{} + {}", shown[i], shown[j]),
                SIMILAR_TOOLS,
                Severity::Warning,
                format!(
                    "names and descriptions are {score:.2} similar (threshold {threshold:.2}); \
                     a model may call one when it means the other; shared words: {shared}\n\
                     hint: say in each description what it does that the other does not, \
                     or merge them"
                ),
            );
        }
    }
    if pairs > MAX_PAIRS {
        out.add(
            "*",
            SIMILAR_TOOLS,
            Severity::Warning,
            format!(
                "{} more pairs of tools are at least {threshold:.2} similar \
                 ({pairs} in all, the first {MAX_PAIRS} are listed)",
                pairs - MAX_PAIRS
            ),
        );
    }
}

/// Content words each description needs before it can decide a pair on its own.
const TELLING_DESCRIPTION: usize = 4;
/// Weight of a description match alone: identical descriptions score 0.9 whatever the names.
const DESCRIPTION_ALONE: f64 = 0.9;

/// The pair's similarity in 0..1: the mean of name and description overlap, or, when both
/// descriptions say enough, the description overlap alone (weighted), whichever is higher. Two
/// tools that describe themselves the same way confuse a model whatever they are called.
fn score(a: &Profile, b: &Profile) -> f64 {
    let name = jaccard(&a.name, &b.name);
    if a.description.is_empty() && b.description.is_empty() {
        return name;
    }
    let description = jaccard(&a.description, &b.description);
    let mean = (name + description) / 2.0;
    if telling(a, b) {
        mean.max(DESCRIPTION_ALONE * description)
    } else {
        mean
    }
}

fn telling(a: &Profile, b: &Profile) -> bool {
    a.description.len() >= TELLING_DESCRIPTION && b.description.len() >= TELLING_DESCRIPTION
}

/// An upper bound of [`score`] from set sizes alone (Jaccard ≤ smaller / larger).
fn bound(a: &Profile, b: &Profile) -> f64 {
    let most = |x: &[u32], y: &[u32]| {
        let (small, large) = (x.len().min(y.len()), x.len().max(y.len()));
        if large == 0 {
            0.0
        } else {
            small as f64 / large as f64
        }
    };
    let name = most(&a.name, &b.name);
    if a.description.is_empty() && b.description.is_empty() {
        return name;
    }
    let description = most(&a.description, &b.description);
    let mean = (name + description) / 2.0;
    if telling(a, b) {
        mean.max(DESCRIPTION_ALONE * description)
    } else {
        mean
    }
}

/// |A ∩ B| / |A ∪ B| of two sorted, distinct id lists; 0 when both are empty.
fn jaccard(a: &[u32], b: &[u32]) -> f64 {
    let common = intersection(a, b).count();
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

/// Ids in both sorted lists, in order.
fn intersection<'v>(a: &'v [u32], b: &'v [u32]) -> impl Iterator<Item = u32> + 'v {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                    return Some(a[i - 1]);
                }
            }
        }
        None
    })
}

/// The words two tools share (names first, then descriptions), comma-separated.
fn shared(a: &Profile, b: &Profile, words: &[String]) -> String {
    let mut ids: Vec<u32> = intersection(&a.name, &b.name).collect();
    for id in intersection(&a.description, &b.description) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let mut list: Vec<&str> = ids
        .iter()
        .take(SHOWN_WORDS)
        .map(|&id| words[id as usize].as_str())
        .collect();
    let more = ids.len().saturating_sub(SHOWN_WORDS);
    let extra;
    if more > 0 {
        extra = format!("and {more} more");
        list.push(&extra);
    }
    list.join(", ")
}

/// The meaningful words of a name or description, normalised, in order, with repeats.
fn words(text: &str) -> Vec<String> {
    split(text)
        .into_iter()
        .map(|w| fold(&w.to_lowercase()))
        .filter(|w| w.chars().count() > 1 && !STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// Splits on non-alphanumerics, camelCase (`getHTTPStatus` → get, HTTP, Status) and
/// letter/digit boundaries.
fn split(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            continue;
        }
        if let Some(&prev) = word.chars().last().as_ref() {
            let next = chars.get(i + 1).copied();
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase()
                    && c.is_uppercase()
                    && next.is_some_and(char::is_lowercase))
                || (prev.is_alphabetic() != c.is_alphabetic());
            if boundary {
                out.push(std::mem::take(&mut word));
            }
        }
        word.push(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Folds a lowercase word: plural to singular, then a synonym to its group's first word.
fn fold(word: &str) -> String {
    let word = singular(word);
    for group in SYNONYMS {
        if group.contains(&word.as_str()) {
            return group[0].to_owned();
        }
    }
    word
}

/// A light English singular (`entities` → `entity`, `searches` → `search`, `files` → `file`);
/// consistent rather than exact, since both sides of a comparison are folded the same way.
fn singular(word: &str) -> String {
    let n = word.chars().count();
    if n > 4
        && let Some(stem) = word.strip_suffix("ies")
    {
        return format!("{stem}y");
    }
    if n > 4 {
        for suffix in ["sses", "shes", "ches", "xes", "zes"] {
            if word.ends_with(suffix) {
                return word[..word.len() - 2].to_owned();
            }
        }
    }
    if n > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::super::tests::tools;
    use super::super::{CheckContext, run};
    use super::*;
    use crate::config::ChecksConfig;
    use crate::report::model::Finding;
    use serde_json::{Value, json};

    fn tool(name: &str, description: &str) -> Value {
        json!({
            "name": name,
            "description": description,
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
        })
    }

    fn similar(raw: Vec<Value>, threshold: f64) -> Vec<Finding> {
        let cfg = ChecksConfig {
            similarity_threshold: threshold,
            ..Default::default()
        };
        run(&tools(raw), &cfg, &CheckContext::default())
            .findings
            .into_iter()
            .filter(|f| f.check == SIMILAR_TOOLS)
            .collect()
    }

    fn pair_score(a: (&str, &str), b: (&str, &str)) -> f64 {
        let mut w = Words::default();
        let pa = Profile {
            name: w.profile(a.0),
            description: w.profile(a.1),
        };
        let pb = Profile {
            name: w.profile(b.0),
            description: w.profile(b.1),
        };
        assert!(bound(&pa, &pb) >= score(&pa, &pb));
        score(&pa, &pb)
    }

    #[test]
    fn splits_names_the_way_people_write_them() {
        assert_eq!(split("getHTTPStatus"), vec!["get", "HTTP", "Status"]);
        assert_eq!(
            split("list_files-v2.json"),
            vec!["list", "files", "v", "2", "json"]
        );
        assert_eq!(
            words("Fetches the weather for cities"),
            vec!["get", "weather", "city"]
        );
        assert_eq!(words("searches indexes"), vec!["search", "index"]);
        assert_eq!(
            words("status analysis class"),
            vec!["status", "analysis", "class"]
        );
    }

    #[test]
    fn near_duplicates_are_flagged_with_score_and_shared_words() {
        let got = similar(
            vec![
                tool("get_weather", "Get the current weather for a city"),
                tool("fetch_weather", "Fetch the current weather for a city"),
                tool("send_email", "Send an email to a recipient"),
            ],
            0.8,
        );
        assert_eq!(got.len(), 1);
        let f = &got[0];
        assert_eq!(f.tool, "get_weather + fetch_weather");
        assert_eq!(f.severity, Severity::Warning);
        assert!(!f.fails);
        assert!(
            f.message.starts_with(
                "names and descriptions are 1.00 similar (threshold 0.80); a model may call one \
                 when it means the other; shared words: get, weather, current, city"
            ),
            "{}",
            f.message
        );
    }

    #[test]
    fn the_same_description_under_different_names_is_flagged() {
        let got = similar(
            vec![
                tool("list_notes", "List every saved note with its id and title."),
                tool("show_notes", "List every saved note with its id and title."),
            ],
            0.8,
        );
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].tool, "list_notes + show_notes");
        // Short descriptions alone do not decide: `echo` vs `shout` share little but a word.
        assert!(pair_score(("echo", "Echo text"), ("shout", "Shout text")) < 0.8);
    }

    #[test]
    fn more_near_duplicates_score_high() {
        let pairs = [
            (
                ("delete_user", "Delete a user account by its id"),
                ("remove_user", "Remove a user account by id"),
            ),
            (
                ("searchDocuments", "Search the documents for a query string"),
                ("find_documents", "Find documents matching a query string"),
            ),
            (
                ("create_issue", "Create a new issue in a GitHub repository"),
                ("add_issue", "Add a new issue to a GitHub repository"),
            ),
        ];
        for (a, b) in pairs {
            let s = pair_score(a, b);
            assert!(s >= 0.8, "{a:?} {b:?} {s}");
        }
    }

    #[test]
    fn distinct_tools_score_low() {
        let pairs = [
            (
                ("echo", "Echoes back the input string"),
                ("get-sum", "Returns the sum of two numbers"),
            ),
            (
                ("get_user", "Get a user by id"),
                ("list_users", "List all users in the organisation"),
            ),
            (
                (
                    "create_entities",
                    "Create multiple new entities in the knowledge graph",
                ),
                (
                    "delete_entities",
                    "Delete multiple entities and their associated relations from the knowledge graph",
                ),
            ),
            (
                ("get_weather", "Get the current weather for a city"),
                ("get_forecast", "Get the 7-day weather forecast for a city"),
            ),
        ];
        for (a, b) in pairs {
            let s = pair_score(a, b);
            assert!(s < 0.8, "{a:?} {b:?} {s}");
        }
        assert_eq!(
            pair_score(
                ("echo", "Echoes back the input string"),
                ("get-sum", "Returns the sum of two numbers")
            ),
            0.0
        );
    }

    #[test]
    fn reference_servers_have_no_similar_tools() {
        for (server, text) in [
            (
                "everything",
                include_str!("fixtures/server-everything.json"),
            ),
            ("memory", include_str!("fixtures/server-memory.json")),
            (
                "filesystem",
                include_str!("fixtures/server-filesystem.json"),
            ),
        ] {
            let raw: Vec<Value> = serde_json::from_str(text).unwrap_or_default();
            assert!(raw.len() > 8, "{server}");
            assert_eq!(similar(raw, 0.8), vec![], "{server}");
        }
    }

    #[test]
    fn the_closest_reference_pair_is_found_below_the_default() {
        // list_directory and list_directory_with_sizes share all but two words (0.75).
        let raw: Vec<Value> = serde_json::from_str(include_str!("fixtures/server-filesystem.json"))
            .unwrap_or_default();
        let got: Vec<String> = similar(raw, 0.7).into_iter().map(|f| f.tool).collect();
        assert_eq!(got, vec!["list_directory + list_directory_with_sizes"]);
    }

    #[test]
    fn many_similar_pairs_are_capped() {
        let raw: Vec<Value> = (0..10)
            .map(|i| tool(&format!("get_item_v{i}"), "Get an item from the store"))
            .collect();
        let got = similar(raw, 0.8);
        // 10 tools, 45 pairs: 25 listed, then one finding for the other 20.
        assert_eq!(got.len(), MAX_PAIRS + 1);
        let last = &got[MAX_PAIRS];
        assert_eq!(last.tool, "*");
        assert!(
            last.message
                .starts_with("20 more pairs of tools are at least 0.80 similar (45 in all"),
            "{}",
            last.message
        );
        assert!(similar(vec![tool("a_b", "x y"), tool("a_c", "x y")], f64::NAN).is_empty());
    }

    #[test]
    fn threshold_decides() {
        let raw = vec![
            tool("get_weather", "Get the current weather for a city"),
            tool("get_forecast", "Get the weather forecast for a city"),
        ];
        let s = pair_score(
            ("get_weather", "Get the current weather for a city"),
            ("get_forecast", "Get the weather forecast for a city"),
        );
        assert_eq!(similar(raw.clone(), s).len(), 1);
        assert_eq!(similar(raw, s + 0.01).len(), 0);
    }

    #[test]
    fn tools_without_descriptions_compare_by_name() {
        let raw = vec![
            json!({"name": "user_get", "inputSchema": {"type": "object"}}),
            json!({"name": "getUser", "inputSchema": {"type": "object"}}),
            json!({"name": "x", "inputSchema": {"type": "object"}}),
            json!({"name": "y", "inputSchema": {"type": "object"}}),
        ];
        let got: Vec<String> = similar(raw, 0.8).into_iter().map(|f| f.tool).collect();
        assert_eq!(got, vec!["user_get + getUser"]);
    }

    #[test]
    fn two_thousand_tools_are_checked_quickly() {
        let verbs = [
            "get", "list", "create", "update", "delete", "search", "sync", "export",
        ];
        let nouns: Vec<&str> = "user invoice order ticket project file report team repo comment \
                                 label event alert metric dashboard page note task deal lead"
            .split_whitespace()
            .collect();
        let mut raw: Vec<Value> = (0..2000)
            .map(|i| {
                let verb = verbs[i % verbs.len()];
                let noun = nouns[(i / verbs.len()) % nouns.len()];
                tool(
                    &format!("{verb}_{noun}_{i}"),
                    &format!(
                        "{verb} the {noun} number {i} in workspace {} and return its fields as JSON",
                        i % 13
                    ),
                )
            })
            .collect();
        raw.insert(
            700,
            tool("get_weather", "Get the current weather for a city"),
        );
        raw.push(tool(
            "fetch_weather",
            "Fetch the current weather for a city",
        ));
        let list = tools(raw);
        let start = std::time::Instant::now();
        let got = run(&list, &ChecksConfig::default(), &CheckContext::default());
        let elapsed = start.elapsed();
        let found: Vec<(&str, &str)> = got
            .findings
            .iter()
            .map(|f| (f.check.as_str(), f.tool.as_str()))
            .collect();
        assert_eq!(
            found,
            vec![
                (SIMILAR_TOOLS, "get_weather + fetch_weather"),
                ("tool-list-size", "*")
            ]
        );
        // Generous for a debug build on a shared machine (about 1.5 s); release is far faster.
        assert!(elapsed.as_secs_f64() < 20.0, "{elapsed:?}");
    }
}
