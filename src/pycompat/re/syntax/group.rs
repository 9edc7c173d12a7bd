//! Groups: capturing and named ones, back-references by name, comments, look-arounds,
//! conditionals, atomic groups and inline flags (`_parse` after `(` and `_parse_flags`).

use super::{
    FLAG_VERBOSE, Fail, GLOBAL_FLAGS, Item, MAXCODE, MAXGROUPS, Parser, R, TYPE_FLAGS, Tok, flag,
    is_identifier, seq_width,
};

/// What `(?` starts.
enum Ext {
    /// Something complete: a comment, a look-around, a reference, global flags.
    Done(Option<Item>),
    /// A group whose body follows.
    Open(Open),
}

/// A group about to be parsed: whether it captures, its name, and scoped flags.
struct Open {
    capture: bool,
    name: Option<String>,
    add: u32,
    del: u32,
}

impl Open {
    fn plain(capture: bool) -> Self {
        Open {
            capture,
            name: None,
            add: 0,
            del: 0,
        }
    }
}

impl Parser {
    /// After `(`: a group, an extension, or inline flags (`None` when nothing is added).
    pub(super) fn group(
        &mut self,
        verbose: &mut bool,
        nested: usize,
        first: bool,
        items: &[Item],
    ) -> R<Option<Item>> {
        let open = if self.eat('?') {
            match self.extension(verbose, nested, first, items)? {
                Ext::Done(item) => return Ok(item),
                Ext::Open(open) => open,
            }
        } else {
            Open::plain(true)
        };
        let gid = if open.capture {
            let gid = self.groups();
            self.groupwidths.push(None);
            if self.groups() > MAXGROUPS {
                return Err(Fail);
            }
            if let Some(n) = open.name {
                if self.groupdict.contains_key(&n) {
                    return Err(Fail);
                }
                self.groupdict.insert(n, gid);
            }
            Some(gid)
        } else {
            None
        };
        let sub_verbose =
            (*verbose || open.add & FLAG_VERBOSE != 0) && open.del & FLAG_VERBOSE == 0;
        let width = self.parse_sub(sub_verbose, nested + 1)?;
        if !self.eat(')') {
            return Err(Fail);
        }
        if let Some(gid) = gid {
            self.groupwidths[gid] = Some(width);
        }
        Ok(Some(Item::other(width)))
    }

    /// After `(?`.
    fn extension(
        &mut self,
        verbose: &mut bool,
        nested: usize,
        first: bool,
        items: &[Item],
    ) -> R<Ext> {
        let Some(Tok::Char(ch)) = self.get() else {
            return Err(Fail);
        };
        match ch {
            'P' => self.named(),
            ':' | '>' => Ok(Ext::Open(Open::plain(false))),
            '#' => loop {
                match self.get() {
                    None => return Err(Fail),
                    Some(Tok::Char(')')) => return Ok(Ext::Done(None)),
                    Some(_) => {}
                }
            },
            '=' | '!' | '<' => self.lookaround(ch == '<', *verbose, nested),
            '(' => self
                .conditional(*verbose, nested)
                .map(|i| Ext::Done(Some(i))),
            c if c == '-' || flag(c).is_some() => match self.inline_flags(c)? {
                None => {
                    if !first || !items.is_empty() {
                        return Err(Fail); // global flags not at the start
                    }
                    *verbose = self.flags & FLAG_VERBOSE != 0;
                    Ok(Ext::Done(None))
                }
                Some((add, del)) => Ok(Ext::Open(Open {
                    capture: false,
                    name: None,
                    add,
                    del,
                })),
            },
            _ => Err(Fail),
        }
    }

    /// After `(?P`: `<name>` opens a named group, `=name)` refers to one.
    fn named(&mut self) -> R<Ext> {
        if self.eat('<') {
            let n = self.get_until('>')?;
            if !is_identifier(&n) {
                return Err(Fail);
            }
            Ok(Ext::Open(Open {
                name: Some(n),
                ..Open::plain(true)
            }))
        } else if self.eat('=') {
            let n = self.get_until(')')?;
            if !is_identifier(&n) {
                return Err(Fail);
            }
            let gid = *self.groupdict.get(&n).ok_or(Fail)?;
            self.group_ref(gid).map(|i| Ext::Done(Some(i)))
        } else {
            Err(Fail)
        }
    }

    /// A look-ahead (after `(?=` or `(?!`) or a look-behind (after `(?<`), which must have a
    /// fixed width.
    fn lookaround(&mut self, behind: bool, verbose: bool, nested: usize) -> R<Ext> {
        let outer = self.lookbehindgroups;
        if behind {
            if !matches!(self.get(), Some(Tok::Char('=' | '!'))) {
                return Err(Fail);
            }
            if outer.is_none() {
                self.lookbehindgroups = Some(self.groups());
            }
        }
        let (lo, hi) = self.parse_sub(verbose, nested + 1)?;
        if behind && outer.is_none() {
            self.lookbehindgroups = None;
        }
        if !self.eat(')') {
            return Err(Fail);
        }
        if behind && (lo > MAXCODE || lo != hi) {
            return Err(Fail); // look-behind requires fixed-width pattern
        }
        Ok(Ext::Done(Some(Item::other((0, 0)))))
    }

    /// `(?(group)yes|no)`, after `(?(`.
    pub(super) fn conditional(&mut self, verbose: bool, nested: usize) -> R<Item> {
        let cond = self.get_until(')')?;
        let gid = if is_identifier(&cond) {
            *self.groupdict.get(&cond).ok_or(Fail)?
        } else {
            if !cond.chars().all(|c| c.is_ascii_digit()) {
                return Err(Fail);
            }
            let g: u128 = cond.parse().map_err(|_| Fail)?;
            if g == 0 || g >= MAXGROUPS as u128 {
                return Err(Fail);
            }
            self.grouprefpos.insert(g);
            usize::try_from(g).map_err(|_| Fail)?
        };
        self.check_lookbehind_group(gid)?;
        let yes = seq_width(&self.parse(verbose, nested + 1, false)?);
        let width = if self.eat('|') {
            let no = seq_width(&self.parse(verbose, nested + 1, false)?);
            if self.peek() == Some(Tok::Char('|')) {
                return Err(Fail);
            }
            (yes.0.min(no.0), yes.1.max(no.1))
        } else {
            (0, yes.1)
        };
        if !self.eat(')') {
            return Err(Fail);
        }
        Ok(Item::other(width))
    }

    /// `_parse_flags`: `None` for global flags (`(?i)`), else the flags of a scoped group.
    fn inline_flags(&mut self, mut ch: char) -> R<Option<(u32, u32)>> {
        let mut add = 0;
        let mut del = 0;
        if ch != '-' {
            loop {
                let f = flag(ch).ok_or(Fail)?;
                if ch == 'L' {
                    return Err(Fail);
                }
                add |= f;
                if f & TYPE_FLAGS != 0 && add & TYPE_FLAGS != f {
                    return Err(Fail);
                }
                ch = match self.get() {
                    Some(Tok::Char(c)) => c,
                    _ => return Err(Fail),
                };
                if matches!(ch, ')' | '-' | ':') {
                    break;
                }
                if flag(ch).is_none() {
                    return Err(Fail);
                }
            }
        }
        if ch == ')' {
            self.flags |= add;
            return Ok(None);
        }
        if add & GLOBAL_FLAGS != 0 {
            return Err(Fail);
        }
        if ch == '-' {
            ch = match self.get() {
                Some(Tok::Char(c)) if flag(c).is_some() => c,
                _ => return Err(Fail),
            };
            loop {
                let f = flag(ch).ok_or(Fail)?;
                if f & TYPE_FLAGS != 0 {
                    return Err(Fail);
                }
                del |= f;
                ch = match self.get() {
                    Some(Tok::Char(c)) => c,
                    _ => return Err(Fail),
                };
                if ch == ':' {
                    break;
                }
                if flag(ch).is_none() {
                    return Err(Fail);
                }
            }
        }
        if del & GLOBAL_FLAGS != 0 || add & del != 0 {
            return Err(Fail);
        }
        Ok(Some((add, del)))
    }
}
