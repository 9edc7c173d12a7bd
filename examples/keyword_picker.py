#!/usr/bin/env python3
"""A minimal tool picker for `provider: command` (standard library only).

toolproof writes one JSON request on stdin:
    {"model": "", "system": null, "prompt": "...", "tools": [{"name", "description", "input_schema"}]}
and reads the choice from stdout:
    {"tool": "get_weather", "args": {}}   or   {"tool": null}

This one picks the tool whose name words appear in the prompt (description words count for
less) and sends no arguments. Replace `pick` with a call to your own model or agent.

    evals:
      provider: command
      command: [python3, keyword_picker.py]
"""

import json
import re
import sys

STOPWORDS = {"a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "it", "me",
             "my", "get", "set", "list", "with", "from", "by", "this", "that", "what", "do"}


def words(text):
    """Lowercase words, splitting snake_case, kebab-case, dots and camelCase; plural 's' dropped."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text or "")
    found = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in found} - STOPWORDS


def pick(prompt, tools):
    """The best-matching tool name, or None when nothing matches."""
    asked = words(prompt)
    best, best_score = None, 0
    for tool in tools:
        score = 2 * len(asked & words(tool["name"])) + len(asked & words(tool.get("description")))
        if score > best_score:
            best, best_score = tool["name"], score
    return best


def main():
    request = json.loads(sys.stdin.read())
    tool = pick(request["prompt"], request["tools"])
    print(json.dumps({"tool": tool, "args": {}} if tool else {"tool": None}))


if __name__ == "__main__":
    main()
