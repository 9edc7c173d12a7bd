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
#[cfg(test)]
pub(super) fn quotes_name(prompt: &str, name: &str) -> bool {
    ToolWords::new(name, "").quoted_in(prompt)
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
#[cfg(test)]
pub(super) fn copied_share(prompt: &str, description: &str) -> f64 {
    ToolWords::new("", description).copied_share(prompt)
}

/// Whether `prompt` copies `description` (see the module documentation).
#[cfg(test)]
pub(super) fn copies_description(prompt: &str, description: &str) -> bool {
    copied_share(prompt, description) >= COPY_SHARE
}

/// One tool's name and description split into the words a prompt is compared with, once for
/// all the cases that expect it.
pub(super) struct ToolWords {
    /// The name's words (see [`quotes_name`]).
    name: Vec<String>,
    /// The description's word n-grams, each joined with single spaces.
    grams: HashSet<String>,
}

impl ToolWords {
    pub(super) fn new(name: &str, description: &str) -> ToolWords {
        let words = plain_words(description);
        ToolWords {
            name: name_words(name),
            grams: words.windows(NGRAM).map(|g| g.join(" ")).collect(),
        }
    }

    /// Whether `prompt` quotes the name or copies the description.
    pub(super) fn quoting(&self, prompt: &str) -> bool {
        self.quoted_in(prompt) || self.copied_share(prompt) >= COPY_SHARE
    }

    fn quoted_in(&self, prompt: &str) -> bool {
        self.name.len() >= 2
            && name_words(prompt)
                .windows(self.name.len())
                .any(|w| w == self.name.as_slice())
    }

    fn copied_share(&self, prompt: &str) -> f64 {
        let p = plain_words(prompt);
        if p.len() < NGRAM || self.grams.is_empty() {
            return 0.0;
        }
        let grams: Vec<String> = p.windows(NGRAM).map(|g| g.join(" ")).collect();
        let shared = grams.iter().filter(|g| self.grams.contains(*g)).count();
        shared as f64 / grams.len() as f64
    }
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
