"""The Python side of `toolproof session`: the binary holds the MCP connection, this module
starts it, sends it one JSON line per request and turns the replies into `CallResult` and `Tool`
objects with mcp-toolproof's fields. There is no MCP client in Python.

The line protocol is described in the binary's source, `src/session/mod.rs`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sysconfig
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from toolproof.config import ConfigError, ServerConfig


class ServerError(Exception):
    """Raised when the server can't be reached or the connection breaks."""


@dataclass
class CallResult:
    """The outcome of one tool call, flattened for easy assertions (mcp-toolproof's fields)."""

    tool: str
    arguments: dict[str, Any]
    is_error: bool
    text: str
    structured: Any
    latency_ms: float
    transport_error: str | None = None
    timed_out: bool = False
    protocol_error: bool = False
    error_code: int | None = None  # JSON-RPC error code when protocol_error is set

    @property
    def data(self) -> Any:
        """Structured content if the server sent any, otherwise the text parsed as JSON.

        Returns None when the text isn't valid JSON.
        """
        if self.structured is not None:
            return self.structured
        try:
            return json.loads(self.text)
        except (ValueError, TypeError):
            return None


# ------------------------------------------------------------------------------ tool objects


class _Model:
    """A read-only view of a JSON object with snake_case attributes, as mcp-types' pydantic
    models give them: `inputSchema` is `input_schema`, `_meta` is `meta`, absent is None."""

    # (attribute, key on the wire, the model of a nested object or a list of them, or None)
    _fields: tuple[tuple[str, str, Any], ...] = ()

    def __init__(self, wire: dict[str, Any]) -> None:
        for attr, key, model in self._fields:
            value = wire.get(key)
            if value is not None and model is not None:
                if isinstance(value, list):
                    value = [model(v) if isinstance(v, dict) else v for v in value]
                elif isinstance(value, dict):
                    value = model(value)
            setattr(self, attr, value)

    def model_dump(self, *, by_alias: bool = False, exclude_none: bool = False) -> dict[str, Any]:
        """The fields as a dict, keyed by attribute (or by wire name with `by_alias`)."""
        out: dict[str, Any] = {}
        for attr, key, _ in self._fields:
            value = getattr(self, attr)
            if value is None and exclude_none:
                continue
            if isinstance(value, _Model):
                value = value.model_dump(by_alias=by_alias, exclude_none=exclude_none)
            elif isinstance(value, list):
                value = [
                    v.model_dump(by_alias=by_alias, exclude_none=exclude_none)
                    if isinstance(v, _Model)
                    else v
                    for v in value
                ]
            out[key if by_alias else attr] = value
        return out

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{attr}={getattr(self, attr)!r}" for attr, _, _ in self._fields)
        return f"{type(self).__name__}({shown})"


class ToolAnnotations(_Model):
    """A tool's `annotations` (hints)."""

    title: str | None
    read_only_hint: bool | None
    destructive_hint: bool | None
    idempotent_hint: bool | None
    open_world_hint: bool | None
    _fields = (
        ("title", "title", None),
        ("read_only_hint", "readOnlyHint", None),
        ("destructive_hint", "destructiveHint", None),
        ("idempotent_hint", "idempotentHint", None),
        ("open_world_hint", "openWorldHint", None),
    )


class ToolExecution(_Model):
    """A tool's `execution` (2025-11-25)."""

    task_support: str | None
    _fields = (("task_support", "taskSupport", None),)


class Icon(_Model):
    """One of a tool's `icons`."""

    src: str | None
    mime_type: str | None
    sizes: list[str] | None
    theme: str | None
    _fields = (
        ("src", "src", None),
        ("mime_type", "mimeType", None),
        ("sizes", "sizes", None),
        ("theme", "theme", None),
    )


class Tool(_Model):
    """A tool as `tools/list` sent it, with the attributes of mcp-types' `Tool`."""

    name: str
    title: str | None
    description: str | None
    input_schema: dict[str, Any]
    execution: ToolExecution | None
    output_schema: dict[str, Any] | None
    icons: list[Icon] | None
    annotations: ToolAnnotations | None
    meta: dict[str, Any] | None
    _fields = (
        ("name", "name", None),
        ("title", "title", None),
        ("description", "description", None),
        ("input_schema", "inputSchema", None),
        ("execution", "execution", ToolExecution),
        ("output_schema", "outputSchema", None),
        ("icons", "icons", Icon),
        ("annotations", "annotations", ToolAnnotations),
        ("meta", "_meta", None),
    )


# ------------------------------------------------------------------------------ the binary


def _native(path: Path) -> bool:
    """Whether `path` is an executable program rather than a script (mcp-toolproof installs a
    Python script named `toolproof` too, which has no `session` command)."""
    try:
        with path.open("rb") as f:
            return os.access(path, os.X_OK) and f.read(2) != b"#!"
    except OSError:
        return False


def find_binary() -> str:
    """The toolproof binary: `TOOLPROOF_BINARY`, else the one this package's wheel installed
    beside the interpreter's scripts (or the user's), else the first native one on PATH."""
    override = os.environ.get("TOOLPROOF_BINARY")
    if override:
        return override
    exe = "toolproof.exe" if os.name == "nt" else "toolproof"
    # The interpreter's own scripts folder (a venv's bin/), then the user's (pip --user).
    candidates = [Path(sysconfig.get_path("scripts")) / exe]
    try:
        candidates.append(Path(sysconfig.get_path("scripts", f"{os.name}_user")) / exe)
    except KeyError:
        pass
    found = shutil.which(exe)
    if found:
        candidates.append(Path(found))
    for path in candidates:
        if path.is_file() and _native(path):
            return str(path)
    raise ServerError(
        "the toolproof binary is not installed beside this Python package\n"
        "hint: reinstall the package (pip install --force-reinstall toolproof), "
        "or set TOOLPROOF_BINARY to the binary's path"
    )


# ------------------------------------------------------------------------------ the session


def _server_line(config: ServerConfig, base_dir: Path) -> dict[str, Any]:
    """The server as `toolproof session --server-on-stdin` reads it; `cwd` resolved from
    `base_dir` as mcp-toolproof does."""
    cwd = (base_dir / config.cwd).resolve() if config.cwd else base_dir.resolve()
    return {
        "command": config.command or None,
        "url": config.url,
        "env": config.env,
        "headers": config.headers,
        "cwd": str(cwd),
        "startup_timeout_s": config.startup_timeout_s,
    }


class Session:
    """A running `toolproof session` connected to one server. Not async: each request waits
    for its reply (the binary enforces the timeouts). Safe to share between threads."""

    def __init__(
        self, config: ServerConfig, base_dir: Path | None = None, binary: str | None = None
    ) -> None:
        base_dir = Path(base_dir or Path.cwd())
        args = [binary or find_binary(), "session"]
        if config.config_file is not None:
            args += ["--config", str(base_dir / config.config_file)]
        else:
            args.append("--server-on-stdin")
        self._lock = threading.Lock()
        self._next_id = 0
        # stderr is inherited, so the session's messages land where pytest captures output.
        # Its own session and process group keep a Ctrl-C in the terminal from killing it
        # before pytest's teardown closes it (and with it the server) in order.
        self._proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=str(base_dir),
            start_new_session=os.name != "nt",
        )
        if config.config_file is None:
            self._write(_server_line(config, base_dir))
        ready = self._read()
        if ready is None or not ready.get("ready"):
            self.close()
            if ready is None:
                raise ServerError(f"could not connect to server: {self._ended()}")
            message = str(ready.get("error", "the session did not start"))
            if ready.get("usage"):
                raise ConfigError(message)
            stderr = "\n".join(str(ready.get("stderr", "")).strip().splitlines()[-20:])
            if stderr:
                message += f"\nserver stderr:\n{stderr}"
            raise ServerError(message)
        self.server_info: dict[str, Any] = ready.get("server", {})
        self.transport: str = ready.get("transport", "")

    def _write(self, message: dict[str, Any]) -> None:
        stdin: IO[bytes] | None = self._proc.stdin
        if stdin is None:
            raise ServerError("the session is closed")
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def _read(self) -> dict[str, Any] | None:
        stdout = self._proc.stdout
        line = stdout.readline() if stdout is not None else b""
        if not line:
            return None
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _ended(self) -> str:
        code = self._proc.poll()
        if code is None:
            return "the toolproof session stopped answering"
        return f"the toolproof session ended with exit code {code}"

    def _request(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Sends one request and returns its reply, or None when the session is gone."""
        with self._lock:
            self._next_id += 1
            message = {"id": self._next_id, **message}
            try:
                self._write(message)
            except (OSError, ValueError):
                return None
            reply = self._read()
        if reply is not None and reply.get("id") != message["id"]:
            raise ServerError(f"the toolproof session answered out of order: {reply!r}")
        return reply

    def call(
        self, tool: str, arguments: dict[str, Any] | None = None, timeout_s: float | None = None
    ) -> CallResult:
        """Call a tool and time it. Never raises for tool errors, timeouts or a dead server:
        those are reported on the returned `CallResult`."""
        arguments = arguments or {}
        request: dict[str, Any] = {"op": "call", "tool": tool, "arguments": arguments}
        if timeout_s is None:
            timeout_s = 30.0  # the session's default too
        request["timeout_s"] = timeout_s
        reply = self._request(request)
        if reply is None:
            return CallResult(tool, arguments, True, "", None, 0.0, transport_error=self._ended())
        if not reply.get("ok"):
            raise ServerError(str(reply.get("error")))
        fields = reply["result"]
        result = CallResult(
            tool=tool,
            arguments=arguments,
            is_error=fields["is_error"],
            text=fields["text"],
            structured=fields["structured"],
            latency_ms=fields["latency_ms"],
            transport_error=fields["transport_error"],
            timed_out=fields["timed_out"],
            protocol_error=fields["protocol_error"],
            error_code=fields["error_code"],
        )
        if result.timed_out:
            # mcp-toolproof's wording.
            result.transport_error = f"timed out after {timeout_s}s"
        return result

    def list_tools(self) -> list[Tool]:
        """Every tool, following pagination cursors."""
        reply = self._request({"op": "list_tools"})
        if reply is None:
            raise ServerError(self._ended())
        if not reply.get("ok"):
            raise ServerError(str(reply.get("error")))
        return [Tool(t) for t in reply["tools"]]

    def close(self, wait_s: float = 30) -> None:
        """Ends the session, which stops a stdio server (or ends the HTTP session)."""
        with self._lock:
            if self._proc.stdin is not None and not self._proc.stdin.closed:
                try:
                    self._proc.stdin.close()
                except OSError:
                    pass
        try:
            self._proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ------------------------------------------------------------------------------ async API


@dataclass
class ServerInfo:
    """What `McpServer.server_info()` gives: mcp-toolproof's fields."""

    name: str | None
    version: str | None
    tools: list[Tool] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)


class McpServer:
    """mcp-toolproof's async connection to one server, on a toolproof session:

        async with McpServer(config) as server:
            tools = await server.list_tools()
            result = await server.call("get_weather", {"city": "Toronto"})

    Each request runs the blocking session in a worker thread (`asyncio.to_thread`), so it
    needs an asyncio event loop (anyio on its asyncio backend, pytest-asyncio, `asyncio.run`).
    """

    def __init__(self, config: ServerConfig, base_dir: Path | None = None) -> None:
        self.config = config
        self.base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
        self._session: Session | None = None

    async def __aenter__(self) -> McpServer:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Start the server (for stdio) and run the MCP handshake."""
        import asyncio

        self._session = await asyncio.to_thread(Session, self.config, self.base_dir)

    def _live(self) -> Session:
        if self._session is None:
            raise ServerError("not connected: use `async with McpServer(config) as server:`")
        return self._session

    async def close(self) -> None:
        """Close the connection and stop the server process."""
        import asyncio

        session, self._session = self._session, None
        if session is not None:
            await asyncio.to_thread(session.close)

    async def reconnect(self) -> None:
        """Close the connection and open a fresh one."""
        await self.close()
        await self.connect()

    async def server_info(self) -> ServerInfo:
        """The server's name and version and its tools (mcp-toolproof lists resources and
        prompts too; here they are empty: `toolproof inspect` shows them)."""
        info = self._live().server_info
        return ServerInfo(
            name=info.get("name"), version=info.get("version"), tools=await self.list_tools()
        )

    async def list_tools(self) -> list[Tool]:
        """Every tool, following pagination cursors."""
        import asyncio

        return await asyncio.to_thread(self._live().list_tools)

    async def call(
        self, tool: str, arguments: dict[str, Any] | None = None, timeout_s: float | None = None
    ) -> CallResult:
        """Call a tool and time it. Never raises for tool errors, timeouts or a dead server:
        those are reported on the returned `CallResult`."""
        import asyncio

        return await asyncio.to_thread(self._live().call, tool, arguments, timeout_s)

    async def is_alive(self, timeout_s: float = 5) -> bool:
        """Whether the server still answers (a listing within the session's timeouts)."""
        try:
            await self.list_tools()
        except ServerError:
            return False
        return True

    def stderr_tail(self, lines: int = 20) -> str:
        """The server's stderr goes to this process's stderr (where pytest captures it), so
        there is no tail to give: always empty."""
        return ""
