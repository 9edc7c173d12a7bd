//! Why an `--offline` run found no answer: the entries recorded for the same prompts under
//! another key, and what changed in the tool list since they were.

use std::collections::HashSet;
use std::fs;

use serde_json::Value;

use super::{Cache, ENTRY_LIMIT, entry_key};

/// The answers a cache holds for prompts that had none under today's key: how many prompts
/// have one, and what changed in the tool list since (see [`Cache::why_missed`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RecordedElsewhere {
    /// Prompts with an answer under another key.
    pub prompts: usize,
    /// Tools whose definition (description or input schema) changed since.
    pub changed: Vec<String>,
    /// Tools offered today that the recorded list did not have.
    pub added: Vec<String>,
    /// Tools of the recorded list that are gone.
    pub removed: Vec<String>,
    /// Answers whose file does not say which tools it was recorded for (written by
    /// mcp-toolproof, or by a toolproof before the files said so).
    pub unlisted: usize,
}

impl Cache {
    /// Why prompts found no answer: the entries of `provider` and `model` recorded for one of
    /// `prompts` under another key (another tool list, system prompt or request settings),
    /// the newest per prompt, compared with today's tool list `tools` (names and
    /// [`tool_digest`](super::tool_digest)s). `None` when no prompt has such an entry (they were never asked) or
    /// the folder cannot be listed. Reads every entry of the folder, so it is for the misses
    /// of an `--offline` run only.
    pub(crate) fn why_missed(
        &self,
        provider: &str,
        model: &str,
        prompts: &HashSet<&str>,
        tools: &[(String, String)],
    ) -> Option<RecordedElsewhere> {
        use std::collections::HashMap;
        /// When an entry was written, and the tools it lists (none: it does not say).
        type Seen = (std::time::SystemTime, Option<Vec<(String, String)>>);
        let mut newest: HashMap<String, Seen> = HashMap::new();
        for name in self.entries().ok()? {
            if entry_key(&name).is_none() {
                continue;
            }
            let path = self.dir.join(&name);
            let Ok(text) = crate::evals::read_capped(&path, ENTRY_LIMIT, "a cache entry") else {
                continue;
            };
            let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let field = |f: &str| map.get(f).and_then(Value::as_str);
            let Some(prompt) = field("prompt") else {
                continue;
            };
            if field("provider") != Some(provider)
                || field("model") != Some(model)
                || !prompts.contains(prompt)
            {
                continue;
            }
            let when = fs::metadata(&path)
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            let listed = map.get("tool_digests").and_then(digests_of);
            match newest.get(prompt) {
                Some((seen, _)) if *seen >= when => {}
                _ => {
                    newest.insert(prompt.to_owned(), (when, listed));
                }
            }
        }
        if newest.is_empty() {
            return None;
        }
        let mut out = RecordedElsewhere {
            prompts: newest.len(),
            ..RecordedElsewhere::default()
        };
        let now: std::collections::HashMap<&str, &str> = tools
            .iter()
            .map(|(n, d)| (n.as_str(), d.as_str()))
            .collect();
        let add = |list: &mut Vec<String>, name: &str| {
            if !list.iter().any(|n| n == name) {
                list.push(name.to_owned());
            }
        };
        for (_, listed) in newest.values() {
            let Some(then) = listed else {
                out.unlisted += 1;
                continue;
            };
            let before: std::collections::HashMap<&str, &str> =
                then.iter().map(|(n, d)| (n.as_str(), d.as_str())).collect();
            for (name, digest) in tools {
                match before.get(name.as_str()) {
                    None => add(&mut out.added, name),
                    Some(d) if d != digest => add(&mut out.changed, name),
                    Some(_) => {}
                }
            }
            for (name, _) in then {
                if !now.contains_key(name.as_str()) {
                    add(&mut out.removed, name);
                }
            }
        }
        // In today's list order (removed ones in the recorded order).
        let order = |list: &mut Vec<String>| {
            list.sort_by_key(|n| tools.iter().position(|(t, _)| t == n).unwrap_or(usize::MAX));
        };
        order(&mut out.changed);
        order(&mut out.added);
        Some(out)
    }
}

/// A `tool_digests` member read back: `{"name": "digest", …}` in list order.
fn digests_of(v: &Value) -> Option<Vec<(String, String)>> {
    v.as_object()?
        .iter()
        .map(|(name, d)| Some((name.clone(), d.as_str()?.to_owned())))
        .collect()
}
