//! The `client-compat` fault: tools whose input schemas one model client accepts and another
//! refuses, for the `client-*` checks.

use serde_json::{Value, json};

/// `pick_route` (`anyOf` at the root: refused by the Claude API), `fetch_page` (what zod
/// emits: `$schema`, a closed object, a nullable optional field, `format: uri`, `maxLength`),
/// `strict_lookup` (ready for OpenAI and Claude strict mode, refused by Gemini for
/// `additionalProperties`) and `loose_query` (plain: fine for Gemini and Claude, not strict).
pub fn tools() -> Vec<Value> {
    vec![
        json!({
            "name": "pick_route",
            "description": "Plans a route from a start to a goal, given by name or by coordinates.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "from": {"type": "string"},
                    "to": {"type": "string"},
                    "lat": {"type": "number"},
                    "lon": {"type": "number"}
                },
                "anyOf": [{"required": ["from", "to"]}, {"required": ["lat", "lon"]}]
            }
        }),
        json!({
            "name": "fetch_page",
            "description": "Downloads a web page and returns its text.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "url": {"type": "string", "format": "uri", "maxLength": 2048},
                    "timeout": {"type": ["number", "null"]}
                },
                "required": ["url"],
                "additionalProperties": false
            }
        }),
        json!({
            "name": "strict_lookup",
            "description": "Looks a record up by its id.",
            "inputSchema": {
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"],
                "additionalProperties": false
            }
        }),
        json!({
            "name": "loose_query",
            "description": "Runs a free-text query over the catalogue.",
            "inputSchema": {
                "type": "object",
                "properties": {"q": {"type": "string"}},
                "required": ["q"]
            }
        }),
    ]
}
