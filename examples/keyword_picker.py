#!/usr/bin/env python3
"""A minimal tool picker for `provider: command` (standard library only).

toolproof writes one JSON request on stdin:
    {"model": "", "system": null, "prompt": "...", "tools": [{"name", "description", "input_schema"}]}
and reads the choice from stdout:
    {"tool": "get_weather", "args": {}}   or   {"tool": null}

This one picks the tool whose name words appear in the prompt (description words count for
less) and fills the tool's required arguments from the prompt by their type: a number from
the digits in it, an enum value it names, a quoted or capitalised phrase for text. Replace `pick`
and `arguments` with a call to your own model or agent.

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


def value_for(schema, prompt):
    """A value of `schema`'s type taken from the prompt, or a neutral one of that type."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if "enum" in schema and schema["enum"]:
        named = [v for v in schema["enum"] if isinstance(v, str) and v.lower() in prompt.lower()]
        return named[0] if named else schema["enum"][0]
    if kind in ("integer", "number"):
        found = re.search(r"-?\d+(?:\.\d+)?", prompt)
        number = float(found.group()) if found else 0
        return int(number) if kind == "integer" else number
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object":
        return {}
    quoted = re.search(r"[\"“']([^\"”']+)[\"”']", prompt)
    if quoted:
        return quoted.group(1)
    # A capitalised word past the first, such as a place or a name.
    names = re.findall(r"(?<!^)\b[A-Z][\w-]+", prompt.strip())
    return names[-1] if names else prompt.strip().rstrip("?.!").split()[-1]


def arguments(tool, prompt):
    """Every required argument of `tool`, filled from the prompt."""
    schema = tool.get("input_schema") or {}
    props = schema.get("properties") or {}
    return {name: value_for(props.get(name) or {}, prompt) for name in schema.get("required", [])}


def main():
    request = json.loads(sys.stdin.read())
    name = pick(request["prompt"], request["tools"])
    if name is None:
        print(json.dumps({"tool": None}))
        return
    tool = next(t for t in request["tools"] if t["name"] == name)
    print(json.dumps({"tool": name, "args": arguments(tool, request["prompt"])}))


if __name__ == "__main__":
    main()
