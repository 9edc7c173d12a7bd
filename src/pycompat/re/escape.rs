//! Backslash escapes and character classes, inside and outside `[…]`.

use std::fmt::Write as _;

use super::{Flags, PyReError, Translator, category, literal, unsupported};

/// One member of a Python character class.
enum Member {
    Char(char),
    /// `\d`, `\w`, `\s` (or upper case for the complement).
    Category(char),
}

fn hex(t: &mut Translator, n: usize) -> Result<char, PyReError> {
    let mut s = String::new();
    for _ in 0..n {
        s.push(t.next()?);
    }
    u32::from_str_radix(&s, 16)
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(|| unsupported("a surrogate or invalid code point escape"))
}

fn is_oct(c: Option<char>) -> bool {
    c.is_some_and(|c| ('0'..='7').contains(&c))
}

/// Up to `more` further octal digits after `first`, as a character.
fn octal(t: &mut Translator, first: char, more: usize) -> Result<char, PyReError> {
    let mut s = first.to_string();
    for _ in 0..more {
        if is_oct(t.peek()) {
            s.push(t.next()?);
        }
    }
    u32::from_str_radix(&s, 8)
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(|| unsupported("an octal escape out of range"))
}

/// The escapes that mean one character in both places.
fn simple(t: &mut Translator, c: char) -> Result<Option<char>, PyReError> {
    Ok(Some(match c {
        'a' => '\x07',
        'f' => '\x0c',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'v' => '\x0b',
        'x' => hex(t, 2)?,
        'u' => hex(t, 4)?,
        'U' => hex(t, 8)?,
        'N' => return Err(unsupported("`\\N{…}` named characters")),
        _ => return Ok(None),
    }))
}

impl Translator {
    /// After a `\` outside a class.
    pub(super) fn escape(&mut self, flags: Flags) -> Result<(), PyReError> {
        let c = self.next()?;
        if let Some(ch) = simple(self, c)? {
            self.out.push_str(&literal(ch));
            return Ok(());
        }
        match c {
            'A' => self.out.push_str("\\A"),
            'Z' => self.out.push_str("\\z"),
            'b' | 'B' => self.boundary(c == 'b', flags),
            'd' | 'w' | 's' => {
                let _ = write!(self.out, "[{}]", category(c, flags));
            }
            'D' | 'W' | 'S' => {
                let _ = write!(self.out, "[^{}]", category(c, flags));
            }
            '0' => {
                let ch = octal(self, '0', 2)?;
                self.out.push_str(&literal(ch));
            }
            '1'..='9' => self.digits_escape(c)?,
            _ => self.out.push_str(&literal(c)),
        }
        Ok(())
    }

    /// `\b` or `\B` with Python's word class; Python's `\B` fails on an empty text.
    fn boundary(&mut self, at_edge: bool, flags: Flags) {
        let w = format!("[{}]", category('w', flags));
        let _ = if at_edge {
            write!(self.out, "(?:(?<={w})(?!{w})|(?<!{w})(?={w}))")
        } else {
            write!(self.out, "(?:(?<={w})(?={w})|(?<!{w})(?!{w})(?!\\A\\z))")
        };
    }

    /// `\1`–`\99` (a back-reference) or a three-digit octal escape.
    fn digits_escape(&mut self, first: char) -> Result<(), PyReError> {
        let mut number = first.to_string();
        if let Some(second) = self.peek().filter(char::is_ascii_digit) {
            if let Some(third) = self
                .peek_at(1)
                .filter(|&t| is_oct(Some(first)) && is_oct(Some(second)) && is_oct(Some(t)))
            {
                self.at += 2;
                let code = u32::from_str_radix(&format!("{first}{second}{third}"), 8).unwrap_or(0);
                let ch = char::from_u32(code)
                    .ok_or_else(|| unsupported("an octal escape out of range"))?;
                self.out.push_str(&literal(ch));
                return Ok(());
            }
            number.push(second);
            self.at += 1;
        }
        let _ = write!(self.out, "(?:\\{number})");
        Ok(())
    }

    /// After a `[`: a Python class, written with every member escaped.
    pub(super) fn class(&mut self, flags: Flags) -> Result<(), PyReError> {
        let negate = self.eat('^');
        let mut members: Vec<String> = Vec::new();
        loop {
            let c = self.next()?;
            if c == ']' && !members.is_empty() {
                break;
            }
            let first = self.class_member(c)?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|n| n != ']') {
                self.at += 1;
                let d = self.next()?;
                let second = self.class_member(d)?;
                let (Member::Char(lo), Member::Char(hi)) = (first, second) else {
                    return Err(unsupported("a class range with a category"));
                };
                members.push(format!("{}-{}", literal(lo), literal(hi)));
            } else {
                members.push(match first {
                    Member::Char(ch) => literal(ch),
                    Member::Category(k) if k.is_ascii_lowercase() => category(k, flags).to_owned(),
                    Member::Category(k) => format!("[^{}]", category(k, flags)),
                });
            }
        }
        self.out.push('[');
        if negate {
            self.out.push('^');
        }
        for m in members {
            self.out.push_str(&m);
        }
        self.out.push(']');
        Ok(())
    }

    fn class_member(&mut self, c: char) -> Result<Member, PyReError> {
        if c != '\\' {
            return Ok(Member::Char(c));
        }
        let e = self.next()?;
        if let Some(ch) = simple(self, e)? {
            return Ok(Member::Char(ch));
        }
        Ok(match e {
            'b' => Member::Char('\x08'),
            'd' | 'w' | 's' | 'D' | 'W' | 'S' => Member::Category(e),
            '0'..='7' => Member::Char(octal(self, e, 2)?),
            _ => Member::Char(e),
        })
    }
}
