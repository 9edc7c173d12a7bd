"""`ServerConfig`: how to reach the server, with mcp-toolproof's fields and rules.

mcp-toolproof's class is a pydantic model; this one is plain Python (the package has no
dependencies) with the same keyword arguments, defaults and validation: exactly one of
`command` and `url`, `headers` only with `url`. A mistake raises `ValueError` (pydantic's
`ValidationError` is a `ValueError` too), unknown keywords included.

One addition: `config_file`, a toolproof.yaml to take the whole server from (what the
`toolproof_config` ini option does). The binary reads that file itself, so `${VAR}` values in it
never pass through Python, and its `protocol` and `transport` keys apply as in `toolproof run`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any


class ConfigError(Exception):
    """Raised when the configured toolproof.yaml is missing or invalid."""


def _str_map(name: str, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(f"'{name}' must be a mapping of strings to strings")
    return dict(value)


def _path(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise ValueError(f"'{name}' must be a string")


class ServerConfig:
    """How to reach the server: a command to launch over stdio, or a URL.

    ServerConfig(command=["python", "server.py"], env={"API_KEY": "test"}, cwd="examples")
    ServerConfig(url="http://localhost:8000/mcp", headers={"Authorization": "Bearer x"})
    """

    _FIELDS = ("command", "url", "env", "headers", "cwd", "startup_timeout_s", "config_file")

    def __init__(
        self,
        *,
        command: Sequence[str] | None = None,
        url: str | None = None,
        env: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        startup_timeout_s: float = 30,
        config_file: str | os.PathLike[str] | None = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            # pydantic's `extra="forbid"`: a typo is an error, and a ValueError as there.
            raise ValueError(f"unknown field(s): {', '.join(sorted(unknown))}")
        if command is not None and (
            isinstance(command, (str, bytes))
            or not isinstance(command, Sequence)
            or not all(isinstance(part, str) for part in command)
        ):
            raise ValueError("'command' must be a list of strings")
        if url is not None and not isinstance(url, str):
            raise ValueError("'url' must be a string")
        if isinstance(startup_timeout_s, bool) or not isinstance(startup_timeout_s, (int, float)):
            raise ValueError("'startup_timeout_s' must be a number")
        self.command: list[str] | None = list(command) if command is not None else None
        self.url = url
        self.env = _str_map("env", env)
        self.headers = _str_map("headers", headers)
        self.cwd = _path("cwd", cwd)
        self.startup_timeout_s = float(startup_timeout_s)
        self.config_file = _path("config_file", config_file)
        if self.config_file is not None:
            if self.command or self.url:
                raise ValueError("set only one of 'command', 'url' or 'config_file'")
            return
        if bool(self.command) == bool(self.url):
            raise ValueError("set exactly one of 'command' or 'url'")
        if self.headers and not self.url:
            raise ValueError("'headers' only applies to 'url' servers")

    def model_dump(self) -> dict[str, Any]:
        """The fields as a dict (pydantic's method name, for code written against it)."""
        fields = {name: getattr(self, name) for name in self._FIELDS}
        if fields["config_file"] is None:
            del fields["config_file"]
        return fields

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ServerConfig):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.model_dump().items())
        return f"ServerConfig({shown})"
