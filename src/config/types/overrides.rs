//! `evals.overrides` (and the file `--overrides` names): new wording for a tool, tried without
//! touching the server. Each entry names a tool the server lists and gives it a new
//! `description` and, optionally, new descriptions of input-schema properties.

use std::collections::BTreeMap;

use serde::Deserialize;

/// `evals.overrides.<tool>`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolOverride {
    /// The tool's new description.
    #[serde(default)]
    pub description: Option<String>,
    /// New descriptions of properties of the tool's input schema, by property name.
    #[serde(default)]
    pub properties: BTreeMap<String, String>,
}

/// `evals.overrides`: per tool name, its new wording.
pub(crate) type Overrides = BTreeMap<String, ToolOverride>;

/// The file `--overrides` reads (and `toolproof tune` writes): `overrides:` holding the
/// mapping `evals.overrides` holds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OverridesFile {
    /// Per tool name, its new wording.
    #[serde(default)]
    pub overrides: Overrides,
}
