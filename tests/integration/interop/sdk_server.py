"""A small MCP server on the official Python SDK, for toolproof's interop tests.

Runs on mcp 1.x (FastMCP) and 2.x (MCPServer). Usage:
    python sdk_server.py stdio
    python sdk_server.py http PORT      # streamable HTTP on 127.0.0.1:PORT/mcp
"""

import sys

try:  # mcp 2.x
    from mcp.server.mcpserver import MCPServer as Server

    SDK = "mcp2"
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server

    SDK = "mcp1"

try:
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:
    from mcp.server.fastmcp.exceptions import ToolError


def make(port: int) -> "Server":
    kwargs = {"host": "127.0.0.1", "port": port} if SDK == "mcp1" else {}
    server = Server("sdk-demo", **kwargs)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers and return the sum."""
        return a + b

    @server.tool()
    def shout(text: str) -> str:
        """Return the text in upper case."""
        return text.upper()

    @server.tool()
    def refuse(reason: str) -> str:
        """Always fails with the given reason, as a tool error."""
        raise ToolError(reason)

    @server.resource("note://hello")
    def hello() -> str:
        """A greeting."""
        return "hello"

    @server.prompt()
    def greet(name: str) -> str:
        """Greet someone by name."""
        return f"Say hello to {name}."

    return server


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        make(0).run("stdio")
        return
    port = int(sys.argv[2])
    server = make(port)
    if SDK == "mcp1":
        server.run("streamable-http")
    else:
        server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
