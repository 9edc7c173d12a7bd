//! Strings that match a JSON Schema `pattern`: the pattern is parsed into `regex-syntax`'s HIR
//! and walked, choosing a branch, a repeat count and a character at each step. Look-around
//! assertions (anchors, word boundaries) produce nothing; the caller checks the result with the
//! schema validator, so a pattern this walk cannot honour costs a retry, never a wrong input.

use regex_syntax::hir::{Class, Hir, HirKind};

use crate::rng::Rng;

/// Extra repetitions drawn for an unbounded repeat (`*`, `+`, `{n,}`).
const OPEN_REPEAT: u32 = 4;
/// Deepest nesting walked.
const MAX_DEPTH: usize = 64;

/// A string the pattern matches, or `None` when the pattern cannot be parsed.
pub(crate) fn matching(pattern: &str, rng: &mut Rng) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(true)
        .build()
        .parse(pattern)
        .ok()?;
    let mut out = String::new();
    walk(&hir, rng, &mut out, 0);
    Some(out)
}

fn walk(hir: &Hir, rng: &mut Rng, out: &mut String, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(&String::from_utf8_lossy(&lit.0)),
        HirKind::Class(class) => {
            if let Some(c) = class_char(class, rng) {
                out.push(c);
            }
        }
        HirKind::Repetition(rep) => {
            let max = rep.max.unwrap_or(rep.min.saturating_add(OPEN_REPEAT));
            let count = rng.between(i64::from(rep.min), i64::from(max.min(rep.min + 16)));
            for _ in 0..count {
                walk(&rep.sub, rng, out, depth + 1);
            }
        }
        HirKind::Capture(cap) => walk(&cap.sub, rng, out, depth + 1),
        HirKind::Concat(parts) => {
            for p in parts {
                walk(p, rng, out, depth + 1);
            }
        }
        HirKind::Alternation(branches) => walk(rng.pick(branches), rng, out, depth + 1),
    }
}

/// One character of a class: printable ASCII members are preferred, so inputs stay readable.
fn class_char(class: &Class, rng: &mut Rng) -> Option<char> {
    match class {
        Class::Unicode(c) => {
            let ranges = c.ranges();
            if ranges.is_empty() {
                return None;
            }
            let ascii: Vec<(u32, u32)> = ranges
                .iter()
                .filter(|r| (r.start() as u32) < 0x7f && (r.end() as u32) >= 0x20)
                .map(|r| ((r.start() as u32).max(0x20), (r.end() as u32).min(0x7e)))
                .collect();
            let (lo, hi) = if !ascii.is_empty() && !rng.chance(1, 8) {
                *rng.pick(&ascii)
            } else {
                let r = rng.pick(ranges);
                (r.start() as u32, r.end() as u32)
            };
            for _ in 0..8 {
                let v = rng.between(i64::from(lo), i64::from(hi)) as u32;
                if let Some(ch) = char::from_u32(v) {
                    return Some(ch);
                }
            }
            char::from_u32(lo)
        }
        Class::Bytes(b) => {
            let ranges = b.ranges();
            if ranges.is_empty() {
                return None;
            }
            let r = rng.pick(ranges);
            let v = rng.between(i64::from(r.start()), i64::from(r.end().min(0x7f))) as u8;
            Some(char::from(v.min(0x7f)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_strings_match_their_pattern() {
        let patterns = [
            r"^[a-z]{3,8}$",
            r"^\d{4}-\d{2}-\d{2}$",
            r"^(foo|bar)+_[A-Z0-9]{2}$",
            r"^[^\s@]+@[^\s@]+\.[a-z]{2,}$",
            r"^\p{Greek}+$",
            r"ab*c?",
            r"^x{0}$",
        ];
        let mut rng = Rng::new(42);
        for p in patterns {
            let re = regex::Regex::new(p).expect("test pattern");
            for _ in 0..200 {
                let s = matching(p, &mut rng).expect("parses");
                assert!(re.is_match(&s), "{s:?} does not match {p}");
            }
        }
    }

    #[test]
    fn a_pattern_that_does_not_parse_gives_none() {
        assert!(matching("((", &mut Rng::new(1)).is_none());
    }
}
