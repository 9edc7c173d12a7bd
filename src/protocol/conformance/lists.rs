//! The checks of what the server lists: cursors and pagination of `tools/list`, and that
//! listed resources can be read and listed prompts got.

use serde_json::{Map, Value, json};

use super::{MAX_ITEMS, MAX_PAGES, SDK_NOTE, Session, Verdict, joined};
use crate::protocol::probe::{brief, error_code};

impl Session<'_> {
    pub(super) fn invalid_cursor(&mut self) -> Verdict {
        let params = json!({"cursor": "toolproof-never-issued-cursor"});
        match self.probe().call("tools/list", params) {
            Ok(a) if error_code(&a) == Some(-32602) => Verdict::Pass,
            Ok(a) => Verdict::Fail(format!(
                "`tools/list` with a cursor it never issued was answered with {} {SDK_NOTE}",
                brief(&a)
            )),
            Err(w) => Verdict::Fail(format!("`tools/list` with an invalid cursor got {w}")),
        }
    }

    pub(super) fn pagination(&mut self) -> Verdict {
        let mut seen: Vec<String> = Vec::new();
        let mut params = json!({});
        for _ in 0..MAX_PAGES {
            let answer = match self.probe().call("tools/list", params) {
                Ok(a) => a,
                Err(w) => return Verdict::Fail(format!("`tools/list` got {w}")),
            };
            let Some(result) = answer.get("result") else {
                return match seen.last() {
                    Some(c) => Verdict::Fail(format!(
                        "the cursor {c:?} the server issued was refused: {}",
                        brief(&answer)
                    )),
                    None => Verdict::Skip("`tools/list` fails (see `capabilities`)".into()),
                };
            };
            let Some(cursor) = result.get("nextCursor").and_then(Value::as_str) else {
                return if seen.is_empty() {
                    Verdict::Skip("the tool list fits one page".into())
                } else {
                    Verdict::Pass
                };
            };
            if seen.iter().any(|c| c == cursor) {
                return Verdict::Fail(format!("the cursor {cursor:?} came back a second time"));
            }
            seen.push(cursor.to_owned());
            params = json!({"cursor": cursor});
        }
        Verdict::Fail(format!(
            "the tool list did not end within {MAX_PAGES} pages"
        ))
    }

    pub(super) fn resources_read(&mut self) -> Verdict {
        if !self.capability("resources") {
            return Verdict::Skip("the server does not advertise `resources`".into());
        }
        let listed = self.listed("resources/list", "resources");
        if listed.is_empty() {
            return Verdict::Skip("the server lists no resources".into());
        }
        let mut fails = Vec::new();
        for r in listed.iter().take(MAX_ITEMS) {
            let uri = r["uri"].as_str().unwrap_or_default();
            match self.probe().call("resources/read", json!({"uri": uri})) {
                Ok(a) if a["result"]["contents"].is_array() => {}
                // The server answered and said why it cannot (often its environment: no
                // cluster, no credentials); that is the protocol working.
                Ok(a) if well_formed_error(&a) => {}
                Ok(a) => fails.push(format!("reading {uri:?} gave {}", brief(&a))),
                Err(w) => fails.push(format!("reading {uri:?} got {w}")),
            }
        }
        joined(fails)
    }

    pub(super) fn prompts_get(&mut self) -> Verdict {
        if !self.capability("prompts") {
            return Verdict::Skip("the server does not advertise `prompts`".into());
        }
        let listed = self.listed("prompts/list", "prompts");
        if listed.is_empty() {
            return Verdict::Skip("the server lists no prompts".into());
        }
        let mut fails = Vec::new();
        for p in listed.iter().take(MAX_ITEMS) {
            let name = p["name"].as_str().unwrap_or_default();
            let (args, guessed) = self.prompt_arguments(name, p);
            let params = json!({"name": name, "arguments": args});
            match self.probe().call("prompts/get", params) {
                Ok(a) if a["result"]["messages"].is_array() => {}
                // Values toolproof made up may be refused: the prompt answered, which is all
                // that can be asked of it then.
                Ok(a) if a.get("error").is_some() && !guessed.is_empty() => {}
                Ok(a) => fails.push(format!("getting {name:?} gave {}", brief(&a))),
                Err(w) => fails.push(format!("getting {name:?} got {w}")),
            }
        }
        joined(fails)
    }

    /// Values for a prompt's required arguments: the server's first completion when it offers
    /// completions, else a made-up word; and the names of the made-up ones.
    pub(super) fn prompt_arguments(
        &mut self,
        name: &str,
        prompt: &Value,
    ) -> (Map<String, Value>, Vec<String>) {
        let completions = self.capability("completions");
        let mut args = Map::new();
        let mut guessed = Vec::new();
        let required = prompt["arguments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|a| a["required"] == true)
            .filter_map(|a| a["name"].as_str());
        for arg in required {
            let offered = if completions {
                let params = json!({
                    "ref": {"type": "ref/prompt", "name": name},
                    "argument": {"name": arg, "value": ""},
                    "context": {"arguments": args.clone()},
                });
                self.probe()
                    .call("completion/complete", params)
                    .ok()
                    .and_then(|a| {
                        a["result"]["completion"]["values"][0]
                            .as_str()
                            .map(str::to_owned)
                    })
            } else {
                None
            };
            let value = offered.unwrap_or_else(|| {
                guessed.push(arg.to_owned());
                "toolproof".to_owned()
            });
            args.insert(arg.to_owned(), json!(value));
        }
        (args, guessed)
    }

    /// The first page of a list, empty when it fails.
    pub(super) fn listed(&mut self, method: &str, key: &str) -> Vec<Value> {
        self.probe()
            .call(method, json!({}))
            .ok()
            .and_then(|a| a["result"][key].as_array().cloned())
            .unwrap_or_default()
    }
}

/// A JSON-RPC error response: an `error` object with an integer `code` and a string `message`,
/// and no `result`.
fn well_formed_error(answer: &Value) -> bool {
    let error = &answer["error"];
    answer.get("result").is_none()
        && error.get("code").is_some_and(|c| c.is_i64() || c.is_u64())
        && error.get("message").is_some_and(Value::is_string)
}
