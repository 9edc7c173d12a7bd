#!/usr/bin/env python3
"""Timings of the paired test and the MDE table of the statistics page (docs/statistics.md).

Compiles src/evals/judging/stats/paired.rs on its own with `rustc -O` (it has no dependencies)
into target/bench/stats, with a main that times `paired` on a thousand rows of ten trials (every
row able to move: the slowest case) and prints the MDE at alpha 0.05 and 80% power for sets of
50 to 1,000 rows shaped like the page's example. Usage:

    python3 bench/stats.py
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src/evals/judging/stats/paired.rs"
OUT = ROOT / "target/bench/stats"

MAIN = r"""
fn main() {
    let cases: [(&str, Vec<Row>); 3] = [
        ("1000 rows x 10 trials, every row at 5 of 10", vec![Row { before: (5, 10), after: (5, 10) }; 1000]),
        ("1000 rows x 10 trials, rows at random", (0..1000u64).map(|i| {
            let x = i.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            Row { before: (((x >> 33) % 11) as u32, 10), after: (((x >> 40) % 11) as u32, 10) }
        }).collect()),
        ("3000 rows x 20 trials, every row at 10 of 20", vec![Row { before: (10, 20), after: (10, 20) }; 3000]),
    ];
    for (name, rows) in &cases {
        let runs = 20;
        let start = std::time::Instant::now();
        for _ in 0..runs {
            std::hint::black_box(paired(std::hint::black_box(rows)));
        }
        println!("{name}: {:.2} ms a test", start.elapsed().as_secs_f64() * 1e3 / runs as f64);
    }
    println!();
    println!("| Rows | 1 trial | 3 trials | 5 trials | 10 trials |");
    println!("|---|---|---|---|---|");
    for rows in [50usize, 100, 200, 500, 1000] {
        let mut line = format!("| {rows} |");
        for t in [1u32, 3, 5, 10] {
            // 75% always right, 5% missing once, 10% at about half, 10% always wrong.
            let base: Vec<(u32, u32)> = (0..rows).map(|i| match i * 100 / rows {
                0..=74 => (t, t),
                75..=79 => (t.saturating_sub(1).max(if t == 1 { 1 } else { 0 }), t),
                80..=89 => (t / 2, t),
                _ => (0, t),
            }).collect();
            line += &format!(" {:.1}% |", 100.0 * mde(&base, t, 0.05, 0.8));
        }
        println!("{line}");
    }
}
"""


def main():
    text = SOURCE.read_text()
    # The module without its tests, as a standalone program.
    code = text[: text.index("#[cfg(test)]")].replace("pub(crate) ", "")
    code = re.sub(r"^//!.*\n", "", code, flags=re.M)
    OUT.mkdir(parents=True, exist_ok=True)
    program = OUT / "paired_bench.rs"
    program.write_text(code + MAIN)
    binary = OUT / "paired_bench"
    subprocess.run(["rustc", "-O", "--edition", "2021", "-A", "dead_code", str(program), "-o",
                    str(binary)], check=True)
    subprocess.run([str(binary)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
