//! `evals.overrides` applied: the server's tool list with new descriptions in place, as every
//! model is sent it. The cache keys hash the list as sent, so a patched list has keys of its
//! own; the stamp (which tools, a hash of the overrides) goes into every report so that a
//! patched run is never read as the server's own.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::config::Overrides;
use crate::mcp::types::Tool;
use crate::outcome::OverridesUse;

/// `tools` with `overrides` applied, in the server's order; the errors when an override names
/// a tool the server does not list, or a property its input schema does not have.
pub(crate) fn apply(tools: &[Tool], overrides: &Overrides) -> Result<Vec<Tool>, Vec<String>> {
    let mut errors = Vec::new();
    for (name, o) in overrides {
        let Some(tool) = tools.iter().find(|t| &t.name == name) else {
            errors.push(format!(
                "`evals.overrides` names the tool `{name}`, which the server does not list"
            ));
            continue;
        };
        for prop in o.properties.keys() {
            let has = tool
                .input_schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(prop))
                .is_some_and(Value::is_object);
            if !has {
                errors.push(format!(
                    "`evals.overrides.{name}.properties` names `{prop}`, which the input schema of `{name}` does not have"
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(tools
        .iter()
        .map(|t| match overrides.get(&t.name) {
            Some(o) => patched(t, o),
            None => t.clone(),
        })
        .collect())
}

/// One tool with its override.
fn patched(tool: &Tool, o: &crate::config::ToolOverride) -> Tool {
    let mut t = tool.clone();
    if let Some(d) = &o.description {
        t.description = Some(d.clone());
        if let Some(raw) = t.raw.as_object_mut() {
            raw.insert("description".into(), Value::String(d.clone()));
        }
    }
    for (prop, text) in &o.properties {
        let set = |schema: &mut Value| {
            if let Some(p) = schema
                .get_mut("properties")
                .and_then(|p| p.get_mut(prop))
                .and_then(Value::as_object_mut)
            {
                p.insert("description".into(), Value::String(text.clone()));
            }
        };
        if let Some(schema) = t.input_schema.as_mut() {
            set(schema);
        }
        if let Some(schema) = t.raw.get_mut("inputSchema") {
            set(schema);
        }
    }
    t
}

/// sha256 (hex) of the overrides as canonical JSON (tools and properties in name order).
pub(crate) fn hash(overrides: &Overrides) -> String {
    let json: serde_json::Map<String, Value> = overrides
        .iter()
        .map(|(name, o)| {
            let props: serde_json::Map<String, Value> = o
                .properties
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            let mut entry = serde_json::Map::new();
            if let Some(d) = &o.description {
                entry.insert("description".into(), Value::String(d.clone()));
            }
            if !props.is_empty() {
                entry.insert("properties".into(), Value::Object(props));
            }
            (name.clone(), Value::Object(entry))
        })
        .collect();
    let bytes = serde_json::to_vec(&Value::Object(json)).unwrap_or_default();
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a report says of the overrides, when there are any.
pub(crate) fn stamp(overrides: &Overrides) -> Option<OverridesUse> {
    (!overrides.is_empty()).then(|| OverridesUse {
        tools: overrides.keys().cloned().collect(),
        hash: hash(overrides),
        errors: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::config::ToolOverride;

    fn tools() -> Vec<Tool> {
        vec![Tool::from_wire(json!({
            "name": "orders",
            "description": "Orders.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}
        }))]
    }

    fn one(description: &str, props: &[(&str, &str)]) -> Overrides {
        let mut o = Overrides::new();
        o.insert(
            "orders".into(),
            ToolOverride {
                description: Some(description.into()),
                properties: props
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            },
        );
        o
    }

    #[test]
    fn an_override_replaces_the_description_and_property_descriptions() {
        let got = apply(
            &tools(),
            &one("Looks up an order.", &[("id", "The order id.")]),
        )
        .expect("applies");
        assert_eq!(got[0].description.as_deref(), Some("Looks up an order."));
        assert_eq!(got[0].raw["description"], "Looks up an order.");
        let schema = got[0].input_schema.as_ref().expect("schema");
        assert_eq!(schema["properties"]["id"]["description"], "The order id.");
        assert_eq!(
            got[0].raw["inputSchema"]["properties"]["id"]["description"],
            "The order id."
        );
    }

    #[test]
    fn an_unknown_tool_or_property_is_an_error_naming_it() {
        let mut o = one("x", &[("nope", "y")]);
        o.insert("ghost".into(), ToolOverride::default());
        let errors = apply(&tools(), &o).expect_err("unknown names");
        assert_eq!(errors.len(), 2);
        assert!(errors[0].contains("`ghost`"), "{errors:?}");
        assert!(errors[1].contains("`nope`"), "{errors:?}");
    }

    #[test]
    fn the_hash_follows_the_wording() {
        assert_eq!(hash(&one("a", &[])), hash(&one("a", &[])));
        assert_ne!(hash(&one("a", &[])), hash(&one("b", &[])));
        assert_eq!(stamp(&Overrides::new()), None);
        assert_eq!(stamp(&one("a", &[])).expect("stamp").tools, vec!["orders"]);
    }
}
