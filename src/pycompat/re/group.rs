//! Groups: capturing, named, non-capturing, look-arounds, atomic, conditionals, comments and
//! scoped inline flags.

use std::fmt::Write as _;

use super::{Flags, PyReError, Translator, unsupported};

impl Translator {
    /// After a `(`.
    pub(super) fn group(&mut self, flags: Flags) -> Result<(), PyReError> {
        if !self.eat('?') {
            self.groups += 1;
            return self.body("(", flags);
        }
        let c = self.next()?;
        match c {
            ':' => self.body("(?:", flags),
            '=' | '!' => self.body(if c == '=' { "(?=" } else { "(?!" }, flags),
            '>' => self.body("(?>", flags),
            '#' => {
                while self.next()? != ')' {}
                Ok(())
            }
            '<' => {
                let kind = self.next()?;
                self.body(if kind == '=' { "(?<=" } else { "(?<!" }, flags)
            }
            'P' => self.named(flags),
            '(' => {
                let name = self.until(')')?;
                let number = self.group_number(&name)?;
                self.body(&format!("(?({number})"), flags)
            }
            _ => {
                self.at -= 1;
                self.scoped_flags(flags)
            }
        }
    }

    /// `(?P<name>…)` or `(?P=name)`.
    fn named(&mut self, flags: Flags) -> Result<(), PyReError> {
        if self.eat('<') {
            let name = self.until('>')?;
            self.groups += 1;
            self.names.insert(name, self.groups);
            return self.body("(", flags);
        }
        if self.eat('=') {
            let name = self.until(')')?;
            let number = self.group_number(&name)?;
            let _ = write!(self.out, "(?:\\{number})");
            return Ok(());
        }
        Err(unsupported("`(?P` not followed by `<` or `=`"))
    }

    /// `(?flags:…)`, `(?flags-flags:…)`, or global flags where Python still accepts them.
    fn scoped_flags(&mut self, flags: Flags) -> Result<(), PyReError> {
        let mut inner = flags;
        let mut on = true;
        loop {
            match self.next()? {
                '-' => on = false,
                ':' => break,
                ')' => {
                    // Global flags were read up front; nothing is left to apply.
                    return Ok(());
                }
                c => inner.set(c, on),
            }
        }
        let open = match (flags.ignore_case, inner.ignore_case) {
            (false, true) => "(?i:",
            (true, false) => "(?-i:",
            _ => "(?:",
        };
        self.body(open, inner)
    }

    /// Writes `open`, the group's content and its `)`.
    fn body(&mut self, open: &str, flags: Flags) -> Result<(), PyReError> {
        self.out.push_str(open);
        self.sequence(flags)?;
        if !self.eat(')') {
            return Err(unsupported("missing `)`"));
        }
        self.out.push(')');
        Ok(())
    }

    fn until(&mut self, end: char) -> Result<String, PyReError> {
        let mut s = String::new();
        loop {
            let c = self.next()?;
            if c == end {
                return Ok(s);
            }
            s.push(c);
        }
    }

    fn group_number(&self, name: &str) -> Result<usize, PyReError> {
        if let Ok(n) = name.parse::<usize>() {
            return Ok(n);
        }
        self.names
            .get(name)
            .copied()
            .ok_or_else(|| unsupported("a reference to an unknown group"))
    }
}
