//! The crowd as every report words it, from a model's [`Crowd`]: the accuracy alone and in the
//! crowd with the paired test, the crowd's size, the steal matrix and the steals, the names
//! that clash. Text here is raw (server and tool names are untrusted); renderers escape it.

use std::collections::BTreeMap;

use crate::outcome::rates::percent;
use crate::outcome::{Crowd, p_text};

/// Most steals listed (the JSON report has them all).
const STEALS_SHOWN: usize = 20;

/// The lines of one model's crowd, in order.
pub(crate) fn lines(c: &Crowd) -> Vec<String> {
    let mut out = Vec::new();
    let names: Vec<String> = c
        .neighbours
        .iter()
        .map(|n| format!("{} ({} tools)", n.name, n.tools))
        .collect();
    out.push(format!(
        "Crowd (host {}): {} tools, about {} tokens of tool definitions, with {}",
        c.host,
        c.tools_total,
        c.tool_tokens,
        names.join(", ")
    ));
    if let Some(why) = &c.error {
        out.push(format!("  the crowd could not be measured: {why}"));
        return out;
    }
    let p = c.p_value.map_or_else(
        || "no row answered both ways".to_owned(),
        |p| format!("paired test p {}", p_text(p)),
    );
    out.push(format!(
        "  accuracy alone {} → in the crowd {} ({}/{}; {p}), minimum {}",
        percent(c.accuracy_alone),
        percent(c.accuracy_crowded),
        c.correct,
        c.rows,
        percent(c.min_accuracy),
    ));
    let mut matrix: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for s in &c.steals {
        *matrix
            .entry((s.owner.as_str(), s.server.as_str()))
            .or_default() += 1;
    }
    if !matrix.is_empty() {
        let cells: Vec<String> = matrix
            .iter()
            .map(|((owner, server), n)| format!("{owner}'s rows → {server}'s tools: {n}"))
            .collect();
        out.push(format!("  steals: {}", cells.join("; ")));
        for s in c.steals.iter().take(STEALS_SHOWN) {
            out.push(format!(
                "    {}: expected {}, picked {} ({})",
                s.case, s.expected, s.picked, s.server
            ));
        }
        if c.steals.len() > STEALS_SHOWN {
            out.push(format!("    … and {} more", c.steals.len() - STEALS_SHOWN));
        }
    } else {
        out.push("  steals: none".to_owned());
    }
    for col in &c.collisions {
        out.push(format!(
            "  collision: `{}` is listed by {}: {}",
            col.name,
            col.servers.join(", "),
            col.outcome
        ));
    }
    if !c.capped.is_empty() {
        out.push(format!(
            "  the host's cap leaves out {} tools: {}",
            c.capped.len(),
            c.capped.join(", ")
        ));
    }
    out
}
