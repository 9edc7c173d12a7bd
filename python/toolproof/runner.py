"""`run_config` and `RunReport`: mcp-toolproof's Python entry point for a whole run, on the
toolproof binary. The binary runs `toolproof run` (or `eval`, `bench`, `fuzz` for one phase)
with `--json`, and the report's members in mcp-toolproof's shape (`checks`, `tests`, `bench`,
`fuzz`, `evals`, `summary`; see docs/json-report.md) become a `RunReport` with the reference's
fields. The whole toolproof report is there too, as `RunReport.json`.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from toolproof.client import CallResult, ServerError, find_binary
from toolproof.config import Config, ConfigError


class _Record:
    """A read-only object with the keys of one report entry as attributes."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{type(self).__name__}({shown})"


class CheckResult(_Record):
    """One static-check finding: `tool`, `check`, `severity`, `message`."""


class TestResult(_Record):
    """One YAML test: `name`, `tool`, `passed`, `failures`, `latency_ms`, `attempts`,
    `result` (a `CallResult`, or None when the tool was never called), `server_stderr`."""

    __test__ = False  # not a pytest test class


class BenchResult(_Record):
    """One bench target, with mcp-toolproof's fields (`p50_ms`, `throughput`, …)."""


class FuzzFinding(_Record):
    """One fuzz finding: `kind`, `mode`, `input`, `detail`."""


class FuzzResult(_Record):
    """One fuzzed tool: `tool`, `passed`, `calls`, `skipped`, `duration_s`, `findings`."""


class EvalCaseResult(_Record):
    """One eval case: `name`, `prompt`, `passed`, `expect_tool`, `expect_args`,
    `picked_tool`, `picked_args`, `failures`, `cached`."""


class EvalReport(_Record):
    """The evals: `provider`, `model`, `passed`, `accuracy`, `correct`, `min_accuracy`,
    `error`, `skipped_tools`, `cases`."""


class RunReport:
    """Everything one run found, with mcp-toolproof's fields and properties."""

    def __init__(self, report: dict[str, Any]) -> None:
        self.json = report
        server = report.get("server") or {}
        inventory = report.get("inventory") or {}
        summary = report.get("summary") or {}
        self.target: str = report.get("target", "")
        self.phases: list[str] = list(summary.get("phases", []))
        self.server_name: str | None = server.get("name")
        self.server_version: str | None = server.get("version")
        self.tool_names: list[str] = [t.get("name", "") for t in inventory.get("tools", [])]
        self.checks = [CheckResult(c) for c in report.get("checks", [])]
        self.tests = [self._test(t) for t in report.get("tests", [])]
        self.bench = [BenchResult(b) for b in report.get("bench", [])]
        fuzz = report.get("fuzz") or {}
        self.fuzz = [
            FuzzResult({**f, "findings": [FuzzFinding(x) for x in f.get("findings", [])]})
            for f in fuzz.get("tools", [])
        ]
        self.fuzz_seed: int | None = fuzz.get("seed")
        evals = report.get("evals")
        self.evals = (
            EvalReport({**evals, "cases": [EvalCaseResult(c) for c in evals.get("cases", [])]})
            if evals
            else None
        )
        self.duration_s: float = report.get("duration_s", 0.0)
        checks = ((report.get("phases") or {}).get("checks") or {}).get("results") or {}
        self.strict: bool = bool(checks.get("strict", False))
        error = report.get("error")
        self.error: str | None = error.get("message") if isinstance(error, dict) else error
        self.exit_code: int = report.get("exit_code", 1)
        self._passed: bool = bool(report.get("passed", False))

    @staticmethod
    def _test(t: dict[str, Any]) -> TestResult:
        result = None
        if t.get("is_error") is not None:
            result = CallResult(
                tool=t.get("tool", ""),
                arguments={},
                is_error=bool(t["is_error"]),
                text=t.get("text") or "",
                structured=None,
                latency_ms=t.get("latency_ms", 0.0),
            )
        fields = {k: v for k, v in t.items() if k not in ("is_error", "text")}
        stderr = t.get("server_stderr") or ""
        return TestResult({**fields, "result": result, "server_stderr": stderr})

    @property
    def checks_failed(self) -> bool:
        """Whether a finding fails the run (an error, or a warning under `strict`)."""
        failing = {"error", "warning"} if self.strict else {"error"}
        return any(c.severity in failing for c in self.checks)

    @property
    def tests_failed(self) -> int:
        return sum(1 for t in self.tests if not t.passed)

    @property
    def passed(self) -> bool:
        """toolproof's verdict: the run's exit code was 0."""
        return self._passed

    def __repr__(self) -> str:
        return f"RunReport(target={self.target!r}, passed={self.passed})"


_ONE_PHASE = {"evals": "eval", "bench": "bench", "fuzz": "fuzz"}


def _command(phases: Collection[str] | None) -> list[str]:
    """The subcommand and flags that run `phases` (None: what `toolproof run` runs)."""
    if phases is None:
        return ["run"]
    wanted = set(phases)
    unknown = wanted - {"checks", "tests", "evals", "bench", "fuzz"}
    if unknown:
        raise ValueError(f"unknown phase(s): {', '.join(sorted(unknown))}")
    if len(wanted) == 1 and next(iter(wanted)) in _ONE_PHASE:
        return [_ONE_PHASE[next(iter(wanted))]]
    args = ["run"]
    if "checks" not in wanted:
        args.append("--no-checks")
    for phase in ("evals", "bench", "fuzz"):
        if phase not in wanted:
            args.append(f"--skip-{phase}")
    return args


def _absolute(base: Path, value: Any) -> Any:
    return str((base / value).resolve()) if isinstance(value, str) else value


def _written(config: Config, folder: Path) -> Path:
    """A config built in code as a file the binary reads (JSON is YAML), with its relative
    paths made absolute from `config.base_dir`, as mcp-toolproof resolves them."""
    base = config.base_dir.resolve()
    server = {k: v for k, v in config.server.model_dump().items() if v not in (None, {}, [])}
    server.pop("config_file", None)
    server["cwd"] = _absolute(base, server.get("cwd", "."))
    command = server.get("command")
    if command and "/" in command[0] and not os.path.isabs(command[0]):
        server["command"] = [_absolute(base, command[0]), *command[1:]]
    data: dict[str, Any] = {"server": server}
    data.update({k: v for k, v in config.sections.items() if v is not None})
    evals = data.get("evals")
    if isinstance(evals, dict):
        evals = dict(evals)
        for key in ("cache_dir", "cases_file", "system_file"):
            if key in evals:
                evals[key] = _absolute(base, evals[key])
        evals.setdefault("cache_dir", _absolute(base, ".toolproof-cache"))
        data["evals"] = evals
    path = folder / "toolproof.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run_config(config: Config, phases: Collection[str] | None = None) -> RunReport:
    """Connect to the server and run the requested phases (default: what `toolproof run`
    runs). Raises `ConfigError` for a config the binary refuses."""
    binary = find_binary()
    with tempfile.TemporaryDirectory(prefix="toolproof-run-") as tmp:
        folder = Path(tmp)
        path = config.path if config.path is not None else _written(config, folder)
        report_path = folder / "report.json"
        args = [binary, *_command(phases), "--config", str(path)]
        args += ["--json", str(report_path), "--no-summary", "--color", "never"]
        proc = subprocess.run(
            args,
            cwd=str(config.base_dir),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            check=False,
        )
        try:
            report = json.loads(report_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            report = None
    if proc.returncode == 2 or report is None:
        message = proc.stderr.strip() or f"toolproof exited with code {proc.returncode}"
        if proc.returncode == 2:
            raise ConfigError(message)
        raise ServerError(message)
    return RunReport(report)


async def run_config_async(config: Config, phases: Collection[str] | None = None) -> RunReport:
    """`run_config` for async code: the run happens in a worker thread (asyncio)."""
    import asyncio

    return await asyncio.to_thread(run_config, config, phases)
