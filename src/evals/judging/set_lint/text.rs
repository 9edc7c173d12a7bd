//! Whether a prompt quotes a tool's name or copies its description: such a case proves little,
//! since a model can match the words without understanding the request.
//!
//! - Quoting: the name split into words (on `_`, `-`, `.`, camelCase and letter/digit
//!   boundaries, as the `similar-tools` check splits names) appears as consecutive words of the
//!   prompt, split the same way, ignoring case. `get_weather`, `get-weather`, `getWeather` and
//!   "Get weather" are one quote. A one-word name (`echo`, `add`) never counts: it is an
//!   ordinary word a user may well write.
//! - Copying: at least [`COPY_SHARE`] of the prompt's word [`NGRAM`]-grams (lowercase words of
//!   letters and digits) occur in the description. A trigram is a phrase, not a shared word; half
//!   of them lifted from the description means the prompt is mostly its text. A prompt of fewer
//!   than [`NGRAM`] words never counts.

use std::collections::HashSet;

use crate::checks::similarity::split;

/// Words per n-gram when comparing a prompt with a description.
pub(super) const NGRAM: usize = 3;
/// Share of the prompt's n-grams found in the description at which the prompt copies it.
pub(super) const COPY_SHARE: f64 = 0.5;

/// Lowercase words, split as tool names are split.
fn name_words(text: &str) -> Vec<String> {
    split(text).into_iter().map(|w| w.to_lowercase()).collect()
}

/// Whether `prompt` holds the tool name `name` as consecutive words.
pub(super) fn quotes_name(prompt: &str, name: &str) -> bool {
    let wanted = name_words(name);
    if wanted.len() < 2 {
        return false;
    }
    name_words(prompt)
        .windows(wanted.len())
        .any(|w| w == wanted)
}

/// Lowercase words of letters and digits.
fn plain_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The share of `prompt`'s word n-grams that occur in `description` (0 when the prompt has
/// fewer than [`NGRAM`] words).
pub(super) fn copied_share(prompt: &str, description: &str) -> f64 {
    let p = plain_words(prompt);
    let d = plain_words(description);
    if p.len() < NGRAM || d.len() < NGRAM {
        return 0.0;
    }
    let known: HashSet<&[String]> = d.windows(NGRAM).collect();
    let grams: Vec<&[String]> = p.windows(NGRAM).collect();
    let shared = grams.iter().filter(|g| known.contains(*g)).count();
    shared as f64 / grams.len() as f64
}

/// Whether `prompt` copies `description` (see the module documentation).
pub(super) fn copies_description(prompt: &str, description: &str) -> bool {
    copied_share(prompt, description) >= COPY_SHARE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_quoted_in_any_spelling_but_one_word_names_never_are() {
        for prompt in [
            "please call get_weather for Paris",
            "use get-weather",
            "getWeather in Paris",
            "Get   Weather, Paris",
        ] {
            assert!(quotes_name(prompt, "get_weather"), "{prompt}");
        }
        assert!(quotes_name("run getWeather", "get-weather"));
        assert!(!quotes_name("what is the weather? get it", "get_weather"));
        assert!(!quotes_name("get the weather", "get_weather"));
        assert!(!quotes_name("echo hello", "echo"), "one word is a word");
        assert!(!quotes_name("add 2 and 3", "add"));
    }

    #[test]
    fn half_the_trigrams_is_a_copy_and_less_is_not() {
        let description = "Converts a quantity between units of length mass or temperature";
        // 6 words, 4 trigrams: 2 from the description (converts a quantity, a quantity between).
        let half = "converts a quantity between ten kilometres";
        assert!((copied_share(half, description) - 0.5).abs() < 1e-9);
        assert!(copies_description(half, description));
        // 6 words, 4 trigrams: 1 from the description.
        let quarter = "please converts a quantity of ten";
        assert!((copied_share(quarter, description) - 0.25).abs() < 1e-9);
        assert!(!copies_description(quarter, description));
        // Shared pairs of words are no copy: n is 3, not 2 (3 of these 7 bigrams are shared).
        let pairs = "units of kelvin length mass then or temperature";
        assert_eq!(copied_share(pairs, description), 0.0);
        assert!(!copies_description(pairs, description));
        assert!(copies_description(description, description));
        assert!(!copies_description("units of", description), "too short");
    }
}
