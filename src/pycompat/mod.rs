//! Python string semantics that mcp-toolproof's verdicts depend on: `str.casefold`, `str.strip`
//! and the `re` module (see [`re`]), reproduced with tables generated from the reference's own
//! interpreter (Python 3.11, Unicode 14) by `scripts/gen/python_unicode.py`; and Python's
//! integers beyond 64 bits, which mcp-toolproof sends and hashes with every digit
//! (see [`bigint`]).

pub(crate) mod bigint;
pub(crate) mod float;
pub(crate) mod re;
mod tables;
#[cfg(test)]
mod tests;

/// Python's `str.casefold()`: full Unicode case folding (`Straße` → `strasse`, `ς` → `σ`).
pub(crate) fn casefold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match tables::CASEFOLD.binary_search_by_key(&u32::from(c), |&(cp, _)| cp) {
            Ok(i) => out.push_str(tables::CASEFOLD[i].1),
            Err(_) => out.push(c),
        }
    }
    out
}

/// Whether Python's `str.isspace()` holds for `c` (the characters `str.strip()` removes).
pub(crate) fn is_space(c: char) -> bool {
    in_ranges(tables::SPACE, c)
}

/// Python's `str.strip()` with no argument.
pub(crate) fn strip(text: &str) -> &str {
    text.trim_matches(is_space)
}

fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let cp = u32::from(c);
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}
