//! The comment's "what changed" section: per model the accuracy against the base branch's last
//! recorded run (`92% (main: 96%, −4 pts)`) with the cases that newly miss or newly pass, the
//! new and fixed static-check findings, and the tests that newly fail or pass again. Without a
//! comparison it says why there is none.

use super::super::text::md;
use crate::outcome::rates::percent;
use crate::outcome::{BaseComparison, FindingKey, HistoryRecord, ModelChange};
use crate::report::escape::plural;

/// Most names listed inline in one line; the rest are counted.
const NAMES_SHOWN: usize = 20;
/// Longest name shown, in characters.
const NAME_CHARS: usize = 120;

/// The section, from the history record of the run (`None`: no `--history`).
pub(super) fn section(history: Option<&HistoryRecord>) -> String {
    let Some(h) = history else {
        return "_Nothing to compare with: keep a history file across runs (`--history`, \
                restored from the base branch's runs) to see what changed._\n\n"
            .into();
    };
    if let Some(error) = &h.error {
        return format!(
            "_Nothing to compare with: {}_\n\n",
            md(error, NAME_CHARS * 4)
        );
    }
    let Some(base) = &h.base else {
        return "_Nothing to compare with: no base branch is known (`GITHUB_BASE_REF` is not \
                set)._\n\n"
            .into();
    };
    let branch = md(&base.base_ref, NAME_CHARS);
    let mut out = format!("### What changed against {branch}\n\n");
    let Some(run) = &base.run else {
        out.push_str(&format!(
            "_No run of {branch} is recorded in the history file yet, so there is nothing to \
             compare with._\n\n"
        ));
        return out;
    };
    let commit = run
        .commit
        .as_deref()
        .map(|c| format!(" at {}", md(&c.chars().take(12).collect::<String>(), 12)))
        .unwrap_or_default();
    out.push_str(&format!(
        "Compared with the last run recorded on {branch}{commit} ({}).\n\n",
        md(&run.time, 40)
    ));
    let bullets = lines(base, &branch);
    out.push_str(&bullets);
    if !base.changed() {
        // A paragraph of its own: right after a bullet it would render inside that bullet.
        if !bullets.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "Nothing changed against {branch}: the same accuracy, the same cases miss, and no \
             static-check finding or test failure is new or fixed.\n"
        ));
    }
    out.push('\n');
    out
}

/// One bullet per model, then the findings and the tests.
fn lines(base: &BaseComparison, branch: &str) -> String {
    let mut out = String::new();
    for m in &base.models {
        out.push_str(&model_line(m, branch));
    }
    if let Some(c) = &base.checks {
        out.push_str(&names_line("❌ New static-check findings", &keys(&c.new)));
        out.push_str(&names_line(
            "✅ Fixed static-check findings",
            &keys(&c.fixed),
        ));
    }
    if let Some(t) = &base.tests {
        out.push_str(&names_line("❌ Tests that newly fail", &t.newly_failing));
        out.push_str(&names_line("✅ Tests that pass again", &t.fixed));
    }
    out
}

fn model_line(m: &ModelChange, branch: &str) -> String {
    let now = percent(m.accuracy);
    let then = match m.base_accuracy {
        Some(base) => format!("{branch}: {}, {}", percent(base), points(m.accuracy - base)),
        None => format!("not run on {branch}"),
    };
    // A command provider may have no model id: then the line names no model.
    let mut out = if m.model.is_empty() {
        format!("- accuracy {now} ({then})\n")
    } else {
        format!(
            "- **{}**: accuracy {now} ({then})\n",
            md(&m.model, NAME_CHARS)
        )
    };
    for (label, names) in [
        ("❌ newly missed", &m.newly_missed),
        ("✅ newly passing", &m.newly_passing),
    ] {
        let line = names_line(label, names);
        if !line.is_empty() {
            out.push_str("  ");
            out.push_str(&line);
        }
    }
    out
}

/// A difference of two shares in percentage points: `−4 pts`, `+2.5 pts`, `no change`.
fn points(diff: f64) -> String {
    if diff.abs() < 1e-9 {
        return "no change".into();
    }
    let sign = if diff < 0.0 { '−' } else { '+' };
    let size = percent(diff.abs());
    format!("{sign}{} pts", size.trim_end_matches('%'))
}

/// `check on tool` for each finding.
fn keys(keys: &[FindingKey]) -> Vec<String> {
    keys.iter()
        .map(|k| format!("{} on {}", k.check, k.tool))
        .collect()
}

/// `- label (n): a, b, … and 3 more`, or nothing for no names.
fn names_line(label: &str, names: &[String]) -> String {
    if names.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = names
        .iter()
        .take(NAMES_SHOWN)
        .map(|n| md(n, NAME_CHARS))
        .collect();
    let mut line = format!("- {label} ({}): {}", names.len(), shown.join(", "));
    let more = names.len().saturating_sub(NAMES_SHOWN);
    if more > 0 {
        line.push_str(&format!(", … and {more} more"));
    }
    line.push('\n');
    line
}

/// `2 cases`, for counts in sentences.
pub(super) fn cases(n: usize) -> String {
    format!("{n} case{}", plural(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_signed_and_use_the_one_rate_formatter() {
        assert_eq!(points(0.92 - 0.96), "−4 pts");
        assert_eq!(points(0.025), "+2.5 pts");
        assert_eq!(points(0.0), "no change");
        assert_eq!(points(2.0 / 3.0 - 0.5), "+16.7 pts");
    }

    #[test]
    fn long_name_lists_are_counted_not_listed() {
        let names: Vec<String> = (0..25).map(|i| format!("case {i}")).collect();
        let line = names_line("newly missed", &names);
        assert!(line.starts_with("- newly missed (25): case 0, case 1"));
        assert!(line.ends_with(", … and 5 more\n"), "{line}");
        assert!(!line.contains("case 20"));
        assert_eq!(names_line("x", &[]), "");
    }
}
