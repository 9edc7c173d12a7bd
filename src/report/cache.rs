//! The text `cache status` and `cache prune` print: one line per needed answer (or per stale
//! file), then a count and what to do.

use std::fmt::Write;

use crate::outcome::RunReport;

/// Renders the cache audit of a report (nothing when the report has none).
pub(crate) fn render(report: &RunReport) -> String {
    let report = report.redacted();
    let mut out = String::new();
    if let Some(err) = &report.error {
        let _ = writeln!(out, "error: {}", clean(&err.message));
        return out;
    }
    let Some(audit) = &report.cache_audit else {
        return out;
    };
    if let Some(error) = &audit.error {
        let _ = writeln!(out, "error: {}", clean(error));
        return out;
    }
    if report.command == "cache prune" {
        let verb = if audit.removed {
            "removed"
        } else {
            "would remove"
        };
        let kept: Vec<&str> = audit.not_removed.iter().map(|k| k.file.as_str()).collect();
        for file in audit.stale.iter().filter(|f| !kept.contains(&f.as_str())) {
            let _ = writeln!(out, "{verb} {file}");
        }
        for k in &audit.not_removed {
            let _ = writeln!(out, "could not remove {}: {}", k.file, clean(&k.error));
        }
        let n = audit.stale.len() - kept.len();
        let _ = if audit.stale.is_empty() {
            writeln!(
                out,
                "nothing to prune: every cache file belongs to a current case"
            )
        } else if audit.removed && !kept.is_empty() {
            writeln!(
                out,
                "removed {n} file(s); {} could not be removed (see above)",
                kept.len()
            )
        } else if audit.removed {
            writeln!(out, "removed {n} file(s)")
        } else {
            writeln!(
                out,
                "{n} file(s) no current case can hit; run again with --apply to remove them"
            )
        };
        return out;
    }
    for answer in &audit.answers {
        let _ = writeln!(
            out,
            "{:<7}  {}  {}",
            answer.state,
            &answer.key[..answer.key.len().min(12)],
            clean(&answer.label)
        );
    }
    let missing = audit.missing();
    let _ = writeln!(
        out,
        "{} of {} answers cached in {}",
        audit.answers.len() - missing,
        audit.answers.len(),
        audit.dir
    );
    if missing > 0 {
        let _ = writeln!(
            out,
            "hint: run `toolproof eval` with the provider's API key to record the missing answers, then commit the cache"
        );
    }
    out
}

fn clean(s: &str) -> String {
    super::escape::one_line(s, 100)
}
