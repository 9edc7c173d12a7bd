//! The surface phase's results: the tools, prompts and resources the server lists, compared
//! with `toolproof.lock`, each difference classified as an API reviewer would.

use serde::{Deserialize, Serialize};

use super::CaseStatus;

/// What a difference from the lock does to the server's clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// A client written against the lock can break: something removed, renamed or narrowed.
    Breaking,
    /// A model may pick tools differently: a name, title or description changed.
    Selection,
    /// Nothing a client relies on changed: something added or widened.
    Compatible,
}

impl ChangeKind {
    /// The word the reports use: `breaking`, `selection`, `compatible`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Breaking => "breaking",
            ChangeKind::Selection => "selection",
            ChangeKind::Compatible => "compatible",
        }
    }
}

/// The surface phase: the lock file, whether drift fails the run, and every difference.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SurfaceResults {
    /// Whether the run was `--locked` (a difference fails it).
    pub locked: bool,
    /// The lock file, as the run named it.
    pub lock_file: String,
    /// Every difference, breaking first, then selection-affecting, then compatible; within a
    /// kind in the lock's order.
    pub changes: Vec<SurfaceChange>,
    /// The line of the lock where each item it holds starts (`tool:NAME` → line): where the
    /// SARIF report points findings about that item.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub lock_lines: std::collections::BTreeMap<String, u32>,
}

impl SurfaceResults {
    /// How many changes of a kind.
    pub fn count(&self, kind: ChangeKind) -> usize {
        self.changes.iter().filter(|c| c.kind == kind).count()
    }

    /// `2 breaking, 1 selection-affecting, 1 compatible` (the kinds there are), or
    /// `no change`.
    pub fn counts_text(&self) -> String {
        let parts: Vec<String> = [
            (ChangeKind::Breaking, "breaking"),
            (ChangeKind::Selection, "selection-affecting"),
            (ChangeKind::Compatible, "compatible"),
        ]
        .into_iter()
        .filter_map(|(k, word)| {
            let n = self.count(k);
            (n > 0).then(|| format!("{n} {word}"))
        })
        .collect();
        if parts.is_empty() {
            "no change".into()
        } else {
            parts.join(", ")
        }
    }
}

/// One difference between the server and the lock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SurfaceChange {
    /// Breaking, selection-affecting or compatible.
    pub kind: ChangeKind,
    /// What it is about: `tool:NAME`, `prompt:NAME`, `resource:URI` (a template by its URI
    /// template).
    pub item: String,
    /// What changed, one line (`lost optional argument `limit``).
    pub what: String,
    /// The id of the rule that classified it (the table in `docs/surface.md`).
    pub rule: String,
    /// The line of `toolproof.lock` where the lock holds the item, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_line: Option<u32>,
    /// The `security-*` checks the item's changed text now trips: a rug pull.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rug_pull: Vec<String>,
    /// For a change to a tool: the eval rows that expect it or picked it in this run, with
    /// their outcome.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<AffectedRow>,
}

/// An eval row a changed tool touches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AffectedRow {
    /// The model it was asked of.
    pub model: String,
    /// The case's name.
    pub case: String,
    /// The tool it expects (`None`: no tool).
    pub expected: Option<String>,
    /// The tools it picked on its trials, first trial first, each once.
    pub picked: Vec<String>,
    /// Its outcome in this run.
    pub status: CaseStatus,
}
