"""Writes toolproof's wheel (called by scripts/build-wheel.sh, which picks the binary and the
platform tag). Standard library only, so it runs offline on any Python 3.9+.

A wheel is a zip (PEP 427, the binary distribution format): the Python package at the root
(Root-Is-Purelib: true, so it lands in purelib as mcp-toolproof's does), the binary under
`<name>-<version>.data/scripts/` (pip installs it on PATH, executable), and the metadata under
`<name>-<version>.dist-info/` with RECORD last. Entries are sorted and dated `--epoch`, so the
same inputs give the same bytes. Prints the wheel's path.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import re
import sys
import time
import zipfile
from pathlib import Path

# The distribution's name on PyPI; the import name stays `toolproof`, mcp-toolproof's.
NAME = "toolproof"

# Cargo's pre-release words and their PEP 440 spelling.
PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "rc": "rc", "c": "rc", "pre": "rc"}


def pep440(version: str) -> str:
    """Cargo's version in PEP 440 spelling: 0.1.0-rc.1 is 0.1.0rc1, 1.0.0-dev.2 is 1.0.0.dev2."""
    m = re.fullmatch(r"(\d+\.\d+\.\d+)(?:-([A-Za-z]+)\.?(\d*))?", version)
    if not m:
        raise SystemExit(
            f"error: Cargo.toml's version `{version}` has no PEP 440 spelling\n"
            "hint: use MAJOR.MINOR.PATCH with an optional -alpha.N, -beta.N, -rc.N or -dev.N"
        )
    release, word, number = m.group(1), (m.group(2) or "").lower(), m.group(3) or "0"
    if not word:
        return release
    if word == "dev":
        return f"{release}.dev{int(number)}"
    if word not in PRE:
        raise SystemExit(
            f"error: the pre-release `{word}` in `{version}` has no PEP 440 spelling\n"
            "hint: use alpha, beta, rc or dev"
        )
    return f"{release}{PRE[word]}{int(number)}"


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def metadata(args: argparse.Namespace, version: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {version}",
        f"Summary: {args.summary}",
        f"Home-page: {args.repository}",
        "License: MIT",
        f"Project-URL: Repository, {args.repository}",
        f"Project-URL: Issues, {args.repository}/issues",
        "Keywords: mcp,model-context-protocol,testing,ci,pytest",
        "Classifier: Development Status :: 4 - Beta",
        "Classifier: Framework :: Pytest",
        "Classifier: License :: OSI Approved :: MIT License",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Programming Language :: Rust",
        "Classifier: Topic :: Software Development :: Testing",
        "Requires-Python: >=3.9",
        "Description-Content-Type: text/markdown",
        "",
        Path(args.readme).read_text(encoding="utf-8"),
    ]
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    for flag in ("binary", "package", "readme", "license", "version", "platform"):
        p.add_argument(f"--{flag}", required=True)
    for flag in ("repository", "summary", "out"):
        p.add_argument(f"--{flag}", required=True)
    p.add_argument("--epoch", type=int, required=True)
    args = p.parse_args()

    version = pep440(args.version)
    base = f"{NAME}-{version}"
    info, data = f"{base}.dist-info", f"{base}.data"
    package = Path(args.package)
    tags = [f"py3-none-{platform}" for platform in args.platform.split(".")]

    # (path in the wheel, bytes, executable)
    files: list[tuple[str, bytes, bool]] = []
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            rel = path.relative_to(package.parent).as_posix()
            files.append((rel, path.read_bytes(), False))
    files.append((f"{package.name}/_version.py", f'__version__ = "{version}"\n'.encode(), False))
    files.sort()
    files.append((f"{data}/scripts/toolproof", Path(args.binary).read_bytes(), True))
    wheel = ["Wheel-Version: 1.0", "Generator: toolproof scripts/build-wheel.py"]
    wheel += ["Root-Is-Purelib: true", *(f"Tag: {tag}" for tag in tags)]
    files += [
        (f"{info}/METADATA", metadata(args, version).encode(), False),
        (f"{info}/WHEEL", ("\n".join(wheel) + "\n").encode(), False),
        (f"{info}/entry_points.txt", b"[pytest11]\ntoolproof = toolproof.pytest_plugin\n", False),
        (f"{info}/licenses/LICENSE", Path(args.license).read_bytes(), False),
    ]
    record = "".join(f"{name},{record_hash(body)},{len(body)}\n" for name, body, _ in files)
    files.append((f"{info}/RECORD", (record + f"{info}/RECORD,,\n").encode(), False))

    # Zip times cannot be earlier than 1980; they are local-time fields, read here in UTC.
    stamp = time.gmtime(max(args.epoch, 315532800))[:6]
    out = Path(args.out) / f"{base}-py3-none-{args.platform}.whl"
    tmp = out.with_suffix(".whl.tmp")
    with zipfile.ZipFile(tmp, "w") as zf:
        for name, body, executable in files:
            entry = zipfile.ZipInfo(name, date_time=stamp)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.create_system = 3  # Unix, so that the mode below counts
            entry.external_attr = (0o100755 if executable else 0o100644) << 16
            zf.writestr(entry, body, compresslevel=9)
    tmp.replace(out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
