#!/usr/bin/env python3
"""Reference values for the paired test, computed apart from the Rust code.

The unit tests in src/evals/judging/stats/paired_tests.rs embed the numbers this prints, so CI
does not need scipy. Each table is a list of rows (before correct, before trials, after correct,
after trials, how many such rows). The p-values are those of the exact conditional test
stratified by row: in a row whose total correct over both runs is t, the after count is
hypergeometric (population before + after trials, t successes, after-trials draws); the
statistic is the sum of the after counts.

- McNemar-shaped tables (one trial a row) are checked against scipy.stats.binomtest on the
  discordant rows.
- Every table is computed with scipy.stats.hypergeom and numpy.convolve.
- One small table is also computed by brute-force enumeration of every outcome (math.comb).

With --simulate it also prints the error rates the guide quotes (docs/statistics.md): the
share of seeds in which each test says "worse" at alpha = 0.05, with the same per-row rates
(null) and with ten always-right rows dropping to 0.4 (the broken head), five trials a row:
the stratified test, a sign test over rows and McNemar's test on each row's first trial.

Usage:
    python3 -m venv target/stats-venv && target/stats-venv/bin/pip install scipy numpy
    target/stats-venv/bin/python scripts/stats_reference.py [--simulate [--seeds N]]
"""

import argparse
import itertools
import math
import sys

import numpy as np
from scipy import stats

TABLES = {
    "mcnemar_9_1": [(1, 1, 0, 1, 9), (0, 1, 1, 1, 1), (1, 1, 1, 1, 80), (0, 1, 0, 1, 10)],
    "mcnemar_3_3": [(1, 1, 0, 1, 3), (0, 1, 1, 1, 3), (1, 1, 1, 1, 20)],
    "mcnemar_0_5": [(0, 1, 1, 1, 5), (1, 1, 1, 1, 5)],
    "mcnemar_25_10": [(1, 1, 0, 1, 25), (0, 1, 1, 1, 10), (1, 1, 1, 1, 300)],
    "mcnemar_1_0": [(1, 1, 0, 1, 1)],
    "broken_head": [(5, 5, 5, 5, 60), (5, 5, 2, 5, 10), (3, 5, 2, 5, 10), (2, 5, 3, 5, 10),
                    (0, 5, 0, 5, 10)],
    "ten_trials": [(10, 10, 8, 10, 5), (9, 10, 10, 10, 3), (4, 10, 6, 10, 2), (1, 3, 0, 3, 4),
                   (20, 20, 17, 20, 1)],
    "mixed_trials": [(1, 1, 0, 1, 4), (3, 5, 1, 5, 3), (7, 10, 7, 10, 2), (0, 2, 2, 2, 1),
                     (5, 5, 4, 8, 2)],
    "thousand_rows": [(10, 10, 9, 10, 200), (9, 10, 8, 10, 100), (5, 10, 5, 10, 100),
                      (10, 10, 10, 10, 500), (0, 10, 1, 10, 100)],
    "balanced": [(3, 5, 3, 5, 20), (4, 5, 3, 5, 5), (3, 5, 4, 5, 5)],
    "small_enumerated": [(2, 3, 1, 3, 1), (1, 2, 2, 2, 1), (4, 4, 2, 5, 1), (0, 3, 1, 2, 1)],
    "improvement": [(0, 5, 5, 5, 8), (2, 5, 4, 5, 6)],
}


def rows_of(table):
    for a, n, b, m, count in table:
        for _ in range(count):
            yield a, n, b, m


def by_convolution(table):
    """p_worse = P(S <= s), p_better = P(S >= s), with hypergeom pmfs and numpy.convolve."""
    dist, lo, observed = np.array([1.0]), 0, 0
    for a, n, b, m in rows_of(table):
        t = a + b
        low, high = max(0, t - n), min(t, m)
        if low == high:
            continue
        support = np.arange(low, high + 1)
        pmf = stats.hypergeom(n + m, t, m).pmf(support)
        dist = np.convolve(dist, pmf)
        lo += low
        observed += b
    i = observed - lo
    return min(float(dist[: i + 1].sum()), 1.0), min(float(dist[i:].sum()), 1.0)


def by_binomtest(table):
    """McNemar's exact test on one-trial rows: the rows right before and wrong after against
    those wrong before and right after."""
    worse = sum(c for a, n, b, m, c in table if (n, m) == (1, 1) and (a, b) == (1, 0))
    better = sum(c for a, n, b, m, c in table if (n, m) == (1, 1) and (a, b) == (0, 1))
    k = worse + better
    return (stats.binomtest(better, k, 0.5, alternative="less").pvalue,
            stats.binomtest(better, k, 0.5, alternative="greater").pvalue)


def by_enumeration(table):
    """Every after-count combination, weighted by the product of the rows' hypergeometric
    probabilities written out with binomial coefficients."""
    rows = list(rows_of(table))
    observed = sum(b for _, _, b, _ in rows)
    choices = []
    for a, n, b, m in rows:
        t = a + b
        total = math.comb(n + m, t)
        choices.append([(k, math.comb(m, k) * math.comb(n, t - k) / total)
                        for k in range(max(0, t - n), min(t, m) + 1)])
    worse = better = 0.0
    for combo in itertools.product(*choices):
        s = sum(k for k, _ in combo)
        p = math.prod(q for _, q in combo)
        if s <= observed:
            worse += p
        if s >= observed:
            better += p
    return worse, better


def close(x, y):
    return abs(x - y) <= 1e-12 * max(abs(x), abs(y), 1e-300)


def reference():
    print("// name: (p_worse, p_better)")
    for name, table in TABLES.items():
        worse, better = by_convolution(table)
        if all((n, m) == (1, 1) for _, n, _, m, _ in table):
            w, b = by_binomtest(table)
            assert close(worse, w) and close(better, b), (name, worse, w, better, b)
        if name == "small_enumerated":
            w, b = by_enumeration(table)
            assert close(worse, w) and close(better, b), (name, worse, w, better, b)
        print(f"{name}: ({worse!r}, {better!r}),")


# The set: 60 always right, 20 at 0.95, 10 at 0.5, 10 always wrong.
BASE_RATES = [1.0] * 60 + [0.95] * 20 + [0.5] * 10 + [0.0] * 10
BROKEN_RATES = [0.4] * 10 + [1.0] * 50 + [0.95] * 20 + [0.5] * 10 + [0.0] * 10


def stratified_p_worse(before, after, trials):
    dist, lo, observed = np.array([1.0]), 0, 0
    for a, b in zip(before, after):
        t = int(a + b)
        low, high = max(0, t - trials), min(t, trials)
        if low == high:
            continue
        pmf = stats.hypergeom(2 * trials, t, trials).pmf(np.arange(low, high + 1))
        dist = np.convolve(dist, pmf)
        lo += low
        observed += int(b)
    if len(dist) == 1:
        return 1.0
    return float(dist[: observed - lo + 1].sum())


def sign_p_worse(before, after):
    down = int((after < before).sum())
    up = int((after > before).sum())
    if down + up == 0:
        return 1.0
    return stats.binomtest(up, down + up, 0.5, alternative="less").pvalue


def simulate(seeds, trials=5, alpha=0.05):
    rng = np.random.default_rng(20261206)
    base = np.array(BASE_RATES)
    tests = ["stratified", "sign over rows", "McNemar on first trials"]
    for label, head in [("null (same rates)", base), ("broken head", np.array(BROKEN_RATES))]:
        hits = dict.fromkeys(tests, 0)
        for _ in range(seeds):
            before = rng.random((len(base), trials)) < base[:, None]
            after = rng.random((len(head), trials)) < head[:, None]
            b, a = before.sum(axis=1), after.sum(axis=1)
            hits["stratified"] += stratified_p_worse(b, a, trials) < alpha
            hits["sign over rows"] += sign_p_worse(b / trials, a / trials) < alpha
            hits["McNemar on first trials"] += sign_p_worse(before[:, 0], after[:, 0]) < alpha
        for test in tests:
            print(f"{label}: {test}: p_worse < {alpha} in {hits[test] / seeds:.3f} of {seeds}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulate", action="store_true", help="print the error rates too")
    parser.add_argument("--seeds", type=int, default=2000)
    args = parser.parse_args()
    reference()
    if args.simulate:
        simulate(args.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
