"""`python -m toolproof ARGS…` runs the toolproof binary with the same arguments and exits with
its exit code (on POSIX the binary replaces this process, so signals reach it directly)."""

from __future__ import annotations

import os
import subprocess
import sys

from toolproof.client import ServerError, find_binary


def main() -> int:
    try:
        binary = find_binary()
    except ServerError as exc:
        message, _, hint = str(exc).partition("\nhint: ")
        print(f"error: {message}", file=sys.stderr)
        if hint:
            print(f"hint: {hint}", file=sys.stderr)
        return 1
    args = [binary, *sys.argv[1:]]
    if os.name == "nt":
        return subprocess.call(args)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(binary, args)
    return 1  # not reached: execv replaces the process or raises


if __name__ == "__main__":
    sys.exit(main())
