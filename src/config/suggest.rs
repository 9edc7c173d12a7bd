//! "Did you mean …?": the nearest valid key or value for a misspelt one.

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), case-insensitive.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(&a.to_lowercase(), &b.to_lowercase())
}

/// The candidate closest to `word`, if it is close enough to be a likely typo:
/// at most 1 edit for words up to 4 characters, 2 up to 8, 3 beyond.
pub(crate) fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let len = word.chars().count();
    let limit = match len {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    candidates
        .iter()
        .map(|c| (distance(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `` `a`, `b`, `c` ``.
pub(crate) fn list(items: &[&str]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits_and_swaps() {
        assert_eq!(distance("comand", "command"), 1);
        assert_eq!(distance("commnad", "command"), 1);
        assert_eq!(distance("URL", "url"), 0);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn nearest_only_suggests_likely_typos() {
        let keys = [
            "command",
            "url",
            "env",
            "headers",
            "cwd",
            "startup_timeout_s",
            "protocol",
        ];
        assert_eq!(nearest("comand", &keys), Some("command"));
        assert_eq!(nearest("header", &keys), Some("headers"));
        assert_eq!(nearest("startup_timeout", &keys), Some("startup_timeout_s"));
        assert_eq!(nearest("uri", &keys), Some("url"));
        assert_eq!(nearest("banana", &keys), None);
        assert_eq!(nearest("x", &keys), None);
    }
}
