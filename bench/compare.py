#!/usr/bin/env python3
"""Side-by-side timings of toolproof and mcp-toolproof 0.3.1 (the Python package it replaces).

Prints a table of median wall time and peak RSS per command, and the speed-up. Installs the
reference into target/bench/ref-venv on first use. Usage:

    cargo build --release --workspace --bins
    python3 bench/compare.py [--runs N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OURS = ROOT / "target/release/toolproof"
FAKE = ROOT / "target/release/fake_mcp"
VENV = ROOT / "target/bench/ref-venv"
REF = VENV / "bin/toolproof"


def ensure_reference() -> None:
    if REF.exists():
        return
    print(f"installing mcp-toolproof 0.3.1 into {VENV}", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run(
        [str(VENV / "bin/pip"), "install", "--quiet", "mcp-toolproof[anthropic,openai]==0.3.1"],
        check=True,
    )


def measure(cmd: list[str], runs: int, cwd: Path) -> tuple[float, float, int]:
    """Median wall seconds, peak RSS in MB over the runs, and the last exit code.

    RSS comes from GNU time when it is installed: a child forked from this Python process
    would otherwise report Python's own pages as its peak.
    """
    gnu_time = Path("/usr/bin/time")
    walls, rss, code = [], [], 0
    for _ in range(runs):
        rss_file = cwd / "rss.txt"
        wrapped = [str(gnu_time), "-f", "%M", "-o", str(rss_file), *cmd] if gnu_time.exists() else cmd
        start = time.perf_counter()
        proc = subprocess.Popen(wrapped, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        if gnu_time.exists():
            rss.append(int(rss_file.read_text().split()[-1]) / 1024)
        else:
            rss.append(usage.ru_maxrss / 1024)
        code = os.waitstatus_to_exitcode(status)
    return statistics.median(walls), max(rss), code


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for path in (OURS, FAKE):
        if not path.exists():
            sys.exit(f"{path} is missing: run `cargo build --release --workspace --bins` first")
    ensure_reference()
    work = ROOT / "target/bench"
    work.mkdir(parents=True, exist_ok=True)
    server = [str(FAKE), "--tools", "2000", "--page-size", "100"]
    tests_cfg = work / "tests-1000.yaml"
    lines = ["server:", f"  command: [{json.dumps(str(FAKE))}]", "tests:"]
    for i in range(1000):
        lines += [f"  - name: echo {i}", "    tool: echo", f"    args: {{text: t{i}}}",
                  f"    expect: {{contains: t{i}}}"]
    tests_cfg.write_text("\n".join(lines) + "\n")
    cases = [
        ("--version", [str(OURS), "--version"], [str(REF), "--version"]),
        (
            "inspect, 2000 tools in 20 pages",
            [str(OURS), "inspect", "--json", "--", *server],
            [str(REF), "inspect", "--json", "--", *server],
        ),
        (
            "run, 1000 tests on a no-op server",
            [str(OURS), "run", str(tests_cfg)],
            [str(REF), "run", str(tests_cfg)],
        ),
    ]
    print(f"{'case':36} {'toolproof':>12} {'mcp-toolproof':>14} {'speed-up':>9}  {'RSS ours/ref (MB)':>18}")
    for name, ours, ref in cases:
        o_wall, o_rss, o_code = measure(ours, args.runs, work)
        r_wall, r_rss, r_code = measure(ref, args.runs, work)
        print(
            f"{name:36} {o_wall * 1000:10.1f}ms {r_wall * 1000:12.1f}ms {r_wall / o_wall:8.0f}x"
            f"  {o_rss:8.1f} / {r_rss:6.1f}   (exit {o_code}/{r_code})"
        )


if __name__ == "__main__":
    main()
