//! Whether a candidate description is accepted: held-out accuracy improves significantly on
//! at least one model and no model gets worse beyond chance (the paired test of the
//! comparison with a base run, `evals::judging::stats::paired`), no critical row gets worse on
//! any trial, the text stays within the length budget, and the anti-gaming lint finds nothing.

use super::report::CandidateReport;
use super::split::Split;
use crate::evals::judging::stats::{Paired, Row, paired, significant};
use crate::outcome::EvalsResults;
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

/// Judges the held-out rows of every model at significance `alpha`, for one of `tried`
/// candidates of a tool judged on the same rows.
///
/// A candidate is better when it is significantly better on at least one model, at `alpha`
/// divided by the tests that could have let a useless rewrite through: `tried` candidates
/// times the models (Bonferroni), so that a tool keeps a rewrite that does nothing with
/// probability at most `alpha`. Worse on a model is tested at `alpha` itself: a guard.
pub(crate) fn judge(rows: &[RowOutcome], models: &[String], alpha: f64, tried: usize) -> Judged {
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
    let n_tests = tried.max(1) * models.len().max(1);
    let level = alpha / n_tests as f64;
    // The model with the strongest evidence decides; on a tie, the first listed.
    let Some((best_model, best)) = tests
        .iter()
        .min_by(|a, b| a.1.p_better.total_cmp(&b.1.p_better))
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
    if let Some((m, p)) = tests.iter().find(|(_, p)| significant(p.p_worse, alpha)) {
        out.reason = format!("rejected: {} (p {} worse)", shift(m, p), p_text(p.p_worse));
        return out;
    }
    if !significant(best.p_better, level) {
        let each = if n_tests > 1 {
            format!(" over {n_tests} tests ({} each)", trimmed(level))
        } else {
            String::new()
        };
        out.reason = format!(
            "rejected: {} (p {}), not significant at α {alpha}{each}",
            shift(best_model, &best),
            p_text(best.p_better)
        );
        return out;
    }
    out.accepted = true;
    out.reason = format!(
        "{} (p {}), no critical row worse",
        shift(best_model, &best),
        p_text(best.p_better)
    );
    out
}

/// Why the rewriter is not asked: no tool to rewrite, or held-out rows on which no rewrite could
/// show a significant gain (then asking and judging would only spend).
pub(crate) fn why_nothing(
    names: &[String],
    split: &Split,
    base: &EvalsResults,
    alpha: f64,
) -> Option<String> {
    if names.is_empty() {
        return Some(
            "no row was missed on any model: nothing to rewrite (--tool NAME rewrites a tool anyway)"
                .into(),
        );
    }
    let held: Vec<Vec<(u32, u32)>> = base
        .models
        .iter()
        .map(|m| {
            split
                .held_out
                .iter()
                .filter_map(|&i| m.cases.get(i)?.scored())
                .collect()
        })
        .collect();
    // At best one candidate is tried: the level is alpha over the models alone.
    out_of_reach(&held, alpha / base.models.len().max(1) as f64)
}

/// Why no candidate can be accepted whatever it says: on every model, even a rewrite that made
/// every held-out trial right would not be significant at `alpha`. `held` is each model's
/// held-out rows as (correct, trials) before any rewrite.
fn out_of_reach(held: &[Vec<(u32, u32)>], alpha: f64) -> Option<String> {
    let best = held
        .iter()
        .map(|rows| {
            let best: Vec<Row> = rows
                .iter()
                .map(|&(c, n)| Row {
                    before: (c, n),
                    after: (n, n),
                })
                .collect();
            paired(&best).p_better
        })
        .fold(1.0_f64, f64::min);
    if held.is_empty() || significant(best, alpha) {
        return None;
    }
    let rows = held.first().map_or(0, Vec::len);
    let missed: u32 = held.iter().flatten().map(|&(c, n)| n - c).sum();
    let noun = if rows == 1 { "row" } else { "rows" };
    Some(if missed == 0 {
        let pass = if rows == 1 { "passes" } else { "all pass" };
        format!(
            "no rewrite can be accepted: the {rows} held-out {noun} {pass} already, so there is no gain to show; the rewriter was not asked. Raise --holdout, or add rows like the missed ones"
        )
    } else {
        let trials = if missed == 1 { "trial" } else { "trials" };
        format!(
            "no rewrite can be accepted: the {rows} held-out {noun} miss {missed} {trials} in all, and even a rewrite that fixed every one would not be significant (best p {} at α {alpha}); the rewriter was not asked. Raise --holdout, add rows like the missed ones, or raise evals.trials",
            p_text(best)
        )
    })
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

/// A level to four decimals, trailing zeros dropped: `0.0125`, `0.025`.
fn trimmed(x: f64) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A p-value as the reasons print it after "p", to two significant digits: `= 0.016`,
/// `= 0.0025`, or `< 0.001`.
fn p_text(p: f64) -> String {
    if p < 0.001 {
        return "< 0.001".into();
    }
    let decimals = (1.0 - p.log10().floor()).clamp(1.0, 4.0) as usize;
    let s = format!("{p:.decimals$}");
    format!("= {}", s.trim_end_matches('0').trim_end_matches('.'))
}

/// The length budget of a rewrite of `original`: `max_chars`, else the larger of twice the
/// original and 400 characters.
pub(crate) fn budget(original: &str, max_chars: Option<usize>) -> usize {
    max_chars.unwrap_or_else(|| (2 * original.chars().count()).max(400))
}

/// Of a tool's accepted candidates, keeps the best on the held-out rows; on a tie the shorter
/// (it costs tokens on every request), then the first.
pub(crate) fn choose_best(candidates: &mut [CandidateReport]) {
    let after = |c: &CandidateReport| c.held_out_after.unwrap_or(0.0);
    let len = |c: &CandidateReport| c.text.chars().count();
    let best = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.accepted)
        .max_by(|a, b| {
            after(a.1)
                .total_cmp(&after(b.1))
                .then(len(b.1).cmp(&len(a.1)))
                .then(b.0.cmp(&a.0))
        })
        .map(|(i, _)| i);
    let Some(best) = best else { return };
    let (best_after, best_len) = (after(&candidates[best]), len(&candidates[best]));
    for (i, c) in candidates.iter_mut().enumerate() {
        if c.accepted && i != best {
            let why = if best_after > after(c) {
                "does better on the held-out rows"
            } else if best_len < len(c) {
                "does as well on the held-out rows and is shorter"
            } else {
                "does as well on the held-out rows and comes first"
            };
            c.accepted = false;
            c.reason = format!("passes ({}), but candidate {} {why}", c.reason, best + 1);
        }
    }
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
        let j = judge(&rows, &["m".into()], 0.05, 1);
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
        let j = judge(&rows, &["m".into()], 0.05, 1);
        assert!(!j.accepted);
        assert_eq!(j.reason, "rejected: critical row refund-smashed 3/3 → 1/3");
    }

    #[test]
    fn a_gain_within_chance_is_not_accepted_and_a_loss_on_another_model_rejects() {
        let one = vec![row("a", false, (0, 1), (1, 1))];
        let j = judge(&one, &["m".into()], 0.05, 1);
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
        let j = judge(&two, &["m".into(), "n".into()], 0.05, 1);
        assert!(!j.accepted);
        assert!(j.reason.contains("on n (p = 0.016 worse)"), "{}", j.reason);
    }

    #[test]
    fn the_budget_is_twice_the_original_or_400() {
        assert_eq!(budget("short", None), 400);
        assert_eq!(budget(&"x".repeat(300), None), 600);
        assert_eq!(budget("short", Some(50)), 50);
    }

    #[test]
    fn a_p_value_equal_to_alpha_is_not_significant() {
        // One row 0/3 → 3/3: the exact p is C(3,3)·C(3,0)/C(6,3) = 1/20, α itself.
        let j = judge(&[row("a", false, (0, 3), (3, 3))], &["m".into()], 0.05, 1);
        assert!((j.p_value - 0.05).abs() < 1e-12, "{}", j.p_value);
        assert!(!j.accepted, "{j:?}");
        assert!(
            j.reason.contains("(p = 0.05), not significant"),
            "{}",
            j.reason
        );
        let two = [
            row("a", false, (0, 3), (3, 3)),
            row("b", false, (0, 3), (3, 3)),
        ];
        let j = judge(&two, &["m".into()], 0.05, 1);
        assert!(j.accepted);
        assert!(j.reason.contains("(p = 0.0025)"), "{}", j.reason);
        let many: Vec<RowOutcome> = (0..4)
            .map(|i| row(&format!("r{i}"), false, (0, 3), (3, 3)))
            .collect();
        let j = judge(&many, &["m".into()], 0.05, 1);
        assert!(
            j.reason.contains("(p < 0.001), no critical"),
            "{}",
            j.reason
        );
    }

    #[test]
    fn held_out_rows_that_cannot_show_a_gain_are_said_up_front() {
        // One row missed on 3 trials: fixed, p = 1/20, not below 0.05.
        let one = out_of_reach(&[vec![(3, 3), (0, 3)]], 0.05).expect("out of reach");
        assert!(
            one.contains("the 2 held-out rows miss 3 trials in all"),
            "{one}"
        );
        assert!(one.contains("(best p = 0.05 at α 0.05)"), "{one}");
        let none = out_of_reach(&[vec![(1, 1)]], 0.05).expect("out of reach");
        assert!(
            none.contains("the 1 held-out row passes already, so there is no gain"),
            "{none}"
        );
        // Two missed rows at 3 trials can reach 1/400; one model within reach is enough.
        assert_eq!(out_of_reach(&[vec![(0, 3), (0, 3)]], 0.05), None);
        assert_eq!(
            out_of_reach(&[vec![(1, 1)], vec![(0, 3), (0, 3)]], 0.05),
            None
        );
    }

    #[test]
    fn p_values_print_with_two_significant_digits() {
        let cases = [
            (1.0, "= 1"),
            (0.5, "= 0.5"),
            (0.05, "= 0.05"),
            (0.015625, "= 0.016"),
            (0.0025, "= 0.0025"),
            (0.000_999, "< 0.001"),
        ];
        for (p, text) in cases {
            assert_eq!(p_text(p), text, "{p}");
        }
    }

    fn candidate(text: &str, after: f64) -> CandidateReport {
        CandidateReport {
            text: text.into(),
            accepted: true,
            reason: "ok".into(),
            held_out_before: Some(0.5),
            held_out_after: Some(after),
            p_value: Some(0.01),
            rows: Vec::new(),
        }
    }

    #[test]
    fn the_best_held_out_wins_then_the_shorter_then_the_first() {
        let mut c = vec![
            candidate("a longer text", 0.8),
            candidate("short", 0.8),
            candidate("best of all", 0.9),
        ];
        choose_best(&mut c);
        let kept: Vec<bool> = c.iter().map(|c| c.accepted).collect();
        assert_eq!(kept, [false, false, true]);
        assert_eq!(
            c[0].reason,
            "passes (ok), but candidate 3 does better on the held-out rows"
        );
        let mut c = vec![candidate("a longer text", 0.8), candidate("short", 0.8)];
        choose_best(&mut c);
        assert!(c[1].accepted && !c[0].accepted);
        assert!(
            c[0].reason
                .ends_with("candidate 2 does as well on the held-out rows and is shorter")
        );
        let mut c = vec![candidate("same", 0.8), candidate("alike", 0.8)];
        c[1].text = "same".into();
        choose_best(&mut c);
        assert!(c[0].accepted && !c[1].accepted);
        assert!(
            c[1].reason
                .ends_with("candidate 1 does as well on the held-out rows and comes first")
        );
    }

    fn binomial(rng: &mut crate::rng::Rng, n: u32, p: f64) -> u32 {
        (0..n).filter(|_| rng.unit() < p).count() as u32
    }

    /// How often a tool keeps one of `k` candidates on `models` models, 12 held-out rows of 3
    /// trials each with rates drawn in 0.2..0.95, when each candidate's true rates are the
    /// original's plus `lift` (capped at 1), over `seeds` seeds.
    fn kept(models: usize, k: usize, lift: f64, seeds: u64) -> f64 {
        let names: Vec<String> = (0..models).map(|m| format!("m{m}")).collect();
        let mut hits = 0;
        for seed in 0..seeds {
            let mut rng = crate::rng::Rng::new(seed);
            let rates: Vec<Vec<f64>> = (0..models)
                .map(|_| (0..12).map(|_| 0.2 + 0.75 * rng.unit()).collect())
                .collect();
            let before: Vec<Vec<u32>> = rates
                .iter()
                .map(|r| r.iter().map(|&p| binomial(&mut rng, 3, p)).collect())
                .collect();
            let mut any = false;
            for _ in 0..k {
                let mut outcome = Vec::new();
                for (m, name) in names.iter().enumerate() {
                    for (i, &p) in rates[m].iter().enumerate() {
                        outcome.push(RowOutcome {
                            model: name.clone(),
                            before: (before[m][i], 3),
                            after: (binomial(&mut rng, 3, (p + lift).min(1.0)), 3),
                            ..row(&format!("r{i}"), false, (0, 0), (0, 0))
                        });
                    }
                }
                any |= judge(&outcome, &names, 0.05, k).accepted;
            }
            hits += u64::from(any);
        }
        hits as f64 / seeds as f64
    }

    #[test]
    fn a_useless_rewrite_is_kept_at_most_alpha_of_the_time_whatever_the_candidates_and_models() {
        // Without the correction, 3 candidates on 2 models kept a useless rewrite in 13.6% of
        // 4,000 seeds. Over 4,000 seeds the standard error at 0.05 is 0.0034; allow 2.33 of them.
        for (models, k) in [(1, 1), (2, 1), (2, 3), (3, 3)] {
            let rate = kept(models, k, 0.0, 4000);
            println!("{models} models, {k} candidates, no effect: kept in {rate:.3} of 4000 seeds");
            assert!(
                rate <= 0.05 + 2.33 * 0.0034,
                "{models} models, {k} candidates: {rate}"
            );
        }
    }

    #[test]
    fn a_rewrite_that_lifts_every_row_by_25_points_is_kept_in_most_seeds() {
        let rate = kept(2, 3, 0.25, 1000);
        println!("2 models, 3 candidates, +25 points: kept in {rate:.3} of 1000 seeds");
        assert!(rate >= 0.75, "power {rate}");
    }
}
