"""`ServerConfig`: how to reach the server, with mcp-toolproof's fields and rules.

mcp-toolproof's class is a pydantic model; this one is plain Python (the package has no
dependencies) with the same keyword arguments, defaults and validation: exactly one of
`command` and `url`, `headers` only with `url`. A mistake raises `ValueError` (pydantic's
`ValidationError` is a `ValueError` too), unknown keywords included.

One addition: `config_file`, a toolproof.yaml to take the whole server from (what the
`toolproof_config` ini option does). The binary reads that file itself, so `${VAR}` values in it
never pass through Python, and its `protocol` and `transport` keys apply as in `toolproof run`.

Values are coerced as pydantic's lax mode coerces them: `startup_timeout_s` takes an int, a
bool or a number written as text (`"5"`, `" 5.5 "`, `"1_000"`); text fields take bytes
(decoded as UTF-8); `command` takes any sequence that is not text. Other types are refused.

`Config` and `load_config` stand for a whole toolproof.yaml: the binary reads and validates it
(the package has no YAML parser), so a `Config` holds its path, its folder and the server to
reach, or the sections given in code, which `run_config` hands to the binary as they are.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """Raised when the configured toolproof.yaml is missing or invalid."""


def _text(value: Any) -> str | None:
    """`value` as pydantic's lax `str` takes it (text, or bytes decoded as UTF-8), else None."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def _str_map(name: str, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    out: dict[str, str] = {}
    if isinstance(value, Mapping):
        for k, v in value.items():
            key, text = _text(k), _text(v)
            if key is None or text is None:
                break
            out[key] = text
        else:
            return out
    raise ValueError(f"'{name}' must be a mapping of strings to strings")


def _path(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        return os.fspath(value)  # type: ignore[return-value]
    text = _text(value)
    if text is None:
        raise ValueError(f"'{name}' must be a string")
    return text


def _number(name: str, value: Any) -> float:
    """A float as pydantic's lax `float` takes it: a number, a bool, or text (or bytes) that
    Python's `float()` reads after stripping spaces."""
    if isinstance(value, (int, float)):  # bool is an int
        return float(value)
    text = _text(value)
    if text is not None:
        try:
            return float(text.strip())
        except ValueError:
            pass
    raise ValueError(f"'{name}' must be a number")


def _command(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, (str, bytes, bytearray, Mapping)) and isinstance(
        value, (Sequence, set, frozenset)
    ):
        parts = [_text(part) for part in value]
        if all(part is not None for part in parts):
            return [part for part in parts if part is not None]
    raise ValueError("'command' must be a list of strings")


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
        self.command: list[str] | None = _command(command)
        if url is not None and _text(url) is None:
            raise ValueError("'url' must be a string")
        self.url: str | None = _text(url) if url is not None else None
        self.env = _str_map("env", env)
        self.headers = _str_map("headers", headers)
        self.cwd = _path("cwd", cwd)
        self.startup_timeout_s = _number("startup_timeout_s", startup_timeout_s)
        self.config_file = _path("config_file", config_file)
        if self.config_file is not None:
            if self.command or self.url:
                raise ValueError("set only one of 'command', 'url' or 'config_file'")
            return
        if bool(self.command) == bool(self.url):
            raise ValueError("set exactly one of 'command' or 'url'")
        if self.headers and not self.url:
            raise ValueError("'headers' only applies to 'url' servers")

    @classmethod
    def model_validate(cls, obj: Any) -> ServerConfig:
        """A `ServerConfig` from a mapping of its fields (or one already made), with the same
        coercion and rules as the constructor (pydantic's method name)."""
        if isinstance(obj, ServerConfig):
            return obj
        if not isinstance(obj, Mapping) or not all(isinstance(k, str) for k in obj):
            raise ValueError("ServerConfig.model_validate takes a mapping of field names")
        return cls(**dict(obj))

    def model_dump(self) -> dict[str, Any]:
        """The fields as a dict (pydantic's method name, for code written against it)."""
        fields = {name: getattr(self, name) for name in self._FIELDS}
        if fields["config_file"] is None:
            del fields["config_file"]
        return fields

    def model_dump_json(self) -> str:
        """The fields as JSON text (pydantic's method name)."""
        return json.dumps(self.model_dump(), separators=(",", ":"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ServerConfig):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.model_dump().items())
        return f"ServerConfig({shown})"


class Config:
    """A whole toolproof.yaml: read from a file by `load_config`, or built in code.

    Config(server=ServerConfig(command=["python", "server.py"]), tests=[{...}], evals={...})

    Built in code, the sections other than `server` are plain dicts and lists with the keys of
    toolproof.yaml; `run_config` writes them for the binary, which validates them. Read from a
    file, the binary reads the file itself, so `${VAR}` values never pass through Python.
    """

    _SECTIONS = ("timeout_ms", "retries", "checks", "tests", "fuzz", "bench", "evals")

    def __init__(
        self,
        *,
        server: ServerConfig | Mapping[str, Any],
        base_dir: str | os.PathLike[str] | None = None,
        **sections: Any,
    ) -> None:
        unknown = sorted(set(sections) - set(self._SECTIONS) - {"protocol", "elicitation"})
        if unknown:
            raise ValueError(f"unknown field(s): {', '.join(unknown)}")
        self.server = ServerConfig.model_validate(server)
        self.base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
        self.sections: dict[str, Any] = dict(sections)
        self.path: Path | None = None
        for name in self._SECTIONS:
            setattr(self, name, sections.get(name))

    @classmethod
    def model_validate(cls, obj: Any) -> Config:
        """A `Config` from a mapping with the keys of toolproof.yaml (pydantic's method name)."""
        if isinstance(obj, Config):
            return obj
        if not isinstance(obj, Mapping) or "server" not in obj:
            raise ValueError("a config is a mapping with a 'server' key")
        fields = dict(obj)
        return cls(server=fields.pop("server"), **fields)

    def __repr__(self) -> str:
        if self.path is not None:
            return f"Config(path={str(self.path)!r})"
        return f"Config(server={self.server!r}, sections={sorted(self.sections)!r})"


def load_config(path: str | os.PathLike[str]) -> Config:
    """A toolproof.yaml to run: the binary reads and validates it when it is used (by
    `run_config`, or by `McpServer(config.server)`). Raises `ConfigError` when it is missing."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"config file not found: {path}")
    if not path.is_file():
        raise ConfigError(f"{path} is not a file")
    resolved = path.resolve()
    config = Config(server=ServerConfig(config_file=str(resolved)), base_dir=resolved.parent)
    config.path = resolved
    return config
