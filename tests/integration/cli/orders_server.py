"""A two-tool MCP server over stdio for toolproof's `tune` tests: `refund_order` and
`get_order`, whose description is too thin for a model to route shipping questions to it.

JSON-RPC, one message a line: answers `initialize`, `ping` and `tools/list`; notifications
get no answer. Run with --help for this text.
"""

import json
import sys

if "--help" in sys.argv:
    print(__doc__)
    sys.exit(0)

SCHEMA = {
    "type": "object",
    "properties": {"order_id": {"type": "string", "description": "The order's id."}},
    "required": ["order_id"],
}
TOOLS = [
    {
        "name": "refund_order",
        "description": "Refunds an order payment to the customer.",
        "inputSchema": SCHEMA,
        "annotations": {"destructiveHint": False, "readOnlyHint": False},
    },
    {
        "name": "get_order",
        "description": "Gets an order.",
        "inputSchema": SCHEMA,
        "annotations": {"readOnlyHint": True},
    },
]

for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        result = {
            "protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "orders", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "ping":
        result = {}
    else:
        reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}}
        print(json.dumps(reply), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
