//! Static checks on a tool list: one rule, one stable id. [`run`] turns the tools a server
//! listed into [`Finding`]s; it never prints and never talks to the server.
//!
//! Order of findings: every `duplicate-name` first, then per tool in server order (name, name
//! rules, description, annotations, schemas), then the findings about the whole list
//! (`similar-tools`, `tool-list-size`, `stdout-noise`).

mod annotations;
mod names;
mod schema;
mod similarity;

use serde_json::Value;

use crate::config::ChecksConfig;
pub use crate::config::vocab::{
    ANNOTATIONS, CHECK_IDS, CHECKS, CheckInfo, DESCRIPTION, DESCRIPTION_LENGTH, DUPLICATE_NAME,
    INPUT_SCHEMA, NAME, NAME_CLIENTS, NAME_FORMAT, OUTPUT_SCHEMA, REQUIRED_FIELDS, SIMILAR_TOOLS,
    STDOUT_NOISE, TOOL_LIST_SIZE, describe,
};
use crate::mcp::types::Tool;
use crate::report::model::{ChecksResults, Finding, Severity};

/// What the checks may know about the server beyond its tool list.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckContext<'a> {
    /// The name a client would prefix tools with (`mcp__<server>__<tool>`); `None` skips the
    /// prefixed-length rule of `name-clients`.
    pub server_name: Option<&'a str>,
    /// Negotiated protocol revision (`2025-06-18`…); `None` when unknown. From 2026-07-28 an
    /// output schema no longer has to be `type: object`.
    pub protocol_version: Option<&'a str>,
    /// Lines the server printed on stdout that were not JSON-RPC.
    pub stdout_noise: &'a [String],
}

/// Runs every check not listed in `cfg.disable` over `tools` (in server order).
///
/// `cfg.enabled` is not looked at: whether the phase runs at all is the caller's decision.
pub fn run(tools: &[Tool], cfg: &ChecksConfig, ctx: &CheckContext) -> ChecksResults {
    let mut out = Sink::new(cfg);
    let shown: Vec<String> = tools.iter().map(shown_name).collect();

    if out.enabled(DUPLICATE_NAME) {
        duplicate_names(tools, &shown, &mut out);
    }
    for (tool, shown) in tools.iter().zip(&shown) {
        check_tool(tool, shown, ctx, &mut out);
    }
    if out.enabled(SIMILAR_TOOLS) {
        similarity::check(tools, &shown, cfg.similarity_threshold, &mut out);
    }
    if out.enabled(TOOL_LIST_SIZE) {
        tool_list_size(tools, &shown, cfg.max_tool_list_tokens, &mut out);
    }
    if out.enabled(STDOUT_NOISE) {
        stdout_noise(ctx.stdout_noise, &mut out);
    }

    ChecksResults {
        strict: cfg.strict,
        tools: shown,
        disabled: cfg.disable.clone(),
        findings: out.findings,
    }
}

/// The name findings use for a tool: its name, or `<unnamed>` when it has none.
pub fn shown_name(tool: &Tool) -> String {
    if tool.name.trim().is_empty() {
        "<unnamed>".to_owned()
    } else {
        tool.name.clone()
    }
}

/// Collects findings, dropping those of disabled checks and deciding which fail the run.
pub(crate) struct Sink<'c> {
    cfg: &'c ChecksConfig,
    findings: Vec<Finding>,
}

impl<'c> Sink<'c> {
    fn new(cfg: &'c ChecksConfig) -> Self {
        Sink {
            cfg,
            findings: Vec::new(),
        }
    }

    /// Whether check `id` runs.
    pub(crate) fn enabled(&self, id: &str) -> bool {
        !self.cfg.disable.iter().any(|d| d == id)
    }

    /// Records a finding unless its check is disabled.
    pub(crate) fn add(
        &mut self,
        tool: &str,
        check: &'static str,
        severity: Severity,
        message: String,
    ) {
        if !self.enabled(check) {
            return;
        }
        self.findings.push(Finding {
            tool: tool.to_owned(),
            check: check.to_owned(),
            severity,
            fails: severity == Severity::Error || self.cfg.strict,
            message,
        });
    }
}

/// One finding per name used more than once, in order of first use.
fn duplicate_names(tools: &[Tool], shown: &[String], out: &mut Sink) {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for tool in tools {
        match index.get(tool.name.as_str()) {
            Some(&i) => seen[i].1 += 1,
            None => {
                index.insert(tool.name.as_str(), seen.len());
                seen.push((tool.name.as_str(), 1));
            }
        }
    }
    for (name, count) in seen {
        if count > 1 {
            let shown = tools
                .iter()
                .zip(shown)
                .find(|(t, _)| t.name == name)
                .map_or(name, |(_, s)| s.as_str());
            out.add(
                shown,
                DUPLICATE_NAME,
                Severity::Error,
                format!(
                    "tool name is used {count} times; clients keep only one of them\n\
                     hint: give every tool its own name"
                ),
            );
        }
    }
}

/// The checks about a single tool, in the order their findings appear.
fn check_tool(tool: &Tool, shown: &str, ctx: &CheckContext, out: &mut Sink) {
    if tool.name.trim().is_empty() {
        let message = match tool.raw.get("name") {
            None | Some(Value::String(_)) => "tool has no name".to_owned(),
            Some(other) => format!("tool has no name (name is {}, not a string)", kind(other)),
        };
        out.add(shown, NAME, Severity::Error, message);
    } else {
        names::check(tool, shown, ctx.server_name, out);
    }

    let description = tool.description.as_deref().unwrap_or("").trim();
    if description.is_empty() {
        out.add(
            shown,
            DESCRIPTION,
            Severity::Error,
            "tool has no description; a model picks tools by their description\n\
             hint: say what the tool does and when to use it"
                .to_owned(),
        );
    } else {
        let length = description.chars().count();
        let limit = out.cfg.max_description_length;
        if length > limit {
            out.add(
                shown,
                DESCRIPTION_LENGTH,
                Severity::Warning,
                format!("description is {length} characters (limit {limit})"),
            );
        }
    }

    annotations::check(tool, shown, out);
    schema::check(tool, shown, ctx.protocol_version, out);
}

/// Warns when the whole tool list is estimated above `limit` tokens.
///
/// The estimate is the length in bytes of the compact JSON a client sends a model for every tool
/// (`name`, `description`, `input_schema`), divided by 4 and rounded up: about 4 bytes per token
/// holds for English prose and JSON with current tokenizers, and it errs high on short words.
fn tool_list_size(tools: &[Tool], shown: &[String], limit: usize, out: &mut Sink) {
    let mut sizes: Vec<(usize, &str)> = Vec::with_capacity(tools.len());
    let mut bytes = 2 + tools.len().saturating_sub(1); // `[`, `]` and the commas
    for (tool, shown) in tools.iter().zip(shown) {
        let entry = serde_json::json!({
            "name": tool.name,
            "description": tool.description.as_deref().unwrap_or(""),
            "input_schema": tool.input_schema.clone().unwrap_or(Value::Null),
        });
        let size = serde_json::to_string(&entry).map_or(0, |s| s.len());
        bytes += size;
        sizes.push((size, shown));
    }
    let tokens = bytes.div_ceil(4);
    if tokens <= limit {
        return;
    }
    sizes.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
    let largest: Vec<String> = sizes
        .iter()
        .take(3)
        .map(|(size, name)| format!("{} ({})", quote(name, 60), thousands(size.div_ceil(4))))
        .collect();
    out.add(
        "*",
        TOOL_LIST_SIZE,
        Severity::Warning,
        format!(
            "tool list is about {} tokens (limit {}): {} tools, {} bytes of JSON name, \
             description and input schema at ~4 bytes per token; largest: {}\n\
             hint: shorten descriptions and schemas, or split the server",
            thousands(tokens),
            thousands(limit),
            tools.len(),
            thousands(bytes),
            largest.join(", "),
        ),
    );
}

/// One finding when the server printed anything but JSON-RPC on stdout.
fn stdout_noise(lines: &[String], out: &mut Sink) {
    let Some(first) = lines.first() else {
        return;
    };
    let count = lines.len();
    let what = if count == 1 { "line" } else { "lines" };
    out.add(
        "*",
        STDOUT_NOISE,
        Severity::Error,
        format!(
            "server printed {count} non-protocol {what} on stdout, first: {}; \
             clients that read stdout strictly fail on them\n\
             hint: write logs to stderr; stdout carries only JSON-RPC messages",
            quote(first, 120)
        ),
    );
}

/// The JSON type of a value, with an article, for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Text from a server, quoted with control characters escaped and cut to `max` characters.
pub(crate) fn quote(text: &str, max: usize) -> String {
    let mut cut: String = text.chars().take(max).collect();
    if cut.len() < text.len() {
        cut.pop();
        cut.push('…');
    }
    format!("{cut:?}")
}

/// `12345` as `12,345`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A tool that passes every check.
    pub(crate) fn good(name: &str) -> Value {
        json!({
            "name": name,
            "description": format!("Looks up {name} records by id"),
            "inputSchema": {
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"]
            }
        })
    }

    pub(crate) fn tools(raw: Vec<Value>) -> Vec<Tool> {
        raw.into_iter().map(Tool::from_wire).collect()
    }

    pub(crate) fn findings(raw: Vec<Value>) -> Vec<Finding> {
        run(
            &tools(raw),
            &ChecksConfig::default(),
            &CheckContext::default(),
        )
        .findings
    }

    /// Findings of one check, as `(tool, severity, message)`.
    pub(crate) fn of(check: &str, raw: Vec<Value>) -> Vec<(String, Severity, String)> {
        findings(raw)
            .into_iter()
            .filter(|f| f.check == check)
            .map(|f| (f.tool, f.severity, f.message))
            .collect()
    }

    #[test]
    fn good_tools_have_no_findings() {
        assert_eq!(findings(vec![good("alpha"), good("beta")]), vec![]);
    }

    #[test]
    fn duplicate_name_trips_once_per_name() {
        let got = of(
            DUPLICATE_NAME,
            vec![good("a"), good("b"), good("a"), good("a")],
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, "a");
        assert_eq!(got[0].1, Severity::Error);
        assert!(got[0].2.starts_with("tool name is used 3 times"));
        assert!(of(DUPLICATE_NAME, vec![good("a"), good("b")]).is_empty());
    }

    #[test]
    fn duplicates_come_first_then_tools_then_list_wide() {
        let weather = |name: &str, verb: &str| {
            json!({
                "name": name,
                "description": format!("{verb} the current weather for a city"),
                "inputSchema": {"type": "object"}
            })
        };
        let raw = vec![
            json!({"name": "x", "description": "", "inputSchema": {"type": "object"}}),
            weather("get_weather", "Get"),
            json!({"name": "y", "inputSchema": {"type": "object"}}),
            weather("fetch_weather", "Fetch"),
            json!({"name": "y", "inputSchema": {"type": "object"}}),
        ];
        let noise = vec!["hello".to_owned()];
        let ctx = CheckContext {
            stdout_noise: &noise,
            ..Default::default()
        };
        let cfg = ChecksConfig {
            max_tool_list_tokens: 10,
            ..Default::default()
        };
        let got = run(&tools(raw), &cfg, &ctx);
        let order: Vec<(&str, &str)> = got
            .findings
            .iter()
            .map(|f| (f.tool.as_str(), f.check.as_str()))
            .collect();
        assert_eq!(
            order,
            vec![
                ("y", DUPLICATE_NAME),
                ("x", DESCRIPTION),
                ("y", DESCRIPTION),
                ("y", DESCRIPTION),
                ("get_weather + fetch_weather", SIMILAR_TOOLS),
                ("*", TOOL_LIST_SIZE),
                ("*", STDOUT_NOISE),
            ]
        );
        assert_eq!(
            got.tools,
            vec!["x", "get_weather", "y", "fetch_weather", "y"]
        );
    }

    #[test]
    fn name_trips_on_empty_whitespace_and_missing() {
        let mut blank = good("x");
        blank["name"] = json!("  ");
        let mut missing = good("x");
        missing.as_object_mut().map(|o| o.remove("name"));
        let mut number = good("x");
        number["name"] = json!(7);
        let got = of(NAME, vec![blank, missing, number, good("ok")]);
        assert_eq!(got.len(), 3);
        assert!(got.iter().all(|f| f.0 == "<unnamed>"));
        assert_eq!(got[0].2, "tool has no name");
        assert!(got[2].2.contains("a number"), "{}", got[2].2);
    }

    #[test]
    fn description_trips_on_missing_or_blank() {
        let mut blank = good("a");
        blank["description"] = json!(" \n ");
        let mut missing = good("b");
        missing.as_object_mut().map(|o| o.remove("description"));
        let got = of(DESCRIPTION, vec![blank, missing, good("c")]);
        let tools: Vec<&str> = got.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(tools, vec!["a", "b"]);
        assert!(got[0].2.starts_with("tool has no description"));
    }

    #[test]
    fn description_length_counts_characters_after_trim() {
        let cfg = ChecksConfig {
            max_description_length: 5,
            ..Default::default()
        };
        let mut long = good("a");
        long["description"] = json!("  éééééé  ");
        let mut fits = good("b");
        fits["description"] = json!("  ééééé  ");
        let got = run(&tools(vec![long, fits]), &cfg, &CheckContext::default());
        let got: Vec<_> = got
            .findings
            .iter()
            .filter(|f| f.check == DESCRIPTION_LENGTH)
            .collect();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].tool, "a");
        assert_eq!(got[0].severity, Severity::Warning);
        assert!(!got[0].fails);
        assert_eq!(got[0].message, "description is 6 characters (limit 5)");
    }

    #[test]
    fn tool_list_size_trips_over_budget_and_names_the_largest() {
        let mut big = good("big");
        big["description"] = json!("word ".repeat(400));
        let list = tools(vec![good("a"), big, good("b")]);
        let cfg = ChecksConfig {
            max_tool_list_tokens: 500,
            ..Default::default()
        };
        let got = run(&list, &cfg, &CheckContext::default());
        let size: Vec<_> = got
            .findings
            .iter()
            .filter(|f| f.check == TOOL_LIST_SIZE)
            .collect();
        assert_eq!(size.len(), 1);
        assert_eq!(size[0].tool, "*");
        assert!(
            size[0]
                .message
                .starts_with("tool list is about 602 tokens (limit 500): 3 tools,"),
            "{}",
            size[0].message
        );
        assert!(size[0].message.contains("largest: \"big\" (5"));
        let roomy = ChecksConfig {
            max_tool_list_tokens: 10_000,
            ..Default::default()
        };
        let got = run(&list, &roomy, &CheckContext::default());
        assert!(got.findings.iter().all(|f| f.check != TOOL_LIST_SIZE));
    }

    #[test]
    fn tool_list_size_estimate_is_bytes_over_four() {
        let list = tools(vec![good("a")]);
        let entry = json!({
            "name": "a",
            "description": "Looks up a records by id",
            "input_schema": list[0].input_schema,
        });
        let bytes = serde_json::to_string(&entry).map(|s| s.len()).unwrap_or(0) + 2;
        let just_under = ChecksConfig {
            max_tool_list_tokens: bytes.div_ceil(4) - 1,
            ..Default::default()
        };
        let exact = ChecksConfig {
            max_tool_list_tokens: bytes.div_ceil(4),
            ..Default::default()
        };
        let ctx = CheckContext::default();
        assert_eq!(run(&list, &just_under, &ctx).findings.len(), 1);
        assert_eq!(run(&list, &exact, &ctx).findings.len(), 0);
    }

    #[test]
    fn stdout_noise_counts_lines_and_quotes_the_first_shortened() {
        let long = format!("Server listening {}", "x".repeat(300));
        let noise = vec![long, "second".to_owned()];
        let ctx = CheckContext {
            stdout_noise: &noise,
            ..Default::default()
        };
        let got = run(&tools(vec![good("a")]), &ChecksConfig::default(), &ctx);
        assert_eq!(got.findings.len(), 1);
        let f = &got.findings[0];
        assert_eq!(
            (f.tool.as_str(), f.severity, f.fails),
            ("*", Severity::Error, true)
        );
        assert!(f.message.starts_with(
            "server printed 2 non-protocol lines on stdout, first: \"Server listening xxx"
        ));
        let quoted = f.message.split("first: ").nth(1).unwrap_or("");
        let quoted = &quoted[..quoted.find('…').map_or(0, |i| i + '…'.len_utf8() + 1)];
        assert_eq!(quoted.chars().count(), 122, "{quoted}");

        let quiet = run(
            &tools(vec![good("a")]),
            &ChecksConfig::default(),
            &CheckContext::default(),
        );
        assert!(quiet.findings.is_empty());
    }

    #[test]
    fn disabling_an_id_removes_its_findings_only() {
        let raw = vec![
            json!({"name": "a", "inputSchema": {"type": "object"}}),
            json!({"name": "a", "inputSchema": {"type": "object"}}),
        ];
        let all = run(
            &tools(raw.clone()),
            &ChecksConfig::default(),
            &CheckContext::default(),
        );
        assert!(all.findings.iter().any(|f| f.check == DESCRIPTION));
        assert!(all.findings.iter().any(|f| f.check == DUPLICATE_NAME));
        for id in CHECK_IDS {
            let cfg = ChecksConfig {
                disable: vec![(*id).to_owned()],
                ..Default::default()
            };
            let got = run(&tools(raw.clone()), &cfg, &CheckContext::default());
            assert!(got.findings.iter().all(|f| f.check != *id), "{id}");
            assert_eq!(got.disabled, vec![(*id).to_owned()]);
            let kept = all.findings.iter().filter(|f| f.check != *id).count();
            assert_eq!(got.findings.len(), kept, "{id}");
        }
    }

    #[test]
    fn strict_makes_warnings_fail() {
        let raw = vec![json!({
            "name": "a",
            "description": "x".repeat(2000),
            "inputSchema": {"type": "object"}
        })];
        let lax = run(
            &tools(raw.clone()),
            &ChecksConfig::default(),
            &CheckContext::default(),
        );
        assert_eq!(lax.findings.len(), 1);
        assert_eq!(lax.findings[0].severity, Severity::Warning);
        assert!(!lax.findings[0].fails);
        assert!(!lax.strict);
        let cfg = ChecksConfig {
            strict: true,
            ..Default::default()
        };
        let strict = run(&tools(raw), &cfg, &CheckContext::default());
        assert!(strict.strict);
        assert!(strict.findings[0].fails);
    }

    #[test]
    fn errors_always_fail() {
        let got = findings(vec![
            json!({"name": "a", "inputSchema": {"type": "object"}}),
        ]);
        assert_eq!(got.len(), 1);
        assert!(got[0].fails);
    }

    #[test]
    fn quote_escapes_and_shortens() {
        assert_eq!(quote("a\nb\"c", 10), "\"a\\nb\\\"c\"");
        assert_eq!(quote("abcdef", 4), "\"abc…\"");
        assert_eq!(quote("abcd", 4), "\"abcd\"");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }
}
