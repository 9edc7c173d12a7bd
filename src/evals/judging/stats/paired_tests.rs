use super::*;
use crate::rng::Rng;

/// Rows as (before correct, before trials, after correct, after trials, how many such rows).
type Table = &'static [(u32, u32, u32, u32, usize)];

fn rows(table: Table) -> Vec<Row> {
    let mut rows = Vec::new();
    for &(a, n, b, m, count) in table {
        rows.extend(std::iter::repeat_n(
            Row {
                before: (a, n),
                after: (b, m),
            },
            count,
        ));
    }
    rows
}

fn assert_close(got: f64, want: f64, what: &str) {
    let scale = got.abs().max(want.abs()).max(1e-300);
    assert!(
        (got - want).abs() <= 1e-9 * scale,
        "{what}: got {got:e}, want {want:e}"
    );
}

/// The tables and the (p_worse, p_better) that `scripts/stats_reference.py` prints: computed
/// with scipy.stats.hypergeom and numpy.convolve, the one-trial tables checked against
/// scipy.stats.binomtest and `small_enumerated` by enumerating every outcome (scipy 1.17.1).
const REFERENCE: [(&str, Table, f64, f64); 12] = [
    (
        "mcnemar_9_1",
        &[
            (1, 1, 0, 1, 9),
            (0, 1, 1, 1, 1),
            (1, 1, 1, 1, 80),
            (0, 1, 0, 1, 10),
        ],
        0.0107421875,
        0.9990234375,
    ),
    (
        "mcnemar_3_3",
        &[(1, 1, 0, 1, 3), (0, 1, 1, 1, 3), (1, 1, 1, 1, 20)],
        0.65625,
        0.65625,
    ),
    (
        "mcnemar_0_5",
        &[(0, 1, 1, 1, 5), (1, 1, 1, 1, 5)],
        1.0,
        0.03125,
    ),
    (
        "mcnemar_25_10",
        &[(1, 1, 0, 1, 25), (0, 1, 1, 1, 10), (1, 1, 1, 1, 300)],
        0.008336923900060356,
        0.9970059397164732,
    ),
    ("mcnemar_1_0", &[(1, 1, 0, 1, 1)], 0.5, 1.0),
    (
        "broken_head",
        &[
            (5, 5, 5, 5, 60),
            (5, 5, 2, 5, 10),
            (3, 5, 2, 5, 10),
            (2, 5, 3, 5, 10),
            (0, 5, 0, 5, 10),
        ],
        0.0005190893271870731,
        0.9997741685585463,
    ),
    (
        "ten_trials",
        &[
            (10, 10, 8, 10, 5),
            (9, 10, 10, 10, 3),
            (4, 10, 6, 10, 2),
            (1, 3, 0, 3, 4),
            (20, 20, 17, 20, 1),
        ],
        0.04887748379654857,
        0.9787804470031782,
    ),
    (
        "mixed_trials",
        &[
            (1, 1, 0, 1, 4),
            (3, 5, 1, 5, 3),
            (7, 10, 7, 10, 2),
            (0, 2, 2, 2, 1),
            (5, 5, 4, 8, 2),
        ],
        0.005763592003714059,
        0.9982557815517298,
    ),
    (
        "thousand_rows",
        &[
            (10, 10, 9, 10, 200),
            (9, 10, 8, 10, 100),
            (5, 10, 5, 10, 100),
            (10, 10, 10, 10, 500),
            (0, 10, 1, 10, 100),
        ],
        8.505683267566642e-10,
        0.9999999994167332,
    ),
    (
        "balanced",
        &[(3, 5, 3, 5, 20), (4, 5, 3, 5, 5), (3, 5, 4, 5, 5)],
        0.5455136911615523,
        0.5455136911615523,
    ),
    (
        "small_enumerated",
        &[
            (2, 3, 1, 3, 1),
            (1, 2, 2, 2, 1),
            (4, 4, 2, 5, 1),
            (0, 3, 1, 2, 1),
        ],
        0.426904761904762,
        0.8464285714285718,
    ),
    (
        "improvement",
        &[(0, 5, 5, 5, 8), (2, 5, 4, 5, 6)],
        1.0,
        2.0485948752943457e-18,
    ),
];

#[test]
fn p_values_match_the_scipy_reference() {
    for (name, table, worse, better) in REFERENCE {
        let got = paired(&rows(table));
        assert_close(got.p_worse, worse, &format!("{name} p_worse"));
        assert_close(got.p_better, better, &format!("{name} p_better"));
    }
}

fn binomial_cdf_half(k: u64, n: u64) -> f64 {
    // Exact in f64 for the small n used here: sum of C(n, i) over 2^n.
    let mut c = 1.0;
    let mut sum = 0.0;
    for i in 0..=k {
        sum += c;
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    sum / 2f64.powi(n as i32)
}

#[test]
fn one_trial_a_row_is_mcnemars_exact_test() {
    for worse in 0..12u64 {
        for better in 0..12u64 {
            let table = [Row {
                before: (1, 1),
                after: (0, 1),
            }; 1]
                .repeat(worse as usize)
                .into_iter()
                .chain(std::iter::repeat_n(
                    Row {
                        before: (0, 1),
                        after: (1, 1),
                    },
                    better as usize,
                ))
                .chain(
                    [Row {
                        before: (1, 1),
                        after: (1, 1),
                    }; 7],
                )
                .chain(
                    [Row {
                        before: (0, 1),
                        after: (0, 1),
                    }; 3],
                )
                .collect::<Vec<_>>();
            let got = paired(&table);
            let n = worse + better;
            let (want_worse, want_better) = if n == 0 {
                (1.0, 1.0)
            } else {
                (binomial_cdf_half(better, n), binomial_cdf_half(worse, n))
            };
            assert_close(got.p_worse, want_worse, &format!("{worse}/{better} worse"));
            assert_close(
                got.p_better,
                want_better,
                &format!("{worse}/{better} better"),
            );
        }
    }
}

fn choose(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Every combination of after counts, weighted by the product of the rows' hypergeometric
/// probabilities written out with binomial coefficients.
fn enumerate(rows: &[Row]) -> (f64, f64) {
    let observed: u64 = rows.iter().map(|r| u64::from(r.after.0)).sum();
    let mut dist = vec![(0u64, 1.0f64)];
    for row in rows {
        let (a, n) = (u64::from(row.before.0), u64::from(row.before.1));
        let (b, m) = (u64::from(row.after.0), u64::from(row.after.1));
        let t = a + b;
        let mut next = Vec::new();
        for &(s, p) in &dist {
            for k in t.saturating_sub(n)..=t.min(m) {
                let q = choose(m, k) * choose(n, t - k) / choose(n + m, t);
                next.push((s + k, p * q));
            }
        }
        dist = next;
    }
    let worse = dist
        .iter()
        .filter(|(s, _)| *s <= observed)
        .map(|x| x.1)
        .sum();
    let better = dist
        .iter()
        .filter(|(s, _)| *s >= observed)
        .map(|x| x.1)
        .sum();
    (worse, better)
}

#[test]
fn small_tables_match_enumeration() {
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let count = 1 + rng.index(5);
        let table: Vec<Row> = (0..count)
            .map(|_| {
                let n = 1 + rng.below(4) as u32;
                let m = 1 + rng.below(4) as u32;
                Row {
                    before: (rng.below(u64::from(n) + 1) as u32, n),
                    after: (rng.below(u64::from(m) + 1) as u32, m),
                }
            })
            .collect();
        let (worse, better) = enumerate(&table);
        let got = paired(&table);
        assert_close(got.p_worse, worse.min(1.0), &format!("{table:?} worse"));
        assert_close(got.p_better, better.min(1.0), &format!("{table:?} better"));
    }
}

#[test]
fn rows_that_carry_no_information_change_nothing() {
    let table = rows(REFERENCE[6].1);
    let alone = paired(&table);
    let mut padded = table.clone();
    padded.extend([
        Row {
            before: (5, 5),
            after: (10, 10),
        },
        Row {
            before: (0, 3),
            after: (0, 1),
        },
        Row {
            before: (0, 0),
            after: (1, 1),
        },
        Row {
            before: (2, 2),
            after: (0, 0),
        },
    ]);
    let with = paired(&padded);
    assert_eq!(
        (with.p_worse, with.p_better),
        (alone.p_worse, alone.p_better)
    );
    assert_eq!(paired(&[]).p_worse, 1.0);
    assert_eq!(paired(&[]).p_better, 1.0);
}

#[test]
fn swapping_the_runs_swaps_the_p_values_and_row_order_does_not_matter() {
    // A thousand rows of ten trials, every row able to move.
    let mut rng = Rng::new(11);
    let mut table: Vec<Row> = (0..1000)
        .map(|_| Row {
            before: (rng.below(11) as u32, 10),
            after: (rng.below(11) as u32, 10),
        })
        .collect();
    let forward = paired(&table);
    let swapped: Vec<Row> = table
        .iter()
        .map(|r| Row {
            before: r.after,
            after: r.before,
        })
        .collect();
    let back = paired(&swapped);
    assert_close(back.p_worse, forward.p_better, "swapped worse");
    assert_close(back.p_better, forward.p_worse, "swapped better");
    // p_worse + p_better = 1 + P(S = s): above 1, and the point mass is small with this spread.
    let both = forward.p_worse + forward.p_better;
    assert!(both > 1.0 && both < 1.1, "{both}");
    for i in (1..table.len()).rev() {
        table.swap(i, rng.index(i + 1));
    }
    let shuffled = paired(&table);
    assert_close(shuffled.p_worse, forward.p_worse, "shuffled worse");
    assert_close(shuffled.p_better, forward.p_better, "shuffled better");
}

#[test]
fn huge_trial_counts_neither_overflow_nor_allocate_the_whole_support() {
    // Two billion trials: the walk from the mode stops where the terms vanish.
    let got = paired(&[Row {
        before: (1_000_000_000, 2_000_000_000),
        after: (1_000_000_000, 2_000_000_000),
    }]);
    assert!(got.p_worse > 0.5 && got.p_worse < 0.51, "{}", got.p_worse);
    assert_close(got.p_worse, got.p_better, "symmetric");
    // Correct above trials is read as every trial right.
    let capped = paired(&[Row {
        before: (9, 5),
        after: (0, 5),
    }]);
    assert_close(
        capped.p_worse,
        paired(&[Row {
            before: (5, 5),
            after: (0, 5),
        }])
        .p_worse,
        "capped",
    );
}

#[test]
fn accuracies_and_flips() {
    let got = paired(&[
        // Flips worse: right every time, then wrong once; right once, then never.
        Row {
            before: (5, 5),
            after: (4, 5),
        },
        Row {
            before: (1, 5),
            after: (0, 5),
        },
        // Flips better.
        Row {
            before: (0, 5),
            after: (2, 5),
        },
        // Noise, not a flip.
        Row {
            before: (3, 5),
            after: (2, 5),
        },
        // Steady.
        Row {
            before: (5, 5),
            after: (5, 5),
        },
        // No trials after: counts before only.
        Row {
            before: (5, 5),
            after: (0, 0),
        },
    ]);
    assert_eq!((got.flipped_worse, got.flipped_better), (2, 1));
    assert_close(
        got.accuracy_before,
        (1.0 + 0.2 + 0.0 + 0.6 + 1.0 + 1.0) / 6.0,
        "before",
    );
    assert_close(
        got.accuracy_after,
        (0.8 + 0.0 + 0.4 + 0.4 + 1.0) / 5.0,
        "after",
    );
    assert_eq!(paired(&[]).accuracy_before, 0.0);
}

/// The issue's set: 60 rows always right, 20 at 0.95, 10 at 0.5, 10 always wrong.
pub(super) fn issue_rates() -> Vec<f64> {
    let mut rates = vec![1.0; 60];
    rates.extend([0.95; 20]);
    rates.extend([0.5; 10]);
    rates.extend([0.0; 10]);
    rates
}

/// One run: each row's correct count out of `trials` at its rate.
pub(super) fn run(rng: &mut Rng, rates: &[f64], trials: u32) -> Vec<(u32, u32)> {
    rates
        .iter()
        .map(|&p| {
            (
                (0..trials).filter(|_| rng.unit() < p).count() as u32,
                trials,
            )
        })
        .collect()
}

/// The share of `seeds` seeded runs in which the test says "worse" at 0.05.
pub(super) fn rejections(before: &[f64], after: &[f64], trials: u32, seeds: u64) -> f64 {
    let mut hits = 0;
    for seed in 0..seeds {
        let mut rng = Rng::new(seed);
        let base = run(&mut rng, before, trials);
        let head = run(&mut rng, after, trials);
        let table: Vec<Row> = base
            .into_iter()
            .zip(head)
            .map(|(before, after)| Row { before, after })
            .collect();
        if paired(&table).p_worse < 0.05 {
            hits += 1;
        }
    }
    hits as f64 / seeds as f64
}

#[test]
fn false_alarms_stay_under_alpha_with_the_same_rates() {
    let rates = issue_rates();
    let rate = rejections(&rates, &rates, 5, 2000);
    // The test is exact and conditionally valid, so the true rate is at most 0.05. Over 2,000
    // seeds the estimate's standard error at 0.05 is sqrt(0.05 * 0.95 / 2000) = 0.0049; allow
    // 2.33 of them (a one-sided 1% margin).
    assert!(rate <= 0.05 + 2.33 * 0.0049, "false alarms in {rate}");
    println!("same rates: p_worse < 0.05 in {rate:.3} of 2000 seeds");
}

#[test]
fn a_broken_head_is_found_in_nine_seeds_of_ten() {
    let before = issue_rates();
    let mut after = before.clone();
    for rate in &mut after[..10] {
        *rate = 0.4;
    }
    let power = rejections(&before, &after, 5, 2000);
    assert!(power >= 0.90, "power {power}");
    println!("broken head: p_worse < 0.05 in {power:.3} of 2000 seeds");
}

#[test]
fn normal_functions_match_known_values() {
    // Values of the standard normal from the tables (scipy.stats.norm agrees).
    for (x, p) in [
        (0.0, 0.5),
        (1.0, 0.841_344_746_068_542_9),
        (-1.959_963_984_540_054, 0.025),
        (1.644_853_626_951_472_2, 0.95),
        (0.841_621_233_572_914_3, 0.8),
        (-3.090_232_306_167_813_5, 0.001),
    ] {
        assert!((normal_cdf(x) - p).abs() < 2e-7, "cdf({x})");
        assert!((normal_quantile(p) - x).abs() < 1e-8, "quantile({p})");
    }
}

/// The issue's base, as one run of five trials saw it.
fn issue_base() -> Vec<(u32, u32)> {
    let mut base = vec![(5, 5); 60];
    base.extend([(5, 5); 15]);
    base.extend([(4, 5); 5]);
    base.extend([(3, 5); 5]);
    base.extend([(2, 5); 5]);
    base.extend([(0, 5); 10]);
    base
}

#[test]
fn the_mde_shrinks_with_rows_and_trials_and_grows_with_stricter_alpha() {
    let base = issue_base();
    let mde_5 = mde(&base, 5, 0.05, 0.8);
    assert!(mde_5 > 0.02 && mde_5 < 0.1, "{mde_5}");
    let more_trials = mde(&base, 10, 0.05, 0.8);
    assert!(more_trials < mde_5, "{more_trials} vs {mde_5}");
    let four_times: Vec<(u32, u32)> = base.iter().cycle().take(400).copied().collect();
    let more_rows = mde(&four_times, 5, 0.05, 0.8);
    // Four times the rows halves the standard error.
    assert!(
        (more_rows / mde_5 - 0.5).abs() < 0.05,
        "{more_rows} vs {mde_5}"
    );
    assert!(mde(&base, 5, 0.01, 0.8) > mde_5);
    assert!(mde(&base, 5, 0.05, 0.9) > mde_5);
    // An always-right base still has a finite, non-zero MDE.
    let right = mde(&[(5, 5); 100], 5, 0.05, 0.8);
    assert!(right > 0.0 && right < 0.1, "{right}");
    // Nothing to detect with.
    assert_eq!(mde(&[], 5, 0.05, 0.8), 1.0);
    assert_eq!(mde(&base, 0, 0.05, 0.8), 1.0);
    assert_eq!(mde(&[(0, 0); 3], 5, 0.05, 0.8), 1.0);
    assert_eq!(mde(&[(1, 1)], 1, 0.05, 0.8), 1.0);
}

/// The power of the exact test, by seeded simulation, when every row's rate (the base's,
/// shrunk as `mde` shrinks it) drops by the same amount.
fn simulated_power(base: &[(u32, u32)], head_trials: u32, drop: f64, seeds: u64) -> f64 {
    let rates: Vec<f64> = base
        .iter()
        .map(|&(c, n)| (f64::from(c) + 0.5) / (f64::from(n) + 1.0))
        .collect();
    let after: Vec<f64> = rates.iter().map(|p| (p - drop).max(0.0)).collect();
    let mut hits = 0;
    for seed in 0..seeds {
        let mut rng = Rng::new(seed);
        let table: Vec<Row> = base
            .iter()
            .zip(&rates)
            .zip(&after)
            .map(|((&(_, n), &p), &q)| Row {
                before: run(&mut rng, &[p], n)[0],
                after: run(&mut rng, &[q], head_trials)[0],
            })
            .collect();
        if paired(&table).p_worse < 0.05 {
            hits += 1;
        }
    }
    hits as f64 / seeds as f64
}

#[test]
fn at_the_mde_the_exact_test_has_about_the_asked_power() {
    for (base, trials) in [
        (issue_base(), 5),
        (issue_base(), 10),
        (vec![(1, 1); 150], 1),
        (vec![(3, 3); 200], 3),
    ] {
        let drop = mde(&base, trials, 0.05, 0.8);
        let power = simulated_power(&base, trials, drop, 2000);
        println!(
            "{} rows, {trials} trials: mde {drop:.4}, simulated power {power:.3}",
            base.len()
        );
        assert!((0.76..=0.84).contains(&power), "mde {drop}: power {power}");
    }
}

#[test]
fn a_p_value_a_rounding_error_below_alpha_is_not_significant() {
    // One row 0/3 → 3/3: exactly 1/20, whatever the sums round it to.
    let p = paired(&[Row {
        before: (0, 3),
        after: (3, 3),
    }])
    .p_better;
    assert!((p - 0.05).abs() < 1e-12, "{p}");
    assert!(!significant(p, 0.05));
    assert!(!significant(0.05 - 1e-15, 0.05));
    assert!(significant(0.0499, 0.05));
    assert!(!significant(0.06, 0.05));
}
