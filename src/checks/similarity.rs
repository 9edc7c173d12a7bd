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
//! - when both descriptions say enough, the description overlap alone (weighted) may decide, so
//!   that two tools described the same way are flagged whatever they are called; but not when
//!   the names state different actions (`resources_get`, `resources_delete`) and the
//!   descriptions do too: the verb tells the tools apart, however alike the rest is.
//!
//! A finding shows the shared words as the tools wrote them: `exec/run` when one wrote `exec`
//! and the other `run`, which the folding reads as one word.
//!
//! Word sets are interned once per tool (sorted ids), so a pair costs two merges of short
//! vectors; pairs that cannot reach the threshold given their set sizes are skipped.

use std::collections::HashMap;

use crate::mcp::types::Tool;
use crate::outcome::Severity;

use super::{Problem, SIMILAR_TOOLS, Sink};

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
    /// The actions (groups of [`SYNONYMS`], as bits) the name and the description state.
    name_actions: u8,
    description_actions: u8,
    /// Each folded word's id with the id of the word the tool first wrote for it.
    written: HashMap<u32, u32>,
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

    /// A tool's profile from its name and description.
    fn tool(&mut self, name: &str, description: &str) -> Profile {
        let mut written = HashMap::new();
        let (name, name_actions) = self.words_of(name, &mut written);
        let (description, description_actions) = self.words_of(description, &mut written);
        Profile {
            name,
            description,
            name_actions,
            description_actions,
            written,
        }
    }

    /// The sorted, distinct ids of a text's folded words and the actions among them; records
    /// the word as written for each id not seen before.
    fn words_of(&mut self, text: &str, written: &mut HashMap<u32, u32>) -> (Vec<u32>, u8) {
        let mut ids = Vec::new();
        let mut actions = 0u8;
        for (as_written, folded) in word_pairs(text) {
            actions |= action(&folded);
            let id = self.intern(folded);
            written.entry(id).or_insert_with(|| self.intern(as_written));
            ids.push(id);
        }
        ids.sort_unstable();
        ids.dedup();
        (ids, actions)
    }
}

/// The bit of the [`SYNONYMS`] group a folded word heads, 0 for any other word.
fn action(folded: &str) -> u8 {
    SYNONYMS
        .iter()
        .position(|group| group[0] == folded)
        .map_or(0, |i| 1 << i)
}

/// Pairs reported one by one; beyond that one finding counts the rest.
const MAX_PAIRS: usize = 25;

/// The tools' profiles, their words, and every pair of tools (with different names) scoring
/// at least `threshold`, in list order.
fn scored_pairs(tools: &[Tool], threshold: f64) -> (Words, Vec<Profile>, Vec<(usize, usize, f64)>) {
    let mut words = Words::default();
    let profiles: Vec<Profile> = tools
        .iter()
        .map(|t| words.tool(&t.name, t.description.as_deref().unwrap_or("")))
        .collect();
    let mut pairs = Vec::new();
    if threshold.is_nan() {
        return (words, profiles, pairs);
    }
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
            if score >= threshold {
                pairs.push((i, j, score));
            }
        }
    }
    (words, profiles, pairs)
}

/// Every pair of tools (with different names) scoring at least `threshold`: the indexes in
/// `tools` and the score, in list order. The set lint asks for contrastive cases for them.
pub(crate) fn similar_pairs(tools: &[Tool], threshold: f64) -> Vec<(usize, usize, f64)> {
    scored_pairs(tools, threshold).2
}

/// Flags every pair of tools (with different names) scoring at least `threshold`, the first
/// [`MAX_PAIRS`] one by one and the rest in one finding on `*`.
pub(super) fn check(tools: &[Tool], shown: &[String], threshold: f64, out: &mut Sink) {
    if threshold.is_nan() {
        return;
    }
    let (words, profiles, found) = scored_pairs(tools, threshold);
    let mut pairs = 0usize;
    for (i, j, score) in found {
        let (a, b) = (&profiles[i], &profiles[j]);
        {
            pairs += 1;
            if pairs > MAX_PAIRS {
                continue;
            }
            let shared = shared(a, b, &words.words);
            let same_text = tools[i].description.as_deref().map(str::trim)
                == tools[j].description.as_deref().map(str::trim);
            out.add(
                &format!("{} + {}", shown[i], shown[j]),
                SIMILAR_TOOLS,
                Severity::Warning,
                Problem::new(
                    format!(
                        "names and descriptions are {score:.2} similar (threshold \
                         {threshold:.2}); a model may call one when it means the other; shared \
                         words: {shared}"
                    ),
                    if same_text {
                        "the descriptions are the same text: if one tool is another name for \
                         the other, list it once; otherwise say in each what it does that the \
                         other does not"
                    } else {
                        "say in each description what it does that the other does not, or \
                         merge them"
                    },
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

/// Whether the descriptions may decide alone: both say enough, and the two tools do not state
/// different actions in their names and their descriptions alike.
fn telling(a: &Profile, b: &Profile) -> bool {
    let different_actions = a.name_actions != 0
        && b.name_actions != 0
        && a.name_actions & b.name_actions == 0
        && a.description_actions != b.description_actions;
    a.description.len() >= TELLING_DESCRIPTION
        && b.description.len() >= TELLING_DESCRIPTION
        && !different_actions
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

/// The words two tools share (names first, then descriptions), comma-separated, as each wrote
/// them: `exec/run` when they wrote different words that fold to one.
fn shared(a: &Profile, b: &Profile, words: &[String]) -> String {
    let mut ids: Vec<u32> = intersection(&a.name, &b.name).collect();
    for id in intersection(&a.description, &b.description) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let as_written = |p: &Profile, id: u32| {
        let shown = p.written.get(&id).copied().unwrap_or(id);
        words[shown as usize].as_str()
    };
    let mut folded = false;
    let mut list: Vec<String> = ids
        .iter()
        .take(SHOWN_WORDS)
        .map(|&id| {
            let (x, y) = (as_written(a, id), as_written(b, id));
            if x == y {
                x.to_owned()
            } else {
                folded = true;
                format!("{x}/{y}")
            }
        })
        .collect();
    let more = ids.len().saturating_sub(SHOWN_WORDS);
    if more > 0 {
        list.push(format!("and {more} more"));
    }
    let mut text = list.join(", ");
    if folded {
        text.push_str(" (x/y: different words read as one)");
    }
    text
}

/// The meaningful words of a name or description, normalised, in order, with repeats.
#[cfg(test)]
fn words(text: &str) -> Vec<String> {
    word_pairs(text)
        .into_iter()
        .map(|(_, folded)| folded)
        .collect()
}

/// The meaningful words of a name or description, each lowercased as written and normalised,
/// in order, with repeats.
fn word_pairs(text: &str) -> Vec<(String, String)> {
    split(text)
        .into_iter()
        .map(|w| {
            let lower = w.to_lowercase();
            let folded = fold(&lower);
            (lower, folded)
        })
        .filter(|(_, w)| w.chars().count() > 1 && !STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// Splits on non-alphanumerics, camelCase (`getHTTPStatus` → get, HTTP, Status) and
/// letter/digit boundaries.
pub(crate) fn split(text: &str) -> Vec<String> {
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
mod tests;
