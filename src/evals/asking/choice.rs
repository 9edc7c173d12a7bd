//! `evals.tool_choice` on the wire: a named tool resolved to the API-safe name the model is
//! offered, then each provider's format, which its module owns
//! ([`crate::provider::Kind::tool_choice_wire`]).
//!
//! For the HTTP providers the value travels as `params.tool_choice` does in mcp-toolproof
//! 0.3.1: it replaces the request's default `auto` and is part of the cache key's `params`. So
//! with `tool_choice` unset the key is the reference's, byte for byte, and with it set the key
//! is the one the reference computes for `params: {tool_choice: <that wire value>}`.

use super::tools::ApiTools;
use crate::config::ToolChoice;

/// `choice` with a named tool's MCP name replaced by its API-safe name; an error that says
/// why when the tool is not offered to the model.
pub(crate) fn offered(choice: &ToolChoice, api: &ApiTools) -> Result<ToolChoice, String> {
    let ToolChoice::Tool(name) = choice else {
        return Ok(choice.clone());
    };
    if let Some((safe, _)) = api.back.iter().find(|(_, mcp)| *mcp == name) {
        return Ok(ToolChoice::Tool(safe.clone()));
    }
    if api.left_out.contains(name) {
        return Err(format!(
            "evals.tool_choice names `{name}`, which is not offered to the model: its input schema is not valid JSON Schema"
        ));
    }
    let mut known: Vec<&str> = api.back.values().map(String::as_str).collect();
    known.sort_unstable();
    let nearest = crate::suite::nearest_tool(name, known.iter().copied())
        .map(|n| format!(", did you mean `{n}`?"))
        .unwrap_or_default();
    Err(format!(
        "evals.tool_choice names `{name}`, which is not a tool of the server{nearest}\nhint: name one of: {}",
        known.join(", ")
    ))
}

pub(crate) use crate::provider::choice_from_wire as from_wire;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evals::asking::tools::api_tools;
    use crate::mcp::types::Tool;
    use crate::provider::find;
    use serde_json::json;

    fn tools() -> ApiTools {
        api_tools(&[
            Tool::from_wire(json!({"name": "get.weather", "inputSchema": {"type": "object"}})),
            Tool::from_wire(json!({"name": "bad", "inputSchema": {"type": 5}})),
        ])
    }

    #[test]
    fn each_provider_gets_its_own_format() {
        let named = ToolChoice::Tool("get_weather".into());
        let cases = [
            ("anthropic", ToolChoice::Auto, json!({"type": "auto"})),
            ("anthropic", ToolChoice::Any, json!({"type": "any"})),
            ("anthropic", ToolChoice::None, json!({"type": "none"})),
            (
                "anthropic",
                named.clone(),
                json!({"type": "tool", "name": "get_weather"}),
            ),
            ("openai", ToolChoice::Auto, json!("auto")),
            ("openai", ToolChoice::Any, json!("required")),
            ("openai", ToolChoice::None, json!("none")),
            (
                "openai",
                named.clone(),
                json!({"type": "function", "function": {"name": "get_weather"}}),
            ),
            (
                "command",
                named,
                json!({"type": "tool", "name": "get_weather"}),
            ),
        ];
        for (provider, choice, want) in cases {
            let kind = find(provider).unwrap_or_else(|| panic!("{provider}"));
            assert_eq!(
                kind.tool_choice_wire(&choice),
                want,
                "{provider} {choice:?}"
            );
            assert_eq!(from_wire(&want), Some(choice));
        }
        assert_eq!(from_wire(&json!({"type": "allowed_tools"})), None);
        assert_eq!(from_wire(&json!(3)), None);
    }

    #[test]
    fn a_named_tool_is_sent_by_its_api_name_or_refused_with_the_nearest() {
        let api = tools();
        assert_eq!(
            offered(&ToolChoice::Tool("get.weather".into()), &api),
            Ok(ToolChoice::Tool("get_weather".into()))
        );
        assert_eq!(offered(&ToolChoice::Any, &api), Ok(ToolChoice::Any));
        let typo = offered(&ToolChoice::Tool("get.wether".into()), &api).unwrap_err();
        assert!(typo.contains("did you mean `get.weather`?"), "{typo}");
        assert!(typo.contains("\nhint: name one of: get.weather"), "{typo}");
        let left_out = offered(&ToolChoice::Tool("bad".into()), &api).unwrap_err();
        assert!(left_out.contains("input schema is not valid"), "{left_out}");
    }
}
