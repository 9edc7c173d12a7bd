"""A stand-in model for toolproof's `tune` tests: it picks the tool whose description shares
the most words (four letters or more) with the prompt; ties go to the tool listed first, and
no shared word means no tool. The same list always gets the same answer, so a description
that names what a prompt asks about wins the prompt.

Reads one command-provider request on stdin, answers one call. Every request is appended to
$OVERLAP_LOG when set. Run with --help for this text.
"""

import json
import os
import re
import sys

if "--help" in sys.argv:
    print(__doc__)
    sys.exit(0)


def words(text):
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}


request = json.load(sys.stdin)
if os.environ.get("OVERLAP_LOG"):
    with open(os.environ["OVERLAP_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(request) + "\n")
asked = words(request["prompt"])
best, score = None, 0
for tool in request["tools"]:
    shared = len(asked & words(tool["description"]))
    if shared > score:
        best, score = tool["name"], shared
if best is None:
    print(json.dumps({"tool": None, "args": None, "text": "no tool fits"}))
else:
    print(json.dumps({"tool": best, "args": {"order_id": "A1"}}))
