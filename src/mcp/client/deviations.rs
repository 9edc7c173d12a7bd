//! Responses that bend JSON-RPC 2.0 or MCP in ways toolproof reads past but strict clients do
//! not: a response without `"jsonrpc": "2.0"` (the TypeScript SDK drops it as not a JSON-RPC
//! message), and `result: null` (MCP results are objects, `{}` when empty; the SDKs' result
//! schemas refuse null). They are tallied here and shown as the `protocol` check's warnings.

use serde_json::Value;

/// How often one kind of deviation happened, and the method whose answer showed it first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Tally {
    count: usize,
    first: Option<String>,
}

impl Tally {
    fn add(&mut self, method: &str) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(method.to_owned());
        }
    }
}

/// The deviations seen so far on one connection (kept across restarts).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Deviations {
    no_version: Tally,
    null_result: Tally,
}

impl Deviations {
    /// Looks at the response to `method`.
    pub(crate) fn note(&mut self, method: &str, response: &Value) {
        if response.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            self.no_version.add(method);
        }
        if response.get("result").is_some_and(Value::is_null) {
            self.null_result.add(method);
        }
    }

    /// One line per kind seen, for the `protocol` check.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(first) = &self.no_version.first {
            out.push(format!(
                "{} without `\"jsonrpc\": \"2.0\"` (first: the answer to `{first}`); strict clients such as the TypeScript SDK drop such messages",
                responses(self.no_version.count)
            ));
        }
        if let Some(first) = &self.null_result.first {
            out.push(format!(
                "{} with `result: null` (first: the answer to `{first}`); MCP results are objects, `{{}}` when empty, and the SDKs refuse null",
                responses(self.null_result.count)
            ));
        }
        out
    }
}

fn responses(n: usize) -> String {
    if n == 1 {
        "1 response".to_owned()
    } else {
        format!("{n} responses")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_kind_is_counted_with_the_first_method_that_showed_it() {
        let mut d = Deviations::default();
        d.note(
            "initialize",
            &json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        );
        assert!(d.warnings().is_empty());
        d.note("tools/list", &json!({"id": 2, "result": {"tools": []}}));
        d.note("ping", &json!({"jsonrpc": "1.0", "id": 3, "result": null}));
        d.note(
            "tools/call",
            &json!({"jsonrpc": "2.0", "id": 4, "result": null}),
        );
        // An error response is no deviation.
        d.note(
            "x",
            &json!({"jsonrpc": "2.0", "id": 5, "error": {"code": 1, "message": "m"}}),
        );
        assert_eq!(
            d.warnings(),
            [
                "2 responses without `\"jsonrpc\": \"2.0\"` (first: the answer to `tools/list`); strict clients such as the TypeScript SDK drop such messages",
                "2 responses with `result: null` (first: the answer to `ping`); MCP results are objects, `{}` when empty, and the SDKs refuse null",
            ]
        );
    }
}
