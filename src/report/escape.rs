//! Text hygiene shared by the renderers: removing terminal escape sequences and control
//! characters from untrusted text, and shortening text to a length budget.
//!
//! Format-specific escaping (Markdown, workflow commands, JUnit's XML) lives beside each
//! renderer; this module makes text safe to show anywhere, and escapes it for HTML and the
//! badge's SVG alike.

use std::borrow::Cow;

/// Escapes the five characters markup gives a meaning to (`&`, `<`, `>`, `"`, `'`), for HTML
/// and XML text and attribute values alike.
pub(crate) fn markup(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Removes ANSI/VT escape sequences and makes every other control character visible, so text
/// that came from a server, a model or a file cannot move the cursor, repaint the terminal,
/// change the window title or hide itself.
///
/// Kept: `\n` and `\t`. `\r\n` becomes `\n`; a lone `\r` becomes `\n` (progress output stays
/// readable instead of overwriting itself). Other C0 controls and DEL become their Unicode
/// "control pictures" (`␇`, `␡`); C1 controls, bidirectional overrides and the noncharacters
/// U+FFFE/U+FFFF become `�`.
pub(crate) fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_cleaning) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => skip_escape_sequence(&mut chars),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            '\0'..='\x1f' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')),
            '\x7f' => out.push('\u{2421}'),
            c if is_hidden(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_cleaning(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_hidden(c)
}

/// C1 controls (`\u{9b}` is an 8-bit CSI), bidi embeddings/overrides/isolates, noncharacters.
fn is_hidden(c: char) -> bool {
    matches!(c,
        '\u{80}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{fffe}'
        | '\u{ffff}')
}

/// Consumes one escape sequence after its ESC: CSI (`ESC [ … final`), string commands (OSC,
/// DCS, SOS, PM, APC: up to BEL, `ESC \` or the end of the line) and two-character escapes.
fn skip_escape_sequence(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.peek().copied() {
        Some('[') => {
            chars.next();
            // Parameters and intermediates, then one final byte in 0x40..=0x7e.
            while let Some(&c) = chars.peek() {
                if ('\x20'..='\x3f').contains(&c) {
                    chars.next();
                } else {
                    if ('\x40'..='\x7e').contains(&c) {
                        chars.next();
                    }
                    break;
                }
            }
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            while let Some(&c) = chars.peek() {
                match c {
                    '\x07' => {
                        chars.next();
                        break;
                    }
                    '\x1b' => {
                        chars.next();
                        if chars.peek() == Some(&'\\') {
                            chars.next();
                        }
                        break;
                    }
                    // An unterminated string command must not swallow the following lines.
                    '\n' | '\r' => break,
                    _ => {
                        chars.next();
                    }
                }
            }
        }
        Some(c) if ('\x20'..='\x2f').contains(&c) => {
            // nF escape: intermediates then one final byte.
            while let Some(&c) = chars.peek() {
                chars.next();
                if !('\x20'..='\x2f').contains(&c) {
                    break;
                }
            }
        }
        Some(c) if ('\x30'..='\x7e').contains(&c) => {
            chars.next();
        }
        _ => {}
    }
}

/// Makes text printed to a CI log unable to act as a GitHub Actions workflow command.
///
/// The runner treats a line as a command when, after leading whitespace, it starts with `::`,
/// and (legacy syntax) when `##[` appears anywhere in it. Such lines get a zero-width space
/// (U+200B, which the runner does not trim) before the `::`, and every `##[` becomes
/// `##\u{200b}[`. Other text is returned unchanged.
pub(crate) fn defuse_workflow_commands(text: &str) -> Cow<'_, str> {
    let starts_command = |line: &str| line.trim_start().starts_with("::");
    if !text.contains("##[") && !text.split('\n').any(starts_command) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if starts_command(line) {
            let indent = line.len() - line.trim_start().len();
            out.push_str(&line[..indent]);
            out.push('\u{200b}');
            out.push_str(&line[indent..].replace("##[", "##\u{200b}["));
        } else {
            out.push_str(&line.replace("##[", "##\u{200b}["));
        }
    }
    Cow::Owned(out)
}

/// Shortens `text` to at most `max_chars` characters, ending it with `…` when cut.
pub(crate) fn truncate_chars(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        None => Cow::Borrowed(text),
        Some(_) => {
            let keep = max_chars.saturating_sub(1);
            let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
            Cow::Owned(format!("{}…", &text[..end]))
        }
    }
}

/// Untrusted text on one line: escape sequences removed, every other control character
/// (line breaks and tabs included) a space, surrounding spaces trimmed, at most `max_chars`
/// characters (ending with `…` when cut).
pub(crate) fn one_line(text: &str, max_chars: usize) -> String {
    let flat: String = clean(text)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    truncate_chars(flat.trim(), max_chars).into_owned()
}

/// The first line of `text` (everything before the first `\n` or `\r`).
pub(crate) fn first_line(text: &str) -> &str {
    text.split(['\n', '\r']).next().unwrap_or("")
}

/// The last `max_lines` lines of `text`, with a note saying how many were left out before them.
pub(crate) fn tail_lines(text: &str, max_lines: usize) -> Cow<'_, str> {
    let trimmed = text.trim_end_matches(['\n', '\r']);
    let total = trimmed.lines().count();
    if total <= max_lines {
        return Cow::Borrowed(trimmed);
    }
    let skipped = total - max_lines;
    let mut out = format!("… {skipped} earlier line{} left out\n", plural(skipped));
    for (i, line) in trimmed.lines().skip(skipped).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    Cow::Owned(out)
}

/// At most `max_lines` lines of `text` (and a note): all of them, or the first quarter and the
/// last ones with a line between them saying how many were left out. A program that fails at
/// start often says why first and then prints its usage, a traceback ends with the exception:
/// both ends matter.
pub(crate) fn head_and_tail_lines(text: &str, max_lines: usize) -> Cow<'_, str> {
    let trimmed = text.trim_end_matches(['\n', '\r']);
    let total = trimmed.lines().count();
    if total <= max_lines {
        return Cow::Borrowed(trimmed);
    }
    let head = (max_lines / 4).max(1);
    let tail = max_lines.saturating_sub(head);
    let skipped = total - head - tail;
    let lines: Vec<&str> = trimmed.lines().collect();
    let note = format!("… {skipped} line{} left out …", plural(skipped));
    let shown: Vec<&str> = lines[..head]
        .iter()
        .copied()
        .chain([note.as_str()])
        .chain(lines[total - tail..].iter().copied())
        .collect();
    Cow::Owned(shown.join("\n"))
}

pub(crate) use crate::outcome::plural;

/// Formats milliseconds the way every human-facing report shows a latency: `625ms`, `0.4ms`.
pub(crate) fn format_ms(ms: f64) -> String {
    if ms > 0.0 && ms < 1.0 {
        format!("{ms:.1}ms")
    } else {
        format!("{ms:.0}ms")
    }
}

/// Formats a wall time in seconds with two decimals: `2.76s`.
pub(crate) fn format_secs(ms: f64) -> String {
    format!("{:.2}s", ms / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_flattens_cleans_and_cuts() {
        assert_eq!(one_line("  a\nb\tc\u{1b}[31m d  ", 80), "a b c d");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(one_line("\u{7}bell", 80), "␇bell");
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(clean("plain text\nnext\tline"), Cow::Borrowed(_)));
    }

    #[test]
    fn csi_sgr_and_cursor_moves_are_removed() {
        assert_eq!(clean("\x1b[31mred\x1b[0m \x1b[2J\x1b[1;1Hhome"), "red home");
    }

    #[test]
    fn osc_title_and_hyperlinks_are_removed() {
        assert_eq!(clean("a\x1b]0;pwned\x07b"), "ab");
        assert_eq!(
            clean("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"),
            "click"
        );
    }

    #[test]
    fn unterminated_osc_stops_at_the_line_end() {
        assert_eq!(clean("x\x1b]0;title\nnext line"), "x\nnext line");
    }

    #[test]
    fn other_controls_become_visible() {
        assert_eq!(clean("bell\x07 bs\x08 del\x7f"), "bell␇ bs␈ del␡");
        assert_eq!(clean("csi\u{9b}31m"), "csi\u{fffd}31m");
        assert_eq!(clean("abc\u{202e}fed"), "abc\u{fffd}fed");
    }

    #[test]
    fn carriage_returns_become_newlines() {
        assert_eq!(clean("a\r\nb\rc"), "a\nb\nc");
    }

    #[test]
    fn two_character_escapes_are_removed() {
        assert_eq!(clean("a\x1bcb\x1b(Bc"), "abc");
        assert_eq!(clean("trailing\x1b"), "trailing");
    }

    #[test]
    fn workflow_commands_are_defused() {
        assert!(matches!(
            defuse_workflow_commands("a ::b:: c\n"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            defuse_workflow_commands("ok\n  ::error::x\nsee ##[error]y"),
            "ok\n  \u{200b}::error::x\nsee ##\u{200b}[error]y"
        );
        let out = defuse_workflow_commands("::set-output name=a::b");
        assert!(!out.trim_start().starts_with("::"));
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate_chars("héllo wörld", 5), "héll…");
        assert_eq!(truncate_chars("short", 5), "short");
        assert_eq!(truncate_chars("", 0), "");
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        assert_eq!(
            tail_lines("1\n2\n3\n4\n", 2),
            "… 2 earlier lines left out\n3\n4"
        );
        assert_eq!(tail_lines("1\n2\n", 5), "1\n2");
    }

    #[test]
    fn head_and_tail_keep_both_ends_and_count_the_middle() {
        let text: String = (1..=10).map(|i| format!("{i}\n")).collect();
        assert_eq!(
            head_and_tail_lines(&text, 8),
            "1\n2\n… 2 lines left out …\n5\n6\n7\n8\n9\n10"
        );
        assert_eq!(
            head_and_tail_lines(&text, 9),
            "1\n2\n… 1 line left out …\n4\n5\n6\n7\n8\n9\n10"
        );
        assert_eq!(head_and_tail_lines("  a\n    b\n", 5), "  a\n    b");
        assert_eq!(head_and_tail_lines("1\n2\n3", 1), "1\n… 2 lines left out …");
    }

    #[test]
    fn times_format() {
        assert_eq!(format_ms(625.4), "625ms");
        assert_eq!(format_ms(0.42), "0.4ms");
        assert_eq!(format_ms(0.0), "0ms");
        assert_eq!(format_secs(2756.0), "2.76s");
    }
}
