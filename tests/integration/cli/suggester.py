"""A stand-in model for `toolproof rows suggest` through the command provider.

Reads the task on stdin ({"task": "suggest_rows", "pair": [A, B], "tools": [...], "existing":
[prompts], "n": N}) and answers {"rows": [...]}: N near misses for each side of the pair, one
no-tool filler, one ambiguous row, and, to exercise the checks, a row repeating the first
existing prompt, a row for a tool outside the pair, a row with no prompt and a prompt holding
an email address. Every task is appended to $SUGGESTER_LOG when set.
"""

import json
import os
import sys

task = json.load(sys.stdin)
if os.environ.get("SUGGESTER_LOG"):
    with open(os.environ["SUGGESTER_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(task) + "\n")
a, b = task["pair"]
rows = []
for tool in (a, b):
    for i in range(task["n"]):
        rows.append({"prompt": f"near miss {i + 1} that belongs to {tool}", "expect_tool": tool,
                     "why": f"{tool}, not the other"})
rows.append({"prompt": "thanks, that was all I needed", "expect_tool": None, "why": "filler"})
rows.append({"prompt": "get me the weather thing", "expect_tool": None,
             "why": "ambiguous: either tool fits"})
if task["existing"]:
    rows.append({"prompt": task["existing"][0], "expect_tool": a, "why": "a repeat"})
rows.append({"prompt": "say it back", "expect_tool": "echo", "why": "outside the pair"})
rows.append({"prompt": "", "expect_tool": a, "why": "empty"})
rows.append({"prompt": f"send the {a} report to bo@example.com", "expect_tool": a, "why": "mail"})
print(json.dumps({"rows": rows}))
