//! Whether a candidate description is accepted: held-out accuracy improves significantly on
//! at least one model and no model gets worse beyond chance (the paired test of the
//! comparison with a base run, `evals::judging::stats::paired`), no critical row gets worse on
//! any trial, the text stays within the length budget, and the anti-gaming lint finds nothing.

use crate::evals::judging::stats::{Paired, Row, paired};
use crate::outcome::rates::percent;

/// One held-out row of one model: its name, whether it is critical, and (correct, trials)
/// before and after the rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RowOutcome {
    /// The case's name.
    pub case: String,
    /// The model.
    pub model: String,
    /// A `critical` row.
    pub critical: bool,
    /// (correct, trials) with the server's description.
    pub before: (u32, u32),
    /// (correct, trials) with the candidate.
    pub after: (u32, u32),
}

/// What the held-out rows say of a candidate.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Judged {
    /// Accepted.
    pub accepted: bool,
    /// `held-out 71% → 86% on m (p = 0.01), no critical row worse`, or why not.
    pub reason: String,
    /// Held-out accuracy before, on the model that decided (the best gain).
    pub before: f64,
    /// Held-out accuracy after, on that model.
    pub after: f64,
    /// The one-sided p-value that it is better, on that model.
    pub p_value: f64,
}

/// Judges the held-out rows of every model at significance `alpha`.
pub(crate) fn judge(rows: &[RowOutcome], models: &[String], alpha: f64) -> Judged {
    let mut tests = Vec::new();
    for model in models {
        let mine: Vec<Row> = rows
            .iter()
            .filter(|r| &r.model == model)
            .map(|r| Row {
                before: r.before,
                after: r.after,
            })
            .collect();
        tests.push((model.as_str(), paired(&mine)));
    }
    // The largest gain decides; on a tie, the first model listed.
    let gain = |p: &Paired| p.accuracy_after - p.accuracy_before;
    let Some((best_model, best)) = tests
        .iter()
        .rev()
        .max_by(|a, b| gain(&a.1).total_cmp(&gain(&b.1)))
        .map(|(m, p)| (*m, p.clone()))
    else {
        return Judged {
            accepted: false,
            reason: "rejected: no held-out row to judge it on".into(),
            before: 0.0,
            after: 0.0,
            p_value: 1.0,
        };
    };
    let shift = |m: &str, p: &Paired| {
        format!(
            "held-out {} → {} on {m}",
            percent(p.accuracy_before),
            percent(p.accuracy_after)
        )
    };
    let mut out = Judged {
        accepted: false,
        reason: String::new(),
        before: best.accuracy_before,
        after: best.accuracy_after,
        p_value: best.p_better,
    };
    if let Some(reason) = critical_worse(rows, models.len() > 1) {
        out.reason = reason;
        return out;
    }
    if let Some((m, p)) = tests.iter().find(|(_, p)| p.p_worse < alpha) {
        out.reason = format!(
            "rejected: {} (p = {} worse)",
            shift(m, p),
            p_text(p.p_worse)
        );
        return out;
    }
    if best.p_better >= alpha {
        out.reason = format!(
            "rejected: {} (p = {}), not significant at α {alpha}",
            shift(best_model, &best),
            p_text(best.p_better)
        );
        return out;
    }
    out.accepted = true;
    out.reason = format!(
        "{} (p = {}), no critical row worse",
        shift(best_model, &best),
        p_text(best.p_better)
    );
    out
}

/// `rejected: critical row NAME 3/3 → 1/3` (with the model when there are several) for the
/// first critical row that lost a right trial.
fn critical_worse(rows: &[RowOutcome], several: bool) -> Option<String> {
    let r = rows
        .iter()
        .find(|r| r.critical && worse_on_some_trial(r.before, r.after))?;
    let on = if several {
        format!(" on {}", r.model)
    } else {
        String::new()
    };
    Some(format!(
        "rejected: critical row {} {}/{} → {}/{}{on}",
        r.case, r.before.0, r.before.1, r.after.0, r.after.1
    ))
}

/// Whether a row went from right on every trial to wrong on some, or lost right trials.
fn worse_on_some_trial(before: (u32, u32), after: (u32, u32)) -> bool {
    let rate = |(c, n): (u32, u32)| {
        if n == 0 {
            1.0
        } else {
            f64::from(c) / f64::from(n)
        }
    };
    after.1 > 0 && rate(after) < rate(before)
}

/// A p-value as the reasons print it: two significant digits.
fn p_text(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        let s = format!("{p:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// The length budget of a rewrite of `original`: `max_chars`, else the larger of twice the
/// original and 400 characters.
pub(crate) fn budget(original: &str, max_chars: Option<usize>) -> usize {
    max_chars.unwrap_or_else(|| (2 * original.chars().count()).max(400))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(case: &str, critical: bool, before: (u32, u32), after: (u32, u32)) -> RowOutcome {
        RowOutcome {
            case: case.into(),
            model: "m".into(),
            critical,
            before,
            after,
        }
    }

    #[test]
    fn six_rows_fixed_and_none_broken_is_accepted_with_its_p_value() {
        let mut rows: Vec<RowOutcome> = (0..6)
            .map(|i| row(&format!("r{i}"), false, (0, 1), (1, 1)))
            .collect();
        rows.push(row("c", true, (1, 1), (1, 1)));
        let j = judge(&rows, &["m".into()], 0.05);
        assert!(j.accepted, "{j:?}");
        assert_eq!(
            j.reason,
            "held-out 14.3% → 100% on m (p = 0.016), no critical row worse"
        );
    }

    #[test]
    fn a_critical_row_worse_on_one_trial_rejects_whatever_the_gain() {
        let mut rows: Vec<RowOutcome> = (0..8)
            .map(|i| row(&format!("r{i}"), false, (0, 3), (3, 3)))
            .collect();
        rows.push(row("refund-smashed", true, (3, 3), (1, 3)));
        let j = judge(&rows, &["m".into()], 0.05);
        assert!(!j.accepted);
        assert_eq!(j.reason, "rejected: critical row refund-smashed 3/3 → 1/3");
    }

    #[test]
    fn a_gain_within_chance_is_not_accepted_and_a_loss_on_another_model_rejects() {
        let one = vec![row("a", false, (0, 1), (1, 1))];
        let j = judge(&one, &["m".into()], 0.05);
        assert!(!j.accepted);
        assert!(
            j.reason.contains("not significant at α 0.05"),
            "{}",
            j.reason
        );
        let mut two: Vec<RowOutcome> = (0..6)
            .map(|i| row(&format!("r{i}"), false, (0, 1), (1, 1)))
            .collect();
        two.extend((0..6).map(|i| RowOutcome {
            model: "n".into(),
            ..row(&format!("r{i}"), false, (1, 1), (0, 1))
        }));
        let j = judge(&two, &["m".into(), "n".into()], 0.05);
        assert!(!j.accepted);
        assert!(j.reason.contains("on n (p = 0.016 worse)"), "{}", j.reason);
    }

    #[test]
    fn the_budget_is_twice_the_original_or_400() {
        assert_eq!(budget("short", None), 400);
        assert_eq!(budget(&"x".repeat(300), None), 600);
        assert_eq!(budget("short", Some(50)), 50);
    }
}
