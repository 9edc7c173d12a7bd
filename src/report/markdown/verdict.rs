//! The verdict against the base run, first in the job summary and the pull-request comment:
//! per model `Selection regressed on MODEL: 66% vs 76% on main, p = 0.002; 9 rows flipped right
//! → wrong`, then for a regression the rows that flipped with their `why`; a missing base said
//! once.

use super::text::md;
use crate::outcome::Verdict;
use crate::report::evals_view::EvalsView;

/// Most flipped rows listed per model.
const ROWS_SHOWN: usize = 20;
/// Longest line, in characters.
const LINE_CHARS: usize = 600;
/// Longest case name or `why`, in characters.
const NAME_CHARS: usize = 200;

/// The section; empty when the run made no comparison.
pub(super) fn section(view: Option<&EvalsView<'_>>) -> String {
    let Some(view) = view else {
        return String::new();
    };
    let mut out = String::new();
    for m in &view.models {
        let (Some(c), Some(line)) = (m.comparison, &m.comparison_line) else {
            continue;
        };
        out.push_str(&md(line, LINE_CHARS));
        if m.comparison_failed {
            out.push_str(" ❌");
        }
        out.push_str("\n\n");
        if c.verdict != Verdict::Regressed {
            continue;
        }
        let flipped: Vec<_> = c.flipped_worse().collect();
        for row in flipped.iter().take(ROWS_SHOWN) {
            let name = row.case.split('#').next().unwrap_or(&row.case);
            let why = m
                .rows
                .iter()
                .find(|r| r.name == name)
                .and_then(|r| r.why)
                .map(|w| format!(": {}", md(w, NAME_CHARS)))
                .unwrap_or_default();
            out.push_str(&format!(
                "- {} {}/{} → {}/{}{why}\n",
                md(&row.case, NAME_CHARS),
                row.before[0],
                row.before[1],
                row.after[0],
                row.after[1],
            ));
        }
        if flipped.len() > ROWS_SHOWN {
            out.push_str(&format!("- … {} more\n", flipped.len() - ROWS_SHOWN));
        }
        if !flipped.is_empty() {
            out.push('\n');
        }
    }
    if let Some(line) = &view.no_base {
        out.push_str(&format!("_{}_\n\n", md(line, LINE_CHARS)));
    }
    out
}
