"""toolproof: tests MCP servers in CI.

This package ships the `toolproof` binary (installed on PATH as a script), `python -m toolproof`
(which runs that binary), and a pytest plugin with mcp-toolproof's `mcp_server` fixture, whose
tool calls go through the binary's MCP client (`toolproof session`). The names exported here are
the Python API; they match mcp-toolproof 0.3.1's names of the same meaning: the pytest
plugin's `CallResult` and `ServerConfig`, the async `McpServer`, and `Config`, `load_config`,
`run_config` and `RunReport` for a whole run (docs/migrating.md lists what differs).
"""

from __future__ import annotations

from toolproof.client import CallResult, McpServer, ServerError, Tool
from toolproof.config import Config, ConfigError, ServerConfig, load_config
from toolproof.runner import RunReport, run_config, run_config_async

try:  # written into the wheel by scripts/build-wheel.sh
    from toolproof._version import __version__
except ImportError:  # running from the source tree
    __version__ = "0+unknown"

__all__ = [
    "CallResult",
    "Config",
    "ConfigError",
    "McpServer",
    "RunReport",
    "ServerConfig",
    "ServerError",
    "Tool",
    "__version__",
    "load_config",
    "run_config",
    "run_config_async",
]
