//! Valid values from a JSON Schema: every keyword the fuzzer understands (types and type
//! arrays, `enum`/`const`, `oneOf`/`anyOf`/`allOf`, local `$ref` into `$defs`/`definitions`,
//! number bounds and `multipleOf`, string lengths, `pattern` and `format`, nested objects with
//! `additionalProperties`, arrays with `items`/`prefixItems`/`uniqueItems`), plus the edge
//! strings every fuzzer of MCP servers tries. The walk is bounded: past [`SOFT_DEPTH`] only what
//! is required is generated, and past [`HARD_DEPTH`] (a `$ref` cycle that requires itself) the
//! walk gives up. [`super::Inputs`] keeps only what the schema validator accepts.
//!
//! A boundary walk ([`Gen::boundary`]) draws no random value where a schema has ends: its pass
//! `k` takes the `k`-th boundary value of every part, so pass 0 is the smallest input (the
//! required properties only, `""`, `0`, `false`, `[]`, the first `enum` value) and the next
//! passes the other ends (`-1`, the minimum and maximum, the longest string, the optional
//! properties too). These come before random inputs.

use serde_json::{Map, Number, Value, json};

use super::keywords::*;
use super::regex;
use crate::rng::Rng;

/// Past this depth, optional properties and array items are left out.
const SOFT_DEPTH: usize = 6;
/// Past this depth the value is given up (a required cycle).
const HARD_DEPTH: usize = 24;
/// Longest string generated without a `maxLength` (edge strings aside).
const PLAIN_MAX_LEN: i64 = 24;
/// Longest "long" string generated without a `maxLength`.
const LONG_MAX_LEN: i64 = 2000;
/// Most array items generated above `minItems`.
const EXTRA_ITEMS: i64 = 4;
/// Boundary passes tried before random values.
pub(crate) const BOUNDARY_PASSES: usize = 8;

/// The strings every string field is tried with, when its schema allows them.
pub(crate) fn edge_strings() -> Vec<String> {
    vec![
        String::new(),
        " ".into(),
        "0".into(),
        "null".into(),
        "\n\r\t".into(),
        "\u{0}".into(),
        "😀".repeat(50),
        "שלום עולם".into(),
        "'; DROP TABLE users; --".into(),
        "../../../../etc/passwd".into(),
        "A".repeat(100_000),
        "\u{202e}gnp.exe".into(),
        "%s%n%x".into(),
        "{{7*7}}".into(),
    ]
}

/// A walk over one root schema.
pub(crate) struct Gen<'a> {
    root: &'a Value,
    rng: &'a mut Rng,
    /// The boundary pass, or `None` for random values.
    edge: Option<usize>,
}

impl<'a> Gen<'a> {
    /// A generator for `root`, drawing from `rng`.
    pub(crate) fn new(root: &'a Value, rng: &'a mut Rng) -> Gen<'a> {
        Gen {
            root,
            rng,
            edge: None,
        }
    }

    /// A generator of boundary pass `k` for `root`: the `k`-th boundary value of every part
    /// (cycling through each part's list); `rng` only for patterns and formats.
    pub(crate) fn boundary(root: &'a Value, rng: &'a mut Rng, k: usize) -> Gen<'a> {
        Gen {
            root,
            rng,
            edge: Some(k),
        }
    }

    /// One of `items` (non-empty): the pass's on a boundary walk, else a random one.
    fn choose<'i, T>(&mut self, items: &'i [T]) -> &'i T {
        match self.edge {
            Some(k) => &items[k % items.len()],
            None => self.rng.pick(items),
        }
    }

    /// Whether an optional part goes in: on a boundary walk, on odd passes only.
    fn optional(&mut self) -> bool {
        match self.edge {
            Some(k) => k % 2 == 1,
            None => self.rng.chance(1, 2),
        }
    }

    /// A value for the root schema (`None` when the walk gave up).
    pub(crate) fn value(&mut self) -> Option<Value> {
        self.of(self.root, 0)
    }

    /// A value for `schema`, `depth` levels down.
    pub(crate) fn of(&mut self, schema: &Value, depth: usize) -> Option<Value> {
        if depth > HARD_DEPTH {
            return None;
        }
        let s = match schema {
            Value::Bool(true) => return Some(self.any_scalar()),
            Value::Bool(false) => return None,
            Value::Object(s) => s,
            _ => return Some(self.any_scalar()),
        };
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let target = resolve(self.root, r)?;
            if s.len() == 1 || !target.is_object() {
                return self.of(target, depth + 1);
            }
            // Keywords beside `$ref` (2019-09 and later) apply too: merge them in.
            let mut merged = target.as_object().cloned().unwrap_or_default();
            for (k, v) in s.iter().filter(|(k, _)| k.as_str() != "$ref") {
                merged.insert(k.clone(), v.clone());
            }
            return self.of(&Value::Object(merged), depth + 1);
        }
        if let Some(c) = s.get("const") {
            return Some(c.clone());
        }
        if let Some(Value::Array(options)) = s.get("enum") {
            return (!options.is_empty()).then(|| self.choose(options).clone());
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            let merged = merge_all(s, all, self.root);
            return self.of(&merged, depth + 1);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = s.get(key)
                && !branches.is_empty()
            {
                let branch = self.choose(branches).clone();
                let merged = merge_all(s, std::slice::from_ref(&branch), self.root);
                return self.of(&merged, depth + 1);
            }
        }
        let ty = self.pick_type(s)?;
        match ty.as_str() {
            "object" => self.object(s, depth),
            "array" => self.array(s, depth),
            "string" => Some(Value::String(self.string(s))),
            "integer" => self.integer(s).map(Value::from),
            "number" => self.number(s),
            "boolean" => Some(Value::Bool(self.optional())),
            "null" => Some(Value::Null),
            _ => Some(self.any_scalar()),
        }
    }

    /// The type to generate: one of a type array, the one named, or what the keywords imply.
    fn pick_type(&mut self, s: &Map<String, Value>) -> Option<String> {
        match s.get("type") {
            Some(Value::String(t)) => Some(t.clone()),
            Some(Value::Array(ts)) => {
                let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
                (!names.is_empty()).then(|| (*self.choose(&names)).to_owned())
            }
            _ => Some(implied_type(s).to_owned()),
        }
    }

    fn any_scalar(&mut self) -> Value {
        if let Some(k) = self.edge {
            let ends = [json!(""), json!(0), Value::Null, json!(false), json!(-1)];
            return ends[k % ends.len()].clone();
        }
        match self.rng.below(4) {
            0 => Value::from(self.rng.between(-100, 100)),
            1 => Value::String(self.plain_string(0, 8)),
            2 => Value::Bool(self.rng.chance(1, 2)),
            _ => Value::Null,
        }
    }

    fn object(&mut self, s: &Map<String, Value>, depth: usize) -> Option<Value> {
        let empty = Map::new();
        let props = s
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required = required_names(s);
        let min_props = usize_of(s, "minProperties").unwrap_or(0);
        let max_props = usize_of(s, "maxProperties").unwrap_or(usize::MAX);
        let mut out = Map::new();
        for (name, sub) in props {
            let needed = required.iter().any(|r| r == name);
            let room = out.len() + (required.len() - required_in(&out, &required)) < max_props;
            let wanted = depth < SOFT_DEPTH && room && self.optional();
            if needed || wanted {
                out.insert(name.clone(), self.of(sub, depth + 1)?);
            }
        }
        // Required names without a property schema take any value the rest allows.
        let extra_schema = s.get("additionalProperties").cloned();
        for name in &required {
            if !out.contains_key(name) {
                let sub = extra_schema.clone().unwrap_or(Value::Bool(true));
                out.insert(name.clone(), self.of(&sub, depth + 1)?);
            }
        }
        let open = match &extra_schema {
            None | Some(Value::Bool(true)) => true,
            Some(Value::Object(_)) => true,
            Some(_) => false,
        };
        let explicit = extra_schema.is_some();
        let mut n = 0;
        while open
            && out.len() < max_props
            && (out.len() < min_props
                || (explicit && depth < SOFT_DEPTH && self.edge.is_none() && self.rng.chance(1, 4)))
        {
            n += 1;
            let key = format!("extra_{n}");
            let sub = extra_schema.clone().unwrap_or(Value::Bool(true));
            if !props.contains_key(&key) {
                out.insert(key, self.of(&sub, depth + 1)?);
            }
            if n > 64 {
                break;
            }
        }
        // Optional properties fill up a `minProperties` the extras could not.
        for (name, sub) in props {
            if out.len() >= min_props {
                break;
            }
            if !out.contains_key(name) {
                out.insert(name.clone(), self.of(sub, depth + 1)?);
            }
        }
        Some(Value::Object(out))
    }

    fn array(&mut self, s: &Map<String, Value>, depth: usize) -> Option<Value> {
        let min = i64_of(s, "minItems").unwrap_or(0).max(0);
        let max = i64_of(s, "maxItems").unwrap_or(i64::MAX);
        let top = if depth < SOFT_DEPTH {
            max.min(min + EXTRA_ITEMS)
        } else {
            min
        };
        let len = match self.edge {
            // The fewest items, one more, then the most.
            Some(k) => [min, min + 1, top][k % 3].clamp(min, top.max(min)),
            None => self.rng.between(min, top.max(min)),
        } as usize;
        let prefix: Vec<Value> = s
            .get("prefixItems")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let items = match s.get("items") {
            // Draft 4-7 tuple form.
            Some(Value::Array(tuple)) => {
                return self.tuple(tuple, s.get("additionalItems"), len, depth);
            }
            Some(other) => other.clone(),
            None => Value::Bool(true),
        };
        let unique = s.get("uniqueItems") == Some(&Value::Bool(true));
        let mut out: Vec<Value> = Vec::with_capacity(len);
        let mut tries = 0;
        let edge = self.edge;
        while out.len() < len {
            let sub = prefix.get(out.len()).unwrap_or(&items);
            // On a boundary walk, each item a pass further: unique items stay possible.
            self.edge = edge.map(|k| k + out.len() + tries);
            let v = self.of(sub, depth + 1);
            self.edge = edge;
            let v = v?;
            tries += 1;
            if unique && out.contains(&v) {
                if tries > len * 8 + 16 {
                    return None;
                }
                continue;
            }
            out.push(v);
        }
        Some(Value::Array(out))
    }

    fn tuple(
        &mut self,
        tuple: &[Value],
        additional: Option<&Value>,
        len: usize,
        depth: usize,
    ) -> Option<Value> {
        let mut out = Vec::new();
        for (i, sub) in tuple.iter().enumerate() {
            if i >= len.max(tuple.len()) {
                break;
            }
            out.push(self.of(sub, depth + 1)?);
        }
        if let Some(extra @ Value::Object(_)) = additional {
            while out.len() < len {
                out.push(self.of(extra, depth + 1)?);
            }
        }
        Some(Value::Array(out))
    }

    fn string(&mut self, s: &Map<String, Value>) -> String {
        let min = i64_of(s, "minLength").unwrap_or(0).max(0);
        let max = i64_of(s, "maxLength").unwrap_or(i64::MAX);
        if let Some(p) = s.get("pattern").and_then(Value::as_str)
            && let Some(v) = regex::matching(p, self.rng)
        {
            return v;
        }
        if let Some(f) = s.get("format").and_then(Value::as_str)
            && let Some(v) = self.format(f)
        {
            return v;
        }
        if let Some(k) = self.edge {
            return self.boundary_string(s, min, max, k);
        }
        if self.rng.chance(1, 4) {
            let fits: Vec<String> = edge_strings()
                .into_iter()
                .filter(|e| {
                    let n = e.chars().count() as i64;
                    n >= min && n <= max
                })
                .collect();
            if !fits.is_empty() {
                return self.rng.pick(&fits).clone();
            }
        }
        // Now and then a long one, up to the limit (long inputs are where buffers break).
        let reach = if self.rng.chance(1, 6) {
            LONG_MAX_LEN
        } else {
            PLAIN_MAX_LEN
        };
        let top = max.min(min.max(0) + reach);
        self.plain_string(min, top.max(min))
    }

    /// Pass `k`'s string: the shortest, the longest (when `maxLength` says), then the edge
    /// strings that fit.
    fn boundary_string(&mut self, s: &Map<String, Value>, min: i64, max: i64, k: usize) -> String {
        let mut ends = vec!["a".repeat(min as usize)];
        if s.contains_key("maxLength") && max <= LONG_MAX_LEN {
            ends.push("a".repeat(max.max(min) as usize));
        }
        ends.extend(edge_strings().into_iter().filter(|e| {
            let n = e.chars().count() as i64;
            n >= min && n <= max
        }));
        let mut seen = Vec::new();
        ends.retain(|e| {
            let fresh = !seen.contains(e);
            seen.push(e.clone());
            fresh
        });
        ends.swap_remove(k % ends.len())
    }

    fn plain_string(&mut self, min: i64, max: i64) -> String {
        const ALPHABET: &[char] = &[
            'a', 'b', 'c', 'x', 'y', 'z', 'A', 'Q', 'Z', '0', '1', '9', ' ', '-', '_', '.', '/',
            'é', 'ß', '中', '😀',
        ];
        let len = self.rng.between(min, max);
        (0..len).map(|_| *self.rng.pick(ALPHABET)).collect()
    }

    /// A string in a known `format`; `None` for formats this generator does not know (the
    /// plain string then has to pass, since unknown formats are not checked).
    fn format(&mut self, format: &str) -> Option<String> {
        let r = &mut *self.rng;
        let n = |r: &mut Rng, lo: i64, hi: i64| r.between(lo, hi);
        let date = |r: &mut Rng| {
            format!(
                "{:04}-{:02}-{:02}",
                n(r, 1970, 2099),
                n(r, 1, 12),
                n(r, 1, 28)
            )
        };
        let time =
            |r: &mut Rng| format!("{:02}:{:02}:{:02}", n(r, 0, 23), n(r, 0, 59), n(r, 0, 59));
        let hex = |r: &mut Rng, k: usize| -> String {
            (0..k)
                .map(|_| char::from(b"0123456789abcdef"[r.index(16)]))
                .collect()
        };
        let word = |r: &mut Rng| -> String {
            let len = r.between(1, 8);
            (0..len)
                .map(|_| char::from(b'a' + r.below(26) as u8))
                .collect()
        };
        Some(match format {
            "date-time" => format!("{}T{}Z", date(r), time(r)),
            "date" => date(r),
            "time" => format!("{}Z", time(r)),
            "duration" => format!("P{}DT{}H", n(r, 0, 30), n(r, 0, 23)),
            "email" | "idn-email" => format!("{}@{}.com", word(r), word(r)),
            "hostname" | "idn-hostname" => format!("{}.{}.org", word(r), word(r)),
            "ipv4" => format!(
                "{}.{}.{}.{}",
                n(r, 1, 254),
                n(r, 0, 255),
                n(r, 0, 255),
                n(r, 1, 254)
            ),
            "ipv6" => format!("2001:db8::{}", hex(r, 4)),
            "uri" | "iri" | "url" => format!("https://{}.example/{}", word(r), word(r)),
            "uri-reference" | "iri-reference" => format!("/{}/{}", word(r), word(r)),
            "uri-template" => format!("https://example.com/{{{}}}", word(r)),
            "uuid" => format!(
                "{}-{}-4{}-a{}-{}",
                hex(r, 8),
                hex(r, 4),
                hex(r, 3),
                hex(r, 3),
                hex(r, 12)
            ),
            "json-pointer" => format!("/{}/{}", word(r), n(r, 0, 9)),
            "relative-json-pointer" => format!("{}/{}", n(r, 0, 3), word(r)),
            "regex" => format!("^{}$", word(r)),
            _ => return None,
        })
    }

    fn integer(&mut self, s: &Map<String, Value>) -> Option<i64> {
        let (lo, hi) = int_bounds(s)?;
        if let Some(m) = s
            .get("multipleOf")
            .and_then(Value::as_f64)
            .filter(|m| *m > 0.0)
        {
            if m.fract() != 0.0 || m > 1e15 {
                // A fractional step: zero and the bounds are the safe integers to try.
                return [0, lo, hi]
                    .into_iter()
                    .find(|v| (*v as f64 / m).fract() == 0.0 && *v >= lo && *v <= hi);
            }
            let m = m as i64;
            let first = lo.div_euclid(m) + i64::from(lo.rem_euclid(m) != 0);
            let last = hi.div_euclid(m);
            if first > last {
                return None;
            }
            if let Some(k) = self.edge {
                // Zero when it fits, then the smallest and the largest multiple.
                let ends = [0, first, last.min(first + 1000)];
                let fits = |q: &i64| (first..=last).contains(q);
                return pass_of(ends.into_iter().filter(fits), k).and_then(|q| q.checked_mul(m));
            }
            return self
                .rng
                .between(first, last.min(first + 1000))
                .checked_mul(m);
        }
        if let Some(k) = self.edge {
            let has = |keys: [&str; 2]| keys.iter().any(|key| s.contains_key(*key));
            let lo_end = has(["minimum", "exclusiveMinimum"]).then_some(lo);
            let hi_end = has(["maximum", "exclusiveMaximum"]).then_some(hi);
            let ends = [Some(0), Some(-1), lo_end, hi_end, Some(1)];
            if let Some(v) = pass_of(
                ends.into_iter().flatten().filter(|v| (lo..=hi).contains(v)),
                k,
            ) {
                return Some(v);
            }
        }
        let edges = [0, 1, -1, lo, hi, i64::from(i32::MAX), i64::from(i32::MIN)];
        if self.rng.chance(1, 4) {
            let ok: Vec<i64> = edges.into_iter().filter(|v| *v >= lo && *v <= hi).collect();
            if !ok.is_empty() {
                return Some(*self.rng.pick(&ok));
            }
        }
        let (a, b) = (lo.max(-1000), hi.min(1000));
        Some(if a <= b {
            self.rng.between(a, b)
        } else {
            self.rng.between(lo, lo.saturating_add(1000).min(hi))
        })
    }

    fn number(&mut self, s: &Map<String, Value>) -> Option<Value> {
        if let Some(k) = self.edge.filter(|_| !s.contains_key("multipleOf")) {
            let lo = bound(s, "minimum", "exclusiveMinimum", true);
            let hi = bound(s, "maximum", "exclusiveMaximum", false);
            let fits = |v: &f64| lo.is_none_or(|lo| *v >= lo) && hi.is_none_or(|hi| *v <= hi);
            let ends = [Some(0.0), Some(-1.0), lo, hi, Some(1.0), Some(0.5)];
            if let Some(v) = pass_of(ends.into_iter().flatten().filter(fits), k) {
                return if v.fract() == 0.0 && v.abs() < 9.0e15 {
                    Some(Value::from(v as i64))
                } else {
                    Number::from_f64(v).map(Value::Number)
                };
            }
        }
        if self.rng.chance(1, 3) || s.contains_key("multipleOf") {
            if let Some(i) = self.integer(s) {
                return Some(Value::from(i));
            }
            if let Some(m) = s.get("multipleOf").and_then(Value::as_f64) {
                return Number::from_f64(m * self.rng.between(0, 10) as f64).map(Value::Number);
            }
        }
        let lo = bound(s, "minimum", "exclusiveMinimum", true).unwrap_or(-1e6);
        let hi = bound(s, "maximum", "exclusiveMaximum", false).unwrap_or(1e6);
        let (lo, hi) = (lo.max(-1e6).min(hi), hi.min(1e6).max(lo));
        let mut v = lo + (hi - lo) * self.rng.unit();
        v = (v * 1000.0).round() / 1000.0;
        let v = v.clamp(lo, hi);
        Number::from_f64(v).map(Value::Number)
    }
}

/// The `k`-th of `ends` without repeats (cycling), `None` when there are none.
fn pass_of<T: PartialEq>(ends: impl Iterator<Item = T>, k: usize) -> Option<T> {
    let mut distinct: Vec<T> = Vec::new();
    for e in ends {
        if !distinct.contains(&e) {
            distinct.push(e);
        }
    }
    if distinct.is_empty() {
        return None;
    }
    let i = k % distinct.len();
    Some(distinct.swap_remove(i))
}
