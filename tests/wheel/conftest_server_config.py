"""Copied as conftest.py by tests/integration/interop/wheel.rs (which fills in the Python of the SDK server):
the server built in code with `toolproof.ServerConfig`, as mcp-toolproof's docs show. The script
is in a subfolder: `cwd` resolves from the base folder returned here, the script from `cwd`."""

from pathlib import Path

import pytest

from toolproof import ServerConfig

SDK_PYTHON = "@SDK_PYTHON@"


@pytest.fixture(scope="session")
def mcp_server_config():
    config = ServerConfig(
        command=[SDK_PYTHON, "sdk_server.py", "stdio"],
        cwd="srv",
        env={"SDK_DEMO": "1"},
        startup_timeout_s=20,
    )
    return config, Path(__file__).parent
