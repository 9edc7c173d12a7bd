//! The seeded split of the labelled rows into those the rewriter may see and those it never
//! sees (held out), stratified by expected tool; every `critical` row is held out.

use std::collections::BTreeMap;

use crate::config::EvalCase;
use crate::rng::Rng;

/// Which rows the rewriter sees and which judge its rewrites, as indexes into the cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    /// Rows the rewriter may see (their misses go into its request).
    pub seen: Vec<usize>,
    /// Rows it never sees: the candidates are judged on these.
    pub held_out: Vec<usize>,
}

/// Splits `cases`: in each expected tool's stratum (no tool is a stratum too), the rows are
/// shuffled with `seed` and `holdout` of them (rounded, at least one when the stratum has two
/// or more rows) are held out; critical rows are always held out and count toward it.
pub(crate) fn split(cases: &[EvalCase], holdout: f64, seed: u64) -> Split {
    let mut strata: BTreeMap<Option<&str>, Vec<usize>> = BTreeMap::new();
    for (i, case) in cases.iter().enumerate() {
        strata
            .entry(case.expect_tool.as_ref().and_then(|t| t.as_deref()))
            .or_default()
            .push(i);
    }
    let mut held = vec![false; cases.len()];
    for (tool, rows) in &strata {
        let mut rng = Rng::for_tool(seed, tool.unwrap_or(""));
        let mut order = rows.clone();
        // Fisher–Yates, seeded per stratum: adding a row of another tool moves nothing here.
        for i in (1..order.len()).rev() {
            let j = rng.index(i + 1);
            order.swap(i, j);
        }
        let mut want = (holdout * rows.len() as f64).round() as usize;
        if want == 0 && holdout > 0.0 && rows.len() >= 2 {
            want = 1;
        }
        let critical = rows.iter().filter(|&&i| cases[i].critical).count();
        for &i in rows {
            held[i] = cases[i].critical;
        }
        let mut more = want.saturating_sub(critical);
        for &i in &order {
            if more == 0 {
                break;
            }
            if !held[i] {
                held[i] = true;
                more -= 1;
            }
        }
    }
    let (held_out, seen): (Vec<usize>, Vec<usize>) = (0..cases.len()).partition(|&i| held[i]);
    Split { seen, held_out }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(tool: &str, critical: bool) -> EvalCase {
        let mut c: EvalCase =
            serde_json::from_value(serde_json::json!({"prompt": "p", "expect_tool": tool}))
                .expect("case");
        c.critical = critical;
        c
    }

    #[test]
    fn each_tool_holds_out_its_share_and_every_critical_row() {
        let mut cases: Vec<EvalCase> = (0..10).map(|_| case("a", false)).collect();
        cases.extend((0..5).map(|_| case("b", false)));
        cases.push(case("b", true));
        let s = split(&cases, 0.4, 7);
        let held_a = s.held_out.iter().filter(|&&i| i < 10).count();
        let held_b = s.held_out.iter().filter(|&&i| i >= 10).count();
        assert_eq!(held_a, 4);
        assert_eq!(held_b, 2, "6 rows of b at 0.4, the critical one among them");
        assert!(s.held_out.contains(&15));
        assert_eq!(s.seen.len() + s.held_out.len(), 16);
        assert_eq!(split(&cases, 0.4, 7), s, "the same seed, the same split");
        assert_ne!(split(&cases, 0.4, 8), s, "another seed, another split");
    }

    #[test]
    fn a_critical_row_is_held_out_even_with_no_holdout() {
        let cases = vec![case("a", true), case("a", false)];
        assert_eq!(split(&cases, 0.0, 1).held_out, vec![0]);
    }
}
