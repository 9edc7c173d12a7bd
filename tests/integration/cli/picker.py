"""A scripted picker for the command provider in toolproof's tests.

Reads one request on stdin and answers from directives in the prompt:
  [[call NAME {json args}]]   one call (repeat for several)
  [[call:MODEL NAME {json}]]  a call only when the request's model is MODEL
  [[flip NAME {json}]]        NAME on odd-numbered asks of this prompt, no tool on even ones
                              (counted in $PICKER_STATE, a folder)
  [[nth K NAME {json}]]       a call only on the K-th ask of this prompt (1-based; repeat for
                              several calls in one answer; counted in $PICKER_STATE)
  [[none]]                    no tool
  [[first {json args}]]       the first tool of the list as sent (a model with position bias)
  [[exit 3]]                  exit with that status after writing to stderr
  [[garbage]]                 print something that is not JSON
  [[usage IN OUT]]            report `usage` with IN input and OUT output tokens (an object
                              answer; `[[usage bad]]` reports one that is not token counts)
Without a directive it picks no tool. Every request is appended to $PICKER_LOG when set.
"""

import fcntl
import hashlib
import json
import os
import re
import sys


def bump(key):
    """How many asks counted under `key` before this one; counts this one. Trials run side by
    side, so the count is read and written under a lock."""
    path = os.path.join(os.environ["PICKER_STATE"], key)
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        count = int(f.read() or 0)
        f.seek(0)
        f.truncate()
        f.write(str(count + 1))
    return count


request = json.load(sys.stdin)
if os.environ.get("PICKER_LOG"):
    with open(os.environ["PICKER_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(request) + "\n")
prompt = request["prompt"]
if m := re.search(r"\[\[exit (\d+)\]\]", prompt):
    sys.stderr.write("picker: failing on purpose\n")
    sys.exit(int(m.group(1)))
if "[[garbage]]" in prompt:
    print("this is not json")
    sys.exit(0)
calls = [
    {"tool": m.group(2), "args": json.loads(m.group(3) or "{}")}
    for m in re.finditer(r"\[\[call(?::(\S+))? (\S+)\s*(\{.*?\})?\]\]", prompt)
    if m.group(1) in (None, request["model"])
]
if m := re.search(r"\[\[flip (\S+)\s*(\{.*?\})?\]\]", prompt):
    count = bump(hashlib.sha256(prompt.encode()).hexdigest())
    if count % 2 == 0:
        calls = [{"tool": m.group(1), "args": json.loads(m.group(2) or "{}")}]
if nths := re.findall(r"\[\[nth (\d+) (\S+)\s*(\{.*?\})?\]\]", prompt):
    key = "nth-" + hashlib.sha256(prompt.encode()).hexdigest()
    ask = bump(key) + 1
    calls = [{"tool": t, "args": json.loads(a or "{}")} for k, t, a in nths if int(k) == ask]
if (m := re.search(r"\[\[first\s*(\{.*?\})?\]\]", prompt)) and request.get("tools"):
    calls = [{"tool": request["tools"][0]["name"], "args": json.loads(m.group(1) or "{}")}]
usage = None
if m := re.search(r"\[\[usage (\d+) (\d+)\]\]", prompt):
    usage = {"input_tokens": int(m.group(1)), "output_tokens": int(m.group(2))}
elif "[[usage bad]]" in prompt:
    usage = {"input_tokens": "lots"}
if usage is not None:
    answer = {"calls": calls} if calls else {"tool": None, "args": None, "text": "no tool needed"}
    answer["usage"] = usage
    print(json.dumps(answer))
elif len(calls) == 1:
    print(json.dumps(calls[0]))
elif calls:
    print(json.dumps(calls))
else:
    print(json.dumps({"tool": None, "args": None, "text": "no tool needed"}))
