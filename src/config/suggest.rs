//! "Did you mean …?": the nearest valid key or value for a misspelt one.

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), case-insensitive.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let width = b.len() + 1;
    // Three rows are enough for OSA: the one two back, the previous and the current.
    let mut before: Vec<usize> = vec![0; width];
    let mut prev: Vec<usize> = (0..width).collect();
    let mut cur: Vec<usize> = vec![0; width];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
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
