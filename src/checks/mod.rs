//! Static checks on a tool list: one rule, one stable id. [`run`] turns the tools a server
//! listed into [`Finding`]s; it never prints and never talks to the server.
//!
//! Order of findings: every `duplicate-name` first, then per tool in server order (name, name
//! rules, description, deprecation, annotations, schemas and arguments, the `client-*` rules of
//! the clients
//! `checks.clients` selects, the `security-*` rules), then the findings about the whole list (Claude's strict-tool
//! limits, `similar-tools`, `tool-list-size`, `stdout-noise`), then `protocol` about the
//! server's responses.

mod annotations;
mod arguments;
mod clients;
mod deprecated;
pub(crate) mod gaming;
mod names;
mod required;
mod schema;
pub(crate) mod security;
pub(crate) mod similarity;

use serde_json::Value;

use crate::config::ChecksConfig;
pub(crate) use crate::config::vocab::{
    ANNOTATIONS, ANNOTATIONS_MISSING, ARGUMENT_DESCRIPTION, CLIENT_ANTHROPIC,
    CLIENT_ANTHROPIC_STRICT, CLIENT_GEMINI, CLIENT_OPENAI_STRICT, DEFAULT_TYPE, DEPRECATED_TOOL,
    DESCRIPTION, DESCRIPTION_LENGTH, DUPLICATE_NAME, GAMING_IMPERATIVE, GAMING_OTHER_TOOLS,
    GAMING_SUPERLATIVE, GAMING_URGENCY, INPUT_SCHEMA, NAME, NAME_CLIENTS, NAME_FORMAT,
    OUTPUT_SCHEMA, PROSE_LIMITS, PROTOCOL, REQUIRED_DEFAULT, REQUIRED_FIELDS, SIMILAR_TOOLS,
    STDOUT_NOISE, TOOL_LIST_SIZE,
};
use crate::mcp::types::Tool;
use crate::outcome::{ChecksResults, Finding, Severity};

/// What the checks may know about the server beyond its tool list.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CheckContext<'a> {
    /// The name a client would prefix tools with (`mcp__<server>__<tool>`); `None` skips the
    /// prefixed-length rule of `name-clients`.
    pub server_name: Option<&'a str>,
    /// Negotiated protocol revision (`2025-06-18`…); `None` when unknown. From 2026-07-28 an
    /// output schema no longer has to be `type: object`.
    pub protocol_version: Option<&'a str>,
    /// Lines the server printed on stdout that were not JSON-RPC (the first ones kept).
    pub stdout_noise: &'a [String],
    /// How many such lines there were in all (at least `stdout_noise.len()`).
    pub stdout_noise_total: usize,
    /// What the responses so far bent in JSON-RPC 2.0 or MCP, one line per kind
    /// ([`crate::mcp::Client::protocol_warnings`]).
    pub protocol_warnings: &'a [String],
}

/// The `stdout-noise` finding for a whole session (`lines` kept, `total` in all), unless
/// the check is disabled: the run adds it once the server is closed, so that it counts every
/// line the server printed, as the report's banner does.
pub(crate) fn stdout_noise_finding(
    lines: &[String],
    total: usize,
    cfg: &ChecksConfig,
) -> Option<Finding> {
    let mut out = Sink::new(cfg);
    if out.enabled(STDOUT_NOISE) {
        stdout_noise(lines, total, &mut out);
    }
    out.findings.pop()
}

/// Runs every check not listed in `cfg.disable` over `tools` (in server order); the `client-*`
/// checks only for the clients in `cfg.clients`.
///
/// `cfg.enabled` is not looked at: whether the phase runs at all is the caller's decision.
pub(crate) fn run(tools: &[Tool], cfg: &ChecksConfig, ctx: &CheckContext) -> ChecksResults {
    let mut out = Sink::new(cfg);
    let shown: Vec<String> = tools.iter().map(shown_name).collect();

    if out.enabled(DUPLICATE_NAME) {
        duplicate_names(tools, &shown, &mut out);
    }
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for (i, (tool, shown)) in tools.iter().zip(&shown).enumerate() {
        out.tool_index = Some(i);
        check_tool(tool, shown, &names, ctx, &mut out);
    }
    out.tool_index = None;
    clients::check_list(tools, &shown, &mut out);
    if out.enabled(SIMILAR_TOOLS) {
        similarity::check(tools, &shown, cfg.similarity_threshold, &mut out);
    }
    if out.enabled(TOOL_LIST_SIZE) {
        tool_list_size(tools, &shown, cfg.max_tool_list_tokens, &mut out);
    }
    if out.enabled(STDOUT_NOISE) {
        stdout_noise(ctx.stdout_noise, ctx.stdout_noise_total, &mut out);
    }
    if out.enabled(PROTOCOL) {
        for warning in ctx.protocol_warnings {
            out.add(
                "*",
                PROTOCOL,
                Severity::Warning,
                Problem::new(
                    format!("the server sent {warning}"),
                    "answer every request with `\"jsonrpc\": \"2.0\"`, its id, and a `result` object (`{}` when there is nothing to say) or an `error`",
                ),
            );
        }
    }

    ChecksResults {
        strict: cfg.strict,
        tools: shown,
        disabled: cfg.disable.clone(),
        findings: out.findings,
    }
}

/// The name findings use for a tool: its name, or `<unnamed>` when it has none.
pub(crate) fn shown_name(tool: &Tool) -> String {
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
    /// The tool being checked, while the per-tool checks run.
    tool_index: Option<usize>,
}

impl<'c> Sink<'c> {
    fn new(cfg: &'c ChecksConfig) -> Self {
        Sink {
            cfg,
            findings: Vec::new(),
            tool_index: None,
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
        problem: impl Into<Problem>,
    ) {
        if !self.enabled(check) {
            return;
        }
        let Problem { message, hint } = problem.into();
        self.findings.push(Finding {
            tool: tool.to_owned(),
            tool_index: self.tool_index,
            check: check.to_owned(),
            severity,
            // An info is advice: it fails nothing, not even under strict.
            fails: severity == Severity::Error
                || (severity == Severity::Warning && self.cfg.strict),
            message,
            hint,
        });
    }
}

/// What a check found, before it is filed as a [`Finding`]: what is wrong, and the fix when
/// there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    message: String,
    hint: Option<String>,
}

impl Problem {
    /// A problem with a fix.
    pub(crate) fn new(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Problem {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }
}

impl From<String> for Problem {
    fn from(message: String) -> Self {
        Problem {
            message,
            hint: None,
        }
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
                Problem::new(
                    format!("tool name is used {count} times; clients keep only one of them"),
                    "give every tool its own name",
                ),
            );
        }
    }
}

/// The checks about a single tool, in the order their findings appear; `names` are the names
/// of every tool listed.
fn check_tool(tool: &Tool, shown: &str, names: &[&str], ctx: &CheckContext, out: &mut Sink) {
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
            Problem::new(
                "tool has no description; a model picks tools by their description",
                "say what the tool does and when to use it",
            ),
        );
    } else {
        let length = description.chars().count();
        let limit = out.cfg.max_description_length;
        if length > limit {
            out.add(
                shown,
                DESCRIPTION_LENGTH,
                Severity::Warning,
                Problem::new(
                    format!("description is {length} characters (limit {limit})"),
                    "keep to what the tool does and when to use it; move argument details into \
                     the arguments' descriptions",
                ),
            );
        }
    }

    if out.enabled(DEPRECATED_TOOL) {
        deprecated::check(tool, shown, names, out);
    }
    gaming::check(tool, shown, names, out);
    annotations::check(tool, shown, out);
    schema::check(tool, shown, ctx.protocol_version, out);
    clients::check(tool, shown, out);
    security::check(tool, shown, names, out);
}

/// Warns when the whole tool list is estimated above `limit` tokens.
///
/// The estimate is the length in bytes of the compact JSON a client sends a model for every tool
/// (`name`, `description`, `input_schema`), divided by 4 and rounded up: about 4 bytes per token
/// holds for English prose and JSON with current tokenizers, and it errs high on short words.
fn tool_list_size(tools: &[Tool], shown: &[String], limit: usize, out: &mut Sink) {
    let mut sizes: Vec<(usize, &str)> = Vec::with_capacity(tools.len());
    for (tool, shown) in tools.iter().zip(shown) {
        let size = crate::outcome::cost::tool_bytes(
            &tool.name,
            tool.description.as_deref().unwrap_or(""),
            tool.input_schema.as_ref().unwrap_or(&Value::Null),
        );
        sizes.push((size, shown));
    }
    let bytes = 2 + tools.len().saturating_sub(1) + sizes.iter().map(|(s, _)| s).sum::<usize>();
    let tokens = crate::outcome::cost::list_tokens(sizes.iter().map(|(s, _)| *s)) as usize;
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
        Problem::new(
            format!(
                "tool list is about {} tokens (limit {}): {} tools, {} bytes of JSON name, \
                 description and input schema at ~4 bytes per token; largest: {}",
                thousands(tokens),
                thousands(limit),
                tools.len(),
                thousands(bytes),
                largest.join(", "),
            ),
            "shorten descriptions and schemas, or split the server",
        ),
    );
}

/// One finding when the server printed anything but JSON-RPC on stdout.
fn stdout_noise(lines: &[String], total: usize, out: &mut Sink) {
    let Some(first) = lines.first() else {
        return;
    };
    let count = total.max(lines.len());
    let what = if count == 1 { "line" } else { "lines" };
    out.add(
        "*",
        STDOUT_NOISE,
        Severity::Error,
        Problem::new(
            format!(
                "server printed {count} non-protocol {what} on stdout, first: {}; \
                 clients that read stdout strictly fail on them",
                quote(first, 120)
            ),
            "write logs to stderr; stdout carries only JSON-RPC messages",
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
    crate::outcome::cost::count(n as u64)
}

#[cfg(test)]
pub(crate) mod tests;
