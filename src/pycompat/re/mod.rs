//! Python `re.search` verdicts with fancy-regex. A pattern Python accepts ([`compiles`]) is
//! rewritten into fancy-regex syntax with Python's meaning:
//!
//! - `\d`, `\w`, `\s` (and `\b`, `\B`, built on `\w`) use the classes of the reference's
//!   Python (Unicode 14), or their ASCII forms under `(?a)`; `\B` never matches an empty text;
//! - `$` also matches before a newline that ends the text (unless `(?m)`), `\Z` is the very end,
//!   `.` stops at `\n` only;
//! - `(?P<name>…)` becomes a numbered group with the same number, `(?P=name)` a back-reference,
//!   `(?(name)…)` a numbered conditional; `(?x)` whitespace and comments are dropped here (Python
//!   keeps whitespace inside `[…]`, Rust would not); `{,n}` becomes `{0,n}` and a `{` that does
//!   not start a repeat is a literal; octal escapes, `\uXXXX`, `\UXXXXXXXX` become `\x{…}`;
//! - inside `[…]`, `[`, `&&`, `--` and `~~` are literals as in Python (every member is written
//!   as an escape, so Rust's nested classes and set operations never apply).
//!
//! Not translated (an error says so): `\N{NAME}`, which needs Unicode's name table.

mod syntax;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

pub(crate) use syntax::compiles;

use super::tables;

/// A Python regular expression, ready to answer `re.search(pattern, text) is not None`.
#[derive(Debug, Clone)]
pub(crate) struct PyRegex {
    regex: fancy_regex::Regex,
}

/// Why a pattern cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PyReError {
    /// Python's `re.compile` raises on it; the reason, when a Rust parser can name one.
    #[error("not a valid Python regular expression{}", .0.as_deref().map(|r| format!(" ({r})")).unwrap_or_default())]
    Invalid(Option<String>),
    /// Python accepts it, toolproof cannot evaluate it with Python's meaning.
    #[error("a valid Python regular expression that toolproof cannot evaluate: {0}")]
    Unsupported(String),
}

impl PyRegex {
    /// Compiles `pattern` with Python's syntax and meaning.
    pub(crate) fn new(pattern: &str) -> Result<PyRegex, PyReError> {
        if !compiles(pattern) {
            let reason = fancy_regex::Regex::new(pattern)
                .err()
                .map(|e| lowercase_first(&e.to_string()));
            return Err(PyReError::Invalid(reason));
        }
        let rust = translate(pattern)?;
        let regex = fancy_regex::RegexBuilder::new(&rust)
            .build()
            .map_err(|e| PyReError::Unsupported(e.to_string()))?;
        Ok(PyRegex { regex })
    }

    /// Whether the pattern matches anywhere in `text` (`re.search`); an error when the
    /// backtracking limit is hit.
    pub(crate) fn search(&self, text: &str) -> Result<bool, String> {
        self.regex.is_match(text).map_err(|e| e.to_string())
    }
}

fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_lowercase().chain(chars).collect::<String>()
    })
}

/// The body (no brackets) of a class made of code-point ranges.
fn class_body(ranges: &[(u32, u32)]) -> String {
    let mut out = String::new();
    for &(lo, hi) in ranges {
        if lo == hi {
            let _ = write!(out, "\\x{{{lo:x}}}");
        } else {
            let _ = write!(out, "\\x{{{lo:x}}}-\\x{{{hi:x}}}");
        }
    }
    out
}

static DIGIT: LazyLock<String> = LazyLock::new(|| class_body(tables::DIGIT));
static WORD: LazyLock<String> = LazyLock::new(|| class_body(tables::WORD));
static SPACE: LazyLock<String> = LazyLock::new(|| class_body(tables::SPACE));
const ASCII_DIGIT: &str = "0-9";
const ASCII_WORD: &str = "0-9A-Za-z_";
const ASCII_SPACE: &str = "\\x{9}-\\x{d}\\x{20}";

/// Inline flags that change how the translation is written.
#[derive(Debug, Clone, Copy, Default)]
struct Flags {
    ignore_case: bool,
    multiline: bool,
    dotall: bool,
    verbose: bool,
    ascii: bool,
}

impl Flags {
    fn set(&mut self, c: char, on: bool) {
        match c {
            'i' => self.ignore_case = on,
            'm' => self.multiline = on,
            's' => self.dotall = on,
            'x' => self.verbose = on,
            'a' => self.ascii = on,
            _ => {}
        }
    }
}

/// The class body for `\d`, `\w` or `\s` (lower case) under `flags`.
fn category(kind: char, flags: Flags) -> &'static str {
    match (kind.to_ascii_lowercase(), flags.ascii) {
        ('d', true) => ASCII_DIGIT,
        ('w', true) => ASCII_WORD,
        ('s', true) => ASCII_SPACE,
        ('d', false) => &DIGIT,
        ('w', false) => &WORD,
        _ if flags.ascii => ASCII_SPACE,
        _ => &SPACE,
    }
}

/// Rewrites a pattern Python accepts into fancy-regex syntax with the same verdicts.
pub(crate) fn translate(pattern: &str) -> Result<String, PyReError> {
    let mut t = Translator {
        chars: pattern.chars().collect(),
        at: 0,
        out: String::new(),
        groups: 0,
        names: HashMap::new(),
    };
    let flags = t.global_flags();
    if flags.ignore_case {
        t.out.push_str("(?i)");
    }
    t.sequence(flags)?;
    if t.at < t.chars.len() {
        return Err(PyReError::Unsupported("unbalanced `)`".into()));
    }
    Ok(t.out)
}

struct Translator {
    chars: Vec<char>,
    at: usize,
    out: String,
    groups: usize,
    names: HashMap<String, usize>,
}

fn unsupported(what: &str) -> PyReError {
    PyReError::Unsupported(what.to_owned())
}

/// `c` as a fancy-regex literal that means `c` alone, inside or outside a class.
fn literal(c: char) -> String {
    if c.is_ascii_alphanumeric() || (!c.is_ascii() && !c.is_whitespace()) {
        c.to_string()
    } else {
        format!("\\x{{{:x}}}", u32::from(c))
    }
}

impl Translator {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.at + n).copied()
    }

    fn next(&mut self) -> Result<char, PyReError> {
        let c = self.peek().ok_or_else(|| unsupported("unexpected end"))?;
        self.at += 1;
        Ok(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Flags set by `(?aimsux)` groups at the very start: Python applies them to the whole
    /// pattern.
    fn global_flags(&mut self) -> Flags {
        let mut flags = Flags::default();
        loop {
            let rest = &self.chars[self.at..];
            if rest.len() < 3 || rest[0] != '(' || rest[1] != '?' {
                return flags;
            }
            let Some(end) = rest.iter().position(|&c| c == ')') else {
                return flags;
            };
            let letters = &rest[2..end];
            if letters.is_empty() || !letters.iter().all(|c| "aiLmsux".contains(*c)) {
                return flags;
            }
            for &c in letters {
                flags.set(c, true);
            }
            self.at += end + 1;
        }
    }

    /// A sequence of alternatives, up to an unconsumed `)` or the end.
    fn sequence(&mut self, flags: Flags) -> Result<(), PyReError> {
        while let Some(c) = self.peek() {
            if flags.verbose && " \t\n\r\x0b\x0c".contains(c) {
                self.at += 1;
                continue;
            }
            if flags.verbose && c == '#' {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.at += 1;
                }
                continue;
            }
            if c == ')' {
                return Ok(());
            }
            self.at += 1;
            self.item(c, flags)?;
        }
        Ok(())
    }

    fn item(&mut self, c: char, flags: Flags) -> Result<(), PyReError> {
        match c {
            '|' => self.out.push('|'),
            '(' => self.group(flags)?,
            '[' => self.class(flags)?,
            '.' if flags.dotall => self.out.push_str("(?s:.)"),
            '.' => self.out.push_str("[^\\n]"),
            '^' if flags.multiline => self.out.push_str("(?m:^)"),
            '^' => self.out.push_str("\\A"),
            '$' if flags.multiline => self.out.push_str("(?m:$)"),
            '$' => self.out.push_str("(?=\\n?\\z)"),
            '\\' => self.escape(flags)?,
            '*' | '+' | '?' => {
                self.out.push(c);
                self.lazy_or_possessive();
            }
            '{' => self.brace(),
            _ => self.out.push_str(&literal(c)),
        }
        Ok(())
    }

    fn lazy_or_possessive(&mut self) {
        if self.eat('?') {
            self.out.push('?');
        } else if self.eat('+') {
            self.out.push('+');
        }
    }

    /// `{m,n}` and its short forms, or a literal `{` when what follows is not a repeat.
    fn brace(&mut self) {
        let start = self.at;
        let digits = |t: &mut Translator| {
            let mut s = String::new();
            while let Some(d) = t.peek().filter(char::is_ascii_digit) {
                s.push(d);
                t.at += 1;
            }
            s
        };
        if self.peek() != Some('}') {
            let lo = digits(self);
            let comma = self.eat(',');
            let hi = if comma { digits(self) } else { lo.clone() };
            if self.eat('}') {
                let lo = if lo.is_empty() { "0".to_owned() } else { lo };
                let _ = match (comma, hi.is_empty()) {
                    (false, _) => write!(self.out, "{{{lo}}}"),
                    (true, true) => write!(self.out, "{{{lo},}}"),
                    (true, false) => write!(self.out, "{{{lo},{hi}}}"),
                };
                self.lazy_or_possessive();
                return;
            }
        }
        self.at = start;
        self.out.push_str(&literal('{'));
    }
}

mod escape;
mod group;
#[cfg(test)]
mod tests;
