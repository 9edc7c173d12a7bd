//! `toolproof.lock`: the server's surface (every tool, prompt, resource and resource template
//! it lists) in a canonical form, each item with a hash, written so a diff of two locks reads
//! as a review of the change.
//!
//! The form: pretty JSON, two-space indents; items sorted by their key (a tool's or prompt's
//! `name`, a resource's `uri`, a template's `uriTemplate`), every object's keys sorted, the key
//! first and the item's `hash` (sha256 of the item's compact canonical JSON without `hash`)
//! second, then its fields. Absent fields are left out.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Version of the lock file's form.
pub(crate) const LOCK_VERSION: u64 = 1;

/// What a server lists, canonical: the lock's content.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Surface {
    /// `serverInfo.name`.
    pub server_name: Option<String>,
    /// `serverInfo.version`.
    pub server_version: Option<String>,
    /// Tools, sorted by name.
    pub tools: Vec<Map<String, Value>>,
    /// Prompts, sorted by name.
    pub prompts: Vec<Map<String, Value>>,
    /// Resources, sorted by URI.
    pub resources: Vec<Map<String, Value>>,
    /// Resource templates, sorted by URI template.
    pub templates: Vec<Map<String, Value>>,
}

/// A category of item: its key in the lock, its key field and the fields kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Category {
    /// The lock's key (`tools`…).
    pub section: &'static str,
    /// The field that names an item.
    pub key: &'static str,
    /// The `item` prefix in reports (`tool`, `prompt`, `resource`).
    pub prefix: &'static str,
    /// The fields kept, besides the key.
    fields: &'static [&'static str],
}

/// Tools.
pub(crate) const TOOLS: Category = Category {
    section: "tools",
    key: "name",
    prefix: "tool",
    fields: &[
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
    ],
};
/// Prompts.
pub(crate) const PROMPTS: Category = Category {
    section: "prompts",
    key: "name",
    prefix: "prompt",
    fields: &["title", "description", "arguments"],
};
/// Resources.
pub(crate) const RESOURCES: Category = Category {
    section: "resources",
    key: "uri",
    prefix: "resource",
    fields: &["name", "title", "description", "mimeType"],
};
/// Resource templates.
pub(crate) const TEMPLATES: Category = Category {
    section: "resourceTemplates",
    key: "uriTemplate",
    prefix: "resource",
    fields: &["name", "title", "description", "mimeType"],
};

impl Surface {
    /// The surface of the listings as the server sent them (`None`: no such capability).
    pub(crate) fn of(
        server_name: Option<String>,
        server_version: Option<String>,
        tools: &[Value],
        prompts: Option<&[Value]>,
        resources: Option<&[Value]>,
        templates: Option<&[Value]>,
    ) -> Surface {
        Surface {
            server_name,
            server_version,
            tools: items(TOOLS, tools),
            prompts: items(PROMPTS, prompts.unwrap_or_default()),
            resources: items(RESOURCES, resources.unwrap_or_default()),
            templates: items(TEMPLATES, templates.unwrap_or_default()),
        }
    }

    /// The items of a category.
    pub(crate) fn section(&self, category: Category) -> &[Map<String, Value>] {
        match category.section {
            "tools" => &self.tools,
            "prompts" => &self.prompts,
            "resources" => &self.resources,
            _ => &self.templates,
        }
    }

    /// The lock file's text.
    pub(crate) fn render(&self) -> String {
        let mut top = Map::new();
        top.insert("lockVersion".into(), LOCK_VERSION.into());
        let mut server = Map::new();
        if let Some(n) = &self.server_name {
            server.insert("name".into(), n.clone().into());
        }
        if let Some(v) = &self.server_version {
            server.insert("version".into(), v.clone().into());
        }
        top.insert("server".into(), Value::Object(server));
        for category in [TOOLS, PROMPTS, RESOURCES, TEMPLATES] {
            let list: Vec<Value> = self
                .section(category)
                .iter()
                .map(|item| Value::Object(with_hash(category, item)))
                .collect();
            top.insert(category.section.into(), Value::Array(list));
        }
        let mut text = serde_json::to_string_pretty(&Value::Object(top)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a lock file's text; the error says what is wrong with it.
    pub(crate) fn parse(text: &str) -> Result<Surface, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let top = value.as_object().ok_or("not a JSON object")?;
        match top.get("lockVersion").and_then(Value::as_u64) {
            Some(LOCK_VERSION) => {}
            Some(v) => {
                return Err(format!(
                    "lockVersion {v} is not one this toolproof reads ({LOCK_VERSION})"
                ));
            }
            None => return Err("no `lockVersion`".into()),
        }
        let server = top.get("server");
        let text_of = |k: &str| {
            server
                .and_then(|s| s.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let section = |c: Category| -> Result<Vec<Value>, String> {
            match top.get(c.section) {
                None => Ok(Vec::new()),
                Some(Value::Array(a)) => Ok(a.clone()),
                Some(_) => Err(format!("`{}` is not a list", c.section)),
            }
        };
        Ok(Surface::of(
            text_of("name"),
            text_of("version"),
            &section(TOOLS)?,
            Some(&section(PROMPTS)?),
            Some(&section(RESOURCES)?),
            Some(&section(TEMPLATES)?),
        ))
    }
}

/// The item's key (its name or URI), empty when it has none.
pub(crate) fn key_of(category: Category, item: &Map<String, Value>) -> &str {
    item.get(category.key).and_then(Value::as_str).unwrap_or("")
}

/// The items of a listing, canonical and sorted by key.
fn items(category: Category, list: &[Value]) -> Vec<Map<String, Value>> {
    let mut out: Vec<Map<String, Value>> = list
        .iter()
        .filter_map(Value::as_object)
        .map(|raw| {
            let mut item = Map::new();
            item.insert(
                category.key.into(),
                raw.get(category.key).cloned().unwrap_or(Value::Null),
            );
            for field in category.fields {
                if let Some(v) = raw.get(*field).filter(|v| !v.is_null()) {
                    item.insert((*field).into(), canonical(v));
                }
            }
            item
        })
        .collect();
    out.sort_by(|a, b| key_of(category, a).cmp(key_of(category, b)));
    out
}

/// The value with every object's keys sorted.
pub(crate) fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&map[k])))
                    .collect(),
            )
        }
        Value::Array(list) => Value::Array(list.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// `sha256:` and the hex digest of the item's compact canonical JSON.
pub(crate) fn hash(item: &Map<String, Value>) -> String {
    let text = serde_json::to_string(&Value::Object(item.clone())).unwrap_or_default();
    format!(
        "sha256:{}",
        crate::outcome::hex(&Sha256::digest(text.as_bytes()))
    )
}

/// The item as the lock writes it: its key, its hash, then its fields.
fn with_hash(category: Category, item: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert(
        category.key.into(),
        item.get(category.key).cloned().unwrap_or(Value::Null),
    );
    out.insert("hash".into(), hash(item).into());
    for (k, v) in item {
        if k != category.key {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}

/// The 1-based line of the lock text where the item with this key starts (its key's line),
/// when the text holds it.
pub(crate) fn line_of(text: &str, category: Category, key: &str) -> Option<u32> {
    let quoted = serde_json::to_string(key).ok()?;
    let wanted = format!("\"{}\": {quoted}", category.key);
    let start = text.find(&format!("\"{}\": [", category.section))?;
    let from = text[..start].matches('\n').count();
    text[start..]
        .lines()
        .position(|l| l.trim_start().trim_end_matches(',') == wanted)
        .and_then(|i| u32::try_from(from + i + 1).ok())
}

/// The line of every item of the lock, by its report name (`tool:NAME`, `resource:URI`).
pub(crate) fn lines(text: &str, surface: &Surface) -> std::collections::BTreeMap<String, u32> {
    let mut out = std::collections::BTreeMap::new();
    for category in [TOOLS, PROMPTS, RESOURCES, TEMPLATES] {
        for item in surface.section(category) {
            let key = key_of(category, item);
            if let Some(line) = line_of(text, category, key) {
                out.insert(format!("{}:{key}", category.prefix), line);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sample() -> Surface {
        Surface::of(
            Some("demo".into()),
            Some("1.2.0".into()),
            &[
                json!({"name": "zeta", "description": "Z.", "inputSchema": {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "number"}}}, "_meta": {"x": 1}}),
                json!({"name": "alpha", "description": "A.", "inputSchema": {"type": "object"}}),
            ],
            Some(&[json!({"name": "greet", "arguments": [{"name": "who", "required": true}]})]),
            Some(&[json!({"uri": "file:///readme", "name": "readme", "mimeType": "text/plain"})]),
            None,
        )
    }

    #[test]
    fn items_are_sorted_fields_canonical_and_unknown_fields_dropped() {
        let s = sample();
        assert_eq!(key_of(TOOLS, &s.tools[0]), "alpha");
        let zeta = &s.tools[1];
        assert!(zeta.get("_meta").is_none());
        let keys: Vec<&String> = zeta["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["a", "b"]);
    }

    #[test]
    fn the_lock_reads_back_as_written_and_its_hash_follows_the_content() {
        let s = sample();
        let text = s.render();
        assert_eq!(Surface::parse(&text).unwrap(), s);
        assert!(text.contains("\"lockVersion\": 1"));
        let alpha_line = line_of(&text, TOOLS, "alpha").unwrap();
        assert_eq!(
            text.lines().nth(alpha_line as usize - 1).unwrap().trim(),
            "\"name\": \"alpha\","
        );
        assert_eq!(
            text.lines().nth(alpha_line as usize).unwrap().trim(),
            format!("\"hash\": \"{}\",", hash(&s.tools[0]))
        );
        let readme = line_of(&text, RESOURCES, "file:///readme").unwrap();
        assert!(readme > alpha_line);
        let mut other = s.tools[0].clone();
        other.insert("description".into(), "B.".into());
        assert_ne!(hash(&other), hash(&s.tools[0]));
    }

    #[test]
    fn a_bad_lock_says_what_is_wrong() {
        assert!(Surface::parse("{").unwrap_err().starts_with("not JSON"));
        assert_eq!(Surface::parse("{}").unwrap_err(), "no `lockVersion`");
        assert!(
            Surface::parse(r#"{"lockVersion": 9}"#)
                .unwrap_err()
                .contains("lockVersion 9")
        );
        assert_eq!(
            Surface::parse(r#"{"lockVersion": 1, "tools": 3}"#).unwrap_err(),
            "`tools` is not a list"
        );
    }
}
