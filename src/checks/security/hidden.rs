//! `security-hidden-text`: characters a reader of the definition does not see but a model
//! reads: Unicode tag characters (U+E0000–E007F, which spell ASCII invisibly), zero-width
//! characters, bidirectional controls, other invisibles, runs of variation selectors, and
//! control characters. Emoji sequences are left alone: a zero-width joiner or non-joiner
//! between two non-ASCII characters, one variation selector, and tag characters after 🏴
//! (a subdivision flag).

use super::super::Problem;
use super::Field;

/// What kind of hidden character `c` is, if it is one.
fn kind(c: char) -> Option<&'static str> {
    Some(match u32::from(c) {
        0xE0000..=0xE007F => "Unicode tag character",
        0x200B..=0x200D | 0x2060 | 0xFEFF => "zero-width character",
        0x200E | 0x200F | 0x061C | 0x202A..=0x202E | 0x2066..=0x2069 => "bidirectional control",
        0x00AD
        | 0x034F
        | 0x115F
        | 0x1160
        | 0x17B4
        | 0x17B5
        | 0x180B..=0x180E
        | 0x2061..=0x2064
        | 0x206A..=0x206F
        | 0x3164
        | 0xFFA0
        | 0xFFF9..=0xFFFB
        | 0x1D173..=0x1D17A => "invisible character",
        0xFE00..=0xFE0F | 0xE0100..=0xE01EF => "variation selector",
        0x00..=0x08 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F..=0x9F => "control character",
        _ => return None,
    })
}

/// Whether the hidden character at `i` of `chars` is part of an emoji or a script's normal
/// writing.
fn benign(chars: &[char], i: usize) -> bool {
    let c = u32::from(chars[i]);
    let before = i.checked_sub(1).map(|j| chars[j]);
    let after = chars.get(i + 1).copied();
    let non_ascii = |c: Option<char>| c.is_some_and(|c| !c.is_ascii() && kind(c).is_none());
    match c {
        // ZWJ and ZWNJ join emoji and shape Indic and Arabic script.
        0x200C | 0x200D => non_ascii(before) && non_ascii(after),
        // One variation selector after a visible character picks its glyph (❤️).
        0xFE00..=0xFE0F => {
            non_ascii(before) && !after.is_some_and(|a| (0xFE00..=0xFE0F).contains(&u32::from(a)))
        }
        // 🏴 then tag letters then CANCEL TAG: the flags of England, Scotland, Wales.
        0xE0020..=0xE007F => {
            let start = chars[..i]
                .iter()
                .rposition(|c| !(0xE0020..=0xE007E).contains(&u32::from(*c)));
            start.is_some_and(|s| chars[s] == '\u{1F3F4}')
                && chars[i..]
                    .iter()
                    .find(|c| !(0xE0020..=0xE007E).contains(&u32::from(**c)))
                    == Some(&'\u{E007F}')
        }
        // A byte-order mark opening the text is an encoding's leftover, not a message.
        0xFEFF => i == 0,
        _ => false,
    }
}

/// One finding for all the hidden characters of a tool: how many, of what kinds, where the
/// first is, and what tag characters spell.
pub(super) fn check(fields: &[Field]) -> Option<Problem> {
    let mut count = 0;
    let mut kinds: Vec<&str> = Vec::new();
    let mut first: Option<(&Field, usize, char)> = None;
    let mut spelled = String::new();
    for field in fields {
        let chars: Vec<char> = field.text.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let Some(k) = kind(c) else { continue };
            if benign(&chars, i) {
                continue;
            }
            count += 1;
            if !kinds.contains(&k) {
                kinds.push(k);
            }
            if first.is_none() {
                first = Some((field, i, c));
            }
            if (0xE0020..=0xE007E).contains(&u32::from(c)) {
                spelled.push(char::from_u32(u32::from(c) - 0xE0000).unwrap_or('?'));
            }
        }
    }
    let (field, at, c) = first?;
    let mut message = format!(
        "{count} hidden character{} ({}) in the tool's text, the first U+{:04X} at character \
         {} of {}",
        crate::outcome::plural(count),
        kinds.join(", "),
        u32::from(c),
        at + 1,
        field.where_,
    );
    let shown: String = field
        .text
        .chars()
        .skip(at.saturating_sub(30))
        .take(60)
        .collect();
    message.push_str(&format!(": {}", super::super::quote(&shown, 80)));
    if !spelled.trim().is_empty() {
        message.push_str(&format!(
            "; the tag characters spell {}",
            super::super::quote(&spelled, 160)
        ));
    }
    Some(Problem::new(
        message,
        "remove the hidden characters: a model reads them, a reviewer does not see them",
    ))
}
