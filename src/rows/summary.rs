//! What `rows import` says on stderr when it is done: the files and their formats, the rows
//! proposed by kind and those dropped, what was redacted, and the coverage: the tools the
//! traffic called (with the MCP traffic's calls and errors), the server's tools that still
//! have no row, and those the traffic never used.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Format;
use super::pii::Counts;
use super::propose::{Kind, Proposal, Tally};
use super::select::Dropped;
use super::traffic::SeenCall;

/// Everything the summary reports.
pub(crate) struct Import<'a> {
    pub files: Vec<(String, Format)>,
    pub tally: &'a Tally,
    pub traffic: &'a [SeenCall],
    pub kept: &'a [Proposal],
    pub dropped: &'a Dropped,
    /// `None` under `--no-redact`.
    pub redacted: Option<&'a Counts>,
    pub server_tools: &'a [String],
    pub existing: &'a [(String, Option<String>)],
    pub wrote: &'a str,
}

/// The summary's text.
pub(crate) fn import(r: &Import<'_>) -> String {
    let mut out = String::new();
    let files: Vec<String> = r
        .files
        .iter()
        .map(|(f, fmt)| format!("{f} ({})", fmt.name()))
        .collect();
    let _ = writeln!(out, "rows import: read {}", files.join(", "));
    let _ = writeln!(
        out,
        "  {} requests; {} answered by tools the server does not list (left out); {} rows proposed{}",
        r.tally.requests,
        r.tally.other_tools,
        r.kept.len(),
        by_kind(r.kept)
    );
    let d = r.dropped;
    let _ = writeln!(
        out,
        "  dropped: {} already in the set, {} duplicates among the proposals, {} over --limit",
        d.in_set, d.duplicates, d.over_limit
    );
    let _ = match r.redacted {
        None => writeln!(
            out,
            "  redaction: off (--no-redact): read every prompt before committing it"
        ),
        Some(c) if c.is_empty() => writeln!(out, "  redacted: nothing"),
        Some(c) => writeln!(
            out,
            "  redacted: {}",
            c.iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    coverage(r, &mut out);
    let _ = writeln!(
        out,
        "wrote {} rows to {}: each has `reviewed: false` until someone reads it (the set lint warns on it, `lint --strict` fails)",
        r.kept.len(),
        r.wrote
    );
    out
}

fn by_kind(kept: &[Proposal]) -> String {
    let mut counts: BTreeMap<Kind, usize> = BTreeMap::new();
    for p in kept {
        *counts.entry(p.kind).or_default() += 1;
    }
    if counts.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(k, n)| format!("{n} {}", k.label()))
        .collect();
    format!(" ({})", parts.join(", "))
}

fn coverage(r: &Import<'_>, out: &mut String) {
    let mut called: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for t in &r.tally.calls {
        called.entry(t).or_default().0 += 1;
    }
    for c in r.traffic {
        let e = called.entry(&c.tool).or_default();
        e.1 += 1;
        e.2 += usize::from(c.error);
    }
    let _ = writeln!(out, "tools called in the traffic:");
    if called.is_empty() {
        let _ = writeln!(out, "  none");
    }
    let mut rows: Vec<(&&str, &(usize, usize, usize))> = called.iter().collect();
    rows.sort_by(|a, b| (b.1.0 + b.1.1).cmp(&(a.1.0 + a.1.1)).then(a.0.cmp(b.0)));
    for (tool, (conv, mcp, errors)) in rows {
        let listed = if r.server_tools.iter().any(|t| t == tool) {
            ""
        } else {
            " (not a tool of the server)"
        };
        let mut parts = Vec::new();
        if *conv > 0 {
            parts.push(format!("{conv} in conversations"));
        }
        if *mcp > 0 {
            parts.push(format!("{mcp} in MCP traffic (errors: {errors})"));
        }
        let _ = writeln!(out, "  {:<24} {}{listed}", clean(tool), parts.join("; "));
    }
    let has_row = |t: &str| {
        r.existing.iter().any(|(_, e)| e.as_deref() == Some(t))
            || r.kept.iter().any(|p| p.expect.as_deref() == Some(t))
    };
    let no_row: Vec<&str> = r
        .server_tools
        .iter()
        .map(String::as_str)
        .filter(|t| !has_row(t))
        .collect();
    let unused: Vec<&str> = r
        .server_tools
        .iter()
        .map(String::as_str)
        .filter(|t| !called.contains_key(t))
        .collect();
    let list = |names: &[&str]| {
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    };
    let _ = writeln!(
        out,
        "tools with no row yet (in the set or proposed): {}",
        list(&no_row)
    );
    let _ = writeln!(
        out,
        "tools the server lists that the traffic never used: {}",
        list(&unused)
    );
}

/// A name from a log as the terminal shows it: control characters (an escape sequence in a
/// tool name of the traffic) as `?`.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}
