"""Runs mcp-toolproof's command line many times from one Python interpreter.

Importing mcp-toolproof (typer, rich, pydantic, the MCP SDK, Hypothesis, the model SDKs) costs
about two seconds of CPU, more than most runs of the compatibility suite themselves. This
driver imports it once, then forks a child per request, so every run starts from the same
freshly imported state and runs the real `toolproof.cli:app` in a process of its own.

Requests come on stdin, one JSON object per line: {"args": [...], "cwd": str, "env": {...},
"stdout": path, "stderr": path}. The answer is one line per request: the exit code.
"""

import json
import os
import sys
import traceback

import toolproof.cli


def child(request):
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for fd, key in ((1, "stdout"), (2, "stderr")):
        target = os.open(request[key], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = ["toolproof", *request["args"]]
    try:
        toolproof.cli.app(args=request["args"], prog_name="toolproof")
        code = 0
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:  # what an uncaught exception does to the real command: exit 1
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main():
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            child(request)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        sys.stdout.write(f"{code}\n")
        sys.stdout.flush()


main()
