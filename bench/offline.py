#!/usr/bin/env python3
"""What replaying 1,000 cached eval cases costs above the server's own start.

`toolproof eval --offline` and `toolproof inspect` on the same config read the same YAML, start
the same server (fake_mcp from tests/support, a stdio server that answers at once) and list its
tools; the eval then also keys, reads and judges 1,000 cached answers, lints the cases and
prints its report. The difference of their medians is what the offline eval path costs (the
goal: at most 20 ms). A third series adds `--json` (the JSON report, written atomically and
synced to disk). Wall time is what a CI job waits; CPU time (user + system, the server's
included) is steadier on a machine others share.

Builds the release binaries, writes the config under target/bench/offline/, fills the answer
cache once through fake_llm on 127.0.0.1 (no network), then runs the two commands in turn,
interleaved so that a busy machine slows both alike, and prints the median and spread of each
and the differences. Not a test: nothing fails on a figure.

Usage:
    python3 bench/offline.py [--runs N] [--cases N] [--no-build]

`TOOLPROOF_BENCH_BIN` times another toolproof binary on the same config (a build of main, say).
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
RELEASE = ROOT / "target/release"
WORK = ROOT / "target/bench/offline"


def build() -> None:
    subprocess.run(
        ["cargo", "build", "--release", "--quiet",
         "-p", "toolproof", "--bin", "toolproof",
         "-p", "toolproof-test-support", "--bin", "fake_mcp", "--bin", "fake_llm"],
        cwd=ROOT, check=True,
    )


def write_config(folder: Path, fake_mcp: Path, n: int) -> Path:
    """`n` cases whose prompt names a tool of fake_mcp (fake_llm calls it) or none (text)."""
    tools = ["echo", "add", "fail", None]
    lines = [
        "server:",
        f"  command: [{json.dumps(str(fake_mcp))}]",
        "evals:",
        "  provider: anthropic",
        "  model: fake-model-1",
        "  min_accuracy: 0",
        "  cases:",
    ]
    for i in range(n):
        tool = tools[i % len(tools)]
        prompt = f"case {i}: please use {tool} now" if tool else f"case {i}: just say hello"
        lines.append(f"    - prompt: {json.dumps(prompt)}")
        lines.append(f"      expect_tool: {json.dumps(tool) if tool else 'null'}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "toolproof.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def fill_cache(toolproof: Path, fake_llm: Path, cfg: Path, n: int) -> None:
    """One live eval against fake_llm, so that every case has its answer on disk (once)."""
    if len(list((cfg.parent / ".toolproof-cache/evals").glob("*.json"))) >= n:
        return
    llm = subprocess.Popen([str(fake_llm)], stdout=subprocess.PIPE, text=True)
    try:
        url = llm.stdout.readline().strip().removeprefix("listening on ")
        env = dict(os.environ, ANTHROPIC_API_KEY="bench", ANTHROPIC_BASE_URL=url)
        subprocess.run([str(toolproof), "eval", "-c", str(cfg), "--batch", "never"],
                       env=env, cwd=cfg.parent, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
    finally:
        llm.kill()
        llm.wait()
    cached = len(list((cfg.parent / ".toolproof-cache/evals").glob("*.json")))
    if cached < n:
        sys.exit(f"the cache holds {cached} answers, not {n}: see {cfg.parent}")


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + system, the server's included) milliseconds of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(cmd)} exited {code} (run it in {cwd} to see why)")
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def spread(ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=4)
    return (f"median {statistics.median(ms):6.1f} ms  IQR {q[0]:6.1f}-{q[2]:6.1f}"
            f"  min {min(ms):6.1f}  max {max(ms):6.1f}")


def series(cmds: dict[str, list[str]], env: dict[str, str], cwd: Path, runs: int) -> dict[str, list[tuple[float, float]]]:
    """Each command `runs` times, in turn, so that a busy machine slows them alike."""
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            out[name].append(timed(cmd, env, cwd))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    if not args.no_build:
        build()
    toolproof = Path(os.environ.get("TOOLPROOF_BENCH_BIN", RELEASE / "toolproof"))
    fake_mcp, fake_llm = RELEASE / "fake_mcp", RELEASE / "fake_llm"
    for path in (toolproof, fake_mcp, fake_llm):
        if not path.exists():
            sys.exit(f"{path} is missing: run without --no-build")

    folder = WORK / f"cases-{args.cases}"
    cfg = write_config(folder, fake_mcp, args.cases)
    fill_cache(RELEASE / "toolproof", fake_llm, cfg, args.cases)

    # No key and an address nothing listens on: a request would fail the run.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLPROOF_", "ANTHROPIC_", "OPENAI_"))}
    env.update(ANTHROPIC_BASE_URL="http://127.0.0.1:9", CI="1", NO_COLOR="1")
    env.pop("GITHUB_STEP_SUMMARY", None)
    base = [str(toolproof)]
    cmds = {
        "eval --offline": [*base, "eval", "-c", str(cfg), "--offline"],
        "inspect": [*base, "inspect", "-c", str(cfg)],
        "eval --offline --json": [*base, "eval", "-c", str(cfg), "--offline", "--json", "offline.json"],
    }
    for cmd in cmds.values():  # warm the page cache; each must succeed
        timed(cmd, env, folder)
    report = json.loads((folder / "offline.json").read_text())
    hits = report["phases"]["evals"]["results"]["cache"]["hits"]
    if hits != args.cases:
        sys.exit(f"the offline eval found {hits} cached answers, not {args.cases}")
    got = series(cmds, env, folder, args.runs)
    print(f"{args.cases} cached eval cases, {args.runs} runs each, {toolproof}")
    for kind, at in (("wall", 0), ("cpu", 1)):
        print("cpu (user + system, the server's included)" if at else "wall")
        ms = {name: [run[at] for run in runs] for name, runs in got.items()}
        for name, values in ms.items():
            print(f"  {name:22} {spread(values)}")
        inspect = statistics.median(ms["inspect"])
        for name in ("eval --offline", "eval --offline --json"):
            print(f"  {name:22} minus inspect: {statistics.median(ms[name]) - inspect:+6.1f} ms (medians)")

if __name__ == "__main__":
    main()
