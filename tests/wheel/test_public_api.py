"""mcp-toolproof 0.3.1's public Python API beyond the pytest fixture: `McpServer`, `Config`,
`load_config`, `run_config`, `RunReport` and `ServerConfig`'s pydantic behaviour, written
against mcp-toolproof and run unchanged under it and under toolproof's wheel by
tests/integration/interop/wheel.rs, against the Python SDK server of `toolproof_command`
(tools add, shout, refuse). Every test must pass under both."""

import asyncio
import shlex

import pytest

import toolproof
from toolproof import (
    CallResult,
    Config,
    ConfigError,
    McpServer,
    RunReport,
    ServerConfig,
    load_config,
    run_config,
)


@pytest.fixture
def server(pytestconfig):
    return ServerConfig(command=shlex.split(pytestconfig.getini("toolproof_command")))


def test_the_documented_names_are_exported():
    for name in [
        "CallResult",
        "Config",
        "ConfigError",
        "McpServer",
        "RunReport",
        "ServerConfig",
        "ServerError",
        "load_config",
        "run_config",
        "run_config_async",
    ]:
        assert name in toolproof.__all__
        assert getattr(toolproof, name) is not None


@pytest.mark.parametrize(
    ("given", "taken"),
    [("5", 5.0), (" 5.5 ", 5.5), (True, 1.0), (b"5", 5.0), ("1_000", 1000.0), (7, 7.0)],
)
def test_startup_timeout_is_coerced_as_pydantic_does(given, taken):
    assert ServerConfig(command=["x"], startup_timeout_s=given).startup_timeout_s == taken


@pytest.mark.parametrize(
    "fields",
    [
        {"command": ["x"], "startup_timeout_s": "abc"},
        {"command": ["x"], "startup_timeout_s": None},
        {"command": "x"},
        {"command": [1]},
        {"command": ["x"], "env": {"A": 1}},
        {"command": ["x"], "env": [("A", "b")]},
        {"command": ["x"], "cwd": 5},
        {"command": ["x"], "bogus": 1},
        {"command": []},
        {"url": ""},
    ],
)
def test_what_pydantic_refuses_is_a_value_error(fields):
    with pytest.raises(ValueError):
        ServerConfig(**fields)
    with pytest.raises(ValueError):
        ServerConfig.model_validate(fields)


def test_model_validate_and_model_dump():
    config = ServerConfig.model_validate(
        {"command": ("python", b"server.py"), "env": {"K": b"v"}, "startup_timeout_s": "7"}
    )
    assert config.command == ["python", "server.py"]
    assert config.env == {"K": "v"}
    assert config.startup_timeout_s == 7.0
    dumped = config.model_dump()
    assert {k: dumped[k] for k in ("command", "url", "env", "headers", "cwd")} == {
        "command": ["python", "server.py"],
        "url": None,
        "env": {"K": "v"},
        "headers": {},
        "cwd": None,
    }
    assert ServerConfig.model_validate(dumped) == config
    with pytest.raises(ValueError):
        ServerConfig.model_validate("python server.py")


def test_mcp_server_lists_and_calls_in_async_code(server):
    async def main():
        async with McpServer(server) as mcp:
            info = await mcp.server_info()
            assert info.name == "sdk-demo"
            assert [t.name for t in info.tools] == ["add", "shout", "refuse"]
            names = [t.name for t in await mcp.list_tools()]
            result = await mcp.call("add", {"a": 2, "b": 3})
            refused = await mcp.call("refuse", {"reason": "no"}, timeout_s=10)
        return names, result, refused

    names, result, refused = asyncio.run(main())
    assert names == ["add", "shout", "refuse"]
    assert isinstance(result, CallResult)
    assert (result.is_error, result.text, result.data) == (False, "5", {"result": 5})
    assert refused.is_error and "no" in refused.text


TESTS = [
    {"name": "adds", "tool": "add", "args": {"a": 2, "b": 3}, "expect": {"contains": "5"}},
    {"name": "wrong", "tool": "add", "args": {"a": 1, "b": 1}, "expect": {"equals": 3}},
]


def check_report(report):
    assert isinstance(report, RunReport)
    assert report.server_name == "sdk-demo"
    assert report.tool_names == ["add", "shout", "refuse"]
    assert report.phases == ["checks", "tests"]
    assert [(t.name, t.tool, t.passed, t.attempts) for t in report.tests] == [
        ("adds", "add", True, 1),
        ("wrong", "add", False, 1),
    ]
    assert report.tests[0].failures == []
    assert report.tests[1].failures
    assert report.tests[0].result.text == "5"
    assert report.tests_failed == 1
    assert report.error is None
    assert report.evals is None
    assert report.bench == [] and report.fuzz == []
    assert not report.passed
    assert report.duration_s > 0


def test_run_config_runs_a_yaml_file(server, tmp_path):
    command = ", ".join(f'"{part}"' for part in server.command)
    lines = [f"server:\n  command: [{command}]\ntests:"]
    for t in TESTS:
        a, b = t["args"]["a"], t["args"]["b"]
        lines.append(f"  - name: {t['name']}\n    tool: {t['tool']}\n    args: {{a: {a}, b: {b}}}")
        key, value = next(iter(t["expect"].items()))
        shown = f'"{value}"' if key == "contains" else value
        lines.append(f"    expect: {{{key}: {shown}}}")
    path = tmp_path / "toolproof.yaml"
    path.write_text("\n".join(lines) + "\n")
    config = load_config(path)
    assert isinstance(config, Config)
    check_report(run_config(config))


def test_run_config_runs_a_config_built_in_code(server):
    check_report(run_config(Config(server=server, tests=TESTS)))


def test_load_config_of_a_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")
