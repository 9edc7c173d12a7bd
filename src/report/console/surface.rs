//! The console's surface section: the phase line, then one line per change against
//! `toolproof.lock`, breaking first, with the eval rows a changed tool touches.

use super::super::escape::clean;
use super::phase_line;
use crate::outcome::Phases;

/// Rows listed under one change at most.
const ROWS_SHOWN: usize = 5;

pub(super) fn section(out: &mut String, phases: &Phases, color: bool) {
    let (Some(phase), Some(overview)) = (&phases.surface, phases.surface_overview()) else {
        return;
    };
    let detail = phase.reason.as_deref().map(|r| clean(r).into_owned());
    phase_line(out, &overview, detail.as_deref(), color);
    for c in &phase.results.changes {
        out.push_str(&format!(
            "  {:<10} {} {}",
            c.kind.as_str(),
            clean(&c.item),
            clean(&c.what)
        ));
        if !c.rug_pull.is_empty() {
            out.push_str(&format!(" (rug pull: now trips {})", c.rug_pull.join(", ")));
        }
        out.push('\n');
        for row in c.rows.iter().take(ROWS_SHOWN) {
            out.push_str(&format!(
                "      eval row {:?} [{}]: {}\n",
                clean(&row.case),
                clean(&row.model),
                status_word(row.status)
            ));
        }
        if c.rows.len() > ROWS_SHOWN {
            out.push_str(&format!(
                "      … {} more rows\n",
                c.rows.len() - ROWS_SHOWN
            ));
        }
    }
    out.push('\n');
}

/// How an eval row ended, in a word.
pub(crate) fn status_word(status: crate::outcome::CaseStatus) -> &'static str {
    use crate::outcome::CaseStatus;
    match status {
        CaseStatus::Correct => "correct",
        CaseStatus::Miss => "miss",
        CaseStatus::ProviderError => "provider error",
        CaseStatus::NotRun => "not run",
    }
}
