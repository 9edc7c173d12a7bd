//! Character sets (`[...]`, with ranges) and escapes, inside and outside a set.

use super::{Fail, Item, Member, Parser, R, Tok};

impl Parser {
    /// A character set, after `[`.
    pub(super) fn class(&mut self) -> R<()> {
        self.eat('^');
        let mut members = 0usize;
        loop {
            let this = self.get().ok_or(Fail)?;
            if this == Tok::Char(']') && members > 0 {
                return Ok(());
            }
            let code1 = self.member(this)?;
            if self.eat('-') {
                let that = self.get().ok_or(Fail)?;
                if that == Tok::Char(']') {
                    return Ok(());
                }
                let code2 = self.member(that)?;
                match (code1, code2) {
                    (Member::Lit(lo), Member::Lit(hi)) => {
                        if let (Some(lo), Some(hi)) = (lo, hi)
                            && hi < lo
                        {
                            return Err(Fail);
                        }
                    }
                    _ => return Err(Fail), // bad character range
                }
            }
            members += 1;
        }
    }

    fn member(&mut self, tok: Tok) -> R<Member> {
        match tok {
            Tok::Char(c) => Ok(Member::Lit(Some(c as u32))),
            Tok::Esc(e) => self.class_escape(e),
        }
    }

    /// `_class_escape`: an escape inside a character set.
    fn class_escape(&mut self, e: char) -> R<Member> {
        let lit = |v: u32| Ok(Member::Lit(Some(v)));
        match e {
            'a' => lit(7),
            'b' => lit(8),
            'f' => lit(12),
            'n' => lit(10),
            'r' => lit(13),
            't' => lit(9),
            'v' => lit(11),
            '\\' => lit(92),
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => Ok(Member::Category),
            'x' | 'u' | 'U' => self.hex_escape(e).map(|v| Member::Lit(Some(v))),
            'N' => {
                self.named_escape()?;
                Ok(Member::Lit(None))
            }
            '0'..='7' => {
                let digits = format!("{e}{}", self.get_while(2, |d| ('0'..='7').contains(&d)));
                let v = u32::from_str_radix(&digits, 8).map_err(|_| Fail)?;
                if v > 0o377 { Err(Fail) } else { lit(v) }
            }
            '8' | '9' => Err(Fail),
            c if c.is_ascii_alphabetic() => Err(Fail),
            c => lit(c as u32),
        }
    }

    /// `\xHH`, `\uHHHH`, `\UHHHHHHHH` after the letter.
    fn hex_escape(&mut self, e: char) -> R<u32> {
        let n = match e {
            'x' => 2,
            'u' => 4,
            _ => 8,
        };
        let digits = self.get_while(n, |d| d.is_ascii_hexdigit());
        if digits.len() != n {
            return Err(Fail);
        }
        let v = u32::from_str_radix(&digits, 16).map_err(|_| Fail)?;
        if v > 0x10FFFF { Err(Fail) } else { Ok(v) }
    }

    /// `\N{NAME}` after the `N`. The name is not looked up, only checked for the characters
    /// Unicode names are made of.
    fn named_escape(&mut self) -> R<()> {
        if !self.eat('{') {
            return Err(Fail);
        }
        let name = self.get_until('}')?;
        if name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-')
        {
            Ok(())
        } else {
            Err(Fail)
        }
    }

    /// `_escape`: an escape outside a character set.
    pub(super) fn escape(&mut self, e: char) -> R<Item> {
        match e {
            'A' | 'b' | 'B' | 'Z' => Ok(Item::at()),
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => Ok(Item::unit()),
            'a' | 'f' | 'n' | 'r' | 't' | 'v' | '\\' => Ok(Item::unit()),
            'x' | 'u' | 'U' => self.hex_escape(e).map(|_| Item::unit()),
            'N' => self.named_escape().map(|_| Item::unit()),
            '0' => {
                self.get_while(2, |d| ('0'..='7').contains(&d));
                Ok(Item::unit())
            }
            '1'..='9' => {
                let mut digits = e.to_string();
                if self.next_is(|d| d.is_ascii_digit()) {
                    if let Some(Tok::Char(d)) = self.get() {
                        digits.push(d);
                    }
                    let octal = |c: char| ('0'..='7').contains(&c);
                    if digits.chars().all(octal) && self.next_is(octal) {
                        if let Some(Tok::Char(d)) = self.get() {
                            digits.push(d);
                        }
                        let v = u32::from_str_radix(&digits, 8).map_err(|_| Fail)?;
                        return if v > 0o377 {
                            Err(Fail)
                        } else {
                            Ok(Item::unit())
                        };
                    }
                }
                let gid: usize = digits.parse().map_err(|_| Fail)?;
                if gid < self.groups() {
                    self.group_ref(gid)
                } else {
                    Err(Fail) // invalid group reference
                }
            }
            c if c.is_ascii_alphabetic() => Err(Fail),
            _ => Ok(Item::unit()),
        }
    }
}
