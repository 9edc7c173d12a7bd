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
//!
//! Here: the tokens, the parser's state and its sequence-level rules (alternation, repeats);
//! [`group`] has groups, look-arounds, conditionals and inline flags, [`class`] character sets
//! and escapes.

mod class;
mod group;
#[cfg(test)]
mod tests;

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
pub(crate) fn compiles(pattern: &str) -> bool {
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
            if verbose && self.skips_verbose(this) {
                continue;
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
                '*' | '+' | '?' | '{' => self.quantifier(c, &mut items)?,
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

    /// Under the verbose flag: whether `this` is whitespace or starts a comment (which is
    /// then skipped to the end of its line).
    fn skips_verbose(&mut self, this: Tok) -> bool {
        if matches!(
            this,
            Tok::Char(' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}')
        ) {
            return true;
        }
        if this == Tok::Char('#') {
            while !matches!(self.get(), None | Some(Tok::Char('\n'))) {}
            return true;
        }
        false
    }

    /// A quantifier `c` (`*`, `+`, `?` or `{`) after the items so far: repeats the last one,
    /// or is a literal `{` when no `{m,n}` follows.
    fn quantifier(&mut self, c: char, items: &mut Vec<Item>) -> R<()> {
        let (min, max) = match c {
            '?' => (0, 1),
            '*' => (0, MAXREPEAT),
            '+' => (1, MAXREPEAT),
            _ => match self.braces()? {
                Some(range) => range,
                None => {
                    items.push(Item::unit());
                    return Ok(());
                }
            },
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
        Ok(())
    }

    /// `{m,n}` after the `{`: its bounds, or `None` (nothing consumed) when the brace is a
    /// literal.
    fn braces(&mut self) -> R<Option<(u128, u128)>> {
        if self.peek() == Some(Tok::Char('}')) {
            return Ok(None);
        }
        let here = self.at;
        let lo = self.get_while(usize::MAX, |d| d.is_ascii_digit());
        let hi = if self.eat(',') {
            self.get_while(usize::MAX, |d| d.is_ascii_digit())
        } else {
            lo.clone()
        };
        if !self.eat('}') {
            self.at = here;
            return Ok(None);
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
        Ok(Some((min, max)))
    }
}

/// A repeat bound; Python raises OverflowError at MAXREPEAT and above.
fn bound(digits: &str) -> R<u128> {
    match digits.parse::<u128>() {
        Ok(v) if v < MAXREPEAT => Ok(v),
        _ => Err(Fail),
    }
}
