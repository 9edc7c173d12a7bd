//! `evals.neighbours`, `evals.host` and `evals.crowd` (toolproof's own): the other servers a
//! client connects beside the one under test, how the host names, caps and dedupes the tools
//! it sends the model, and the gate on accuracy in that crowd.

use std::path::PathBuf;

use serde::Deserialize;

use super::EvalCase;

/// One entry of `evals.neighbours`: a server whose tools join the list sent to the model.
/// Exactly one of `command`, `url` and `tools_file` says where its tools come from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeighbourConfig {
    /// The server's name as the host knows it (the `mcp__<name>__` of Claude Code).
    pub name: String,
    /// A stdio server to start and list, relative to the YAML.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// A streamable HTTP server to list.
    #[serde(default)]
    pub url: Option<String>,
    /// A snapshot written by `toolproof inspect --save-tools`, relative to the YAML.
    #[serde(default)]
    pub tools_file: Option<PathBuf>,
    /// The neighbour's own labelled rows (a cases file), relative to the YAML: asked in the
    /// crowd too, so the report shows the rows of theirs your tools answer.
    #[serde(default)]
    pub cases_file: Option<PathBuf>,
    /// The rows of `cases_file` (filled by the loader).
    #[serde(skip)]
    pub cases: Vec<EvalCase>,
    /// The snapshot `tools_file` holds (read by the loader).
    #[serde(skip)]
    pub snapshot: Option<ToolSnapshot>,
    /// YAML line of this entry (filled by the loader).
    #[serde(skip)]
    pub line: Option<u32>,
}

/// A snapshot of a server's tools, as `toolproof inspect --save-tools` writes it:
/// `{"server": {"name", "version"}, "tools": [...]}` (the `tools/list` result with the server).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolSnapshot {
    /// The file it was read from.
    pub file: PathBuf,
    /// `server.name`, when given.
    pub server: Option<String>,
    /// `server.version`, when given.
    pub version: Option<String>,
    /// Every tool as the server listed it.
    pub tools: Vec<serde_json::Value>,
}

impl ToolSnapshot {
    /// Reads a snapshot's text; the error says what is wrong with it.
    pub fn parse(file: &std::path::Path, text: &str) -> Result<ToolSnapshot, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let tools = value
            .get("tools")
            .and_then(serde_json::Value::as_array)
            .ok_or("no `tools` list: a snapshot is `{\"server\": {…}, \"tools\": [...]}`")?;
        if let Some(i) = tools.iter().position(|t| {
            t.get("name")
                .and_then(serde_json::Value::as_str)
                .is_none_or(str::is_empty)
        }) {
            return Err(format!("tool {} of `tools` has no name", i + 1));
        }
        let server = |k: &str| {
            value
                .get("server")
                .and_then(|s| s.get(k))
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        Ok(ToolSnapshot {
            file: file.to_path_buf(),
            server: server("name"),
            version: server("version"),
            tools: tools.clone(),
        })
    }
}

/// `evals.host`: how the client exposes the tools of every server to the model.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HostConfig {
    /// The tool names as the servers list them, no cap (the evals' behaviour without a host).
    #[default]
    None,
    /// Claude Code: `mcp__<server>__<tool>`.
    ClaudeCode,
    /// Cursor: names as listed, the first 40 tools.
    Cursor,
    /// VS Code: names as listed, at most 128 tools.
    Vscode,
    /// Rules written out.
    Custom(HostRules),
}

/// The rules a host applies, written out (`evals.host: {prefix, max_tools, on_duplicate}`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostRules {
    /// Put before each tool's name; `{server}` becomes the server's name (characters outside
    /// `[A-Za-z0-9_-]` as `_`). Empty: names as listed.
    #[serde(default)]
    pub prefix: String,
    /// The most tools the host sends, in server order (the server under test first).
    #[serde(default)]
    pub max_tools: Option<u32>,
    /// What the host does when two servers list the same name (after the prefix).
    #[serde(default)]
    pub on_duplicate: OnDuplicate,
}

/// What a host does with a second tool of a name already taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnDuplicate {
    /// The first server's tool is sent, the later one is dropped.
    #[default]
    Drop,
    /// The later one is sent as `<server>_<tool>`.
    Rename,
}

impl HostConfig {
    /// The preset's rules, or the written ones.
    pub fn rules(&self) -> HostRules {
        let rules = |prefix: &str, max_tools| HostRules {
            prefix: prefix.to_owned(),
            max_tools,
            on_duplicate: OnDuplicate::Drop,
        };
        match self {
            HostConfig::None => rules("", None),
            HostConfig::ClaudeCode => rules("mcp__{server}__", None),
            HostConfig::Cursor => rules("", Some(40)),
            HostConfig::Vscode => rules("", Some(128)),
            HostConfig::Custom(r) => r.clone(),
        }
    }

    /// How reports name it: `none`, `claude-code`, `cursor`, `vscode`, `custom`.
    pub fn name(&self) -> &'static str {
        match self {
            HostConfig::None => "none",
            HostConfig::ClaudeCode => "claude-code",
            HostConfig::Cursor => "cursor",
            HostConfig::Vscode => "vscode",
            HostConfig::Custom(_) => "custom",
        }
    }
}

/// Hand-written instead of `untagged`, so a wrong value gets a message naming every form.
impl<'de> Deserialize<'de> for HostConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Host;

        const FORMS: &str =
            "none, claude-code, cursor, vscode, or {prefix, max_tools, on_duplicate}";

        impl<'de> serde::de::Visitor<'de> for Host {
            type Value = HostConfig;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "one of {FORMS}")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HostConfig, E> {
                match v {
                    "none" => Ok(HostConfig::None),
                    "claude-code" => Ok(HostConfig::ClaudeCode),
                    "cursor" => Ok(HostConfig::Cursor),
                    "vscode" => Ok(HostConfig::Vscode),
                    other => Err(E::custom(format!("unknown host `{other}`: use {FORMS}"))),
                }
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<HostConfig, A::Error> {
                HostRules::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(HostConfig::Custom)
            }
        }

        d.deserialize_any(Host)
    }
}

/// `evals.crowd`: the gate on accuracy with the neighbours' tools in the list.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrowdConfig {
    /// Accuracy of your rows in the crowd below which the model fails (default: the set's
    /// own `min_accuracy`).
    #[serde(default)]
    pub min_accuracy: Option<f64>,
}
