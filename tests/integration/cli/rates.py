"""A model of known per-row rates for the command provider in toolproof's tests.

The prompt carries `[[rate P TOOL]]`: the answer calls TOOL (with `text: hi`) with probability P,
else no tool. `[[broken Q]]` replaces P by Q when $RATES_BROKEN is set (a head whose change
broke the row). The draws are seeded by $RATES_SEED, the prompt and how many times it was
asked before (counted in $RATES_STATE, a folder), so a run is the same every time and two runs
with different seeds draw apart.
"""

import fcntl
import hashlib
import json
import os
import random
import re
import sys

request = json.load(sys.stdin)
prompt = request["prompt"]
key = hashlib.sha256(prompt.encode()).hexdigest()
with open(os.path.join(os.environ["RATES_STATE"], key), "a+") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    count = int(f.read() or 0)
    f.seek(0)
    f.truncate()
    f.write(str(count + 1))
m = re.search(r"\[\[rate (\S+) (\S+)\]\]", prompt)
rate, tool = float(m.group(1)), m.group(2)
if os.environ.get("RATES_BROKEN") and (b := re.search(r"\[\[broken (\S+)\]\]", prompt)):
    rate = float(b.group(1))
seed = f"{os.environ.get('RATES_SEED', '')}|{key}|{count}"
draw = random.Random(hashlib.sha256(seed.encode()).digest()).random()
if draw < rate:
    print(json.dumps({"tool": tool, "args": {"text": "hi"}}))
else:
    print(json.dumps({"tool": None, "args": None, "text": "not sure"}))
