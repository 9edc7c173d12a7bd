//! Whether Python 3.11's `re.compile` accepts a pattern: a port of the checks in CPython's
//! `re/_parser.py` (syntax, escapes, groups and references, inline flags, repeats) and the one
//! check of `re/_compiler.py` that can fail (look-behinds must have a fixed width).
//!
//! mcp-toolproof decides whether a tool is offered to the model with `jsonschema`'s meta-schema
//! check, which compiles every `pattern` with Python's `re`; ECMA-262 and Rust regex syntax accept
//! and reject different patterns (`\p{L}` and `(?<name>…)` pass in ECMA, fail in Python), so the
//! tool list, and with it the cache key, only matches when Python's rules are applied.
//!
//! Known gaps, all exotic: `\N{NAME}` is accepted for any name made of letters, digits, spaces
//! and hyphens (Python looks the name up), group names use Rust's notion of alphanumeric for `str.isidentifier`, and conditional
//! group numbers accept ASCII digits only.

use std::collections::{HashMap, HashSet};

/// `_sre.MAXREPEAT`.
const MAXREPEAT: u128 = 4_294_967_295;
/// `_sre.MAXGROUPS`.
const MAXGROUPS: usize = 1_073_741_823;
/// `_parser.MAXWIDTH`.
const MAXWIDTH: u128 = 1 << 64;
/// `_compiler.MAXCODE`.
const MAXCODE: u128 = (1 << 32) - 1;

const FLAG_TEMPLATE: u32 = 1;
const FLAG_LOCALE: u32 = 4;
const FLAG_VERBOSE: u32 = 64;
const FLAG_DEBUG: u32 = 128;
const FLAG_ASCII: u32 = 256;
const FLAG_UNICODE: u32 = 32;
const TYPE_FLAGS: u32 = FLAG_ASCII | FLAG_LOCALE | FLAG_UNICODE;
const GLOBAL_FLAGS: u32 = FLAG_DEBUG | FLAG_TEMPLATE;

/// Whether Python's `re.compile(pattern)` succeeds.
pub fn compiles(pattern: &str) -> bool {
    let Some(tokens) = tokenize(pattern) else {
        return false;
    };
    let mut p = Parser {
        tokens,
        at: 0,
        flags: 0,
        groupwidths: vec![None],
        groupdict: HashMap::new(),
        lookbehindgroups: None,
        grouprefpos: HashSet::new(),
        repeats: false,
    };
    p.parse_pattern().is_ok()
}

/// A pattern Python rejects.
struct Fail;

type R<T> = Result<T, Fail>;

/// One token of the pattern: a character, or a backslash and the character after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Char(char),
    Esc(char),
}

/// Splits a pattern into tokens; `None` when it ends with a lone backslash.
fn tokenize(pattern: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(Tok::Esc(chars.next()?));
        } else {
            out.push(Tok::Char(c));
        }
    }
    Some(out)
}

/// What the repeat rules need to know about the last item of a sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `^`, `$`, `\A`, `\b`, `\B`, `\Z`: nothing to repeat.
    At,
    /// Already repeated: a second quantifier is a "multiple repeat".
    Repeat,
    /// Anything else.
    Other,
}

/// Minimum and maximum number of characters an item matches.
type Width = (u128, u128);

#[derive(Debug, Clone, Copy)]
struct Item {
    kind: Kind,
    width: Width,
}

impl Item {
    fn unit() -> Item {
        Item {
            kind: Kind::Other,
            width: (1, 1),
        }
    }

    fn other(width: Width) -> Item {
        Item {
            kind: Kind::Other,
            width,
        }
    }

    fn at() -> Item {
        Item {
            kind: Kind::At,
            width: (0, 0),
        }
    }
}

/// The width of a sequence (`SubPattern.getwidth`).
fn seq_width(items: &[Item]) -> Width {
    let (lo, hi) = items.iter().fold((0u128, 0u128), |(lo, hi), it| {
        (lo.saturating_add(it.width.0), hi.saturating_add(it.width.1))
    });
    (lo.min(MAXWIDTH), hi.min(MAXWIDTH))
}

/// A class member: a known character, one whose value we do not compute, or a category.
#[derive(Debug, Clone, Copy)]
enum Member {
    Lit(Option<u32>),
    Category,
}

fn flag(c: char) -> Option<u32> {
    Some(match c {
        'i' => 2,
        'L' => FLAG_LOCALE,
        'm' => 8,
        's' => 16,
        'x' => FLAG_VERBOSE,
        'a' => FLAG_ASCII,
        't' => FLAG_TEMPLATE,
        'u' => FLAG_UNICODE,
        _ => return None,
    })
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

struct Parser {
    tokens: Vec<Tok>,
    at: usize,
    flags: u32,
    groupwidths: Vec<Option<Width>>,
    groupdict: HashMap<String, usize>,
    lookbehindgroups: Option<usize>,
    grouprefpos: HashSet<u128>,
    /// Whether any quantifier was seen (the compiler rejects them under `(?t)`).
    repeats: bool,
}

impl Parser {
    fn peek(&self) -> Option<Tok> {
        self.tokens.get(self.at).copied()
    }

    fn get(&mut self) -> Option<Tok> {
        let t = self.peek();
        if t.is_some() {
            self.at += 1;
        }
        t
    }

    /// `source.match(c)`: consumes a plain character.
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(Tok::Char(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn next_is(&self, f: impl Fn(char) -> bool) -> bool {
        matches!(self.peek(), Some(Tok::Char(c)) if f(c))
    }

    /// `source.getwhile(n, charset)`.
    fn get_while(&mut self, n: usize, f: impl Fn(char) -> bool) -> String {
        let mut out = String::new();
        for _ in 0..n {
            match self.peek() {
                Some(Tok::Char(c)) if f(c) => {
                    out.push(c);
                    self.at += 1;
                }
                _ => break,
            }
        }
        out
    }

    /// `source.getuntil(terminator)`: a non-empty name before the terminator.
    fn get_until(&mut self, terminator: char) -> R<String> {
        let mut out = String::new();
        loop {
            match self.get() {
                None => return Err(Fail),
                Some(Tok::Char(c)) if c == terminator => {
                    return if out.is_empty() { Err(Fail) } else { Ok(out) };
                }
                Some(Tok::Char(c)) => out.push(c),
                Some(Tok::Esc(c)) => {
                    out.push('\\');
                    out.push(c);
                }
            }
        }
    }

    fn groups(&self) -> usize {
        self.groupwidths.len()
    }

    fn check_group(&self, gid: usize) -> bool {
        gid < self.groups() && self.groupwidths[gid].is_some()
    }

    fn check_lookbehind_group(&self, gid: usize) -> R<()> {
        if let Some(first) = self.lookbehindgroups
            && (!self.check_group(gid) || gid >= first)
        {
            return Err(Fail);
        }
        Ok(())
    }

    fn group_ref(&self, gid: usize) -> R<Item> {
        if !self.check_group(gid) {
            return Err(Fail);
        }
        self.check_lookbehind_group(gid)?;
        Ok(Item::other(self.groupwidths[gid].unwrap_or((0, 0))))
    }

    fn parse_pattern(&mut self) -> R<()> {
        self.parse_sub(false, 0)?;
        if self.flags & FLAG_ASCII != 0 && self.flags & FLAG_UNICODE != 0 {
            return Err(Fail);
        }
        if self.flags & FLAG_TEMPLATE != 0 && self.repeats {
            return Err(Fail); // unsupported template operator
        }
        if self.peek().is_some() {
            return Err(Fail); // unbalanced parenthesis
        }
        let groups = self.groups() as u128;
        if self.grouprefpos.iter().any(|&g| g >= groups) {
            return Err(Fail);
        }
        Ok(())
    }

    /// `_parse_sub`: alternatives separated by `|`, returning the width.
    fn parse_sub(&mut self, mut verbose: bool, nested: usize) -> R<Width> {
        let mut lo = MAXWIDTH;
        let mut hi = 0;
        let mut first = true;
        loop {
            let items = self.parse(verbose, nested + 1, nested == 0 && first)?;
            let (l, h) = seq_width(&items);
            lo = lo.min(l);
            hi = hi.max(h);
            first = false;
            if !self.eat('|') {
                break;
            }
            if nested == 0 {
                verbose = self.flags & FLAG_VERBOSE != 0;
            }
        }
        Ok((lo, hi))
    }

    /// `_parse`: one sequence, up to `|`, `)` or the end.
    fn parse(&mut self, mut verbose: bool, nested: usize, first: bool) -> R<Vec<Item>> {
        let mut items: Vec<Item> = Vec::new();
        while let Some(this) = self.peek() {
            if matches!(this, Tok::Char('|' | ')')) {
                break;
            }
            self.at += 1;
            if verbose {
                if matches!(
                    this,
                    Tok::Char(' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}')
                ) {
                    continue;
                }
                if this == Tok::Char('#') {
                    while !matches!(self.get(), None | Some(Tok::Char('\n'))) {}
                    continue;
                }
            }
            let c = match this {
                Tok::Esc(e) => {
                    let item = self.escape(e)?;
                    items.push(item);
                    continue;
                }
                Tok::Char(c) => c,
            };
            match c {
                '[' => {
                    self.class()?;
                    items.push(Item::unit());
                }
                '*' | '+' | '?' | '{' => {
                    let (min, max) = if c == '{' {
                        if self.peek() == Some(Tok::Char('}')) {
                            items.push(Item::unit());
                            continue;
                        }
                        let here = self.at;
                        let lo = self.get_while(usize::MAX, |d| d.is_ascii_digit());
                        let hi = if self.eat(',') {
                            self.get_while(usize::MAX, |d| d.is_ascii_digit())
                        } else {
                            lo.clone()
                        };
                        if !self.eat('}') {
                            items.push(Item::unit());
                            self.at = here;
                            continue;
                        }
                        let min = if lo.is_empty() { 0 } else { bound(&lo)? };
                        let max = if hi.is_empty() {
                            MAXREPEAT
                        } else {
                            bound(&hi)?
                        };
                        if !hi.is_empty() && max < min {
                            return Err(Fail);
                        }
                        (min, max)
                    } else {
                        match c {
                            '?' => (0, 1),
                            '*' => (0, MAXREPEAT),
                            _ => (1, MAXREPEAT),
                        }
                    };
                    let Some(last) = items.last_mut() else {
                        return Err(Fail); // nothing to repeat
                    };
                    match last.kind {
                        Kind::At => return Err(Fail),
                        Kind::Repeat => return Err(Fail), // multiple repeat
                        Kind::Other => {}
                    }
                    let _ = self.eat('?') || self.eat('+');
                    self.repeats = true;
                    let (i, j) = last.width;
                    let hi = if max == MAXREPEAT && j > 0 {
                        MAXWIDTH
                    } else {
                        j.saturating_mul(max)
                    };
                    *last = Item {
                        kind: Kind::Repeat,
                        width: (i.saturating_mul(min), hi),
                    };
                }
                '.' => items.push(Item::unit()),
                '^' | '$' => items.push(Item::at()),
                '(' => {
                    if let Some(item) = self.group(&mut verbose, nested, first, &items)? {
                        items.push(item);
                    }
                }
                _ => items.push(Item::unit()),
            }
        }
        Ok(items)
    }

    /// After `(`: a group, an extension, or inline flags (`None` when nothing is added).
    fn group(
        &mut self,
        verbose: &mut bool,
        nested: usize,
        first: bool,
        items: &[Item],
    ) -> R<Option<Item>> {
        let mut capture = true;
        let mut name = None;
        let mut add = 0;
        let mut del = 0;
        if self.eat('?') {
            let Some(Tok::Char(ch)) = self.get() else {
                return Err(Fail);
            };
            match ch {
                'P' => {
                    if self.eat('<') {
                        let n = self.get_until('>')?;
                        if !is_identifier(&n) {
                            return Err(Fail);
                        }
                        name = Some(n);
                    } else if self.eat('=') {
                        let n = self.get_until(')')?;
                        if !is_identifier(&n) {
                            return Err(Fail);
                        }
                        let gid = *self.groupdict.get(&n).ok_or(Fail)?;
                        return self.group_ref(gid).map(Some);
                    } else {
                        return Err(Fail);
                    }
                }
                ':' => capture = false,
                '#' => {
                    loop {
                        match self.get() {
                            None => return Err(Fail),
                            Some(Tok::Char(')')) => break,
                            Some(_) => {}
                        }
                    }
                    return Ok(None);
                }
                '=' | '!' | '<' => {
                    let behind = ch == '<';
                    let outer = self.lookbehindgroups;
                    if behind {
                        if !matches!(self.get(), Some(Tok::Char('=' | '!'))) {
                            return Err(Fail);
                        }
                        if outer.is_none() {
                            self.lookbehindgroups = Some(self.groups());
                        }
                    }
                    let (lo, hi) = self.parse_sub(*verbose, nested + 1)?;
                    if behind && outer.is_none() {
                        self.lookbehindgroups = None;
                    }
                    if !self.eat(')') {
                        return Err(Fail);
                    }
                    if behind && (lo > MAXCODE || lo != hi) {
                        return Err(Fail); // look-behind requires fixed-width pattern
                    }
                    return Ok(Some(Item::other((0, 0))));
                }
                '(' => return self.conditional(*verbose, nested).map(Some),
                '>' => capture = false,
                c if c == '-' || flag(c).is_some() => match self.inline_flags(c)? {
                    None => {
                        if !first || !items.is_empty() {
                            return Err(Fail); // global flags not at the start
                        }
                        *verbose = self.flags & FLAG_VERBOSE != 0;
                        return Ok(None);
                    }
                    Some((a, d)) => {
                        add = a;
                        del = d;
                        capture = false;
                    }
                },
                _ => return Err(Fail),
            }
        }
        let gid = if capture {
            let gid = self.groups();
            self.groupwidths.push(None);
            if self.groups() > MAXGROUPS {
                return Err(Fail);
            }
            if let Some(n) = name {
                if self.groupdict.contains_key(&n) {
                    return Err(Fail);
                }
                self.groupdict.insert(n, gid);
            }
            Some(gid)
        } else {
            None
        };
        let sub_verbose = (*verbose || add & FLAG_VERBOSE != 0) && del & FLAG_VERBOSE == 0;
        let width = self.parse_sub(sub_verbose, nested + 1)?;
        if !self.eat(')') {
            return Err(Fail);
        }
        if let Some(gid) = gid {
            self.groupwidths[gid] = Some(width);
        }
        Ok(Some(Item::other(width)))
    }

    /// `(?(group)yes|no)`, after `(?(`.
    fn conditional(&mut self, verbose: bool, nested: usize) -> R<Item> {
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

    /// A character set, after `[`.
    fn class(&mut self) -> R<()> {
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
    fn escape(&mut self, e: char) -> R<Item> {
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

/// A repeat bound; Python raises OverflowError at MAXREPEAT and above.
fn bound(digits: &str) -> R<u128> {
    match digits.parse::<u128>() {
        Ok(v) if v < MAXREPEAT => Ok(v),
        _ => Err(Fail),
    }
}

#[cfg(test)]
mod tests {
    use super::compiles;

    /// Patterns and whether CPython 3.11.7's `re.compile` accepts them
    /// (`fixtures/py_re.txt`, generated with the reference's interpreter).
    const FIXTURE: &str = include_str!("fixtures/py_re.txt");

    #[test]
    fn agrees_with_python_on_the_fixture() {
        let mut wrong = Vec::new();
        let mut n = 0;
        for line in FIXTURE.lines().filter(|l| !l.is_empty()) {
            let Some((verdict, pattern)) = line.split_once('\t') else {
                continue;
            };
            let Ok(pattern) = serde_json::from_str::<String>(pattern) else {
                continue;
            };
            n += 1;
            let expected = verdict == "ok";
            if compiles(&pattern) != expected {
                wrong.push(format!("{verdict} {pattern:?}"));
            }
        }
        assert!(n > 100, "fixture has {n} patterns");
        assert!(wrong.is_empty(), "disagreements:\n{}", wrong.join("\n"));
    }

    #[test]
    fn common_cases() {
        assert!(compiles(r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$"));
        assert!(compiles(r"^\d{4}-\d{2}-\d{2}$"));
        assert!(!compiles(r"^\p{L}+$"));
        assert!(!compiles("("));
        assert!(!compiles(r"a\"));
    }
}
