//! The bundled distractor corpus: several hundred tool definitions written for toolproof
//! (`corpus.json`), across the domains a real client's other servers cover: calendar, email,
//! files, git hosting, issue trackers, CRM, payments, shops, shipping, weather, maps,
//! databases, cloud and Kubernetes, monitoring, chat, docs, search, HR, finance, travel, media,
//! smart home, support, marketing, notes and utilities.
//!
//! Each entry is `{"domain", "name", "description", "inputSchema"}`; a distractor offered to a
//! model is the MCP tool `{"name", "description", "inputSchema"}` (the domain is for the tests
//! and for whoever edits the file). The entries are data: the cached stress answers hash them,
//! so editing one changes the keys of every tool list it is in.

use std::sync::LazyLock;

use serde_json::{Value, json};

use crate::mcp::types::Tool;

/// The corpus as written.
const CORPUS_JSON: &str = include_str!("corpus.json");

/// The corpus as MCP tools, in file order (empty only if the file does not parse, which the
/// tests rule out).
static CORPUS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    entries()
        .iter()
        .map(|e| {
            Tool::from_wire(json!({
                "name": e["name"],
                "description": e["description"],
                "inputSchema": e["inputSchema"],
            }))
        })
        .collect()
});

fn entries() -> Vec<Value> {
    serde_json::from_str(CORPUS_JSON).unwrap_or_default()
}

/// Every distractor, in file order.
pub(crate) fn tools() -> &'static [Tool] {
    &CORPUS
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use super::*;
    use crate::checks::{self, CheckContext};
    use crate::config::ChecksConfig;
    use crate::config::limits::MAX_STRESS_DISTRACTORS;
    use crate::evals::asking::tools::{api_tools, schema_ok};

    #[test]
    fn the_corpus_is_large_and_spread_over_many_domains() {
        let entries = entries();
        assert_eq!(entries.len(), tools().len());
        // Enough that skipping the names a server shares still leaves the largest count.
        assert!(
            tools().len() >= MAX_STRESS_DISTRACTORS as usize + 50,
            "{} tools",
            tools().len()
        );
        let mut per_domain: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &entries {
            *per_domain
                .entry(e["domain"].as_str().unwrap_or(""))
                .or_default() += 1;
        }
        assert!(!per_domain.contains_key(""), "every entry has a domain");
        assert!(per_domain.len() >= 20, "{per_domain:?}");
        for (domain, n) in &per_domain {
            assert!(*n >= 9, "{domain} has only {n} tools");
        }
        for e in &entries {
            let keys: Vec<&str> = e
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            assert_eq!(
                keys,
                ["domain", "name", "description", "inputSchema"],
                "{e}"
            );
        }
    }

    #[test]
    fn every_entry_is_a_valid_tool_with_a_distinct_name_and_definition() {
        let name_rule = regex::Regex::new("^[A-Za-z0-9_.-]{1,64}$").expect("regex");
        let mut names = HashSet::new();
        let mut descriptions = HashSet::new();
        for t in tools() {
            assert!(name_rule.is_match(&t.name), "{}", t.name);
            assert!(names.insert(t.name.clone()), "{} twice", t.name);
            let description = t.description.clone().unwrap_or_default();
            let sentences = description.matches(". ").count() + 1;
            assert!(
                description.ends_with('.') && (1..=3).contains(&sentences),
                "{}: {description}",
                t.name
            );
            assert!(
                descriptions.insert(description),
                "{}: description repeats",
                t.name
            );
            let schema = t.input_schema.clone().unwrap_or(Value::Null);
            assert!(schema_ok(&schema), "{}: not valid 2020-12", t.name);
            assert!(
                jsonschema::draft202012::new(&schema).is_ok(),
                "{}: does not compile",
                t.name
            );
            assert_eq!(schema["type"], "object", "{}", t.name);
            let props = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            for (key, prop) in &props {
                assert!(prop["type"].is_string(), "{}.{key}: no type", t.name);
                assert!(
                    prop["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{}.{key}: no description",
                    t.name
                );
            }
            for required in schema["required"].as_array().into_iter().flatten() {
                let key = required.as_str().unwrap_or_default();
                assert!(
                    props.contains_key(key),
                    "{}: requires unknown {key}",
                    t.name
                );
            }
        }
        // Every one is offered to a model as it is: none left out, none renamed.
        let api = api_tools(tools());
        assert!(api.left_out.is_empty(), "{:?}", api.left_out);
        assert!(api.tools.iter().zip(tools()).all(|(a, t)| a.name == t.name));
    }

    #[test]
    fn the_static_checks_find_nothing_wrong_with_it() {
        // The whole corpus is far over a model's token budget on purpose: that one check is
        // about the server's own list. Nor does it carry annotations: it is only ever sent to a
        // model, which never sees them.
        let cfg = ChecksConfig {
            strict: true,
            disable: vec!["tool-list-size".into(), "annotations-missing".into()],
            ..ChecksConfig::default()
        };
        let ctx = CheckContext {
            server_name: Some("distractors"),
            protocol_version: Some("2025-06-18"),
            stdout_noise: &[],
            stdout_noise_total: 0,
            protocol_warnings: &[],
        };
        let results = checks::run(tools(), &cfg, &ctx);
        let found: Vec<String> = results
            .findings
            .iter()
            .map(|f| format!("{} {}: {}", f.check, f.tool, f.message))
            .collect();
        assert!(found.is_empty(), "{found:#?}");
    }
}
