//! The tool list a model API is given: which MCP tools are offered, under which API-safe names,
//! and the way back from an API name to the MCP name.
//!
//! This reproduces mcp-toolproof 0.3.1 to the byte, because the answer cache hashes these
//! definitions and caches that the Python package committed must keep hitting:
//!
//! - a tool is left out when its input schema fails the Draft 2020-12 meta-schema, checked the
//!   way Python's `jsonschema` does it: `pattern` and `patternProperties` names must compile as
//!   Python regular expressions ([`crate::pycompat::re`]), and URI formats are not checked (the reference's
//!   environment has no URI checker). A tool with no input schema, or one that is not a JSON
//!   object, is left out too: the APIs require an object, and the Python SDK cannot list such a
//!   tool, so no committed cache can contain it;
//! - every character outside `[A-Za-z0-9_-]` becomes `_`, the result is cut to 64 characters,
//!   and an empty name becomes `tool`;
//! - a name already taken becomes `name[..60] + "_" + <names taken so far>`, cut to 64, repeated
//!   until it is free (`math.add` → `math_add`, then `math/add` → `math_add_1`);
//! - where the reference loops forever (a replacement that cuts back to itself and is taken,
//!   e.g. `"a"×60 + "_2"`, `"a"×64`, `"a"×65`), the name becomes the sanitised name cut to fit
//!   `_<names taken>_<m>`, with the first m from 1 that is free. No cache the reference wrote
//!   can hold such a list, so this breaks no key.

use std::collections::HashMap;
use std::sync::LazyLock;

use jsonschema::{Draft, Validator};
use serde_json::{Value, json};

use crate::config::Turn;
use crate::evals::ApiTool;
use crate::mcp::types::Tool;

/// The longest tool name the Anthropic and OpenAI APIs accept.
const MAX_NAME: usize = 64;

/// The Draft 2020-12 meta-schema, with the formats Python's `jsonschema` checks by default when
/// no URI package is installed: `regex` (as Python compiles it) and nothing else.
static META: LazyLock<Option<Validator>> = LazyLock::new(|| {
    let meta = json!({"$ref": "https://json-schema.org/draft/2020-12/schema"});
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .with_format("regex", crate::pycompat::re::compiles)
        .with_format("uri", |_: &str| true)
        .with_format("uri-reference", |_: &str| true)
        .build(&meta)
        .ok()
});

/// The tools offered to a model and the map back to MCP names.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ApiTools {
    /// Definitions in the server's order, with API-safe names.
    pub tools: Vec<ApiTool>,
    /// API-safe name → MCP name.
    pub back: HashMap<String, String>,
    /// MCP names of the tools left out because their input schema is not valid JSON Schema.
    pub left_out: Vec<String>,
}

impl ApiTools {
    /// The MCP name of a tool the model picked; a name that was never offered is kept as the
    /// model returned it.
    pub(crate) fn map_back(&self, api_name: &str) -> String {
        self.back
            .get(api_name)
            .cloned()
            .unwrap_or_else(|| api_name.to_owned())
    }
}

impl ApiTools {
    /// The name the model knows an MCP tool by: the name it is offered under, else (a tool
    /// not offered) the name made API-safe as the tool list makes names.
    pub(crate) fn api_name(&self, mcp_name: &str) -> String {
        self.back
            .iter()
            .find(|(_, mcp)| *mcp == mcp_name)
            .map_or_else(|| sanitise(mcp_name), |(safe, _)| safe.clone())
    }

    /// A case's context with each call's tool under the name the model knows it by.
    pub(crate) fn offered_turns(&self, turns: &[Turn]) -> Vec<Turn> {
        turns
            .iter()
            .map(|turn| match turn {
                Turn::Call { tool, args, result } => Turn::Call {
                    tool: self.api_name(tool),
                    args: args.clone(),
                    result: result.clone(),
                },
                other => other.clone(),
            })
            .collect()
    }
}

/// Builds the tool list for a model API from the server's tools.
pub(crate) fn api_tools(tools: &[Tool]) -> ApiTools {
    let mut out = ApiTools::default();
    for tool in tools {
        let Some(schema) = tool.input_schema.as_ref().filter(|s| schema_ok(s)) else {
            out.left_out.push(tool.name.clone());
            continue;
        };
        let name = free_name(&tool.name, &out.back);
        out.back.insert(name.clone(), tool.name.clone());
        out.tools.push(ApiTool {
            name,
            description: tool.description.clone().unwrap_or_default(),
            input_schema: schema.clone(),
            exact_numbers: tool
                .exact_numbers
                .iter()
                .filter_map(|(at, text)| {
                    let within = at.strip_prefix("/inputSchema")?;
                    (within.is_empty() || within.starts_with('/'))
                        .then(|| (within.to_owned(), text.clone()))
                })
                .collect(),
        });
    }
    out
}

/// Whether an input schema is an object that passes the 2020-12 meta-schema as Python checks it.
pub(crate) fn schema_ok(schema: &Value) -> bool {
    schema.is_object() && META.as_ref().is_some_and(|v| v.is_valid(schema))
}

/// The MCP name made API-safe, without regard to names already taken.
fn sanitise(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME)
        .collect();
    if safe.is_empty() {
        "tool".to_owned()
    } else {
        safe
    }
}

/// The API-safe name for `name` that no earlier tool has taken.
fn free_name(name: &str, taken: &HashMap<String, String>) -> String {
    pick_name(name, taken).0
}

/// [`free_name`] and the number of candidates it tried: at most 34 on the reference's path
/// (each step lengthens a name under 60 characters, a longer one settles at once), then at
/// most one per name taken.
fn pick_name(name: &str, taken: &HashMap<String, String>) -> (String, usize) {
    let base = sanitise(name);
    let count = taken.len();
    let mut safe = base.clone();
    let mut steps = 1;
    while taken.contains_key(&safe) {
        // All ASCII after sanitising, so byte slicing is code-point slicing.
        let mut next = format!("{}_{count}", &safe[..safe.len().min(60)]);
        next.truncate(MAX_NAME);
        steps += 1;
        if next == safe {
            // The reference loops forever here; no committed cache can hold this name.
            let (name, more) = past_dead_end(&base, count, taken);
            return (name, steps + more);
        }
        safe = next;
    }
    (safe, steps)
}

/// A free name once the reference's candidates come back to a taken one: `base` cut to fit,
/// then `_<count>_<m>` for the first m from 1 that is free. Every m gives a different last
/// part, and `taken` has `count` names, so one of the first `count + 1` is free.
fn past_dead_end(base: &str, count: usize, taken: &HashMap<String, String>) -> (String, usize) {
    let mut m = 1;
    loop {
        let suffix = format!("_{count}_{m}");
        let keep = MAX_NAME.saturating_sub(suffix.len()).min(base.len());
        let candidate = format!("{}{suffix}", &base[..keep]);
        if !taken.contains_key(&candidate) {
            return (candidate, m);
        }
        m += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, schema: Option<Value>) -> Tool {
        let mut raw = json!({"name": name, "description": format!("does {name}")});
        if let Some(s) = schema {
            raw["inputSchema"] = s;
        }
        Tool::from_wire(raw)
    }

    fn obj() -> Option<Value> {
        Some(json!({"type": "object"}))
    }

    fn names(tools: &ApiTools) -> Vec<&str> {
        tools.tools.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn dots_and_slashes_become_underscores_and_clashes_get_a_counter() {
        let t = api_tools(&[
            tool("math.add", obj()),
            tool("math/add", obj()),
            tool("echo", obj()),
        ]);
        assert_eq!(names(&t), ["math_add", "math_add_1", "echo"]);
        assert_eq!(t.map_back("math_add"), "math.add");
        assert_eq!(t.map_back("math_add_1"), "math/add");
        assert_eq!(t.map_back("nope"), "nope");
    }

    #[test]
    fn counter_is_the_number_of_names_taken_and_repeats_until_free() {
        // Expected names computed with mcp-toolproof 0.3.1's `_api_tools`.
        let t = api_tools(&[
            tool("a.b", obj()),
            tool("a/b", obj()),
            tool("a:b", obj()),
            tool("x", obj()),
            tool("a_b_3", obj()),
            tool("a b", obj()),
        ]);
        // "a b" → "a_b" taken → "a_b_5" (5 names taken).
        assert_eq!(names(&t), ["a_b", "a_b_1", "a_b_2", "x", "a_b_3", "a_b_5"]);
        // A clash whose first replacement is also taken keeps cutting and appending.
        let t = api_tools(&[tool("k", obj()), tool("k_1", obj()), tool("k", obj())]);
        // "k" taken → "k_2" (2 taken) is free.
        assert_eq!(names(&t), ["k", "k_1", "k_2"]);
        let t = api_tools(&[tool("k", obj()), tool("k_1", obj()), tool("k.", obj())]);
        assert_eq!(names(&t), ["k", "k_1", "k_"]);
        let t = api_tools(&[
            tool("k", obj()),
            tool("k_2", obj()),
            tool("k_2_2", obj()),
            tool("k", obj()),
        ]);
        // "k" → "k_3" free.
        assert_eq!(names(&t), ["k", "k_2", "k_2_2", "k_3"]);
        let t = api_tools(&[
            tool("k", obj()),
            tool("k_1", obj()),
            tool("k_1_1", obj()),
            tool("k_1", obj()),
        ]);
        // "k_1" taken → "k_1_3".
        assert_eq!(names(&t), ["k", "k_1", "k_1_1", "k_1_3"]);
    }

    #[test]
    fn a_loop_of_clashes_appends_the_same_counter_again() {
        // back has 2 names: "z" and "z_2"; the third "z" → "z_2" (taken) → "z_2_2".
        let t = api_tools(&[tool("z", obj()), tool("z_2", obj()), tool("z", obj())]);
        assert_eq!(names(&t), ["z", "z_2", "z_2_2"]);
    }

    #[test]
    fn long_names_are_cut_to_64_and_clashes_to_60_plus_counter() {
        let long = "x".repeat(70);
        let other = format!("{}.y", "x".repeat(70));
        let t = api_tools(&[tool(&long, obj()), tool(&other, obj())]);
        assert_eq!(t.tools[0].name, "x".repeat(64));
        assert_eq!(t.tools[1].name, format!("{}_1", "x".repeat(60)));
        assert_eq!(t.map_back(&"x".repeat(64)), long);
        // A counter with many digits still fits in 64.
        let mut many: Vec<Tool> = (0..12).map(|i| tool(&format!("t{i}"), obj())).collect();
        many.push(tool(&"q".repeat(64), obj()));
        many.push(tool(&format!("{}!", "q".repeat(64)), obj()));
        let t = api_tools(&many);
        assert_eq!(t.tools[13].name, format!("{}_13", "q".repeat(60)));
        assert!(t.tools.iter().all(|d| d.name.len() <= 64));
    }

    #[test]
    fn a_clash_whose_counter_name_is_itself_taken_still_ends_with_a_free_name() {
        // mcp-toolproof 0.3.1 loops forever on these: "a"×65 is cut to "a"×64 (taken), whose
        // counter name "a"×60 + "_2" is taken too, and cutting that gives it back.
        let a60 = "a".repeat(60);
        let t = api_tools(&[
            tool(&format!("{a60}_2"), obj()),
            tool(&"a".repeat(64), obj()),
            tool(&"a".repeat(65), obj()),
        ]);
        assert_eq!(
            names(&t),
            [format!("{a60}_2"), "a".repeat(64), format!("{a60}_2_1")]
        );
        assert_eq!(t.map_back(&format!("{a60}_2_1")), "a".repeat(65));
        // A short name reaches the same dead end once its counters take it past 60 characters.
        let k58 = "k".repeat(58);
        let t = api_tools(&[
            tool(&k58, obj()),
            tool(&format!("{k58}_3"), obj()),
            tool(&format!("{k58}_3_3"), obj()),
            tool(&k58, obj()),
        ]);
        assert_eq!(names(&t)[3], format!("{k58}_3_1"));
    }

    /// Names near the 60- and 64-character cuts with the counters a short list gives them,
    /// so that a counter name is often taken already.
    fn clashing() -> Vec<String> {
        let mut out = Vec::new();
        for len in [56, 58, 59, 60, 62, 64, 65, 70] {
            for suffix in ["", "_1", "_2", "_3", "_4", "_2_2", "_3_3", "_4_4", "."] {
                out.push(format!("{}{suffix}", "a".repeat(len)));
            }
        }
        out
    }

    proptest::proptest! {
        /// Any list of names: distinct, API-valid names that map back, each found within a
        /// bounded number of candidates (the reference's sequence, then one per name taken).
        #[test]
        fn any_names_map_to_distinct_valid_names_in_bounded_steps(
            list in proptest::collection::vec(
                proptest::prop_oneof![
                    3 => proptest::sample::select(clashing()),
                    1 => "[ab_.]{0,3}",
                    1 => "[a-z0-9_ /\\.é-]{0,70}",
                ],
                0..12,
            )
        ) {
            let mut taken = HashMap::new();
            for (i, name) in list.iter().enumerate() {
                let (api, steps) = pick_name(name, &taken);
                proptest::prop_assert!(steps <= 35 + i, "{steps} steps for {name:?}");
                proptest::prop_assert!(!taken.contains_key(&api), "{api} given twice");
                taken.insert(api, name.clone());
            }
            let tools: Vec<Tool> = list.iter().map(|n| tool(n, obj())).collect();
            let t = api_tools(&tools);
            let valid = regex::Regex::new("^[a-zA-Z0-9_-]{1,64}$").map_err(|e| {
                proptest::test_runner::TestCaseError::fail(e.to_string())
            })?;
            for (def, name) in t.tools.iter().zip(&list) {
                proptest::prop_assert!(valid.is_match(&def.name), "{:?}", def.name);
                proptest::prop_assert_eq!(&t.map_back(&def.name), name);
            }
            proptest::prop_assert_eq!(t.back.len(), list.len());
        }
    }

    #[test]
    fn non_ascii_names_are_replaced_per_character_and_empty_names_become_tool() {
        let t = api_tools(&[tool("météo", obj()), tool("", obj()), tool("", obj())]);
        assert_eq!(names(&t), ["m_t_o", "tool", "tool_2"]);
        // 70 non-ASCII characters: one `_` each, cut at 64 characters (not bytes).
        let t = api_tools(&[tool(&"é".repeat(70), obj())]);
        assert_eq!(t.tools[0].name, "_".repeat(64));
    }

    #[test]
    fn invalid_missing_and_non_object_schemas_are_left_out_and_named() {
        let t = api_tools(&[
            tool("good", obj()),
            tool("bad_type", Some(json!({"type": "obj"}))),
            tool(
                "bad_regex",
                Some(
                    json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}}),
                ),
            ),
            tool("none", None),
            tool("bool", Some(json!(true))),
            tool("math.add", obj()),
        ]);
        assert_eq!(names(&t), ["good", "math_add"]);
        assert_eq!(t.left_out, ["bad_type", "bad_regex", "none", "bool"]);
    }

    #[test]
    fn definitions_carry_the_description_and_the_schema_as_sent() {
        let schema = json!({"type": "object", "properties": {"b": {}, "a": {}}, "required": ["b"]});
        let mut raw = json!({"name": "n", "inputSchema": schema});
        let t = api_tools(&[Tool::from_wire(raw.clone())]);
        assert_eq!(t.tools[0].description, "");
        assert_eq!(
            serde_json::to_string(&t.tools[0]).unwrap_or_default(),
            r#"{"name":"n","description":"","input_schema":{"type":"object","properties":{"b":{},"a":{}},"required":["b"]}}"#
        );
        raw["description"] = json!("Adds.");
        let t = api_tools(&[Tool::from_wire(raw)]);
        assert_eq!(t.tools[0].description, "Adds.");
    }

    #[test]
    fn meta_schema_check_matches_python_jsonschema() {
        // Verdicts of Draft202012Validator.check_schema in the reference's environment.
        let cases = [
            (json!({"type": "object"}), true),
            (json!({"minLength": 1.0}), true),
            (json!({"minLength": 1.5}), false),
            (json!({"pattern": "\\p{L}"}), false),
            (json!({"pattern": "(?<n>a)"}), false),
            (json!({"pattern": "(?P<n>a)\\Z"}), true),
            (
                json!({"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}),
                true,
            ),
            (json!({"$ref": "not a uri %%"}), true),
            (json!({"$id": "##"}), false),
            (json!({"required": "a"}), false),
            (json!({"definitions": {"x": {"type": 5}}}), false),
            (json!({"$schema": 5}), false),
            (json!({"patternProperties": {"(": {}}}), false),
            (json!({"patternProperties": {"^x-": {}}}), true),
            (json!({"exclusiveMinimum": true}), false),
            (json!({"format": "made-up"}), true),
        ];
        for (schema, ok) in cases {
            assert_eq!(schema_ok(&schema), ok, "{schema}");
        }
    }
}
