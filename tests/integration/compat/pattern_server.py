"""A minimal MCP stdio server (no SDK) for the compatibility suite: one tool, `lookup`, whose
input schema has a `pattern` only Python's `re` understands (`\\Z`), to compare how each tool
validates a model's arguments against a schema it may not be able to compile."""

import json
import sys

TOOL = {
    "name": "lookup",
    "description": "Looks up an airport by its three-letter code.",
    "inputSchema": {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}\\Z"}},
        "required": ["code"],
    },
}


def answer(request):
    method = request.get("method")
    if method == "initialize":
        version = request["params"].get("protocolVersion", "2025-06-18")
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "pattern-server", "version": "1.0.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        code = request["params"].get("arguments", {}).get("code", "")
        return {"content": [{"type": "text", "text": f"airport {code}"}]}
    return None


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    result = answer(request)
    if result is None:
        reply = {"jsonrpc": "2.0", "id": request["id"],
                 "error": {"code": -32601, "message": "method not found"}}
    else:
        reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
