//! What the crowd measured for one model: your rows asked with the neighbours' tools in the
//! list as the host builds it, against the same rows asked alone; the rows one server's tool
//! took from another's; the crowd's size; the names that clash and what the host does.

use serde::{Deserialize, Serialize};

/// One model's evals in the crowd (`evals.neighbours`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Crowd {
    /// Every neighbour with the tools it listed.
    pub neighbours: Vec<CrowdNeighbour>,
    /// The host whose rules built the list: `none`, `claude-code`, `cursor`, `vscode`, `custom`.
    pub host: String,
    /// Tools sent to the model in the crowd (yours included, after the host's cap and dedupe).
    pub tools_total: usize,
    /// Estimated tokens of those tools' definitions (a token per four bytes).
    pub tool_tokens: u64,
    /// Your rows' accuracy with your tools alone (the evals phase's).
    pub accuracy_alone: f64,
    /// Your rows' accuracy in the crowd.
    pub accuracy_crowded: f64,
    /// One-sided p-value of the paired test that the crowd is worse, row by row (`None`
    /// when no row was answered both ways).
    pub p_value: Option<f64>,
    /// Rows answered by another server's tool (first wrong trial's first call).
    pub steals: Vec<Steal>,
    /// Tool names more than one server lists, and what the host does with each.
    pub collisions: Vec<Collision>,
    /// Tools the host's cap left out of the list, as `server/tool`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capped: Vec<String>,
    /// The gate: `evals.crowd.min_accuracy`, else the set's `min_accuracy`.
    pub min_accuracy: f64,
    /// Whether the crowded accuracy reached it.
    pub passed: bool,
    /// Your rows asked in the crowd, and how many got every answer.
    pub rows: usize,
    /// Your rows correct on every trial in the crowd.
    pub correct: usize,
    /// The neighbours' own rows asked (their `cases_file`s).
    #[serde(default)]
    pub their_rows: usize,
    /// Why the crowd could not be measured (a neighbour that could not be listed, a provider
    /// error), when so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A neighbour and its tool count.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CrowdNeighbour {
    /// Its name (`evals.neighbours[].name`).
    pub name: String,
    /// Tools it listed.
    pub tools: usize,
}

/// A row answered with another server's tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Steal {
    /// The row's name.
    pub case: String,
    /// The tool the row expects (its name as the server lists it).
    pub expected: String,
    /// The tool picked (its name as its server lists it).
    pub picked: String,
    /// The server whose tool was picked.
    pub server: String,
    /// The server whose row it is (yours, or a neighbour's from its `cases_file`).
    pub owner: String,
}

/// One tool name listed by several servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Collision {
    /// The name as the servers list it.
    pub name: String,
    /// The servers listing it, in list order.
    pub servers: Vec<String>,
    /// What the host does: `resolved by the prefix`, `X's is dropped`, `X's renamed to Y`.
    pub outcome: String,
}
