//! The nearest tool name to a misspelt one, for `server has no tool named 'x', did you mean
//! 'y'?`.

/// The candidate closest to `word` by edit distance, when it is close enough to be a typo
/// (or differs only in case, `-` versus `_`, or `.` versus `_`).
pub(crate) fn nearest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let norm = |s: &str| s.to_lowercase().replace(['-', '.'], "_");
    let word_norm = norm(word);
    let limit = match word.chars().count() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    candidates
        .filter(|c| !c.is_empty())
        .map(|c| {
            let d = if norm(c) == word_norm {
                0
            } else {
                // Optimal string alignment: swapping two neighbours is one edit, so `ecoh`
                // is one typo away from `echo`.
                strsim::osa_distance(word, c)
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}
