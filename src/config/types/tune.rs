//! `tune:`: the rewriter `toolproof tune` asks for new descriptions, and the length budget of
//! a rewrite (toolproof's own).

use std::path::PathBuf;

use serde::Deserialize;

/// `tune:`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneConfig {
    /// The rewriter's provider (default: `evals.provider`).
    #[serde(default)]
    pub provider: Option<String>,
    /// The rewriter's model (default: `evals.model`, else the first of `evals.models`).
    #[serde(default)]
    pub model: Option<String>,
    /// The command provider's program for the rewriter (default: `evals.command`).
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// A file holding the prompt that asks a model API for rewrites, relative to the YAML
    /// (default: the prompt the guide shows).
    #[serde(default)]
    pub prompt_file: Option<PathBuf>,
    /// The longest description accepted, in characters (default: the larger of twice the
    /// original and 400).
    #[serde(default)]
    pub max_chars: Option<usize>,
}
