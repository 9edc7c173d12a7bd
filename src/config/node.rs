//! The YAML document as a tree of nodes that remember their line and column: the one place
//! that talks to serde-saphyr. Everything after parsing works on this tree.
//!
//! Plain scalars take their YAML 1.1 meaning, as mcp-toolproof's PyYAML gives them
//! ([`super::yaml11`]): serde-saphyr builds the tree, then a second pass over the parser's
//! events finds each plain, untagged scalar by where it starts and resolves its text again.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::yaml11;

/// 1-based line and column of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Pos {
    /// 1-based line (0 when unknown).
    pub line: u64,
    /// 1-based column (0 when unknown).
    pub column: u64,
}

/// One YAML node and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// What the node holds.
    pub value: Value,
    /// Where it starts (for an alias: where the alias is used).
    pub pos: Pos,
    /// Character offset where the node itself is written (for an alias: the anchored node).
    pub defined_at: Option<u64>,
    /// The text of a plain scalar that YAML 1.1 reads as something else but YAML 1.2 (and
    /// toolproof before it followed mcp-toolproof) as text: `yes`, `0755`, `1:30`. A text
    /// setting still takes it.
    pub was_text: Option<String>,
}

/// The value of a node: plain scalars resolved by YAML 1.1 rules, as PyYAML does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in i64.
    Int(i64),
    /// An integer above i64::MAX.
    UInt(u64),
    /// An integer beyond the 64-bit range, as its decimal digits (`-` first when negative): a
    /// `serde_json::Value` holds it only as a float, Python with every digit.
    BigInt(String),
    /// A float (may be non-finite; the deserializer rejects those).
    Float(f64),
    /// Any other scalar.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in document order.
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// How the value is named in messages: `string "x"`, `number 3`, `a list` ….
    pub(crate) fn describe(&self) -> String {
        match self {
            Value::Null => "null".to_owned(),
            Value::Bool(b) => format!("boolean {b}"),
            Value::Int(n) => format!("number {n}"),
            Value::UInt(n) => format!("number {n}"),
            Value::BigInt(digits) => format!("number {digits}"),
            Value::Float(x) => format!("number {}", fmt_float(*x)),
            Value::Str(s) => format!("string {}", quote_short(s)),
            Value::Seq(_) => "a list".to_owned(),
            Value::Map(_) => "a mapping".to_owned(),
        }
    }
}

/// A float as YAML would write it.
pub(crate) fn fmt_float(x: f64) -> String {
    if x.is_nan() {
        ".nan".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { ".inf" } else { "-.inf" }.to_owned()
    } else if x != 0.0 && !(1e-5..1e16).contains(&x.abs()) {
        // `{}` would spell 1e300 with 300 zeros.
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A string in double quotes, escaped, cut to 40 characters.
pub(crate) fn quote_short(s: &str) -> String {
    const MAX: usize = 40;
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        out.push(c);
    }
    format!("{out:?}")
}

impl Node {
    /// The mapping entry `key`, if this is a mapping that has it.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(&k.value, Value::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The mapping key node `key` (for pointing at a key rather than its value).
    pub(crate) fn get_key(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(&k.value, Value::Str(s) if s == key))
                .map(|(k, _)| k),
            _ => None,
        }
    }

    /// Item `index` of a sequence.
    pub(crate) fn index(&self, index: usize) -> Option<&Node> {
        match &self.value {
            Value::Seq(items) => items.get(index),
            _ => None,
        }
    }

    /// Follows a path of keys (and `#n` list indexes written as numbers in `Step::Index`).
    pub(crate) fn at(&self, steps: &[Step<'_>]) -> Option<&Node> {
        let mut node = self;
        for step in steps {
            node = match step {
                Step::Key(k) => node.get(k)?,
                Step::Index(i) => node.index(*i)?,
            };
        }
        Some(node)
    }
}

/// One step into the tree.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    /// A mapping key.
    Key(&'a str),
    /// A list index.
    Index(usize),
}

/// Why the text could not be read as YAML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// What went wrong (lowercase).
    pub message: String,
    /// A fix, when there is one.
    pub hint: Option<String>,
    /// Where, when known.
    pub pos: Option<Pos>,
}

/// Parses one YAML document into a tree. `Ok(None)` means the document is empty.
pub(crate) fn parse(text: &str) -> Result<Option<Node>, SyntaxError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let options = serde_saphyr::options! {
        // Plain scalars are resolved again by YAML 1.1 rules afterwards (`resolve_plain`);
        // these keep serde-saphyr's own reading from guessing in between.
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        // NaN and infinity reach the tree; the deserializer names the key they are under.
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        // A config file is small: tight limits turn alias bombs into quick errors.
        budget: serde_saphyr::budget! {
            max_events: 200_000,
            max_nodes: 100_000,
            max_depth: 64,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 100_000,
        },
        with_snippet: false,
    };
    match serde_saphyr::from_str_with_options::<Option<Spanned<Node>>>(text, options) {
        Ok(Some(spanned)) => {
            let mut node = spanned_node(spanned);
            resolve_plain(&mut node, &plain_scalars(text));
            if node.value == Value::Null {
                Ok(None)
            } else {
                Ok(Some(node))
            }
        }
        Ok(None) => Ok(None),
        Err(serde_saphyr::Error::Eof { .. }) => Ok(None),
        Err(err) => Err(syntax_error(&err)),
    }
}

/// The text of every plain, untagged scalar, by the character offset where it starts.
fn plain_scalars(text: &str) -> HashMap<u64, String> {
    use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle};
    let mut plain = HashMap::new();
    for item in Parser::new_from_str(text) {
        // serde-saphyr has read the same text without an error, so none comes here.
        let Ok((event, span)) = item else { break };
        if let Event::Scalar(value, ScalarStyle::Plain, _, None) = event {
            plain.insert(span.start.index() as u64, value.into_owned());
        }
    }
    plain
}

/// Gives every plain scalar in the tree (keys too) its YAML 1.1 value.
fn resolve_plain(node: &mut Node, plain: &HashMap<u64, String>) {
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(|n| resolve_plain(n, plain)),
        Value::Map(entries) => {
            for (key, value) in entries {
                resolve_plain(key, plain);
                resolve_plain(value, plain);
            }
        }
        _ => {
            if let Some(text) = node.defined_at.and_then(|at| plain.get(&at)) {
                let value = yaml11_value(yaml11::resolve(text));
                if matches!(node.value, Value::Str(_)) && !matches!(value, Value::Str(_)) {
                    node.was_text = Some(text.clone());
                }
                node.value = value;
            }
        }
    }
}

fn yaml11_value(scalar: yaml11::Scalar) -> Value {
    use yaml11::Scalar as S;
    match scalar {
        S::Null => Value::Null,
        S::Bool(b) => Value::Bool(b),
        S::Int(n) => int_value(n),
        S::BigInt(digits) => Value::BigInt(digits),
        S::Float(x) => Value::Float(x),
        S::Timestamp(s) | S::Str(s) => Value::Str(s),
    }
}

/// An integer as the tree holds it: in 64 bits when it fits, else as its digits.
fn int_value(n: i128) -> Value {
    match (i64::try_from(n), u64::try_from(n)) {
        (Ok(n), _) => Value::Int(n),
        (_, Ok(n)) => Value::UInt(n),
        _ => Value::BigInt(n.to_string()),
    }
}

fn pos_of<T>(spanned: &Spanned<T>) -> Pos {
    Pos {
        line: spanned.referenced.line(),
        column: spanned.referenced.column(),
    }
}

/// Turns a serde-saphyr error into our wording.
fn syntax_error(err: &serde_saphyr::Error) -> SyntaxError {
    use serde_saphyr::Error as E;
    let pos = err.location().filter(|l| l.line() > 0).map(|l| Pos {
        line: l.line(),
        column: l.column(),
    });
    let (message, hint) = match err.without_snippet() {
        E::DuplicateMappingKey { key, .. } => (
            match key {
                Some(k) => format!("duplicate key `{}`", k.escape_debug()),
                None => "duplicate key".to_owned(),
            },
            Some("a key may appear only once in a mapping: remove or merge the repeats".to_owned()),
        ),
        E::MultipleDocuments { .. } => (
            "the file holds more than one YAML document".to_owned(),
            Some("remove the extra `---` separators: toolproof reads a single document".to_owned()),
        ),
        E::Budget { breach, .. } => (
            match breach {
                serde_saphyr::budget::BudgetBreach::Depth { .. } => {
                    "the YAML is nested too deeply".to_owned()
                }
                _ => "the YAML document is too large".to_owned(),
            },
            Some("a toolproof.yaml needs no deep nesting or alias expansion this large".to_owned()),
        ),
        E::AliasReplayLimitExceeded { .. }
        | E::AliasExpansionLimitExceeded { .. }
        | E::AliasReplayStackDepthExceeded { .. }
        | E::AliasReplayCounterOverflow { .. } => (
            "aliases expand to too much data".to_owned(),
            syntax_hint("alias"),
        ),
        E::UnknownAnchor { .. } => (
            "alias refers to an anchor that is not defined".to_owned(),
            Some("define the anchor with `&name` before using it as `*name`".to_owned()),
        ),
        E::InvalidUtf8Input => ("the file is not valid UTF-8".to_owned(), None),
        other => {
            let rendered = other.render_with_options(serde_saphyr::render_options! {
                snippets: serde_saphyr::SnippetMode::Off,
            });
            (tidy_message(&rendered), syntax_hint(&rendered))
        }
    };
    SyntaxError { message, hint, pos }
}

/// Drops the location suffix serde-saphyr appends, lowercases the first letter.
fn tidy_message(rendered: &str) -> String {
    let first_line = rendered.lines().next().unwrap_or("").trim();
    let mut msg = match first_line.find(" at line ") {
        Some(i) => first_line[..i].to_owned(),
        None => first_line.to_owned(),
    };
    if let Some(rest) = msg.strip_prefix("error: ") {
        msg = rest.to_owned();
    }
    let mut chars = msg.chars();
    let mut out = match chars.next() {
        Some(c) => c.to_lowercase().collect::<String>() + chars.as_str(),
        None => "invalid YAML".to_owned(),
    };
    while out.ends_with('.') {
        out.pop();
    }
    out
}

/// A fix for the common syntax slips, judged from the parser's wording.
fn syntax_hint(rendered: &str) -> Option<String> {
    let lower = rendered.to_lowercase();
    let hint = if lower.contains("tab") {
        "YAML indents with spaces, not tabs"
    } else if lower.contains("alias") {
        "use fewer or smaller `*alias` references"
    } else if lower.contains("quote") {
        "close the quoted string on the same line, or use a `|` block for long text"
    } else if lower.contains("bracket") || lower.contains("brace") {
        "close every `[` with `]` and every `{` with `}`"
    } else if lower.contains("mapping values are not allowed") {
        "quote values that contain `: `, e.g. regex: \"a: b\""
    } else if lower.contains("indent") || lower.contains("document start") {
        "check the indentation: keys of one mapping must line up"
    } else {
        return None;
    };
    Some(hint.to_owned())
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor).map(|value| Node {
            value,
            pos: Pos::default(),
            defined_at: None,
            was_text: None,
        })
    }
}

/// Builds [`Value`]s; children come wrapped in `Spanned` so each knows its position.
struct NodeVisitor;

fn spanned_node(s: Spanned<Node>) -> Node {
    let pos = pos_of(&s);
    Node {
        value: s.value.value,
        pos,
        defined_at: Some(s.defined.span().offset()),
        was_text: None,
    }
}

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(int_value(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        match i64::try_from(v) {
            Ok(n) => Ok(Value::Int(n)),
            Err(_) => Ok(Value::UInt(v)),
        }
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        match u64::try_from(v) {
            Ok(n) => self.visit_u64(n),
            Err(_) => Ok(Value::BigInt(v.to_string())),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        match std::str::from_utf8(v) {
            Ok(s) => Ok(Value::Str(s.to_owned())),
            Err(_) => Err(E::custom("binary data is not supported here")),
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Node>>()? {
            items.push(spanned_node(item));
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Node>>()? {
            let value = map.next_value::<Spanned<Node>>()?;
            entries.push((spanned_node(key), spanned_node(value)));
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Node {
        match parse(text) {
            Ok(Some(n)) => n,
            other => panic!("expected a tree, got {other:?}"),
        }
    }

    #[test]
    fn positions_are_one_based_and_point_at_keys_and_values() {
        let t = tree("a: 1\nb:\n  - x\n  - y: 2\n");
        let b = t.get("b").map(|n| n.pos);
        assert_eq!(b, Some(Pos { line: 3, column: 3 }));
        let key = t.get_key("b").map(|n| n.pos);
        assert_eq!(key, Some(Pos { line: 2, column: 1 }));
        let y = t
            .at(&[Step::Key("b"), Step::Index(1), Step::Key("y")])
            .map(|n| (n.pos, n.value.clone()));
        assert_eq!(y, Some((Pos { line: 4, column: 8 }, Value::Int(2))));
    }

    #[test]
    fn plain_scalars_take_their_yaml_1_1_meaning_and_quoted_ones_stay_text() {
        let t = tree(concat!(
            "a: NO\nb: yes\nc: 0755\nd: true\ne: 1.5\nf: ~\ng: 2025-06-18\nh: '12'\n",
            "i: 1e3\nj: 0x1F\nk: 1:30\nl: \"yes\"\nm: &x off\nn: *x\no: !!str 0755\n",
            "p: [on, 0b11]\nq: {1e-1: 1_000}\nr: 18446744073709551615\ns: |\n  yes\n",
            "t: -18446744073709551616\nu: 0x1_0000_0000_0000_0000_0000_0000_0000_0001\n",
        ));
        let get = |k: &str| t.get(k).map(|n| n.value.clone());
        assert_eq!(get("a"), Some(Value::Bool(false)));
        assert_eq!(get("b"), Some(Value::Bool(true)));
        assert_eq!(get("c"), Some(Value::Int(493)));
        assert_eq!(get("d"), Some(Value::Bool(true)));
        assert_eq!(get("e"), Some(Value::Float(1.5)));
        assert_eq!(get("f"), Some(Value::Null));
        assert_eq!(get("g"), Some(Value::Str("2025-06-18".into())));
        assert_eq!(get("h"), Some(Value::Str("12".into())));
        assert_eq!(get("i"), Some(Value::Str("1e3".into())));
        assert_eq!(get("j"), Some(Value::Int(31)));
        assert_eq!(get("k"), Some(Value::Int(90)));
        assert_eq!(get("l"), Some(Value::Str("yes".into())));
        assert_eq!(get("m"), Some(Value::Bool(false)));
        assert_eq!(
            get("n"),
            Some(Value::Bool(false)),
            "an alias resolves like its anchor"
        );
        assert_eq!(get("o"), Some(Value::Str("0755".into())), "a tag decides");
        let p = get("p").map(|v| match v {
            Value::Seq(items) => items.into_iter().map(|n| n.value).collect::<Vec<_>>(),
            _ => Vec::new(),
        });
        assert_eq!(p, Some(vec![Value::Bool(true), Value::Int(3)]));
        let q = t.get("q").and_then(|n| match &n.value {
            Value::Map(e) => e.first().map(|(k, v)| (k.value.clone(), v.value.clone())),
            _ => None,
        });
        assert_eq!(q, Some((Value::Str("1e-1".into()), Value::Int(1000))));
        assert_eq!(get("r"), Some(Value::UInt(u64::MAX)));
        assert_eq!(
            get("t"),
            Some(Value::BigInt("-18446744073709551616".into()))
        );
        assert_eq!(
            get("u"),
            Some(Value::BigInt(
                "340282366920938463463374607431768211457".into()
            ))
        );
        assert_eq!(get("s"), Some(Value::Str("yes\n".into())));
    }

    #[test]
    fn empty_and_comment_only_documents_are_empty() {
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse("# nothing\n\n"), Ok(None));
        assert_eq!(parse("---\n"), Ok(None));
    }
}
