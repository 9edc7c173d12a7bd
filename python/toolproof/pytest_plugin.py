"""pytest plugin: mcp-toolproof's `mcp_server` fixture, on toolproof's MCP client.

Configure the server in pytest.ini or pyproject.toml:

    [tool.pytest.ini_options]
    toolproof_command = "python examples/weather_server.py"
    # or: toolproof_url = "http://localhost:8000/mcp"
    # or: toolproof_config = "toolproof.yaml"

Then:

    def test_weather(mcp_server):
        r = mcp_server.call("get_weather", city="Toronto")
        assert not r.is_error
        assert r.data["temp_c"] > -50

To configure it in code instead, override the `mcp_server_config` fixture in your conftest.py
and return `(toolproof.ServerConfig(...), base_dir)`.

The calls go through the toolproof binary (`toolproof session`), which holds the connection;
a server that crashes is started again before the next call, and one that hangs past a call's
timeout is restarted after it (the binary says so on stderr).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolproof.client import CallResult, Session, Tool
from toolproof.config import ConfigError, ServerConfig


class SyncMcpServer:
    """A connected server. Every method blocks until the answer (or the timeout)."""

    def __init__(self, session: Session, timeout_s: float) -> None:
        self._session = session
        self.timeout_s = timeout_s

    def call(
        self, tool: str, arguments: dict[str, Any] | None = None, /, **kwargs: Any
    ) -> CallResult:
        """Call a tool. Pass arguments as a dict, as keywords, or both.

        mcp_server.call("get_weather", city="Toronto")
        mcp_server.call("get_weather", {"city": "Toronto"})
        """
        args = {**(arguments or {}), **kwargs}
        return self._session.call(tool, args, self.timeout_s)

    def list_tools(self) -> list[Tool]:
        return self._session.list_tools()

    def tool_names(self) -> list[str]:
        return [tool.name for tool in self.list_tools()]

    def tool(self, name: str) -> Tool:
        """Return one tool definition, or raise KeyError."""
        for tool in self.list_tools():
            if tool.name == name:
                return tool
        raise KeyError(name)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("toolproof_command", "Command that starts the MCP server over stdio.")
    parser.addini("toolproof_url", "Streamable HTTP URL of the MCP server.")
    parser.addini("toolproof_config", "Path to a toolproof.yaml to read the server from.")
    parser.addini("toolproof_timeout", "Per-call timeout in seconds (default 30).", default="30")


@pytest.fixture(scope="session")
def mcp_server_config(pytestconfig: pytest.Config) -> tuple[ServerConfig, Path]:
    """The server to connect to, read from the ini options.

    Returns the config and the directory relative paths are resolved from.
    Override this fixture to set the server up in code.
    """
    root = pytestconfig.rootpath
    command = str(pytestconfig.getini("toolproof_command") or "").strip()
    url = str(pytestconfig.getini("toolproof_url") or "").strip()
    config_file = str(pytestconfig.getini("toolproof_config") or "").strip()

    if config_file:
        path = root / config_file
        if not path.exists():
            raise ConfigError(f"config file not found: {path}")
        return ServerConfig(config_file=str(path.resolve())), path.resolve().parent
    if url:
        return ServerConfig(url=url), root
    if command:
        return ServerConfig(command=split_command(command)), root
    raise pytest.UsageError(
        "mcp_server fixture is not configured. Set toolproof_command, toolproof_url "
        "or toolproof_config in pytest.ini / pyproject.toml, or override the "
        "mcp_server_config fixture."
    )


def split_command(command: str) -> list[str]:
    """Split a command string into arguments. Keeps Windows backslashes intact."""
    if os.name == "nt":
        return [part.strip('"') for part in shlex.split(command, posix=False)]
    return shlex.split(command)


@pytest.fixture(scope="session")
def mcp_server(
    pytestconfig: pytest.Config, mcp_server_config: tuple[ServerConfig, Path]
) -> Iterator[SyncMcpServer]:
    """A connected MCP server, shared by every test in the session."""
    config, base_dir = mcp_server_config
    timeout_s = float(pytestconfig.getini("toolproof_timeout") or 30)
    with Session(config, base_dir=base_dir) as session:
        yield SyncMcpServer(session, timeout_s)
