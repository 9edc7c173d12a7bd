#!/usr/bin/env python3
"""Eval speed, side by side with mcp-toolproof 0.3.1, against the fake model API.

1. 200 uncached cases, the fake API answering each request in 100 ms: whole-process time of
   `eval` at toolproof's default concurrency vs the reference, and whether the verdicts agree.
2. 1000 cached cases: whole-process time of a fully cached `eval` (no request, no key).

Usage (after `cargo build --release --workspace --bins`):
    python3 bench/evals.py [--runs N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import REF, ROOT, ensure_reference  # noqa: E402

OURS = ROOT / "target/release/toolproof"
FAKE_MCP = ROOT / "target/release/fake_mcp"
FAKE_LLM = ROOT / "target/release/fake_llm"
WORK = ROOT / "target/bench/evals"


def prompts(n: int) -> list[tuple[str, str | None]]:
    """Prompts whose keyword names a tool (the fake API calls it) or none (text answer)."""
    tools = ["echo", "add", "fail", None]
    out = []
    for i in range(n):
        tool = tools[i % len(tools)]
        prompt = f"case {i}: please use {tool} now" if tool else f"case {i}: just say hello"
        # Every fifth label is wrong on purpose, so verdicts have misses to agree on.
        expect = tool if i % 5 else ("echo" if tool != "echo" else "add")
        out.append((prompt, expect))
    return out


def write_config(folder: Path, n: int, cache: bool) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        "server:",
        f"  command: [{json.dumps(str(FAKE_MCP))}]",
        "evals:",
        "  provider: anthropic",
        "  model: fake-model-1",
        f"  cache: {'true' if cache else 'false'}",
        "  min_accuracy: 0",
        "  cases:",
    ]
    for prompt, expect in prompts(n):
        lines.append(f"    - prompt: {json.dumps(prompt)}")
        lines.append(f"      expect_tool: {json.dumps(expect) if expect else 'null'}")
    path = folder / "toolproof.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def verdicts_ours(path: Path) -> list[bool]:
    report = json.loads(path.read_text())
    cases = report["phases"]["evals"]["results"]["models"][0]["cases"]
    return [c["status"] == "correct" for c in cases]


def verdicts_ref(path: Path) -> list[bool]:
    return [c["passed"] for c in json.loads(path.read_text())["evals"]["cases"]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for path in (OURS, FAKE_MCP, FAKE_LLM):
        if not path.exists():
            sys.exit(f"{path} is missing: run `cargo build --release --workspace --bins` first")
    ensure_reference()
    llm = subprocess.Popen([str(FAKE_LLM), "--delay-ms", "100"], stdout=subprocess.PIPE, text=True)
    try:
        url = llm.stdout.readline().strip().removeprefix("listening on ")
        env = dict(os.environ, ANTHROPIC_API_KEY="bench", ANTHROPIC_BASE_URL=url)
        env.pop("TOOLPROOF_EVAL_PROVIDER", None)

        folder = WORK / "uncached"
        cfg = write_config(folder, 200, cache=False)
        ours = min(
            timed([str(OURS), "eval", "-c", str(cfg), "--json", "ours.json"], env, folder)
            for _ in range(args.runs)
        )
        ref = timed([str(REF), "eval", "-c", str(cfg), "--json", "ref.json"], env, folder)
        same = verdicts_ours(folder / "ours.json") == verdicts_ref(folder / "ref.json")
        print(f"200 uncached cases, API at 100 ms: toolproof {ours:.2f}s, mcp-toolproof {ref:.2f}s, "
              f"{ref / ours:.1f}x faster, same verdicts: {same}")

        folder = WORK / "cached"
        cfg = write_config(folder, 1000, cache=True)
        subprocess.run([str(OURS), "eval", "-c", str(cfg)], env=env, cwd=folder,
                       stdout=subprocess.DEVNULL, check=False)
        offline = dict(env, ANTHROPIC_API_KEY="", ANTHROPIC_BASE_URL="http://127.0.0.1:9")
        runs = [timed([str(OURS), "eval", "-c", str(cfg), "--offline", "--json", "ours.json"], offline, folder)
                for _ in range(max(args.runs, 5))]
        ours = statistics.median(runs)
        ref = timed([str(REF), "eval", "-c", str(cfg), "--json", "ref.json"],
                    dict(env, ANTHROPIC_API_KEY="unused", ANTHROPIC_BASE_URL="http://127.0.0.1:9"), folder)
        same = verdicts_ours(folder / "ours.json") == verdicts_ref(folder / "ref.json")
        print(f"1000 cached cases, whole process: toolproof {ours * 1000:.0f}ms, mcp-toolproof {ref * 1000:.0f}ms, "
              f"{ref / ours:.0f}x faster, same verdicts: {same}")
    finally:
        llm.kill()


if __name__ == "__main__":
    main()
